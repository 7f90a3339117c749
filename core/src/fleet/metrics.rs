//! Counters of what retrying cost, by key and category: calls, retries, waits, and the calls
//! and seconds wasted on sequences that failed in the end.

use std::collections::HashMap;
use std::hash::BuildHasher;
use std::sync::{Arc, Mutex};

use super::per_process::PerProcess;

use serde::Serialize;

use super::backend::Retention;

/// What retrying cost for one key and category.
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct Counters {
    /// Calls made (successes and failures).
    pub calls: u64,
    /// Calls that succeeded.
    pub successes: u64,
    /// Calls that failed.
    pub failures: u64,
    /// Retries granted.
    pub retries: u64,
    /// Seconds of retry delay granted.
    pub waited_s: f64,
    /// Call sequences that gave up in the end.
    pub gave_up: u64,
    /// Failed calls of the sequences that gave up.
    pub wasted_calls: u64,
    /// Seconds waited by the sequences that gave up.
    pub wasted_s: f64,
}

/// What admission did for one key (only keys of a fleet with admission on have them).
#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct AdmissionCounters {
    /// Calls told to wait for admission.
    pub waits: u64,
    /// Seconds of admission wait handed out.
    pub waited_s: f64,
    /// The longest admission wait handed out, seconds.
    pub max_wait_s: f64,
    /// Limits learned (from headers, or set by a throttle).
    pub limits_learned: u64,
    /// Responses that were throttles (429, 529) on an admitted call.
    pub throttled: u64,
}

/// One key's counters as [`Metrics::rows`] copies them out.
#[derive(Debug, Clone, PartialEq)]
pub struct KeyCounters {
    /// The fleet key.
    pub key: String,
    /// Its counters by category (`success` holds the successes), categories in order.
    pub categories: Vec<(String, Counters)>,
    /// Admission's counters, when admission worked on the key.
    pub admission: Option<Box<AdmissionCounters>>,
}

/// One key's counters, by category (a key sees one to three categories: a list beats a map).
struct Entry {
    cats: Vec<(String, Counters)>,
    /// Admission's counters, when admission is on.
    admission: Option<Box<AdmissionCounters>>,
    /// Updated since the last sweep.
    touched: bool,
    /// When a sweep last saw it updated (wall-clock seconds).
    last_seen: f64,
    /// The order of the last update (the cap forgets the oldest first).
    seq: u64,
}

/// One shard: its keys and the count of its updates (the order the cap forgets in; per shard,
/// so the success paths of different keys share no counter).
#[derive(Default)]
struct ShardMap {
    map: HashMap<String, Entry, foldhash::fast::RandomState>,
    seq: u64,
}

type Shard = Mutex<ShardMap>;

/// Shards: a snapshot copies one shard at a time, so a call updating its counters never waits
/// for more than one shard's copy (about 1.2 K keys at 300 K: a call waits about 1-2 ms at most, measured).
const SHARDS: usize = 256;

/// Counters by key, then by category (`success` holds the successes). Keys not updated for the
/// fleet's `key_idle_ttl_s` are forgotten, and at most `max_keys` are held, as the fleet's
/// per-key state is ([`super::backend::Retention`]).
pub struct Metrics {
    /// This process's shards: a child of `fork()` never touches its parent's (a shard may be
    /// locked by a thread that does not exist in the child), and its counts are its own.
    shards: PerProcess<[Shard; SHARDS]>,
    pick: foldhash::fast::FixedState,
    retention: Arc<Retention>,
}

impl Default for Metrics {
    fn default() -> Self {
        Metrics::with_retention(Arc::new(Retention::default()))
    }
}

