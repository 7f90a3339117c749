//! The Redis backend: one budget, breaker and pause per key for agents in many processes on
//! many machines. Every update is atomic on the server (a Lua script, or a compare-and-set script
//! around the pure breaker transition).
//!
//! A call never blocks or fails on Redis:
//! - every command and the connection handshake have a deadline (the handshake runs on a helper
//!   thread, since redis-rs gives it no timeout of its own: a server that accepts the connection
//!   and then stops answering would hold it forever);
//! - no lock is held during I/O: each call borrows a connection from a small pool, so a stuck
//!   call holds only its own connection, and calls on other keys go on;
//! - after a failure, calls use local state at once for a while instead of trying again;
//! - a value of the wrong type or shape in one key degrades that key only;
//! - after `fork()`, the child never touches the parent's connections or locks: it starts a state
//!   of its own (preforking servers such as gunicorn, Puma and Unicorn fork with a live fleet).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{mpsc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::backend::{BackendError, BackendResult, FleetBackend};
use super::breaker::BreakerState;
use super::budget::BudgetConfig;
use crate::error::{Error, Result};

/// Budget arithmetic, atomically (mirrors `budget::spend`): KEYS[1] tokens; ARGV cost, capacity,
/// ttl. A stored value that is not a number in [0, capacity] (NaN, inf, garbage written by
/// anyone) is healed to a full bucket rather than blocking every retry of the key forever.
const SPEND: &str = r#"
local cap = tonumber(ARGV[2])
local t = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
if t == nil or t ~= t or t > cap then t = cap end
if t < 0 then t = 0 end
local cost = tonumber(ARGV[1])
local ok = 0
if t >= cost then t = t - cost; ok = 1 end
redis.call('SET', KEYS[1], tostring(t), 'EX', ARGV[3])
return ok
"#;

/// Mirrors `budget::earn`: KEYS[1] tokens; ARGV amount, capacity, ttl (healed as in SPEND).
const EARN: &str = r#"
local cap = tonumber(ARGV[2])
local t = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
if t == nil or t ~= t or t > cap then t = cap end
if t < 0 then t = 0 end
t = t + tonumber(ARGV[1])
if t > cap then t = cap end
redis.call('SET', KEYS[1], tostring(t), 'EX', ARGV[3])
return tostring(t)
"#;

/// Pause until max(current, ARGV[1]): KEYS[1] pause; ARGV until, ttl. A stored value that is not
/// a finite number is replaced.
pub(crate) const EXTEND_PAUSE: &str = r#"
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if cur == nil or cur ~= cur or cur == math.huge or tonumber(ARGV[1]) > cur then
  redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2])
end
return 1
"#;

/// Compare-and-set: KEYS[1]; ARGV expected (empty = absent), new, ttl.
pub(crate) const CAS: &str = r#"
local cur = redis.call('GET', KEYS[1]) or ''
if cur == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]); return 1 end
return 0
"#;

/// Keys live a day after their last update: fleet state is about the present.
const TTL_S: u64 = 86_400;
/// After a failure, how long to use local state before trying Redis again.
const RECONNECT_AFTER: Duration = Duration::from_secs(2);
/// Idle connections kept per process; more concurrent calls open short-lived ones.
const POOL: usize = 16;
/// How many nested `fork()`s get a Redis state of their own (a prefork server's workers are
/// one level down); deeper descendants use local state only.
const GENERATIONS: usize = 8;

/// The connections and health of one process.
struct ProcState {
    pid: u32,
    idle: Mutex<Vec<redis::Connection>>,
    down_until: Mutex<Option<Instant>>,
}

impl ProcState {
    fn new() -> Self {
        ProcState {
            pid: std::process::id(),
            idle: Mutex::new(Vec::new()),
            down_until: Mutex::new(None),
        }
    }
}

