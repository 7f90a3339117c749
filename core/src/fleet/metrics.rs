//! Counters of what retrying cost, by key and category: calls, retries, waits, and the calls
//! and seconds wasted on sequences that failed in the end.

use std::collections::BTreeMap;
use std::sync::Mutex;

use serde::Serialize;

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

/// Counters by key, then by category (`success` holds the successes).
#[derive(Debug, Default)]
pub struct Metrics {
    by: Mutex<BTreeMap<String, BTreeMap<String, Counters>>>,
}

impl Metrics {
    /// Applies `f` to the counters of `key` and `category`, creating them at zero if new.
    pub fn update(&self, key: &str, category: &str, f: impl FnOnce(&mut Counters)) {
        let mut by = self.by.lock().unwrap_or_else(|e| e.into_inner());
        // Looked up first: the key and category are allocated only the first time they are seen.
        if let Some(c) = by.get_mut(key).and_then(|cats| cats.get_mut(category)) {
            return f(c);
        }
        f(by.entry(key.to_owned())
            .or_default()
            .entry(category.to_owned())
            .or_default());
    }

    /// A snapshot: `{key: {category: counters}}` plus `"total"` per key.
    pub fn snapshot(&self) -> serde_json::Value {
        let by = self.by.lock().unwrap_or_else(|e| e.into_inner());
        let mut out = serde_json::Map::new();
        for (key, cats) in by.iter() {
            let mut total = Counters::default();
            let mut m = serde_json::Map::new();
            for (cat, c) in cats {
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
            out.insert(key.clone(), serde_json::Value::Object(m));
        }
        serde_json::Value::Object(out)
    }

    /// Forgets every counter.
    pub fn reset(&self) {
        self.by.lock().unwrap_or_else(|e| e.into_inner()).clear();
    }
}
