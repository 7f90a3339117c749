//! The Redis backend for tokio: the same shared budget, breaker and pause per key as
//! [`super::redis::RedisBackend`], on the same keys, but no [`FleetBackend`] call ever does I/O.
//!
//! # Design
//! Each [`Fleet`](super::Fleet) call runs on a *mirror* of the shared state kept in memory (one
//! short mutex per key, as [`super::InProcess`]), with the pure transitions of
//! [`super::breaker`] and [`super::budget`]. A background tokio task owns the only Redis
//! connection (our own RESP reader, `fleet::resp`: every operation and the handshake have the
//! fleet's `redis_timeout_s` for all their reads, and every reply is bounded) and, once per sync
//! interval (50 ms by default) or at once after a change that matters to the others (a pause, a
//! breaker changing phase, a key seen for the first time):
//! - **pushes** the keys this process changed since their last push (and only those): a pause
//!   through the blocking backend's `EXTEND_PAUSE` script, the net budget spend/earn through a
//!   clamped `ADJUST` script, the breaker through the blocking backend's compare-and-set of its
//!   JSON state, merged three ways (see below);
//! - **pulls** the pause, tokens and breaker of the keys this process used in the last 5 s
//!   (one script per 128 keys), pushing again between chunks, so a change made during
//!   a long pull (a 429's pause with 100 K keys in use) waits for one chunk, not the whole pull.
//!
//! A key idle for longer than that costs Redis nothing; its first call afterwards decides on
//! the mirror as last pulled, and its shared state arrives one round trip later (as for a key
//! never used). The mirror forgets keys unused for the fleet's `key_idle_ttl_s` that hold
//! nothing (no change to push, no pause or open circuit in force), and holds at most `max_keys`.
//!
//! The keys, their encoding and the compare-and-set are those of the blocking backend, so
//! processes using either backend share one namespace.
//!
//! # What is eventually consistent, and by how much
//! A process sees another's change once the other has pushed it and it has pulled it: a pause or
//! a breaker phase change is pushed at once, so it shows after at most one sync interval plus
//! two round trips (`sync_interval + ~2 RTT`; 50 ms + well under 1 ms on a LAN). Budget spends
//! and breaker counters are batched per interval (`2 x sync_interval` at worst). Within that
//! window, two processes may both spend the last tokens, both count failures that together pass
//! a threshold (the circuit then opens at the next failure anywhere) or both send a half-open
//! probe: at most one per process per window. The first call of a key a process has never used
//! decides on defaults (the key's shared state arrives one round trip later).
//!
//! Concurrent breaker changes merge three ways (base = the state this process last saw, local =
//! its changes, remote = what Redis holds now): a side that did not change yields to the other;
//! when both changed phase, the more cautious phase wins (open, then half-open, then closed,
//! with the later `until`); window counters add up, and a local success resets the consecutive
//! count.
//!
//! # When Redis is down or black-holed
//! The task notices within one sync interval plus `redis_timeout_s`. From then on every call
//! answers "unavailable" at once, so the fleet decides on its local state with one
//! `fleet_backend_degraded` event, exactly as with the blocking backend; the task reconnects
//! after `reconnect_after` (2 s by default) and, after a full sync, calls use the shared state
//! again (`fleet_backend_recovered`). Changes made before the outage are pushed then (a budget
//! change whose push timed out may so count twice: the cautious side). A value of the wrong
//! type or shape in one key degrades that key only.
//!
//! The task runs on the tokio runtime the backend is created in (creating it elsewhere is an
//! error) and stops when the backend is dropped (with its `Fleet`). If the runtime shuts down
//! first, calls answer "unavailable" (local state) from then on. No `fork()` concerns: this
//! backend is for tokio programs; the Python and Ruby bindings use the blocking one.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex, RwLock};
use std::time::Duration;

use tokio::sync::Notify;

use super::admission::AdmissionState;
use super::backend::{BackendError, BackendResult, FleetBackend};
use super::breaker::{BreakerState, Phase};
use super::budget::{self, BudgetConfig};
use super::resp::aio::AsyncConn;
use super::resp::{is_data_error, CmdError, Limits, Reply, Script};
use crate::error::{Error, Result};

/// Adds ARGV[1] (positive or negative) to the tokens, within [0, capacity]: KEYS[1] tokens;
/// ARGV delta, capacity, ttl. A stored value that is not a number in [0, capacity] is healed to
/// a full bucket first, as the blocking backend's scripts do. Returns the new value.
const ADJUST: &str = r#"
local cap = tonumber(ARGV[2])
local t = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
if t == nil or t ~= t or t > cap or t == -math.huge then t = cap end
if t < 0 then t = 0 end
t = t + tonumber(ARGV[1])
if t > cap then t = cap end
if t < 0 then t = 0 end
redis.call('SET', KEYS[1], tostring(t), 'EX', ARGV[3])
return tostring(t)
"#;

// The pause and compare-and-set scripts are the blocking backend's, so both share one namespace.
use super::redis::{CAS, EXTEND_PAUSE};

/// Reads many keys in one round trip, one bad key not failing the others: 'v' .. value, 'n'
/// (absent) or 'e' (an error such as a value of the wrong type, or a value longer than
/// [`PULL_MAX_VALUE`] bytes, which no fleet writes) per key. So the reply stays bounded.
const PULL: &str = r#"
local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.pcall('GET', k)
  if type(v) == 'table' and v.err then out[i] = 'e'
  elseif v and #v > 4096 then out[i] = 'e'
  elseif v then out[i] = 'v' .. v
  else out[i] = 'n' end
end
return out
"#;

/// The longest value a pull returns (the `4096` of [`PULL`]) plus its marker byte.
const PULL_MAX_VALUE: usize = 4096 + 1;

/// Keys live a day after their last update, as with the blocking backend.
const TTL_S: u64 = 86_400;
/// Keys per pull script call (four Redis keys per fleet key).
const PULL_CHUNK: usize = 128;
/// Redis keys per fleet key: pause, tokens, breaker, admission.
const PER_KEY: usize = 4;

