//! One key's admission state and its pure transitions: reserve a slot, settle it against the
//! usage reported, learn from headers and throttles. Backends only make them atomic (a mutex
//! in process, a compare-and-set script on Redis), so every rule lives here once.
//!
//! Pacing is a GCRA per dimension (the "virtual scheduling" form of ITU-T I.371's generic cell
//! rate algorithm) with no burst tolerance: each admission moves the dimension's theoretical
//! arrival time on by `cost / rate`, so admissions are spread evenly through the window, and a
//! caller that must wait is given its own slot, not a time everyone wakes at.
//!
//! Beside the pacing, a dimension learned from headers mirrors the provider's bucket: what
//! remains, and the reset as its refill schedule. A call is admitted when both agree.
//!
//! The schedule follows the key's current rate: when a learned rate changes, the queue ahead
//! of now is stretched or pulled in by old rate / new rate, and a waiter that asks again
//! ([`AdmissionState::replan`]) has its slot moved the same way, so nobody sleeps past what the
//! current rate allows (nor goes sooner than it allows).
//!
//! Cold start: while a key's limits are unknown in the headers mode, one call goes first (the
//! probe) and the others are held until its answer teaches the limits, for at most
//! [`PROBE_HOLD_S`]; then they go paced by whatever is known. A first wave of a whole fleet
//! at one instant would otherwise go unpaced.

use serde::{Deserialize, Serialize};

use super::config::{AdmissionConfig, AdmissionMode, MAX_UNITS};
use super::cost::{sane, Cost, Dimension, Usage};
use super::cubic::Cubic;
use super::headers::{Observed, MAX_RESET_S};

/// One dimension of one key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Lane {
    /// The limit learned from headers, per window (0: none learned).
    pub limit: f64,
    /// The window of that limit, seconds (0: the config's).
    pub window_s: f64,
    /// The GCRA's theoretical arrival time (wall-clock seconds).
    pub pace: f64,
    /// When the provider's bucket is whole again, as the headers last said and admissions since.
    pub full_at: f64,
    /// How fast the provider's bucket refills, units per second (0: no headers yet).
    pub refill: f64,
    /// The rate `pace` was planned at, units per second (0: not paced yet).
    #[serde(default)]
    pub rate: f64,
    /// Units booked in this lane's schedule so far, `pace` being when the last of them is
    /// done: a waiter's place is its count here ([`Grant::pos`]), so its time follows the
    /// schedule as it is now (`pace - (booked - pos) / rate`), whatever moved since.
    #[serde(default)]
    pub booked: f64,
    /// Seconds this process moved `pace` on by its own admissions and settlements, not yet
    /// merged into a shared copy (the async Redis backend's mirror); never stored.
    #[serde(skip)]
    pub owed_pace: f64,
    /// The same for `full_at`.
    #[serde(skip)]
    pub owed_full: f64,
    /// The same for `booked`.
    #[serde(skip)]
    pub owed_booked: f64,
}

impl Lane {
    /// When the waiter whose place is `pos` may go, on this lane's schedule as it is now
    /// (paced at `rate`).
    fn slot(&self, pos: f64, rate: f64) -> f64 {
        self.pace - (self.booked - pos).max(0.0) / rate
    }
}

/// One key's admission state. Plain data: Redis stores it as JSON.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct AdmissionState {
    /// Indexed as [`Dimension::ALL`].
    pub lanes: [Lane; 4],
    /// The controller learning from throttles.
    pub cubic: Cubic,
    /// Reported over estimated input tokens, smoothed (0: not observed yet).
    pub ratio: f64,
    /// Until when the callers of a key whose limits are unknown are held behind its probe
    /// (wall clock; 0: no probe out).
    #[serde(default)]
    pub probe_until: f64,
}

/// How long after its time a slot that was not used is stale, seconds: longer than any
/// host's oversleep, shorter than a wait for something else.
pub const STALE_S: f64 = 0.5;

/// The longest the other callers are held behind a cold key's probe, seconds: its answer
/// usually comes well before; a probe that hangs must not hold the fleet.
pub const PROBE_HOLD_S: f64 = 3.0;

/// Where a reservation was put.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Grant {
    /// Wall-clock time from which the call may go.
    pub at: f64,
    /// The dimension that made it wait, if one did.
    pub limited_by: Option<Dimension>,
    /// The rate each dimension was paced at when it was placed (0: not paced), to re-plan it.
    pub rates: [f64; 4],
    /// Held behind a cold key's probe: it holds no place in any schedule yet.
    pub held: bool,
    /// Its place in each paced dimension's schedule ([`Lane::booked`] before it).
    pub pos: [f64; 4],
    /// The earliest it may go whatever the schedules say: a shared pause's end, the
    /// provider's bucket as the headers said.
    pub floor: f64,
}

