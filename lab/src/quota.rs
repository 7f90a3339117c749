//! Provider quotas per API key: token buckets for requests, tokens, input tokens and output
//! tokens per minute, on a clock given as seconds (the lab passes seconds since the script was
//! loaded; the simulator passes virtual time, so both enforce the very same rule).
//!
//! How providers count, which this copies:
//! - Each limit is a bucket that holds at most one minute's quota and refills continuously:
//!   Anthropic says so ("we use the token bucket algorithm", docs.anthropic.com/en/api/rate-limits),
//!   and OpenAI's `x-ratelimit-reset-*` is "the time until the rate limit resets to its initial
//!   state" (platform.openai.com/docs/guides/rate-limits), i.e. until the bucket is full again.
//! - At admission a request costs 1 request, its input tokens, and `max_tokens` of output
//!   (Anthropic: "OTPM ... estimated based on max_tokens" then corrected; OpenAI and Azure count
//!   prompt plus `max_tokens`; Cerebras documents the same estimate). [`Buckets::settle`] gives
//!   back what the answer did not use.
//! - A request that does not fit is refused whole and costs nothing.

use std::collections::HashMap;

use serde::{Deserialize, Serialize};

/// One limit of a quota: what it counts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Dim {
    /// Requests per minute.
    Requests,
    /// Input plus output tokens per minute (OpenAI's TPM).
    Tokens,
    /// Input tokens per minute (Anthropic's ITPM).
    InputTokens,
    /// Output tokens per minute (Anthropic's OTPM).
    OutputTokens,
}

impl Dim {
    /// Every dimension, in the order a refusal names the first one exceeded.
    pub const ALL: [Dim; 4] = [
        Dim::Requests,
        Dim::Tokens,
        Dim::InputTokens,
        Dim::OutputTokens,
    ];

    /// The word providers use in header names (`requests`, `tokens`, `input-tokens`, ...).
    pub fn header_word(self) -> &'static str {
        match self {
            Dim::Requests => "requests",
            Dim::Tokens => "tokens",
            Dim::InputTokens => "input-tokens",
            Dim::OutputTokens => "output-tokens",
        }
    }

    fn index(self) -> usize {
        self as usize
    }
}

/// The limits of one key, per minute; `None` leaves a dimension unlimited.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Limits {
    pub per_period: [Option<u64>; 4],
    /// The length of the "minute" in seconds (60; tests shrink it).
    pub period_s: f64,
    /// How many seconds of quota a bucket holds: `None` for the whole period. Providers enforce
    /// a minute's quota over shorter intervals (Anthropic: 60 requests a minute "may be enforced
    /// as 1 request per second"; Azure OpenAI: over 1 or 10 s), so a burst cannot spend it all.
    pub burst_s: Option<f64>,
}

impl Limits {
    /// The limit of `dim`, if any.
    pub fn limit(&self, dim: Dim) -> Option<u64> {
        self.per_period[dim.index()]
    }

    fn rate(&self, dim: Dim) -> Option<f64> {
        self.limit(dim).map(|l| l as f64 / self.period_s)
    }

    /// What the bucket of `dim` holds when full: the period's limit, or `burst_s` of it.
    pub fn capacity(&self, dim: Dim) -> Option<f64> {
        let l = self.limit(dim)? as f64;
        Some(match self.burst_s {
            Some(b) if b < self.period_s => (l * b / self.period_s).max(1.0),
            _ => l,
        })
    }
}

/// What one request asks for at admission.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Cost {
    /// Estimated input tokens (the lab: request bytes / 4).
    pub input: u64,
    /// Output tokens reserved: the request's `max_tokens`.
    pub max_output: u64,
}

impl Cost {
    /// What this request costs in `dim`.
    pub fn of(&self, dim: Dim) -> u64 {
        match dim {
            Dim::Requests => 1,
            Dim::Tokens => self.input + self.max_output,
            Dim::InputTokens => self.input,
            Dim::OutputTokens => self.max_output,
        }
    }
}

/// One limit's state as headers report it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Level {
    pub dim: Dim,
    pub limit: u64,
    /// Whole units left (rounded down).
    pub remaining: u64,
    /// Seconds until the bucket is full again.
    pub reset_s: f64,
}

/// The state of every configured limit of a key, after a decision.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Snapshot {
    pub levels: Vec<Level>,
}

impl Snapshot {
    /// The level of `dim`, if it is limited.
    pub fn get(&self, dim: Dim) -> Option<&Level> {
        self.levels.iter().find(|l| l.dim == dim)
    }
}

