//! The Redis backend for tokio: the same shared budget, breaker and pause per key as
//! [`super::redis::RedisBackend`], on the same keys, but no [`FleetBackend`] call ever does I/O.
//!
//! # Design
//! Each [`Fleet`](super::Fleet) call runs on a *mirror* of the shared state kept in memory (one
//! short mutex per key, as [`super::InProcess`]), with the pure transitions of
//! [`super::breaker`] and [`super::budget`]. A background tokio task owns the only Redis
//! connection (a [`redis::aio::MultiplexedConnection`]; every command and the handshake have the
//! fleet's `redis_timeout_s`) and, once per sync interval (50 ms by default) or at once after a
//! change that matters to the others (a pause, a breaker changing phase, a key seen for the
//! first time):
//! - **pushes** this process's changes: a pause through the blocking backend's `EXTEND_PAUSE`
//!   script, the net budget spend/earn through a clamped `ADJUST` script, the breaker through
//!   the blocking backend's compare-and-set of its JSON state, merged three ways (see below);
//! - **pulls** the pause, tokens and breaker of every key this process has used (one script,
//!   one round trip) into the mirror.
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

use redis::aio::MultiplexedConnection;
use tokio::sync::Notify;

use super::backend::{BackendError, BackendResult, FleetBackend};
use super::breaker::{BreakerState, Phase};
use super::budget::{self, BudgetConfig};
use crate::error::{Error, Result};

/// Adds ARGV[1] (positive or negative) to the tokens, within [0, capacity]: KEYS[1] tokens;
/// ARGV delta, capacity, ttl. A stored value that is not a number in [0, capacity] is healed to
/// a full bucket first, as the blocking backend's scripts do. Returns the new value.
const ADJUST: &str = r#"
local cap = tonumber(ARGV[2])
local t = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
if t == nil or t ~= t or t > cap then t = cap end
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
/// (absent) or 'e' (an error such as a value of the wrong type) per key.
const PULL: &str = r#"
local out = {}
for i, k in ipairs(KEYS) do
  local v = redis.pcall('GET', k)
  if type(v) == 'table' and v.err then out[i] = 'e'
  elseif v then out[i] = 'v' .. v
  else out[i] = 'n' end
end
return out
"#;

/// Keys live a day after their last update, as with the blocking backend.
const TTL_S: u64 = 86_400;
/// Keys per pull script call (three Redis keys per fleet key).
const PULL_CHUNK: usize = 128;

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

