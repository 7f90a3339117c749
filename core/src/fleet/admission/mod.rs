//! Admission: never hit the rate limit. Before each call, a fleet with admission on reserves
//! the call's estimated cost (one request, its input tokens, `max_tokens` output tokens) per
//! key and says when it may go; after the call, the reservation is settled against the usage
//! the response reports, and the response's rate-limit headers (or its throttle) teach the
//! limits.
//!
//! - [`AdmissionMode`]: off (the default: the success path pays nothing), static limits,
//!   adaptive (CUBIC from throttles, [`cubic`]), or learned from headers ([`headers`]).
//! - Admissions are paced evenly through the window, each waiting caller given its own slot
//!   ([`state`]), so waiters are released spread, never all at once; a shared pause after a
//!   429 is spread the same way when admission is on.
//! - A slot follows the key's rate as it is learned: a waiter on a learned rate sleeps at most
//!   [`RECHECK_S`] and asks again ([`Fleet::replan`]); a cold key lets one call go first and
//!   holds the others until its answer (a few seconds at most), then slow-starts.
//! - The estimate is injectable ([`TokenEstimator`]); the default is request bytes / 4 plus
//!   `max_tokens`, its input part corrected by the ratio of reported to estimated usage.
//!
//! ```
//! use std::sync::Arc;
//! use retry_core::fleet::{AdmissionConfig, Cost, Fleet, FleetConfig, Limits, Usage};
//! use retry_core::Headers;
//!
//! // 60 requests a minute, by hand: one a second, never two at once.
//! let cfg = FleetConfig {
//!     admission: AdmissionConfig::fixed(Limits { requests: Some(60.0), ..Limits::default() }),
//!     ..FleetConfig::default()
//! };
//! let fleet = Fleet::in_process(cfg).with_clock(Arc::new(|| 1000.0));
//! let (first, _) = fleet.reserve("openai:gpt-4o", &Cost::REQUEST);
//! assert_eq!(first.wait_s, 0.0);
//! let (second, _) = fleet.reserve("openai:gpt-4o", &Cost::REQUEST);
//! assert_eq!(second.wait_s, 1.0);
//! fleet.settle("openai:gpt-4o", &first, Some(&Usage::new(10.0, 5.0)), &Headers::new(), false);
//! ```

pub mod config;
pub mod cost;
pub mod cubic;
pub mod headers;
pub mod state;

use serde_json::Value;

pub use config::{AdmissionConfig, AdmissionMode, Limits};
pub use cost::{BytesOverFour, Cost, Dimension, TokenEstimator, Usage};
pub use state::AdmissionState;

use std::sync::Arc;

use super::backend::{FleetBackend, KeyState};
use super::Fleet;
use crate::events::{Event, EventKind};
use crate::failure::Headers;

/// A call's place in its key's schedule: when it may go, and what it holds.
#[derive(Clone)]
pub struct Reservation {
    /// Wall-clock time (the fleet's clock) from which the call may go.
    pub at: f64,
    /// Seconds to wait from when it was made (0: go now).
    pub wait_s: f64,
    /// What was reserved: the estimate, its input tokens corrected.
    pub charged: Cost,
    /// The caller's estimate.
    pub estimated: Cost,
    /// The dimension that made it wait, if one did.
    pub limited_by: Option<Dimension>,
    /// When to ask again ([`Fleet::replan`]) if the call has not gone by then: `at` for a
    /// schedule that cannot change (static limits), else at most [`RECHECK_S`] after it was
    /// made, so that a waiter's slot follows the rate as it is learned.
    pub recheck_at: f64,
    /// Its place: the rate per dimension it was placed at (0: not paced), and whether it is
    /// held behind a cold key's probe.
    grant: state::Grant,
    /// The key's in-process state, when that is where admission lives: settling skips the
    /// second lookup of the key.
    state: Option<Arc<KeyState>>,
}

impl PartialEq for Reservation {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at
            && self.wait_s == o.wait_s
            && self.charged == o.charged
            && self.estimated == o.estimated
            && self.limited_by == o.limited_by
            && self.recheck_at == o.recheck_at
    }
}

impl std::fmt::Debug for Reservation {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Reservation")
            .field("at", &self.at)
            .field("wait_s", &self.wait_s)
            .field("charged", &self.charged)
            .field("estimated", &self.estimated)
            .field("limited_by", &self.limited_by)
            .field("recheck_at", &self.recheck_at)
            .finish()
    }
}

