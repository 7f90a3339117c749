//! The Redis backend: one budget, breaker and pause per key for agents in many processes on
//! many machines. Every update is atomic on the server (a Lua script, or a compare-and-set script
//! around the pure breaker transition). When Redis cannot be reached the call never blocks or
//! fails on it: the operation errors at once (short timeouts, and no reconnect attempt for a
//! while after a failure) and the fleet falls back to local state.

use std::sync::Mutex;
use std::time::{Duration, Instant};

use super::backend::{BackendError, BackendResult, FleetBackend};
use super::breaker::BreakerState;
use super::budget::BudgetConfig;
use crate::error::{Error, Result};

/// Budget arithmetic, atomically (mirrors `budget::spend`): KEYS[1] tokens; ARGV cost, capacity, ttl.
const SPEND: &str = r#"
local t = tonumber(redis.call('GET', KEYS[1]) or ARGV[2])
local cost = tonumber(ARGV[1])
if t >= cost then t = t - cost; redis.call('SET', KEYS[1], tostring(t), 'EX', ARGV[3]); return 1 end
redis.call('SET', KEYS[1], tostring(t), 'EX', ARGV[3])
return 0
"#;

/// Mirrors `budget::earn`: KEYS[1] tokens; ARGV amount, capacity, ttl.
const EARN: &str = r#"
local t = tonumber(redis.call('GET', KEYS[1]) or ARGV[2]) + tonumber(ARGV[1])
if t > tonumber(ARGV[2]) then t = tonumber(ARGV[2]) end
redis.call('SET', KEYS[1], tostring(t), 'EX', ARGV[3])
return tostring(t)
"#;

/// Pause until max(current, ARGV[1]): KEYS[1] pause; ARGV until, ttl.
const EXTEND_PAUSE: &str = r#"
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
if tonumber(ARGV[1]) > cur then redis.call('SET', KEYS[1], ARGV[1], 'EX', ARGV[2]) end
return 1
"#;

/// Compare-and-set: KEYS[1]; ARGV expected (empty = absent), new, ttl.
const CAS: &str = r#"
local cur = redis.call('GET', KEYS[1]) or ''
if cur == ARGV[1] then redis.call('SET', KEYS[1], ARGV[2], 'EX', ARGV[3]); return 1 end
return 0
"#;

/// Keys live a day after their last update: fleet state is about the present.
const TTL_S: u64 = 86_400;
/// How long a call may spend on Redis before it is presumed down.
const IO_TIMEOUT: Duration = Duration::from_millis(250);
/// After a failure, how long to use local state before trying Redis again.
const RECONNECT_AFTER: Duration = Duration::from_secs(2);

struct Conn {
    conn: Option<redis::Connection>,
    down_until: Option<Instant>,
}

pub struct RedisBackend {
    client: redis::Client,
    namespace: String,
    conn: Mutex<Conn>,
    spend: redis::Script,
    earn: redis::Script,
    extend_pause: redis::Script,
    cas: redis::Script,
}

impl RedisBackend {
    /// A backend for `url` (`redis://127.0.0.1:6379/0`). Does not connect yet: a Redis that is
    /// down at start is the same as one that goes down later.
    pub fn new(url: &str, namespace: &str) -> Result<Self> {
        let client = redis::Client::open(url)
            .map_err(|e| Error::invalid_policy(format!("invalid redis_url: {e}")))?;
        Ok(RedisBackend {
            client,
            namespace: namespace.to_owned(),
            conn: Mutex::new(Conn {
                conn: None,
                down_until: None,
            }),
            spend: redis::Script::new(SPEND),
            earn: redis::Script::new(EARN),
            extend_pause: redis::Script::new(EXTEND_PAUSE),
            cas: redis::Script::new(CAS),
        })
    }

    fn k(&self, key: &str, what: &str) -> String {
        format!("{}:{}:{}", self.namespace, key, what)
    }

    /// Runs `f` on a live connection, or fails at once while Redis is presumed down.
    fn with_conn<T>(
        &self,
        f: impl FnOnce(&mut redis::Connection) -> redis::RedisResult<T>,
    ) -> BackendResult<T> {
        let mut c = self.conn.lock().unwrap_or_else(|e| e.into_inner());
        if let Some(until) = c.down_until {
            if Instant::now() < until {
                return Err(BackendError(
                    "redis unavailable (waiting before reconnecting)".into(),
                ));
            }
        }
        if c.conn.is_none() {
            let conn = self
                .client
                .get_connection_with_timeout(IO_TIMEOUT)
                .and_then(|conn| {
                    conn.set_read_timeout(Some(IO_TIMEOUT))?;
                    conn.set_write_timeout(Some(IO_TIMEOUT))?;
                    Ok(conn)
                });
            match conn {
                Ok(conn) => c.conn = Some(conn),
                Err(e) => {
                    c.down_until = Some(Instant::now() + RECONNECT_AFTER);
                    return Err(BackendError(format!("redis: {e}")));
                }
            }
        }
        let result = f(c.conn.as_mut().expect("connected above"));
        match result {
            Ok(v) => {
                c.down_until = None;
                Ok(v)
            }
            Err(e) => {
                c.conn = None;
                c.down_until = Some(Instant::now() + RECONNECT_AFTER);
                Err(BackendError(format!("redis: {e}")))
            }
        }
    }
}

impl FleetBackend for RedisBackend {
    fn name(&self) -> &'static str {
        "redis"
    }

    fn with_breaker(&self, key: &str, f: &mut dyn FnMut(&mut BreakerState)) -> BackendResult<()> {
        let k = self.k(key, "breaker");
        // Optimistic: read, apply the pure transition, store only if nobody changed it meanwhile.
        for _ in 0..16 {
            let old: Option<String> = self.with_conn(|c| redis::cmd("GET").arg(&k).query(c))?;
            let mut state = old
                .as_deref()
                .and_then(|s| serde_json::from_str(s).ok())
                .unwrap_or_default();
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
        Err(BackendError(
            "redis: breaker update kept conflicting".into(),
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
        let k = self.k(key, "tokens");
        let v: Option<String> = self.with_conn(|c| redis::cmd("GET").arg(&k).query(c))?;
        Ok(v.and_then(|s| s.parse().ok()).unwrap_or(cfg.capacity))
    }

    fn pause_until(&self, key: &str) -> BackendResult<f64> {
        let k = self.k(key, "pause");
        let v: Option<String> = self.with_conn(|c| redis::cmd("GET").arg(&k).query(c))?;
        Ok(v.and_then(|s| s.parse().ok()).unwrap_or(0.0))
    }

    fn extend_pause(&self, key: &str, until: f64) -> BackendResult<()> {
        let k = self.k(key, "pause");
        let _: i32 =
            self.with_conn(|c| self.extend_pause.key(&k).arg(until).arg(TTL_S).invoke(c))?;
        Ok(())
    }
}
