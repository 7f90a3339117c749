//! The circuit breaker of one provider/model key, as a pure state machine: every backend
//! (in-process, Redis) applies these transitions atomically, so they decide identically.

use serde::{Deserialize, Serialize};

/// Breaker settings.
///
/// # Default
/// Opens after 5 consecutive transient failures, or when at least 20 calls in a 10 s window
/// fail at a rate of 50 % or more. It stays open a quarter of the time since it first opened
/// (the patience of the `default` policy, whose every wait is at most a quarter of the time
/// already spent), at least 0.5 s and at most 30 s, then lets one probe through (a probe that
/// has not reported in 30 s is presumed lost and another is allowed). So a fleet sees a
/// provider's recovery about as soon as its agents alone would: measured by `make fleet-tuning`
/// (README, "Fleets").
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct BreakerConfig {
    /// Consecutive transient failures that open the circuit; 0 turns this trigger off. Default: 5.
    pub consecutive_failures: u32,
    /// The failure rate (0 to 1) within a window that opens the circuit. Default: 0.5.
    pub failure_rate: f64,
    /// The fewest calls in a window before the failure rate counts. Default: 20.
    pub min_calls: u32,
    /// The length of the failure-rate window, in seconds. Default: 10.
    pub window_s: f64,
    /// The shortest open period, in seconds: the first one, and every one while the circuit has
    /// been failing for less than four times this. Callers that find a probe out look again
    /// after a fifth of it (of 1 s at most: 0.1 s by default), later as the probe ages, up to the
    /// whole of it ([`half_open_recheck`]). Default: 0.5
    /// (the shortest first wait of the `default` policy: its 1 s base with equal jitter).
    pub open_s: f64,
    /// The longest open period, in seconds: an open circuit lets a probe through at least this
    /// often, however long the provider has been failing. Set it to `open_s` (or lower) for a
    /// fixed open period. Default: 30 (the `default` policy's longest wait).
    pub max_open_s: f64,
    /// Seconds after which a probe that has not reported is presumed lost and another caller may
    /// probe. Default: 30.
    pub probe_timeout_s: f64,
}

/// An open period is this fraction of the time since the circuit first opened (within
/// `open_s..=max_open_s`): the `default` policy's rule for its own waits (`1.25ⁿ`: each wait at
/// most a quarter of the time already spent), so the circuit's delay in noticing a recovery
/// stays within a quarter of the outage's length, as an agent's own does.
pub const OPEN_FRACTION: f64 = 0.25;

/// While a probe is out, the other callers look again after at least this fraction of `open_s`
/// (of 1 s at most): 0.1 s with the defaults, so a quick answer is met within 0.1 s. See
/// [`half_open_recheck`].
pub const HALF_OPEN_RECHECK_FRACTION: f64 = 0.2;

/// ... or after this fraction of the probe's age, if longer, so a hung probe costs few checks.
pub const HALF_OPEN_RECHECK_AGE_FRACTION: f64 = 0.1;

/// ... never after more than `open_s` (of 1 s at most), nor less than this many seconds, so that
/// `open_s: 0` cannot make the waiters spin.
pub const HALF_OPEN_RECHECK_MIN_S: f64 = 0.01;

/// How long a caller that finds a probe out waits before it looks again, the probe being
/// `probe_age` seconds old: [`HALF_OPEN_RECHECK_AGE_FRACTION`] of that age, at least
/// [`HALF_OPEN_RECHECK_FRACTION`] of `open_s` and at most `open_s` (both of 1 s at most), and
/// never under [`HALF_OPEN_RECHECK_MIN_S`]. With the defaults: 0.1 s while the probe is under 1 s
/// old, a tenth of its age up to 5 s, then 0.5 s.
///
/// Why: each look is one gate check (a Redis round-trip for a Redis fleet). A fixed 0.5 s met a
/// quick answer late (a 2 s outage took 1.19x the time without a fleet in the lab); a fixed 0.1 s
/// kept every waiter looking 10 times a second while a probe hung. Growing with the age meets
/// answers under 1 s as the fixed 0.1 s did, and a 30 s hang costs 77 looks per waiter instead
/// of 300. The measurements and the rules weighed: README, "Tuning the `Fleet`".
pub fn half_open_recheck(cfg: &BreakerConfig, probe_age: f64) -> f64 {
    let longest = cfg.open_s.min(1.0);
    let soonest = HALF_OPEN_RECHECK_FRACTION * longest;
    let age = if probe_age.is_finite() {
        probe_age.max(0.0)
    } else {
        0.0
    };
    (HALF_OPEN_RECHECK_AGE_FRACTION * age)
        .max(soonest)
        .min(longest)
        .max(HALF_OPEN_RECHECK_MIN_S)
}

