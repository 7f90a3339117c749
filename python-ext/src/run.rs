//! `retry_core::run`: one logical call as a step machine ([`Run`]). The front doors in Python
//! (`retry_core/_retry.py`, `retry_core/llm_executor.py`) only interpret its steps: call, wait
//! with `time.sleep` / `asyncio.sleep`, prune, compact, return or raise.
//!
//! One native call per step: each input returns `(step, pending)`, where `step` is a small tuple
//! (`("call", model)`, `("wait", seconds, reason)`, `("skip", model, seconds)`,
//! `("prune_orphans",)`, `("compact_context",)`, `("return",)`, `("give_up", reason)`,
//! `("reraise",)`, `("stalled", reason)`) and `pending` is `None` or the new events as `(event, level, line)` triples:
//! the event as a dict, and its one log line (core `messages::log_line`) with its `logging`
//! level, or `(event, 0, None)` for an event that is not logged (`events::pending`).
//!
//! Steps that may reach a Redis fleet, and failures with a large body, run with the GIL
//! released. `Run.decision` is the decision of the last failure ([`PyDecision`]).

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyInt, PyList, PyTuple};
use retry_core::__private::messages::{format_seconds, give_up_note};
use retry_core::__private::run::HookAnswer;
use retry_core::fleet::{Cost, Usage};
use retry_core::{Action, Decision, Failure, Headers, Run, RunConfig, Step};

use crate::category::PyClassification;
use crate::error::{guard, invalid_argument, OrRaise};
use crate::events::{events_list, pending};
use crate::failure::PyFailureRecord;
use crate::fleet::PyFleet;
use crate::policy::PyRetryPolicy;

fn step_tuple<'py>(py: Python<'py>, step: Step) -> PyResult<Bound<'py, PyTuple>> {
    let name = step.name();
    Ok(match step {
        Step::Call { model } => (name, model).into_pyobject(py)?,
        Step::Wait { seconds, reason } => (name, seconds, reason.as_str()).into_pyobject(py)?,
        Step::Skip { model, seconds } => (name, model, seconds).into_pyobject(py)?,
        Step::GiveUp { reason } => (name, reason.as_str()).into_pyobject(py)?,
        Step::Stalled { reason } => (name, reason.as_str()).into_pyobject(py)?,
        Step::PruneOrphans | Step::CompactContext | Step::Return | Step::Reraise => {
            PyTuple::new(py, [name])?
        }
    })
}

/// `elapsed` checked by the core's rule (`run::check_elapsed`), raised as `InvalidArgumentError`.
fn check_elapsed(py: Python<'_>, elapsed: f64) -> PyResult<f64> {
    retry_core::__private::run::check_elapsed(elapsed).map_err(|m| invalid_argument(py, m))
}

/// One logical call, from its first attempt to its end.
#[pyclass(name = "Run", module = "retry_core._native")]
pub struct PyRun {
    inner: Run,
    /// The fleet does I/O (Redis): release the GIL around every step that may reach it.
    remote: bool,
}

impl PyRun {
    /// Runs `f` on the run (the GIL released when `detach`), then returns `(step, pending)`.
    fn step<'py>(
        &mut self,
        py: Python<'py>,
        detach: bool,
        f: impl FnOnce(&mut Run) -> Step + Send,
    ) -> PyResult<Bound<'py, PyTuple>> {
        let inner = &mut self.inner;
        let step = if detach {
            py.detach(|| f(inner))
        } else {
            f(inner)
        };
        let step = step_tuple(py, step)?;
        if self.inner.has_events() {
            let events = self.inner.take_events();
            (step, pending(py, &events)?).into_pyobject(py)
        } else {
            (step, py.None()).into_pyobject(py)
        }
    }
}

