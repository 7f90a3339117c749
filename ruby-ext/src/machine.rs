//! `RetryCore::Retrier` and `RetryCore::Decision` (core `machine.rs`): the sans-IO state
//! machine. Ruby's loop feeds it failures and waits, through `Kernel#sleep`, as it says.
//! With a fleet, the loop also asks it before each call (`_before_attempt`) and tells it of a
//! success (`_on_success`).

use std::cell::RefCell;
use std::sync::Arc;

use magnus::{prelude::*, Error, RArray, RModule, RString, Ruby, Symbol};
use retry_core::events::REQUEST_FAILED;
use retry_core::{Action, Decision, Failure, Retrier};

use crate::category::RbClassification;
use crate::convert::rstring_lossy;
use crate::error::{guard, invalid_argument};
use crate::events;
use crate::failure::RbFailure;
use crate::fleet::RbFleet;
use crate::nogvl::without_gvl;
use crate::policy::RbPolicy;

/// The per-call state. One per logical call; not meant to be shared between threads.
#[magnus::wrap(class = "RetryCore::Retrier", free_immediately, size)]
pub struct RbRetrier {
    inner: RefCell<Retrier>,
    /// Name `llm_request_failed`'s `error_type` as SwarmSDK does (the SwarmSDK adapter).
    swarm_names: bool,
    /// The retrier's fleet keeps its state in another process (Redis): every call may wait on
    /// the network, so it runs without the GVL.
    remote: bool,
}

/// One answer of the state machine.
#[magnus::wrap(
    class = "RetryCore::Decision",
    free_immediately,
    size,
    frozen_shareable
)]
pub struct RbDecision(pub Decision);

/// `elapsed` checked by the core's rule (`run::check_elapsed`), raised as
/// `RetryCore::InvalidArgumentError`.
pub(crate) fn elapsed_ok(ruby: &Ruby, elapsed: f64) -> Result<f64, Error> {
    retry_core::run::check_elapsed(elapsed).map_err(|m| invalid_argument(ruby, m))
}

impl RbRetrier {
    fn new(
        ruby: &Ruby,
        policy: &RbPolicy,
        seed: Option<u64>,
        context_hook: bool,
        swarm_names: bool,
        fleet: Option<&RbFleet>,
        key: Option<RString>,
    ) -> Result<Self, Error> {
        let key = key.map(rstring_lossy);
        guard(ruby, || {
            let mut r = Retrier::new(policy.0.clone()).with_context_hook(context_hook);
            if let Some(seed) = seed {
                r = r.with_seed(seed);
            }
            let mut remote = false;
            match (fleet, key) {
                (Some(fleet), Some(key)) if !key.is_empty() => {
                    remote = fleet.remote();
                    r = r.with_fleet(Arc::clone(&fleet.0), key);
                }
                (Some(_), _) => {
                    return Err(invalid_argument(
                        ruby,
                        "a fleet needs a key (a provider and model, e.g. \"openai:gpt-4o\")",
                    ))
                }
                (None, _) => {}
            }
            Ok(RbRetrier {
                inner: RefCell::new(r),
                swarm_names,
                remote,
            })
        })
    }

    fn finish(&self, failure: &Failure, mut d: Decision) -> RbDecision {
        if self.swarm_names {
            for e in d.events.iter_mut().filter(|e| e.kind == REQUEST_FAILED) {
                let name = retry_core::text::swarm_error_type(failure, &d.classification);
                e.fields.insert("error_type".into(), name.into());
            }
        }
        RbDecision(d)
    }

    /// Runs `f` on the state machine; without the GVL when the fleet is remote. `f` must only
    /// touch owned Rust values.
    fn with_inner<T>(&self, ruby: &Ruby, f: impl FnOnce(&mut Retrier) -> T) -> Result<T, Error> {
        // No Ruby code runs while the state is borrowed; with the GVL released (a remote
        // fleet), another thread calling this same retrier meanwhile gets InvalidStateError.
        let mut inner = self.inner.try_borrow_mut().map_err(|_| {
            crate::error::to_ruby(
                ruby,
                retry_core::Error::invalid_state("the retrier is in use"),
            )
        })?;
        Ok(if self.remote {
            without_gvl(|| f(&mut inner))
        } else {
            f(&mut inner)
        })
    }

