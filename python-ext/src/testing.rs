//! `retry_core::testing`: the process-wide testing switch (virtual time the fleets share, a
//! fixed jitter seed, the events recorded). Python's `retry_core.testing()` flips it and routes
//! the front doors' waits to `_testing_sleep`.

use pyo3::prelude::*;
use pyo3::types::PyList;
use retry_core::testing::{self, Host};

use crate::error::guard;
use crate::events::events_list;

/// `_testing_on(seed)`: one more level of the switch.
#[pyfunction]
#[pyo3(signature = (seed, /))]
fn _testing_on(seed: u64) {
    testing::on(seed);
}

/// `_testing_off()`: one level less; real time when none is left.
#[pyfunction]
fn _testing_off() {
    testing::off();
}

/// `_testing_sleep(seconds)`: with the switch on, the virtual clock moves to the wait's end and
/// the answer is `True` at once; off, `False` (sleep for real).
#[pyfunction]
#[pyo3(signature = (seconds, /))]
fn _testing_sleep(seconds: f64) -> bool {
    testing::sleep(seconds)
}

/// `_testing_now()`: the virtual wall clock (Unix seconds), or `None` when the switch is off.
#[pyfunction]
fn _testing_now() -> Option<f64> {
    testing::now()
}

/// `_testing_elapsed()`: virtual seconds since the switch went on, or `None`.
#[pyfunction]
fn _testing_elapsed() -> Option<f64> {
    testing::elapsed()
}

/// `_testing_events()`: the events recorded since the switch went on, as dicts.
#[pyfunction]
fn _testing_events<'py>(py: Python<'py>) -> PyResult<Bound<'py, PyList>> {
    guard(py, || events_list(py, &testing::recorded()))
}

/// `_stalled_message()`: the misuse error's text when a run stalls (core
/// `testing::stalled_message`), naming Python's switch.
#[pyfunction]
fn _stalled_message() -> String {
    testing::stalled_message(Host::Python)
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_testing_on, m)?)?;
    m.add_function(wrap_pyfunction!(_testing_off, m)?)?;
    m.add_function(wrap_pyfunction!(_testing_sleep, m)?)?;
    m.add_function(wrap_pyfunction!(_testing_now, m)?)?;
    m.add_function(wrap_pyfunction!(_testing_elapsed, m)?)?;
    m.add_function(wrap_pyfunction!(_testing_events, m)?)?;
    m.add_function(wrap_pyfunction!(_stalled_message, m)?)?;
    Ok(())
}