/// A limit the state learned (for `limits_learned`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Learned {
    /// The dimension.
    pub dimension: Dimension,
    /// The limit per window.
    pub limit: f64,
    /// The window, seconds.
    pub window_s: f64,
    /// `headers` or `throttle`.
    pub source: &'static str,
}

/// The smallest and largest correction of an estimate taken from one observation.
const RATIO_BOUNDS: (f64, f64) = (0.05, 20.0);
/// The weight of a new observation in the smoothed ratio.
const RATIO_WEIGHT: f64 = 0.2;

impl AdmissionState {
    fn any_learned(&self) -> bool {
        self.lanes.iter().any(|l| l.limit > 0.0)
    }

    /// Whether the key's limits are unknown in a mode that learns them: nothing learned or
    /// given paces any dimension yet (no header, no limit, no throttle).
    fn cold(&self, cfg: &AdmissionConfig) -> bool {
        matches!(cfg.mode, AdmissionMode::Headers | AdmissionMode::Adaptive)
            && Dimension::ALL
                .iter()
                .all(|d| self.learned_rate(cfg, *d).is_none())
    }

    /// Whether a call of a cold key is to wait for the probe's answer: none has come, and the
    /// hold is not over.
    fn holding(&self, cfg: &AdmissionConfig, now: f64) -> bool {
        self.cold(cfg)
            && !self.cubic.answered()
            && (self.probe_until == 0.0 || now < self.probe_until)
    }

    /// Moves each paced dimension's queue ahead of `now` to the rate it is paced at now: a
    /// queue planned at rate `a` and paced at `b` takes `a / b` of the time it would have.
    fn respace(&mut self, cfg: &AdmissionConfig, now: f64) {
        for d in Dimension::ALL {
            let Some((r, _)) = self.rate(cfg, d) else {
                continue;
            };
            let lane = &mut self.lanes[d.index()];
            if lane.rate > 0.0 && lane.rate != r && lane.pace > now {
                let pace = now + (lane.pace - now) * lane.rate / r;
                lane.owed_pace += pace - lane.pace;
                lane.pace = pace;
            }
            lane.rate = r;
        }
    }

    /// The rate (units per second) and capacity (units per window) `d` is paced at, if any:
    /// the one learned (or given), else, for the requests of a cold key whose probe has been
    /// answered or whose hold is over, the slow start ([`Cubic::start_rate`]).
    pub fn rate(&self, cfg: &AdmissionConfig, d: Dimension) -> Option<(f64, f64)> {
        self.learned_rate(cfg, d).or_else(|| {
            (d == Dimension::Requests && self.cold(cfg)).then(|| {
                let r = self.cubic.start_rate();
                (r, r * cfg.window_s)
            })
        })
    }

    /// The rate and capacity learned from headers or throttles, or given.
    fn learned_rate(&self, cfg: &AdmissionConfig, d: Dimension) -> Option<(f64, f64)> {
        let lane = &self.lanes[d.index()];
        let fixed = || cfg.limits.get(d).map(|l| (l / cfg.window_s, l));
        let cubic = || {
            (d == Dimension::Requests)
                .then(|| self.cubic.limit_per_s())
                .flatten()
                .map(|r| (r, r * cfg.window_s))
        };
        match cfg.mode {
            AdmissionMode::Off => None,
            AdmissionMode::Static => fixed(),
            AdmissionMode::Adaptive => cubic(),
            AdmissionMode::Headers if lane.limit > 0.0 => {
                let w = if lane.window_s > 0.0 {
                    lane.window_s
                } else {
                    cfg.window_s
                };
                Some((lane.limit / w, lane.limit))
            }
            AdmissionMode::Headers if self.any_learned() => fixed(),
            AdmissionMode::Headers => fixed().or_else(cubic),
        }
        .filter(|(r, cap)| *r > 0.0 && r.is_finite() && *cap > 0.0)
    }

    /// `cost` with its input tokens corrected by the ratio observed (when on).
    pub fn corrected(&self, cfg: &AdmissionConfig, cost: Cost) -> Cost {
        let mut c = cost.sanitized();
        if cfg.correct_estimates && self.ratio > 0.0 {
            c.input_tokens = sane(c.input_tokens * self.ratio);
        }
        c
    }