/// How the background task syncs.
///
/// # Default
/// Sync every 50 ms; after a failure, reconnect 2 s later (as the blocking backend).
#[derive(Debug, Clone, PartialEq)]
pub struct RedisAsyncOptions {
    /// How often the task pushes batched changes and pulls the shared state. It bounds how stale
    /// the mirror is (see the [module documentation](self)). Default: 50 ms.
    pub sync_interval: Duration,
    /// After Redis failed or timed out, how long calls use local state before the task tries
    /// to connect again. Default: 2 s.
    pub reconnect_after: Duration,
}

impl Default for RedisAsyncOptions {
    fn default() -> Self {
        RedisAsyncOptions {
            sync_interval: Duration::from_millis(50),
            reconnect_after: Duration::from_secs(2),
        }
    }
}

/// One key's mirror: the shared state as last seen, plus this process's changes not yet pushed.
#[derive(Default)]
struct Mirror {
    /// Pause until (max of the shared value and local extensions).
    pause: f64,
    /// A local extension not yet pushed.
    pause_push: Option<f64>,
    /// The shared pause value is unusable.
    pause_bad: Option<String>,
    /// The shared tokens as last seen (`None`: absent, i.e. full).
    tokens_remote: Option<f64>,
    /// Local spends (negative) and earns not yet pushed.
    tokens_pending: f64,
    /// Being pushed right now.
    tokens_inflight: f64,
    /// The capacity of the last budget call (for the push's clamp).
    capacity: f64,
    /// The shared tokens key is unusable.
    tokens_bad: Option<String>,
    /// The breaker as last seen in Redis.
    base: BreakerState,
    /// The breaker as this process sees it: `base` plus local changes.
    breaker: BreakerState,
    /// Local breaker changes since the last push.
    breaker_dirty: bool,
    /// The shared breaker value is unusable.
    breaker_bad: Option<String>,
    /// The admission state as last seen in Redis.
    adm_base: AdmissionState,
    /// The admission state as this process sees it: the shared one plus its own schedule.
    adm: AdmissionState,
    /// Local admission changes since the last push.
    adm_dirty: bool,
    /// The shared admission value is unusable.
    adm_bad: Option<String>,
}

impl Mirror {
    fn tokens_view(&self, capacity: f64) -> f64 {
        let remote = self
            .tokens_remote
            .filter(|t| t.is_finite())
            .map_or(capacity, |t| t.clamp(0.0, capacity));
        (remote + self.tokens_inflight + self.tokens_pending).clamp(0.0, capacity)
    }
}

/// One key's mirror and its place in the task's queues.
struct Entry {
    name: Box<str>,
    m: Mutex<Mirror>,
    /// Queued for the next pull (used since the last sync).
    used: AtomicBool,
    /// Queued for the next push (changed since the last push).
    dirty: AtomicBool,
    /// When the task last saw it used (ms since [`Shared::epoch`]).
    last_used: AtomicU64,
}

impl Entry {
    /// Whether forgetting it would lose something: changes not pushed yet, a pause not over, a
    /// circuit open (or a probe out) until a time not yet come.
    fn holds_state(&self, wall: f64) -> bool {
        let m = lock(&self.m);
        m.pause_push.is_some()
            || m.tokens_pending != 0.0
            || m.tokens_inflight != 0.0
            || m.breaker_dirty
            || m.adm_dirty
            || m.adm.is_live(wall)
            || m.pause > wall
            || (m.breaker.phase != Phase::Closed && m.breaker.until > wall)
    }
}

type Queue = Mutex<Vec<Arc<Entry>>>;

/// What the calls and the task share.
struct Shared {
    keys: RwLock<HashMap<String, Arc<Entry>>>,
    /// Keys used since the last sync: pulled at the next one (and for [`HOT`] after).
    used: Queue,
    /// Keys changed since their last push: pushed at the next sync, before any pull.
    dirty: Queue,
    epoch: std::time::Instant,
    /// Keys unused this long are forgotten (unless they hold state); at most `max_keys` kept.
    idle_ttl: Duration,
    max_keys: usize,
    /// Whether the last sync (or connection attempt) succeeded; optimistic until the first.
    up: AtomicBool,
    /// Set when the task ends (dropped backend, runtime shut down).
    stopped: AtomicBool,
    /// Why Redis is unavailable.
    last_error: Mutex<String>,
    /// Completed syncs.
    syncs: AtomicU64,
    /// Wakes the task before its interval ends.
    wake: Notify,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Mirror updates are plain assignments: a panic elsewhere cannot leave them half-done.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Shared {
    fn now_ms(&self) -> u64 {
        self.epoch.elapsed().as_millis() as u64
    }

    /// The mirror of `key` (created, and its shared state fetched at once, on first use),
    /// queued for the next pull.
    fn key(&self, key: &str) -> Arc<Entry> {
        let found = self
            .keys
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(key)
            .map(Arc::clone);
        let e = match found {
            Some(e) => e,
            None => {
                let mut w = self.keys.write().unwrap_or_else(|e| e.into_inner());
                let e = Arc::clone(w.entry(key.to_owned()).or_insert_with(|| {
                    Arc::new(Entry {
                        name: key.into(),
                        m: Mutex::default(),
                        used: AtomicBool::new(false),
                        dirty: AtomicBool::new(false),
                        last_used: AtomicU64::new(self.now_ms()),
                    })
                }));
                drop(w);
                // Fetch its shared state now rather than at the next interval.
                self.wake.notify_one();
                e
            }
        };
        if !e.used.swap(true, Ordering::AcqRel) {
            lock(&self.used).push(Arc::clone(&e));
        }
        e
    }

    /// `e` changed: queued for the next push; `urgent` (a pause, a phase change) wakes the task.
    fn changed(&self, e: &Arc<Entry>, urgent: bool) {
        if !e.dirty.swap(true, Ordering::AcqRel) {
            lock(&self.dirty).push(Arc::clone(e));
        }
        if urgent {
            self.wake.notify_one();
        }
    }

    fn available(&self) -> BackendResult<()> {
        if self.stopped.load(Ordering::Acquire) {
            return Err(BackendError::unavailable(
                "redis_async: the sync task has stopped (its tokio runtime shut down)",
            ));
        }
        if !self.up.load(Ordering::Acquire) {
            return Err(BackendError::unavailable(lock(&self.last_error).clone()));
        }
        Ok(())
    }

    fn set_down(&self, message: String) {
        *lock(&self.last_error) = message;
        self.up.store(false, Ordering::Release);
    }
}

/// Marks the task stopped however it ends (returned, aborted, runtime shut down).
struct StopGuard(Arc<Shared>);

impl Drop for StopGuard {
    fn drop(&mut self) {
        self.0.stopped.store(true, Ordering::Release);
    }
}

/// A fleet backend for tokio programs: Redis shared state, no I/O in any call (see the
/// [module documentation](self)). Build it inside a tokio runtime; dropping it stops its task.
pub struct RedisAsyncBackend {
    shared: Arc<Shared>,
    task: tokio::task::JoinHandle<()>,
}

impl RedisAsyncBackend {
    /// A backend for `url` (`redis://127.0.0.1:6379/0`) under `namespace`, each Redis operation
    /// (the handshake included, every read of its reply) bounded by `timeout`. Does not wait
    /// for Redis: the task connects in the background, and a Redis down at start is the same as
    /// one that goes down later. Keys unused for 10 min are forgotten, 100 K at most are held
    /// ([`RedisAsyncBackend::with_retention`] sets both).
    ///
    /// Fails with [`crate::ErrorCode::InvalidState`] outside a tokio runtime, and with
    /// [`crate::ErrorCode::InvalidPolicy`] on an invalid URL or option.
    pub fn new(
        url: &str,
        namespace: &str,
        timeout: Duration,
        options: RedisAsyncOptions,
    ) -> Result<Self> {
        Self::with_retention(
            url,
            namespace,
            timeout,
            options,
            Duration::from_secs(600),
            100_000,
        )
    }

