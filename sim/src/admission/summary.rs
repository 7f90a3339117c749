//! The figures of one mode's run, from its agents' call records.

use super::{CallRecord, Workload};

/// One row of `bench/results/admission.csv`, plus the counts behind it.
#[derive(Clone, Debug, PartialEq)]
pub struct Summary {
    pub mode: String,
    /// Tokens served per minute in the measured window over the token limit.
    pub goodput_ratio: f64,
    /// Attempts answered 429 over all attempts, over the whole run (learning included).
    pub share_429: f64,
    /// Median and 99th percentile of the admission wait of the calls begun in the window.
    pub p50_wait_s: f64,
    pub p99_wait_s: f64,
    /// The wait each agent would see if the quota were shared perfectly (see [`fair_share_wait`]).
    pub fair_share_wait_s: f64,
    pub calls: usize,
    pub failed: usize,
    pub attempts: u64,
    pub throttled: u64,
    /// Calls a second served in the window, and tokens per served call.
    pub served_per_s: f64,
    pub tokens_per_call: f64,
}

/// Nearest-rank percentile (`q` in 0..=1) of a sample; NaN if empty.
pub fn percentile(xs: &[f64], q: f64) -> f64 {
    if xs.is_empty() {
        return f64::NAN;
    }
    let mut v = xs.to_vec();
    v.sort_by(f64::total_cmp);
    let rank = ((q * v.len() as f64).ceil() as usize).clamp(1, v.len());
    v[rank - 1]
}

/// The fair share: with `agents` callers that never think, a quota that serves `per_s` calls a
/// second gives each caller one call every `agents / per_s` seconds; of that, `attempt_s` is its
/// own call, the rest is its wait.
pub fn fair_share_wait(agents: usize, per_s: f64, attempt_s: f64) -> f64 {
    (agents as f64 / per_s - attempt_s).max(0.0)
}

pub fn summarize(mode: &str, w: &Workload, calls: &[CallRecord]) -> Summary {
    let (from, to) = (w.warmup, w.seconds);
    let window_min = (to - from) / 60.0;
    let served: Vec<&CallRecord> = calls
        .iter()
        .filter(|c| c.ok && c.end >= from && c.end < to)
        .collect();
    let tokens: u64 = served.iter().map(|c| c.tokens).sum();
    let attempts: u64 = calls.iter().map(|c| u64::from(c.attempts)).sum();
    let throttled: u64 = calls.iter().map(|c| u64::from(c.throttled)).sum();
    let waits: Vec<f64> = calls
        .iter()
        .filter(|c| c.ok && c.start >= from && c.start < to)
        .map(|c| c.wait)
        .collect();
    let ok: Vec<&CallRecord> = calls.iter().filter(|c| c.ok).collect();
    let tokens_per_call = if ok.is_empty() {
        f64::NAN
    } else {
        ok.iter().map(|c| c.tokens as f64).sum::<f64>() / ok.len() as f64
    };
    let attempt_s = if ok.is_empty() {
        0.0
    } else {
        ok.iter().map(|c| c.attempt).sum::<f64>() / ok.len() as f64
    };
    // The quota's rate in calls a second: requests or tokens, whichever binds.
    let per_s = (w.rpm as f64 / 60.0).min(w.tpm as f64 / 60.0 / tokens_per_call);
    Summary {
        mode: mode.to_string(),
        goodput_ratio: tokens as f64 / window_min / w.tpm as f64,
        share_429: if attempts == 0 {
            0.0
        } else {
            throttled as f64 / attempts as f64
        },
        p50_wait_s: percentile(&waits, 0.50),
        p99_wait_s: percentile(&waits, 0.99),
        fair_share_wait_s: fair_share_wait(w.agents(), per_s, attempt_s),
        calls: calls.len(),
        failed: calls.iter().filter(|c| !c.ok).count(),
        attempts,
        throttled,
        served_per_s: served.len() as f64 / (to - from),
        tokens_per_call,
    }
}

/// The CSV with exactly the columns the issue names.
pub fn csv(rows: &[Summary]) -> String {
    let mut out =
        String::from("mode,goodput_ratio,share_429,p50_wait_s,p99_wait_s,fair_share_wait_s\n");
    for r in rows {
        out.push_str(&format!(
            "{},{:.4},{:.4},{:.3},{:.3},{:.3}\n",
            r.mode, r.goodput_ratio, r.share_429, r.p50_wait_s, r.p99_wait_s, r.fair_share_wait_s
        ));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn call(start: f64, wait: f64, ok: bool, tokens: u64, throttled: u32) -> CallRecord {
        CallRecord {
            start,
            wait,
            attempt: 0.01,
            ok,
            tokens,
            end: start + wait + 0.01,
            attempts: 1 + throttled,
            throttled,
        }
    }

    #[test]
    fn figures_by_hand() {
        let w = Workload {
            processes: 1,
            agents_per_process: 2,
            rpm: 6000,
            tpm: 6000,
            seconds: 70.0,
            warmup: 10.0,
            ..Workload::default()
        };
        // 100 tokens a second for the 60 s window = 6000 a minute: goodput 1. One call in the
        // warm-up does not count; one 429 among 62 attempts.
        let mut calls: Vec<CallRecord> = (0..60)
            .map(|i| call(10.0 + i as f64, 0.0, true, 100, u32::from(i == 5)))
            .collect();
        calls.push(call(1.0, 0.0, true, 5000, 0));
        let s = summarize("m", &w, &calls);
        assert!((s.goodput_ratio - 1.0).abs() < 1e-9, "{}", s.goodput_ratio);
        assert!((s.share_429 - 1.0 / 62.0).abs() < 1e-9);
        assert_eq!((s.calls, s.failed, s.attempts, s.throttled), (61, 0, 62, 1));
        // Tokens per call (60 x 100 + 5000) / 61; 6000 tokens a minute: 100 / that calls a second.
        let per_s = 100.0 / ((6000.0 + 5000.0) / 61.0);
        assert!((s.fair_share_wait_s - (2.0 / per_s - 0.01)).abs() < 1e-9);
        assert_eq!(percentile(&[3.0, 1.0, 2.0, 4.0], 0.5), 2.0);
        assert_eq!(percentile(&[3.0, 1.0, 2.0, 4.0], 0.99), 4.0);
        assert!(csv(&[s]).starts_with(
            "mode,goodput_ratio,share_429,p50_wait_s,p99_wait_s,fair_share_wait_s\nm,1.0000,0.0161,"
        ));
    }
}
