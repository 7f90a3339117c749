//! Admission control, measured: 4 OS processes x 50 agents against retry-lab's quotas, sharing
//! one Redis, in five modes side by side (issue 23).
//!
//! - `retry_only`: today's `Fleet` (budget, breaker, a shared pause after a 429), no admission;
//! - `static_true` / `static_wrong`: admission with limits typed in by hand, right or 30 % too
//!   high;
//! - `adaptive`: admission learned from throttles only (the lab in its Gemini shape: no
//!   rate-limit header, the wait in the 429's body);
//! - `headers`: admission learned from the providers' rate-limit headers.
//!
//! [`harness`] is the coordinator (`retry-sim admission`): it starts redis-server and one lab per
//! mode, runs [`agents`] in child processes (`retry-sim admission-agents`), then computes the
//! figures ([`summary`]) and writes the CSV, the SVG chart ([`chart`]) and a Markdown section.

pub mod agents;
pub mod chart;
pub mod harness;
pub mod summary;
pub mod virtual_time;

use serde_json::{json, Value};

/// The five modes, in the order the report shows them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Mode {
    RetryOnly,
    StaticTrue,
    StaticWrong,
    Adaptive,
    Headers,
}

impl Mode {
    pub const ALL: [Mode; 5] = [
        Mode::RetryOnly,
        Mode::StaticTrue,
        Mode::StaticWrong,
        Mode::Adaptive,
        Mode::Headers,
    ];

    /// The name in the CSV and on the command line.
    pub fn name(self) -> &'static str {
        match self {
            Mode::RetryOnly => "retry_only",
            Mode::StaticTrue => "static_true",
            Mode::StaticWrong => "static_wrong",
            Mode::Adaptive => "adaptive",
            Mode::Headers => "headers",
        }
    }

    pub fn parse(s: &str) -> Option<Mode> {
        Mode::ALL.into_iter().find(|m| m.name() == s)
    }

    /// What the lab sends for this mode: no header at all for the throttle-learning one.
    pub fn lab_shape(self) -> retry_lab::LimitShape {
        match self {
            Mode::Adaptive => retry_lab::LimitShape::Gemini,
            _ => retry_lab::LimitShape::Provider,
        }
    }
}

/// The experiment's shape. Every figure of the report is a function of these and of the run.
///
/// # Default
/// 4 processes x 50 agents with no think time (demand always above the quota), a quota of 1 800
/// requests and 360 000 tokens per minute per key enforced over 5 s (the buckets hold 5 s of
/// quota: providers enforce a minute's quota over shorter intervals, and a bucket holding a
/// whole minute would hide a 30 % error for 200 s), prompts of 200 to 600 characters with
/// `max_tokens` 256 of which answers use 128, 60 s of calls of which the first 20 s are left
/// out of goodput and waits (the buckets start full, and the learned modes learn), static
/// limits 30 % too high in `static_wrong`.
#[derive(Clone, Debug, PartialEq)]
pub struct Workload {
    pub processes: usize,
    pub agents_per_process: usize,
    pub rpm: u64,
    pub tpm: u64,
    /// Seconds of quota the lab's buckets hold (the minute's quota enforced over this interval).
    pub burst_s: f64,
    pub seconds: f64,
    pub warmup: f64,
    pub max_tokens: u64,
    pub reply_tokens: u64,
    pub prompt_min: usize,
    pub prompt_max: usize,
    /// `static_wrong`'s limits over the true ones.
    pub wrong_factor: f64,
}

impl Default for Workload {
    fn default() -> Self {
        Workload {
            processes: 4,
            agents_per_process: 50,
            rpm: 1800,
            tpm: 360_000,
            burst_s: 5.0,
            seconds: 60.0,
            warmup: 20.0,
            max_tokens: 256,
            reply_tokens: 128,
            prompt_min: 200,
            prompt_max: 600,
            wrong_factor: 1.3,
        }
    }
}

impl Workload {
    /// The lab's script for `mode`: the quota and how long answers are.
    pub fn lab_script(&self, mode: Mode) -> retry_lab::Script {
        retry_lab::Script {
            rate_limits: Some(retry_lab::RateLimits {
                requests: Some(self.rpm),
                tokens: Some(self.tpm),
                input_tokens: None,
                output_tokens: None,
                period_s: 60.0,
                burst_s: Some(self.burst_s),
                shape: mode.lab_shape(),
            }),
            reply_tokens: Some(self.reply_tokens),
            ..retry_lab::Script::default()
        }
    }

    pub fn agents(&self) -> usize {
        self.processes * self.agents_per_process
    }

    /// As JSON, for the child processes' command line.
    pub fn to_json(&self) -> Value {
        json!({
            "processes": self.processes, "agents_per_process": self.agents_per_process,
            "rpm": self.rpm, "tpm": self.tpm, "burst_s": self.burst_s, "seconds": self.seconds, "warmup": self.warmup,
            "max_tokens": self.max_tokens, "reply_tokens": self.reply_tokens,
            "prompt_min": self.prompt_min, "prompt_max": self.prompt_max,
            "wrong_factor": self.wrong_factor,
        })
    }

    pub fn from_json(v: &Value) -> Option<Workload> {
        let u = |k: &str| v.get(k).and_then(Value::as_u64);
        let f = |k: &str| v.get(k).and_then(Value::as_f64);
        Some(Workload {
            processes: u("processes")? as usize,
            agents_per_process: u("agents_per_process")? as usize,
            rpm: u("rpm")?,
            tpm: u("tpm")?,
            burst_s: f("burst_s")?,
            seconds: f("seconds")?,
            warmup: f("warmup")?,
            max_tokens: u("max_tokens")?,
            reply_tokens: u("reply_tokens")?,
            prompt_min: u("prompt_min")? as usize,
            prompt_max: u("prompt_max")? as usize,
            wrong_factor: f("wrong_factor")?,
        })
    }
}

/// One logical call of one agent, as the agent saw it. Times are seconds from the common start.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct CallRecord {
    /// When the agent wanted to call.
    pub start: f64,
    /// Time before the attempt that succeeded began (admission waits, pauses, backoffs and the
    /// failed attempts); for a call that gave up, until it gave up.
    pub wait: f64,
    /// How long the successful attempt took (0 if none).
    pub attempt: f64,
    pub ok: bool,
    /// Input plus output tokens the successful answer's usage reported.
    pub tokens: u64,
    /// When the call ended.
    pub end: f64,
    /// Attempts sent, and how many of them got a 429.
    pub attempts: u32,
    pub throttled: u32,
}

impl CallRecord {
    pub fn to_json(&self) -> Value {
        json!([
            self.start,
            self.wait,
            self.attempt,
            self.ok,
            self.tokens,
            self.end,
            self.attempts,
            self.throttled
        ])
    }

    pub fn from_json(v: &Value) -> Option<CallRecord> {
        let a = v.as_array()?;
        let f = |i: usize| a.get(i).and_then(Value::as_f64);
        Some(CallRecord {
            start: f(0)?,
            wait: f(1)?,
            attempt: f(2)?,
            ok: a.get(3)?.as_bool()?,
            tokens: a.get(4)?.as_u64()?,
            end: f(5)?,
            attempts: a.get(6)?.as_u64()? as u32,
            throttled: a.get(7)?.as_u64()? as u32,
        })
    }
}