    /// Reserves `cost` (already corrected) at the earliest time from `max(now, not_before)` on
    /// that every paced dimension allows, and moves the dimensions on past it.
    pub fn reserve(
        &mut self,
        cfg: &AdmissionConfig,
        cost: &Cost,
        now: f64,
        not_before: f64,
    ) -> Grant {
        self.place(cfg, cost, now, not_before, f64::INFINITY)
            .expect("a place with no latest time is always found")
    }

    /// [`AdmissionState::reserve`] only if the place found is no later than `go_by`: `None`
    /// (nothing reserved) otherwise. The success path of a call that may go now.
    pub fn reserve_by(
        &mut self,
        cfg: &AdmissionConfig,
        cost: &Cost,
        now: f64,
        go_by: f64,
    ) -> Option<Grant> {
        self.place(cfg, cost, now, 0.0, go_by)
    }

    fn place(
        &mut self,
        cfg: &AdmissionConfig,
        cost: &Cost,
        now: f64,
        not_before: f64,
        go_by: f64,
    ) -> Option<Grant> {
        let mut at = now.max(sane(not_before));
        if at > go_by {
            return None;
        }
        if self.probe_until > now + PROBE_HOLD_S {
            // Nothing this code writes is that far ahead: a clock far off, or garbage.
            self.probe_until = 0.0;
        }
        if self.holding(cfg, now) {
            if self.probe_until == 0.0 {
                // The probe: it goes, the others wait for its answer.
                self.probe_until = now + PROBE_HOLD_S;
                return Some(Grant {
                    at,
                    limited_by: None,
                    rates: [0.0; 4],
                    held: false,
                    pos: [0.0; 4],
                    floor: at,
                });
            }
            let at = at.max(self.probe_until);
            return (at <= go_by).then_some(Grant {
                at,
                limited_by: Some(Dimension::Requests),
                rates: [0.0; 4],
                held: true,
                pos: [0.0; 4],
                floor: at,
            });
        }
        self.respace(cfg, now);
        let mut limited_by = None;
        let mut paced = [None; 4];
        let mut floor = at;
        for d in Dimension::ALL {
            let Some((r, cap)) = self.rate(cfg, d) else {
                continue;
            };
            let c = cost.amount(d).min(cap);
            if c <= 0.0 {
                continue;
            }
            paced[d.index()] = Some((r, c));
            let lane = &mut self.lanes[d.index()];
            if lane.pace > now + MAX_RESET_S || lane.full_at > now + MAX_RESET_S {
                // Nothing this code writes is a week ahead: a clock far off, or garbage.
                lane.pace = now;
                lane.full_at = now;
            }
            let mut earliest = lane.pace;
            if lane.refill > 0.0 {
                let bucket = lane.full_at - (cap - c) / lane.refill;
                floor = floor.max(bucket);
                earliest = earliest.max(bucket);
            }
            if earliest > at {
                at = earliest;
                limited_by = Some(d);
            }
        }
        if at > go_by {
            return None;
        }
        let mut pos = [0.0; 4];
        for d in Dimension::ALL {
            if let Some((r, c)) = paced[d.index()] {
                let lane = &mut self.lanes[d.index()];
                pos[d.index()] = lane.booked;
                lane.booked += c;
                lane.owed_booked += c;
                lane.pace = lane.pace.max(at) + c / r;
                lane.owed_pace += c / r;
                if lane.refill > 0.0 {
                    lane.full_at = lane.full_at.max(at) + c / lane.refill;
                    lane.owed_full += c / lane.refill;
                }
            }
        }
        let mut rates = [0.0; 4];
        for d in Dimension::ALL {
            if let Some((r, _)) = paced[d.index()] {
                rates[d.index()] = r;
            }
        }
        Some(Grant {
            at,
            limited_by,
            rates,
            held: false,
            pos,
            floor,
        })
    }

