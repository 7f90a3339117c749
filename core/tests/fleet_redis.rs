//! Issue 6's proof on loopback: 4 processes x 50 agents share one Redis fleet against the fault
//! lab during an outage. Offered load stays within 1.1x of base; after the outage every agent
//! succeeds within 2 s; killing Redis mid-run loses no call and raises no unhandled error.
//! Needs `redis-server` (Debian package; `scripts/setup.sh` installs it).
#![cfg(all(feature = "redis", feature = "reqwest"))]

use std::path::PathBuf;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use serde_json::Value;

const OUTAGE_START: f64 = 3.0;
const OUTAGE_S: f64 = 4.0;
const RUN_S: f64 = 11.0;

mod common;
use common::Redis;

fn example_binary() -> PathBuf {
    // target/<profile>/deps/<this test> -> target/<profile>/examples/fleet_agents
    let exe = std::env::current_exe().unwrap();
    exe.parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("examples")
        .join("fleet_agents")
}

fn wall() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

struct Run {
    outputs: Vec<Value>,
    log: Vec<retry_lab::LogEntry>,
    loaded_at: f64,
}

/// The two runs must not overlap: each is 200 agents on 2 cores, and the recovery target is
/// about time.
static ONE_AT_A_TIME: tokio::sync::Mutex<()> = tokio::sync::Mutex::const_new(());

async fn run(kill_redis_at: Option<f64>) -> Run {
    let _turn = ONE_AT_A_TIME.lock().await;
    let bin = example_binary();
    assert!(
        bin.exists(),
        "{} missing: cargo builds examples with `cargo test --all-features`",
        bin.display()
    );
    let mut redis = Redis::start();
    let script =
        format!(r#"{{"outages": [{{"start_s": {OUTAGE_START}, "duration_s": {OUTAGE_S}}}]}}"#);
    let loaded_at = wall();
    let (addr, lab) = retry_lab::spawn(retry_lab::Script::parse(&script).unwrap());
    let procs: Vec<Child> = (0..4)
        .map(|i| {
            Command::new(&bin)
                .args([
                    "--url",
                    &format!("http://{addr}"),
                    "--redis",
                    &redis.url(),
                    "--agents",
                    "50",
                ])
                .args([
                    "--seconds",
                    &RUN_S.to_string(),
                    "--think",
                    "0.5",
                    "--id",
                    &i.to_string(),
                ])
                .stdout(Stdio::piped())
                .spawn()
                .unwrap()
        })
        .collect();
    if let Some(at) = kill_redis_at {
        tokio::time::sleep(Duration::from_secs_f64(at)).await;
        redis.kill();
    }
    let outputs = tokio::task::spawn_blocking(move || {
        procs
            .into_iter()
            .map(|p| {
                let out = p.wait_with_output().unwrap();
                assert!(
                    out.status.success(),
                    "an agent process failed: {:?}",
                    out.status
                );
                serde_json::from_slice::<Value>(&out.stdout).expect("one JSON line")
            })
            .collect::<Vec<_>>()
    })
    .await
    .unwrap();
    Run {
        outputs,
        log: lab.log(),
        loaded_at,
    }
}

fn rate(log: &[retry_lab::LogEntry], from: f64, to: f64) -> f64 {
    let n = log
        .iter()
        .filter(|e| (from * 1000.0..to * 1000.0).contains(&(e.ms as f64)))
        .count();
    n as f64 / (to - from)
}

fn no_call_lost(run: &Run) {
    for out in &run.outputs {
        for a in out["agents"].as_array().unwrap() {
            let (calls, ok, failed) = (
                a["calls"].as_u64().unwrap(),
                a["ok"].as_u64().unwrap(),
                a["failed"].as_u64().unwrap(),
            );
            assert_eq!(
                calls,
                ok + failed,
                "every call ends in a success or a surfaced error"
            );
            assert!(ok > 0);
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn four_processes_share_one_budget_through_an_outage() {
    let run = run(None).await;
    no_call_lost(&run);
    assert!(run.outputs.iter().all(|o| o["backend"] == "redis"));

    let base = rate(&run.log, 1.0, OUTAGE_START);
    let during = rate(&run.log, OUTAGE_START, OUTAGE_START + OUTAGE_S);
    let amplification = during / base;
    eprintln!("base {base:.1} req/s, during the outage {during:.1} req/s: {amplification:.2}x");
    assert!(
        amplification <= 1.1,
        "offered load during the outage is {amplification:.2}x base"
    );

    let end = run.loaded_at + OUTAGE_START + OUTAGE_S;
    let mut worst: f64 = 0.0;
    for out in &run.outputs {
        for a in out["agents"].as_array().unwrap() {
            let first_after = a["successes"]
                .as_array()
                .unwrap()
                .iter()
                .filter_map(Value::as_f64)
                .find(|t| *t >= end);
            let t = first_after.expect("every agent succeeds after the outage") - end;
            worst = worst.max(t);
        }
    }
    eprintln!("slowest agent succeeded {worst:.2} s after the outage ended");
    assert!(
        worst <= 2.0,
        "an agent needed {worst:.2} s after the outage"
    );
    let opened: u64 = run
        .outputs
        .iter()
        .map(|o| o["events"]["circuit_opened"].as_u64().unwrap_or(0))
        .sum();
    assert!(opened >= 1, "the shared circuit opened");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn killing_redis_mid_run_loses_no_call() {
    let run = run(Some(OUTAGE_START + 1.0)).await;
    no_call_lost(&run);
    let degraded: u64 = run
        .outputs
        .iter()
        .map(|o| o["events"]["fleet_backend_degraded"].as_u64().unwrap_or(0))
        .sum();
    assert!(
        degraded >= 4,
        "each process says it fell back to local state ({degraded})"
    );
}
