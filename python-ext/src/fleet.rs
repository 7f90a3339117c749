//! `retry_core::fleet`: one shared [`Fleet`] (budget, breaker, shared pauses, metrics) per Python
//! object. Python's `retry_core.Fleet` (`retry_core/_fleet.py`) adds keyword arguments and
//! config files; calls attach to it through their run (`run.rs`).
//!
//! Every method that may talk to Redis runs with the GIL released: a Redis that is slow or gone
//! costs the calling thread up to the backend's I/O timeout, never every other Python thread.
//! Inputs are copied into owned Rust values before the GIL is released.

use std::sync::Arc;

use pyo3::prelude::*;
use pyo3::types::{PyBool, PyDict, PyFloat, PyInt, PyList, PyString};
use retry_core::driver::{Clock, ManualClock};
use retry_core::fleet::{Cost, Fleet, FleetConfig, Reservation, Usage};
use retry_core::Headers;

use crate::error::{guard, OrRaise};
use crate::events::json_to_py;

/// A fleet shared by every call that names it. Immutable from Python; its state lives behind
/// the core's own locks (or in Redis), so any number of threads may use one object.
#[pyclass(frozen, name = "Fleet", module = "retry_core._native")]
pub struct PyFleet {
    pub inner: Arc<Fleet>,
    /// Whether the backend does I/O (Redis): then calls release the GIL.
    pub remote: bool,
}

impl PyFleet {
    fn new(fleet: Fleet) -> Self {
        let remote = fleet.is_remote();
        PyFleet {
            inner: Arc::new(fleet),
            remote,
        }
    }

    /// Runs `f` on the fleet, with the GIL released when the backend does I/O.
    pub fn run<T: Send>(&self, py: Python<'_>, f: impl FnOnce(&Fleet) -> T + Send) -> T {
        let fleet: &Fleet = &self.inner;
        if self.remote {
            py.detach(|| f(fleet))
        } else {
            f(fleet)
        }
    }
}

#[pymethods]
impl PyFleet {
    /// `Fleet._from_json(json)`: keys as in `core/src/fleet/mod.rs` (`FleetConfig`). A Redis
    /// backend does not connect here: a Redis that is down at start is the same as one that goes
    /// down later (calls fall back to local state).
    #[staticmethod]
    #[pyo3(signature = (json, /))]
    fn _from_json(py: Python<'_>, json: &str) -> PyResult<Self> {
        guard(py, || {
            let cfg = FleetConfig::from_json(json).or_raise(py)?;
            let fleet = Fleet::from_config(cfg).or_raise(py)?;
            Ok(PyFleet::new(fleet))
        })
    }

    /// `Fleet._with_manual_clock(json, start)` (tests): a fleet whose wall clock is a virtual
    /// `_ManualClock` showing `start`, returned with it (`clock._set(t)` moves it).
    #[staticmethod]
    #[pyo3(signature = (json, start, /))]
    fn _with_manual_clock(
        py: Python<'_>,
        json: &str,
        start: f64,
    ) -> PyResult<(Self, PyManualClock)> {
        guard(py, || {
            if !start.is_finite() {
                return Err(crate::error::invalid_argument(
                    py,
                    "the time must be finite",
                ));
            }
            let cfg = FleetConfig::from_json(json).or_raise(py)?;
            let clock = ManualClock::new(start);
            let fleet = Fleet::from_config(cfg)
                .or_raise(py)?
                .with_clock(clock.wall_clock());
            Ok((PyFleet::new(fleet), PyManualClock { inner: clock }))
        })
    }