impl Default for BreakerConfig {
    fn default() -> Self {
        BreakerConfig {
            consecutive_failures: 5,
            failure_rate: 0.5,
            min_calls: 20,
            window_s: 10.0,
            open_s: 0.5,
            max_open_s: 30.0,
            probe_timeout_s: 30.0,
        }
    }
}

/// The phase of a circuit breaker.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Phase {
    /// Calls go through; failures are counted.
    Closed,
    /// Calls wait until the open period ends.
    Open,
    /// One probe call is let through; its result closes or reopens the circuit.
    HalfOpen,
}

/// The whole state of one key's breaker (what the Redis backend stores as JSON).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct BreakerState {
    /// The breaker's phase.
    pub phase: Phase,
    /// Consecutive transient failures so far.
    pub consecutive: u32,
    /// When the current failure-rate window began (wall-clock seconds).
    pub window_start: f64,
    /// Calls counted in the current window.
    pub window_calls: u32,
    /// Failures counted in the current window.
    pub window_failures: u32,
    /// Open: when it may half-open. HalfOpen: when the probe in flight is presumed lost.
    pub until: f64,
    /// Whether a half-open probe is in flight.
    pub probe_in_flight: bool,
    /// When the circuit first opened since it last closed (wall-clock seconds): open periods
    /// grow with this age. Absent in states stored by older versions (then: now).
    #[serde(default)]
    pub failing_since: Option<f64>,
}

impl Default for BreakerState {
    fn default() -> Self {
        BreakerState {
            phase: Phase::Closed,
            consecutive: 0,
            window_start: 0.0,
            window_calls: 0,
            window_failures: 0,
            until: 0.0,
            probe_in_flight: false,
            failing_since: None,
        }
    }
}

/// What the breaker says to a caller about to call.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Admit {
    /// Call.
    Go,
    /// Call: you are the half-open probe.
    Probe,
    /// Do not call before this time (wall-clock seconds): the circuit is open.
    WaitUntil(f64),
    /// Do not call before this time: the key is paused by a server's retry-after (a caller may
    /// bound how long it heeds a pause with its own retry-after cap).
    Paused(f64),
}

/// A change worth an event.
#[derive(Debug, Clone, PartialEq)]
pub enum Transition {
    /// The circuit opened.
    Opened {
        /// What opened it: `consecutive_failures`, `failure_rate` or `probe_failed`.
        reason: &'static str,
        /// The failures counted when it opened (consecutive or in the window, whichever is larger).
        failures: u32,
        /// How long it stays open, in seconds.
        open_s: f64,
    },
    /// The circuit closed after a successful call.
    Closed,
}

impl BreakerState {
    /// Whether a stored state can be trusted: finite times (a peer, or anyone with access to
    /// the store, may have written anything).
    pub fn is_sane(&self) -> bool {
        self.until.is_finite()
            && self.window_start.is_finite()
            && self.failing_since.map_or(true, f64::is_finite)
    }

    /// The probe in flight ended without saying anything about the provider's health (a 401, a
    /// 400, a cancellation, a panic): let the next caller probe at once instead of waiting
    /// `probe_timeout_s` for it.
    pub fn release_probe(&mut self) {
        if self.phase == Phase::HalfOpen {
            self.probe_in_flight = false;
        }
    }

    fn roll_window(&mut self, cfg: &BreakerConfig, now: f64) {
        if now - self.window_start >= cfg.window_s || now < self.window_start {
            self.window_start = now;
            self.window_calls = 0;
            self.window_failures = 0;
        }
    }

    /// How long the circuit stays open when it opens at `now`: [`OPEN_FRACTION`] of the time
    /// since it first opened, within `open_s..=max_open_s` (`open_s` if `max_open_s` is lower).
    pub fn open_period(&self, cfg: &BreakerConfig, now: f64) -> f64 {
        let age = self.failing_since.map_or(0.0, |t| (now - t).max(0.0));
        (OPEN_FRACTION * age).min(cfg.max_open_s).max(cfg.open_s)
    }

