//! Fleet resilience: what one agent's retries do to everyone else. A [`Fleet`] is shared by all
//! the calls of a process (and, with the Redis backend, of many processes): a retry budget per
//! key, a circuit breaker per key, and a shared pause when a provider says "retry after".
//!
//! ```
//! use std::sync::Arc;
//! use retry_core::fleet::{Fleet, FleetConfig};
//! use retry_core::{Failure, RetryPolicy, Run, Step, WaitReason};
//!
//! let fleet = Arc::new(Fleet::in_process(FleetConfig::default()));
//! let key = vec!["openai:gpt-4o".to_owned()];
//! let mut call = Run::new(RetryPolicy::recommended()).fleet(Arc::clone(&fleet), key.clone());
//! assert_eq!(call.start(0.0), Step::Call { model: 0 });
//! let slow_down = Failure::http(429, "slow down").with_header("retry-after", "7");
//! let step = call.failed(&slow_down, 0.0);
//! assert_eq!(step, Step::Wait { seconds: 7.0, reason: WaitReason::RetryAfter });
//! // Every other caller of the key now waits too.
//! let mut other = Run::new(RetryPolicy::recommended()).fleet(fleet, key);
//! let paused = matches!(other.start(0.0), Step::Wait { seconds, reason: WaitReason::FleetPause } if seconds > 5.0);
//! assert!(paused);
//! ```

pub mod admission;
pub mod backend;
pub mod breaker;
pub mod budget;
pub mod metrics;
mod per_process;

/// Completes the fleet's once-per-process set-up before a fork (see `crate::warm`).
pub(crate) fn warm() {
    per_process::count_forks();
}
#[cfg(feature = "redis")]
pub mod redis;
#[cfg(feature = "redis-tokio")]
pub mod redis_async;
#[cfg(feature = "redis")]
mod resp;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::category::{Category, Classification, RetryAfterSource};
use crate::error::{Error, Result};
use crate::events::{Event, EventKind};
pub use admission::{
    AdmissionConfig, AdmissionMode, AdmissionState, BytesOverFour, Cost, Dimension, Limits,
    Reservation, TokenEstimator, Usage,
};
pub use backend::{BackendError, FleetBackend, InProcess, KeyState, Retention};
pub use breaker::{Admit, BreakerConfig, BreakerState, Transition};
pub use budget::BudgetConfig;
pub use metrics::{AdmissionCounters, Counters, KeyCounters, Metrics};

/// Fleet settings. `null` / absent sections switch a mechanism off.
///
/// # Default
/// A budget and a breaker with their defaults, shared pauses on, pauses capped at 300 s,
/// admission off, no Redis (with one, 0.25 s for any Redis I/O, the connection handshake
/// included).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct FleetConfig {
    /// The retry budget per key; `None` turns it off. Default: [`BudgetConfig::default()`].
    pub budget: Option<BudgetConfig>,
    /// The circuit breaker per key; `None` turns it off. Default: [`BreakerConfig::default()`].
    pub breaker: Option<BreakerConfig>,
    /// Whether a rate limit or overload with a `retry-after` header pauses every caller of the key.
    /// Default: `true`.
    pub shared_pause: bool,
    /// The longest shared pause, in seconds, whatever the server asked for. Default: 300.
    pub max_pause_s: f64,
    /// `redis://host:port/db` to share state across processes (needs the `redis` feature).
    /// Default: `None` (in-process state).
    pub redis_url: Option<String>,
    /// Prefix of every Redis key. Default: `retry-core`.
    pub namespace: String,
    /// How long any one Redis operation (the connection handshake included, every command and
    /// every read of their replies) may take before the call goes on with local state.
    /// Default: 0.25 s.
    pub redis_timeout_s: f64,
    /// Seconds a key may go unused before this process forgets its state and metrics (between
    /// 1 and 1.5 times this; never while its pause or open period lasts). Default: 600.
    pub key_idle_ttl_s: f64,
    /// The most keys whose state and metrics this process holds (rounded up to a multiple of
    /// 64): past it, the least recently used are forgotten, live ones last (see
    /// [`Retention`]). Default: 100 000 (about 100 MB at most).
    pub max_keys: usize,
    /// Admission before each call ([`admission`]): off, static limits, adaptive, or learned
    /// from headers. In a configuration, a mode's name alone (`"headers"`) stands for that mode
    /// with the other settings at their defaults, and `null` or `false` for off. Default: off.
    #[serde(deserialize_with = "admission::config::mode_or_settings")]
    pub admission: AdmissionConfig,
}

