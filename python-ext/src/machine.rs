//! `retry_core::machine`: the sans-IO retrier and its decisions. The loop that calls and sleeps
//! is Python's (`retry_core/_retry.py`), so that waits go through `time.sleep` / `asyncio.sleep`.
//!
//! A retrier attached to a fleet asks it before every call (`_before_attempt`) and tells it
//! about every outcome (`_on_success`, `_on_failure`); with a Redis fleet those calls run with
//! the GIL released (the record is a frozen, immutable native value the caller keeps alive, and
//! the retrier is exclusively borrowed for the call).

use pyo3::prelude::*;
use pyo3::types::PyList;
use retry_core::machine::Gate;
use retry_core::text::format_seconds;
use retry_core::{Action, Decision, Event, Failure, Retrier};

use crate::category::PyClassification;
use crate::error::{guard, invalid_argument};
use crate::events::event_to_dict;
use crate::failure::PyFailureRecord;
use crate::fleet::PyFleet;
use crate::policy::PyRetryPolicy;

/// One retrier per logical call.
#[pyclass(name = "Retrier", module = "retry_core._native")]
pub struct PyRetrier {
    inner: Retrier,
    /// The fleet does I/O (Redis): release the GIL around every call that may reach it.
    remote: bool,
}

impl PyRetrier {
    /// Runs `f` on the retrier, with the GIL released when its fleet does I/O.
    fn run<T: Send>(&mut self, py: Python<'_>, f: impl FnOnce(&mut Retrier) -> T + Send) -> T {
        let inner = &mut self.inner;
        if self.remote {
            py.detach(|| f(inner))
        } else {
            f(inner)
        }
    }

    /// Failed calls go through here: classification and the fleet's bookkeeping.
    fn decide(
        &mut self,
        py: Python<'_>,
        record: &Bound<'_, PyFailureRecord>,
        f: impl FnOnce(&mut Retrier, &Failure) -> Decision + Send,
    ) -> PyDecision {
        let failure: &Failure = &record.get().inner;
        let inner = &mut self.inner;
        let d = if self.remote || crate::classify::is_big(failure) {
            py.detach(|| f(inner, failure))
        } else {
            f(inner, failure)
        };
        PyDecision::new(d)
    }
}

fn events_list<'py>(py: Python<'py>, events: &[Event]) -> PyResult<Bound<'py, PyList>> {
    let list = PyList::empty(py);
    for e in events {
        list.append(event_to_dict(py, e)?)?;
    }
    Ok(list)
}

/// `elapsed` checked by the core's rule (`run::check_elapsed`), raised as `InvalidArgumentError`.
pub(crate) fn check_elapsed(py: Python<'_>, elapsed: f64) -> PyResult<f64> {
    retry_core::run::check_elapsed(elapsed).map_err(|m| invalid_argument(py, m))
}

#[pymethods]
impl PyRetrier {
    /// `Retrier(policy, seed, context_hook, fleet=None, key=None)`, all positional.
    /// `seed=None` seeds from entropy; `fleet` and `key` come together.
    #[new]
    #[pyo3(signature = (policy, seed, context_hook, fleet=None, key=None, /))]
    fn new(
        py: Python<'_>,
        policy: &Bound<'_, PyRetryPolicy>,
        seed: Option<u64>,
        context_hook: bool,
        fleet: Option<&Bound<'_, PyFleet>>,
        key: Option<String>,
    ) -> PyResult<Self> {
        guard(py, || {
            let mut r = Retrier::new(policy.get().inner.clone()).with_context_hook(context_hook);
            if let Some(seed) = seed {
                r = r.with_seed(seed);
            }
            let mut remote = false;
            match (fleet, key) {
                (None, None) => {}
                (Some(fleet), Some(key)) => {
                    let fleet = fleet.get();
                    remote = fleet.remote;
                    r = r.with_fleet(std::sync::Arc::clone(&fleet.inner), key);
                }
                _ => {
                    return Err(invalid_argument(
                        py,
                        "a fleet needs a key, and a key a fleet",
                    ))
                }
            }
            Ok(PyRetrier { inner: r, remote })
        })
    }