    /// [`RedisAsyncBackend::new`], the mirror forgetting keys unused for `idle_ttl` (between 1
    /// and 1.5 times it; never one with changes not pushed, a pause not over or an open
    /// circuit) and holding at most `max_keys` (the least recently used forgotten first, at
    /// each sync).
    pub fn with_retention(
        url: &str,
        namespace: &str,
        timeout: Duration,
        options: RedisAsyncOptions,
        idle_ttl: Duration,
        max_keys: usize,
    ) -> Result<Self> {
        let handle = tokio::runtime::Handle::try_current().map_err(|_| {
            Error::invalid_state(
                "the async Redis fleet backend must be created inside a tokio runtime \
                 (use the blocking Redis backend elsewhere)",
            )
        })?;
        let client = redis::Client::open(url)
            .map_err(|e| Error::invalid_policy(format!("invalid redis_url: {e}")))?;
        if timeout.is_zero() {
            return Err(Error::invalid_policy("redis_timeout_s must be above 0"));
        }
        if options.sync_interval.is_zero() {
            return Err(Error::invalid_policy("sync_interval must be above 0"));
        }
        let shared = Arc::new(Shared {
            keys: RwLock::default(),
            used: Mutex::default(),
            dirty: Mutex::default(),
            epoch: std::time::Instant::now(),
            idle_ttl,
            max_keys: max_keys.max(1),
            up: AtomicBool::new(true),
            stopped: AtomicBool::new(false),
            last_error: Mutex::new(String::new()),
            syncs: AtomicU64::new(0),
            wake: Notify::new(),
        });
        let worker = Worker {
            shared: Arc::clone(&shared),
            info: client.get_connection_info().clone(),
            namespace: namespace.to_owned(),
            timeout,
            options,
            adjust: Script::new(ADJUST),
            extend_pause: Script::new(EXTEND_PAUSE),
            cas: Script::new(CAS),
            pull: Script::new(PULL),
            broken: AtomicBool::new(false),
            hot: HashMap::new(),
            next_sweep: std::time::Instant::now(),
        };
        let task = handle.spawn(worker.run());
        Ok(RedisAsyncBackend { shared, task })
    }

    /// Whether the last sync with Redis succeeded (calls use the shared state).
    pub fn is_connected(&self) -> bool {
        self.shared.available().is_ok()
    }

    /// How many syncs (push then pull) have completed. A change made before this count moved
    /// twice has reached Redis, and Redis's state as of then is in the mirror.
    pub fn syncs(&self) -> u64 {
        self.shared.syncs.load(Ordering::Acquire)
    }

    /// Whether the background task is still running.
    pub fn is_running(&self) -> bool {
        !self.shared.stopped.load(Ordering::Acquire)
    }
}

impl Drop for RedisAsyncBackend {
    fn drop(&mut self) {
        self.task.abort();
    }
}

impl std::fmt::Debug for RedisAsyncBackend {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RedisAsyncBackend")
            .field("connected", &self.is_connected())
            .field("syncs", &self.syncs())
            .finish()
    }
}

fn bad(m: &Option<String>) -> BackendResult<()> {
    match m {
        Some(msg) => Err(BackendError::bad_data(msg.clone())),
        None => Ok(()),
    }
}