impl Reservation {
    /// A reservation of nothing that goes now (admission off).
    fn free(now: f64, cost: Cost) -> Self {
        Reservation {
            at: now,
            wait_s: 0.0,
            charged: Cost {
                requests: 0.0,
                input_tokens: 0.0,
                output_tokens: 0.0,
            },
            estimated: cost,
            limited_by: None,
            recheck_at: now,
            grant: state::Grant {
                at: now,
                limited_by: None,
                rates: [0.0; 4],
                held: false,
                pos: [0.0; 4],
                floor: now,
            },
            state: None,
        }
    }

    /// Seconds to sleep from `now` before looking again: to the slot, or to when it is to be
    /// re-planned if that comes first.
    pub fn sleep_s(&self, now: f64) -> f64 {
        (self.at.min(self.recheck_at) - now).max(0.0)
    }

    /// Its place in the key's schedule, as [`AdmissionState::replan`] takes it.
    pub fn grant(&self) -> &state::Grant {
        &self.grant
    }

    /// Whether it holds anything to settle or cancel.
    pub fn holds(&self) -> bool {
        self.charged.requests > 0.0
            || self.charged.input_tokens > 0.0
            || self.charged.output_tokens > 0.0
    }
}

/// A slot this close ahead goes at once, seconds (a millisecond: less than any host's sleep).
pub const GO_NOW_S: f64 = 0.001;

/// The longest a waiter of a learned schedule (adaptive or headers) sleeps before asking
/// again whether its slot moved, seconds.
pub const RECHECK_S: f64 = 1.0;
/// How soon a caller held behind a cold key's probe asks again, seconds: the probe's answer
/// usually comes in a round trip.
pub const PROBE_RECHECK_S: f64 = 0.05;

/// When a reservation placed by `g` at `now` is to be asked about again.
fn recheck_at(cfg: &AdmissionConfig, g: &state::Grant, now: f64) -> f64 {
    match cfg.mode {
        _ if g.held => (now + PROBE_RECHECK_S).min(g.at),
        AdmissionMode::Adaptive | AdmissionMode::Headers => (now + RECHECK_S).min(g.at),
        _ => g.at,
    }
}

/// The events of limits learned.
fn learned_events(key: &str, learned: &[state::Learned], out: &mut Vec<Event>) {
    for l in learned {
        out.push(
            Event::new(EventKind::LimitsLearned)
                .with("key", key)
                .with("dimension", l.dimension.as_str())
                .with("limit", l.limit)
                .with("window_s", l.window_s)
                .with("source", l.source),
        );
    }
}

impl Fleet {
    /// Whether admission is on ([`super::FleetConfig::admission`]).
    pub fn admission_on(&self) -> bool {
        self.cfg.admission.is_on()
    }

    /// Replaces the token estimate ([`BytesOverFour`] by default) that [`Fleet::estimate`]
    /// uses.
    pub fn with_estimator(mut self, estimator: std::sync::Arc<dyn TokenEstimator>) -> Self {
        self.estimator = estimator;
        self
    }

    /// The estimated cost of a call whose request body is `request_bytes` long and whose
    /// `max_tokens` is `max_tokens`, by the fleet's estimator (the per-key correction is
    /// applied when the call is reserved).
    pub fn estimate(&self, request_bytes: usize, max_tokens: u64) -> Cost {
        self.estimator
            .estimate(request_bytes, max_tokens)
            .sanitized()
    }

    /// Whether the fleet's backend is its in-process state itself ([`Fleet::in_process`]).
    fn state_is_local(&self) -> bool {
        self.backend_is_local()
    }

    /// Runs `f` on `key`'s admission state: on the backend when it shares admission state,
    /// else in process.
    fn with_admission(
        &self,
        key: &str,
        events: &mut Vec<Event>,
        f: &mut dyn FnMut(&mut AdmissionState),
    ) {
        self.with_admission_on(None, key, events, f);
    }

    /// [`Fleet::with_admission`] on `state` when given (the key's in-process state, already
    /// looked up).
    fn with_admission_on(
        &self,
        state: Option<&KeyState>,
        key: &str,
        events: &mut Vec<Event>,
        f: &mut dyn FnMut(&mut AdmissionState),
    ) {
        if let Some(s) = state {
            s.with_admission(key, f)
                .expect("the in-process backend cannot fail");
        } else if self.backend.shares_admission() {
            self.run(key, events, |b: &dyn FleetBackend| b.with_admission(key, f));
        } else {
            self.local
                .with_admission(key, f)
                .expect("the in-process backend cannot fail");
        }
    }

