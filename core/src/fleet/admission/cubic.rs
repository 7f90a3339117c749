//! The request rate learned from throttles alone, as the AWS SDKs' adaptive retry mode learns
//! it: a CUBIC controller over a measured send rate.
//!
//! Source: the AWS SDKs and Tools Reference Guide, "Retry behavior" (adaptive mode), and its
//! reference implementation in botocore, `botocore/retries/adaptive.py` (`ClientRateLimiter`,
//! `RateClocker`) and `botocore/retries/throttling.py` (`CubicCalculator`):
//! - the send rate is measured in half-second buckets, smoothed `0.8 * current + 0.2 * old`;
//! - on a throttle, `w_max` is the measured rate (the lower of it and the current rate once
//!   on), `k = cbrt(w_max * (1 - beta) / C)`, and the new rate is `rate * beta`; the limiter is
//!   switched on by the first throttle (off until then);
//! - on a success, the rate is `C * (t - last_throttle - k)^3 + w_max`;
//! - either way the rate is capped at twice the measured rate; beta 0.7, C 0.4, and the token
//!   bucket never fills slower than 0.5 per second (`botocore/retries/bucket.py`, `MIN_RATE`).
//!
//! Two rules of ours, for a fleet where many callers start at once and answers come in bursts:
//! - the measured rate is never taken as 0 because no half-second bucket has closed yet: until
//!   one has, it is the calls counted so far over the time since the first (at least one
//!   bucket's width), so a throttle in the first half-second cuts from what was really sent;
//! - one cut per congestion event, as TCP cuts once per window: a throttle of a call sent
//!   before the last cut is the echo of the overload that cut already answered, and is only
//!   counted (a burst of 100 throttles would otherwise cut the rate by 0.7^100, to the floor).

use serde::{Deserialize, Serialize};

const BETA: f64 = 0.7;
const SCALE: f64 = 0.4;
const SMOOTHING: f64 = 0.8;
const BUCKET_S: f64 = 0.5;
/// The slowest rate, in requests per second.
pub const MIN_RATE: f64 = 0.5;
/// The fastest rate taken (a rate from garbage times is no instruction).
const MAX_RATE: f64 = 1e6;

/// The controller of one key. Plain data: it is stored in Redis as part of the key's state.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Cubic {
    /// On since the first throttle.
    pub enabled: bool,
    /// The current rate, requests per second (meaningful once enabled).
    pub rate: f64,
    /// The smoothed measured send rate.
    pub measured: f64,
    count: f64,
    last_bucket: f64,
    w_max: f64,
    k: f64,
    last_throttle: f64,
}

fn finite_or(x: f64, d: f64) -> f64 {
    if x.is_finite() {
        x
    } else {
        d
    }
}

impl Cubic {
    /// Counts one response at wall-clock `now` and returns the measured send rate.
    fn record(&mut self, now: f64) -> f64 {
        if self.last_bucket <= 0.0 || self.last_bucket > now {
            // First response (or a clock that went back): the measure starts here.
            self.last_bucket = (now / BUCKET_S).floor() * BUCKET_S;
        }
        let bucket = (now / BUCKET_S).floor() * BUCKET_S;
        self.count += 1.0;
        if bucket > self.last_bucket {
            let current = self.count / (bucket - self.last_bucket);
            self.measured = SMOOTHING * current + (1.0 - SMOOTHING) * self.measured;
            self.count = 0.0;
            self.last_bucket = bucket;
        }
        self.measured = finite_or(self.measured, 0.0).clamp(0.0, MAX_RATE);
        if self.measured > 0.0 {
            return self.measured;
        }
        // No bucket closed yet: what was counted over the time it took.
        let so_far = self.count / (now - self.last_bucket).max(BUCKET_S);
        finite_or(so_far, 0.0).clamp(0.0, MAX_RATE)
    }

    /// A response arrived at `now`; `throttled`: a 429 or 529. Returns the new rate when a
    /// throttle changed it (for `limits_learned`).
    pub fn on_response(&mut self, now: f64, throttled: bool) -> Option<f64> {
        self.on_answer(now, throttled, now)
    }

    /// [`Cubic::on_response`] for a call sent at `sent_at`: a throttle of a call sent before
    /// the last cut is counted but does not cut again (one cut per congestion event).
    pub fn on_answer(&mut self, now: f64, throttled: bool, sent_at: f64) -> Option<f64> {
        if !now.is_finite() {
            return None;
        }
        let measured = self.record(now);
        if throttled && self.enabled && sent_at.is_finite() && sent_at < self.last_throttle {
            return None;
        }
        let new = if throttled {
            let base = if self.enabled {
                measured.min(self.rate)
            } else {
                measured
            };
            self.w_max = base;
            self.k = (base * (1.0 - BETA) / SCALE).cbrt();
            self.last_throttle = now;
            self.enabled = true;
            base * BETA
        } else {
            if !self.enabled {
                return None;
            }
            self.k = (self.w_max * (1.0 - BETA) / SCALE).cbrt();
            SCALE * (now - self.last_throttle - self.k).powi(3) + self.w_max
        };
        let capped = new.min(2.0 * measured);
        self.rate = finite_or(capped, MIN_RATE).clamp(MIN_RATE, MAX_RATE);
        throttled.then_some(self.rate)
    }

    /// Whether any response has been counted.
    pub fn answered(&self) -> bool {
        self.last_bucket > 0.0
    }

    /// The rate of a slow start, requests per second, while no limit is known and the
    /// controller is off: twice the measured rate (the cap the controller itself keeps), the
    /// current half-second counted too, never under the floor. Each answered half-second
    /// can so double the pace, as TCP's slow start doubles its window per round trip.
    pub fn start_rate(&self) -> f64 {
        let so_far = self.measured.max(self.count / BUCKET_S);
        finite_or(2.0 * so_far, MIN_RATE).clamp(MIN_RATE, MAX_RATE)
    }

    /// The rate admission paces requests at, when the controller is on.
    pub fn limit_per_s(&self) -> Option<f64> {
        self.enabled.then_some(self.rate.max(MIN_RATE))
    }

    /// Whether its numbers could have come from this code (a stored state read back).
    pub fn is_sane(&self) -> bool {
        [
            self.rate,
            self.measured,
            self.count,
            self.last_bucket,
            self.w_max,
            self.k,
            self.last_throttle,
        ]
        .iter()
        .all(|x| x.is_finite() && *x >= 0.0)
    }
}
