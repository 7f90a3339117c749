//! `RetryCore::Run` (core `run.rs`): one logical call as a step machine. Each input method
//! answers with one Array, `[step, events, log_lines]`, so that a front door makes one native
//! call per step:
//!
//! - `step`: `[:call, model]`, `[:wait, seconds, reason]`, `[:skip, model, seconds]`,
//!   `[:prune_orphans]`, `[:compact_context]`, `[:return]`, `[:give_up, reason]`, `[:reraise]`;
//! - `events`: the events emitted meanwhile, as Hashes (Symbol keys, `type:` first);
//! - `log_lines`: for each event, in the same order, `[level, text]` (`:warn` or `:info`, the
//!   core's one line for it, `messages::log_line`) or nil when the event is not logged.

use std::cell::RefCell;
use std::sync::Arc;

use magnus::{
    prelude::*, rb_sys::AsRawValue, Error, Integer, RArray, RModule, RString, Ruby, Symbol, Value,
};
use retry_core::__private::run::HookAnswer;
use retry_core::{Action, Decision, ErrorNames, EventKind, Run, RunConfig, Step};

use crate::category::RbClassification;
use crate::convert::rstring_lossy;
use crate::error::{guard, invalid_argument, to_ruby};
use crate::events;
use crate::failure::RbFailure;
use crate::fleet::{RbFleet, RbSlot};
use crate::nogvl::without_gvl;
use crate::policy::RbPolicy;

/// The decision of a run's last failure (`Run#decision`).
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
    retry_core::__private::run::check_elapsed(elapsed).map_err(|m| invalid_argument(ruby, m))
}

/// One run. Per logical call; not meant to be shared between threads.
#[magnus::wrap(class = "RetryCore::Run", free_immediately, size)]
pub struct RbRun {
    inner: RefCell<Run>,
    /// The fleet keeps its state in another process (Redis): run without the GVL.
    remote: bool,
}

fn step_array(ruby: &Ruby, step: Step) -> Result<RArray, Error> {
    let a = ruby.ary_new_capa(3);
    a.push(ruby.to_symbol(step.name()))?;
    match step {
        Step::Call { model } => a.push(model)?,
        Step::Wait { seconds, reason } => {
            a.push(seconds)?;
            a.push(ruby.to_symbol(reason.as_str()))?;
        }
        Step::Skip { model, seconds } => {
            a.push(model)?;
            a.push(seconds)?;
        }
        Step::GiveUp { reason } => a.push(ruby.to_symbol(reason.as_str()))?,
        Step::Stalled { reason } => a.push(ruby.to_symbol(reason.as_str()))?,
        Step::PruneOrphans | Step::CompactContext | Step::Return | Step::Reraise => {}
    }
    Ok(a)
}

impl RbRun {
    fn new(
        ruby: &Ruby,
        policy: &RbPolicy,
        config: Option<RString>,
        fleet: Option<&RbFleet>,
        keys: Option<RArray>,
        swarm_names: bool,
    ) -> Result<Self, Error> {
        Self::new_holding(ruby, policy, config, fleet, keys, swarm_names, None)
    }

    /// `_new` for a call whose first attempt went on `slot` (`Fleet#_admits_freely_with`) and
    /// failed: the run settles that slot with the failure (core `Run::holding`).
    fn new_holding(
        ruby: &Ruby,
        policy: &RbPolicy,
        config: Option<RString>,
        fleet: Option<&RbFleet>,
        keys: Option<RArray>,
        swarm_names: bool,
        slot: Option<&RbSlot>,
    ) -> Result<Self, Error> {
        let slot = slot.map(|s| s.0.clone());
        let config = config.map(rstring_lossy);
        let mut owned_keys = Vec::new();
        if let Some(keys) = keys {
            for i in 0..keys.len() {
                owned_keys.push(rstring_lossy(keys.entry::<RString>(i as isize)?));
            }
        }
        let keys = owned_keys;
        guard(ruby, || {
            let mut cfg = match config {
                Some(json) => RunConfig::from_json(&json).map_err(|e| to_ruby(ruby, e))?,
                None => RunConfig::default(),
            };
            if swarm_names {
                // `llm_request_failed` names its `error_type` as SwarmSDK does (the adapter).
                cfg.error_names = ErrorNames::SwarmSdk;
            }
            let mut run = Run::with_config(policy.0.clone(), cfg);
            let mut remote = false;
            if let Some(fleet) = fleet {
                if keys.is_empty() || keys.iter().any(String::is_empty) {
                    return Err(invalid_argument(
                        ruby,
                        "a fleet needs a key (a provider and model, e.g. \"openai:gpt-4o\")",
                    ));
                }
                remote = fleet.remote();
                run = run.fleet(Arc::clone(&fleet.0), keys);
                if let Some(slot) = slot {
                    run = run.holding(slot);
                }
            }
            Ok(RbRun {
                inner: RefCell::new(run),
                remote,
            })
        })
    }