impl FleetBackend for RedisAsyncBackend {
    fn name(&self) -> &'static str {
        "redis_async"
    }

    /// The state is shared beyond this process, but no call blocks: there is no need to move
    /// calls off the runtime's workers.
    fn is_remote(&self) -> bool {
        true
    }

    fn key_count(&self) -> Option<usize> {
        Some(
            self.shared
                .keys
                .read()
                .unwrap_or_else(|e| e.into_inner())
                .len(),
        )
    }

    fn with_breaker(&self, key: &str, f: &mut dyn FnMut(&mut BreakerState)) -> BackendResult<()> {
        self.shared.available()?;
        let e = self.shared.key(key);
        let mut m = lock(&e.m);
        bad(&m.breaker_bad)?;
        let before = m.breaker.clone();
        f(&mut m.breaker);
        if m.breaker != before {
            m.breaker_dirty = true;
            let urgent = m.breaker.phase != before.phase;
            drop(m);
            self.shared.changed(&e, urgent);
        }
        Ok(())
    }

    fn shares_admission(&self) -> bool {
        true
    }

    /// On the mirror: this process's admissions stack on the shared schedule as last pulled,
    /// and are pushed (merged, compare-and-set) at the next sync. Between syncs, processes may
    /// give out overlapping slots: the sync interval bounds how far.
    fn with_admission(
        &self,
        key: &str,
        f: &mut dyn FnMut(&mut AdmissionState),
    ) -> BackendResult<()> {
        self.shared.available()?;
        let e = self.shared.key(key);
        let mut m = lock(&e.m);
        bad(&m.adm_bad)?;
        let before = m.adm.clone();
        f(&mut m.adm);
        if m.adm != before {
            m.adm_dirty = true;
            drop(m);
            self.shared.changed(&e, false);
        }
        Ok(())
    }

    fn spend(&self, key: &str, cost: f64, cfg: &BudgetConfig) -> BackendResult<bool> {
        self.shared.available()?;
        let e = self.shared.key(key);
        let mut m = lock(&e.m);
        bad(&m.tokens_bad)?;
        let view = m.tokens_view(cfg.capacity);
        let (ok, left) = budget::spend(Some(view), cost, cfg);
        m.tokens_pending += left - view;
        m.capacity = cfg.capacity;
        let changed = left != view;
        drop(m);
        if changed {
            self.shared.changed(&e, false);
        }
        Ok(ok)
    }

    fn earn(&self, key: &str, amount: f64, cfg: &BudgetConfig) -> BackendResult<()> {
        self.shared.available()?;
        let e = self.shared.key(key);
        let mut m = lock(&e.m);
        bad(&m.tokens_bad)?;
        let view = m.tokens_view(cfg.capacity);
        let delta = budget::earn(Some(view), amount, cfg) - view;
        m.tokens_pending += delta;
        m.capacity = cfg.capacity;
        drop(m);
        if delta != 0.0 {
            self.shared.changed(&e, false);
        }
        Ok(())
    }

    fn tokens(&self, key: &str, cfg: &BudgetConfig) -> BackendResult<f64> {
        self.shared.available()?;
        let e = self.shared.key(key);
        let m = lock(&e.m);
        bad(&m.tokens_bad)?;
        Ok(m.tokens_view(cfg.capacity))
    }

    fn pause_until(&self, key: &str) -> BackendResult<f64> {
        self.shared.available()?;
        let e = self.shared.key(key);
        let m = lock(&e.m);
        bad(&m.pause_bad)?;
        Ok(m.pause)
    }

    fn extend_pause(&self, key: &str, until: f64) -> BackendResult<()> {
        self.shared.available()?;
        let e = self.shared.key(key);
        let mut m = lock(&e.m);
        if until > m.pause || m.pause.is_nan() {
            m.pause = until;
        }
        m.pause_push = Some(m.pause_push.map_or(until, |p| p.max(until)));
        drop(m);
        self.shared.changed(&e, true);
        Ok(())
    }
}

/// Rank of caution: open over half-open over closed.
fn rank(p: Phase) -> u8 {
    match p {
        Phase::Closed => 0,
        Phase::HalfOpen => 1,
        Phase::Open => 2,
    }
}

fn same_phase(a: &BreakerState, b: &BreakerState) -> bool {
    a.phase == b.phase && a.until == b.until && a.probe_in_flight == b.probe_in_flight
}

/// A piece of a key's mirrored state that is pushed by compare-and-set (the breaker, the
/// admission schedule): where it lives in the mirror and how it merges.
struct Piece<S> {
    /// The Redis key's suffix (`<ns>:<key>:<field>`) and the state's name in messages.
    field: &'static str,
    /// The (base, local) pair to push, the dirty flag cleared; `None` when nothing changed.
    take: fn(&mut Mirror) -> Option<(S, S)>,
    /// Marks it to push again at the next sync.
    redirty: fn(&mut Mirror),
    parse: fn(&str, Option<&str>) -> std::result::Result<S, String>,
    /// The state to store from (base, local, remote).
    merge: fn(&S, &S, &S) -> S,
    /// Stored: the new base, and the mirror's changes made meanwhile replayed on top.
    stored: fn(&mut Mirror, &S, S),
    /// Shared state that cannot be used: local changes dropped, the reason kept.
    unusable: fn(&mut Mirror, String),
}

const BREAKER: Piece<BreakerState> = Piece {
    field: "breaker",
    take: |m| std::mem::take(&mut m.breaker_dirty).then(|| (m.base.clone(), m.breaker.clone())),
    redirty: |m| m.breaker_dirty = true,
    parse: parse_breaker,
    merge: merge3,
    stored: |m, local, merged| {
        m.breaker = merge3(local, &m.breaker, &merged);
        m.base = merged;
    },
    unusable: |m, msg| {
        m.breaker = m.base.clone();
        m.breaker_dirty = false;
        m.breaker_bad = Some(msg);
    },
};

const ADMISSION: Piece<AdmissionState> = Piece {
    field: "admission",
    take: |m| std::mem::take(&mut m.adm_dirty).then(|| (m.adm_base.clone(), m.adm.clone())),
    redirty: |m| m.adm_dirty = true,
    parse: parse_admission,
    merge: |base, local, remote| {
        let mut merged = AdmissionState::merged(base, local, remote);
        merged.clear_owed();
        merged
    },
    stored: |m, local, merged| {
        m.adm = AdmissionState::merged(local, &m.adm, &merged);
        m.adm_base = merged;
    },
    unusable: |m, msg| {
        m.adm = m.adm_base.clone();
        m.adm_dirty = false;
        m.adm_bad = Some(msg);
    },
};

