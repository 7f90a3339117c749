//! A fleet's metrics ([`Metrics`]) as Prometheus text (exposition format 0.0.4), for a
//! `/metrics` page or a `prometheus_client` collector.
//!
//! Names follow the field's habits: `retry_core_retries_total` is stamina's
//! `stamina_retries_total` and gRPC's `grpc.client.call.retries` (A96);
//! `retry_core_retry_delay_seconds_total` is `grpc.client.call.retry_delay`; `gave_up` is what
//! Envoy counts as `upstream_rq_retry_limit_exceeded`. Counters end in `_total`, seconds are
//! seconds (Prometheus' naming guide). Labels: `key` (the fleet key) and `category` (the
//! classification; `success` for successes).
//!
//! Series are bounded: at most `max_keys` keys are written (the busiest, by calls), each with
//! its few categories; `retry_core_metrics_keys_omitted` says how many were left out.

use std::fmt::Write as _;

use crate::fleet_engine::{AdmissionCounters, Counters, KeyCounters, Metrics};

/// The keys [`render`] writes unless told otherwise: 1000 keys of a few categories each stay
/// under about 30 000 series.
pub const DEFAULT_MAX_KEYS: usize = 1000;

/// The longest key written; a longer one is cut (at a character boundary) so that one label
/// cannot blow up a scrape.
pub const MAX_KEY_BYTES: usize = 256;

type PerCategory = fn(&Counters) -> f64;
type PerKey = fn(&AdmissionCounters) -> f64;

/// The counters by key and category: (name, type, help, value).
const BY_CATEGORY: &[(&str, &str, &str, PerCategory)] = &[
    (
        "retry_core_calls_total",
        "counter",
        "Calls made, by outcome category.",
        |c| c.calls as f64,
    ),
    (
        "retry_core_successes_total",
        "counter",
        "Calls that succeeded.",
        |c| c.successes as f64,
    ),
    (
        "retry_core_failures_total",
        "counter",
        "Calls that failed, by category.",
        |c| c.failures as f64,
    ),
    (
        "retry_core_retries_total",
        "counter",
        "Retries granted, by the category of the failure retried.",
        |c| c.retries as f64,
    ),
    (
        "retry_core_retry_delay_seconds_total",
        "counter",
        "Seconds of retry delay granted.",
        |c| c.waited_s,
    ),
    (
        "retry_core_gave_up_total",
        "counter",
        "Logical calls that gave up in the end, by the category of the last failure.",
        |c| c.gave_up as f64,
    ),
    (
        "retry_core_wasted_calls_total",
        "counter",
        "Failed calls of the logical calls that gave up.",
        |c| c.wasted_calls as f64,
    ),
    (
        "retry_core_wasted_seconds_total",
        "counter",
        "Seconds waited by the logical calls that gave up.",
        |c| c.wasted_s,
    ),
];

/// Admission's counters by key: (name, type, help, value).
const BY_KEY: &[(&str, &str, &str, PerKey)] = &[
    (
        "retry_core_admission_waits_total",
        "counter",
        "Calls admission told to wait.",
        |a| a.waits as f64,
    ),
    (
        "retry_core_admission_wait_seconds_total",
        "counter",
        "Seconds of admission wait handed out.",
        |a| a.waited_s,
    ),
    (
        "retry_core_admission_max_wait_seconds",
        "gauge",
        "The longest admission wait handed out.",
        |a| a.max_wait_s,
    ),
    (
        "retry_core_admission_limits_learned_total",
        "counter",
        "Rate limits admission learned.",
        |a| a.limits_learned as f64,
    ),
    (
        "retry_core_admission_throttled_total",
        "counter",
        "Admitted calls answered with a throttle (429, 529).",
        |a| a.throttled as f64,
    ),
];

/// The metrics as Prometheus text: at most `max_keys` keys (the busiest by calls, then by
/// name), families in a fixed order, keys and categories sorted.
pub fn render(metrics: &Metrics, max_keys: usize) -> String {
    render_rows(metrics.rows(), max_keys)
}

/// [`render`] of rows already copied out ([`Metrics::rows`]).
pub fn render_rows(mut rows: Vec<KeyCounters>, max_keys: usize) -> String {
    let omitted = rows.len().saturating_sub(max_keys);
    if omitted > 0 {
        let calls = |r: &KeyCounters| r.categories.iter().map(|(_, c)| c.calls).sum::<u64>();
        rows.sort_by(|a, b| calls(b).cmp(&calls(a)).then_with(|| a.key.cmp(&b.key)));
        rows.truncate(max_keys);
        rows.sort_by(|a, b| a.key.cmp(&b.key));
    }
    let keys: Vec<String> = rows.iter().map(|r| label_value(&r.key)).collect();
    let mut out = String::new();
    for (name, kind, help, value) in BY_CATEGORY {
        header(&mut out, name, kind, help);
        for (row, key) in rows.iter().zip(&keys) {
            for (cat, c) in &row.categories {
                let cat = label_value(cat);
                sample(
                    &mut out,
                    name,
                    &format!("key=\"{key}\",category=\"{cat}\""),
                    value(c),
                );
            }
        }
    }
    for (name, kind, help, value) in BY_KEY {
        let mut any = false;
        for (row, key) in rows.iter().zip(&keys) {
            if let Some(a) = &row.admission {
                if !any {
                    header(&mut out, name, kind, help);
                    any = true;
                }
                sample(&mut out, name, &format!("key=\"{key}\""), value(a));
            }
        }
    }
    header(
        &mut out,
        "retry_core_metrics_keys_omitted",
        "gauge",
        "Keys left out of this page by its bound on keys (max_keys).",
    );
    sample(
        &mut out,
        "retry_core_metrics_keys_omitted",
        "",
        omitted as f64,
    );
    out
}