    /// Runs one input on the machine (without the GVL when the fleet is remote; `f` touches
    /// only owned Rust values) and answers `[step, events, log_lines]`.
    fn step(
        ruby: &Ruby,
        rb_self: &Self,
        f: impl FnOnce(&mut Run) -> Step,
    ) -> Result<RArray, Error> {
        let mut inner = rb_self
            .inner
            .try_borrow_mut()
            .map_err(|_| to_ruby(ruby, retry_core::Error::invalid_state("the run is in use")))?;
        let run = &mut *inner;
        let (step, evs) = if rb_self.remote {
            without_gvl(|| {
                let s = f(run);
                (s, run.take_events())
            })
        } else {
            let s = f(run);
            (s, run.take_events())
        };
        drop(inner);
        let out = ruby.ary_new_capa(3);
        out.push(step_array(ruby, step)?)?;
        out.push(events::to_array(ruby, &evs)?)?;
        out.push(events::log_lines(ruby, &evs)?)?;
        Ok(out)
    }

    /// The call ended by an exception the loop does not rescue (`Timeout.timeout`, `Interrupt`,
    /// `Thread#kill`): frees a half-open probe's slot at once (core `Run::abandon`), not at the
    /// next GC. Never raises (it runs in an `ensure`).
    fn abandon(rb_self: &Self) {
        let Ok(mut inner) = rb_self.inner.try_borrow_mut() else {
            return;
        };
        let run = &mut *inner;
        if rb_self.remote {
            without_gvl(|| {
                run.abandon();
            });
        } else {
            run.abandon();
        }
        let _ = run.take_events();
    }

    fn start(ruby: &Ruby, rb_self: &Self, elapsed: f64) -> Result<RArray, Error> {
        guard(ruby, || {
            let t = elapsed_ok(ruby, elapsed)?;
            Self::step(ruby, rb_self, |r| r.start(t))
        })
    }

    /// `usage`: what the answer reports its usage in (`usage.rs`: the answer's usage Hash or
    /// object, a body holding it, or nil); `headers`: the response's header object or nil. For a
    /// fleet's admission to settle the reservation and learn the limits.
    fn succeeded(
        ruby: &Ruby,
        rb_self: &Self,
        elapsed: f64,
        usage: Value,
        headers: Value,
    ) -> Result<RArray, Error> {
        let usage = crate::usage::usage_of(ruby, usage);
        guard(ruby, || {
            let headers = crate::failure::response_headers(ruby, headers)?;
            let t = elapsed_ok(ruby, elapsed)?;
            Self::step(ruby, rb_self, |r| {
                r.succeeded_with(t, usage.as_ref(), &headers)
            })
        })
    }

    fn failed(
        ruby: &Ruby,
        rb_self: &Self,
        failure: &RbFailure,
        elapsed: f64,
    ) -> Result<RArray, Error> {
        guard(ruby, || {
            let t = elapsed_ok(ruby, elapsed)?;
            let f = failure.0.clone();
            Self::step(ruby, rb_self, move |r| r.failed(&f, t))
        })
    }

    fn resume(ruby: &Ruby, rb_self: &Self, elapsed: f64) -> Result<RArray, Error> {
        guard(ruby, || {
            let t = elapsed_ok(ruby, elapsed)?;
            Self::step(ruby, rb_self, |r| r.resume(t))
        })
    }

    /// `pruned`: how many orphan tool calls went, or a hook's answer (an Integer, or true or
    /// false for its truth), read by the core's rule (`run::HookAnswer`).
    fn pruned(ruby: &Ruby, rb_self: &Self, pruned: Value, elapsed: f64) -> Result<RArray, Error> {
        guard(ruby, || {
            let pruned = hook_answer(ruby, pruned)?.pruned();
            let t = elapsed_ok(ruby, elapsed)?;
            Self::step(ruby, rb_self, |r| r.pruned(pruned, t))
        })
    }

