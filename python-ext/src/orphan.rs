//! `retry_core::orphan`: pruning orphan tool calls from a history given as JSON text.
//!
//! The answer says, for each message that survives, where it came from and (only when pruning
//! changed it) its new JSON; Python keeps the caller's own objects for untouched messages.

use pyo3::prelude::*;
use retry_core::__private::orphan::{self, Edit};
use serde_json::Value;

use crate::error::{guard, OrRaise};

/// What pruning removed from one message: slots of its `tool_calls` container and of its
/// `content` list (ascending), as [`Edit::Strip`] says.
type Slots = (Vec<usize>, Vec<usize>);

/// `(sources, pruned_json, dangling_results, reminder)` where `sources` lists, for each message
/// of the new history, `(index in the old history, None when unchanged or the slots removed)`.
/// Python applies the slots to the caller's own message, so that values JSON cannot carry
/// (bytes, objects of the caller's) pass through untouched.
type PruneAnswer = (Vec<(usize, Option<Slots>)>, String, usize, String);

#[pyfunction]
#[pyo3(signature = (messages_json, /))]
pub fn _prune_orphans(py: Python<'_>, messages_json: &str) -> PyResult<PruneAnswer> {
    guard(py, || {
        let items = match serde_json::from_str::<Value>(messages_json)
            .map_err(retry_core::Error::from)
            .or_raise(py)?
        {
            Value::Array(items) => items,
            _ => {
                return Err(crate::error::invalid_argument(
                    py,
                    "the history must be a list of messages",
                ));
            }
        };
        // One pass: the history is viewed and planned once, and moved, not copied.
        let pruned = orphan::prune_json_owned(items).or_raise(py)?;
        let mut sources = Vec::with_capacity(pruned.messages.len());
        for (i, edit) in pruned.edits.into_iter().enumerate() {
            match edit {
                Edit::Remove => {}
                Edit::Keep => sources.push((i, None)),
                Edit::Strip {
                    tool_calls,
                    content,
                } => sources.push((i, Some((tool_calls, content)))),
            }
        }
        let pruned_json = serde_json::to_string(&pruned.pruned)
            .map_err(retry_core::Error::from)
            .or_raise(py)?;
        Ok((
            sources,
            pruned_json,
            pruned.dangling_results,
            pruned.reminder,
        ))
    })
}

/// Whether an error message says a tool call has no matching result.
#[pyfunction]
#[pyo3(signature = (message, /))]
pub fn _is_tool_pairing_error(py: Python<'_>, message: &str) -> PyResult<bool> {
    guard(py, || Ok(orphan::is_tool_pairing_error(message)))
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_function(wrap_pyfunction!(_prune_orphans, m)?)?;
    m.add_function(wrap_pyfunction!(_is_tool_pairing_error, m)?)?;
    Ok(())
}