    /// The success path of the one protocol: whether a call of `key` costing `cost` may go at
    /// once with nothing to report, and if so what it holds. `None`: it may not (a pause, a
    /// circuit not closed, a remote or degraded backend, an admission slot later than now):
    /// the call takes the whole run, which asks again. `Some`: with admission off, a
    /// reservation of nothing (as [`Fleet::admits_freely`]); with it on, a slot now in the
    /// key's schedule, to settle by [`Fleet::succeeded_with`] or hand to the run of a failed
    /// call ([`crate::Run::holding`]). A slot that would make the call wait reserves nothing.
    pub fn admits_freely_with(&self, key: &str, cost: &Cost) -> Option<Reservation> {
        let cfg = &self.cfg.admission;
        if !cfg.is_on() {
            return self
                .admits_freely(key)
                .then(|| Reservation::free(0.0, *cost));
        }
        if self.backend.is_remote() || self.degraded.load(std::sync::atomic::Ordering::Relaxed) {
            return None;
        }
        // In process, the key is looked up once: its pause, breaker, slot and, at the
        // success, its budget and breaker again (`succeeded_with`) all work on this state.
        let local = self.state_is_local().then(|| self.local.key(key));
        if !self.free_on(self.gate(local.as_deref()), key) {
            return None;
        }
        let now = self.now();
        let estimated = cost.sanitized();
        let state = local.unwrap_or_else(|| self.local.key(key));
        let mut out = None;
        state
            .with_admission(key, &mut |s| {
                let charged = s.corrected(cfg, estimated);
                out = s
                    .reserve_by(cfg, &charged, now, now + GO_NOW_S)
                    .map(|g| (charged, g));
            })
            .ok()?;
        let (charged, g) = out?;
        Some(Reservation {
            at: g.at,
            wait_s: 0.0,
            charged,
            estimated,
            limited_by: None,
            recheck_at: g.at,
            grant: g,
            state: Some(state),
        })
    }

    /// A call admitted by [`Fleet::admits_freely_with`] succeeded at once: its reservation
    /// settled against `usage` and the limits learned from `headers`
    /// ([`Fleet::settle`]), then the metrics, budget and breaker told ([`Fleet::succeeded`]).
    pub fn succeeded_with(
        &self,
        key: &str,
        r: &Reservation,
        usage: Option<&Usage>,
        headers: &Headers,
    ) -> Vec<Event> {
        let mut events = self.settle(key, r, usage, headers, false);
        events.extend(self.succeeded_on(r.state.as_deref(), key, false));
        events
    }

    /// Reserves `cost` for a call of `key` now: when it may go, and what it holds (to
    /// [`Fleet::settle`] after the call, or [`Fleet::cancel`] if it is never made). With
    /// admission off, a reservation of nothing that goes now. A wait comes with an
    /// `admission_wait` event.
    pub fn reserve(&self, key: &str, cost: &Cost) -> (Reservation, Vec<Event>) {
        self.reserve_after(key, cost, 0.0)
    }

    /// [`Fleet::reserve`] for a call that may not go before `not_before` (wall clock; a shared
    /// pause's end): the paused callers get slots spread after it.
    pub fn reserve_after(
        &self,
        key: &str,
        cost: &Cost,
        not_before: f64,
    ) -> (Reservation, Vec<Event>) {
        let now = self.now();
        let mut events = Vec::new();
        let cfg = &self.cfg.admission;
        let estimated = cost.sanitized();
        if !cfg.is_on() {
            return (Reservation::free(now, estimated), events);
        }
        let mut out = None;
        // In process, the key's state is looked up once for the reservation and its settling.
        let state = self.state_is_local().then(|| self.local.key(key));
        self.with_admission_on(state.as_deref(), key, &mut events, &mut |s| {
            let charged = s.corrected(cfg, estimated);
            let g = s.reserve(cfg, &charged, now, not_before);
            out = Some((charged, g));
        });
        let (charged, g) = out.expect("with_admission runs its closure");
        let r = Reservation {
            at: g.at,
            wait_s: (g.at - now).max(0.0),
            charged,
            estimated,
            limited_by: g.limited_by,
            recheck_at: recheck_at(cfg, &g, now),
            grant: g,
            state,
        };
        self.count_wait(key, &r, &mut events);
        (r, events)
    }

    /// A waiter asks again about reservation `r` (not gone yet, see
    /// [`Reservation::recheck_at`]): its slot, moved as the key's rate moved since it was
    /// placed, or given a place once the limits its hold waited for are known. `not_before`:
    /// a shared pause's end, as for [`Fleet::reserve_after`].
    pub fn replan(&self, key: &str, r: Reservation, not_before: f64) -> (Reservation, Vec<Event>) {
        let mut events = Vec::new();
        let cfg = &self.cfg.admission;
        if !cfg.is_on() || !r.holds() {
            return (r, events);
        }
        let now = self.now();
        let mut out = None;
        let before = r.grant;
        self.with_admission_on(r.state.as_deref(), key, &mut events, &mut |s| {
            out = Some(s.replan(cfg, &before, &r.charged, now, not_before));
        });
        let g = out.expect("with_admission runs its closure");
        let mut r = r;
        r.at = g.at;
        r.wait_s = (g.at - now).max(0.0);
        r.limited_by = g.limited_by;
        r.recheck_at = recheck_at(cfg, &g, now);
        r.grant = g;
        if before.held && !g.held {
            // Its first real place: counted as a wait of its own.
            self.count_wait(key, &r, &mut events);
        }
        (r, events)
    }

