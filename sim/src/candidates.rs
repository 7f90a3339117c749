//! The targets the `default` policy must meet, and alternative configurations to compare when
//! it misses them (the core's owner decides; nothing here changes the core).

use retry_core::RetryPolicy;

use crate::client::ClientSpec;
use crate::run::Summary;
use crate::scenario::Scenario;

/// The time-to-success target on outages and rate limits, as a multiple of the oracle's.
pub const RATIO_TARGET: f64 = 1.25;
/// The amplification target for the 1 000-agent outage.
pub const AMPLIFICATION_TARGET: f64 = 1.1;

/// One measured target.
#[derive(Debug, Clone, PartialEq)]
pub struct Check {
    pub target: String,
    pub measured: String,
    pub pass: bool,
}

/// Checks `client`'s rows against the targets; `amp` is its amplification at the largest fleet
/// (N, amplification).
pub fn check(
    client: &str,
    scenarios: &[Scenario],
    rows: &[Summary],
    amp: Option<(usize, f64)>,
) -> Vec<Check> {
    let mut out = Vec::new();
    let row = |sc: &Scenario| {
        rows.iter()
            .find(|r| r.client == client && r.scenario == sc.id)
    };
    for sc in scenarios.iter().filter(|s| s.is_permanent()) {
        if let Some(r) = row(sc) {
            out.push(Check {
                target: format!("{}: 1 call and 0 s waited", sc.label),
                measured: format!(
                    "{:.0} call(s) (p95 {:.0}), {:.1} s waited (p95 {:.1})",
                    r.calls.mean, r.calls.p95, r.waited.mean, r.waited.p95
                ),
                pass: r.calls.p95 <= 1.0 && r.waited.p95 <= 0.0,
            });
        }
    }
    for sc in scenarios.iter().filter(|s| s.is_outage()) {
        if let Some(r) = row(sc) {
            let (measured, pass) = match r.ratio() {
                Some(x) => (
                    format!("{:.2}x mean, {:.2}x p95 (success at {:.1} s, oracle {:.1} s)", x.mean, x.p95, r.end.mean, r.oracle.end),
                    x.mean <= RATIO_TARGET,
                ),
                None => (
                    format!("gave up in {:.0} % of runs, at {:.1} s on average (oracle succeeds at {:.1} s)", 100.0 * (1.0 - r.success_rate), r.end.mean, r.oracle.end),
                    false,
                ),
            };
            out.push(Check {
                target: format!("{}: at most {RATIO_TARGET}x the oracle", sc.label),
                measured,
                pass,
            });
        }
    }
    if let Some((n, a)) = amp {
        out.push(Check {
            target: format!("{n} agents, outage: amplification at most {AMPLIFICATION_TARGET}x"),
            measured: format!("{a:.2}x (gap {:+.2}x)", a - AMPLIFICATION_TARGET),
            pass: a <= AMPLIFICATION_TARGET,
        });
    }
    out
}

/// Whether every time-to-success check passes on the p95 too (the stricter bar a candidate must
/// clear to be recommended).
pub fn meets_p95(client: &str, scenarios: &[Scenario], rows: &[Summary]) -> bool {
    scenarios.iter().all(|sc| {
        let Some(r) = rows
            .iter()
            .find(|r| r.client == client && r.scenario == sc.id)
        else {
            return false;
        };
        if sc.is_permanent() {
            r.calls.p95 <= 1.0 && r.waited.p95 <= 0.0
        } else if sc.is_outage() {
            r.ratio().is_some_and(|x| x.p95 <= RATIO_TARGET)
        } else {
            true
        }
    })
}

/// A candidate configuration, as `RetryPolicy::from_config` JSON on top of the `default` preset.
#[derive(Debug, Clone, PartialEq)]
pub struct Candidate {
    pub id: &'static str,
    pub summary: &'static str,
    pub config: &'static str,
}