    fn open(&mut self, cfg: &BreakerConfig, now: f64, reason: &'static str) -> Transition {
        let open_s = self.open_period(cfg, now);
        if self.failing_since.map_or(true, |t| t > now) {
            self.failing_since = Some(now);
        }
        self.phase = Phase::Open;
        self.until = now + open_s;
        self.probe_in_flight = false;
        Transition::Opened {
            reason,
            failures: self.consecutive.max(self.window_failures),
            open_s,
        }
    }

    fn close(&mut self, now: f64) -> Transition {
        *self = BreakerState {
            window_start: now,
            ..BreakerState::default()
        };
        Transition::Closed
    }

    /// A caller is about to call at `now`.
    pub fn admit(&mut self, cfg: &BreakerConfig, now: f64) -> Admit {
        match self.phase {
            Phase::Closed => Admit::Go,
            Phase::Open if now < self.until => Admit::WaitUntil(self.until),
            Phase::Open => {
                self.phase = Phase::HalfOpen;
                self.probe_in_flight = true;
                self.until = now + cfg.probe_timeout_s;
                Admit::Probe
            }
            Phase::HalfOpen if !self.probe_in_flight || now >= self.until => {
                self.probe_in_flight = true;
                self.until = now + cfg.probe_timeout_s;
                Admit::Probe
            }
            // Others wait a little and look again: the probe's answer may come any moment. The
            // probe started `probe_timeout_s` before `until`.
            Phase::HalfOpen => {
                let age = now - (self.until - cfg.probe_timeout_s);
                Admit::WaitUntil(now + half_open_recheck(cfg, age))
            }
        }
    }

    /// A call succeeded.
    pub fn success(&mut self, cfg: &BreakerConfig, now: f64) -> Option<Transition> {
        if self.phase != Phase::Closed {
            return Some(self.close(now));
        }
        self.roll_window(cfg, now);
        self.consecutive = 0;
        self.window_calls += 1;
        None
    }

