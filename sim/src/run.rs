//! One logical call through a client on virtual time, and statistics over many seeds.

use crate::client::{ClientSpec, Gate, Next, Stack, VirtualClock};
use crate::scenario::{Latency, Outcome, Scenario};

/// Runs one logical call of `client` (seeded) starting at t = 0 until it succeeds or gives up.
/// A client with a fleet gets a fleet of its own, on the same virtual clock.
pub fn run_call(client: &ClientSpec, seed: u64, scenario: &Scenario, lat: Latency) -> Outcome {
    let clock = VirtualClock::default();
    let fleet = client.fleet(clock.wall());
    let mut stack = client.build(seed, fleet.as_ref());
    let mut provider = scenario.provider();
    let mut t = 0.0;
    clock.set(t);
    stack.begin(t);
    let done = |stack: &Stack, t: f64, success: bool| Outcome {
        calls: stack.calls,
        waited: stack.waited,
        end: t,
        success,
    };
    loop {
        clock.set(t);
        match stack.gate(t) {
            Gate::Go => {}
            Gate::Wait(w) => {
                t += w;
                continue;
            }
            Gate::Reject => return done(&stack, t, false),
        }
        stack.calling();
        match provider.respond(t) {
            None => {
                t += lat.ok;
                clock.set(t);
                stack.on_success();
                return done(&stack, t, true);
            }
            Some(fault) => {
                t += lat.err;
                clock.set(t);
                let f = fault.failure();
                match stack.on_failure(t, &f, &mut || provider.prune_orphans()) {
                    Next::Wait(d) => t += d,
                    Next::GaveUp => return done(&stack, t, false),
                }
            }
        }
    }
}

/// Mean and 95th percentile (nearest rank) of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Stat {
    pub mean: f64,
    pub p95: f64,
}

impl Stat {
    pub fn of(xs: &[f64]) -> Stat {
        if xs.is_empty() {
            return Stat {
                mean: f64::NAN,
                p95: f64::NAN,
            };
        }
        let mut v = xs.to_vec();
        v.sort_by(f64::total_cmp);
        let rank = ((0.95 * v.len() as f64).ceil() as usize).clamp(1, v.len());
        Stat {
            mean: v.iter().sum::<f64>() / v.len() as f64,
            p95: v[rank - 1],
        }
    }
}

/// One client on one scenario, over `seeds` seeds.
#[derive(Debug, Clone)]
pub struct Summary {
    pub client: String,
    pub scenario: String,
    pub runs: usize,
    pub calls: Stat,
    pub waited: Stat,
    /// Time the call ended (success or give-up), over every run.
    pub end: Stat,
    /// Fraction of runs that succeeded.
    pub success_rate: f64,
    /// Time to success over the successful runs only.
    pub success_end: Stat,
    pub oracle: Outcome,
}

impl Summary {
    /// Time to outcome divided by the oracle's (mean, p95). On a scenario where the oracle
    /// succeeds, a run that gave up has no time to success: `None` unless every run succeeded.
    pub fn ratio(&self) -> Option<Stat> {
        if self.oracle.success && self.success_rate < 1.0 {
            return None;
        }
        Some(Stat {
            mean: self.end.mean / self.oracle.end,
            p95: self.end.p95 / self.oracle.end,
        })
    }
}

