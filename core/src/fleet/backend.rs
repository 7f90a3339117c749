//! Where fleet state lives. One trait, two backends: [`InProcess`] (threads and tasks of one
//! process) and, behind the `redis` feature, `RedisBackend` (processes on many machines).
//! The decisions (breaker transitions, budget arithmetic) are the pure functions of
//! [`super::breaker`] and [`super::budget`]; a backend only makes them atomic.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, RwLock};

use super::breaker::BreakerState;
use super::budget::{self, BudgetConfig};

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
}

/// One key's state in process. It is also a [`FleetBackend`] for that key alone (the `key`
/// arguments are ignored): the fleet's success path looks the key up once and works on it.
#[derive(Default)]
pub struct KeyState {
    breaker: Mutex<BreakerState>,
    tokens: Mutex<Option<f64>>,
    pause_until: Mutex<f64>,
}

/// Fleet state shared by the threads and tasks of one process. The map is behind a read-write
/// lock that is only written when a key is first seen; each key has its own small locks, so
/// callers of different keys never contend and the success path takes no global lock.
#[derive(Default)]
pub struct InProcess {
    keys: RwLock<HashMap<String, Arc<KeyState>, foldhash::fast::RandomState>>,
}

impl InProcess {
    /// An empty in-process state.
    pub fn new() -> Self {
        Self::default()
    }

    /// The state of `key`, created when first seen.
    pub fn key(&self, key: &str) -> Arc<KeyState> {
        if let Some(k) = self.keys.read().unwrap_or_else(|e| e.into_inner()).get(key) {
            return Arc::clone(k);
        }
        let mut w = self.keys.write().unwrap_or_else(|e| e.into_inner());
        Arc::clone(w.entry(key.to_owned()).or_default())
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
