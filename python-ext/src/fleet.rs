//! `retry_core::fleet`: one shared [`Fleet`] (budget, breaker, shared pauses, metrics) per Python
//! object. Python's `retry_core.Fleet` (`retry_core/_fleet.py`) adds keyword arguments and
//! config files; calls attach to it through their run (`run.rs`).
//!
//! Every method that may talk to Redis runs with the GIL released: a Redis that is slow or gone
//! costs the calling thread up to the backend's I/O timeout, never every other Python thread.
//! Inputs are copied into owned Rust values before the GIL is released.

use std::sync::{Arc, Mutex};

use pyo3::intern;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyString};
use retry_core::__private::policy::PRESETS;
use retry_core::driver::{Clock, ManualClock};
use retry_core::fleet::{Fleet, FleetConfig};

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

impl PyFleet {
    /// The key of a call that may skip the run if its key is free (no pause, a closed circuit):
    /// one with the usual options on an in-process fleet. A remote fleet's calls always take the
    /// whole run, so the success path never does I/O.
    fn free_key<'py>(&self, options: &Bound<'py, PyDict>) -> Option<Bound<'py, PyAny>> {
        if self.remote {
            return None;
        }
        let key = options.get_item(intern!(options.py(), "key")).ok()??;
        // `fleet=` and `key=` alone (the caller found `fleet`), the usual call, need no walk.
        let usual = if options.len() == 2 {
            is_key(&key)
        } else {
            usual_options(options, true)
        };
        usual.then_some(key)
    }

    /// [`_call_usual`] with this fleet: `fn()` through [`Fleet::call_freely`] when the options
    /// are usual and the key free; `busy` otherwise, without calling.
    fn call_freely<'py>(
        &self,
        fn_: &Bound<'py, PyAny>,
        options: &Bound<'py, PyDict>,
        busy: Bound<'py, PyAny>,
    ) -> PyResult<Bound<'py, PyAny>> {
        let py = fn_.py();
        let Some(key) = self.free_key(options) else {
            return Ok(busy);
        };
        let Some(key) = text(&key) else {
            return Ok(busy);
        };
        match self.inner.call_freely(&key, || fn_.call0()) {
            None => Ok(busy),
            Some(Err(e)) => Err(e),
            Some(Ok((value, events))) => {
                if !events.is_empty() {
                    emit_late(options, crate::events::pending(py, &events)?)?;
                }
                Ok(value)
            }
        }
    }
}

/// The marker `_call_usual` returns when it did not call (`_native._BUSY`): made once, owned
/// here, so that reloading the Python package cannot make two.
static BUSY: PyOnceLock<Py<PyAny>> = PyOnceLock::new();

fn busy(py: Python<'_>) -> PyResult<&Py<PyAny>> {
    BUSY.get_or_try_init(py, || {
        let object = py.import("builtins")?.getattr("object")?.call0()?;
        Ok(object.unbind())
    })
}

/// Where the rare events of a success on the fast path go: the function the Python package
/// registers at import (`_native._set_event_hook`, owned here), which logs their lines and calls
/// `on_event` as the run would. Rust never reaches into the package's private modules.
static EVENT_HOOK: Mutex<Option<Py<PyAny>>> = Mutex::new(None);

/// `_set_event_hook(hook)`: `hook(on_event, pending)` receives the events of a success on the
/// fast path (`pending` as `run.rs` returns them). Set again, it replaces the last one.
#[pyfunction]
#[pyo3(signature = (hook, /))]
fn _set_event_hook(py: Python<'_>, hook: Bound<'_, PyAny>) -> PyResult<()> {
    guard(py, || {
        if !hook.is_callable() {
            return Err(crate::error::invalid_argument(
                py,
                "the event hook must be callable",
            ));
        }
        *EVENT_HOOK.lock().unwrap_or_else(|e| e.into_inner()) = Some(hook.unbind());
        Ok(())
    })
}

fn emit_late(options: &Bound<'_, PyDict>, pending: Bound<'_, PyList>) -> PyResult<()> {
    let py = options.py();
    let on_event = options.get_item(intern!(py, "on_event"))?;
    let hook = EVENT_HOOK
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
        .map(|h| h.clone_ref(py));
    match hook {
        Some(hook) => {
            hook.bind(py).call1((on_event, pending))?;
            Ok(())
        }
        None => Err(crate::error::to_py(
            py,
            retry_core::Error::invalid_state(
                "no event hook: retry_core registers one at import (_native._set_event_hook)",
            ),
        )),
    }
}

