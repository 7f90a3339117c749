//! The lab's mutable state: the loaded script, its clock, counters, per-key windows and the log.

use std::collections::{HashMap, VecDeque};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::quota::{Buckets, Cost, Refusal, Snapshot};
use crate::script::{Fault, FaultKind, Script};

/// Where the fault applied to a request came from.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Source {
    /// The request's `x-lab-fault` header.
    Override,
    /// An outage window.
    Outage,
    /// The per-key rate limit.
    RateLimitPerKey,
    /// The per-key quotas (`rate_limits`).
    RateLimits,
    /// The script's next step.
    Step,
    /// The script's `then` (or the default `ok`).
    Then,
    /// Not a model endpoint, or a request the lab could not take (bad override header).
    Router,
}

/// One handled request, as `GET /_lab/log` shows it.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LogEntry {
    /// 1 for the first request after the script was loaded.
    pub seq: u64,
    /// Milliseconds since the script was loaded.
    pub ms: u64,
    /// HTTP method.
    pub method: String,
    /// Request path (no query).
    pub path: String,
    /// The last 4 characters of the API key (`x-api-key`, `Authorization: Bearer`, `api-key`);
    /// `"****"` for a key shorter than 8 characters; absent without a key. Never the whole key.
    pub key_last4: Option<String>,
    /// Whether the request asked for a stream.
    pub stream: bool,
    /// The fault's kind (`ok`, `rate_limit`, ...) or `not_found` / `bad_override`.
    pub fault: String,
    /// Where the fault came from.
    pub source: Source,
    /// Index of the step consumed, when `source` is `step`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub step: Option<usize>,
    /// The HTTP status sent, if any (`reset` sends none).
    pub status: Option<u16>,
    /// The whole fault object applied.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub detail: Option<Fault>,
}

/// What the lab decided for one model request.
#[derive(Clone, Debug)]
pub(crate) struct Decision {
    pub seq: u64,
    pub ms: u64,
    pub fault: Fault,
    pub source: Source,
    pub step: Option<usize>,
    /// What the quotas (`rate_limits`) decided, when the script has them and the request got
    /// that far.
    pub quota: Option<Result<Snapshot, Refusal>>,
}

pub(crate) struct State {
    pub script: Script,
    loaded: Instant,
    seq: u64,
    next_step: usize,
    log: Vec<LogEntry>,
    windows: HashMap<String, VecDeque<Instant>>,
    buckets: Option<Buckets>,
}

impl State {
    pub fn new(script: Script) -> State {
        let buckets = script
            .rate_limits
            .as_ref()
            .map(|r| Buckets::new(r.limits()));
        State {
            buckets,
            script,
            loaded: Instant::now(),
            seq: 0,
            next_step: 0,
            log: Vec::new(),
            windows: HashMap::new(),
        }
    }

    /// Replaces the script and restarts counters, clock, windows and log.
    pub fn load(&mut self, script: Script) {
        *self = State::new(script);
    }

    /// Restarts counters, clock, windows and log; keeps the script.
    pub fn reset(&mut self) {
        let script = std::mem::take(&mut self.script);
        self.load(script);
    }

    pub fn log(&self) -> Vec<LogEntry> {
        self.log.clone()
    }

    pub fn push_log(&mut self, entry: LogEntry) {
        self.log.push(entry);
    }

    /// Numbers a request that is not a model call (so it appears in the log in order).
    pub fn stamp(&mut self) -> (u64, u64) {
        self.seq += 1;
        (self.seq, self.loaded.elapsed().as_millis() as u64)
    }

    /// Picks the fault for one model request. Precedence: the override header, then an outage
    /// window, then the per-key rate limit, then the quotas, then the next step, then `then`.
    /// Only the last two consume anything, and only a request the rate limit admits counts in
    /// its window (the quotas take `cost` only from a request they admit).
    pub fn decide(
        &mut self,
        key: Option<&str>,
        override_fault: Option<Fault>,
        cost: Cost,
    ) -> Decision {
        let now = Instant::now();
        let elapsed = now.duration_since(self.loaded);
        self.seq += 1;
        let mut d = Decision {
            seq: self.seq,
            ms: elapsed.as_millis() as u64,
            fault: Fault::ok(),
            source: Source::Then,
            step: None,
            quota: None,
        };
        if let Some(f) = override_fault {
            d.fault = f;
            d.source = Source::Override;
            return d;
        }
        if let Some(o) = self.script.outages.iter().find(|o| o.covers(elapsed)) {
            d.fault = o.fault.clone();
            d.source = Source::Outage;
            return d;
        }
        if let Some(rl) = &self.script.rate_limit_per_key {
            let window = Duration::from_secs_f64(rl.window_s);
            let q = self
                .windows
                .entry(key.unwrap_or("").to_string())
                .or_default();
            while q.front().is_some_and(|t| now.duration_since(*t) >= window) {
                q.pop_front();
            }
            if q.len() >= rl.requests as usize {
                let retry_after = rl.retry_after.clone().unwrap_or_else(|| {
                    let oldest = *q.front().expect("window is full, so not empty");
                    let left = window.saturating_sub(now.duration_since(oldest));
                    Value::from(left.as_secs_f64().ceil().max(1.0) as u64)
                });
                d.fault = Fault {
                    retry_after: Some(retry_after),
                    ..Fault::new(FaultKind::RateLimit)
                };
                d.source = Source::RateLimitPerKey;
                return d;
            }
            q.push_back(now);
        }
        if let Some(b) = &mut self.buckets {
            let verdict = b.admit(key.unwrap_or(""), cost, elapsed.as_secs_f64());
            if let Err(r) = &verdict {
                d.fault = Fault {
                    retry_after: Some(Value::from(r.retry_after_s.ceil().max(1.0) as u64)),
                    ..Fault::new(FaultKind::RateLimit)
                };
                d.source = Source::RateLimits;
                d.quota = Some(verdict);
                return d;
            }
            d.quota = Some(verdict);
        }
        if let Some(f) = self.script.steps.get(self.next_step) {
            d.fault = f.clone();
            d.source = Source::Step;
            d.step = Some(self.next_step);
            self.next_step += 1;
            return d;
        }
        if let Some(f) = &self.script.then {
            d.fault = f.clone();
        }
        d
    }
}

impl State {
    /// Gives an admitted request's unused output tokens back to its key's buckets.
    pub fn settle(&mut self, key: Option<&str>, cost: Cost, output_used: u64) {
        let now = self.loaded.elapsed().as_secs_f64();
        if let Some(b) = &mut self.buckets {
            b.settle(key.unwrap_or(""), cost, output_used, now);
        }
    }
}

/// The last 4 characters of a key, or `****` when the key is too short to show any of it.
pub(crate) fn key_last4(key: &str) -> String {
    let chars: Vec<char> = key.chars().collect();
    if chars.len() < 8 {
        "****".into()
    } else {
        chars[chars.len() - 4..].iter().collect()
    }
}
