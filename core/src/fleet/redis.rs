//! The Redis backend: one budget, breaker and pause per key for agents in many processes on
//! many machines. Every update is atomic on the server (a Lua script, or a compare-and-set script
//! around the pure breaker transition).
//!
//! A call never blocks or fails on Redis:
//! - every operation has one deadline, `redis_timeout_s`, for all its commands and every read
//!   of their replies (our own RESP reader, `fleet::resp`: redis-rs times each `read` alone,
//!   so a link sending a byte every 0.2 s held a call for 70 s); the connection handshake has
//!   it too, and runs on a helper thread (name resolution has no timeout of its own);
//! - every reply is bounded by what the command can return (a number, a breaker's JSON): a
//!   header claiming more is bad data for the key, refused before anything is allocated;
//! - a server refusing as a whole (out of memory, an ACL, loading, read-only) is treated as an
//!   unavailable Redis (one `fleet_backend_degraded` per state change), not as one key's bad
//!   data (an event per call);
//! - no lock is held during I/O: each call borrows a connection from a small pool, so a stuck
//!   call holds only its own connection, and calls on other keys go on;
//! - after a failure, calls use local state at once for a while instead of trying again;
//! - a value of the wrong type or shape in one key degrades that key only;
//! - after `fork()`, the child never touches the parent's connections or locks: it starts a state
//!   of its own, at any depth of nested forks (preforking servers such as gunicorn, Puma and
//!   Unicorn fork with a live fleet).

use super::per_process::PerProcess;
use std::sync::{mpsc, Mutex};
use std::time::{Duration, Instant};

use super::admission::AdmissionState;
use super::backend::{BackendError, BackendResult, FleetBackend};
use super::breaker::BreakerState;
use super::budget::BudgetConfig;
use super::resp::{is_data_error, CmdError, Conn, Limits, Reply, Script};
use crate::error::{Error, Result};

/// Budget arithmetic, atomically (mirrors `budget::spend`): KEYS[1] tokens; ARGV cost, capacity,
/// ttl. A stored value that is no finite number (NaN, inf, -inf, garbage written by anyone) is
/// healed to a full bucket rather than blocking every retry of the key forever; a finite one is
/// clamped to [0, capacity] (as `tokens` reads it).
const SPEND: &str = r#"
local cap = tonumber(ARGV[2])
local t = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
if t == nil or t ~= t or t > cap or t == -math.huge then t = cap end
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
if t == nil or t ~= t or t > cap or t == -math.huge then t = cap end
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

/// The connections and health of one process.
struct ProcState {
    idle: Mutex<Vec<Conn>>,
    down_until: Mutex<Option<Instant>>,
    /// Admission updates of one key are taken in turn within a process (striped by key): a
    /// burst of threads would otherwise lose compare-and-set round after round to each other,
    /// and only the other processes are left to conflict with. A stuck holder is bounded by
    /// the operation's timeout, after which the others find Redis marked down and go local.
    admission_turns: [Mutex<()>; ADMISSION_STRIPES],
}

/// Stripes of [`ProcState::admission_turns`].
const ADMISSION_STRIPES: usize = 64;

impl ProcState {
    fn new() -> Self {
        ProcState {
            idle: Mutex::new(Vec::new()),
            down_until: Mutex::new(None),
            admission_turns: std::array::from_fn(|_| Mutex::new(())),
        }
    }
}