    /// The failure record to hand to `with_inner`: a copy when the GVL will be released, so
    /// that nothing Ruby owns is read without it.
    fn owned<'a>(&self, failure: &'a RbFailure) -> std::borrow::Cow<'a, Failure> {
        if self.remote {
            std::borrow::Cow::Owned(failure.0.clone())
        } else {
            std::borrow::Cow::Borrowed(&failure.0)
        }
    }

    fn on_failure(
        ruby: &Ruby,
        rb_self: &Self,
        failure: &RbFailure,
        elapsed: f64,
    ) -> Result<RbDecision, Error> {
        guard(ruby, || {
            let elapsed = elapsed_ok(ruby, elapsed)?;
            let f = rb_self.owned(failure);
            let d = rb_self.with_inner(ruby, |r| r.on_failure(&f, elapsed))?;
            Ok(rb_self.finish(&f, d))
        })
    }

    fn on_orphans_pruned(
        ruby: &Ruby,
        rb_self: &Self,
        pruned: usize,
        failure: &RbFailure,
        elapsed: f64,
    ) -> Result<RbDecision, Error> {
        guard(ruby, || {
            let elapsed = elapsed_ok(ruby, elapsed)?;
            let f = rb_self.owned(failure);
            let d = rb_self.with_inner(ruby, |r| r.on_orphans_pruned(pruned, &f, elapsed))?;
            Ok(rb_self.finish(&f, d))
        })
    }

    fn on_context_compacted(
        ruby: &Ruby,
        rb_self: &Self,
        compacted: bool,
        failure: &RbFailure,
        elapsed: f64,
    ) -> Result<RbDecision, Error> {
        guard(ruby, || {
            let elapsed = elapsed_ok(ruby, elapsed)?;
            let f = rb_self.owned(failure);
            let d = rb_self.with_inner(ruby, |r| r.on_context_compacted(compacted, &f, elapsed))?;
            Ok(rb_self.finish(&f, d))
        })
    }

    fn attempts(ruby: &Ruby, rb_self: &Self) -> Result<u32, Error> {
        let inner = rb_self.inner.try_borrow_mut().map_err(|_| {
            crate::error::to_ruby(
                ruby,
                retry_core::Error::invalid_state("the retrier is in use"),
            )
        })?;
        Ok(inner.attempts())
    }

    /// Before each call, the first included: `[wait, reject, probe, events]`. `wait`: seconds
    /// to sleep before asking again (a shared pause, an open circuit), or nil to call now;
    /// `reject`: stop and re-raise the last error (the wait would overrun the deadline);
    /// `probe`: this call is the circuit's half-open probe. Without a fleet: `[nil, false,
    /// false, []]`.
    fn before_attempt(ruby: &Ruby, rb_self: &Self, elapsed: f64) -> Result<RArray, Error> {
        guard(ruby, || {
            let elapsed = elapsed_ok(ruby, elapsed)?;
            let gate = rb_self.with_inner(ruby, |r| r.before_attempt(elapsed))?;
            let out = ruby.ary_new_capa(4);
            out.push(gate.wait)?;
            out.push(gate.reject)?;
            out.push(gate.probe)?;
            out.push(events::to_array(ruby, &gate.events)?)?;
            Ok(out)
        })
    }

    /// After a call succeeded: the fleet's events (`circuit_closed`, backend changes), if any.
    fn on_success(ruby: &Ruby, rb_self: &Self) -> Result<RArray, Error> {
        guard(ruby, || {
            let evs = rb_self.with_inner(ruby, |r| r.on_success())?;
            events::to_array(ruby, &evs)
        })
    }
}

impl RbDecision {
    fn action(ruby: &Ruby, rb_self: &Self) -> Symbol {
        ruby.to_symbol(rb_self.0.action.name())
    }

    fn delay(&self) -> Option<f64> {
        match self.0.action {
            Action::Retry { delay } => Some(delay),
            _ => None,
        }
    }

    fn reason(ruby: &Ruby, rb_self: &Self) -> Option<Symbol> {
        match rb_self.0.action {
            Action::GiveUp { reason } => Some(ruby.to_symbol(reason.as_str())),
            _ => None,
        }
    }

    fn attempt(&self) -> u32 {
        self.0.attempt
    }

    fn max_retries(&self) -> u32 {
        self.0.max_retries
    }

    fn retry_after_used(&self) -> Option<f64> {
        self.0.retry_after_used
    }

    fn classification(&self) -> RbClassification {
        RbClassification(self.0.classification.clone())
    }

    fn events(ruby: &Ruby, rb_self: &Self) -> Result<RArray, Error> {
        guard(ruby, || events::to_array(ruby, &rb_self.0.events))
    }
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let class = module.define_class("Retrier", ruby.class_object())?;
    class.undef_default_alloc_func();
    class.define_singleton_method("_new", magnus::function!(RbRetrier::new, 6))?;
    class.define_method("_on_failure", magnus::method!(RbRetrier::on_failure, 2))?;
    class.define_method(
        "_on_orphans_pruned",
        magnus::method!(RbRetrier::on_orphans_pruned, 3),
    )?;
    class.define_method(
        "_on_context_compacted",
        magnus::method!(RbRetrier::on_context_compacted, 3),
    )?;
    class.define_method("attempts", magnus::method!(RbRetrier::attempts, 0))?;
    class.define_method(
        "_before_attempt",
        magnus::method!(RbRetrier::before_attempt, 1),
    )?;
    class.define_method("_on_success", magnus::method!(RbRetrier::on_success, 0))?;

    let class = module.define_class("Decision", ruby.class_object())?;
    class.undef_default_alloc_func();
    class.define_method("action", magnus::method!(RbDecision::action, 0))?;
    class.define_method("delay", magnus::method!(RbDecision::delay, 0))?;
    class.define_method("reason", magnus::method!(RbDecision::reason, 0))?;
    class.define_method("attempt", magnus::method!(RbDecision::attempt, 0))?;
    class.define_method("max_retries", magnus::method!(RbDecision::max_retries, 0))?;
    class.define_method(
        "retry_after_used",
        magnus::method!(RbDecision::retry_after_used, 0),
    )?;
    class.define_method(
        "classification",
        magnus::method!(RbDecision::classification, 0),
    )?;
    class.define_method("events", magnus::method!(RbDecision::events, 0))?;
    Ok(())
}