/// A refusal: which limit, what was asked, and when the request would fit.
#[derive(Clone, Debug, PartialEq)]
pub struct Refusal {
    pub dim: Dim,
    pub limit: u64,
    /// Units of `dim` in use (the limit minus what is left).
    pub used: u64,
    pub requested: u64,
    /// Seconds until every limit has room for this request (a request larger than a limit
    /// waits for a full bucket, and is refused again: providers answer it with a 429 too).
    pub retry_after_s: f64,
    pub snapshot: Snapshot,
}

#[derive(Clone, Copy, Debug)]
struct Bucket {
    level: f64,
    at: f64,
}

/// Every key's buckets under one set of limits.
#[derive(Debug, Default)]
pub struct Buckets {
    limits: Limits,
    keys: HashMap<String, [Option<Bucket>; 4]>,
}

impl Buckets {
    /// Empty buckets state: each key starts with full buckets on first sight.
    pub fn new(limits: Limits) -> Buckets {
        Buckets {
            limits,
            keys: HashMap::new(),
        }
    }

    /// The limits in force.
    pub fn limits(&self) -> &Limits {
        &self.limits
    }

    fn refill(&mut self, key: &str, now: f64) -> &mut [Option<Bucket>; 4] {
        let limits = self.limits;
        let slots = self.keys.entry(key.to_string()).or_insert_with(|| {
            let mut s = [None; 4];
            for d in Dim::ALL {
                if let Some(cap) = limits.capacity(d) {
                    s[d.index()] = Some(Bucket {
                        level: cap,
                        at: now,
                    });
                }
            }
            s
        });
        for d in Dim::ALL {
            if let (Some(b), Some(rate), Some(cap)) =
                (&mut slots[d.index()], limits.rate(d), limits.capacity(d))
            {
                let dt = (now - b.at).max(0.0);
                b.level = (b.level + dt * rate).min(cap);
                b.at = b.at.max(now);
            }
        }
        slots
    }

    fn snapshot(limits: &Limits, slots: &[Option<Bucket>; 4]) -> Snapshot {
        let levels = Dim::ALL
            .iter()
            .filter_map(|&d| {
                let b = slots[d.index()]?;
                let cap = limits.capacity(d)?;
                let rate = limits.rate(d)?;
                let limit = limits.limit(d)?;
                // Headers keep the minute's view even when a shorter interval is enforced:
                // what is left of the limit, and the time until it is whole (so that
                // `reset = (limit - remaining) / rate` holds, as with a full-minute bucket).
                // A burst above the interval's share is refused all the same.
                Some(Level {
                    dim: d,
                    limit,
                    remaining: (b.level + (limit as f64 - cap)).max(0.0).floor() as u64,
                    reset_s: ((cap - b.level).max(0.0) / rate).max(0.0),
                })
            })
            .collect();
        Snapshot { levels }
    }

    /// Admits the request (taking its cost from every bucket) or refuses it (taking nothing).
    pub fn admit(&mut self, key: &str, cost: Cost, now: f64) -> Result<Snapshot, Refusal> {
        let limits = self.limits;
        let slots = self.refill(key, now);
        let mut refusal: Option<Refusal> = None;
        let mut wait = 0f64;
        for d in Dim::ALL {
            let (Some(b), Some(cap), Some(limit), Some(rate)) = (
                slots[d.index()],
                limits.capacity(d),
                limits.limit(d),
                limits.rate(d),
            ) else {
                continue;
            };
            let need = cost.of(d) as f64;
            if b.level + 1e-9 >= need {
                continue;
            }
            // The time until this bucket holds `need` (a full bucket if it never can).
            let w = (need.min(cap) - b.level).max(0.0) / rate;
            wait = wait.max(w);
            if refusal.is_none() {
                refusal = Some(Refusal {
                    dim: d,
                    limit,
                    used: (limit as f64 - b.level).max(0.0).ceil() as u64,
                    requested: cost.of(d),
                    retry_after_s: 0.0,
                    snapshot: Snapshot::default(),
                });
            }
        }
        if let Some(mut r) = refusal {
            r.retry_after_s = wait;
            r.snapshot = Self::snapshot(&limits, slots);
            return Err(r);
        }
        for d in Dim::ALL {
            if let Some(b) = &mut slots[d.index()] {
                b.level -= cost.of(d) as f64;
            }
        }
        Ok(Self::snapshot(&limits, slots))
    }

    /// Settles an admitted request once its answer is known: output tokens it reserved but did
    /// not use go back to the token buckets (never above a full bucket).
    pub fn settle(&mut self, key: &str, cost: Cost, output_used: u64, now: f64) {
        let limits = self.limits;
        let unused = cost.max_output.saturating_sub(output_used) as f64;
        let slots = self.refill(key, now);
        for d in [Dim::Tokens, Dim::OutputTokens] {
            if let (Some(b), Some(cap)) = (&mut slots[d.index()], limits.capacity(d)) {
                b.level = (b.level + unused).min(cap);
            }
        }
    }

