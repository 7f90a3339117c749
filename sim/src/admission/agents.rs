//! One OS process of the benchmark: `--agents` agents (tokio tasks) calling the lab's OpenAI
//! endpoint without thinking, through one `Fleet` shared on Redis with the other processes of
//! the same mode. Prints one JSON line: every call's record.
//!
//! ```text
//! retry-sim admission-agents --mode MODE --url URL --redis URL --namespace NS --id N
//!                            --start-at UNIX_SECONDS --workload JSON
//! ```

use std::sync::{Arc, Mutex};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use retry_core::driver::blocking::NoRecovery;
use retry_core::driver::tokio::AsyncRetry;
use retry_core::driver::Reported;
use retry_core::fleet::{
    AdmissionConfig, AdmissionMode, Dimension, Fleet, FleetConfig, Limits, Usage,
};
use retry_core::reqwest_support::{failure_from_response, headers_of};
use retry_core::{Failure, RetryPolicy};
use serde_json::{json, Value};

use super::{CallRecord, Mode, Workload};

/// The fleet key every agent of a mode shares (one provider, one model).
pub const FLEET_KEY: &str = "openai:gpt-4o";
/// How long calls still in flight when the run ends may take to finish.
pub const DRAIN_S: f64 = 30.0;

pub fn wall() -> f64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// The API key of a mode: its 200 agents share one quota, as one organisation's agents do.
pub fn api_key(mode: Mode) -> String {
    format!("sk-bench-{}-shared-quota", mode.name())
}

struct Args {
    mode: Mode,
    url: String,
    redis: String,
    namespace: String,
    id: u64,
    start_at: f64,
    workload: Workload,
}

fn parse(argv: &[String]) -> Result<Args, String> {
    let get = |name: &str| {
        argv.iter()
            .position(|a| a == name)
            .and_then(|i| argv.get(i + 1))
            .cloned()
            .ok_or_else(|| format!("{name} is required"))
    };
    let mode = get("--mode")?;
    let workload: Value =
        serde_json::from_str(&get("--workload")?).map_err(|e| format!("--workload: {e}"))?;
    Ok(Args {
        mode: Mode::parse(&mode).ok_or_else(|| format!("--mode: unknown mode {mode:?}"))?,
        url: get("--url")?,
        redis: get("--redis")?,
        namespace: get("--namespace")?,
        id: get("--id")?.parse().map_err(|_| "--id: not a number")?,
        start_at: get("--start-at")?
            .parse()
            .map_err(|_| "--start-at: not a number")?,
        workload: Workload::from_json(&workload).ok_or("--workload: missing fields")?,
    })
}

/// A small deterministic generator (SplitMix64) for prompt lengths.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    fn between(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi.saturating_sub(lo) as u64 + 1)) as usize
    }
}

/// A chat request of `prompt_len` characters asking for at most `max_tokens`.
pub fn request_body(prompt_len: usize, max_tokens: u64) -> String {
    json!({"model": "gpt-4o", "max_tokens": max_tokens,
           "messages": [{"role": "user", "content": "x".repeat(prompt_len)}]})
    .to_string()
}

/// What the attempts of one logical call did.
#[derive(Default)]
struct Tally {
    last_start: f64,
    attempt_s: f64,
    attempts: u32,
    throttled: u32,
}

impl Tally {
    fn begin(&mut self, t: f64) {
        self.last_start = t;
        self.attempts += 1;
    }

    /// The call's record: `tokens` is `Some` when it succeeded.
    fn record(&self, t0: f64, end: f64, start_at: f64, tokens: Option<u64>) -> CallRecord {
        let ok = tokens.is_some();
        CallRecord {
            start: t0 - start_at,
            wait: if ok { self.last_start - t0 } else { end - t0 },
            attempt: if ok { self.attempt_s } else { 0.0 },
            ok,
            tokens: tokens.unwrap_or(0),
            end: end - start_at,
            attempts: self.attempts,
            throttled: self.throttled,
        }
    }
}

struct Agent {
    client: reqwest::Client,
    url: String,
    key: String,
    fleet: Arc<Fleet>,
    start_at: f64,
}