/// What the calls and the task share.
struct Shared {
    keys: RwLock<HashMap<String, Arc<Mutex<Mirror>>>>,
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
    /// The mirror of `key` (created, and its shared state fetched at once, on first use).
    fn key(&self, key: &str) -> Arc<Mutex<Mirror>> {
        if let Some(m) = self.keys.read().unwrap_or_else(|e| e.into_inner()).get(key) {
            return Arc::clone(m);
        }
        let mut w = self.keys.write().unwrap_or_else(|e| e.into_inner());
        let m = Arc::clone(w.entry(key.to_owned()).or_default());
        drop(w);
        // Fetch its shared state now rather than at the next interval.
        self.wake.notify_one();
        m
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

    fn snapshot(&self) -> Vec<(String, Arc<Mutex<Mirror>>)> {
        self.keys
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .iter()
            .map(|(k, m)| (k.clone(), Arc::clone(m)))
            .collect()
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
    /// (the handshake included) bounded by `timeout`. Does not wait for Redis: the task connects
    /// in the background, and a Redis down at start is the same as one that goes down later.
    ///
    /// Fails with [`crate::ErrorCode::InvalidState`] outside a tokio runtime, and with
    /// [`crate::ErrorCode::InvalidPolicy`] on an invalid URL or option.
    pub fn new(
        url: &str,
        namespace: &str,
        timeout: Duration,
        options: RedisAsyncOptions,
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
            up: AtomicBool::new(true),
            stopped: AtomicBool::new(false),
            last_error: Mutex::new(String::new()),
            syncs: AtomicU64::new(0),
            wake: Notify::new(),
        });
        let worker = Worker {
            shared: Arc::clone(&shared),
            client,
            namespace: namespace.to_owned(),
            timeout,
            options,
            adjust: redis::Script::new(ADJUST),
            extend_pause: redis::Script::new(EXTEND_PAUSE),
            cas: redis::Script::new(CAS),
            pull: redis::Script::new(PULL),
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

    fn with_breaker(&self, key: &str, f: &mut dyn FnMut(&mut BreakerState)) -> BackendResult<()> {
        self.shared.available()?;
        let k = self.shared.key(key);
        let mut m = lock(&k);
        bad(&m.breaker_bad)?;
        let before = m.breaker.clone();
        f(&mut m.breaker);
        if m.breaker != before {
            m.breaker_dirty = true;
            if m.breaker.phase != before.phase {
                drop(m);
                self.shared.wake.notify_one();
            }
        }
        Ok(())
    }

    fn spend(&self, key: &str, cost: f64, cfg: &BudgetConfig) -> BackendResult<bool> {
        self.shared.available()?;
        let k = self.shared.key(key);
        let mut m = lock(&k);
        bad(&m.tokens_bad)?;
        let view = m.tokens_view(cfg.capacity);
        let (ok, left) = budget::spend(Some(view), cost, cfg);
        m.tokens_pending += left - view;
        m.capacity = cfg.capacity;
        Ok(ok)
    }

    fn earn(&self, key: &str, amount: f64, cfg: &BudgetConfig) -> BackendResult<()> {
        self.shared.available()?;
        let k = self.shared.key(key);
        let mut m = lock(&k);
        bad(&m.tokens_bad)?;
        let view = m.tokens_view(cfg.capacity);
        m.tokens_pending += budget::earn(Some(view), amount, cfg) - view;
        m.capacity = cfg.capacity;
        Ok(())
    }

    fn tokens(&self, key: &str, cfg: &BudgetConfig) -> BackendResult<f64> {
        self.shared.available()?;
        let k = self.shared.key(key);
        let m = lock(&k);
        bad(&m.tokens_bad)?;
        Ok(m.tokens_view(cfg.capacity))
    }

    fn pause_until(&self, key: &str) -> BackendResult<f64> {
        self.shared.available()?;
        let k = self.shared.key(key);
        let m = lock(&k);
        bad(&m.pause_bad)?;
        Ok(m.pause)
    }

    fn extend_pause(&self, key: &str, until: f64) -> BackendResult<()> {
        self.shared.available()?;
        let k = self.shared.key(key);
        let mut m = lock(&k);
        if until > m.pause || m.pause.is_nan() {
            m.pause = until;
        }
        m.pause_push = Some(m.pause_push.map_or(until, |p| p.max(until)));
        drop(m);
        self.shared.wake.notify_one();
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

/// A server's answer about one key's data (a wrong type, a script error): that key's problem,
/// not a sign that Redis is down (as in the blocking backend).
fn is_data_error(e: &redis::RedisError) -> bool {
    !(e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal())
        && matches!(
            e.kind(),
            redis::ErrorKind::ResponseError
                | redis::ErrorKind::TypeError
                | redis::ErrorKind::ExtensionError
        )
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

/// The background task: owns the connection.
struct Worker {
    shared: Arc<Shared>,
    client: redis::Client,
    namespace: String,
    timeout: Duration,
    options: RedisAsyncOptions,
    adjust: redis::Script,
    extend_pause: redis::Script,
    cas: redis::Script,
    pull: redis::Script,
}

/// A failure of a whole sync: Redis is unreachable or too slow.
struct Down(String);

impl Worker {
    fn k(&self, key: &str, what: &str) -> String {
        format!("{}:{}:{}", self.namespace, key, what)
    }

    async fn run(self) {
        let _guard = StopGuard(Arc::clone(&self.shared));
        let mut conn: Option<MultiplexedConnection> = None;
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
                }
                Err(Down(msg)) => {
                    // The connection may be mid-reply: never reuse it.
                    conn = None;
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

    async fn connect(&self) -> std::result::Result<MultiplexedConnection, Down> {
        let config = redis::AsyncConnectionConfig::new()
            .set_connection_timeout(self.timeout)
            .set_response_timeout(self.timeout);
        match tokio::time::timeout(
            self.timeout,
            self.client
                .get_multiplexed_async_connection_with_config(&config),
        )
        .await
        {
            Ok(Ok(c)) => Ok(c),
            Ok(Err(e)) => Err(Down(format!("redis: {e}"))),
            Err(_) => Err(Down(
                "redis: the connection handshake did not finish in time".into(),
            )),
        }
    }

    /// One Redis operation under the deadline: `Ok(Err(_))` is a data error of one key.
    async fn op<T>(
        &self,
        fut: impl std::future::Future<Output = redis::RedisResult<T>>,
    ) -> std::result::Result<std::result::Result<T, String>, Down> {
        match tokio::time::timeout(self.timeout, fut).await {
            Ok(Ok(v)) => Ok(Ok(v)),
            Ok(Err(e)) if is_data_error(&e) => Ok(Err(format!("redis: {e}"))),
            Ok(Err(e)) => Err(Down(format!("redis: {e}"))),
            Err(_) => Err(Down("redis: an operation timed out".into())),
        }
    }

    /// Pushes this process's changes, then pulls the shared state of every key it uses.
    async fn sync(&self, c: &mut MultiplexedConnection) -> std::result::Result<(), Down> {
        let keys = self.shared.snapshot();
        for (key, mirror) in &keys {
            self.push_pause(c, key, mirror).await?;
            self.push_tokens(c, key, mirror).await?;
            self.push_breaker(c, key, mirror).await?;
        }
        for chunk in keys.chunks(PULL_CHUNK) {
            self.pull_chunk(c, chunk).await?;
        }
        Ok(())
    }

    async fn push_pause(
        &self,
        c: &mut MultiplexedConnection,
        key: &str,
        mirror: &Mutex<Mirror>,
    ) -> std::result::Result<(), Down> {
        let Some(until) = lock(mirror).pause_push.take() else {
            return Ok(());
        };
        let k = self.k(key, "pause");
        let mut inv = self.extend_pause.key(&k);
        inv.arg(until).arg(TTL_S);
        match self.op(inv.invoke_async::<i32>(c)).await {
            Ok(_) => Ok(()), // a data error: the pull reports the key as unusable
            Err(down) => {
                let mut m = lock(mirror);
                m.pause_push = Some(m.pause_push.map_or(until, |p| p.max(until)));
                Err(down)
            }
        }
    }

    async fn push_tokens(
        &self,
        c: &mut MultiplexedConnection,
        key: &str,
        mirror: &Mutex<Mirror>,
    ) -> std::result::Result<(), Down> {
        let (delta, capacity) = {
            let mut m = lock(mirror);
            if m.tokens_pending == 0.0 {
                return Ok(());
            }
            let d = m.tokens_pending;
            m.tokens_pending = 0.0;
            m.tokens_inflight += d;
            (d, m.capacity)
        };
        let k = self.k(key, "tokens");
        let mut inv = self.adjust.key(&k);
        inv.arg(delta).arg(capacity).arg(TTL_S);
        let res = self.op(inv.invoke_async::<String>(c)).await;
        let mut m = lock(mirror);
        m.tokens_inflight -= delta;
        match res {
            Ok(Ok(v)) => {
                m.tokens_remote = v.trim().parse::<f64>().ok();
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

    async fn push_breaker(
        &self,
        c: &mut MultiplexedConnection,
        key: &str,
        mirror: &Mutex<Mirror>,
    ) -> std::result::Result<(), Down> {
        let (base, local) = {
            let mut m = lock(mirror);
            if !m.breaker_dirty {
                return Ok(());
            }
            m.breaker_dirty = false;
            (m.base.clone(), m.breaker.clone())
        };
        let k = self.k(key, "breaker");
        for _ in 0..16 {
            let raw = match self
                .op(redis::cmd("GET").arg(&k).query_async::<Option<String>>(c))
                .await
            {
                Ok(Ok(raw)) => raw,
                Ok(Err(msg)) => return self.breaker_unusable(mirror, msg),
                Err(down) => {
                    lock(mirror).breaker_dirty = true;
                    return Err(down);
                }
            };
            let remote = match parse_breaker(&k, raw.as_deref()) {
                Ok(s) => s,
                Err(msg) => return self.breaker_unusable(mirror, msg),
            };
            let merged = merge3(&base, &local, &remote);
            let new = serde_json::to_string(&merged).expect("breaker state serializes");
            let mut inv = self.cas.key(&k);
            inv.arg(raw.unwrap_or_default()).arg(&new).arg(TTL_S);
            match self.op(inv.invoke_async::<i32>(c)).await {
                Ok(Ok(1)) => {
                    let mut m = lock(mirror);
                    // Changes made meanwhile are replayed on top of what was stored.
                    m.breaker = merge3(&local, &m.breaker, &merged);
                    m.base = merged;
                    return Ok(());
                }
                Ok(Ok(_)) => continue,
                Ok(Err(msg)) => return self.breaker_unusable(mirror, msg),
                Err(down) => {
                    lock(mirror).breaker_dirty = true;
                    return Err(down);
                }
            }
        }
        // Kept conflicting: try again at the next sync.
        lock(mirror).breaker_dirty = true;
        Ok(())
    }

    fn breaker_unusable(
        &self,
        mirror: &Mutex<Mirror>,
        msg: String,
    ) -> std::result::Result<(), Down> {
        let mut m = lock(mirror);
        m.breaker = m.base.clone();
        m.breaker_dirty = false;
        m.breaker_bad = Some(msg);
        Ok(())
    }

    async fn pull_chunk(
        &self,
        c: &mut MultiplexedConnection,
        chunk: &[(String, Arc<Mutex<Mirror>>)],
    ) -> std::result::Result<(), Down> {
        let mut inv = self.pull.prepare_invoke();
        for (key, _) in chunk {
            inv.key(self.k(key, "pause"))
                .key(self.k(key, "tokens"))
                .key(self.k(key, "breaker"));
        }
        let values = match self.op(inv.invoke_async::<Vec<String>>(c)).await? {
            Ok(v) if v.len() == chunk.len() * 3 => v,
            Ok(v) => {
                return Err(Down(format!(
                    "redis: the pull returned {} values for {} keys",
                    v.len(),
                    chunk.len() * 3
                )))
            }
            Err(msg) => return Err(Down(msg)),
        };
        for ((key, mirror), v) in chunk.iter().zip(values.chunks(3)) {
            let pause = parse_pulled(&v[0]);
            let tokens = parse_pulled(&v[1]);
            let breaker = parse_pulled(&v[2]);
            let breaker_key = self.k(key, "breaker");
            let breaker = match breaker {
                Pulled::Absent => Ok(BreakerState::default()),
                Pulled::Value(s) => parse_breaker(&breaker_key, Some(&s)),
                Pulled::Error => Err(format!("redis: {breaker_key} is of the wrong type")),
            };
            let mut m = lock(mirror);
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
                        "redis: {} is of the wrong type",
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
                        "redis: {} is of the wrong type",
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
        }
        Ok(())
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
