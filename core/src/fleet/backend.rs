//! Where fleet state lives. One trait, two backends: [`InProcess`] (threads and tasks of one
//! process) and, behind the `redis` feature, `RedisBackend` (processes on many machines).
//! The decisions (breaker transitions, budget arithmetic) are the pure functions of
//! [`super::breaker`] and [`super::budget`]; a backend only makes them atomic.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};

use super::admission::AdmissionState;
use super::breaker::{BreakerState, Phase};
use super::budget::{self, BudgetConfig};
use super::WallClock;

/// A backend could not serve an operation; the fleet falls back to local state for it.
#[derive(Debug, Clone, PartialEq)]
pub struct BackendError {
    /// What went wrong (scrubbed before it reaches an event).
    pub message: String,
    /// Whether only this key's data is at fault (a value of the wrong type or shape), not the
    /// backend as a whole.
    pub bad_data: bool,
}

impl BackendError {
    /// The backend is unreachable or timed out: every key falls back until it answers again.
    pub fn unavailable(message: impl Into<String>) -> Self {
        BackendError {
            message: message.into(),
            bad_data: false,
        }
    }

    /// One key's stored value is unusable: that key falls back, the others are not affected.
    pub fn bad_data(message: impl Into<String>) -> Self {
        BackendError {
            message: message.into(),
            bad_data: true,
        }
    }
}

impl std::fmt::Display for BackendError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

/// The result of a backend operation.
pub type BackendResult<T> = Result<T, BackendError>;

/// Storage for a fleet's per-key state: breaker, retry budget tokens and pauses. Each operation
/// is atomic per key.
pub trait FleetBackend: Send + Sync {
    /// A short name for the backend (`in_process`, `redis`), for events and diagnostics.
    fn name(&self) -> &'static str;
    /// Whether the state is shared beyond this process (the bindings, for instance, move the
    /// calls of a remote backend off the async runtime's workers).
    fn is_remote(&self) -> bool {
        false
    }
    /// How many keys' state the backend holds in this process, when it holds any (the async
    /// Redis backend's mirror); `None` otherwise.
    fn key_count(&self) -> Option<usize> {
        None
    }
    /// Applies `f` to `key`'s breaker atomically. `f` may run more than once (optimistic
    /// backends retry on a concurrent change); only the last run's state is stored.
    fn with_breaker(&self, key: &str, f: &mut dyn FnMut(&mut BreakerState)) -> BackendResult<()>;
    /// Spends `cost` tokens if there are enough; returns whether it did.
    fn spend(&self, key: &str, cost: f64, cfg: &BudgetConfig) -> BackendResult<bool>;
    /// Earns tokens back (never past capacity).
    fn earn(&self, key: &str, amount: f64, cfg: &BudgetConfig) -> BackendResult<()>;
    /// The tokens left (capacity when never touched).
    fn tokens(&self, key: &str, cfg: &BudgetConfig) -> BackendResult<f64>;
    /// Until when callers of `key` are paused (wall-clock seconds; 0 when not).
    fn pause_until(&self, key: &str) -> BackendResult<f64>;
    /// Pauses `key` until `until`, unless it already is for longer.
    fn extend_pause(&self, key: &str, until: f64) -> BackendResult<()>;
    /// Whether the backend holds admission state ([`FleetBackend::with_admission`]); the fleet
    /// keeps it in process for one that does not. Default: `false`.
    fn shares_admission(&self) -> bool {
        false
    }
    /// Applies `f` to `key`'s admission state atomically (like [`FleetBackend::with_breaker`],
    /// `f` may run more than once). Default: unavailable (see
    /// [`FleetBackend::shares_admission`]).
    fn with_admission(
        &self,
        key: &str,
        f: &mut dyn FnMut(&mut AdmissionState),
    ) -> BackendResult<()> {
        let _ = (key, f);
        Err(BackendError::unavailable(
            "this backend keeps no admission state",
        ))
    }
}

