//! The same fleet against the real retry-lab over loopback, on real time with every duration
//! divided by `scale`: the check on the virtual-time amplification figures.
//!
//! Each client gets its own lab. Agents call `POST /v1/messages` with reqwest (`.no_proxy()`),
//! build failure records with the core's `failure_from_response`, and ask their stack what to
//! do; the lab's log (arrival times in ms) is what gets counted. The lab answers in about a
//! millisecond, so each agent pads a call to the scaled latency before it looks at the answer.

use std::time::{Duration, Instant};

use retry_core::reqwest_support::failure_from_response;
use retry_core::rng::SplitMix64;
use retry_core::Failure;

use std::sync::Arc;

use retry_core::fleet::Fleet;

use crate::client::{ClientSpec, Gate, Next, VirtualClock};
use crate::fleet::FleetParams;

/// The real-time run.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveParams {
    /// The virtual-time experiment being scaled down.
    pub fleet: FleetParams,
    /// Every duration (latencies, think time, the outage, the policy's delays) is divided by this.
    pub scale: f64,
    /// Real seconds of healthy traffic measured before the outage (after a short warm-up).
    pub healthy: f64,
    /// How many clients run at once (each with its own lab and agents).
    pub parallel: usize,
}

impl LiveParams {
    pub fn new(agents: usize, scale: f64) -> Self {
        LiveParams {
            fleet: FleetParams::new(agents),
            scale,
            healthy: 1.5,
            parallel: 4,
        }
    }

    fn warmup(&self) -> f64 {
        2.0 * (self.fleet.latency.ok + self.fleet.think) / self.scale
    }

    /// Real seconds one client's run lasts.
    pub fn duration(&self) -> f64 {
        self.warmup() + self.healthy + self.fleet.outage / self.scale
    }
}

/// What the lab saw for one client.
#[derive(Debug, Clone, PartialEq)]
pub struct LiveResult {
    pub client: String,
    /// Calls per real second during the outage / during the healthy window.
    pub offered: f64,
    pub base: f64,
    /// Requests the lab logged in all, and the calls the agents counted (they must agree).
    pub lab_requests: usize,
    pub agent_calls: u64,
}

impl LiveResult {
    pub fn amplification(&self) -> f64 {
        self.offered / self.base
    }
}

async fn one_call(client: &reqwest::Client, url: &str) -> Result<(), Failure> {
    let resp = client
        .post(url)
        .header("x-api-key", "sk-ant-sim-00000000")
        .header("anthropic-version", "2023-06-01")
        .json(&serde_json::json!({"model": "claude-sim", "max_tokens": 16, "messages": [{"role": "user", "content": "hi"}]}))
        .send()
        .await;
    match resp {
        Ok(r) if r.status().is_success() => {
            let _ = r.bytes().await;
            Ok(())
        }
        Ok(r) => Err(failure_from_response(r).await),
        Err(e) => Err(Failure::from(&e)),
    }
}

/// The agent loop. Returns the calls it made before `stop`.
#[allow(clippy::too_many_arguments)]
async fn agent(
    spec: ClientSpec,
    fleet: Option<Arc<Fleet>>,
    seed: u64,
    http: reqwest::Client,
    url: String,
    p: LiveParams,
    t0: Instant,
    stop: Instant,
) -> u64 {
    let f = &p.fleet;
    let real = |secs: f64| Duration::from_secs_f64((secs / p.scale).max(0.0));
    let virt = |at: Instant| at.duration_since(t0).as_secs_f64() * p.scale;
    let mut rng = SplitMix64::new(seed);
    let mut stack = spec.build(rng.next_u64(), fleet.as_ref());
    tokio::time::sleep(real(rng.next_f64() * (f.latency.ok + f.think))).await;
    let mut calls = 0;
    'outer: while Instant::now() < stop {
        stack.begin(virt(Instant::now()));
        loop {
            let started = Instant::now();
            if started >= stop {
                break 'outer;
            }
            match stack.gate(virt(started)) {
                Gate::Go => {}
                Gate::Wait(w) => {
                    tokio::time::sleep(real(w)).await;
                    continue;
                }
                Gate::Reject => break,
            }
            stack.calling();
            calls += 1;
            let result = one_call(&http, &url).await;
            let lat = if result.is_ok() {
                f.latency.ok
            } else {
                f.latency.err
            };
            tokio::time::sleep_until((started + real(lat)).into()).await;
            match result {
                Ok(()) => {
                    stack.on_success();
                    break;
                }
                Err(failure) => match stack.on_failure(virt(Instant::now()), &failure, &mut || 0) {
                    Next::Wait(d) => tokio::time::sleep(real(d)).await,
                    Next::GaveUp => break,
                },
            }
        }
        tokio::time::sleep(real(f.think)).await;
    }
    calls
}

/// Runs `spec` with `p.fleet.agents` agents against a lab of its own.
pub async fn run_client(spec: &ClientSpec, p: LiveParams) -> LiveResult {
    let warmup = p.warmup();
    let outage_start = warmup + p.healthy;
    let outage = p.fleet.outage / p.scale;
    let script = retry_lab::Script::from_value(serde_json::json!({
        "outages": [{"start_s": outage_start, "duration_s": outage, "fault": {"fault": "unavailable"}}]
    }))
    .expect("valid lab script");
    let (_, lab) = retry_lab::spawn(script.clone());
    let http = reqwest::Client::builder()
        .no_proxy()
        .pool_max_idle_per_host(p.fleet.agents)
        .timeout(Duration::from_secs(5))
        .build()
        .expect("reqwest client");
    let url = lab.url("/v1/messages");
    lab.set_script(script); // restarts the lab's clock now
    let t0 = Instant::now();
    let stop = t0 + Duration::from_secs_f64(outage_start + outage);
    // The fleet's clock runs `scale` times faster than real time, like every other duration.
    let scale = p.scale;
    let fleet = spec.fleet(Arc::new(move || {
        t0.elapsed().as_secs_f64() * scale + VirtualClock::EPOCH
    }));
    let mut tasks = tokio::task::JoinSet::new();
    let mut seeds = SplitMix64::new(p.fleet.seed);
    for _ in 0..p.fleet.agents {
        tasks.spawn(agent(
            spec.clone(),
            fleet.clone(),
            seeds.next_u64(),
            http.clone(),
            url.clone(),
            p,
            t0,
            stop,
        ));
    }
    let mut agent_calls = 0;
    while let Some(r) = tasks.join_next().await {
        agent_calls += r.expect("agent task");
    }
    let log = lab.log();
    let count = |from: f64, to: f64| {
        log.iter()
            .filter(|e| (from * 1000.0..to * 1000.0).contains(&(e.ms as f64)))
            .count() as f64
    };
    LiveResult {
        client: spec.id.clone(),
        offered: count(outage_start, outage_start + outage) / outage,
        base: count(warmup, outage_start) / p.healthy,
        lab_requests: log.len(),
        agent_calls,
    }
}

/// Runs every client, `p.parallel` at a time, on a runtime of its own.
pub fn run_all(specs: &[ClientSpec], p: LiveParams) -> Vec<LiveResult> {
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async {
        let mut out = Vec::new();
        for chunk in specs.chunks(p.parallel.max(1)) {
            let handles: Vec<_> = chunk
                .iter()
                .cloned()
                .map(|s| tokio::spawn(async move { run_client(&s, p).await }))
                .collect();
            for h in handles {
                out.push(h.await.expect("client run"));
            }
        }
        out
    })
}