/// Three-way merge of breaker states: `local` and `remote` both derive from `base`.
fn merge3(base: &BreakerState, local: &BreakerState, remote: &BreakerState) -> BreakerState {
    if local == base {
        return remote.clone();
    }
    if remote == base {
        return local.clone();
    }
    let mut m = remote.clone();
    let local_moved = !same_phase(local, base);
    let remote_moved = !same_phase(remote, base);
    let from_local = match (local_moved, remote_moved) {
        (false, _) => false,
        (true, false) => true,
        (true, true) => match rank(local.phase).cmp(&rank(remote.phase)) {
            std::cmp::Ordering::Greater => true,
            std::cmp::Ordering::Less => false,
            std::cmp::Ordering::Equal => {
                m.until = local.until.max(remote.until);
                m.probe_in_flight |= local.probe_in_flight;
                false
            }
        },
    };
    if from_local {
        m.phase = local.phase;
        m.until = local.until;
        m.probe_in_flight = local.probe_in_flight;
    }
    let closed = |s: &BreakerState| base.phase != Phase::Closed && s.phase == Phase::Closed;
    if m.phase == Phase::Closed {
        // The side that closed the circuit restarted the counts.
        if from_local && closed(local) {
            m.consecutive = local.consecutive;
            m.window_start = local.window_start;
            m.window_calls = local.window_calls;
            m.window_failures = local.window_failures;
            return m;
        }
        if !from_local && closed(remote) {
            return m;
        }
    }
    let same_window = local.window_start == base.window_start;
    let calls = local.window_calls.saturating_sub(base.window_calls);
    let failures = local.window_failures.saturating_sub(base.window_failures);
    if same_window {
        m.window_calls = remote.window_calls.saturating_add(calls);
        m.window_failures = remote.window_failures.saturating_add(failures);
    } else if remote.window_start == base.window_start {
        // Only this process started a new window: the old one's counts are over.
        m.window_start = local.window_start;
        m.window_calls = local.window_calls;
        m.window_failures = local.window_failures;
    } else {
        // Both started a new window: one window from the earlier start, holding both counts.
        m.window_start = local.window_start.min(remote.window_start);
        m.window_calls = remote.window_calls.saturating_add(local.window_calls);
        m.window_failures = remote.window_failures.saturating_add(local.window_failures);
    }
    let succeeded = local.consecutive < base.consecutive
        || if same_window {
            calls > failures
        } else {
            local.window_calls > local.window_failures
        };
    m.consecutive = if succeeded {
        local.consecutive
    } else {
        remote
            .consecutive
            .saturating_add(local.consecutive - base.consecutive)
    };
    m
}

/// The result of a pull for one Redis key.
enum Pulled {
    Absent,
    Value(String),
    Error,
}

fn parse_pulled(s: &str) -> Pulled {
    match s.as_bytes().first() {
        Some(b'v') => Pulled::Value(s[1..].to_owned()),
        Some(b'n') => Pulled::Absent,
        _ => Pulled::Error,
    }
}

/// How long a key is pulled at each sync after it was last used: a process that used a key a
/// moment ago sees the others' changes to it (their failures add up to its own), and one that
/// stopped using it stops costing Redis anything.
const HOT: Duration = Duration::from_secs(5);

/// The background task: owns the connection.
struct Worker {
    shared: Arc<Shared>,
    info: redis::ConnectionInfo,
    namespace: String,
    timeout: Duration,
    options: RedisAsyncOptions,
    adjust: Script,
    extend_pause: Script,
    cas: Script,
    pull: Script,
    /// A reply was refused mid-way (too large): the connection is out of step.
    broken: AtomicBool,
    /// Keys used within [`HOT`]: pulled at every sync. By the entry's address.
    hot: HashMap<usize, (Arc<Entry>, std::time::Instant)>,
    next_sweep: std::time::Instant,
}

/// A failure of a whole sync: Redis is unreachable or too slow.
struct Down(String);

type Op = std::result::Result<std::result::Result<Reply, String>, Down>;

impl Worker {
    fn k(&self, key: &str, what: &str) -> String {
        format!("{}:{}:{}", self.namespace, key, what)
    }

    async fn run(mut self) {
        let _guard = StopGuard(Arc::clone(&self.shared));
        let mut conn: Option<AsyncConn> = None;
        loop {
            if conn.is_none() {
                match self.connect().await {
                    Ok(c) => conn = Some(c),
                    Err(Down(msg)) => {
                        self.shared.set_down(msg);
                        tokio::time::sleep(self.options.reconnect_after).await;
                        continue;
                    }
                }
            }
            let c = conn.as_mut().expect("connected above");
            match self.sync(c).await {
                Ok(()) => {
                    self.shared.syncs.fetch_add(1, Ordering::AcqRel);
                    self.shared.up.store(true, Ordering::Release);
                    if self.broken.swap(false, Ordering::AcqRel) {
                        conn = None;
                    }
                }
                Err(Down(msg)) => {
                    // The connection may be mid-reply: never reuse it.
                    conn = None;
                    self.broken.store(false, Ordering::Release);
                    self.shared.set_down(msg);
                    tokio::time::sleep(self.options.reconnect_after).await;
                    continue;
                }
            }
            // Until the next interval, or a change the others should see at once.
            let _ =
                tokio::time::timeout(self.options.sync_interval, self.shared.wake.notified()).await;
        }
    }

    async fn connect(&self) -> std::result::Result<AsyncConn, Down> {
        match tokio::time::timeout(self.timeout, AsyncConn::connect(&self.info)).await {
            Ok(Ok(c)) => Ok(c),
            Ok(Err(e)) => Err(Down(e.to_string())),
            Err(_) => Err(Down(
                "redis: the connection handshake did not finish in time".into(),
            )),
        }
    }