impl Default for FleetConfig {
    fn default() -> Self {
        FleetConfig {
            budget: Some(BudgetConfig::default()),
            breaker: Some(BreakerConfig::default()),
            shared_pause: true,
            max_pause_s: 300.0,
            redis_url: None,
            namespace: "retry-core".into(),
            redis_timeout_s: 0.25,
            key_idle_ttl_s: 600.0,
            max_keys: 100_000,
            admission: AdmissionConfig::default(),
        }
    }
}

impl FleetConfig {
    /// From JSON text (keyword arguments and config files of the bindings).
    pub fn from_json(json: &str) -> Result<Self> {
        let cfg: FleetConfig = serde_json::from_str(json)
            .map_err(|e| Error::invalid_policy(format!("invalid fleet configuration: {e}")))?;
        let bad = |x: f64| !(x.is_finite() && x >= 0.0);
        if let Some(b) = &cfg.budget {
            if [b.capacity, b.retry_cost, b.timeout_cost, b.success_refund]
                .into_iter()
                .any(bad)
            {
                return Err(Error::invalid_policy(
                    "budget values must be finite and >= 0",
                ));
            }
        }
        if let Some(b) = &cfg.breaker {
            if [
                b.failure_rate,
                b.window_s,
                b.open_s,
                b.max_open_s,
                b.probe_timeout_s,
            ]
            .into_iter()
            .any(bad)
                || b.failure_rate > 1.0
            {
                return Err(Error::invalid_policy(
                    "breaker values must be finite, >= 0, failure_rate <= 1",
                ));
            }
        }
        if bad(cfg.max_pause_s) {
            return Err(Error::invalid_policy("max_pause_s must be finite and >= 0"));
        }
        if !(cfg.key_idle_ttl_s.is_finite() && cfg.key_idle_ttl_s > 0.0) {
            return Err(Error::invalid_policy(
                "key_idle_ttl_s must be finite and above 0",
            ));
        }
        if cfg.max_keys == 0 {
            return Err(Error::invalid_policy("max_keys must be at least 1"));
        }
        cfg.admission.validate()?;
        if !(cfg.redis_timeout_s > 0.0 && cfg.redis_timeout_s <= 60.0) {
            return Err(Error::invalid_policy(
                "redis_timeout_s must be above 0 and at most 60",
            ));
        }
        Ok(cfg)
    }
}

/// How far ahead of `max_pause_s` a stored pause may be (peers' clocks differ) before it is bad
/// data for its key.
pub const PAUSE_SKEW_S: f64 = 60.0;

/// Wall-clock seconds (shared across machines), injectable for virtual time.
pub type WallClock = Arc<dyn Fn() -> f64 + Send + Sync>;