impl Agent {
    /// One logical call through the core's driver and the mode's fleet: every mode runs this
    /// same code, only the fleet's admission setting differs. The driver asks the fleet for
    /// admission before each attempt (with the estimate: request bytes / 4 plus `max_tokens`)
    /// and settles after it with the usage and headers the answer reports; with admission off
    /// (`retry_only`) it is today's fleet, which pauses every caller after a 429.
    /// `tally` is the caller's, so that a call cut off at the end of the run still counts its
    /// attempts and 429s.
    async fn call(&self, body: &str, max_tokens: u64, tally: &Mutex<Tally>) -> CallRecord {
        let t0 = wall();
        *tally.lock().unwrap() = Tally {
            last_start: t0,
            ..Tally::default()
        };
        let tally_r = tally;
        let res = AsyncRetry::new(RetryPolicy::recommended())
            .fleet(Arc::clone(&self.fleet), FLEET_KEY)
            .estimate(self.fleet.estimate(body.len(), max_tokens))
            .run_reported(&mut NoRecovery, |_| async move {
                let t = wall();
                tally_r.lock().unwrap().begin(t);
                let resp = self
                    .client
                    .post(&self.url)
                    .bearer_auth(&self.key)
                    .header("content-type", "application/json")
                    .body(body.to_owned())
                    .send()
                    .await
                    .map_err(|e| Failure::from(&e))?;
                let status = resp.status().as_u16();
                tally_r.lock().unwrap().throttled += u32::from(status == 429);
                if !resp.status().is_success() {
                    return Err(failure_from_response(resp).await);
                }
                let headers = headers_of(resp.headers());
                let text = resp.text().await.map_err(|e| Failure::from(&e))?;
                tally_r.lock().unwrap().attempt_s = wall() - t;
                let usage = Usage::from_body(&text);
                let tokens = usage
                    .and_then(|u| u.amount(Dimension::Tokens))
                    .unwrap_or(0.0) as u64;
                let mut reported = Reported::new(tokens).headers(headers);
                if let Some(u) = usage {
                    reported = reported.usage(u);
                }
                Ok::<_, Failure>(reported)
            })
            .await;
        let tally = tally.lock().unwrap();
        tally.record(t0, wall(), self.start_at, res.ok())
    }
}

/// The fleet of a mode: today's defaults (budget, breaker, shared pauses) plus its admission.
pub fn fleet_config(mode: Mode, w: &Workload, redis: &str, namespace: &str) -> FleetConfig {
    let by_hand = |factor: f64| {
        AdmissionConfig::fixed(Limits {
            requests: Some(w.rpm as f64 * factor),
            tokens: Some(w.tpm as f64 * factor),
            ..Limits::default()
        })
    };
    let admission = match mode {
        Mode::RetryOnly => AdmissionConfig::default(),
        Mode::StaticTrue => by_hand(1.0),
        Mode::StaticWrong => by_hand(w.wrong_factor),
        Mode::Adaptive => AdmissionConfig::mode(AdmissionMode::Adaptive),
        Mode::Headers => AdmissionConfig::mode(AdmissionMode::Headers),
    };
    FleetConfig {
        redis_url: Some(redis.to_string()),
        namespace: namespace.to_string(),
        admission,
        ..FleetConfig::default()
    }
}

async fn run(args: Args) -> Value {
    let w = args.workload.clone();
    let fleet = Arc::new(
        Fleet::from_config(fleet_config(args.mode, &w, &args.redis, &args.namespace))
            .expect("fleet configuration"),
    );
    let client = reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .expect("HTTP client");
    let agent = Arc::new(Agent {
        client,
        url: format!("{}/v1/chat/completions", args.url),
        key: api_key(args.mode),
        fleet: Arc::clone(&fleet),
        start_at: args.start_at,
    });
    // Everyone starts together.
    let lead = args.start_at - wall();
    if lead > 0.0 {
        tokio::time::sleep(Duration::from_secs_f64(lead)).await;
    }
    let hard_stop = args.start_at + w.seconds + DRAIN_S;
    let mut tasks = Vec::new();
    for a in 0..w.agents_per_process {
        let agent = Arc::clone(&agent);
        let w = w.clone();
        let mut rng = Rng(args.id << 32 | a as u64);
        tasks.push(tokio::spawn(async move {
            let mut out = Vec::new();
            while wall() - agent.start_at < w.seconds {
                let body = request_body(rng.between(w.prompt_min, w.prompt_max), w.max_tokens);
                let t0 = wall();
                let left = Duration::from_secs_f64((hard_stop - t0).max(0.0));
                let tally = Mutex::new(Tally::default());
                match tokio::time::timeout(left, agent.call(&body, w.max_tokens, &tally)).await {
                    Ok(rec) => out.push(rec),
                    Err(_) => {
                        // Cut off at the end of the run: a failed call, with what it sent.
                        let t = tally.lock().unwrap();
                        out.push(t.record(t0, wall(), agent.start_at, None));
                        break;
                    }
                }
            }
            out
        }));
    }
    let mut calls = Vec::new();
    for t in tasks {
        calls.extend(t.await.expect("agent task"));
    }
    json!({
        "id": args.id,
        "mode": args.mode.name(),
        "backend": fleet.backend_name(),
        "calls": calls.iter().map(CallRecord::to_json).collect::<Vec<_>>(),
    })
}

/// `retry-sim admission-agents ...`: runs one process's agents and prints their records.
pub fn main(argv: &[String]) -> std::process::ExitCode {
    let args = match parse(argv) {
        Ok(a) => a,
        Err(e) => {
            eprintln!("retry-sim admission-agents: {e}");
            return std::process::ExitCode::from(2);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .expect("tokio runtime");
    let out = rt.block_on(run(args));
    println!("{out}");
    std::process::ExitCode::SUCCESS
}