/// The configuration the backend was built from, kept for `Debug`-free error texts.
pub struct RedisBackend {
    client: redis::Client,
    namespace: String,
    timeout: Duration,
    /// One state per process generation: slot 0 is the process that built the backend, slot
    /// k + 1 its child after a fork (which inherits slots 0..=k in whatever state they were,
    /// locks held by threads that do not exist in it included, and so never touches them).
    states: [OnceLock<ProcState>; GENERATIONS],
    current: AtomicUsize,
    spend: redis::Script,
    earn: redis::Script,
    extend_pause: redis::Script,
    cas: redis::Script,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The guarded values are plain collections and instants: nothing is left half-updated.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// A server's answer about one key's data (a wrong type, a script error): that key's problem,
/// not a sign that Redis is down.
fn is_data_error(e: &redis::RedisError) -> bool {
    !(e.is_io_error() || e.is_timeout() || e.is_connection_dropped() || e.is_connection_refusal())
        && matches!(
            e.kind(),
            redis::ErrorKind::ResponseError
                | redis::ErrorKind::TypeError
                | redis::ErrorKind::ExtensionError
        )
}

impl RedisBackend {
    /// A backend for `url` (`redis://127.0.0.1:6379/0`) whose every I/O, handshake included,
    /// gives up after `timeout`. Does not connect yet: a Redis that is down at start is the same
    /// as one that goes down later.
    pub fn new(url: &str, namespace: &str, timeout: Duration) -> Result<Self> {
        let client = redis::Client::open(url)
            .map_err(|e| Error::invalid_policy(format!("invalid redis_url: {e}")))?;
        if timeout.is_zero() {
            return Err(Error::invalid_policy("redis_timeout_s must be above 0"));
        }
        let states: [OnceLock<ProcState>; GENERATIONS] = Default::default();
        states[0].get_or_init(ProcState::new);
        Ok(RedisBackend {
            client,
            namespace: namespace.to_owned(),
            timeout,
            states,
            current: AtomicUsize::new(0),
            spend: redis::Script::new(SPEND),
            earn: redis::Script::new(EARN),
            extend_pause: redis::Script::new(EXTEND_PAUSE),
            cas: redis::Script::new(CAS),
        })
    }

    fn k(&self, key: &str, what: &str) -> String {
        format!("{}:{}:{}", self.namespace, key, what)
    }

    /// This process's state; after a fork, a fresh one (never the parent's locks).
    fn state(&self) -> Option<&ProcState> {
        let pid = std::process::id();
        let mut gen = self.current.load(Ordering::Acquire);
        loop {
            let state = self.states[gen].get()?;
            if state.pid == pid {
                return Some(state);
            }
            // A new process: the next generation is ours (the parent never touches it).
            gen += 1;
            if gen >= GENERATIONS {
                return None;
            }
            let next = self.states[gen].get_or_init(ProcState::new);
            if next.pid == pid {
                self.current.store(gen, Ordering::Release);
                return Some(next);
            }
        }
    }

    /// A new connection whose handshake and commands all have the deadline. The handshake
    /// runs on a helper thread: when it does not answer in time the thread is left to finish
    /// (or fail) on its own, holding nothing of ours.
    fn connect(&self) -> redis::RedisResult<redis::Connection> {
        let (tx, rx) = mpsc::sync_channel(1);
        let client = self.client.clone();
        let timeout = self.timeout;
        let spawned = std::thread::Builder::new()
            .name("retry-core-redis-connect".into())
            .spawn(move || {
                let conn = client.get_connection_with_timeout(timeout).and_then(|c| {
                    c.set_read_timeout(Some(timeout))?;
                    c.set_write_timeout(Some(timeout))?;
                    Ok(c)
                });
                let _ = tx.send(conn);
            });
        if let Err(e) = spawned {
            return Err(redis::RedisError::from(e));
        }
        match rx.recv_timeout(timeout) {
            Ok(conn) => conn,
            Err(_) => Err(redis::RedisError::from(std::io::Error::new(
                std::io::ErrorKind::TimedOut,
                "the connection handshake did not finish in time",
            ))),
        }
    }