/// The configuration the backend was built from, kept for `Debug`-free error texts.
pub struct RedisBackend {
    info: redis::ConnectionInfo,
    namespace: String,
    timeout: Duration,
    /// This process's connections and health: a child of `fork()` never touches its parent's
    /// (`PerProcess`), so forks nested to any depth each get a Redis state of their own.
    state: PerProcess<ProcState>,
    spend: Script,
    earn: Script,
    extend_pause: Script,
    cas: Script,
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // The guarded values are plain collections and instants: nothing is left half-updated.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// Why an operation failed.
enum OpError {
    /// The link (or the server as a whole) failed: every key falls back for a while.
    Down(String),
    /// One key's data is unusable; the connection is still in step.
    Data(String),
    /// One key's reply was larger than its command accepts: bad data for the key, and the
    /// connection, mid-reply, is dropped.
    TooLarge(String),
}

impl From<CmdError> for OpError {
    fn from(e: CmdError) -> Self {
        match e {
            CmdError::Io(m) | CmdError::Protocol(m) => OpError::Down(m),
            CmdError::TooLarge(m) => OpError::TooLarge(format!("redis: {m}")),
        }
    }
}

/// A reply that is a server error: the key's bad data or the server refusing.
fn server_error(e: &str) -> OpError {
    if is_data_error(e) {
        OpError::Data(format!("redis: {e}"))
    } else {
        OpError::Down(format!("redis: {e}"))
    }
}

fn int_reply(r: Reply) -> Result<i64, OpError> {
    match r {
        Reply::Int(i) => Ok(i),
        Reply::Error(e) => Err(server_error(&e)),
        other => Err(OpError::Data(format!(
            "redis: an integer expected, got {other:?}"
        ))),
    }
}

fn text_reply(r: Reply) -> Result<Option<String>, OpError> {
    match r {
        Reply::Nil => Ok(None),
        Reply::Bulk(b) => Ok(Some(String::from_utf8_lossy(&b).into_owned())),
        Reply::Status(s) => Ok(Some(s)),
        Reply::Int(i) => Ok(Some(i.to_string())),
        Reply::Error(e) => Err(server_error(&e)),
        Reply::Array(_) => Err(OpError::Data(
            "redis: a value expected, got an array".into(),
        )),
    }
}

impl RedisBackend {
    /// A backend for `url` (`redis://127.0.0.1:6379/0`) whose every operation, handshake
    /// included, gives up after `timeout` (one deadline for all the commands of an operation
    /// and every read of their replies). Does not connect yet: a Redis that is down at start is
    /// the same as one that goes down later.
    pub fn new(url: &str, namespace: &str, timeout: Duration) -> Result<Self> {
        let client = redis::Client::open(url)
            .map_err(|e| Error::invalid_policy(format!("invalid redis_url: {e}")))?;
        if timeout.is_zero() {
            return Err(Error::invalid_policy("redis_timeout_s must be above 0"));
        }
        Ok(RedisBackend {
            info: client.get_connection_info().clone(),
            namespace: namespace.to_owned(),
            timeout,
            state: PerProcess::new(ProcState::new),
            spend: Script::new(SPEND),
            earn: Script::new(EARN),
            extend_pause: Script::new(EXTEND_PAUSE),
            cas: Script::new(CAS),
        })
    }

    fn k(&self, key: &str, what: &str) -> String {
        format!("{}:{}:{}", self.namespace, key, what)
    }

    /// This process's state; after a fork, a fresh one (never the parent's locks).
    fn state(&self) -> &ProcState {
        self.state.get()
    }

    /// A new connection whose handshake has the deadline. It runs on a helper thread (name
    /// resolution has no timeout): when it does not finish in time the thread is left to finish
    /// (or fail) on its own, holding nothing of ours.
    fn connect(&self, deadline: Instant) -> std::result::Result<Conn, String> {
        let (tx, rx) = mpsc::sync_channel(1);
        let info = self.info.clone();
        let spawned = std::thread::Builder::new()
            .name("retry-core-redis-connect".into())
            .spawn(move || {
                let _ = tx.send(Conn::connect(&info, deadline));
            });
        if let Err(e) = spawned {
            return Err(format!("redis: {e}"));
        }
        match rx.recv_timeout(deadline.saturating_duration_since(Instant::now())) {
            Ok(conn) => conn.map_err(|e| e.to_string()),
            Err(_) => Err("redis: the connection handshake did not finish in time".into()),
        }
    }

