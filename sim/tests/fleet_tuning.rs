//! Issue 13's targets for the default `Fleet`, on virtual time with fixed seeds: 20 agents
//! recover from a 2 s outage within 1.2x of the time they take without a fleet, and 1 000 agents
//! through a 60 s outage offer at most 1.1x their healthy load. `make fleet-tuning` prints the
//! whole table.
//!
//! The recovery target is checked at the default answer time (0.5 s) and at answer times that
//! are no multiple of how often callers looked again while the breaker's probe was out (0.5 s):
//! 0.51 s and 0.6 s (`retry-sim fleet-tuning --latency-ok 0.51`, `0.6`), and 0.65 s, no multiple
//! of today's 0.1 s either. With 0.5 s answers and a 0.5 s look-again the waiters always found the
//! circuit just closed on virtual time, which the lab does not do: the 2 s steady ratio was 1.11x
//! here at 0.5 s, 1.18x at 0.51 s, 1.21x at 0.6 s (1.23x at 0.65 s) and 1.19x in the lab; with the
//! 0.1 s look-again, 0.95x, 0.95x, 1.01x (1.03x) and 0.99x. This test fails with the old one.

use retry_sim::candidates::AMPLIFICATION_TARGET;
use retry_sim::fleet::{amplification, FleetParams};
use retry_sim::recovery::{
    default_fleet, no_fleet, recovery, RecoveryParams, Start, RECOVERY_TARGET,
};

/// 20 agents through a 2 s outage, both ways of starting, every answer taking `ok` seconds:
/// the default fleet recovers within the target.
fn two_second_outage_within_target(ok: f64) {
    let mut misses = Vec::new();
    for start in [Start::Steady, Start::Together] {
        let mut p = RecoveryParams::new(2.0, start);
        p.latency.ok = ok;
        let none = recovery(&no_fleet(), &p);
        let fleet = recovery(&default_fleet(), &p);
        assert_eq!((none.unrecovered, fleet.unrecovered), (0, 0));
        assert!(none.held >= 5.0, "the outage held agents up: {}", none.held);
        let ratio = fleet.recovery.mean / none.recovery.mean;
        if ratio > RECOVERY_TARGET {
            misses.push(format!(
                "answers {ok} s, {}: default fleet {:.2} s vs no fleet {:.2} s = {ratio:.2}x",
                start.as_str(),
                fleet.recovery.mean,
                none.recovery.mean
            ));
        }
    }
    assert!(misses.is_empty(), "{}", misses.join("\n"));
}

#[test]
fn a_two_second_outage_recovers_within_the_target_with_the_default_fleet() {
    two_second_outage_within_target(0.5);
}

// Answer times that are no multiple of the old 0.5 s look-again (0.65 s no multiple of the new
// 0.1 s either); one test each, so that they run side by side.

#[test]
fn the_target_holds_with_answers_of_0_51_s() {
    two_second_outage_within_target(0.51);
}

#[test]
fn the_target_holds_with_answers_of_0_6_s() {
    two_second_outage_within_target(0.6);
}

#[test]
fn the_target_holds_with_answers_of_0_65_s() {
    two_second_outage_within_target(0.65);
}

#[test]
fn a_thousand_agents_stay_within_the_amplification_target_with_the_default_fleet() {
    let a = amplification(&default_fleet(), &FleetParams::new(1000)).amplification();
    assert!(a <= AMPLIFICATION_TARGET, "{a}");
    // The breaker still does its job: far below the uncoordinated policy.
    let alone = amplification(&no_fleet(), &FleetParams::new(1000)).amplification();
    assert!(a < 0.1 * alone, "fleet {a} vs alone {alone}");
}

/// Gate checks per agent per second that held a call back while 1 000 agents went through the
/// 60 s outage, every failed call taking `err` seconds (answers 0.5 s).
fn gate_checks_per_agent(err: f64) -> f64 {
    let mut p = FleetParams::new(1000);
    p.latency.err = err;
    let r = amplification(&default_fleet(), &p);
    assert!(r.amplification() <= AMPLIFICATION_TARGET, "{err} s: {r:?}");
    r.gated / p.agents as f64
}

/// A provider whose calls hang (every failure takes 10 s or 30 s, so every half-open probe is
/// out that long): the waiters look again less and less often as the probe ages (at most every
/// 0.5 s), not 10 times a second. 1.68 and 0.90 checks per agent per second; 3.57 and 3.68 with
/// the fixed 0.1 s look-again, which fails this test (0.77 either way with 0.2 s errors).
#[test]
fn a_hung_probe_costs_few_gate_checks() {
    let fast = gate_checks_per_agent(0.2);
    let hung = [10.0, 30.0].map(|err| (err, gate_checks_per_agent(err)));
    eprintln!(
        "gate checks per agent per second: errors 0.2 s: {fast:.2}, 10 s and 30 s: {hung:.2?}"
    );
    for (err, checks) in hung {
        assert!(
            checks <= 2.5,
            "errors {err} s: {checks:.2} per agent per second"
        );
    }
}