pub(crate) fn system_clock() -> f64 {
    // The testing switch's virtual clock, which every fleet on the system clock shares.
    if let Some(t) = crate::testing::now() {
        return t;
    }
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Does this failure speak about the provider's health (for the breaker)?
fn is_health_failure(c: &Classification) -> bool {
    c.transient && c.category != Category::Cancelled
}

/// Shared state for many calls. Cheap to share behind an `Arc`.
pub struct Fleet {
    cfg: FleetConfig,
    backend: Arc<dyn FleetBackend>,
    /// The fallback of a remote backend, or the backend itself (`in_process`).
    local: Arc<InProcess>,
    degraded: AtomicBool,
    clock: WallClock,
    metrics: Metrics,
    retention: Arc<Retention>,
    /// The token estimate of [`Fleet::estimate`].
    estimator: Arc<dyn TokenEstimator>,
}

/// A fleet for one process with [`FleetConfig::default()`]: `Fleet::in_process(FleetConfig::default())`.
impl Default for Fleet {
    fn default() -> Self {
        Fleet::in_process(FleetConfig::default())
    }
}

impl Fleet {
    /// A fleet for one process.
    pub fn in_process(cfg: FleetConfig) -> Self {
        let retention = Self::retention(&cfg);
        let local = Arc::new(InProcess::with_retention(Arc::clone(&retention)));
        Self::build(cfg, local.clone(), local, retention)
    }

    /// A fleet whose state lives in `backend`.
    pub fn with_backend(cfg: FleetConfig, backend: Arc<dyn FleetBackend>) -> Self {
        let retention = Self::retention(&cfg);
        let local = Arc::new(InProcess::with_retention(Arc::clone(&retention)));
        Self::build(cfg, backend, local, retention)
    }

    fn retention(cfg: &FleetConfig) -> Arc<Retention> {
        Arc::new(Retention::new(
            cfg.key_idle_ttl_s,
            cfg.max_keys,
            Arc::new(system_clock),
        ))
    }

    fn build(
        cfg: FleetConfig,
        backend: Arc<dyn FleetBackend>,
        local: Arc<InProcess>,
        retention: Arc<Retention>,
    ) -> Self {
        Fleet {
            cfg,
            backend,
            local,
            degraded: AtomicBool::new(false),
            clock: Arc::new(system_clock),
            metrics: Metrics::with_retention(Arc::clone(&retention)),
            retention,
            estimator: Arc::new(BytesOverFour),
        }
    }

    /// The backend the configuration names: Redis when `redis_url` is set, else in-process.
    pub fn from_config(cfg: FleetConfig) -> Result<Self> {
        match cfg.redis_url.clone() {
            None => Ok(Self::in_process(cfg)),
            #[cfg(feature = "redis")]
            Some(url) => {
                let timeout = std::time::Duration::from_secs_f64(cfg.redis_timeout_s);
                let backend = redis::RedisBackend::new(&url, &cfg.namespace, timeout)?;
                Ok(Self::with_backend(cfg, Arc::new(backend)))
            }
            #[cfg(not(feature = "redis"))]
            Some(_) => Err(Error::invalid_policy(
                "redis_url needs retry-core built with the `redis` feature",
            )),
        }
    }

    /// A fleet on Redis for tokio programs: `cfg.redis_url` is required, and every call works on
    /// a local mirror that a background task syncs with Redis (see [`redis_async`]), so no call
    /// ever waits on Redis. Must be called inside a tokio runtime; dropping the fleet stops the
    /// task. Processes using [`Fleet::from_config`]'s blocking backend share the same keys.
    #[cfg(feature = "redis-tokio")]
    pub fn redis_async(cfg: FleetConfig) -> Result<Self> {
        Self::redis_async_with(cfg, redis_async::RedisAsyncOptions::default())
    }

    /// [`Fleet::redis_async`] with the sync options (interval, reconnection delay).
    #[cfg(feature = "redis-tokio")]
    pub fn redis_async_with(
        cfg: FleetConfig,
        options: redis_async::RedisAsyncOptions,
    ) -> Result<Self> {
        let Some(url) = cfg.redis_url.clone() else {
            return Err(Error::invalid_policy(
                "the async Redis fleet needs redis_url",
            ));
        };
        let timeout = std::time::Duration::try_from_secs_f64(cfg.redis_timeout_s)
            .map_err(|_| Error::invalid_policy("redis_timeout_s must be finite and >= 0"))?;
        let backend = redis_async::RedisAsyncBackend::with_retention(
            &url,
            &cfg.namespace,
            timeout,
            options,
            std::time::Duration::try_from_secs_f64(cfg.key_idle_ttl_s)
                .unwrap_or(std::time::Duration::from_secs(600)),
            cfg.max_keys,
        )?;
        Ok(Self::with_backend(cfg, Arc::new(backend)))
    }

    /// Replaces the wall clock (tests, simulations on virtual time).
    pub fn with_clock(mut self, clock: WallClock) -> Self {
        self.retention.set_clock(Arc::clone(&clock));
        self.clock = clock;
        self
    }

    /// How many keys' state this process holds (in process, or as the fallback of a remote
    /// backend): bounded by `max_keys`, and keys idle past `key_idle_ttl_s` are forgotten.
    pub fn key_count(&self) -> usize {
        self.backend.key_count().unwrap_or_else(|| self.local.len())
    }

    /// The fleet's configuration.
    pub fn config(&self) -> &FleetConfig {
        &self.cfg
    }

    /// The current wall-clock time in seconds since the Unix epoch (or the clock set with
    /// [`Fleet::with_clock`]).
    pub fn now(&self) -> f64 {
        (self.clock)()
    }

    /// The retry cost counters of every key.
    pub fn metrics(&self) -> &Metrics {
        &self.metrics
    }

    /// The backend's name (`in_process`, `redis`).
    pub fn backend_name(&self) -> &'static str {
        self.backend.name()
    }

    /// Whether the state is shared beyond this process (Redis).
    pub fn is_remote(&self) -> bool {
        self.backend.is_remote()
    }

    /// Runs `op` on the shared backend; if it is unreachable, on local state instead, with one
    /// `fleet_backend_degraded` event (and `fleet_backend_recovered` when it answers again).
    /// A key whose stored value is unusable falls back alone, with an event naming it.
    fn run<T>(
        &self,
        key: &str,
        events: &mut Vec<Event>,
        op: impl FnMut(&dyn FleetBackend) -> std::result::Result<T, BackendError>,
    ) -> T {
        self.run_on(self.backend.as_ref(), key, events, op)
    }

    /// [`Fleet::run`] on `gate`: the backend, or a key's in-process state ([`Fleet::gate`]).
    fn run_on<T>(
        &self,
        gate: &dyn FleetBackend,
        key: &str,
        events: &mut Vec<Event>,
        mut op: impl FnMut(&dyn FleetBackend) -> std::result::Result<T, BackendError>,
    ) -> T {
        match op(gate) {
            Ok(v) => {
                // Read before it is written: the success path pays a load, not a locked swap.
                if self.degraded.load(Ordering::Relaxed)
                    && self.degraded.swap(false, Ordering::Relaxed)
                {
                    events.push(
                        Event::new(EventKind::FleetBackendRecovered)
                            .with("backend", self.backend.name()),
                    );
                }
                v
            }
            Err(e) if e.bad_data => {
                events.push(
                    Event::new(EventKind::FleetBackendDegraded)
                        .with("backend", self.backend.name())
                        .with("key", key)
                        .with("error", crate::scrub::scrub(&e.message).into_owned())
                        .with("fallback", "in_process"),
                );
                op(self.local.as_ref()).expect("the in-process backend cannot fail")
            }
            Err(e) => {
                if !self.degraded.swap(true, Ordering::Relaxed) {
                    events.push(
                        Event::new(EventKind::FleetBackendDegraded)
                            .with("backend", self.backend.name())
                            .with("error", crate::scrub::scrub(&e.message).into_owned())
                            .with("fallback", "in_process"),
                    );
                }
                op(self.local.as_ref()).expect("the in-process backend cannot fail")
            }
        }
    }

    /// May a caller of `key` call now? Pauses first, then the breaker. Whatever a shared store
    /// holds, a pause never lasts past `max_pause_s` from now, and one stored further ahead than
    /// that plus [`PAUSE_SKEW_S`] (a peer's clock an hour ahead, `inf`, NaN) is bad data for the
    /// key (it falls back to local state, with an event); an open circuit never lasts past the
    /// longest open period (`max_open_s`, or `open_s` if that is longer).
    pub fn admit(&self, key: &str) -> (Admit, Vec<Event>) {
        let mut events = Vec::new();
        let now = self.now();
        if self.cfg.shared_pause {
            let limit = now + self.cfg.max_pause_s + PAUSE_SKEW_S;
            let until = self.run(key, &mut events, |b| {
                let until = b.pause_until(key)?;
                // No peer of this fleet writes a pause past max_pause_s from its now: a value
                // further ahead (a clock an hour off, inf, NaN, anyone's write) is bad data for
                // the key, not a wait for every call.
                if until.is_nan() || until > limit {
                    return Err(BackendError::bad_data(format!(
                        "the pause of {key} is {until}, past max_pause_s from now"
                    )));
                }
                Ok(until)
            });
            if until > now {
                return (Admit::Paused(until.min(now + self.cfg.max_pause_s)), events);
            }
        }
        let Some(bcfg) = &self.cfg.breaker else {
            return (Admit::Go, events);
        };
        let mut admit = Admit::Go;
        self.run(key, &mut events, |b| {
            b.with_breaker(key, &mut |s| admit = s.admit(bcfg, now))
        });
        if let Admit::WaitUntil(until) = admit {
            // Never under the look-again floor: a circuit configured to open for 0 s must not spin.
            let limit = now
                + bcfg
                    .open_s
                    .max(bcfg.max_open_s)
                    .max(breaker::HALF_OPEN_RECHECK_MIN_S);
            admit = Admit::WaitUntil(if until.is_nan() {
                limit
            } else {
                until.min(limit)
            });
        }
        (admit, events)
    }

    /// Whether a call of `key` may go at once with nothing to report (no pause, a closed
    /// circuit), read without changing anything: the bindings' success path asks this instead of
    /// building a whole run. A remote or degraded backend answers `false`: such calls take the
    /// full gate. With admission on, `false` too: every call takes its slot through a run.
    pub fn admits_freely(&self, key: &str) -> bool {
        !self.cfg.admission.is_on()
            && !self.backend.is_remote()
            && !self.degraded.load(Ordering::Relaxed)
            && self.free_on(self.backend.as_ref(), key)
    }

    fn free_on(&self, b: &dyn FleetBackend, key: &str) -> bool {
        // Most keys were never paused (0): the clock, a third of this check, is read only for
        // those that were.
        if self.cfg.shared_pause
            && b.pause_until(key)
                .map_or(true, |u| u > 0.0 && u > self.now())
        {
            return false;
        }
        if self.cfg.breaker.is_none() {
            return true;
        }
        let mut closed = false;
        let read = b.with_breaker(key, &mut |s| closed = s.phase == breaker::Phase::Closed);
        read.is_ok() && closed
    }

    /// A call of `key` succeeded: counted in the metrics, and the budget and breaker told
    /// (`retried`: after at least one retry).
    pub fn succeeded(&self, key: &str, retried: bool) -> Vec<Event> {
        self.succeeded_on(None, key, retried)
    }

    /// [`Fleet::succeeded`] on `state`, `key`'s in-process state when the caller already holds
    /// it (an admission slot's).
    fn succeeded_on(&self, state: Option<&KeyState>, key: &str, retried: bool) -> Vec<Event> {
        self.metrics.update(key, "success", |c| {
            c.calls += 1;
            c.successes += 1;
        });
        self.record_success_on(state, key, retried)
    }

    /// Where `key`'s breaker, budget and pause live: `state`, its in-process state already
    /// looked up, when the fleet's backend is in process (no second lookup of the key); else
    /// the backend.
    fn gate<'a>(&'a self, state: Option<&'a KeyState>) -> &'a dyn FleetBackend {
        match state {
            Some(s) if self.backend_is_local() => s,
            _ => self.backend.as_ref(),
        }
    }

    /// Whether the fleet's backend is its in-process state itself ([`Fleet::in_process`]).
    fn backend_is_local(&self) -> bool {
        std::ptr::eq(
            Arc::as_ptr(&self.backend) as *const u8,
            Arc::as_ptr(&self.local) as *const u8,
        )
    }

    /// The half-open probe of `key` ended without news of the provider's health (cancelled,
    /// panicked): the next caller may probe at once.
    pub fn release_probe(&self, key: &str) -> Vec<Event> {
        let mut events = Vec::new();
        if self.cfg.breaker.is_some() {
            self.run(key, &mut events, |b| {
                b.with_breaker(key, &mut |s| s.release_probe())
            });
        }
        events
    }

    /// A call of `key` succeeded (`retried`: after at least one retry).
    pub fn record_success(&self, key: &str, retried: bool) -> Vec<Event> {
        self.record_success_on(None, key, retried)
    }

    /// [`Fleet::record_success`] on `key`'s in-process `state` when given ([`Fleet::gate`]).
    fn record_success_on(&self, state: Option<&KeyState>, key: &str, retried: bool) -> Vec<Event> {
        let mut events = Vec::new();
        let gate = self.gate(state);
        if let Some(cfg) = &self.cfg.budget {
            self.run_on(gate, key, &mut events, &mut |b: &dyn FleetBackend| {
                b.earn(key, cfg.refund(retried), cfg)
            });
        }
        if let Some(bcfg) = &self.cfg.breaker {
            let now = self.now();
            let mut t = None;
            self.run_on(gate, key, &mut events, &mut |b: &dyn FleetBackend| {
                b.with_breaker(key, &mut |s| t = s.success(bcfg, now))
            });
            if let Some(t) = t {
                events.push(transition_event(key, &t));
            }
        }
        events
    }

    /// A call of `key` failed: feed the breaker, and pause everyone on a server-given wait.
    pub fn record_failure(&self, key: &str, c: &Classification) -> Vec<Event> {
        let mut events = Vec::new();
        let now = self.now();
        if let Some(bcfg) = &self.cfg.breaker {
            let mut t = None;
            let health = is_health_failure(c);
            self.run(key, &mut events, |b| {
                b.with_breaker(key, &mut |s| t = s.failure(bcfg, now, health))
            });
            if let Some(t) = t {
                events.push(transition_event(key, &t));
            }
        }
        if self.cfg.shared_pause
            && matches!(c.category, Category::RateLimited | Category::Overloaded)
            && c.retry_after_source
                .is_some_and(RetryAfterSource::is_instruction)
        {
            if let Some(ra) = c.retry_after.filter(|ra| *ra > 0.0) {
                let ra = ra.min(self.cfg.max_pause_s);
                self.run(key, &mut events, |b| b.extend_pause(key, now + ra));
                events.push(
                    Event::new(EventKind::RateLimitPause)
                        .with("key", key)
                        .with("seconds", ra)
                        .with("category", c.category.as_str()),
                );
            }
        }
        events
    }

    /// May this failure be retried, budget-wise? Spends the retry's cost if so.
    pub fn try_retry(&self, key: &str, c: &Classification) -> (bool, Vec<Event>) {
        let mut events = Vec::new();
        let Some(cfg) = &self.cfg.budget else {
            return (true, events);
        };
        let cost = cfg.cost(c.category);
        let ok = self.run(key, &mut events, |b| b.spend(key, cost, cfg));
        if !ok {
            let left = self.run(key, &mut events, |b| b.tokens(key, cfg));
            events.push(
                Event::new(EventKind::RetryBudgetExhausted)
                    .with("key", key)
                    .with("tokens", left)
                    .with("cost", cost)
                    .with("category", c.category.as_str()),
            );
        }
        (ok, events)
    }

    /// The tokens left for `key`.
    pub fn tokens(&self, key: &str) -> Option<f64> {
        let cfg = self.cfg.budget.as_ref()?;
        let mut ev = Vec::new();
        Some(self.run(key, &mut ev, |b| b.tokens(key, cfg)))
    }
}

impl std::fmt::Debug for Fleet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Fleet")
            .field("backend", &self.backend.name())
            .field("config", &self.cfg)
            .finish()
    }
}

fn transition_event(key: &str, t: &Transition) -> Event {
    match t {
        Transition::Opened {
            reason,
            failures,
            open_s,
        } => Event::new(EventKind::CircuitOpened)
            .with("key", key)
            .with("reason", *reason)
            .with("failures", *failures)
            .with("open_s", *open_s),
        Transition::Closed => Event::new(EventKind::CircuitClosed).with("key", key),
    }
}
