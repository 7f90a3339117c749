//! `RetryCore::Fleet` (core `fleet/`): one retry budget, one circuit breaker and one shared
//! pause per key (provider and model) for every call that names the fleet, in this process or,
//! with `redis_url`, in every process that shares the Redis.

use std::sync::Arc;

use magnus::{prelude::*, Error, IntoValue, RArray, RHash, RModule, RString, Ruby, Value};
use retry_core::driver::ManualClock;
use retry_core::fleet::{Cost, Fleet, FleetConfig, Reservation};
use serde_json::Value as Json;

use crate::convert::{from_json, rstring_lossy};
use crate::error::{guard, to_ruby};
use crate::nogvl::without_gvl;

/// A fleet. Thread-safe: one is meant to be shared by every thread of a process.
#[magnus::wrap(class = "RetryCore::Fleet", free_immediately, size)]
pub struct RbFleet(pub Arc<Fleet>, pub Option<ManualClock>);

impl RbFleet {
    /// Whether the fleet's state lives in another process (its calls may block on I/O, so the
    /// binding releases the GVL around them).
    pub fn remote(&self) -> bool {
        self.0.is_remote()
    }

    /// From the JSON text of a `FleetConfig` (the Ruby side builds it from keywords or a file).
    fn new(ruby: &Ruby, json: RString) -> Result<Self, Error> {
        let json = rstring_lossy(json);
        guard(ruby, || {
            let cfg = FleetConfig::from_json(&json).map_err(|e| to_ruby(ruby, e))?;
            Fleet::from_config(cfg)
                .map(|f| RbFleet(Arc::new(f), None))
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    /// Test only: a fleet whose wall clock is virtual, at `start` (Unix seconds) until
    /// `_set_clock` moves it (the shared run vectors replay on it).
    fn with_manual_clock(ruby: &Ruby, json: RString, start: f64) -> Result<Self, Error> {
        let json = rstring_lossy(json);
        guard(ruby, || {
            if !start.is_finite() {
                return Err(crate::error::invalid_argument(ruby, "start must be finite"));
            }
            let cfg = FleetConfig::from_json(&json).map_err(|e| to_ruby(ruby, e))?;
            let clock = ManualClock::new(start);
            Fleet::from_config(cfg)
                .map(|f| RbFleet(Arc::new(f.with_clock(clock.wall_clock())), Some(clock)))
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    /// Test only: sets the virtual clock of a fleet made by `_with_manual_clock`.
    fn set_clock(ruby: &Ruby, rb_self: &Self, t: f64) -> Result<(), Error> {
        match &rb_self.1 {
            Some(clock) if t.is_finite() => {
                clock.set(t);
                Ok(())
            }
            Some(_) => Err(crate::error::invalid_argument(
                ruby,
                "the clock must be finite",
            )),
            None => Err(to_ruby(
                ruby,
                retry_core::Error::invalid_state("this fleet runs on the system clock"),
            )),
        }
    }

    /// `"in_process"` or `"redis"`.
    fn backend(&self) -> &'static str {
        self.0.backend_name()
    }

    /// The configuration, as JSON text (every default filled in).
    fn config_json(ruby: &Ruby, rb_self: &Self) -> Result<String, Error> {
        guard(ruby, || {
            serde_json::to_string(rb_self.0.config()).map_err(|e| {
                to_ruby(
                    ruby,
                    retry_core::Error::new(retry_core::ErrorCode::Internal, e.to_string()),
                )
            })
        })
    }

    /// `{key => {category => {calls:, successes:, failures:, retries:, waited_s:, gave_up:,
    /// wasted_calls:, wasted_s:}}}` with a `"total"` per key: keys and categories are data
    /// (Strings), the counters' names are fixed (Symbols).
    fn metrics(ruby: &Ruby, rb_self: &Self) -> Result<RHash, Error> {
        guard(ruby, || {
            let snapshot = rb_self.0.metrics().snapshot();
            let out = ruby.hash_new();
            if let Json::Object(keys) = &snapshot {
                for (key, categories) in keys {
                    let h = ruby.hash_new();
                    if let Json::Object(categories) = categories {
                        for (category, counters) in categories {
                            h.aset(ruby.str_new(category), from_json(ruby, counters, true)?)?;
                        }
                    }
                    out.aset(ruby.str_new(key), h)?;
                }
            }
            Ok(out)
        })
    }

    fn reset_metrics(&self) {
        self.0.metrics().reset();
    }

    /// The success path's gate: whether a call of `key` may go at once with nothing to report
    /// (core `Fleet::admits_freely`; a remote fleet answers false, so the success path never
    /// does I/O: such calls take the whole run).
    fn admits_freely(&self, key: RString) -> bool {
        // SAFETY: the bytes are only read, before any Ruby code runs again.
        match std::str::from_utf8(unsafe { key.as_slice() }) {
            Ok(key) => self.0.admits_freely(key),
            Err(_) => false,
        }
    }

    /// A first call of `key` succeeded without a run: the metrics, budget and breaker told.
    /// Answers `[events, log_lines]`, or nil when there are none (the usual case).
    fn succeeded(ruby: &Ruby, rb_self: &Self, key: RString) -> Result<Option<RArray>, Error> {
        let key = rstring_lossy(key);
        guard(ruby, || {
            let evs = rb_self.0.succeeded(&key, false);
            events_reply(ruby, &evs)
        })
    }

    /// The success path with a cost (core `Fleet::admits_freely_with`): nil when the call must
    /// take the whole run; true when it may go and holds nothing (admission off); a
    /// `Fleet::Slot` when it may go on the admission slot it now holds, to settle by
    /// `_succeeded_with` or hand to the run of a failed call (`Run._new_holding`). `cost`:
    /// `[input_tokens, output_tokens]` from `_estimate`, or nil for one request.
    fn admits_freely_with(
        ruby: &Ruby,
        rb_self: &Self,
        key: RString,
        cost: Option<(f64, f64)>,
    ) -> Result<Value, Error> {
        // SAFETY: the bytes are only read, before any Ruby code runs again.
        let Ok(key) = std::str::from_utf8(unsafe { key.as_slice() }) else {
            return Ok(ruby.qnil().as_value());
        };
        if !rb_self.0.admission_on() {
            return Ok(match rb_self.0.admits_freely(key) {
                true => ruby.qtrue().as_value(),
                false => ruby.qnil().as_value(),
            });
        }
        let cost = cost_of(ruby, cost)?;
        let slot = guard(ruby, || Ok(rb_self.0.admits_freely_with(key, &cost)))?;
        Ok(match slot {
            None => ruby.qnil().as_value(),
            Some(r) => RbSlot(r).into_value_with(ruby),
        })
    }

    /// A call that went on `slot` (`_admits_freely_with`) succeeded at once: the slot settled
    /// against the usage `usage` reports (`usage.rs`: the answer's usage, a body, or nil) and
    /// the limits learned from `headers` (the response's header object or nil), then
    /// the metrics, budget and breaker told (core `Fleet::succeeded_with`). Answers as
    /// `_succeeded`.
    fn succeeded_with(
        ruby: &Ruby,
        rb_self: &Self,
        key: RString,
        slot: &RbSlot,
        usage: Value,
        headers: Value,
    ) -> Result<Option<RArray>, Error> {
        let key = rstring_lossy(key);
        let usage = crate::usage::usage_of(ruby, usage);
        guard(ruby, || {
            let headers = crate::failure::response_headers(ruby, headers)?;
            let evs = rb_self
                .0
                .succeeded_with(&key, &slot.0, usage.as_ref(), &headers);
            events_reply(ruby, &evs)
        })
    }

    /// Whether the fleet's admission is on: the front door then reads each answer's usage.
    fn admission(&self) -> bool {
        self.0.admission_on()
    }

    /// An attempt's estimated cost, `[input_tokens, output_tokens]`, checked by the core:
    /// `tokens` given, that many input tokens; else the fleet's estimate (core
    /// `Fleet::estimate`) of a request of `request_bytes` bytes asking for `max_tokens`.
    fn estimate(
        ruby: &Ruby,
        rb_self: &Self,
        tokens: Option<f64>,
        request_bytes: usize,
        max_tokens: u64,
    ) -> Result<(f64, f64), Error> {
        guard(ruby, || {
            let cost = match tokens {
                Some(t) => Cost::new(t, 0.0).map_err(|e| {
                    to_ruby(
                        ruby,
                        retry_core::Error::invalid_argument(format!("estimate: {}", e.message)),
                    )
                })?,
                None => rb_self.0.estimate(request_bytes, max_tokens),
            };
            Ok((cost.input_tokens, cost.output_tokens))
        })
    }

    /// `estimate:` checked and read as the attempt's cost, `[input_tokens, output_tokens]`
    /// (`estimate.rs`; the core's `Fleet::estimate` decides it).
    fn cost(ruby: &Ruby, rb_self: &Self, estimate: Value) -> Result<(f64, f64), Error> {
        crate::estimate::cost(ruby, &rb_self.0, estimate)
    }

    /// The retry budget's tokens left for `key` (nil without a budget).
    fn tokens(ruby: &Ruby, rb_self: &Self, key: RString) -> Result<Option<f64>, Error> {
        let key = rstring_lossy(key);
        guard(ruby, || {
            let fleet = &rb_self.0;
            Ok(if rb_self.remote() {
                without_gvl(|| fleet.tokens(&key))
            } else {
                fleet.tokens(&key)
            })
        })
    }
}

/// An admission slot a call holds (core `Reservation`), from `Fleet#_admits_freely_with`.
#[magnus::wrap(class = "RetryCore::Fleet::Slot", free_immediately, size)]
pub struct RbSlot(pub Reservation);

/// An estimate `[input_tokens, output_tokens]` as the core's cost (one request when nil).
pub(crate) fn cost_of(ruby: &Ruby, cost: Option<(f64, f64)>) -> Result<Cost, Error> {
    match cost {
        None => Ok(Cost::REQUEST),
        Some((input, output)) => Cost::new(input, output).map_err(|e| {
            to_ruby(
                ruby,
                retry_core::Error::invalid_argument(format!("estimate: {}", e.message)),
            )
        }),
    }
}

/// Called by `Process._fork` before forking: waits until no fleet call is talking to Redis on
/// another thread (each is bounded by the backend's timeouts; 5 s at most), so that the child
/// inherits no lock held by a thread it does not have. Returns whether the wait succeeded.
fn before_fork() -> bool {
    crate::nogvl::quiesce(std::time::Duration::from_secs(5))
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let class = module.define_class("Fleet", ruby.class_object())?;
    class.define_singleton_method("_before_fork", magnus::function!(before_fork, 0))?;
    class.undef_default_alloc_func();
    class.define_singleton_method("_new", magnus::function!(RbFleet::new, 1))?;
    class.define_singleton_method(
        "_with_manual_clock",
        magnus::function!(RbFleet::with_manual_clock, 2),
    )?;
    class.define_method("_set_clock", magnus::method!(RbFleet::set_clock, 1))?;
    class.define_method("backend", magnus::method!(RbFleet::backend, 0))?;
    class.define_method("_config_json", magnus::method!(RbFleet::config_json, 0))?;
    class.define_method("metrics", magnus::method!(RbFleet::metrics, 0))?;
    class.define_method("reset_metrics", magnus::method!(RbFleet::reset_metrics, 0))?;
    class.define_method("_tokens", magnus::method!(RbFleet::tokens, 1))?;
    class.define_method("_admits_freely", magnus::method!(RbFleet::admits_freely, 1))?;
    class.define_method("_succeeded", magnus::method!(RbFleet::succeeded, 1))?;
    class.define_method("_admission", magnus::method!(RbFleet::admission, 0))?;
    class.define_method("_estimate", magnus::method!(RbFleet::estimate, 3))?;
    class.define_method("_cost", magnus::method!(RbFleet::cost, 1))?;
    class.define_method(
        "_admits_freely_with",
        magnus::method!(RbFleet::admits_freely_with, 2),
    )?;
    class.define_method(
        "_succeeded_with",
        magnus::method!(RbFleet::succeeded_with, 4),
    )?;
    let slot = class.define_class("Slot", ruby.class_object())?;
    slot.undef_default_alloc_func();
    Ok(())
}

/// A success's events for the Ruby door: `[events, log_lines]`, or nil when there are none (the
/// usual case).
fn events_reply(ruby: &Ruby, evs: &[retry_core::Event]) -> Result<Option<RArray>, Error> {
    if evs.is_empty() {
        return Ok(None);
    }
    let out = ruby.ary_new_capa(2);
    out.push(crate::events::to_array(ruby, evs)?)?;
    out.push(crate::events::log_lines(ruby, evs)?)?;
    Ok(Some(out))
}
