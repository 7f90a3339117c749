//! `retry_core::run`: one logical call as a step machine ([`Run`]). The front doors in Python
//! (`retry_core/_retry.py`, `retry_core/llm_executor.py`) only interpret its steps: call, wait
//! with `time.sleep` / `asyncio.sleep`, prune, compact, return or raise.
//!
//! One native call per step: each input returns `(step, pending)`, where `step` is a small tuple
//! (`("call", model)`, `("wait", seconds, reason)`, `("skip", model, seconds)`,
//! `("prune_orphans",)`, `("compact_context",)`, `("return",)`, `("give_up", reason)`,
//! `("reraise",)`) and `pending` is `None` or the new events as `(event, level, line)` triples:
//! the event as a dict, and its one log line (core `text::log_line`) with its `logging` level,
//! or `(event, 0, None)` for an event that is not logged.
//!
//! As with the retrier (`machine.rs`), calls that may reach a Redis fleet, and failures with a
//! large body, run with the GIL released.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyList, PyTuple};
use retry_core::driver::{Clock, ManualClock};
use retry_core::run::{log_line, LogLevel, Run, RunConfig, Step};
use retry_core::{Event, Failure};

use crate::error::{guard, invalid_argument, OrRaise};
use crate::events::event_to_dict;
use crate::failure::PyFailureRecord;
use crate::fleet::PyFleet;
use crate::machine::PyDecision;
use crate::policy::PyRetryPolicy;

/// Python's `logging.WARNING` and `logging.INFO`.
fn level(l: LogLevel) -> i32 {
    match l {
        LogLevel::Warning => 30,
        LogLevel::Info => 20,
    }
}

fn step_tuple<'py>(py: Python<'py>, step: Step) -> PyResult<Bound<'py, PyTuple>> {
    let name = step.name();
    Ok(match step {
        Step::Call { model } => (name, model).into_pyobject(py)?,
        Step::Wait { seconds, reason } => (name, seconds, reason.as_str()).into_pyobject(py)?,
        Step::Skip { model, seconds } => (name, model, seconds).into_pyobject(py)?,
        Step::GiveUp { reason } => (name, reason.as_str()).into_pyobject(py)?,
        Step::PruneOrphans | Step::CompactContext | Step::Return | Step::Reraise => {
            PyTuple::new(py, [name])?
        }
    })
}

/// The events as `(event, level, line)` triples (`(event, 0, None)` when not logged).
pub(crate) fn pending<'py>(py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        let dict = event_to_dict(py, e)?;
        let item = match log_line(e) {
            Some((l, line)) => (dict, level(l), Some(line)).into_pyobject(py)?,
            None => (dict, 0, None::<String>).into_pyobject(py)?,
        };
        list.append(item)?;
    }
    Ok(list)
}

use crate::machine::check_elapsed;

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
    /// `Run(policy, config_json=None, fleet=None, keys=None)`, all positional. `config_json`:
    /// a `RunConfig` as JSON (unknown keys refused); `fleet` and `keys` come together (model `i`
    /// under `keys[i]`, or every model under the one key given).
    #[new]
    #[pyo3(signature = (policy, config_json=None, fleet=None, keys=None, /))]
    fn new(
        py: Python<'_>,
        policy: &Bound<'_, PyRetryPolicy>,
        config_json: Option<&str>,
        fleet: Option<&Bound<'_, PyFleet>>,
        keys: Option<Vec<String>>,
    ) -> PyResult<Self> {
        guard(py, || {
            let cfg = match config_json {
                Some(json) => RunConfig::from_json(json).or_raise(py)?,
                None => RunConfig::default(),
            };
            let mut run = Run::with_config(policy.get().inner.clone(), cfg);
            let mut remote = false;
            match (fleet, keys) {
                (None, None) => {}
                (Some(fleet), Some(keys))
                    if !keys.is_empty() && keys.iter().all(|k| !k.is_empty()) =>
                {
                    let fleet = fleet.get();
                    remote = fleet.remote;
                    run = run.fleet(Arc::clone(&fleet.inner), keys);
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

    /// The call asked for succeeded.
    #[pyo3(signature = (elapsed, /))]
    fn _succeeded<'py>(&mut self, py: Python<'py>, elapsed: f64) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            let remote = self.remote;
            self.step(py, remote, move |r| r.succeeded(elapsed))
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

    /// The history was pruned: `pruned` orphan tool calls removed.
    #[pyo3(signature = (pruned, elapsed, /))]
    fn _pruned<'py>(
        &mut self,
        py: Python<'py>,
        pruned: usize,
        elapsed: f64,
    ) -> PyResult<Bound<'py, PyTuple>> {
        guard(py, || {
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

    /// The note for the error raised at `give_up` (core `text::give_up_note`).
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

/// A virtual clock for a test fleet: `_set(t)` moves it.
#[pyclass(frozen, name = "_ManualClock", module = "retry_core._native")]
pub struct PyManualClock {
    pub inner: ManualClock,
}

#[pymethods]
impl PyManualClock {
    #[pyo3(signature = (t, /))]
    fn _set(&self, py: Python<'_>, t: f64) -> PyResult<()> {
        guard(py, || {
            if !t.is_finite() {
                return Err(invalid_argument(py, "the time must be finite"));
            }
            self.inner.set(t);
            Ok(())
        })
    }

    fn _now(&self) -> f64 {
        self.inner.now()
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRun>()?;
    m.add_class::<PyManualClock>()?;
    m.add("MAX_PRUNED", retry_core::run::MAX_PRUNED)?;
    Ok(())
}