/// `_call_usual(fn, options)`: the success path of `call_llm_with_retry(fn, **options)` in one
/// native call (project targets: at most 150 ns over a plain call, 500 ns through a fleet). With
/// the usual options ([`usual_options`]) it calls `fn()` and returns its value: plainly without
/// a fleet, through the fleet's success path with one (in process, its key free). It returns the registered `busy` marker without calling otherwise (unusual
/// options, a remote fleet, a paused key or an open circuit): the caller
/// then checks the options and interprets the whole run, whose first step asks the gate. `fn`'s
/// own exception propagates untouched.
#[pyfunction]
#[pyo3(signature = (fn_, options, /))]
fn _call_usual<'py>(
    py: Python<'py>,
    fn_: &Bound<'py, PyAny>,
    options: &Bound<'py, PyDict>,
) -> PyResult<Bound<'py, PyAny>> {
    let busy = busy(py)?.bind(py).clone();
    guard(py, || match options.get_item(intern!(py, "fleet"))? {
        Some(fleet) if !fleet.is_none() => {
            // A retry_core.Fleet (or a subclass) holds its native fleet in `_inner`; anything
            // else is for `_Options` to refuse.
            let Ok(inner) = fleet.getattr(intern!(py, "_inner")) else {
                return Ok(busy);
            };
            match inner.cast::<PyFleet>() {
                Ok(inner) => inner.get().call_freely(fn_, options, busy),
                Err(_) => Ok(busy),
            }
        }
        _ if usual_options(options, false) => fn_.call0(),
        _ => Ok(busy),
    })
}

/// A Python `str` as text; None for anything else (a subclass included: it may lie).
fn text<'a>(value: &'a Bound<'_, PyAny>) -> Option<std::borrow::Cow<'a, str>> {
    value.cast_exact::<PyString>().ok()?.to_cow().ok()
}

/// A fleet key as the success path takes it: a non-empty `str`.
fn is_key(value: &Bound<'_, PyAny>) -> bool {
    text(value).is_some_and(|k| !k.is_empty())
}

/// Whether a call's options are the usual ones, which the success path may take without building
/// the run's options (Python's `_Options`): no option but `policy` (absent, None or a preset's
/// name), `on_event` (absent, None or callable) and, with `with_fleet`, `fleet` and a non-empty
/// `key` (the caller has checked `fleet`'s type). Anything else, or anything odd, is not usual:
/// the whole run checks it and says what is wrong.
pub fn usual_options(options: &Bound<'_, PyDict>, with_fleet: bool) -> bool {
    const NAMES: [&str; 4] = ["policy", "on_event", "fleet", "key"];
    let py = options.py();
    let interned = [
        intern!(py, "policy"),
        intern!(py, "on_event"),
        intern!(py, "fleet"),
        intern!(py, "key"),
    ];
    options.iter().all(|(name, value)| {
        // Keyword names are interned: found by identity, as text only when not.
        let which = interned.iter().position(|n| name.is(n)).or_else(|| {
            let name = text(&name)?;
            NAMES.iter().position(|n| *n == name)
        });
        match which {
            Some(0) => value.is_none() || text(&value).is_some_and(|s| PRESETS.contains(&&*s)),
            Some(1) => value.is_none() || value.is_callable(),
            Some(2) => with_fleet,
            Some(3) => with_fleet && is_key(&value),
            _ => false,
        }
    })
}

/// `_usual_options(options)`: [`usual_options`] without a fleet, for the plain success path.
#[pyfunction]
#[pyo3(signature = (options, /))]
fn _usual_options(options: &Bound<'_, PyDict>) -> bool {
    usual_options(options, false)
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

    /// The async success path's gate: whether a call with these `options` may go at once with
    /// nothing to report (as for `_call_usual`), read without changing anything.
    #[pyo3(signature = (options, /))]
    fn _admits_freely(&self, py: Python<'_>, options: &Bound<'_, PyDict>) -> PyResult<bool> {
        guard(py, || {
            let key = self.free_key(options);
            Ok(key
                .as_ref()
                .and_then(text)
                .is_some_and(|key| self.inner.admits_freely(&key)))
        })
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

    /// The retry-budget tokens left for `key` (None without a budget).
    #[pyo3(signature = (key, /))]
    fn _tokens(&self, py: Python<'_>, key: String) -> PyResult<Option<f64>> {
        guard(py, || Ok(self.run(py, move |f| f.tokens(&key))))
    }

    fn __repr__(&self) -> String {
        format!("Fleet(backend={:?})", self.inner.backend_name())
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
    m.add_function(wrap_pyfunction!(_usual_options, m)?)?;
    m.add_function(wrap_pyfunction!(_call_usual, m)?)?;
    m.add_function(wrap_pyfunction!(_set_event_hook, m)?)?;
    m.add("_BUSY", busy(m.py())?.clone_ref(m.py()))?;
    Ok(())
}