impl Candidate {
    pub fn policy(&self) -> RetryPolicy {
        RetryPolicy::from_config(self.config).expect("candidate configuration is valid")
    }
    pub fn client(&self) -> ClientSpec {
        ClientSpec::custom(self.id, self.summary, self.policy())
    }
}

/// The alternatives evaluated in "Candidate defaults". Each keeps everything else of `default`
/// (retry-after up to 60 s, reset hints as a floor, unknown not retried, orphans pruned once).
pub fn all() -> Vec<Candidate> {
    vec![
        Candidate {
            id: "cand_longer",
            summary: "the original default's backoff (1 s ×2 ≤ 30 s, full jitter), 12 calls, 180 s deadline",
            config: r#"{"name": "cand_longer", "backoff": {"kind": "exponential", "base": 1, "multiplier": 2, "cap": 30}, "jitter": "full", "max_attempts": 12, "deadline": 180}"#,
        },
        Candidate {
            id: "cand_x2_cap10",
            summary: "1 s ×2 ≤ 10 s, equal jitter, 25 calls, 180 s deadline",
            config: r#"{"name": "cand_x2_cap10", "backoff": {"kind": "exponential", "base": 1, "multiplier": 2, "cap": 10}, "jitter": "equal", "max_attempts": 25, "deadline": 180}"#,
        },
        Candidate {
            id: "cand_decorrelated",
            summary: "decorrelated jitter 1 s → ≤ 10 s, 30 calls, 180 s deadline",
            config: r#"{"name": "cand_decorrelated", "backoff": {"kind": "exponential", "base": 1, "multiplier": 2, "cap": 10}, "jitter": "decorrelated", "max_attempts": 30, "deadline": 180}"#,
        },
        Candidate {
            id: "cand_x1.25_cap10",
            summary: "1 s ×1.25 ≤ 10 s, equal jitter, 30 calls, 180 s deadline",
            config: r#"{"name": "cand_x1.25_cap10", "backoff": {"kind": "exponential", "base": 1, "multiplier": 1.25, "cap": 10}, "jitter": "equal", "max_attempts": 30, "deadline": 180}"#,
        },
        Candidate {
            id: "cand_x1.25_cap30",
            summary: "1 s ×1.25 ≤ 30 s, equal jitter, 30 calls, 180 s deadline",
            config: r#"{"name": "cand_x1.25_cap30", "backoff": {"kind": "exponential", "base": 1, "multiplier": 1.25, "cap": 30}, "jitter": "equal", "max_attempts": 30, "deadline": 180}"#,
        },
        Candidate {
            id: "cand_x1.2_cap30",
            summary: "1 s ×1.2 ≤ 30 s, equal jitter, 30 calls, 180 s deadline",
            config: r#"{"name": "cand_x1.2_cap30", "backoff": {"kind": "exponential", "base": 1, "multiplier": 1.2, "cap": 30}, "jitter": "equal", "max_attempts": 30, "deadline": 180}"#,
        },
        Candidate {
            id: "cand_x1.2_base2",
            summary: "2 s ×1.2 ≤ 30 s, equal jitter, 30 calls, 180 s deadline",
            config: r#"{"name": "cand_x1.2_base2", "backoff": {"kind": "exponential", "base": 2, "multiplier": 1.2, "cap": 30}, "jitter": "equal", "max_attempts": 30, "deadline": 180}"#,
        },
        Candidate {
            id: "cand_x1.15_base2",
            summary: "2 s ×1.15 ≤ 30 s, equal jitter, 30 calls, 180 s deadline",
            config: r#"{"name": "cand_x1.15_base2", "backoff": {"kind": "exponential", "base": 2, "multiplier": 1.15, "cap": 30}, "jitter": "equal", "max_attempts": 30, "deadline": 180}"#,
        },
    ]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn candidates_are_valid_and_distinct() {
        let c = all();
        for x in &c {
            assert_eq!(x.policy().name, x.id);
        }
        let mut ids: Vec<_> = c.iter().map(|x| x.id).collect();
        ids.dedup();
        assert_eq!(ids.len(), c.len());
    }
}