/// One key's state in process. It is also a [`FleetBackend`] for that key alone (the `key`
/// arguments are ignored): the fleet's success path looks the key up once and works on it.
#[derive(Default)]
pub struct KeyState {
    breaker: Mutex<BreakerState>,
    tokens: Mutex<Option<f64>>,
    pause_until: Mutex<f64>,
    /// Admission state, created when admission first sees the key.
    admission: Mutex<Option<Box<AdmissionState>>>,
    /// Used since the last sweep (a relaxed flag: the success path pays one load).
    touched: AtomicBool,
    /// When a sweep (or the insertion) last saw it used, as `f64` bits (wall-clock seconds).
    last_seen: AtomicU64,
    /// Its rank in the order keys were first seen (the cap's tie-break: newer kept).
    born: u64,
}

impl KeyState {
    fn touch(&self) {
        if !self.touched.load(Ordering::Relaxed) {
            self.touched.store(true, Ordering::Relaxed);
        }
    }

    /// Whether forgetting it now would lose something a caller must heed: a pause not over, a
    /// circuit open (or a probe out) until a time not yet come.
    fn is_live(&self, now: f64) -> bool {
        if *lock(&self.pause_until) > now {
            return true;
        }
        if lock(&self.admission)
            .as_ref()
            .is_some_and(|a| a.is_live(now))
        {
            return true;
        }
        let b = lock(&self.breaker);
        b.phase != Phase::Closed && b.until > now
    }
}

/// How long per-key state is kept, shared by the in-process state and the metrics.
///
/// A sweep runs when a key is first seen and the last sweep is a quarter of `idle_ttl_s` old
/// (or its shard is over its share of `max_keys`). A key used since the previous sweep is
/// stamped "seen now"; one not used since, and last seen `idle_ttl_s` ago or more, is forgotten
/// unless it is live (a pause not over, a circuit open or a probe out). So an idle key goes
/// after between 1 and 1.5 x `idle_ttl_s`, and a key count only grows while keys are new.
///
/// Over the cap, the least recently seen keys go first, keys that are not live before live
/// ones: when more than `max_keys` keys are live at once, the cap wins, and a forgotten key's
/// next call starts afresh (no pause, a closed circuit, a full budget).
pub struct Retention {
    /// Seconds a key may stay unused before it is forgotten.
    pub idle_ttl_s: f64,
    /// The most keys held (rounded up to a multiple of the shard count).
    pub max_keys: usize,
    clock: RwLock<WallClock>,
    /// When the next time-driven sweep is due (`f64` bits).
    next_sweep: AtomicU64,
    sweeping: AtomicBool,
    /// The same for the metrics.
    next_sweep_metrics: AtomicU64,
    sweeping_metrics: AtomicBool,
}

impl Retention {
    /// Keys idle for `idle_ttl_s` are forgotten, at most `max_keys` are held; `clock` tells the
    /// wall-clock time (the fleet's).
    pub fn new(idle_ttl_s: f64, max_keys: usize, clock: WallClock) -> Self {
        Retention {
            idle_ttl_s,
            max_keys: max_keys.max(1),
            clock: RwLock::new(clock),
            next_sweep: AtomicU64::new(0f64.to_bits()),
            sweeping: AtomicBool::new(false),
            next_sweep_metrics: AtomicU64::new(0f64.to_bits()),
            sweeping_metrics: AtomicBool::new(false),
        }
    }

    /// Replaces the clock (the fleet's `with_clock`).
    pub fn set_clock(&self, clock: WallClock) {
        *self.clock.write().unwrap_or_else(|e| e.into_inner()) = clock;
    }

    /// The wall-clock time.
    pub fn now(&self) -> f64 {
        (self.clock.read().unwrap_or_else(|e| e.into_inner()))()
    }

    /// Each shard's share of the cap.
    pub(crate) fn per_shard(&self, shards: usize) -> usize {
        self.max_keys.div_ceil(shards).max(1)
    }

    /// Whether a time-driven sweep is due at `now`; if so, claims it (one sweeper at a time).
    pub(crate) fn claim_sweep(&self, now: f64) -> bool {
        self.claim(&self.next_sweep, &self.sweeping, now)
    }

    pub(crate) fn end_sweep(&self) {
        self.sweeping.store(false, Ordering::Release);
    }