    /// A call failed; `health` says whether the failure speaks about the provider's health
    /// (5xx, overload, timeouts, resets; not a 401 or a 400).
    pub fn failure(&mut self, cfg: &BreakerConfig, now: f64, health: bool) -> Option<Transition> {
        if !health {
            self.release_probe();
            return None;
        }
        match self.phase {
            Phase::HalfOpen => Some(self.open(cfg, now, "probe_failed")),
            Phase::Open => None,
            Phase::Closed => {
                self.roll_window(cfg, now);
                self.consecutive += 1;
                self.window_calls += 1;
                self.window_failures += 1;
                if cfg.consecutive_failures > 0 && self.consecutive >= cfg.consecutive_failures {
                    return Some(self.open(cfg, now, "consecutive_failures"));
                }
                let rate = f64::from(self.window_failures) / f64::from(self.window_calls.max(1));
                if self.window_calls >= cfg.min_calls && rate >= cfg.failure_rate {
                    return Some(self.open(cfg, now, "failure_rate"));
                }
                None
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn opens_probes_and_closes() {
        let cfg = BreakerConfig::default();
        let mut b = BreakerState::default();
        for i in 0..4 {
            assert_eq!(b.failure(&cfg, i as f64, true), None);
        }
        assert!(matches!(
            b.failure(&cfg, 4.0, true),
            Some(Transition::Opened {
                reason: "consecutive_failures",
                open_s,
                ..
            }) if open_s == 0.5
        ));
        assert_eq!(b.admit(&cfg, 4.2), Admit::WaitUntil(4.5));
        assert_eq!(b.admit(&cfg, 4.5), Admit::Probe);
        assert_eq!(
            b.admit(&cfg, 4.6),
            Admit::WaitUntil(4.6 + 0.1),
            "one probe at a time; the others look again in a fifth of open_s"
        );
        assert!(matches!(
            b.failure(&cfg, 4.7, true),
            Some(Transition::Opened {
                reason: "probe_failed",
                ..
            })
        ));
        assert_eq!(b.admit(&cfg, 5.2), Admit::Probe);
        assert_eq!(b.success(&cfg, 5.4), Some(Transition::Closed));
        assert_eq!(b.admit(&cfg, 5.5), Admit::Go);
    }

    /// Open periods grow with the time since the circuit first opened (a quarter of it), within
    /// `open_s..=max_open_s`, and start again from `open_s` once it closes.
    #[test]
    fn open_periods_grow_with_the_outage_and_reset_on_close() {
        let cfg = BreakerConfig::default();
        let mut b = BreakerState::default();
        let opened = |t: Option<Transition>| match t {
            Some(Transition::Opened { open_s, .. }) => open_s,
            t => panic!("expected an opening, got {t:?}"),
        };
        for i in 0..4 {
            b.failure(&cfg, 100.0 + i as f64 * 0.01, true);
        }
        assert_eq!(opened(b.failure(&cfg, 100.0, true)), 0.5);
        // Probes failing 1 s, 8 s and 10 min after the circuit first opened.
        for (at, period) in [(101.0, 0.5), (108.0, 2.0), (700.0, 30.0)] {
            assert_eq!(b.admit(&cfg, at), Admit::Probe);
            assert_eq!(opened(b.failure(&cfg, at, true)), period, "at {at}");
            assert_eq!(b.admit(&cfg, at), Admit::WaitUntil(at + period));
        }
        assert_eq!(b.admit(&cfg, 730.0), Admit::Probe);
        assert_eq!(b.success(&cfg, 730.5), Some(Transition::Closed));
        for i in 0..5 {
            b.failure(&cfg, 731.0 + i as f64, true);
        }
        assert_eq!(b.admit(&cfg, 735.1), Admit::WaitUntil(735.5));
        // A fixed period: max_open_s at or below open_s.
        let fixed = BreakerConfig {
            open_s: 5.0,
            max_open_s: 5.0,
            ..BreakerConfig::default()
        };
        let mut b = BreakerState {
            failing_since: Some(0.0),
            ..BreakerState::default()
        };
        b.phase = Phase::HalfOpen;
        b.probe_in_flight = true;
        assert_eq!(opened(b.failure(&fixed, 1000.0, true)), 5.0);
    }

    /// A state stored by an older version has no `failing_since`; a peer's clock ahead of ours
    /// does not make an open period negative or long.
    #[test]
    fn failing_since_is_optional_and_bounded() {
        let old = r#"{"phase":"closed","consecutive":4,"window_start":0.0,"window_calls":4,"window_failures":4,"until":0.0,"probe_in_flight":false}"#;
        let mut b: BreakerState = serde_json::from_str(old).unwrap();
        assert!(b.is_sane());
        let cfg = BreakerConfig::default();
        assert!(matches!(
            b.failure(&cfg, 50.0, true),
            Some(Transition::Opened { open_s, .. }) if open_s == 0.5
        ));
        let mut ahead = BreakerState {
            phase: Phase::HalfOpen,
            probe_in_flight: true,
            failing_since: Some(1.0e9),
            ..BreakerState::default()
        };
        assert!(matches!(
            ahead.failure(&cfg, 60.0, true),
            Some(Transition::Opened { open_s, .. }) if open_s == 0.5
        ));
        assert_eq!(ahead.failing_since, Some(60.0));
    }

    #[test]
    fn permanent_errors_do_not_trip_it() {
        let cfg = BreakerConfig::default();
        let mut b = BreakerState::default();
        for i in 0..50 {
            assert_eq!(b.failure(&cfg, i as f64 * 0.01, false), None);
        }
        assert_eq!(b.admit(&cfg, 1.0), Admit::Go);
    }

    #[test]
    fn failure_rate_over_a_window() {
        let cfg = BreakerConfig {
            consecutive_failures: 0,
            ..BreakerConfig::default()
        };
        let mut b = BreakerState::default();
        let mut opened = None;
        for i in 0..40 {
            let t = i as f64 * 0.1;
            let r = if i % 2 == 0 {
                b.success(&cfg, t)
            } else {
                b.failure(&cfg, t, true)
            };
            if r.is_some() {
                opened = Some(i);
                break;
            }
        }
        assert_eq!(opened, Some(19), "20 calls, 10 failures: 50 %");
    }

    /// A probe answered by a 401 or a 400 frees the slot at once (the provider answered).
    #[test]
    fn a_probe_that_ends_without_health_news_frees_its_slot() {
        let cfg = BreakerConfig::default();
        let mut b = BreakerState {
            phase: Phase::Open,
            until: 0.0,
            ..BreakerState::default()
        };
        assert_eq!(b.admit(&cfg, 1.0), Admit::Probe);
        assert_eq!(b.admit(&cfg, 1.1), Admit::WaitUntil(1.1 + 0.1));
        assert_eq!(b.failure(&cfg, 1.2, false), None);
        assert_eq!(b.admit(&cfg, 1.3), Admit::Probe, "not 30 s later");
        b.release_probe();
        assert_eq!(b.admit(&cfg, 1.4), Admit::Probe);
    }

    /// While a probe is out the others look again soon (a fifth of `open_s`, of 1 s at most), so
    /// they meet its answer within 0.1 s whenever it comes, not only when it takes `open_s`.
    #[test]
    fn half_open_waiters_look_again_soon() {
        for (open_s, recheck) in [(0.5, 0.1), (0.25, 0.05), (5.0, 0.2)] {
            let cfg = BreakerConfig {
                open_s,
                ..BreakerConfig::default()
            };
            let mut b = BreakerState {
                phase: Phase::Open,
                until: 0.0,
                ..BreakerState::default()
            };
            assert_eq!(b.admit(&cfg, 10.0), Admit::Probe);
            let Admit::WaitUntil(at) = b.admit(&cfg, 10.3) else {
                panic!("a second caller waits while the probe is out")
            };
            assert!((at - 10.3 - recheck).abs() < 1e-9, "open_s {open_s}: {at}");
        }
    }

    /// A quick answer is met within 0.1 s; a hung probe's waiters look again less and less
    /// often, at most every `open_s` (of 1 s at most).
    #[test]
    fn half_open_waiters_look_again_less_often_as_the_probe_ages() {
        let cfg = BreakerConfig::default();
        let close = |a: f64, b: f64| (a - b).abs() < 1e-9;
        for (age, recheck) in [
            (0.0, 0.1),
            (0.5, 0.1),
            (1.0, 0.1),
            (2.0, 0.2),
            (4.0, 0.4),
            (5.0, 0.5),
            (29.0, 0.5),
            (-3.0, 0.1),
            (f64::NAN, 0.1),
            (f64::INFINITY, 0.1),
        ] {
            let r = half_open_recheck(&cfg, age);
            assert!(close(r, recheck), "age {age}: {r}");
        }
        // Through the state: the probe's age comes from `until` (its start + probe_timeout_s).
        let mut b = BreakerState {
            phase: Phase::Open,
            until: 0.0,
            ..BreakerState::default()
        };
        assert_eq!(b.admit(&cfg, 100.0), Admit::Probe);
        let wait = |b: &mut BreakerState, now: f64| match b.admit(&cfg, now) {
            Admit::WaitUntil(at) => at - now,
            a => panic!("expected a wait at {now}, got {a:?}"),
        };
        assert!(close(wait(&mut b, 100.3), 0.1), "a quick answer");
        assert!(close(wait(&mut b, 103.0), 0.3), "a slow one");
        assert!(close(wait(&mut b, 120.0), 0.5), "a hung one");
        // A 30 s hang: 77 looks per waiter instead of 300, 2 a second at the end.
        let (mut t, mut looks) = (100.0, 0);
        while t < 130.0 {
            t += wait(&mut b, t);
            looks += 1;
        }
        assert_eq!(looks, 77);
        assert_eq!(
            b.admit(&cfg, 130.0),
            Admit::Probe,
            "then it is presumed lost"
        );
    }

    /// `open_s: 0` (accepted by validation) gives the waiters a floor, not a zero wait.
    #[test]
    fn half_open_waiters_never_spin() {
        let cfg = BreakerConfig {
            open_s: 0.0,
            ..BreakerConfig::default()
        };
        for age in [0.0, 0.05, 1.0] {
            assert_eq!(
                half_open_recheck(&cfg, age),
                HALF_OPEN_RECHECK_MIN_S,
                "age {age}"
            );
        }
        let mut b = BreakerState {
            phase: Phase::Open,
            until: 0.0,
            ..BreakerState::default()
        };
        assert_eq!(b.admit(&cfg, 10.0), Admit::Probe);
        assert_eq!(b.admit(&cfg, 10.0), Admit::WaitUntil(10.0 + 0.01));
        // A large open_s still looks again within 1 s.
        let long = BreakerConfig {
            open_s: 5.0,
            ..BreakerConfig::default()
        };
        assert_eq!(half_open_recheck(&long, 0.0), 0.2);
        assert_eq!(half_open_recheck(&long, 5.0), 0.5);
        assert_eq!(half_open_recheck(&long, 60.0), 1.0);
    }

    #[test]
    fn a_lost_probe_is_replaced() {
        let cfg = BreakerConfig::default();
        let mut b = BreakerState {
            phase: Phase::Open,
            until: 0.0,
            ..BreakerState::default()
        };
        assert_eq!(b.admit(&cfg, 1.0), Admit::Probe);
        assert_eq!(b.admit(&cfg, 31.0), Admit::Probe);
    }
}