    /// Runs `f` on a connection, or fails at once while Redis is presumed down.
    fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> BackendResult<T> {
        let Some(state) = self.state() else {
            return Err(BackendError::unavailable(
                "redis: too many nested forks; using local state",
            ));
        };
        if let Some(until) = *lock(&state.down_until) {
            if Instant::now() < until {
                return Err(BackendError::unavailable(
                    "redis unavailable (waiting before reconnecting)",
                ));
            }
        }
        let pooled = lock(&state.idle).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => self.connect().map_err(|e| {
                *lock(&state.down_until) = Some(Instant::now() + RECONNECT_AFTER);
                BackendError::unavailable(format!("redis: {e}"))
            })?,
        };
        match f(&mut conn) {
            Ok(v) => {
                *lock(&state.down_until) = None;
                let mut idle = lock(&state.idle);
                if idle.len() < POOL {
                    idle.push(conn);
                }
                Ok(v)
            }
            Err(e) if is_data_error(&e) => {
                let mut idle = lock(&state.idle);
                if idle.len() < POOL {
                    idle.push(conn);
                }
                Err(BackendError::bad_data(format!("redis: {e}")))
            }
            Err(e) => {
                // The connection may be mid-reply: never reuse it.
                *lock(&state.down_until) = Some(Instant::now() + RECONNECT_AFTER);
                Err(BackendError::unavailable(format!("redis: {e}")))
            }
        }
    }

    /// A number stored under `k`, or a bad-data error when it is not one.
    fn get_number(&self, k: &str) -> BackendResult<Option<f64>> {
        let v: Option<String> = self.with_conn(|c| redis::cmd("GET").arg(k).query(c))?;
        match v {
            None => Ok(None),
            Some(s) => s
                .trim()
                .parse::<f64>()
                .map(Some)
                .map_err(|_| BackendError::bad_data(format!("redis: {k} holds no number"))),
        }
    }
}

impl FleetBackend for RedisBackend {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn is_remote(&self) -> bool {
        true
    }

    fn with_breaker(&self, key: &str, f: &mut dyn FnMut(&mut BreakerState)) -> BackendResult<()> {
        let k = self.k(key, "breaker");
        // Optimistic: read, apply the pure transition, store only if nobody changed it meanwhile.
        for _ in 0..16 {
            let old: Option<String> = self.with_conn(|c| redis::cmd("GET").arg(&k).query(c))?;
            let mut state = match old.as_deref() {
                None => BreakerState::default(),
                Some(s) => serde_json::from_str::<BreakerState>(s)
                    .ok()
                    .filter(BreakerState::is_sane)
                    .ok_or_else(|| {
                        BackendError::bad_data(format!("redis: {k} holds no breaker state"))
                    })?,
            };
            f(&mut state);
            let new = serde_json::to_string(&state).expect("breaker state serializes");
            let expected = old.unwrap_or_default();
            let stored: i32 = self.with_conn(|c| {
                self.cas
                    .key(&k)
                    .arg(&expected)
                    .arg(&new)
                    .arg(TTL_S)
                    .invoke(c)
            })?;
            if stored == 1 {
                return Ok(());
            }
        }
        Err(BackendError::unavailable(
            "redis: breaker update kept conflicting",
        ))
    }

    fn spend(&self, key: &str, cost: f64, cfg: &BudgetConfig) -> BackendResult<bool> {
        let k = self.k(key, "tokens");
        let ok: i32 = self.with_conn(|c| {
            self.spend
                .key(&k)
                .arg(cost)
                .arg(cfg.capacity)
                .arg(TTL_S)
                .invoke(c)
        })?;
        Ok(ok == 1)
    }

    fn earn(&self, key: &str, amount: f64, cfg: &BudgetConfig) -> BackendResult<()> {
        let k = self.k(key, "tokens");
        let _: String = self.with_conn(|c| {
            self.earn
                .key(&k)
                .arg(amount)
                .arg(cfg.capacity)
                .arg(TTL_S)
                .invoke(c)
        })?;
        Ok(())
    }

    fn tokens(&self, key: &str, cfg: &BudgetConfig) -> BackendResult<f64> {
        let t = self.get_number(&self.k(key, "tokens"))?;
        Ok(t.filter(|t| t.is_finite())
            .map_or(cfg.capacity, |t| t.clamp(0.0, cfg.capacity)))
    }

    fn pause_until(&self, key: &str) -> BackendResult<f64> {
        Ok(self.get_number(&self.k(key, "pause"))?.unwrap_or(0.0))
    }

    fn extend_pause(&self, key: &str, until: f64) -> BackendResult<()> {
        let k = self.k(key, "pause");
        let _: i32 =
            self.with_conn(|c| self.extend_pause.key(&k).arg(until).arg(TTL_S).invoke(c))?;
        Ok(())
    }
}
