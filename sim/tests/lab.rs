//! The fleet against the real retry-lab over loopback: 10 agents, every duration divided by 50
//! (a 60 s outage becomes 1.2 s), two policies side by side, about 2.5 s; and the recovery
//! experiment, about 1.5 s. PlanExe's `llm_executor` preset is the retrying one: its delays are
//! fixed by the contract (1 s, 2 s), so the test does not move when `default` is retuned.

use retry_sim::agents::Start;
use retry_sim::client::ClientSpec;
use retry_sim::fleet::amplification;
use retry_sim::live::{run_all, LiveParams, LiveRecovery};
use retry_sim::recovery::{default_fleet, no_fleet, recovery, RecoveryParams};

#[test]
fn ten_agents_against_the_lab_agree_with_virtual_time() {
    let mut p = LiveParams::new(10, 50.0);
    p.healthy = 1.0;
    p.parallel = 2;
    assert!(p.duration() < 3.0, "{}", p.duration());
    let clients = [ClientSpec::no_retry(), ClientSpec::preset("llm_executor")];
    let started = std::time::Instant::now();
    let live = run_all(&clients, p);
    assert!(started.elapsed().as_secs_f64() < 8.0, "bounded in time");

    let cycle = (p.fleet.latency.ok + p.fleet.think) / p.scale;
    for r in &live {
        // Every call the agents made reached the lab, and the lab logged nothing else.
        assert_eq!(r.lab_requests as u64, r.agent_calls, "{}", r.client);
        // Healthy: 10 agents, one call per (latency + think) / 50 seconds.
        let expected = 10.0 / cycle;
        assert!(
            (r.base - expected).abs() / expected < 0.3,
            "{}: base {} vs {expected}",
            r.client,
            r.base
        );
    }
    let none = live[0].amplification();
    let retrying = live[1].amplification();
    assert!((0.8..1.4).contains(&none), "no retry: {none}");
    // The virtual-time figure for the same fleet; the live one must tell the same story.
    let virt = amplification(&clients[1], &p.fleet).amplification();
    assert!(virt > 1.5, "virtual llm_executor amplification {virt}");
    assert!(
        retrying > 1.3 * none,
        "llm_executor {retrying} vs no retry {none}"
    );
    assert!(
        (retrying - virt).abs() / virt < 0.35,
        "live {retrying} vs virtual {virt}"
    );
}

/// The live recovery experiment end to end, kept short: 20 agents at spread phases meet a 2 s
/// outage (0.2 s of real time), 8 runs per client. Without a fleet, recovery is the policy's
/// backoff alone, so the lab and virtual time must agree on it; with the default fleet it stays
/// within the project's 1.2x of no fleet. (With every agent starting together the figure jumped
/// run to run on whether the slowest retry fell just before or after the outage's end: 2 runs
/// strayed 25 % from virtual time in 5 of 8 tries. Steady, 8 runs: within 7 % in 6 of 6.)
#[test]
fn twenty_agents_recover_from_a_short_outage_against_the_lab() {
    let live = LiveRecovery::new(2.0, Start::Steady, 8);
    assert!(live.duration() < 3.0, "{}", live.duration());
    let p = RecoveryParams {
        reps: 200,
        ..live.recovery
    };
    let virt = recovery(&no_fleet(), &p).recovery.mean;
    // The experiment only says something when its 0.2 s outage met agents, and its clock is the
    // machine's: on a loaded shared machine the agents can be late for the outage (3.9 of 20
    // once, under two other builds) or late out of every sleep (live 2.07 s against virtual
    // 1.57 s once, under a benchmark and a CI run). That is the machine, not the fleet: the run
    // is repeated, at most three times, until it met agents and kept time.
    let mut tries = 0;
    let r = loop {
        tries += 1;
        let started = std::time::Instant::now();
        let r = live.run(&[no_fleet(), default_fleet()]);
        assert!(started.elapsed().as_secs_f64() < 30.0, "bounded in time");
        for x in &r {
            assert_eq!(x.unrecovered, 0, "every agent back");
        }
        let kept_time = (r[0].recovery.mean - virt).abs() / virt < 0.25;
        if (r.iter().all(|x| x.held >= 5.0) && kept_time) || tries == 3 {
            break r;
        }
    };
    for x in &r {
        assert!(
            x.held >= 5.0,
            "the outage met agents: {} ({tries} tries)",
            x.held
        );
    }
    let none = r[0].recovery.mean;
    assert!(
        (none - virt).abs() / virt < 0.25,
        "live {none} vs virtual {virt}"
    );
    let fleet = r[1].recovery.mean;
    assert!(fleet <= 1.2 * none, "fleet {fleet} vs no fleet {none}");
}
