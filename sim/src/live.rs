//! The fleet experiments against the real retry-lab over loopback, on real time with every
//! duration divided by `scale`: the check on the virtual-time figures (amplification, and
//! recovery after a short outage).
//!
//! Each run gets its own lab. Agents call `POST /v1/messages` with reqwest (`.no_proxy()`),
//! build failure records with the core's `failure_from_response`, and ask their stack what to
//! do. The lab answers in about a millisecond, so each agent pads a call to the scaled latency
//! before it looks at the answer. Amplification counts the lab's log (arrival times in ms);
//! recovery watches the agents' steps, as on virtual time.

use std::fmt::Write as _;
use std::future::Future;
use std::sync::Arc;
use std::time::{Duration, Instant};

use retry_core::__private::rng::SplitMix64;
use retry_core::reqwest_support::failure_from_response;
use retry_core::Failure;
use retry_lab::LogEntry;

use crate::agents::{Start, Step};
use crate::client::{ClientSpec, Gate, Next, Stack, VirtualClock};
use crate::fleet::FleetParams;
use crate::recovery::{self, RecoveryParams, RecoveryResult, Watch};
use crate::scenario::Latency;

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

/// One live run: a client's agents against a lab of their own. `latency` and `think` are
/// virtual seconds, run `scale` times faster; `down`, `outage` and `stop` are real seconds from
/// the start: the lab answers 503 in `[down, down + outage)`, and the agents stop at `stop`.
#[derive(Debug, Clone, Copy)]
struct Trial {
    agents: usize,
    latency: Latency,
    think: f64,
    scale: f64,
    start: Start,
    seed: u64,
    down: f64,
    outage: f64,
    stop: f64,
}

/// What a trial saw: the lab's log, and each agent's steps on virtual time.
struct Seen {
    log: Vec<LogEntry>,
    steps: Vec<Vec<(Step, f64)>>,
}

/// One HTTP client for every trial of the process (each trial's lab has a port, and so a pool,
/// of its own). Building a client may load the system's certificates (a TLS backend compiled
/// in: a workspace build unifies reqwest's features), CPU work that stalled the agents of a
/// trial running beside it through its 0.2 s outage.
fn http_client() -> reqwest::Client {
    static HTTP: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    HTTP.get_or_init(|| {
        reqwest::Client::builder()
            .no_proxy()
            .pool_max_idle_per_host(64)
            .timeout(Duration::from_secs(5))
            .build()
            .expect("reqwest client")
    })
    .clone()
}

impl Trial {
    async fn run(self, spec: &ClientSpec) -> Seen {
        let script = retry_lab::Script::from_value(serde_json::json!({
            "outages": [{"start_s": self.down, "duration_s": self.outage, "fault": {"fault": "unavailable"}}]
        }))
        .expect("valid lab script");
        let http = http_client();
        let (_, lab) = retry_lab::spawn(script.clone());
        let url = lab.url("/v1/messages");
        lab.set_script(script); // restarts the lab's clock now
        let t0 = Instant::now();
        // The fleet's clock runs `scale` times faster than real time, like every other duration.
        let scale = self.scale;
        let fleet = spec.fleet(Arc::new(move || {
            t0.elapsed().as_secs_f64() * scale + VirtualClock::EPOCH
        }));
        let mut seeds = SplitMix64::new(self.seed);
        let handles: Vec<_> = (0..self.agents)
            .map(|_| {
                let mut rng = SplitMix64::new(seeds.next_u64());
                let agent = Agent {
                    stack: spec.build(rng.next_u64(), fleet.as_ref()),
                    http: http.clone(),
                    url: url.clone(),
                    t0,
                    trial: self,
                };
                tokio::spawn(agent.run(self.first_call(&mut rng)))
            })
            .collect();
        let mut steps = Vec::new();
        for h in handles {
            steps.push(h.await.expect("agent task"));
        }
        Seen {
            log: lab.log(),
            steps,
        }
    }

    /// Real seconds from the start to an agent's first call: at a spread phase, or as the
    /// outage starts.
    fn first_call(&self, rng: &mut SplitMix64) -> f64 {
        match self.start {
            Start::Steady => rng.next_f64() * (self.latency.ok + self.think) / self.scale,
            Start::Together => self.down,
        }
    }
}

/// One agent of a trial.
struct Agent {
    stack: Stack,
    http: reqwest::Client,
    url: String,
    t0: Instant,
    trial: Trial,
}

impl Agent {
    fn real(&self, secs: f64) -> Duration {
        Duration::from_secs_f64((secs / self.trial.scale).max(0.0))
    }

    fn virt(&self, at: Instant) -> f64 {
        at.duration_since(self.t0).as_secs_f64() * self.trial.scale
    }