#[pymethods]
impl PyRun {
    /// `Run(policy, config_json=None, fleet=None, keys=None, estimate=None)`, all positional.
    /// `config_json`: a `RunConfig` as JSON (unknown keys refused); `fleet` and `keys` come
    /// together (model `i` under `keys[i]`, or every model under the one key given);
    /// `estimate`: each attempt's `(input_tokens, output_tokens)` for the fleet's admission
    /// (`Fleet._estimate`).
    #[new]
    /// `slot`: the admission slot the first attempt went on (`Fleet._admits_freely_with`),
    /// when that attempt failed (core `Run::holding`).
    #[pyo3(signature = (policy, config_json=None, fleet=None, keys=None, estimate=None, slot=None, /))]
    fn new(
        py: Python<'_>,
        policy: &Bound<'_, PyRetryPolicy>,
        config_json: Option<&str>,
        fleet: Option<&Bound<'_, PyFleet>>,
        keys: Option<Vec<String>>,
        estimate: Option<(f64, f64)>,
        slot: Option<&Bound<'_, crate::fleet::PySlot>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let cfg = match config_json {
                Some(json) => RunConfig::from_json(json).or_raise(py)?,
                None => RunConfig::default(),
            };
            let mut run = Run::with_config(policy.get().inner.clone(), cfg);
            if let Some((input, output)) = estimate {
                run = run.estimate(Cost::new(input, output).or_raise(py)?);
            }
            let mut remote = false;
            match (fleet, keys) {
                (None, None) => {}
                (Some(fleet), Some(keys))
                    if !keys.is_empty() && keys.iter().all(|k| !k.is_empty()) =>
                {
                    let fleet = fleet.get();
                    remote = fleet.remote;
                    run = run.fleet(Arc::clone(&fleet.inner), keys);
                    if let Some(slot) = slot {
                        run = run.holding(slot.get().inner.clone());
                    }
                }
                (Some(_), Some(_)) => {
                    return Err(invalid_argument(
                        py,
                        "keys must be non-empty strings, at least one",
                    ))
                }
                _ => return Err(invalid_argument(py, "a fleet needs keys, and keys a fleet")),
            }
            Ok(PyRun { inner: run, remote })
        })
    }

    /// The first step. `elapsed` is seconds since the run began.
    #[pyo3(signature = (elapsed, /))]
    fn _start<'py>(&mut self, py: Python<'py>, elapsed: f64) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            let remote = self.remote;
            self.step(py, remote, move |r| r.start(elapsed))
        })
    }

    /// The call ended by an exception the loop does not handle (Ctrl-C, a cancelled task):
    /// frees a half-open probe's slot at once (core `Run::abandon`), whatever the caller keeps.
    fn _abandon(&mut self, py: Python<'_>) {
        let inner = &mut self.inner;
        if self.remote {
            py.detach(|| inner.abandon());
        } else {
            inner.abandon();
        }
        let _ = self.inner.take_events();
    }

    /// The call asked for succeeded. `usage`: the answer's usage, a raw response's body text
    /// or the answer's `usage` object or mapping (`fleet::usage_of`), and `headers` the
    /// response's, for a fleet's admission to settle the reservation and learn the limits.
    #[pyo3(signature = (elapsed, usage=None, headers=None, /))]
    fn _succeeded<'py>(
        &mut self,
        py: Python<'py>,
        elapsed: f64,
        usage: Option<&Bound<'py, PyAny>>,
        headers: Option<Vec<(String, String)>>,
    ) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            let usage: Option<Usage> = usage.and_then(crate::fleet::usage_of);
            let headers: Headers = headers.unwrap_or_default().into_iter().collect();
            let remote = self.remote;
            self.step(py, remote, move |r| {
                r.succeeded_with(elapsed, usage.as_ref(), &headers)
            })
        })
    }

    /// The call asked for failed (allowed before `_start` when the run has no fleet).
    #[pyo3(signature = (record, elapsed, /))]
    fn _failed<'py>(
        &mut self,
        py: Python<'py>,
        record: &Bound<'py, PyFailureRecord>,
        elapsed: f64,
    ) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            let failure: &Failure = &record.get().inner;
            let detach = self.remote || crate::classify::is_big(failure);
            self.step(py, detach, move |r| r.failed(failure, elapsed))
        })
    }

    /// The wait (or skip) asked for is over.
    #[pyo3(signature = (elapsed, /))]
    fn _resume<'py>(&mut self, py: Python<'py>, elapsed: f64) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            let remote = self.remote;
            self.step(py, remote, move |r| r.resume(elapsed))
        })
    }

    /// The history was pruned: `pruned` is how many orphan tool calls went, or a hook's answer
    /// (an `int`, or a `bool` of its truth), read by the core's rule (`run::HookAnswer`).
    #[pyo3(signature = (pruned, elapsed, /))]
    fn _pruned<'py>(
        &mut self,
        py: Python<'py>,
        pruned: &Bound<'py, PyAny>,
        elapsed: f64,
    ) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let pruned = hook_answer(pruned)?.pruned();
            let elapsed = check_elapsed(py, elapsed)?;
            let remote = self.remote;
            self.step(py, remote, move |r| r.pruned(pruned, elapsed))
        })
    }

    /// The compaction hook ran; `compacted`: it changed the history.
    #[pyo3(signature = (compacted, elapsed, /))]
    fn _compacted<'py>(
        &mut self,
        py: Python<'py>,
        compacted: bool,
        elapsed: f64,
    ) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            let remote = self.remote;
            self.step(py, remote, move |r| r.compacted(compacted, elapsed))
        })
    }

    /// The events not yet returned, as `(event, level, line)` triples.
    fn _take_events<'py>(&mut self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        guard(py, || {
            let events = self.inner.take_events();
            pending(py, &events)
        })
    }

    /// The decision of the last failure, if any call failed.
    #[getter]
    fn decision(&self) -> Option<PyDecision> {
        self.inner.decision().cloned().map(PyDecision::new)
    }

    /// The note for the error raised at `give_up` (core `messages::give_up_note`).
    #[getter]
    fn note(&self) -> Option<String> {
        self.inner.note()
    }

    /// Failed calls of the current model counted so far.
    #[getter]
    fn attempts(&self) -> u32 {
        self.inner.attempts()
    }

    /// The model being tried (an index into the configuration's models; 0 without).
    #[getter]
    fn model(&self) -> usize {
        self.inner.model()
    }

    fn __repr__(&self) -> String {
        format!(
            "Run(policy={:?}, model={}, attempts={})",
            self.inner.policy().name,
            self.inner.model(),
            self.inner.attempts()
        )
    }
}

