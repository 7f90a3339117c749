//! Load amplification on virtual time: N agents, each making one call, thinking, and calling
//! again; the provider goes down for a while. Offered load during the outage divided by the
//! load the same agents offer when the provider is healthy.

use crate::agents::{Agents, Start, Step};
use crate::client::ClientSpec;
use crate::scenario::Latency;

/// The fleet experiment.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleetParams {
    pub agents: usize,
    /// Seconds the provider is down (503 on every call), from t = 0.
    pub outage: f64,
    /// Seconds an agent thinks between two logical calls (after a success or a give-up).
    pub think: f64,
    pub latency: Latency,
    /// Independent repetitions (agents' phases and jitter seeds differ).
    pub reps: u64,
    pub seed: u64,
}

impl FleetParams {
    /// 60 s outage, 5 s think time, default latencies, enough repetitions for ~200 agent runs.
    pub fn new(agents: usize) -> Self {
        FleetParams {
            agents,
            outage: 60.0,
            think: 5.0,
            latency: Latency::default(),
            reps: (200 / agents.max(1) as u64).max(1),
            seed: 1,
        }
    }
}

/// What the fleet did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FleetResult {
    /// Calls per second arriving while the provider was down.
    pub offered: f64,
    /// Calls per second the same agents make over the same window when it is healthy.
    pub base: f64,
    /// Gate checks per second that held a call back (wait or stop) while the provider was down:
    /// the fleet's own traffic (a Redis round-trip each for a Redis fleet), never a provider call.
    pub gated: f64,
}

impl FleetResult {
    pub fn amplification(&self) -> f64 {
        self.offered / self.base
    }
}

/// Counts the calls arriving in `[0, p.outage)`, and the gate checks that held one back; the
/// provider is down in `[0, outage)`.
fn simulate(client: &ClientSpec, p: &FleetParams, outage: f64, rep: u64) -> (u64, u64) {
    let agents = Agents {
        count: p.agents,
        think: p.think,
        latency: p.latency,
        start: Start::Steady,
        outage,
        end: p.outage,
        seed: p.seed,
    };
    let (mut counted, mut gated) = (0u64, 0u64);
    agents.drive(client, rep, |step, _, t| {
        if (0.0..p.outage).contains(&t) {
            match step {
                Step::Called => counted += 1,
                Step::Gated => gated += 1,
                Step::HeldUp | Step::Succeeded => {}
            }
        }
    });
    (counted, gated)
}

/// Runs the fleet with and without the outage (same agents, same phases, same seeds).
pub fn amplification(client: &ClientSpec, p: &FleetParams) -> FleetResult {
    let (mut down, mut up, mut gated) = (0u64, 0u64, 0u64);
    for rep in 0..p.reps.max(1) {
        let (calls, gates) = simulate(client, p, p.outage, rep);
        down += calls;
        gated += gates;
        up += simulate(client, p, 0.0, rep).0;
    }
    let secs = p.outage * p.reps.max(1) as f64;
    FleetResult {
        offered: down as f64 / secs,
        base: up as f64 / secs,
        gated: gated as f64 / secs,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn no_retry_is_exactly_one_when_errors_take_as_long_as_answers() {
        let mut p = FleetParams::new(100);
        p.latency = Latency { ok: 0.5, err: 0.5 };
        let r = amplification(&ClientSpec::no_retry(), &p);
        assert_eq!(r.amplification(), 1.0);
        // Base load: 100 agents, one call every 5.5 s.
        assert!((r.base - 100.0 / 5.5).abs() < 0.5, "{}", r.base);
    }

    #[test]
    fn no_retry_with_fast_errors_only_gains_the_latency_difference() {
        let r = amplification(&ClientSpec::no_retry(), &FleetParams::new(1000));
        // One call per 5.2 s when down against one per 5.5 s when healthy.
        assert!(
            (r.amplification() - 5.5 / 5.2).abs() < 0.01,
            "{}",
            r.amplification()
        );
    }

    #[test]
    fn legacy_fixed_delays_by_hand() {
        // 10 calls 10 s apart: within the 60 s outage an agent makes a call every 10.2 s
        // (about 5.9 per 60 s) against 60 / 5.5 = 10.9 when healthy: about 0.54x.
        let r = amplification(
            &ClientSpec::preset("swarm_sdk_legacy"),
            &FleetParams::new(100),
        );
        assert!(
            (r.amplification() - 5.5 / 10.2).abs() < 0.03,
            "{}",
            r.amplification()
        );
    }
}