    /// Call, think, call again from `first` (real seconds from the start) until the trial
    /// stops; returns the steps it took.
    async fn run(mut self, first: f64) -> Vec<(Step, f64)> {
        let stop = self.t0 + Duration::from_secs_f64(self.trial.stop);
        tokio::time::sleep_until((self.t0 + Duration::from_secs_f64(first)).into()).await;
        let mut steps = Vec::new();
        while self.logical_call(stop, &mut steps).await {
            tokio::time::sleep(self.real(self.trial.think)).await;
        }
        steps
    }

    /// One logical call through the stack, pushing its steps; `false` if the trial stopped it.
    async fn logical_call(&mut self, stop: Instant, steps: &mut Vec<(Step, f64)>) -> bool {
        self.stack.begin(self.virt(Instant::now()));
        loop {
            let started = Instant::now();
            if started >= stop {
                return false;
            }
            let t = self.virt(started);
            match self.stack.gate(t) {
                Gate::Go => {}
                Gate::Wait(w) => {
                    steps.push((Step::Gated, t));
                    tokio::time::sleep(self.real(w)).await;
                    continue;
                }
                Gate::Reject => {
                    steps.push((Step::Gated, t));
                    return true;
                }
            }
            self.stack.calling();
            steps.push((Step::Called, t));
            let result = one_call(&self.http, &self.url).await;
            let lat = match result {
                Ok(()) => self.trial.latency.ok,
                Err(_) => self.trial.latency.err,
            };
            tokio::time::sleep_until((started + self.real(lat)).into()).await;
            let t = self.virt(Instant::now());
            let Err(failure) = result else {
                self.stack.on_success();
                steps.push((Step::Succeeded, t));
                return true;
            };
            steps.push((Step::HeldUp, t));
            match self.stack.on_failure(t, &failure, &mut || 0) {
                Next::Wait(d) => tokio::time::sleep(self.real(d)).await,
                Next::GaveUp => return true,
            }
        }
    }
}

/// Runs `spec` with `p.fleet.agents` agents against a lab of its own.
pub async fn run_client(spec: &ClientSpec, p: LiveParams) -> LiveResult {
    let warmup = p.warmup();
    let down = warmup + p.healthy;
    let outage = p.fleet.outage / p.scale;
    let trial = Trial {
        agents: p.fleet.agents,
        latency: p.fleet.latency,
        think: p.fleet.think,
        scale: p.scale,
        start: Start::Steady,
        seed: p.fleet.seed,
        down,
        outage,
        stop: down + outage,
    };
    let seen = trial.run(spec).await;
    let count = |from: f64, to: f64| {
        seen.log
            .iter()
            .filter(|e| (from * 1000.0..to * 1000.0).contains(&(e.ms as f64)))
            .count() as f64
    };
    LiveResult {
        client: spec.id.clone(),
        offered: count(down, down + outage) / outage,
        base: count(warmup, down) / p.healthy,
        lab_requests: seen.log.len(),
        agent_calls: seen
            .steps
            .iter()
            .flatten()
            .filter(|(s, _)| *s == Step::Called)
            .count() as u64,
    }
}

/// Runs `jobs` on a runtime of its own, `parallel` at a time; the outputs in the jobs' order.
fn run_chunked<J, F>(jobs: Vec<J>, parallel: usize, run: impl Fn(J) -> F) -> Vec<F::Output>
where
    F: Future + Send + 'static,
    F::Output: Send + 'static,
{
    // The classifier builds its phrase tables on first use (tens of milliseconds in a release
    // build, a quarter of a second in a debug one): built here, before any lab runs, so that
    // the first failure of an outage does not stall its agents while the outage lasts.
    let _ = retry_core::classify(&Failure::http(503, "warm-up"));
    let _ = http_client();
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(async {
        let mut out = Vec::new();
        let mut jobs = jobs.into_iter().peekable();
        while jobs.peek().is_some() {
            let handles: Vec<_> = jobs
                .by_ref()
                .take(parallel.max(1))
                .map(|j| tokio::spawn(run(j)))
                .collect();
            for h in handles {
                out.push(h.await.expect("live run"));
            }
        }
        out
    })
}

/// Runs every client, `p.parallel` at a time.
pub fn run_all(specs: &[ClientSpec], p: LiveParams) -> Vec<LiveResult> {
    run_chunked(specs.to_vec(), p.parallel, move |s| async move {
        run_client(&s, p).await
    })
}

/// The recovery experiment against the lab: `recovery`'s agents, outage, horizon and
/// repetitions, every duration divided by `scale`, `parallel` runs at a time.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct LiveRecovery {
    pub recovery: RecoveryParams,
    pub scale: f64,
    pub parallel: usize,
}

impl LiveRecovery {
    /// `outage` seconds, 20 agents, a 10 s horizon (the run's end: real time is dear), `reps`
    /// runs, durations divided by 10, 8 runs at a time.
    pub fn new(outage: f64, start: Start, reps: u64) -> Self {
        LiveRecovery {
            recovery: RecoveryParams {
                reps,
                horizon: 10.0,
                ..RecoveryParams::new(outage, start)
            },
            scale: 10.0,
            parallel: 8,
        }
    }

