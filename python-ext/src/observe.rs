//! `retry_core._native`'s observability: the core's table of names (`observe::names`), for
//! `retry_core.observability` to turn events into OpenTelemetry span events, and a fleet's
//! metrics as Prometheus text (`observe::prometheus`).

use pyo3::prelude::*;
use pyo3::types::PyDict;
use retry_core::observe::{names, prometheus};
use retry_core::EventKind;

use crate::fleet::PyFleet;

/// `{"kinds": {type: (span_event, notification, weight)}, "attributes": {key: attribute},
/// "prefix": "retry_core.", "event_type": "retry_core.event"}`: the core's one table.
#[pyfunction]
fn _observe_names(py: Python<'_>) -> PyResult<Bound<'_, PyDict>> {
    let kinds = PyDict::new(py);
    for k in EventKind::ALL {
        let n = names::of(k);
        kinds.set_item(
            k.as_str(),
            (n.span_event, n.notification, n.weight.as_str()),
        )?;
    }
    let attributes = PyDict::new(py);
    for (key, attr) in names::ATTRIBUTES {
        attributes.set_item(key, attr)?;
    }
    let out = PyDict::new(py);
    out.set_item("kinds", kinds)?;
    out.set_item("attributes", attributes)?;
    out.set_item("prefix", names::PREFIX)?;
    out.set_item("event_type", names::EVENT_TYPE)?;
    Ok(out)
}

/// The fleet's metrics as Prometheus text, at most `max_keys` keys (the GIL is released while
/// the shards are copied and the text written).
#[pyfunction]
#[pyo3(signature = (fleet, max_keys = prometheus::DEFAULT_MAX_KEYS))]
fn _prometheus_text(py: Python<'_>, fleet: &PyFleet, max_keys: usize) -> String {
    let inner = std::sync::Arc::clone(&fleet.inner);
    py.detach(move || prometheus::render(inner.metrics(), max_keys))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_observe_names, m)?)?;
    m.add_function(wrap_pyfunction!(_prometheus_text, m)?)?;
    m.add("_PROMETHEUS_DEFAULT_MAX_KEYS", prometheus::DEFAULT_MAX_KEYS)?;
    Ok(())
}
