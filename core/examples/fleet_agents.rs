//! N agents in one process calling an OpenAI-style endpoint in a loop, sharing one fleet
//! (budget, breaker, pauses) with every other process that names the same Redis. Prints one
//! JSON line of results. Used by `tests/fleet_redis.rs` (4 processes x 50 agents) and by
//! `bench/fleet_processes.py`, which also runs the baselines: `--fleet local` (a fleet per
//! process, nothing shared between processes) and `--fleet none` (every agent on its own).
//!
//!     cargo run -p llm-retry-core --features reqwest,redis --example fleet_agents -- \
//!         --url http://127.0.0.1:PORT --redis redis://127.0.0.1:6379/0 --agents 50 --seconds 10

use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use retry_core::driver::tokio::AsyncRetry;
use retry_core::fleet::{BreakerConfig, Fleet, FleetConfig};
use retry_core::reqwest_support::failure_from_response;
use retry_core::{Event, Failure, RetryPolicy};

fn arg(args: &[String], name: &str, default: &str) -> String {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .cloned()
        .unwrap_or_else(|| default.to_owned())
}

fn wall() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .unwrap()
        .as_secs_f64()
}

async fn call(client: &reqwest::Client, url: &str, key: &str) -> Result<(), Failure> {
    let resp = client
        .post(format!("{url}/v1/chat/completions"))
        .bearer_auth(key)
        .json(&serde_json::json!({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await
        .map_err(|e| Failure::from(&e))?;
    if resp.status().is_success() {
        let _ = resp.bytes().await;
        Ok(())
    } else {
        Err(failure_from_response(resp).await)
    }
}

#[tokio::main]
async fn main() {
    let args: Vec<String> = std::env::args().collect();
    let url = arg(&args, "--url", "http://127.0.0.1:8080");
    let redis = arg(&args, "--redis", "");
    let agents: usize = arg(&args, "--agents", "50").parse().expect("--agents N");
    let seconds: f64 = arg(&args, "--seconds", "10").parse().expect("--seconds S");
    let think: f64 = arg(&args, "--think", "0.5").parse().expect("--think S");
    let proc_id = arg(&args, "--id", "0");
    // `redis` (the default with --redis), `local` (the default without) or `none`.
    let mode = arg(
        &args,
        "--fleet",
        if redis.is_empty() { "local" } else { "redis" },
    );
    assert!(
        matches!(mode.as_str(), "redis" | "local" | "none"),
        "--fleet redis|local|none"
    );
    assert!(
        mode != "redis" || !redis.is_empty(),
        "--fleet redis needs --redis URL"
    );

    let cfg = FleetConfig {
        redis_url: (mode == "redis").then_some(redis),
        breaker: Some(BreakerConfig {
            open_s: 0.5,
            ..BreakerConfig::default()
        }),
        ..FleetConfig::default()
    };
    let fleet = (mode != "none").then(|| Arc::new(Fleet::from_config(cfg).expect("fleet config")));
    // Delays scaled down 10x from `default` (0.1 s base, 1 s cap) so the run fits a test.
    let policy = RetryPolicy::from_config(
        r#"{"backoff": {"kind": "exponential", "base": 0.1, "multiplier": 2, "cap": 1}}"#,
    )
    .unwrap();
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(5))
        .build()
        .unwrap();
    let events = Arc::new(Mutex::new(Vec::<String>::new()));
    let started = Instant::now();

    let mut tasks = Vec::new();
    for a in 0..agents {
        let (fleet, client, url, policy, events) = (
            fleet.clone(),
            client.clone(),
            url.clone(),
            policy.clone(),
            Arc::clone(&events),
        );
        let key = format!("sk-agent-{proc_id}-{a:04}-secret");
        tasks.push(tokio::spawn(async move {
            let (mut calls, mut ok, mut failed) = (0u32, 0u32, 0u32);
            let mut successes = Vec::new();
            while started.elapsed().as_secs_f64() < seconds {
                calls += 1;
                let sink = |e: &Event| events.lock().unwrap().push(e.kind.to_string());
                let mut retry = AsyncRetry::new(policy.clone()).events(&sink);
                if let Some(fleet) = &fleet {
                    retry = retry.fleet(Arc::clone(fleet), "openai:gpt-4o");
                }
                let res = retry.run(|_| call(&client, &url, &key)).await;
                match res {
                    Ok(()) => {
                        ok += 1;
                        successes.push(wall());
                    }
                    Err(_) => failed += 1,
                }
                tokio::time::sleep(Duration::from_secs_f64(think)).await;
            }
            (calls, ok, failed, successes)
        }));
    }
    let mut out = Vec::new();
    for t in tasks {
        let (calls, ok, failed, successes) = t.await.expect("agent task");
        out.push(
            serde_json::json!({"calls": calls, "ok": ok, "failed": failed, "successes": successes}),
        );
    }
    let mut kinds = std::collections::BTreeMap::<String, u32>::new();
    for k in events.lock().unwrap().iter() {
        *kinds.entry(k.clone()).or_default() += 1;
    }
    println!(
        "{}",
        serde_json::json!({"id": proc_id, "backend": fleet.as_ref().map_or("none", |f| f.backend_name()), "agents": out, "events": kinds})
    );
}