    pub(crate) fn claim_sweep_metrics(&self, now: f64) -> bool {
        self.claim(&self.next_sweep_metrics, &self.sweeping_metrics, now)
    }

    pub(crate) fn end_sweep_metrics(&self) {
        self.sweeping_metrics.store(false, Ordering::Release);
    }

    fn claim(&self, next: &AtomicU64, busy: &AtomicBool, now: f64) -> bool {
        if now < f64::from_bits(next.load(Ordering::Relaxed)) {
            return false;
        }
        if busy.swap(true, Ordering::Acquire) {
            return false;
        }
        next.store((now + self.idle_ttl_s / 4.0).to_bits(), Ordering::Relaxed);
        true
    }
}

impl Default for Retention {
    fn default() -> Self {
        Retention::new(600.0, 100_000, Arc::new(super::system_clock))
    }
}

/// Shards of the in-process map: callers of different keys rarely share a lock, and a sweep
/// holds one shard at a time.
const SHARDS: usize = 16;

type Shard = RwLock<HashMap<String, Arc<KeyState>, foldhash::fast::RandomState>>;

/// Fleet state shared by the threads and tasks of one process. The map is split in shards, each
/// behind a read-write lock that is only written when a key is first seen or forgotten; each key
/// has its own small locks, so callers of different keys never contend and the success path
/// takes no global lock. Keys idle past the retention's TTL are forgotten, and at most
/// `max_keys` are held ([`Retention`]).
pub struct InProcess {
    shards: [Shard; SHARDS],
    pick: foldhash::fast::FixedState,
    retention: Arc<Retention>,
    born: AtomicU64,
}

impl Default for InProcess {
    fn default() -> Self {
        InProcess::with_retention(Arc::new(Retention::default()))
    }
}

impl InProcess {
    /// An empty in-process state, with the default retention (10 min idle, 100 K keys).
    pub fn new() -> Self {
        Self::default()
    }

    /// An empty in-process state that forgets keys as `retention` says.
    pub fn with_retention(retention: Arc<Retention>) -> Self {
        InProcess {
            shards: std::array::from_fn(|_| RwLock::default()),
            pick: foldhash::fast::FixedState::default(),
            retention,
            born: AtomicU64::new(0),
        }
    }

    fn shard(&self, key: &str) -> &Shard {
        &self.shards[(self.pick.hash_one(key) as usize) % SHARDS]
    }

    /// The state of `key`, created when first seen.
    pub fn key(&self, key: &str) -> Arc<KeyState> {
        let shard = self.shard(key);
        if let Some(k) = shard.read().unwrap_or_else(|e| e.into_inner()).get(key) {
            k.touch();
            return Arc::clone(k);
        }
        let now = self.retention.now();
        let (state, over) = {
            let mut w = shard.write().unwrap_or_else(|e| e.into_inner());
            let state = Arc::clone(w.entry(key.to_owned()).or_insert_with(|| {
                Arc::new(KeyState {
                    last_seen: AtomicU64::new(now.to_bits()),
                    born: self.born.fetch_add(1, Ordering::Relaxed),
                    touched: AtomicBool::new(true),
                    ..KeyState::default()
                })
            }));
            (state, w.len() > self.retention.per_shard(SHARDS))
        };
        if over {
            self.sweep_shard(shard, now, true);
        }
        if self.retention.claim_sweep(now) {
            for s in &self.shards {
                self.sweep_shard(s, now, false);
            }
            self.retention.end_sweep();
        }
        state
    }

    /// How many keys are held.
    pub fn len(&self) -> usize {
        self.shards
            .iter()
            .map(|s| s.read().unwrap_or_else(|e| e.into_inner()).len())
            .sum()
    }