    /// A waiter asks again at `now` about its place `g` (for `cost`): a place held behind a
    /// probe is given a place in the schedule once the limits are known (or the hold is over);
    /// a place in the schedule is moved as the queue ahead of it was, by the rate it was paced
    /// at over the rate now.
    pub fn replan(
        &mut self,
        cfg: &AdmissionConfig,
        g: &Grant,
        cost: &Cost,
        now: f64,
        not_before: f64,
    ) -> Grant {
        if g.held {
            if self.holding(cfg, now) && self.probe_until > 0.0 {
                return *g;
            }
            // Answered, learned, or the hold is over: a place in the schedule as it is now.
            return self.reserve(cfg, cost, now, not_before);
        }
        self.respace(cfg, now);
        // Its time on each schedule as it is now, from its place there: a cut in the rate
        // since it was placed holds it back even when its old time has come.
        let mut out = *g;
        out.at = g.floor.max(sane(not_before));
        out.limited_by = None;
        for d in Dimension::ALL {
            if g.rates[d.index()] <= 0.0 {
                continue;
            }
            let Some((r, _)) = self.rate(cfg, d) else {
                continue;
            };
            let t = self.lanes[d.index()].slot(g.pos[d.index()], r);
            out.rates[d.index()] = r;
            if t > out.at {
                out.at = t;
                out.limited_by = Some(d);
            }
        }
        if out.at + STALE_S < now {
            // Its time passed while its caller waited for something else (an open circuit, a
            // pause): the slot went by unused, and callers held elsewhere must not come back
            // all at once on slots long gone. A place at the end of the queue as it is now.
            return self.reserve(cfg, cost, now, not_before);
        }
        out
    }

    /// Gives back all of a reservation that was never used (the caller gave up waiting).
    pub fn cancel(&mut self, cfg: &AdmissionConfig, charged: &Cost, paced: &[f64; 4]) {
        self.shift(cfg, charged, &Usage::default(), true, paced);
    }

    /// Moves every paced dimension by what was used minus what was charged: a refund when less
    /// was used, a debt when more. `all`: requests too (a cancelled reservation). Only the
    /// dimensions `paced` says the reservation took a place in (rate above 0) are moved: a
    /// call admitted before a limit was known owes that limit's schedule nothing.
    fn shift(
        &mut self,
        cfg: &AdmissionConfig,
        charged: &Cost,
        used: &Usage,
        all: bool,
        paced: &[f64; 4],
    ) {
        for d in Dimension::ALL {
            if paced[d.index()] <= 0.0 {
                continue;
            }
            let Some((r, cap)) = self.rate(cfg, d) else {
                continue;
            };
            let used = match used.amount(d) {
                _ if all => 0.0,
                Some(_) if d == Dimension::Requests => continue,
                Some(u) => u.min(cap),
                None => continue,
            };
            let delta = used - charged.amount(d).min(cap);
            let lane = &mut self.lanes[d.index()];
            lane.pace = (lane.pace + delta / r).max(0.0);
            lane.owed_pace += delta / r;
            if lane.refill > 0.0 {
                lane.full_at = (lane.full_at + delta / lane.refill).max(0.0);
                lane.owed_full += delta / lane.refill;
            }
        }
    }

    /// The call of a reservation ended: `usage` as reported (`None`: an error without usage,
    /// counted as spent), `estimated` the caller's own estimate (for the correction ratio).
    pub fn settle(
        &mut self,
        cfg: &AdmissionConfig,
        charged: &Cost,
        estimated: &Cost,
        usage: Option<&Usage>,
        paced: &[f64; 4],
    ) {
        let Some(u) = usage else {
            return;
        };
        self.shift(cfg, charged, u, false, paced);
        if let (true, Some(reported)) = (estimated.input_tokens > 0.0, u.input_tokens) {
            let sample =
                (sane(reported) / estimated.input_tokens).clamp(RATIO_BOUNDS.0, RATIO_BOUNDS.1);
            self.ratio = if self.ratio > 0.0 {
                (1.0 - RATIO_WEIGHT) * self.ratio + RATIO_WEIGHT * sample
            } else {
                sample
            };
        }
    }

    /// A response came at `now` (`throttled`: a 429 or 529): the controller learns from it.
    /// Returns the rate a throttle set, as a limit per window.
    pub fn on_response(
        &mut self,
        cfg: &AdmissionConfig,
        now: f64,
        throttled: bool,
    ) -> Option<Learned> {
        self.on_answer(cfg, now, throttled, now)
    }

    /// [`AdmissionState::on_response`] for a call sent at `sent_at` (a throttle of a call
    /// sent before the controller's last cut does not cut again).
    pub fn on_answer(
        &mut self,
        cfg: &AdmissionConfig,
        now: f64,
        throttled: bool,
        sent_at: f64,
    ) -> Option<Learned> {
        if !matches!(cfg.mode, AdmissionMode::Adaptive | AdmissionMode::Headers) {
            return None;
        }
        let rate = self.cubic.on_answer(now, throttled, sent_at);
        // The queue follows the rate from the moment it changed, not from whenever the next
        // caller happens to look.
        self.respace(cfg, now);
        let rate = rate?;
        if cfg.mode == AdmissionMode::Headers && self.any_learned() {
            // The headers pace this key; the controller only keeps learning in case they stop.
            return None;
        }
        Some(Learned {
            dimension: Dimension::Requests,
            limit: rate * cfg.window_s,
            window_s: cfg.window_s,
            source: "throttle",
        })
    }