/// Runs `client` on `scenario` with seeds `0..seeds` (one seed if nothing is jittered).
pub fn summarize(client: &ClientSpec, scenario: &Scenario, lat: Latency, seeds: u64) -> Summary {
    let n = if client.jittered() { seeds.max(1) } else { 1 };
    let outs: Vec<Outcome> = (0..n)
        .map(|seed| run_call(client, seed, scenario, lat))
        .collect();
    let pick = |f: &dyn Fn(&Outcome) -> f64| outs.iter().map(f).collect::<Vec<_>>();
    let ok: Vec<f64> = outs.iter().filter(|o| o.success).map(|o| o.end).collect();
    Summary {
        client: client.id.clone(),
        scenario: scenario.id.into(),
        runs: outs.len(),
        calls: Stat::of(&pick(&|o| o.calls as f64)),
        waited: Stat::of(&pick(&|o| o.waited)),
        end: Stat::of(&pick(&|o| o.end)),
        success_rate: ok.len() as f64 / outs.len() as f64,
        success_end: Stat::of(&ok),
        oracle: scenario.oracle(lat),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::ClientSpec;
    use retry_core::RetryPolicy;

    fn lat() -> Latency {
        Latency::default()
    }

    #[test]
    fn stat_nearest_rank() {
        let xs: Vec<f64> = (1..=100).map(f64::from).collect();
        let s = Stat::of(&xs);
        assert_eq!((s.mean, s.p95), (50.5, 95.0));
        assert_eq!(Stat::of(&[3.0]).p95, 3.0);
    }

    #[test]
    fn an_agent_that_calls_at_recovery_matches_the_oracle() {
        // A fixed wait of exactly the outage length, minus the failed call's latency, is the
        // oracle plus one failed call: 2 calls, success at 20.5 s, ratio 1.
        let p = RetryPolicy::from_config(
            r#"{"preset": "swarm_sdk", "max_retries": 2, "backoff": {"kind": "fixed", "delay": 19.8}}"#,
        )
        .unwrap();
        let c = ClientSpec::custom("exact", "exact", p);
        let s = Scenario::by_id("outage_20s").unwrap();
        let sum = summarize(&c, &s, lat(), 10);
        assert_eq!(sum.runs, 1, "deterministic: one run");
        assert_eq!(sum.calls.mean, 2.0);
        assert!((sum.end.mean - 20.5).abs() < 1e-9);
        assert!((sum.ratio().unwrap().mean - 1.0).abs() < 1e-9);
        for sc in Scenario::all() {
            let o = sc.oracle(lat());
            assert_eq!(o.calls, 1, "{}", sc.id);
            if sc.is_permanent() {
                assert_eq!((o.waited, o.success), (0.0, false));
            }
        }
    }

    #[test]
    fn fixed_delay_by_hand() {
        // swarm_sdk: 3 calls, 15 s apart. 20 s outage: calls at 0, 15.2, 30.4 -> the third
        // succeeds at 30.9 s after 30 s of waiting.
        let c = ClientSpec::preset("swarm_sdk");
        let s = Scenario::by_id("outage_20s").unwrap();
        let o = run_call(&c, 0, &s, lat());
        assert_eq!((o.calls, o.success), (3, true));
        assert!(
            (o.waited - 30.0).abs() < 1e-9 && (o.end - 30.9).abs() < 1e-9,
            "{o:?}"
        );
        // 2 min outage: calls at 0, 15.2, 30.4, gives up when the third fails at 30.6 s.
        let s = Scenario::by_id("outage_2min").unwrap();
        let o = run_call(&c, 0, &s, lat());
        assert_eq!((o.calls, o.success), (3, false));
        assert!((o.end - 30.6).abs() < 1e-9);
        // Legacy on a 401: 10 calls and 9 waits of 10 s, gives up at 10 x 0.2 + 90 = 92 s.
        let legacy = ClientSpec::preset("swarm_sdk_legacy");
        let s = Scenario::by_id("client_error").unwrap();
        let o = run_call(&legacy, 0, &s, lat());
        assert_eq!((o.calls, o.success), (10, false));
        assert!((o.waited - 90.0).abs() < 1e-9 && (o.end - 92.0).abs() < 1e-9);
        // Forgeflare honours retry-after 7: calls at 0 and 7.2, success at 7.7 s.
        let s = Scenario::by_id("rate_limit_7s").unwrap();
        let o = run_call(&ClientSpec::preset("forgeflare"), 0, &s, lat());
        assert_eq!((o.calls, o.waited, o.success), (2, 7.0, true));
        assert!((o.end - 7.7).abs() < 1e-9);
    }

    #[test]
    fn orphans_are_pruned_once_for_free() {
        let s = Scenario::by_id("orphan_tool_call").unwrap();
        let o = run_call(&ClientSpec::preset("default"), 0, &s, lat());
        assert_eq!((o.calls, o.waited, o.success), (2, 0.0, true));
        assert!((o.end - 0.7).abs() < 1e-9);
        // Forgeflare does not prune: a 400 is permanent.
        let o = run_call(&ClientSpec::preset("forgeflare"), 0, &s, lat());
        assert_eq!((o.calls, o.success), (1, false));
    }

    #[test]
    fn permanent_errors_cost_the_default_one_call() {
        for id in ["client_error", "context_overflow"] {
            let s = Scenario::by_id(id).unwrap();
            let sum = summarize(&ClientSpec::preset("default"), &s, lat(), 20);
            assert_eq!((sum.calls.p95, sum.waited.p95), (1.0, 0.0), "{id}");
            assert!((sum.ratio().unwrap().mean - 1.0).abs() < 1e-9);
        }
    }
}
