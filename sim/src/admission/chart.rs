//! The report's chart as a self-contained SVG (no plotting library): three panels side by
//! side, one bar group per mode: goodput over the token limit, the share of 429s, and the p50 /
//! p99 admission wait against twice the fair share.

use std::fmt::Write as _;

use super::summary::Summary;

const W: f64 = 300.0;
const H: f64 = 260.0;
const TOP: f64 = 40.0;
const BOTTOM: f64 = 70.0;
const LEFT: f64 = 50.0;
const COLORS: [&str; 2] = ["#4472c4", "#ed7d31"];

fn esc(s: &str) -> String {
    s.replace('&', "&amp;")
        .replace('<', "&lt;")
        .replace('>', "&gt;")
}

/// A round upper bound for an axis holding `max`.
fn nice_max(max: f64) -> f64 {
    if !(max.is_finite() && max > 0.0) {
        return 1.0;
    }
    let p = 10f64.powf(max.log10().floor());
    [1.0, 2.0, 2.5, 5.0, 10.0]
        .iter()
        .map(|m| m * p)
        .find(|v| *v >= max)
        .unwrap_or(10.0 * p)
}

/// One panel: bars per mode (one per series), an optional dashed target line.
fn panel(
    out: &mut String,
    x0: f64,
    title: &str,
    modes: &[&str],
    series: &[(&str, Vec<f64>)],
    target: Option<(f64, &str)>,
    fmt: &dyn Fn(f64) -> String,
) {
    let plot_h = H - TOP - BOTTOM;
    let plot_w = W - LEFT - 10.0;
    let max = series
        .iter()
        .flat_map(|(_, v)| v.iter().copied())
        .chain(target.map(|t| t.0))
        .filter(|v| v.is_finite())
        .fold(0.0, f64::max);
    let top = nice_max(max * 1.05);
    let y = |v: f64| TOP + plot_h * (1.0 - (v / top).clamp(0.0, 1.0));
    let _ = writeln!(
        out,
        r#"<text x="{}" y="20" font-size="13" text-anchor="middle" font-weight="bold">{}</text>"#,
        x0 + W / 2.0,
        esc(title)
    );
    for i in 0..=4 {
        let v = top * i as f64 / 4.0;
        let _ = writeln!(
            out,
            r##"<line x1="{a}" x2="{b}" y1="{yy}" y2="{yy}" stroke="#ddd"/><text x="{t}" y="{ty}" font-size="10" text-anchor="end">{l}</text>"##,
            a = x0 + LEFT,
            b = x0 + LEFT + plot_w,
            yy = y(v),
            t = x0 + LEFT - 4.0,
            ty = y(v) + 3.0,
            l = esc(&fmt(v))
        );
    }
    let group = plot_w / modes.len() as f64;
    let bar = group * 0.8 / series.len() as f64;
    for (m, name) in modes.iter().enumerate() {
        let gx = x0 + LEFT + group * m as f64 + group * 0.1;
        for (s, (_, vals)) in series.iter().enumerate() {
            let v = vals.get(m).copied().unwrap_or(f64::NAN);
            if !v.is_finite() {
                continue;
            }
            let _ = writeln!(
                out,
                r#"<rect x="{:.1}" y="{:.1}" width="{:.1}" height="{:.1}" fill="{}"><title>{} {}</title></rect>"#,
                gx + bar * s as f64,
                y(v),
                bar - 1.0,
                (TOP + plot_h - y(v)).max(0.0),
                COLORS[s % COLORS.len()],
                esc(name),
                esc(&fmt(v))
            );
        }
        let lx = gx + group * 0.4;
        let ly = TOP + plot_h + 8.0;
        let _ = writeln!(
            out,
            r#"<text x="{lx:.1}" y="{ly:.1}" font-size="10" text-anchor="end" transform="rotate(-40 {lx:.1} {ly:.1})">{}</text>"#,
            esc(name)
        );
    }
    if let Some((v, label)) = target {
        let _ = writeln!(
            out,
            r##"<line x1="{a}" x2="{b}" y1="{yy:.1}" y2="{yy:.1}" stroke="#c00" stroke-dasharray="4 3"/><text x="{b}" y="{ty:.1}" font-size="9" fill="#c00" text-anchor="end">{}</text>"##,
            esc(label),
            a = x0 + LEFT,
            b = x0 + LEFT + plot_w,
            yy = y(v),
            ty = y(v) - 3.0
        );
    }
    if series.len() > 1 {
        for (s, (label, _)) in series.iter().enumerate() {
            let lx = x0 + LEFT + 8.0 + 70.0 * s as f64;
            let _ = writeln!(
                out,
                r#"<rect x="{lx}" y="{}" width="9" height="9" fill="{}"/><text x="{}" y="{}" font-size="10">{}</text>"#,
                H - 12.0,
                COLORS[s % COLORS.len()],
                lx + 12.0,
                H - 4.0,
                esc(label)
            );
        }
    }
}