fn header(out: &mut String, name: &str, kind: &str, help: &str) {
    // HELP texts are ours and need no escaping (no backslash, no newline): tested.
    let _ = writeln!(out, "# HELP {name} {help}\n# TYPE {name} {kind}");
}

fn sample(out: &mut String, name: &str, labels: &str, v: f64) {
    let v = number(v);
    if labels.is_empty() {
        let _ = writeln!(out, "{name} {v}");
    } else {
        let _ = writeln!(out, "{name}{{{labels}}} {v}");
    }
}

/// A sample value as the format writes it (`+Inf`, `-Inf`, `NaN`; Rust writes `inf`).
fn number(v: f64) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "+Inf" } else { "-Inf" }.into()
    } else {
        format!("{v}")
    }
}

/// A label value escaped as the format says (backslash, double quote, line feed), cut to
/// [`MAX_KEY_BYTES`].
pub fn label_value(s: &str) -> String {
    let mut end = s.len().min(MAX_KEY_BYTES);
    while !s.is_char_boundary(end) {
        end -= 1;
    }
    let mut out = String::with_capacity(end + 2);
    for ch in s[..end].chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '"' => out.push_str("\\\""),
            '\n' => out.push_str("\\n"),
            c => out.push(c),
        }
    }
    out
}

/// The metric names [`render`] may write, for bindings and tests.
pub fn metric_names() -> impl Iterator<Item = &'static str> {
    BY_CATEGORY
        .iter()
        .map(|f| f.0)
        .chain(BY_KEY.iter().map(|f| f.0))
        .chain(std::iter::once("retry_core_metrics_keys_omitted"))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics() -> Metrics {
        let m = Metrics::default();
        m.update("openai:gpt-4o", "success", |c| {
            c.calls += 3;
            c.successes += 3;
        });
        m.update("openai:gpt-4o", "rate_limited", |c| {
            c.calls += 2;
            c.failures += 2;
            c.retries += 2;
            c.waited_s += 1.5;
        });
        m
    }

    #[test]
    fn families_have_help_and_type_and_labelled_samples() {
        let text = render(&metrics(), DEFAULT_MAX_KEYS);
        assert!(text.contains("# TYPE retry_core_retries_total counter\n"));
        assert!(text.contains(
            "retry_core_retries_total{key=\"openai:gpt-4o\",category=\"rate_limited\"} 2\n"
        ));
        assert!(text.contains(
            "retry_core_retry_delay_seconds_total{key=\"openai:gpt-4o\",category=\"rate_limited\"} 1.5\n"
        ));
        assert!(text.contains("retry_core_metrics_keys_omitted 0\n"));
        // No admission on: no admission family at all.
        assert!(!text.contains("admission"));
        for name in metric_names().filter(|n| !n.contains("admission")) {
            assert!(text.contains(&format!("# HELP {name} ")), "{name}");
        }
    }

    #[test]
    fn labels_are_escaped_and_cut() {
        assert_eq!(label_value("a\"b\\c\nd"), "a\\\"b\\\\c\\nd");
        let long = "é".repeat(200);
        let cut = label_value(&long);
        assert!(cut.len() <= MAX_KEY_BYTES && cut.chars().all(|c| c == 'é'));
    }

    #[test]
    fn keys_are_bounded_busiest_first() {
        let m = Metrics::default();
        for i in 0..50u64 {
            m.update(&format!("k{i:02}"), "success", |c| c.calls += i);
        }
        let text = render(&m, 10);
        assert!(text.contains("retry_core_metrics_keys_omitted 40\n"));
        assert!(text.contains("key=\"k49\""));
        assert!(text.contains("key=\"k40\""));
        assert!(!text.contains("key=\"k39\""));
    }

    #[test]
    fn numbers_are_written_as_the_format_wants() {
        assert_eq!(number(f64::INFINITY), "+Inf");
        assert_eq!(number(f64::NEG_INFINITY), "-Inf");
        assert_eq!(number(f64::NAN), "NaN");
        assert_eq!(number(3.0), "3");
        assert_eq!(number(0.25), "0.25");
    }

    #[test]
    fn help_texts_need_no_escaping() {
        for (_, _, help, _) in BY_CATEGORY {
            assert!(!help.contains('\\') && !help.contains('\n'));
        }
        for (_, _, help, _) in BY_KEY {
            assert!(!help.contains('\\') && !help.contains('\n'));
        }
    }
}