    /// `in_process` or `redis`.
    #[getter]
    fn backend(&self) -> &'static str {
        self.inner.backend_name()
    }

    /// The configuration, as JSON text (the Python wrapper parses it).
    fn _config_json(&self, py: Python<'_>) -> PyResult<String> {
        guard(py, || {
            Ok(serde_json::to_string(self.inner.config()).unwrap_or_else(|_| "{}".to_owned()))
        })
    }

    /// `{key: {category: counters, ..., "total": counters}}` as plain dicts.
    fn _metrics<'py>(&self, py: Python<'py>) -> PyResult<Bound<'py, PyAny>> {
        guard(py, || {
            let snapshot = self.inner.metrics().snapshot();
            match json_to_py(py, &snapshot)? {
                d if d.is_instance_of::<PyDict>() => Ok(d),
                _ => Ok(PyDict::new(py).into_any()),
            }
        })
    }

    /// Forgets every counter.
    fn _reset_metrics(&self, py: Python<'_>) -> PyResult<()> {
        guard(py, || {
            self.inner.metrics().reset();
            Ok(())
        })
    }

    /// The success path's gate: whether a call of `key` may go at once with nothing to report
    /// (`Fleet::admits_freely`). A remote fleet answers `false`, so the success path never does
    /// I/O: such calls take the whole run, whose first step asks the gate.
    #[pyo3(signature = (key, /))]
    fn _admits_freely(&self, key: &str) -> bool {
        self.inner.admits_freely(key)
    }

    /// A first call of `key` succeeded: the metrics, budget and breaker told. Returns its events
    /// as `(event, level, line)` triples (`run.rs`), or None when there are none (the usual case).
    #[pyo3(signature = (key, /))]
    fn _succeeded<'py>(&self, py: Python<'py>, key: &str) -> PyResult<Option<Bound<'py, PyList>>> {
        guard(py, || {
            let events = self.run(py, |f| f.succeeded(key, false));
            if events.is_empty() {
                return Ok(None);
            }
            crate::events::pending(py, &events).map(Some)
        })
    }

    /// The success path with a cost (core `Fleet::admits_freely_with`): `None` when the call
    /// must take the whole run; `True` when it may go and holds nothing (admission off); a
    /// `_Slot` when it may go on the admission slot it now holds, to settle by
    /// `_succeeded_with` or hand to the run of a failed call. `cost`: `(input_tokens,
    /// output_tokens)` from `_estimate`, or None for one request.
    #[pyo3(signature = (key, cost, /))]
    fn _admits_freely_with<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        cost: Option<(f64, f64)>,
    ) -> PyResult<Option<Bound<'py, PyAny>>> {
        if !self.inner.admission_on() {
            return Ok(self
                .inner
                .admits_freely(key)
                .then(|| PyBool::new(py, true).to_owned().into_any()));
        }
        guard(py, || {
            let cost = cost_of(py, cost)?;
            match self.inner.admits_freely_with(key, &cost) {
                None => Ok(None),
                Some(r) => Ok(Some(Bound::new(py, PySlot { inner: r })?.into_any())),
            }
        })
    }

    /// A call that went on `slot` (`_admits_freely_with`) succeeded at once: the slot settled
    /// against the answer's `usage` (see `usage_of`) and the limits learned from `headers`,
    /// then the metrics, budget and breaker told (core `Fleet::succeeded_with`). Events as in
    /// `_succeeded`.
    #[pyo3(signature = (key, slot, usage=None, headers=None, /))]
    fn _succeeded_with<'py>(
        &self,
        py: Python<'py>,
        key: &str,
        slot: &Bound<'py, PySlot>,
        usage: Option<&Bound<'py, PyAny>>,
        headers: Option<Vec<(String, String)>>,
    ) -> PyResult<Option<Bound<'py, PyList>>> {
        guard(py, || {
            let usage = usage.and_then(usage_of);
            let headers: Headers = headers.unwrap_or_default().into_iter().collect();
            let events =
                self.inner
                    .succeeded_with(key, &slot.get().inner, usage.as_ref(), &headers);
            if events.is_empty() {
                return Ok(None);
            }
            crate::events::pending(py, &events).map(Some)
        })
    }

    /// Whether the fleet's admission is on: the front door then reads each answer's usage.
    #[getter]
    fn _admission(&self) -> bool {
        self.inner.admission_on()
    }

    /// An attempt's estimated cost as `(input_tokens, output_tokens)`, checked by the core:
    /// `tokens` given, that many input tokens; else the fleet's estimate (core
    /// `Fleet::estimate`) of a request of `request_bytes` bytes asking for `max_tokens`.
    #[pyo3(signature = (tokens, request_bytes, max_tokens, /))]
    fn _estimate(
        &self,
        py: Python<'_>,
        tokens: Option<f64>,
        request_bytes: usize,
        max_tokens: u64,
    ) -> PyResult<(f64, f64)> {
        guard(py, || {
            let cost = match tokens {
                Some(t) => Cost::new(t, 0.0).map_err(|e| {
                    crate::error::invalid_argument(py, format!("estimate: {}", e.message))
                })?,
                None => self.inner.estimate(request_bytes, max_tokens),
            };
            Ok((cost.input_tokens, cost.output_tokens))
        })
    }

    /// The byte count of `messages` as compact UTF-8 JSON (`separators=(",", ":")`,
    /// `ensure_ascii=False`: what `estimate=` measures), counted without writing it; None when
    /// `messages` holds anything but dicts with str keys, lists, tuples, str, int, bool and
    /// None (floats, other types, a str with a lone surrogate, nesting past 64 levels): the
    /// caller then serializes it.
    #[pyo3(signature = (messages, /))]
    fn _json_size(&self, messages: &Bound<'_, PyAny>) -> Option<usize> {
        crate::estimate::json_size(messages, 0)
    }

    /// `estimate=` checked and made the attempt's cost `(input_tokens, output_tokens)`: an int
    /// of tokens, or a mapping with `messages` and/or `max_tokens` (`estimate.rs`). Raises
    /// `TypeError` or `ValueError` (or the core's `InvalidArgumentError`) for a bad one.
    #[pyo3(signature = (estimate, /))]
    fn _cost(&self, py: Python<'_>, estimate: &Bound<'_, PyAny>) -> PyResult<(f64, f64)> {
        guard(py, || crate::estimate::cost(py, &self.inner, estimate))
    }

    /// The retry-budget tokens left for `key` (None without a budget).
    #[pyo3(signature = (key, /))]
    fn _tokens(&self, py: Python<'_>, key: String) -> PyResult<Option<f64>> {
        guard(py, || Ok(self.run(py, move |f| f.tokens(&key))))
    }

    fn __repr__(&self) -> String {
        format!("Fleet(backend={:?})", self.inner.backend_name())
    }
}