    /// The key's levels now, without taking anything.
    pub fn peek(&mut self, key: &str, now: f64) -> Snapshot {
        let limits = self.limits;
        let slots = self.refill(key, now);
        Self::snapshot(&limits, slots)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn limits(rpm: u64, tpm: u64) -> Limits {
        Limits {
            per_period: [Some(rpm), Some(tpm), None, None],
            period_s: 60.0,
            burst_s: None,
        }
    }

    #[test]
    fn the_request_after_the_quota_is_refused_until_the_bucket_refills() {
        let mut b = Buckets::new(limits(3, 1_000_000));
        let c = Cost {
            input: 10,
            max_output: 10,
        };
        for i in 0..3 {
            let s = b.admit("k", c, 0.0).unwrap();
            assert_eq!(s.get(Dim::Requests).unwrap().remaining, 2 - i);
        }
        let r = b.admit("k", c, 0.0).unwrap_err();
        assert_eq!(
            (r.dim, r.limit, r.used, r.requested),
            (Dim::Requests, 3, 3, 1)
        );
        // One request refills in 20 s.
        assert!((r.retry_after_s - 20.0).abs() < 1e-9, "{}", r.retry_after_s);
        assert!(b.admit("k", c, 19.9).is_err());
        assert!(b.admit("k", c, 20.0).is_ok());
        // Another key has its own buckets.
        assert!(b.admit("other", c, 0.0).is_ok());
    }

    #[test]
    fn tokens_reserve_max_tokens_and_settle_refunds_the_unused_part() {
        let mut b = Buckets::new(limits(1000, 600));
        let c = Cost {
            input: 100,
            max_output: 200,
        };
        let s = b.admit("k", c, 0.0).unwrap();
        assert_eq!(s.get(Dim::Tokens).unwrap().remaining, 300);
        // 300 used of 600 at 10 tokens/s: full in 30 s.
        assert!((s.get(Dim::Tokens).unwrap().reset_s - 30.0).abs() < 1e-9);
        let s = b.admit("k", c, 0.0).unwrap();
        assert_eq!(s.get(Dim::Tokens).unwrap().remaining, 0);
        let r = b.admit("k", c, 0.0).unwrap_err();
        assert_eq!((r.dim, r.requested), (Dim::Tokens, 300));
        // Both answers used 50 output tokens: 2 x 150 back.
        b.settle("k", c, 50, 0.0);
        b.settle("k", c, 50, 0.0);
        assert_eq!(b.peek("k", 0.0).get(Dim::Tokens).unwrap().remaining, 300);
        assert!(b.admit("k", c, 0.0).is_ok());
    }

    #[test]
    fn a_burst_window_holds_that_many_seconds_of_the_quota() {
        let mut b = Buckets::new(Limits {
            burst_s: Some(2.0),
            ..limits(600, 1_000_000)
        });
        let c = Cost::default();
        // 600 a minute is 10 a second: the bucket holds 20 (2 s), though the headers' view is
        // the minute's: 600 when whole.
        for _ in 0..20 {
            b.admit("k", c, 0.0).unwrap();
        }
        let r = b.admit("k", c, 0.0).unwrap_err();
        assert_eq!((r.limit, r.used), (600, 600));
        assert!((r.retry_after_s - 0.1).abs() < 1e-9);
        let s = b.peek("k", 1.0);
        let l = s.get(Dim::Requests).unwrap();
        assert_eq!((l.limit, l.remaining), (600, 590));
        assert!((l.reset_s - 1.0).abs() < 1e-9);
    }

    #[test]
    fn a_refusal_takes_nothing_and_waits_for_the_slowest_bucket() {
        let mut b = Buckets::new(Limits {
            per_period: [Some(60), None, Some(100), Some(60)],
            period_s: 60.0,
            burst_s: None,
        });
        let c = Cost {
            input: 100,
            max_output: 30,
        };
        b.admit("k", c, 0.0).unwrap();
        let r = b.admit("k", c, 0.0).unwrap_err();
        // Input is empty (100 s at 1/s... capped: 100 tokens at 100/60 per s = 60 s); output
        // has 30 left, enough.
        assert_eq!(r.dim, Dim::InputTokens);
        assert!((r.retry_after_s - 60.0).abs() < 1e-9, "{}", r.retry_after_s);
        let s = b.peek("k", 0.0);
        assert_eq!(s.get(Dim::Requests).unwrap().remaining, 59);
        assert_eq!(s.get(Dim::OutputTokens).unwrap().remaining, 30);
    }
}