/// The decision of a run's last failure (`Run.decision`): what the engine made of it.
#[pyclass(frozen, name = "Decision", module = "retry_core._native")]
pub struct PyDecision {
    inner: Decision,
}

impl PyDecision {
    pub fn new(inner: Decision) -> Self {
        PyDecision { inner }
    }
}

#[pymethods]
impl PyDecision {
    /// `retry`, `prune_orphans`, `compact_context`, `give_up` or `reraise`.
    #[getter]
    fn action(&self) -> &'static str {
        self.inner.action.name()
    }

    /// Seconds to wait before the next call (`retry` only).
    #[getter]
    fn delay(&self) -> Option<f64> {
        match self.inner.action {
            Action::Retry { delay } => Some(delay),
            _ => None,
        }
    }

    /// Why the engine gave up (`give_up` only): `permanent`, `exhausted`,
    /// `retry_after_too_long` or `deadline`.
    #[getter]
    fn reason(&self) -> Option<&'static str> {
        match self.inner.action {
            Action::GiveUp { reason } => Some(reason.as_str()),
            _ => None,
        }
    }

    /// The number of the call that just failed, 1-based (free recoveries do not count).
    #[getter]
    fn attempt(&self) -> u32 {
        self.inner.attempt
    }

    #[getter]
    fn max_retries(&self) -> u32 {
        self.inner.max_retries
    }

    /// The server's wait, when it replaced the backoff.
    #[getter]
    fn retry_after_used(&self) -> Option<f64> {
        self.inner.retry_after_used
    }

    #[getter]
    fn classification(&self) -> PyClassification {
        PyClassification {
            inner: self.inner.classification.clone(),
        }
    }

    /// The events to emit, in order: dicts with `type` first (CONTRACT §4).
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        guard(py, || events_list(py, &self.inner.events))
    }

    /// The note attached to an exception re-raised after this decision (core
    /// `messages::give_up_note`).
    #[getter]
    fn note(&self) -> String {
        give_up_note(&self.inner)
    }

    fn __repr__(&self) -> String {
        let mut s = format!("Decision(action={:?}", self.action());
        if let Some(d) = self.delay() {
            s.push_str(&format!(", delay={}", format_seconds(d)));
        }
        if let Some(r) = self.reason() {
            s.push_str(&format!(", reason={r:?}"));
        }
        s.push_str(&format!(
            ", attempt={}, category={:?})",
            self.inner.attempt,
            self.inner.classification.category.as_str()
        ));
        s
    }
}

/// A hook's answer as the core reads it: a `bool` is a truth, an `int` a count (one beyond 128
/// bits counts as its sign's end); anything else is the caller's mistake.
fn hook_answer(v: &Bound<'_, PyAny>) -> PyResult<HookAnswer> {
    if let Ok(b) = v.cast::<PyBool>() {
        return Ok(HookAnswer::Truthy(b.is_true()));
    }
    if v.is_instance_of::<PyInt>() {
        return Ok(HookAnswer::Count(match v.extract::<i128>() {
            Ok(n) => n,
            Err(_) if v.gt(0)? => i128::MAX,
            Err(_) => i128::MIN,
        }));
    }
    Err(pyo3::exceptions::PyTypeError::new_err(format!(
        "pruned must be an int or a bool, not {}",
        v.get_type().name()?
    )))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRun>()?;
    m.add_class::<PyDecision>()?;
    Ok(())
}
