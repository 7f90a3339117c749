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

use retry_core::driver::tokio::AsyncRetry;
use retry_core::fleet::{Fleet, FleetConfig};
use retry_core::reqwest_support::failure_from_response;
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
    if mode != "retry_only" {
        return Err(format!(
            "--mode {mode}: needs the admission API (not merged yet)"
        ));
    }
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

/// Input plus output tokens of an OpenAI usage object.
fn usage_tokens(body: &[u8]) -> u64 {
    let v: Value = serde_json::from_slice(body).unwrap_or(Value::Null);
    let u = &v["usage"];
    u["prompt_tokens"].as_u64().unwrap_or(0) + u["completion_tokens"].as_u64().unwrap_or(0)
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
    mode: Mode,
    client: reqwest::Client,
    url: String,
    key: String,
    fleet: Arc<Fleet>,
    start_at: f64,
}

impl Agent {
    /// retry_only: today's driver over today's fleet; the fleet pauses every caller after a 429
    /// with `retry-after`, and the policy backs off.
    async fn call_retry_only(&self, body: &str) -> CallRecord {
        let t0 = wall();
        let tally = Mutex::new(Tally {
            last_start: t0,
            ..Tally::default()
        });
        let tally_r = &tally;
        let res = AsyncRetry::new(RetryPolicy::recommended())
            .fleet(Arc::clone(&self.fleet), FLEET_KEY)
            .run(|_| async move {
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
                if resp.status().is_success() {
                    let bytes = resp.bytes().await.map_err(|e| Failure::from(&e))?;
                    tally_r.lock().unwrap().attempt_s = wall() - t;
                    Ok(usage_tokens(&bytes))
                } else {
                    Err(failure_from_response(resp).await)
                }
            })
            .await;
        let tally = tally.into_inner().unwrap();
        tally.record(t0, wall(), self.start_at, res.ok())
    }

    async fn call(&self, body: &str) -> CallRecord {
        match self.mode {
            Mode::RetryOnly => self.call_retry_only(body).await,
            // Refused by `parse` until the admission API is merged.
            other => unreachable!("{} needs the admission API", other.name()),
        }
    }
}

fn fleet_config(mode: Mode, w: &Workload, redis: &str, namespace: &str) -> FleetConfig {
    let _ = w;
    let _ = mode;
    FleetConfig {
        redis_url: Some(redis.to_string()),
        namespace: namespace.to_string(),
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
        mode: args.mode,
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
                match tokio::time::timeout(left, agent.call(&body)).await {
                    Ok(rec) => out.push(rec),
                    Err(_) => {
                        let end = wall() - agent.start_at;
                        out.push(CallRecord {
                            start: t0 - agent.start_at,
                            wait: end - (t0 - agent.start_at),
                            attempt: 0.0,
                            ok: false,
                            tokens: 0,
                            end,
                            attempts: 0,
                            throttled: 0,
                        });
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