    /// Counts reservation `r`'s wait, if it has one, with its `admission_wait` event.
    fn count_wait(&self, key: &str, r: &Reservation, events: &mut Vec<Event>) {
        let cfg = &self.cfg.admission;
        let wait_s = r.wait_s;
        if wait_s > 0.0 {
            // Only waits are counted: the success path without contention touches no metrics.
            self.metrics.update_admission(key, |c| {
                c.waits += 1;
                c.waited_s += wait_s;
                c.max_wait_s = c.max_wait_s.max(wait_s);
            });
        }
        if wait_s > 0.0 {
            events.push(
                Event::new(EventKind::AdmissionWait)
                    .with("key", key)
                    .with("seconds", wait_s)
                    .with(
                        "limited_by",
                        r.limited_by.map_or(Value::Null, |d| d.as_str().into()),
                    )
                    .with("mode", cfg.mode.as_str()),
            );
        }
    }

    /// The call of reservation `r` ended: settles it against `usage` (`None`: an error without
    /// usage, counted as spent), and learns from the response's `headers` and whether it was a
    /// throttle (429 or 529). New limits come with `limits_learned` events.
    pub fn settle(
        &self,
        key: &str,
        r: &Reservation,
        usage: Option<&Usage>,
        headers: &Headers,
        throttled: bool,
    ) -> Vec<Event> {
        let mut events = Vec::new();
        let cfg = &self.cfg.admission;
        if !cfg.is_on() {
            return events;
        }
        // The clock is read only when something needs it: a static key's success path with no
        // headers does without (a clock read costs a system call on some virtual machines).
        let learns = !headers.is_empty() || throttled || cfg.mode != AdmissionMode::Static;
        if usage.is_none() && !learns {
            // Spent as reserved, nothing to learn: the state stays as it is (no round trip).
            return events;
        }
        let now = if learns { self.now() } else { 0.0 };
        let seen = headers::read(headers, now);
        let mut learned = Vec::new();
        self.with_admission_on(r.state.as_deref(), key, &mut events, &mut |s| {
            learned.clear();
            if r.holds() {
                s.settle(cfg, &r.charged, &r.estimated, usage, &r.grant.rates);
            }
            if !seen.is_empty() {
                learned.extend(s.observe(cfg, &seen, now));
            }
            if learns {
                // Sent at its slot (a learn without one: now).
                let sent = if r.holds() { r.at.min(now) } else { now };
                learned.extend(s.on_answer(cfg, now, throttled, sent));
            }
        });
        if throttled || !learned.is_empty() {
            self.metrics.update_admission(key, |c| {
                c.throttled += u64::from(throttled);
                c.limits_learned += learned.len() as u64;
            });
        }
        learned_events(key, &learned, &mut events);
        events
    }

    /// Learns from a response of `key` that no reservation covers (its headers; `throttled`: a
    /// 429 or 529).
    pub fn learn(&self, key: &str, headers: &Headers, throttled: bool) -> Vec<Event> {
        let now = self.now();
        self.settle(
            key,
            &Reservation::free(now, Cost::REQUEST),
            None,
            headers,
            throttled,
        )
    }

    /// Reservation `r` will never be used (the caller gave up waiting): gives it all back.
    pub fn cancel(&self, key: &str, r: &Reservation) -> Vec<Event> {
        let mut events = Vec::new();
        let cfg = &self.cfg.admission;
        if !cfg.is_on() || !r.holds() || r.grant.held {
            // A held reservation took no place in any schedule: nothing to give back.
            return events;
        }
        self.with_admission_on(r.state.as_deref(), key, &mut events, &mut |s| {
            s.cancel(cfg, &r.charged, &r.grant.rates)
        });
        events
    }

    /// `key`'s admission state as this process sees it (the shared one on Redis), for
    /// diagnostics: `None` with admission off.
    pub fn admission_state(&self, key: &str) -> Option<AdmissionState> {
        if !self.admission_on() {
            return None;
        }
        let mut out = None;
        let mut events = Vec::new();
        self.with_admission(key, &mut events, &mut |s| out = Some(s.clone()));
        out
    }
}