    /// Repetition `rep`: steady agents settle into spread phases for two cycles before the
    /// outage; together, they all call as it starts.
    fn trial(&self, rep: u64) -> Trial {
        let p = &self.recovery;
        let down = match p.start {
            Start::Steady => 2.0 * (p.latency.ok + p.think) / self.scale,
            Start::Together => 0.0,
        };
        Trial {
            agents: p.agents,
            latency: p.latency,
            think: p.think,
            scale: self.scale,
            start: p.start,
            seed: p.seed ^ rep.wrapping_mul(0x9E37_79B9),
            down,
            outage: p.outage / self.scale,
            stop: down + (p.outage + p.horizon) / self.scale,
        }
    }

    /// Real seconds one run lasts.
    pub fn duration(&self) -> f64 {
        self.trial(0).stop
    }

    /// Runs each client `reps` times, the clients' runs side by side (so that they share the
    /// machine's load); one result per client.
    pub fn run(&self, specs: &[ClientSpec]) -> Vec<RecoveryResult> {
        let jobs: Vec<(usize, u64)> = (0..self.recovery.reps.max(1))
            .flat_map(|rep| (0..specs.len()).map(move |i| (i, rep)))
            .collect();
        let outcomes = run_chunked(jobs.clone(), self.parallel, |(i, rep)| {
            let (spec, trial) = (specs[i].clone(), self.trial(rep));
            async move { recovery_of(&spec, trial).await }
        });
        (0..specs.len())
            .map(|i| {
                let runs: Vec<_> = jobs
                    .iter()
                    .zip(&outcomes)
                    .filter(|((j, _), _)| *j == i)
                    .map(|(_, o)| *o)
                    .collect();
                recovery::summarize(&runs, self.recovery.horizon)
            })
            .collect()
    }
}

/// One trial's recovery, as [`Watch::outcome`].
async fn recovery_of(spec: &ClientSpec, trial: Trial) -> (Option<f64>, usize) {
    let seen = trial.run(spec).await;
    let mut watch = Watch::new(trial.agents, (trial.down + trial.outage) * trial.scale);
    for (agent, steps) in seen.steps.iter().enumerate() {
        for &(step, t) in steps {
            watch.see(step, agent, t);
        }
    }
    watch.outcome()
}

/// `retry-sim fleet-tuning --live`: recovery after each of `outages` against the lab, both
/// ways of starting, without a fleet and with the default `Fleet`, beside the same on virtual
/// time (200 seeded runs, the same horizon). Markdown.
pub fn recovery_report(outages: &[f64], reps: u64, scale: f64, parallel: usize) -> String {
    let clients = [recovery::no_fleet(), recovery::default_fleet()];
    let started = Instant::now();
    let at = |outage: f64, start: Start| LiveRecovery {
        scale,
        parallel,
        ..LiveRecovery::new(outage, start, reps)
    };
    let mut rows = String::new();
    for start in [Start::Steady, Start::Together] {
        for &l in outages {
            let live = at(l, start);
            let h = live.recovery.horizon;
            let r = live.run(&clients);
            let virt = RecoveryParams {
                reps: 200,
                ..live.recovery
            };
            let v: Vec<_> = clients
                .iter()
                .map(|c| recovery::recovery(c, &virt))
                .collect();
            let _ = writeln!(
                rows,
                "| {l} s | {} | {} | {} | {:.2}x | {} | {} | {:.2}x | {:.1} / {:.1} |",
                start.as_str(),
                r[0].cell(h),
                r[1].cell(h),
                r[1].recovery.mean / r[0].recovery.mean,
                v[0].cell(h),
                v[1].cell(h),
                v[1].recovery.mean / v[0].recovery.mean,
                r[0].held,
                r[1].held
            );
        }
    }
    let q = at(0.0, Start::Steady).recovery;
    format!(
        "Live recovery against retry-lab over loopback (real time, every duration divided by {scale}: calls {:.0} ms / {:.0} ms padded on the client, think {:.0} ms, the outage the lab's `unavailable` 503 window; the `Fleet` runs on a clock multiplied back). {} agents, `default` policy, {reps} runs per row and client ({parallel} at a time, the two clients side by side), each ending {} s (virtual) after the outage; steady agents call for two cycles before it. Recovery as above, in virtual seconds; mean (p95). Virtual columns: the simulator with the same parameters, 200 seeded runs. {:.0} s in all.\n\n\
        | outage | start | live: no fleet | live: default `Fleet` | live ratio | virtual: no fleet | virtual: default `Fleet` | virtual ratio | agents held up per run, live (no fleet / `Fleet`) |\n\
        |---|---|---|---|---|---|---|---|---|\n{rows}",
        1000.0 * q.latency.ok / scale,
        1000.0 * q.latency.err / scale,
        1000.0 * q.think / scale,
        q.agents,
        q.horizon,
        started.elapsed().as_secs_f64()
    )
}
