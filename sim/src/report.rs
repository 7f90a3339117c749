//! Markdown tables and CSV files from measured runs (nothing here is a constant result).

use std::fmt::Write as _;

use crate::fleet::FleetResult;
use crate::live::LiveResult;
use crate::run::{Stat, Summary};
use crate::scenario::Scenario;

/// `"3.2"` or `"3.2 (p95 4.1)"` when the runs differ.
pub fn stat(s: Stat, digits: usize) -> String {
    if (s.p95 - s.mean).abs() < 0.05 * 10f64.powi(-(digits as i32)) {
        format!("{:.*}", digits, s.mean)
    } else {
        format!("{:.*} (p95 {:.*})", digits, s.mean, digits, s.p95)
    }
}

/// The outcome column: when the call succeeded, or when it gave up.
pub fn outcome(s: &Summary) -> String {
    if s.success_rate >= 1.0 {
        format!("success at {} s", stat(s.end, 1))
    } else if s.success_rate <= 0.0 {
        format!("gave up at {} s", stat(s.end, 1))
    } else {
        format!(
            "{:.0} % success (at {} s); ends at {} s",
            100.0 * s.success_rate,
            stat(s.success_end, 1),
            stat(s.end, 1)
        )
    }
}

/// The ratio column: `1.03x`, or `—` when some run gave up where the oracle succeeds.
pub fn ratio(s: &Summary) -> String {
    match s.ratio() {
        Some(r) if (r.p95 - r.mean).abs() < 0.005 => format!("{:.2}x", r.mean),
        Some(r) => format!("{:.2}x (p95 {:.2}x)", r.mean, r.p95),
        None => "— (gave up)".into(),
    }
}

/// One compact cell: calls / waited / time to outcome / ratio (means).
pub fn cell(s: &Summary) -> String {
    let time = if s.success_rate >= 1.0 {
        format!("{:.1}", s.end.mean)
    } else if s.success_rate <= 0.0 {
        format!("✗ {:.1}", s.end.mean)
    } else {
        format!("✗{:.0}% {:.1}", 100.0 * (1.0 - s.success_rate), s.end.mean)
    };
    let r = s
        .ratio()
        .map_or("—".to_string(), |r| format!("{:.2}x", r.mean));
    format!(
        "{:.1} / {:.0} / {} / {}",
        s.calls.mean, s.waited.mean, time, r
    )
}

/// The headline matrix: policies down, scenarios across.
pub fn headline(labels: &[(String, String)], scenarios: &[Scenario], rows: &[Summary]) -> String {
    let mut md = String::new();
    md.push_str("| policy |");
    for s in scenarios {
        let _ = write!(md, " {} |", s.label);
    }
    md.push_str("\n|---|");
    md.push_str(&"---|".repeat(scenarios.len()));
    md.push('\n');
    for (id, label) in labels {
        let _ = write!(md, "| **{id}**<br>{label} |");
        for sc in scenarios {
            let c = rows
                .iter()
                .find(|r| &r.client == id && r.scenario == sc.id)
                .map_or("".into(), cell);
            let _ = write!(md, " {c} |");
        }
        md.push('\n');
    }
    md.push_str("| **oracle** |");
    for sc in scenarios {
        let o = rows.iter().find(|r| r.scenario == sc.id).map(|r| r.oracle);
        if let Some(o) = o {
            let time = if o.success {
                format!("{:.1}", o.end)
            } else {
                format!("✗ {:.1}", o.end)
            };
            let _ = write!(md, " {} / {:.0} / {} / 1.00x |", o.calls, o.waited, time);
        }
    }
    md.push('\n');
    md
}

/// One table per scenario, with means and p95s.
pub fn details(labels: &[(String, String)], sc: &Scenario, rows: &[Summary]) -> String {
    let mut md = String::from("| policy | runs | calls | waited (s) | outcome | ratio to oracle |\n|---|---|---|---|---|---|\n");
    for (id, _) in labels {
        if let Some(r) = rows.iter().find(|r| &r.client == id && r.scenario == sc.id) {
            let _ = writeln!(
                md,
                "| {} | {} | {} | {} | {} | {} |",
                id,
                r.runs,
                stat(r.calls, 1),
                stat(r.waited, 1),
                outcome(r),
                ratio(r)
            );
        }
    }
    if let Some(r) = rows.iter().find(|r| r.scenario == sc.id) {
        let o = r.oracle;
        let _ = writeln!(
            md,
            "| oracle | 1 | {} | {:.1} | {} at {:.1} s | 1.00x |",
            o.calls,
            o.waited,
            if o.success { "success" } else { "gave up" },
            o.end
        );
    }
    md
}

/// `client,scenario,...` rows for the charts.
pub fn scenarios_csv(rows: &[Summary]) -> String {
    let mut csv = String::from("client,scenario,runs,calls_mean,calls_p95,waited_mean,waited_p95,end_mean,end_p95,success_rate,oracle_end,oracle_success,ratio_mean,ratio_p95\n");
    for r in rows {
        let (rm, rp) = r.ratio().map_or((String::new(), String::new()), |s| {
            (format!("{:.4}", s.mean), format!("{:.4}", s.p95))
        });
        let _ = writeln!(
            csv,
            "{},{},{},{:.3},{:.3},{:.3},{:.3},{:.3},{:.3},{:.4},{:.3},{},{},{}",
            r.client,
            r.scenario,
            r.runs,
            r.calls.mean,
            r.calls.p95,
            r.waited.mean,
            r.waited.p95,
            r.end.mean,
            r.end.p95,
            r.success_rate,
            r.oracle.end,
            r.oracle.success,
            rm,
            rp
        );
    }
    csv
}

