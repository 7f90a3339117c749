//! `retry_core::machine`: the sans-IO retrier and its decisions. The loop that calls and sleeps
//! is Python's (`retry_core/_retry.py`), so that waits go through `time.sleep` / `asyncio.sleep`.

use pyo3::prelude::*;
use pyo3::types::PyList;
use retry_core::machine::GiveUpReason;
use retry_core::text::format_seconds;
use retry_core::{Action, Decision, Retrier};

use crate::category::PyClassification;
use crate::error::{guard, invalid_argument};
use crate::events::event_to_dict;
use crate::failure::PyFailureRecord;
use crate::policy::PyRetryPolicy;

/// One retrier per logical call.
#[pyclass(name = "Retrier", module = "retry_core._native")]
pub struct PyRetrier {
    inner: Retrier,
}

fn check_elapsed(py: Python<'_>, elapsed: f64) -> PyResult<f64> {
    if elapsed.is_finite() && elapsed >= 0.0 {
        Ok(elapsed)
    } else {
        Err(invalid_argument(py, format!("elapsed must be a finite number of seconds >= 0, got {elapsed}")))
    }
}

#[pymethods]
impl PyRetrier {
    /// `Retrier(policy, seed, context_hook)`, all positional. `seed=None` seeds from entropy.
    #[new]
    #[pyo3(signature = (policy, seed, context_hook, /))]
    fn new(py: Python<'_>, policy: &Bound<'_, PyRetryPolicy>, seed: Option<u64>, context_hook: bool) -> PyResult<Self> {
        guard(py, || {
            let mut r = Retrier::new(policy.get().inner.clone()).with_context_hook(context_hook);
            if let Some(seed) = seed {
                r = r.with_seed(seed);
            }
            Ok(PyRetrier { inner: r })
        })
    }

    /// A call failed; `elapsed` is seconds since the first call began.
    #[pyo3(signature = (record, elapsed, /))]
    fn _on_failure(&mut self, py: Python<'_>, record: &Bound<'_, PyFailureRecord>, elapsed: f64) -> PyResult<PyDecision> {
        guard(py, || {
            let elapsed = check_elapsed(py, elapsed)?;
            Ok(PyDecision::new(self.inner.on_failure(&record.get().inner, elapsed)))
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
            Ok(PyDecision::new(self.inner.on_orphans_pruned(pruned, &record.get().inner, elapsed)))
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
            Ok(PyDecision::new(self.inner.on_context_compacted(compacted, &record.get().inner, elapsed)))
        })
    }

    /// Failed calls counted so far.
    #[getter]
    fn attempts(&self) -> u32 {
        self.inner.attempts()
    }

    #[getter]
    fn policy(&self) -> PyRetryPolicy {
        PyRetryPolicy { inner: self.inner.policy().clone() }
    }
}

/// One answer of the state machine.
#[pyclass(frozen, name = "Decision", module = "retry_core")]
pub struct PyDecision {
    inner: Decision,
}

impl PyDecision {
    fn new(inner: Decision) -> Self {
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
        PyClassification { inner: self.inner.classification.clone() }
    }

    /// The events to emit, in order: dicts with `type` first (CONTRACT §4).
    #[getter]
    fn events<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
        guard(py, || {
            let list = PyList::empty(py);
            for e in &self.inner.events {
                list.append(event_to_dict(py, e)?)?;
            }
            Ok(list)
        })
    }

    /// The note attached to an exception re-raised after this decision.
    #[getter]
    fn note(&self) -> String {
        note(&self.inner)
    }

    fn __repr__(&self) -> String {
        let mut s = format!("Decision(action={:?}", self.action());
        if let Some(d) = self.delay() {
            s.push_str(&format!(", delay={}", format_seconds(d)));
        }
        if let Some(r) = self.reason() {
            s.push_str(&format!(", reason={r:?}"));
        }
        s.push_str(&format!(", attempt={}, category={:?})", self.inner.attempt, self.inner.classification.category.as_str()));
        s
    }
}

/// `retry-core: rate_limited (transient, status 429); gave up after 3 attempts (limit reached)`.
fn note(d: &Decision) -> String {
    let c = &d.classification;
    let mut head = format!("retry-core: {} ({}", c.category, if c.transient { "transient" } else { "permanent" });
    if let Some(s) = c.status {
        head.push_str(&format!(", status {s}"));
    }
    if let Some(ra) = c.retry_after {
        head.push_str(&format!(", retry-after {} s", format_seconds(ra)));
    }
    head.push(')');
    let plural = |n: u32| if n == 1 { "attempt" } else { "attempts" };
    let tail = match d.action {
        Action::GiveUp { reason: GiveUpReason::Permanent } => "not retried".to_owned(),
        Action::GiveUp { reason: GiveUpReason::Exhausted } => {
            format!("gave up after {} {} (limit reached)", d.attempt, plural(d.attempt))
        }
        Action::GiveUp { reason: GiveUpReason::RetryAfterTooLong } => format!(
            "gave up after {} {}: the server asked for a longer wait than the policy allows",
            d.attempt,
            plural(d.attempt)
        ),
        Action::GiveUp { reason: GiveUpReason::Deadline } => {
            format!("gave up after {} {}: the next wait would pass the deadline", d.attempt, plural(d.attempt))
        }
        // Reasons the core may add later read as their code.
        Action::GiveUp { reason } => format!("gave up after {} {} ({})", d.attempt, plural(d.attempt), reason.as_str()),
        Action::Retry { delay } => format!("retrying in {} s", format_seconds(delay)),
        Action::RecoverOrphans => "recovering by pruning orphan tool calls".to_owned(),
        Action::RecoverContext => "recovering by compacting the context".to_owned(),
        Action::Reraise => "cancelled; re-raised untouched".to_owned(),
    };
    format!("{head}; {tail}")
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRetrier>()?;
    m.add_class::<PyDecision>()?;
    Ok(())
}