impl std::fmt::Debug for Metrics {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Metrics")
            .field("keys", &self.len())
            .finish()
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    // Counter updates are plain additions: a panic elsewhere leaves nothing half-done.
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl Metrics {
    /// Empty metrics that forget keys as `retention` says.
    pub fn with_retention(retention: Arc<Retention>) -> Self {
        Metrics {
            shards: PerProcess::new(|| std::array::from_fn(|_| Mutex::default())),
            pick: foldhash::fast::FixedState::default(),
            retention,
        }
    }

    fn shards(&self) -> &[Shard; SHARDS] {
        self.shards.get()
    }

    fn shard(&self, key: &str) -> &Shard {
        &self.shards()[(self.pick.hash_one(key) as usize) % SHARDS]
    }

    /// Applies `f` to the counters of `key` and `category`, creating them at zero if new.
    pub fn update(&self, key: &str, category: &str, f: impl FnOnce(&mut Counters)) {
        self.with_entry(key, |e| {
            match e.cats.iter_mut().find(|(c, _)| c == category) {
                Some((_, c)) => f(c),
                None => {
                    let mut c = Counters::default();
                    f(&mut c);
                    e.cats.push((category.to_owned(), c));
                }
            }
        });
    }

    /// Applies `f` to the admission counters of `key`, creating them at zero if new.
    pub fn update_admission(&self, key: &str, f: impl FnOnce(&mut AdmissionCounters)) {
        self.with_entry(key, |e| f(e.admission.get_or_insert_with(Box::default)));
    }

    /// Applies `f` to the entry of `key`, created empty if new (then the caps and sweeps run).
    fn with_entry(&self, key: &str, f: impl FnOnce(&mut Entry)) {
        let shard = self.shard(key);
        let mut guard = lock(shard);
        guard.seq += 1;
        let seq = guard.seq;
        let by = &mut guard.map;
        // Looked up first: the key is allocated only the first time it is seen.
        if let Some(e) = by.get_mut(key) {
            e.touched = true;
            e.seq = seq;
            f(e);
            return;
        }
        let now = self.retention.now();
        let mut e = Entry {
            cats: Vec::new(),
            admission: None,
            touched: true,
            last_seen: now,
            seq,
        };
        f(&mut e);
        by.insert(key.to_owned(), e);
        let cap = self.retention.per_shard(SHARDS);
        if by.len() > cap {
            Self::trim(by, cap - cap / 10);
        }
        drop(guard);
        if self.retention.claim_sweep_metrics(now) {
            let ttl = self.retention.idle_ttl_s;
            for s in self.shards() {
                lock(s).map.retain(|_, e| {
                    if std::mem::take(&mut e.touched) {
                        e.last_seen = now;
                        return true;
                    }
                    now - e.last_seen < ttl
                });
            }
            self.retention.end_sweep_metrics();
        }
    }

    /// Forgets the least recently updated keys until `keep` are left.
    fn trim(by: &mut HashMap<String, Entry, foldhash::fast::RandomState>, keep: usize) {
        let mut order: Vec<(u64, String)> = by.iter().map(|(k, e)| (e.seq, k.clone())).collect();
        order.sort_unstable();
        let excess = by.len().saturating_sub(keep);
        for (_, k) in order.into_iter().take(excess) {
            by.remove(&k);
        }
    }

    /// How many keys have counters.
    pub fn len(&self) -> usize {
        self.shards().iter().map(|s| lock(s).map.len()).sum()
    }

    /// Whether no key has counters.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// A snapshot: `{key: {category: counters}}` plus `"total"` per key (and `"admission"`, its
    /// [`AdmissionCounters`], for a key admission worked on), keys in order. Each
    /// shard is copied out under its lock, one at a time, and turned into JSON after: a call
    /// updating its counters meanwhile waits at most for one shard's copy.
    pub fn snapshot(&self) -> serde_json::Value {
        let mut out = serde_json::Map::new();
        for KeyCounters {
            key,
            categories: cats,
            admission,
        } in self.rows()
        {
            let mut total = Counters::default();
            let mut m = serde_json::Map::new();
            for (cat, c) in &cats {
                total.calls += c.calls;
                total.successes += c.successes;
                total.failures += c.failures;
                total.retries += c.retries;
                total.waited_s += c.waited_s;
                total.gave_up += c.gave_up;
                total.wasted_calls += c.wasted_calls;
                total.wasted_s += c.wasted_s;
                m.insert(
                    cat.clone(),
                    serde_json::to_value(c).expect("counters serialize"),
                );
            }
            m.insert(
                "total".into(),
                serde_json::to_value(&total).expect("counters serialize"),
            );
            if let Some(a) = admission {
                m.insert(
                    "admission".into(),
                    serde_json::to_value(&*a).expect("counters serialize"),
                );
            }
            out.insert(key, serde_json::Value::Object(m));
        }
        serde_json::Value::Object(out)
    }

    /// Every key's counters, keys in order and categories in order within a key. Each shard is
    /// copied out under its lock, one at a time: a call updating its counters meanwhile waits
    /// at most for one shard's copy.
    pub fn rows(&self) -> Vec<KeyCounters> {
        let mut all: Vec<KeyCounters> = Vec::new();
        for s in self.shards() {
            let by = lock(s);
            all.reserve(by.map.len());
            all.extend(by.map.iter().map(|(k, e)| KeyCounters {
                key: k.clone(),
                categories: e.cats.clone(),
                admission: e.admission.clone(),
            }));
        }
        all.sort_unstable_by(|a, b| a.key.cmp(&b.key));
        for row in &mut all {
            row.categories.sort_by(|a, b| a.0.cmp(&b.0));
        }
        all
    }

    /// Forgets every counter.
    pub fn reset(&self) {
        for s in self.shards() {
            lock(s).map.clear();
        }
    }
}