    /// What a response's headers said, at `now`. Returns the limits that changed (by more than
    /// 1 %, or first learned).
    pub fn observe(&mut self, cfg: &AdmissionConfig, seen: &Observed, now: f64) -> Vec<Learned> {
        let mut learned = Vec::new();
        if cfg.mode != AdmissionMode::Headers || !now.is_finite() {
            return learned;
        }
        for d in Dimension::ALL {
            let Some(rd) = seen.get(d) else {
                continue;
            };
            let lane = &mut self.lanes[d.index()];
            let window = rd.window_s.unwrap_or(cfg.window_s);
            // Azure sends what remains without the limit: the most ever seen remaining stands
            // for it.
            let limit = rd
                .limit
                .or_else(|| rd.remaining.map(|r| r.max(lane.limit)))
                .filter(|l| *l > 0.0 && *l <= MAX_UNITS);
            let Some(limit) = limit else {
                continue;
            };
            if (limit - lane.limit).abs() > 0.01 * limit || lane.window_s != window {
                learned.push(Learned {
                    dimension: d,
                    limit,
                    window_s: window,
                    source: "headers",
                });
            }
            lane.limit = limit;
            lane.window_s = window;
            if let Some(rem) = rd.remaining {
                let debt = limit - rem.min(limit);
                let steady = limit / window;
                let (refill, full_at) = match rd.reset_s {
                    Some(s) if s > 0.0 && debt > 0.0 => (debt / s, now + s),
                    _ => (steady, now + debt / steady),
                };
                lane.refill = refill.max(limit / MAX_RESET_S);
                lane.full_at = full_at;
            }
        }
        self.respace(cfg, now);
        learned
    }

    /// Three-way merge for a mirror of a shared state (the async Redis backend): `remote` is
    /// the shared state now, `base` the shared state `local` started from. The schedule this
    /// process added since `base` (its `owed` seconds) is stacked on the shared one; limits,
    /// the controller and the correction ratio this process learned since `base` win over the
    /// shared ones, the others' otherwise. The result owes what `local` owed beyond `base`.
    pub fn merged(base: &Self, local: &Self, remote: &Self) -> Self {
        let mut out = remote.clone();
        for i in 0..Dimension::ALL.len() {
            let (b, l, r) = (&base.lanes[i], &local.lanes[i], &remote.lanes[i]);
            let o = &mut out.lanes[i];
            let owed_pace = l.owed_pace - b.owed_pace;
            let owed_full = l.owed_full - b.owed_full;
            let owed_booked = l.owed_booked - b.owed_booked;
            let observed = l.limit != b.limit || l.window_s != b.window_s || l.refill != b.refill;
            if observed {
                o.limit = l.limit;
                o.window_s = l.window_s;
                o.refill = l.refill;
                o.full_at = l.full_at;
            } else {
                o.full_at = (r.full_at + owed_full).max(l.full_at).max(0.0);
            }
            o.pace = (r.pace + owed_pace).max(l.pace).max(0.0);
            o.owed_pace = owed_pace;
            o.owed_full = owed_full;
            o.booked = (r.booked + owed_booked).max(l.booked);
            o.owed_booked = owed_booked;
        }
        if local.cubic != base.cubic {
            out.cubic = local.cubic.clone();
        }
        if local.ratio != base.ratio {
            out.ratio = local.ratio;
        }
        out.probe_until = remote.probe_until.max(local.probe_until);
        out
    }

    /// Forgets what this process owes a shared copy (it was pushed).
    pub fn clear_owed(&mut self) {
        for l in &mut self.lanes {
            l.owed_pace = 0.0;
            l.owed_full = 0.0;
            l.owed_booked = 0.0;
        }
    }

    /// Whether forgetting it now would lose pacing still under way.
    pub fn is_live(&self, now: f64) -> bool {
        self.lanes.iter().any(|l| l.pace > now || l.full_at > now)
    }

    /// Whether its numbers could have come from this code (a stored state read back).
    pub fn is_sane(&self) -> bool {
        self.cubic.is_sane()
            && self.ratio.is_finite()
            && self.ratio >= 0.0
            && self.probe_until.is_finite()
            && self.probe_until >= 0.0
            && self.lanes.iter().all(|l| {
                [
                    l.limit, l.window_s, l.pace, l.full_at, l.refill, l.rate, l.booked,
                ]
                .iter()
                .all(|x| x.is_finite() && *x >= 0.0)
            })
    }
}
