//! Issue 13's targets for the default `Fleet`, on virtual time with fixed seeds: 20 agents
//! recover from a 2 s outage within 1.2x of the time they take without a fleet, and 1 000 agents
//! through a 60 s outage offer at most 1.1x their healthy load. `make fleet-tuning` prints the
//! whole table.

use retry_sim::candidates::AMPLIFICATION_TARGET;
use retry_sim::fleet::{amplification, FleetParams};
use retry_sim::recovery::{
    default_fleet, no_fleet, recovery, RecoveryParams, Start, RECOVERY_TARGET,
};

#[test]
fn a_two_second_outage_recovers_within_the_target_with_the_default_fleet() {
    for start in [Start::Steady, Start::Together] {
        let p = RecoveryParams::new(2.0, start);
        let none = recovery(&no_fleet(), &p);
        let fleet = recovery(&default_fleet(), &p);
        assert_eq!((none.unrecovered, fleet.unrecovered), (0, 0));
        assert!(none.held >= 5.0, "the outage held agents up: {}", none.held);
        let ratio = fleet.recovery.mean / none.recovery.mean;
        assert!(
            ratio <= RECOVERY_TARGET,
            "{}: default fleet {:.2} s vs no fleet {:.2} s = {ratio:.2}x",
            start.as_str(),
            fleet.recovery.mean,
            none.recovery.mean
        );
    }
}

#[test]
fn a_thousand_agents_stay_within_the_amplification_target_with_the_default_fleet() {
    let a = amplification(&default_fleet(), &FleetParams::new(1000)).amplification();
    assert!(a <= AMPLIFICATION_TARGET, "{a}");
    // The breaker still does its job: far below the uncoordinated policy.
    let alone = amplification(&no_fleet(), &FleetParams::new(1000)).amplification();
    assert!(a < 0.1 * alone, "fleet {a} vs alone {alone}");
}