    /// One Redis operation under the deadline (every read of its reply included): `Ok(Err(_))`
    /// is a data error of one key (a value of the wrong type, a reply larger than the command
    /// accepts); a server refusing as a whole (OOM, an ACL) is `Down`, like a silent one.
    async fn op(
        &self,
        fut: impl std::future::Future<Output = std::result::Result<Reply, CmdError>>,
    ) -> Op {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(Ok(Reply::Error(e))) if is_data_error(&e) => Ok(Err(format!("redis: {e}"))),
            Ok(Ok(Reply::Error(e))) => Err(Down(format!("redis: {e}"))),
            Ok(Ok(r)) => Ok(Ok(r)),
            Ok(Err(CmdError::TooLarge(m))) => {
                self.broken.store(true, Ordering::Release);
                Ok(Err(format!("redis: {m}")))
            }
            Ok(Err(e)) => Err(Down(e.to_string())),
            Err(_) => Err(Down("redis: an operation timed out".into())),
        }
    }

    /// Pushes the changed keys, then pulls the keys in use, pushing again between chunks (a
    /// change made meanwhile, such as a 429's pause, waits for one chunk at most); then forgets
    /// idle keys when a sweep is due.
    async fn sync(&mut self, c: &mut AsyncConn) -> std::result::Result<(), Down> {
        self.push_dirty(c).await?;
        let now = std::time::Instant::now();
        let now_ms = self.shared.now_ms();
        let used = std::mem::take(&mut *lock(&self.shared.used));
        for e in used {
            e.used.store(false, Ordering::Release);
            e.last_used.store(now_ms, Ordering::Relaxed);
            self.hot.insert(Arc::as_ptr(&e) as usize, (e, now));
        }
        self.hot.retain(|_, (_, t)| now.duration_since(*t) < HOT);
        let keys: Vec<Arc<Entry>> = self.hot.values().map(|(e, _)| Arc::clone(e)).collect();
        for chunk in keys.chunks(PULL_CHUNK) {
            self.pull_chunk(c, chunk).await?;
            self.push_dirty(c).await?;
        }
        self.sweep(now);
        Ok(())
    }

    /// Pushes every key changed since its last push.
    async fn push_dirty(&self, c: &mut AsyncConn) -> std::result::Result<(), Down> {
        let batch = std::mem::take(&mut *lock(&self.shared.dirty));
        for (i, e) in batch.iter().enumerate() {
            e.dirty.store(false, Ordering::Release);
            let pushed = async {
                self.push_pause(c, e).await?;
                self.push_tokens(c, e).await?;
                self.push(c, e, &BREAKER).await?;
                self.push(c, e, &ADMISSION).await
            }
            .await;
            if let Err(down) = pushed {
                for e in &batch[i..] {
                    self.shared.changed(e, false);
                }
                return Err(down);
            }
            if lock(&e.m).breaker_dirty || lock(&e.m).adm_dirty {
                // Kept conflicting: again after the next chunk or at the next sync.
                self.shared.changed(e, false);
            }
        }
        Ok(())
    }

    /// Forgets keys unused for `idle_ttl` that hold nothing, and over `max_keys` the least
    /// recently used (holding state or not: the cap wins). Candidates are picked under the read
    /// lock; the write lock is taken per 1024 removals, so calls are held for little.
    fn sweep(&mut self, now: std::time::Instant) {
        if now < self.next_sweep {
            return;
        }
        let ttl = self.shared.idle_ttl;
        self.next_sweep = now + (ttl / 4).max(self.options.sync_interval);
        let now_ms = self.shared.now_ms();
        let ttl_ms = ttl.as_millis() as u64;
        let wall = super::system_clock();
        let queued = |e: &Entry| e.used.load(Ordering::Acquire) || e.dirty.load(Ordering::Acquire);
        let mut gone: Vec<String> = Vec::new();
        let mut rest: Vec<(bool, u64, String)> = Vec::new();
        let total = {
            let r = self.shared.keys.read().unwrap_or_else(|e| e.into_inner());
            let over = r.len() > self.shared.max_keys;
            for (name, e) in r.iter() {
                let idle = now_ms.saturating_sub(e.last_used.load(Ordering::Relaxed));
                if queued(e) {
                    continue;
                }
                let holds = e.holds_state(wall);
                if idle >= ttl_ms && !holds {
                    gone.push(name.clone());
                } else if over {
                    rest.push((holds, idle, name.clone()));
                }
            }
            r.len()
        };
        let cap = self.shared.max_keys;
        if total - gone.len() > cap {
            // The first to go: holding nothing, then the longest unused.
            rest.sort_by(|a, b| a.0.cmp(&b.0).then(b.1.cmp(&a.1)));
            let excess = total - gone.len() - (cap - cap / 10);
            gone.extend(rest.into_iter().take(excess).map(|(.., n)| n));
        }
        for names in gone.chunks(1024) {
            let mut w = self.shared.keys.write().unwrap_or_else(|e| e.into_inner());
            for n in names {
                if let Some(e) = w.get(n.as_str()) {
                    if queued(e) {
                        continue;
                    }
                    self.hot.remove(&(Arc::as_ptr(e) as usize));
                    w.remove(n.as_str());
                }
            }
        }
    }

    async fn push_pause(&self, c: &mut AsyncConn, e: &Entry) -> std::result::Result<(), Down> {
        let Some(until) = lock(&e.m).pause_push.take() else {
            return Ok(());
        };
        let keys = [self.k(&e.name, "pause")];
        let argv = [until.to_string(), TTL_S.to_string()];
        match self
            .op(c.eval(&self.extend_pause, &keys, &argv, &Limits::SCALAR))
            .await
        {
            Ok(_) => Ok(()), // a data error: the pull reports the key as unusable
            Err(down) => {
                let mut m = lock(&e.m);
                m.pause_push = Some(m.pause_push.map_or(until, |p| p.max(until)));
                Err(down)
            }
        }
    }

    async fn push_tokens(&self, c: &mut AsyncConn, e: &Entry) -> std::result::Result<(), Down> {
        let (delta, capacity) = {
            let mut m = lock(&e.m);
            if m.tokens_pending == 0.0 {
                return Ok(());
            }
            let d = m.tokens_pending;
            m.tokens_pending = 0.0;
            m.tokens_inflight += d;
            (d, m.capacity)
        };
        let keys = [self.k(&e.name, "tokens")];
        let argv = [delta.to_string(), capacity.to_string(), TTL_S.to_string()];
        let res = self
            .op(c.eval(&self.adjust, &keys, &argv, &Limits::SCALAR))
            .await;
        let mut m = lock(&e.m);
        m.tokens_inflight -= delta;
        match res {
            Ok(Ok(v)) => {
                m.tokens_remote = reply_text(&v).and_then(|s| s.trim().parse::<f64>().ok());
                Ok(())
            }
            Ok(Err(msg)) => {
                // The key holds something else: the change is dropped with the key.
                m.tokens_bad = Some(msg);
                Ok(())
            }
            Err(down) => {
                m.tokens_pending += delta;
                Err(down)
            }
        }
    }

    /// Pushes one piece of the key's state that this process changed: read back, merged three
    /// ways with the shared state, stored with the compare-and-set script; changes made
    /// meanwhile are replayed on top. Conflicting writers make it try again at the next sync.
    async fn push<S: serde::Serialize>(
        &self,
        c: &mut AsyncConn,
        e: &Entry,
        piece: &Piece<S>,
    ) -> std::result::Result<(), Down> {
        let Some((base, local)) = (piece.take)(&mut lock(&e.m)) else {
            return Ok(());
        };
        let unusable = |msg: String| {
            (piece.unusable)(&mut lock(&e.m), msg);
            Ok(())
        };
        let down = |down: Down| {
            (piece.redirty)(&mut lock(&e.m));
            Err(down)
        };
        let k = self.k(&e.name, piece.field);
        let keys = [k.clone()];
        for _ in 0..16 {
            let raw = match self
                .op(c.command(&[b"GET", k.as_bytes()], &Limits::BREAKER))
                .await
            {
                Ok(Ok(Reply::Nil)) => None,
                Ok(Ok(r)) => match reply_text(&r) {
                    Some(s) => Some(s),
                    None => return unusable(format!("redis: {k} holds no {} state", piece.field)),
                },
                Ok(Err(msg)) => return unusable(msg),
                Err(d) => return down(d),
            };
            let remote = match (piece.parse)(&k, raw.as_deref()) {
                Ok(s) => s,
                Err(msg) => return unusable(msg),
            };
            let merged = (piece.merge)(&base, &local, &remote);
            let new = serde_json::to_string(&merged).expect("fleet state serializes");
            let argv = [raw.unwrap_or_default(), new, TTL_S.to_string()];
            match self
                .op(c.eval(&self.cas, &keys, &argv, &Limits::SCALAR))
                .await
            {
                Ok(Ok(Reply::Int(1))) => {
                    (piece.stored)(&mut lock(&e.m), &local, merged);
                    return Ok(());
                }
                Ok(Ok(_)) => continue,
                Ok(Err(msg)) => return unusable(msg),
                Err(d) => return down(d),
            }
        }
        (piece.redirty)(&mut lock(&e.m));
        Ok(())
    }

    async fn pull_chunk(
        &self,
        c: &mut AsyncConn,
        chunk: &[Arc<Entry>],
    ) -> std::result::Result<(), Down> {
        let mut keys = Vec::with_capacity(chunk.len() * PER_KEY);
        for e in chunk {
            keys.push(self.k(&e.name, "pause"));
            keys.push(self.k(&e.name, "tokens"));
            keys.push(self.k(&e.name, "breaker"));
            keys.push(self.k(&e.name, "admission"));
        }
        let lim = Limits {
            max_bulk: PULL_MAX_VALUE + 1,
            max_array: PULL_CHUNK * PER_KEY,
        };
        let values: Vec<String> = match self.op(c.eval(&self.pull, &keys, &[], &lim)).await? {
            Ok(Reply::Array(v)) if v.len() == chunk.len() * PER_KEY => v
                .iter()
                .map(|r| reply_text(r).unwrap_or_else(|| "e".into()))
                .collect(),
            Ok(other) => {
                return Err(Down(format!(
                    "redis: the pull returned {other:?} for {} keys",
                    chunk.len() * PER_KEY
                )))
            }
            Err(msg) => return Err(Down(msg)),
        };
        for (e, v) in chunk.iter().zip(values.chunks(PER_KEY)) {
            let key = &e.name;
            let pause = parse_pulled(&v[0]);
            let tokens = parse_pulled(&v[1]);
            let breaker = parse_pulled(&v[2]);
            let admission_key = self.k(key, "admission");
            let admission = match parse_pulled(&v[3]) {
                Pulled::Absent => Ok(AdmissionState::default()),
                Pulled::Value(s) => parse_admission(&admission_key, Some(&s)),
                Pulled::Error => Err(format!(
                    "redis: {admission_key} is of the wrong type or too large"
                )),
            };
            let breaker_key = self.k(key, "breaker");
            let breaker = match breaker {
                Pulled::Absent => Ok(BreakerState::default()),
                Pulled::Value(s) => parse_breaker(&breaker_key, Some(&s)),
                Pulled::Error => Err(format!(
                    "redis: {breaker_key} is of the wrong type or too large"
                )),
            };
            let mut m = lock(&e.m);
            match pause {
                Pulled::Absent => m.pause_bad = None,
                Pulled::Value(s) => match s.trim().parse::<f64>() {
                    Ok(p) => {
                        m.pause_bad = None;
                        if p > m.pause || m.pause.is_nan() {
                            m.pause = p;
                        }
                    }
                    Err(_) => {
                        m.pause_bad =
                            Some(format!("redis: {} holds no number", self.k(key, "pause")))
                    }
                },
                Pulled::Error => {
                    m.pause_bad = Some(format!(
                        "redis: {} is of the wrong type or too large",
                        self.k(key, "pause")
                    ))
                }
            }
            match tokens {
                Pulled::Absent => {
                    m.tokens_bad = None;
                    m.tokens_remote = None;
                }
                Pulled::Value(s) => {
                    // Unparsable: the scripts heal it to a full bucket at the next change.
                    m.tokens_bad = None;
                    m.tokens_remote = s.trim().parse::<f64>().ok();
                }
                Pulled::Error => {
                    m.tokens_bad = Some(format!(
                        "redis: {} is of the wrong type or too large",
                        self.k(key, "tokens")
                    ))
                }
            }
            match breaker {
                Ok(remote) => {
                    if m.breaker_bad.take().is_some() {
                        m.breaker = m.base.clone();
                    }
                    // Keep local changes not yet pushed, on top of the shared state.
                    m.breaker = merge3(&m.base, &m.breaker, &remote);
                    m.base = remote;
                }
                Err(msg) => {
                    m.breaker = m.base.clone();
                    m.breaker_dirty = false;
                    m.breaker_bad = Some(msg);
                }
            }
            match admission {
                Ok(remote) => {
                    if m.adm_bad.take().is_some() {
                        m.adm = m.adm_base.clone();
                    }
                    // This process's schedule not yet pushed stays stacked on the shared one.
                    m.adm = AdmissionState::merged(&m.adm_base, &m.adm, &remote);
                    m.adm_base = remote;
                }
                Err(msg) => {
                    m.adm = m.adm_base.clone();
                    m.adm_dirty = false;
                    m.adm_bad = Some(msg);
                }
            }
        }
        Ok(())
    }
}

