//! `retry_core::policy`: policies and presets as a native handle. Python's `RetryPolicy`
//! (`retry_core/_policy.py`) adds keyword arguments and wraps this class.

use pyo3::exceptions::PyTypeError;
use pyo3::prelude::*;
use retry_core::__private::policy::PRESETS;
use retry_core::{ErrorCode, RetryPolicy};

use crate::error::{guard, invalid_argument, OrRaise};

#[pyclass(frozen, name = "RetryPolicy", module = "retry_core._native")]
pub struct PyRetryPolicy {
    pub inner: RetryPolicy,
}

fn checked(py: Python<'_>, p: RetryPolicy) -> PyResult<PyRetryPolicy> {
    p.validate().or_raise(py)?;
    Ok(PyRetryPolicy { inner: p })
}

#[pymethods]
impl PyRetryPolicy {
    /// A preset by its contract name.
    #[staticmethod]
    #[pyo3(signature = (name, /))]
    fn _preset(py: Python<'_>, name: &str) -> PyResult<Self> {
        guard(py, || {
            Ok(PyRetryPolicy {
                inner: RetryPolicy::preset(name).or_raise(py)?,
            })
        })
    }

    /// A policy from a configuration map given as JSON text (keys as in core/src/policy.rs).
    #[staticmethod]
    #[pyo3(signature = (json, /))]
    fn _from_config(py: Python<'_>, json: &str) -> PyResult<Self> {
        guard(py, || {
            Ok(PyRetryPolicy {
                inner: RetryPolicy::from_config(json).or_raise(py)?,
            })
        })
    }

    /// SwarmSDK's `call_llm_with_retry(max_retries:, delay:)`.
    #[staticmethod]
    #[pyo3(signature = (max_retries, delay, /))]
    fn _swarm_sdk(py: Python<'_>, max_retries: i64, delay: f64) -> PyResult<Self> {
        guard(py, || {
            Ok(PyRetryPolicy {
                inner: RetryPolicy::swarm_sdk_checked(max_retries, delay).or_raise(py)?,
            })
        })
    }

    /// The policy a `call_llm_with_retry` gets from its arguments: the core's one rule
    /// (`RetryPolicy::for_call`). Both forms at once are a call-signature error: `TypeError`.
    #[staticmethod]
    #[pyo3(signature = (policy, max_retries, delay, /))]
    fn _for_call(
        py: Python<'_>,
        policy: Option<PyRef<'_, PyRetryPolicy>>,
        max_retries: Option<i64>,
        delay: Option<f64>,
    ) -> PyResult<Self> {
        let given = policy.map(|p| p.inner.clone());
        guard(py, || {
            match RetryPolicy::for_call(given, max_retries, delay) {
                Ok(inner) => Ok(PyRetryPolicy { inner }),
                Err(e) if e.code == ErrorCode::InvalidArgument => {
                    Err(PyTypeError::new_err(e.message))
                }
                Err(e) => Err(e).or_raise(py),
            }
        })
    }

    /// PlanExe's `RetryConfig(max_retries, base_delay, max_delay, backoff_multiplier)`.
    #[staticmethod]
    #[pyo3(signature = (max_retries, base_delay, max_delay, backoff_multiplier, /))]
    fn _llm_executor(
        py: Python<'_>,
        max_retries: u32,
        base_delay: f64,
        max_delay: f64,
        backoff_multiplier: f64,
    ) -> PyResult<Self> {
        guard(py, || {
            checked(
                py,
                RetryPolicy::llm_executor(max_retries, base_delay, max_delay, backoff_multiplier),
            )
        })
    }

    /// The policy as a configuration map (JSON text); round-trips through `_from_config`.
    fn _to_config(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || Ok(self.inner.to_config()))
    }

    /// The backoff delay before retry `n` (0-based), without jitter or `retry-after`.
    #[pyo3(signature = (n, /))]
    fn _backoff_delay(&self, py: Python<'_>, n: i64) -> PyResult<f64> {
        guard(py, || {
            let n = u32::try_from(n)
                .map_err(|_| invalid_argument(py, format!("retry index must be >= 0, got {n}")))?;
            Ok(self.inner.backoff.delay(n))
        })
    }

    /// The preset it came from, or `custom`.
    #[getter]
    fn name(&self) -> &str {
        &self.inner.name
    }

    /// Total calls allowed, the first included.
    #[getter]
    fn max_attempts(&self) -> u32 {
        self.inner.max_attempts
    }

    /// The limit as the policy's users count it (`max_retries` in events).
    #[getter]
    fn max_retries(&self) -> u32 {
        self.inner.reported_max()
    }

    fn __eq__(&self, other: &Bound<'_, PyAny>) -> bool {
        other
            .cast::<PyRetryPolicy>()
            .is_ok_and(|o| o.get().inner == self.inner)
    }

    fn __repr__(&self) -> String {
        format!(
            "RetryPolicy(name={:?}, max_attempts={})",
            self.inner.name, self.inner.max_attempts
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyRetryPolicy>()?;
    m.add("PRESETS", PRESETS.to_vec())?;
    Ok(())
}