/// Amplification rows: (client, agents, result).
pub fn amplification_csv(rows: &[(String, usize, FleetResult)]) -> String {
    let mut csv = String::from("client,agents,offered_per_s,base_per_s,amplification\n");
    for (c, n, r) in rows {
        let _ = writeln!(
            csv,
            "{},{},{:.4},{:.4},{:.4}",
            c,
            n,
            r.offered,
            r.base,
            r.amplification()
        );
    }
    csv
}

/// The amplification table: clients down, fleet sizes across.
pub fn amplification_table(
    labels: &[(String, String)],
    sizes: &[usize],
    rows: &[(String, usize, FleetResult)],
) -> String {
    let mut md = String::from("| policy |");
    for n in sizes {
        let _ = write!(md, " N = {n} |");
    }
    md.push_str(" offered / base at the largest N (calls/s) |\n|---|");
    md.push_str(&"---|".repeat(sizes.len() + 1));
    md.push('\n');
    for (id, _) in labels {
        let _ = write!(md, "| {id} |");
        let mut last = None;
        for n in sizes {
            match rows.iter().find(|(c, m, _)| c == id && m == n) {
                Some((_, _, r)) => {
                    let _ = write!(md, " {:.2}x |", r.amplification());
                    last = Some(*r);
                }
                None => md.push_str(" |"),
            }
        }
        match last {
            Some(r) => {
                let _ = writeln!(md, " {:.1} / {:.1} |", r.offered, r.base);
            }
            None => md.push_str(" |\n"),
        }
    }
    md
}

pub fn live_csv(rows: &[LiveResult], virtual_amp: &[(String, f64)]) -> String {
    let mut csv = String::from("client,offered_per_s,base_per_s,amplification,virtual_amplification,lab_requests,agent_calls\n");
    for r in rows {
        let v = virtual_amp
            .iter()
            .find(|(c, _)| c == &r.client)
            .map_or(f64::NAN, |(_, a)| *a);
        let _ = writeln!(
            csv,
            "{},{:.3},{:.3},{:.4},{:.4},{},{}",
            r.client,
            r.offered,
            r.base,
            r.amplification(),
            v,
            r.lab_requests,
            r.agent_calls
        );
    }
    csv
}

/// Today's date (UTC) as YYYY-MM-DD, from the system clock.
pub fn today() -> String {
    let secs = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs())
        .unwrap_or(0);
    civil_date((secs / 86_400) as i64)
}

/// Days since 1970-01-01 to a civil date, `YYYY-MM-DD`.
pub fn civil_date(days: i64) -> String {
    let (y, m, d) = retry_core::__private::retry_after::civil_from_days(days);
    format!("{y:04}-{m:02}-{d:02}")
}

/// Criterion's console output to a table: `| benchmark | low | estimate | high |`.
pub fn criterion_table(output: &str) -> Option<String> {
    let mut md = String::from(
        "| benchmark | time (lower bound) | time (estimate) | time (upper bound) |\n|---|---|---|---|\n",
    );
    let mut prev: Option<&str> = None;
    let mut rows = 0;
    for line in output.lines() {
        let t = line.trim();
        if let Some(i) = t.find("time:") {
            // A short name shares the line with "time:"; a long one stands on the line before.
            let head = t[..i].trim();
            let name = if head.is_empty() {
                prev.take()
            } else {
                Some(head)
            };
            let inner = t[i + 5..]
                .trim()
                .trim_start_matches('[')
                .trim_end_matches(']');
            let p: Vec<&str> = inner.split_whitespace().collect();
            if let (Some(n), 6) = (name, p.len()) {
                let _ = writeln!(
                    md,
                    "| {n} | {} {} | {} {} | {} {} |",
                    p[0], p[1], p[2], p[3], p[4], p[5]
                );
                rows += 1;
            }
        } else if !t.is_empty() && !t.contains(' ') && !t.contains(':') {
            prev = Some(t);
        }
    }
    (rows > 0).then_some(md)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dates() {
        assert_eq!(civil_date(0), "1970-01-01");
        assert_eq!(civil_date(19_723), "2024-01-01");
        assert_eq!(civil_date(11_016), "2000-02-29");
    }

    #[test]
    fn criterion_output_parses() {
        let out = "Benchmarking classify/openai_429_json: Analyzing\n\
classify/openai_429_json\n                        time:   [512.34 ns 515.00 ns 518.12 ns]\n\
                        change: [-1.0% +0.2% +1.1%] (p = 0.70 > 0.05)\n\
retrier/first_decision  time:   [88.1 ns 88.5 ns 89.0 ns]\n";
        let t = criterion_table(out).unwrap();
        assert!(
            t.contains("| classify/openai_429_json | 512.34 ns | 515.00 ns | 518.12 ns |"),
            "{t}"
        );
        assert!(
            t.contains("| retrier/first_decision | 88.1 ns | 88.5 ns | 89.0 ns |"),
            "{t}"
        );
        assert!(criterion_table("nothing here").is_none());
    }
}