/// An admission slot a call holds (core `Reservation`), from `Fleet._admits_freely_with`.
#[pyclass(frozen, name = "_Slot", module = "retry_core._native")]
pub struct PySlot {
    pub inner: Reservation,
}

/// An estimate `(input_tokens, output_tokens)` as the core's cost (one request when None).
pub fn cost_of(py: Python<'_>, cost: Option<(f64, f64)>) -> PyResult<Cost> {
    match cost {
        None => Ok(Cost::REQUEST),
        Some((input, output)) => Cost::new(input, output)
            .map_err(|e| crate::error::invalid_argument(py, format!("estimate: {}", e.message))),
    }
}

/// The usage an answer reports, read by the core's rule (`Usage::from_fields`) from what the
/// front door found: a raw response's body text (core `Usage::from_body`), or the answer's
/// `usage` object or mapping, whose numeric fields named in `Usage::FIELDS` are read as
/// they are (a pydantic model's through its `__dict__`), without serializing anything.
pub fn usage_of(obj: &Bound<'_, PyAny>) -> Option<Usage> {
    if let Ok(text) = obj.cast::<PyString>() {
        return Usage::from_body(&text.to_cow().ok()?);
    }
    let number = |v: Bound<'_, PyAny>| -> Option<f64> {
        if v.is_instance_of::<PyBool>() {
            None
        } else if v.is_instance_of::<PyInt>() || v.is_instance_of::<PyFloat>() {
            v.extract::<f64>().ok()
        } else {
            None
        }
    };
    let dict = match obj.cast::<PyDict>() {
        Ok(d) => Some(d.clone()),
        Err(_) => obj
            .getattr(pyo3::intern!(obj.py(), "__dict__"))
            .ok()
            .and_then(|d| d.cast_into::<PyDict>().ok()),
    };
    if let Some(d) = dict {
        // The field names as Python strings, made once: this runs on every admitted success.
        static NAMES: pyo3::sync::PyOnceLock<[Py<PyString>; 5]> = pyo3::sync::PyOnceLock::new();
        let py = obj.py();
        let names = NAMES.get_or_init(py, || {
            Usage::FIELDS.map(|k| PyString::intern(py, k).unbind())
        });
        let at = |k: &str| Usage::FIELDS.iter().position(|f| *f == k);
        return Usage::from_fields(|k| {
            let name = names[at(k)?].bind(py);
            d.get_item(name).ok().flatten().and_then(number)
        });
    }
    if obj.hasattr("keys").unwrap_or(false) {
        // Another mapping.
        return Usage::from_fields(|k| obj.get_item(k).ok().and_then(number));
    }
    Usage::from_fields(|k| obj.getattr(k).ok().and_then(number))
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
                return Err(crate::error::invalid_argument(
                    py,
                    "the time must be finite",
                ));
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
    m.add_class::<PyFleet>()?;
    m.add_class::<PyManualClock>()?;
    m.add_class::<PySlot>()?;
    Ok(())
}