    fn compacted(
        ruby: &Ruby,
        rb_self: &Self,
        compacted: bool,
        elapsed: f64,
    ) -> Result<RArray, Error> {
        guard(ruby, || {
            let t = elapsed_ok(ruby, elapsed)?;
            Self::step(ruby, rb_self, |r| r.compacted(compacted, t))
        })
    }

    fn borrowed<T>(ruby: &Ruby, rb_self: &Self, f: impl FnOnce(&Run) -> T) -> Result<T, Error> {
        let inner = rb_self
            .inner
            .try_borrow()
            .map_err(|_| to_ruby(ruby, retry_core::Error::invalid_state("the run is in use")))?;
        Ok(f(&inner))
    }

    /// The decision of the last failure (nil before any).
    fn decision(ruby: &Ruby, rb_self: &Self) -> Result<Option<RbDecision>, Error> {
        guard(ruby, || {
            Self::borrowed(ruby, rb_self, |r| r.decision().cloned().map(RbDecision))
        })
    }

    /// The give-up note (core `messages::give_up_note`), nil before any failure.
    fn note(ruby: &Ruby, rb_self: &Self) -> Result<Option<String>, Error> {
        guard(ruby, || Self::borrowed(ruby, rb_self, Run::note))
    }

    fn attempts(ruby: &Ruby, rb_self: &Self) -> Result<u32, Error> {
        guard(ruby, || Self::borrowed(ruby, rb_self, Run::attempts))
    }

    /// The model being tried (an index into the configuration's models).
    fn model(ruby: &Ruby, rb_self: &Self) -> Result<usize, Error> {
        guard(ruby, || Self::borrowed(ruby, rb_self, Run::model))
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

/// A hook's answer as the core reads it: true or false is a truth, an Integer a count (a Bignum
/// beyond 128 bits counts as its sign's end); anything else is the caller's mistake.
fn hook_answer(ruby: &Ruby, v: Value) -> Result<HookAnswer, Error> {
    if v.as_raw() == ruby.qtrue().as_raw() || v.as_raw() == ruby.qfalse().as_raw() {
        return Ok(HookAnswer::Truthy(v.to_bool()));
    }
    match Integer::from_value(v) {
        Some(n) => Ok(HookAnswer::Count(match n.to_i64() {
            Ok(n) => i128::from(n),
            Err(_) if n.funcall::<_, _, bool>(">", (0,))? => i128::MAX,
            Err(_) => i128::MIN,
        })),
        None => Err(crate::error::type_error(
            ruby,
            format!(
                "pruned must be an Integer, true or false, not {}",
                v.class()
            ),
        )),
    }
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let class = module.define_class("Run", ruby.class_object())?;
    // The run's own event types (core `EventKind::RUN`): SwarmSDK's LogStream gets none of them.
    let run_events: Vec<&str> = EventKind::RUN.iter().map(|k| k.as_str()).collect();
    class.const_set("EVENTS", run_events)?;
    class.undef_default_alloc_func();
    class.define_singleton_method("_new", magnus::function!(RbRun::new, 5))?;
    class.define_singleton_method("_new_holding", magnus::function!(RbRun::new_holding, 6))?;
    class.define_method("_start", magnus::method!(RbRun::start, 1))?;
    class.define_method("_abandon", magnus::method!(RbRun::abandon, 0))?;
    class.define_method("_succeeded", magnus::method!(RbRun::succeeded, 3))?;
    class.define_method("_failed", magnus::method!(RbRun::failed, 2))?;
    class.define_method("_resume", magnus::method!(RbRun::resume, 1))?;
    class.define_method("_pruned", magnus::method!(RbRun::pruned, 2))?;
    class.define_method("_compacted", magnus::method!(RbRun::compacted, 2))?;
    class.define_method("decision", magnus::method!(RbRun::decision, 0))?;
    class.define_method("note", magnus::method!(RbRun::note, 0))?;
    class.define_method("attempts", magnus::method!(RbRun::attempts, 0))?;
    class.define_method("model", magnus::method!(RbRun::model, 0))?;

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