/// The chart of `rows`, with `caption` under the panels.
pub fn svg(rows: &[Summary], caption: &str) -> String {
    let modes: Vec<&str> = rows.iter().map(|r| r.mode.as_str()).collect();
    let mut out = String::new();
    let _ = writeln!(
        out,
        r#"<svg xmlns="http://www.w3.org/2000/svg" width="{}" height="{}" font-family="sans-serif">"#,
        3.0 * W,
        H + 24.0
    );
    out.push_str("<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n");
    panel(
        &mut out,
        0.0,
        "goodput / token limit",
        &modes,
        &[("goodput", rows.iter().map(|r| r.goodput_ratio).collect())],
        Some((0.95, "target 0.95 (headers)")),
        &|v| format!("{v:.2}"),
    );
    panel(
        &mut out,
        W,
        "share of requests answered 429",
        &modes,
        &[("429", rows.iter().map(|r| r.share_429 * 100.0).collect())],
        Some((1.0, "target 1 % (headers)")),
        &|v| format!("{v:.1} %"),
    );
    let fair2 = rows
        .iter()
        .map(|r| 2.0 * r.fair_share_wait_s)
        .fold(0.0, f64::max);
    panel(
        &mut out,
        2.0 * W,
        "admission wait (s)",
        &modes,
        &[
            ("p50", rows.iter().map(|r| r.p50_wait_s).collect()),
            ("p99", rows.iter().map(|r| r.p99_wait_s).collect()),
        ],
        Some((fair2, "2 x fair share")),
        &|v| format!("{v:.1}"),
    );
    let _ = writeln!(
        out,
        r##"<text x="10" y="{}" font-size="10" fill="#555">{}</text>"##,
        H + 18.0,
        esc(caption)
    );
    out.push_str("</svg>\n");
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn axes_round_up_and_the_svg_names_every_mode() {
        assert_eq!(nice_max(0.93), 1.0);
        assert_eq!(nice_max(1.2), 2.0);
        assert_eq!(nice_max(37.0), 50.0);
        assert_eq!(nice_max(0.0), 1.0);
        let row = |m: &str, g: f64| Summary {
            mode: m.into(),
            goodput_ratio: g,
            share_429: 0.01,
            p50_wait_s: 1.0,
            p99_wait_s: 3.0,
            fair_share_wait_s: 2.0,
            calls: 1,
            failed: 0,
            attempts: 1,
            throttled: 0,
            served_per_s: 1.0,
            tokens_per_call: 1.0,
        };
        let s = svg(&[row("retry_only", 0.5), row("a<b", f64::NAN)], "cap");
        assert!(s.starts_with("<svg") && s.trim_end().ends_with("</svg>"));
        assert!(s.contains(">retry_only<") && s.contains("a&lt;b") && !s.contains("NaN"));
    }
}