    /// Whether no key is held.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Forgets the idle keys of one shard and, when it is over its share of the cap (or
    /// `for_cap`), the least recently seen beyond 90 % of that share.
    fn sweep_shard(&self, shard: &Shard, now: f64, for_cap: bool) {
        let ttl = self.retention.idle_ttl_s;
        let cap = self.retention.per_shard(SHARDS);
        let mut w = shard.write().unwrap_or_else(|e| e.into_inner());
        if !for_cap {
            w.retain(|_, k| {
                if k.touched.swap(false, Ordering::Relaxed) {
                    k.last_seen.store(now.to_bits(), Ordering::Relaxed);
                    return true;
                }
                let seen = f64::from_bits(k.last_seen.load(Ordering::Relaxed));
                now - seen < ttl || k.is_live(now)
            });
        }
        if w.len() > cap {
            let keep = cap - cap / 10;
            let mut order: Vec<(bool, bool, f64, u64, String)> = w
                .iter()
                .map(|(name, k)| {
                    (
                        k.is_live(now),
                        k.touched.load(Ordering::Relaxed),
                        f64::from_bits(k.last_seen.load(Ordering::Relaxed)),
                        k.born,
                        name.clone(),
                    )
                })
                .collect();
            // The first to go: not live, not used since the last sweep, seen longest ago, first
            // seen earliest.
            order.sort_by(|a, b| {
                (a.0, a.1)
                    .cmp(&(b.0, b.1))
                    .then(a.2.total_cmp(&b.2))
                    .then(a.3.cmp(&b.3))
            });
            for (.., name) in order.into_iter().take(w.len() - keep) {
                w.remove(&name);
            }
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // State updates are single assignments: a panic elsewhere cannot leave them half-done.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl FleetBackend for KeyState {
    fn name(&self) -> &'static str {
        "in_process"
    }
    fn shares_admission(&self) -> bool {
        true
    }
    fn with_admission(&self, _: &str, f: &mut dyn FnMut(&mut AdmissionState)) -> BackendResult<()> {
        f(lock(&self.admission).get_or_insert_with(Box::default));
        Ok(())
    }
    fn with_breaker(&self, _: &str, f: &mut dyn FnMut(&mut BreakerState)) -> BackendResult<()> {
        f(&mut lock(&self.breaker));
        Ok(())
    }
    fn spend(&self, _: &str, cost: f64, cfg: &BudgetConfig) -> BackendResult<bool> {
        let mut t = lock(&self.tokens);
        let (ok, left) = budget::spend(*t, cost, cfg);
        *t = Some(left);
        Ok(ok)
    }
    fn earn(&self, _: &str, amount: f64, cfg: &BudgetConfig) -> BackendResult<()> {
        let mut t = lock(&self.tokens);
        *t = Some(budget::earn(*t, amount, cfg));
        Ok(())
    }
    fn tokens(&self, _: &str, cfg: &BudgetConfig) -> BackendResult<f64> {
        Ok(lock(&self.tokens).unwrap_or(cfg.capacity))
    }
    fn pause_until(&self, _: &str) -> BackendResult<f64> {
        Ok(*lock(&self.pause_until))
    }
    fn extend_pause(&self, _: &str, until: f64) -> BackendResult<()> {
        let mut p = lock(&self.pause_until);
        *p = p.max(until);
        Ok(())
    }
}

impl FleetBackend for InProcess {
    fn name(&self) -> &'static str {
        "in_process"
    }
    fn shares_admission(&self) -> bool {
        true
    }
    fn with_admission(
        &self,
        key: &str,
        f: &mut dyn FnMut(&mut AdmissionState),
    ) -> BackendResult<()> {
        self.key(key).with_admission(key, f)
    }
    fn with_breaker(&self, key: &str, f: &mut dyn FnMut(&mut BreakerState)) -> BackendResult<()> {
        self.key(key).with_breaker(key, f)
    }
    fn spend(&self, key: &str, cost: f64, cfg: &BudgetConfig) -> BackendResult<bool> {
        self.key(key).spend(key, cost, cfg)
    }
    fn earn(&self, key: &str, amount: f64, cfg: &BudgetConfig) -> BackendResult<()> {
        self.key(key).earn(key, amount, cfg)
    }
    fn tokens(&self, key: &str, cfg: &BudgetConfig) -> BackendResult<f64> {
        self.key(key).tokens(key, cfg)
    }
    fn pause_until(&self, key: &str) -> BackendResult<f64> {
        self.key(key).pause_until(key)
    }
    fn extend_pause(&self, key: &str, until: f64) -> BackendResult<()> {
        self.key(key).extend_pause(key, until)
    }
}