/// A stored admission state (`None`: absent, a fresh state); JSON that does not parse, or
/// holds numbers no fleet writes, is an error for the key.
fn parse_admission(k: &str, raw: Option<&str>) -> std::result::Result<AdmissionState, String> {
    match raw {
        None => Ok(AdmissionState::default()),
        Some(s) => serde_json::from_str::<AdmissionState>(s)
            .ok()
            .filter(AdmissionState::is_sane)
            .ok_or_else(|| format!("redis: {k} holds no admission state")),
    }
}

/// A scalar reply as text (`None` for an array or an error).
fn reply_text(r: &Reply) -> Option<String> {
    match r {
        Reply::Bulk(b) => Some(String::from_utf8_lossy(b).into_owned()),
        Reply::Status(s) => Some(s.clone()),
        Reply::Int(i) => Some(i.to_string()),
        _ => None,
    }
}

fn parse_breaker(k: &str, raw: Option<&str>) -> std::result::Result<BreakerState, String> {
    match raw {
        None => Ok(BreakerState::default()),
        Some(s) => serde_json::from_str::<BreakerState>(s)
            .ok()
            .filter(BreakerState::is_sane)
            .ok_or_else(|| format!("redis: {k} holds no breaker state")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::fleet::BreakerConfig;

    fn failures(s: &mut BreakerState, cfg: &BreakerConfig, n: u32, t: f64) {
        for _ in 0..n {
            s.failure(cfg, t, true);
        }
    }

    #[test]
    fn merge_without_concurrent_change_is_the_changed_side() {
        let cfg = BreakerConfig::default();
        let base = BreakerState::default();
        let mut local = base.clone();
        failures(&mut local, &cfg, 2, 1.0);
        assert_eq!(merge3(&base, &local, &base), local);
        assert_eq!(merge3(&base, &base, &local), local);
    }

    #[test]
    fn concurrent_failures_add_up() {
        let cfg = BreakerConfig::default();
        let mut base = BreakerState::default();
        failures(&mut base, &cfg, 1, 1.0);
        let (mut a, mut b) = (base.clone(), base.clone());
        failures(&mut a, &cfg, 2, 1.1);
        failures(&mut b, &cfg, 1, 1.2);
        let m = merge3(&base, &a, &b);
        assert_eq!(m.consecutive, 4);
        assert_eq!(m.window_failures, 4);
        assert_eq!(m.phase, Phase::Closed);
    }

    #[test]
    fn an_opening_wins_over_counting_and_closing() {
        let cfg = BreakerConfig::default();
        let base = BreakerState::default();
        let mut opened = base.clone();
        failures(&mut opened, &cfg, 5, 2.0);
        assert_eq!(opened.phase, Phase::Open);
        let mut counted = base.clone();
        failures(&mut counted, &cfg, 1, 2.0);
        assert_eq!(merge3(&base, &counted, &opened).phase, Phase::Open);
        assert_eq!(merge3(&base, &opened, &counted).phase, Phase::Open);

        // One process's probe closed it, another's reopened it: open.
        let mut half = opened.clone();
        assert!(matches!(half.admit(&cfg, 10.0), crate::fleet::Admit::Probe));
        let mut closed = half.clone();
        closed.success(&cfg, 10.5);
        let mut reopened = half.clone();
        reopened.failure(&cfg, 10.6, true);
        assert_eq!(merge3(&half, &closed, &reopened).phase, Phase::Open);
        assert_eq!(merge3(&half, &reopened, &closed).phase, Phase::Open);
    }

    #[test]
    fn a_local_success_resets_the_consecutive_count() {
        let cfg = BreakerConfig::default();
        let mut base = BreakerState::default();
        failures(&mut base, &cfg, 3, 1.0);
        let mut local = base.clone();
        local.success(&cfg, 1.1);
        let mut remote = base.clone();
        failures(&mut remote, &cfg, 1, 1.2);
        let m = merge3(&base, &local, &remote);
        assert_eq!(m.consecutive, 0);
        assert_eq!(m.window_calls, 5);
    }

    #[test]
    fn budget_view_stays_within_capacity() {
        let cfg = BudgetConfig::default();
        let mut m = Mirror {
            tokens_remote: Some(3.0),
            ..Mirror::default()
        };
        let view = m.tokens_view(cfg.capacity);
        let (ok, left) = budget::spend(Some(view), cfg.retry_cost, &cfg);
        assert!(!ok);
        m.tokens_pending += left - view;
        assert_eq!(m.tokens_view(cfg.capacity), 3.0);
        m.tokens_remote = None;
        let view = m.tokens_view(cfg.capacity);
        m.tokens_pending += budget::earn(Some(view), 10.0, &cfg) - view;
        assert_eq!(m.tokens_pending, 0.0, "earning at capacity banks nothing");
    }
}