    /// Before each call (the first included): `None` when the call may go at once and there is
    /// nothing to report, else a `Gate`. `elapsed` is seconds since the first call failed.
    #[pyo3(signature = (elapsed, /))]
    fn _before_attempt(&mut self, py: Python<'_>, elapsed: f64) -> PyResult<Option<PyGate>> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            let gate = self.run(py, |r| r.before_attempt(elapsed));
            if gate.wait.is_none() && !gate.reject && !gate.probe && gate.events.is_empty() {
                return Ok(None);
            }
            Ok(Some(PyGate { inner: gate }))
        })
    }

    /// The call succeeded: the fleet's events (`circuit_closed`, `fleet_backend_recovered`), or
    /// `None` when there are none.
    fn _on_success<'py>(&mut self, py: Python<'py>) -> PyResult<Option<Bound<'py, PyList>>> {
        guard(py, || {
            let events = self.run(py, |r| r.on_success());
            if events.is_empty() {
                return Ok(None);
            }
            Ok(Some(events_list(py, &events)?))
        })
    }

    /// A call failed; `elapsed` is seconds since the first call began.
    #[pyo3(signature = (record, elapsed, /))]
    fn _on_failure(
        &mut self,
        py: Python<'_>,
        record: &Bound<'_, PyFailureRecord>,
        elapsed: f64,
    ) -> PyResult<PyDecision> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            Ok(self.decide(py, record, move |r, f| r.on_failure(f, elapsed)))
        })
    }

    /// The caller pruned `pruned` orphan tool calls after `recover_orphans`.
    #[pyo3(signature = (pruned, record, elapsed, /))]
    fn _on_orphans_pruned(
        &mut self,
        py: Python<'_>,
        pruned: usize,
        record: &Bound<'_, PyFailureRecord>,
        elapsed: f64,
    ) -> PyResult<PyDecision> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            Ok(self.decide(py, record, move |r, f| {
                r.on_orphans_pruned(pruned, f, elapsed)
            }))
        })
    }

    /// The caller's compaction hook ran after `recover_context`.
    #[pyo3(signature = (compacted, record, elapsed, /))]
    fn _on_context_compacted(
        &mut self,
        py: Python<'_>,
        compacted: bool,
        record: &Bound<'_, PyFailureRecord>,
        elapsed: f64,
    ) -> PyResult<PyDecision> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            Ok(self.decide(py, record, move |r, f| {
                r.on_context_compacted(compacted, f, elapsed)
            }))
        })
    }

    /// Failed calls counted so far.
    #[getter]
    fn attempts(&self) -> u32 {
        self.inner.attempts()
    }

    #[getter]
    fn policy(&self) -> PyRetryPolicy {
        PyRetryPolicy {
            inner: self.inner.policy().clone(),
        }
    }
}

/// What the fleet says before a call.
#[pyclass(frozen, name = "Gate", module = "retry_core")]
pub struct PyGate {
    inner: Gate,
}

#[pymethods]
impl PyGate {
    /// Seconds to wait before asking again (a shared pause or an open circuit), or None: call.
    #[getter]
    fn wait(&self) -> Option<f64> {
        self.inner.wait
    }

    /// A retry's wait would end past the policy's deadline: stop and surface the last error.
    #[getter]
    fn reject(&self) -> bool {
        self.inner.reject
    }

    /// This call is the circuit's half-open probe.
    #[getter]
    fn probe(&self) -> bool {
        self.inner.probe
    }

    /// The fleet's events (`fleet_backend_degraded`, ...), dicts with `type` first.
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        guard(py, || events_list(py, &self.inner.events))
    }

    fn __repr__(&self) -> String {
        let wait = self
            .inner
            .wait
            .map_or_else(|| "None".to_owned(), format_seconds);
        format!(
            "Gate(wait={wait}, reject={}, probe={})",
            self.inner.reject, self.inner.probe
        )
    }
}

/// One answer of the state machine.
#[pyclass(frozen, name = "Decision", module = "retry_core")]
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
    /// `retry`, `recover_orphans`, `recover_context`, `give_up` or `reraise`.
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
    /// `text::give_up_note`).
    #[getter]
    fn note(&self) -> String {
        retry_core::text::give_up_note(&self.inner)
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

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRetrier>()?;
    m.add_class::<PyDecision>()?;
    m.add_class::<PyGate>()?;
    Ok(())
}