    /// Runs `f` on a connection under one deadline for the whole operation, or fails at once
    /// while Redis is presumed down.
    fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut Conn, Instant) -> std::result::Result<T, OpError>,
    ) -> BackendResult<T> {
        let state = self.state();
        if let Some(until) = *lock(&state.down_until) {
            if Instant::now() < until {
                return Err(BackendError::unavailable(
                    "redis unavailable (waiting before reconnecting)",
                ));
            }
        }
        let deadline = Instant::now() + self.timeout;
        let pooled = lock(&state.idle).pop();
        let mut conn = match pooled {
            Some(c) => c,
            None => self.connect(deadline).map_err(|e| {
                *lock(&state.down_until) = Some(Instant::now() + RECONNECT_AFTER);
                BackendError::unavailable(e)
            })?,
        };
        let keep = |conn: Conn| {
            let mut idle = lock(&state.idle);
            if idle.len() < POOL {
                idle.push(conn);
            }
        };
        match f(&mut conn, deadline) {
            Ok(v) => {
                *lock(&state.down_until) = None;
                keep(conn);
                Ok(v)
            }
            Err(OpError::Data(m)) => {
                keep(conn);
                Err(BackendError::bad_data(m))
            }
            // The connection is mid-reply: never reused.
            Err(OpError::TooLarge(m)) => Err(BackendError::bad_data(m)),
            Err(OpError::Down(m)) => {
                *lock(&state.down_until) = Some(Instant::now() + RECONNECT_AFTER);
                Err(BackendError::unavailable(m))
            }
        }
    }

    /// A number stored under `k`, or a bad-data error when it is not one.
    /// Applies `f` to the JSON state under `<ns>:<key>:<what>` atomically. Optimistic: read,
    /// apply the pure transition, store only if nobody changed it meanwhile (the CAS script).
    /// A lost round is contention, not a fault: rounds go on until the operation's one
    /// deadline, which alone bounds it (a count of rounds once marked a busy Redis down when a
    /// loaded machine preempted one writer while the other process won sixteen rounds). A
    /// stored value that does not parse, or fails `sane`, is bad data for the key.
    fn update_json<T>(
        &self,
        key: &str,
        what: &str,
        name: &str,
        sane: fn(&T) -> bool,
        f: &mut dyn FnMut(&mut T),
    ) -> BackendResult<()>
    where
        T: Default + serde::Serialize + serde::de::DeserializeOwned,
    {
        let k = self.k(key, what);
        let ttl = TTL_S.to_string();
        self.with_conn(|c, deadline| {
            loop {
                let old =
                    text_reply(c.command(&[b"GET", k.as_bytes()], &Limits::BREAKER, deadline)?)?;
                let mut state = match old.as_deref() {
                    None => T::default(),
                    Some(s) => {
                        serde_json::from_str::<T>(s)
                            .ok()
                            .filter(&sane)
                            .ok_or_else(|| {
                                OpError::Data(format!("redis: {k} holds no {name} state"))
                            })?
                    }
                };
                f(&mut state);
                let new = serde_json::to_string(&state).expect("fleet state serializes");
                let expected = old.unwrap_or_default();
                let keys = [k.clone()];
                let stored = int_reply(c.eval(
                    &self.cas,
                    &keys,
                    &[expected, new, ttl.clone()],
                    &Limits::SCALAR,
                    deadline,
                )?)?;
                if stored == 1 {
                    return Ok(());
                }
                if Instant::now() >= deadline {
                    return Err(OpError::Down(format!(
                        "redis: {name} update kept conflicting until the deadline"
                    )));
                }
                // Let the writer that won finish its round before this one reads again.
                std::thread::yield_now();
            }
        })
    }

    fn get_number(&self, k: &str) -> BackendResult<Option<f64>> {
        let v = self.with_conn(|c, deadline| {
            text_reply(c.command(&[b"GET", k.as_bytes()], &Limits::SCALAR, deadline)?)
        })?;
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
        self.update_json(key, "breaker", "breaker", BreakerState::is_sane, f)
    }

    fn shares_admission(&self) -> bool {
        true
    }

    /// The admission state as JSON under `<ns>:<key>:admission`, updated like the breaker:
    /// read, apply the pure transition of `admission::state`, store with the compare-and-set
    /// script only if no other process changed it meanwhile.
    fn with_admission(
        &self,
        key: &str,
        f: &mut dyn FnMut(&mut AdmissionState),
    ) -> BackendResult<()> {
        use std::hash::BuildHasher;
        let stripe =
            (foldhash::fast::FixedState::default().hash_one(key) as usize) % ADMISSION_STRIPES;
        let _turn = lock(&self.state().admission_turns[stripe]);
        self.update_json(key, "admission", "admission", AdmissionState::is_sane, f)
    }

    fn spend(&self, key: &str, cost: f64, cfg: &BudgetConfig) -> BackendResult<bool> {
        let keys = [self.k(key, "tokens")];
        let argv = [
            cost.to_string(),
            cfg.capacity.to_string(),
            TTL_S.to_string(),
        ];
        let ok = self.with_conn(|c, deadline| {
            int_reply(c.eval(&self.spend, &keys, &argv, &Limits::SCALAR, deadline)?)
        })?;
        Ok(ok == 1)
    }

    fn earn(&self, key: &str, amount: f64, cfg: &BudgetConfig) -> BackendResult<()> {
        let keys = [self.k(key, "tokens")];
        let argv = [
            amount.to_string(),
            cfg.capacity.to_string(),
            TTL_S.to_string(),
        ];
        self.with_conn(|c, deadline| {
            text_reply(c.eval(&self.earn, &keys, &argv, &Limits::SCALAR, deadline)?)
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
        let keys = [self.k(key, "pause")];
        let argv = [until.to_string(), TTL_S.to_string()];
        self.with_conn(|c, deadline| {
            int_reply(c.eval(&self.extend_pause, &keys, &argv, &Limits::SCALAR, deadline)?)
        })?;
        Ok(())
    }
}
