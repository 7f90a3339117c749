//! `RetryCore._orphan_plan` (core `orphan.rs`): reads Ruby messages into the core's flat
//! `orphan::History`, asks the core for its plan, and hands the edits back for Ruby to apply
//! with the host's own classes.
//!
//! Two kinds of messages are understood, in any mix:
//! - Hashes (String or Symbol keys), OpenAI / RubyLLM or Anthropic shaped: converted to JSON and
//!   viewed by the core itself (`orphan::views_from_json`), so the rules are exactly the core's;
//! - RubyLLM-like objects (`role`, `content`, `tool_calls` as a Hash of id => call or an Array,
//!   `tool_call_id`): read by calling those methods, only as far as pairing needs. A call's name
//!   and arguments are read only for the calls that get pruned.

use magnus::{
    prelude::*, r_hash::ForEach, value::LazyId, Error, RArray, RHash, RModule, RString, Ruby,
    Symbol, Value,
};

use retry_core::__private::orphan::{self, Edit, History, MessageView, PrunedCall, Role};
use serde_json::Value as Json;

use crate::convert::{self, from_json, hash_get, name_of, rstring_lossy};
use crate::error::{guard, invalid_argument, to_ruby};

static ID_ROLE: LazyId = LazyId::new("role");
static ID_CONTENT: LazyId = LazyId::new("content");
static ID_TOOL_CALLS: LazyId = LazyId::new("tool_calls");
static ID_TOOL_CALL_ID: LazyId = LazyId::new("tool_call_id");
static ID_ID: LazyId = LazyId::new("id");
static ID_EMPTY_P: LazyId = LazyId::new("empty?");

/// How a message was read, so that its edits can be applied and its pruned calls found.
#[derive(Clone, Copy, PartialEq)]
enum Shape {
    /// A Hash: the core saw its JSON.
    Hash,
    /// An object whose `tool_calls` is a Hash of id => call (RubyLLM).
    ObjectCallsHash,
    /// An object whose `tool_calls` is an Array of calls.
    ObjectCallsArray,
    /// An object without tool calls.
    Object,
}

fn role_of(v: Value) -> Role {
    if let Some(sym) = Symbol::from_value(v) {
        return match sym.name() {
            Ok(name) => Role::parse(&name),
            Err(_) => Role::Other,
        };
    }
    match name_of(v) {
        Some(name) => Role::parse(&name),
        None => Role::Other,
    }
}

/// Whether an object message has content beyond its tool calls: nil or a blank String
/// (`orphan::is_blank`, the core's one rule) is no content.
fn object_has_content(content: Value) -> bool {
    if content.is_nil() {
        return false;
    }
    if let Some(s) = RString::from_value(content) {
        // SAFETY: the bytes are only read, before any Ruby code runs again.
        let bytes = unsafe { s.as_slice() };
        return !orphan::is_blank(bytes);
    }
    if let Some(a) = RArray::from_value(content) {
        return !a.is_empty();
    }
    match content.check_funcall::<_, _, bool>(*ID_EMPTY_P, ()) {
        Some(Ok(empty)) => !empty,
        _ => true,
    }
}

/// An id as the history keeps it: nil and "" are no id, a String its text (invalid bytes
/// replaced), anything else its `to_s`.
fn id_string(v: Value) -> Option<String> {
    if v.is_nil() {
        return None;
    }
    let s = match RString::from_value(v) {
        Some(s) => rstring_lossy(s),
        None => convert::to_s(v),
    };
    (!s.is_empty()).then_some(s)
}

/// The message's attribute; `None` when it has no such method.
fn attribute(m: Value, method: &LazyId) -> Result<Option<Value>, Error> {
    m.check_funcall::<_, _, Value>(**method, ()).transpose()
}

/// The message's attribute, nil when it has no such method.
fn attribute_or_nil(ruby: &Ruby, m: Value, method: &LazyId) -> Result<Value, Error> {
    Ok(attribute(m, method)?.unwrap_or_else(|| ruby.qnil().as_value()))
}

/// Adds a tool call (a Hash or an object with `id`) to the last message.
fn push_call(ruby: &Ruby, history: &mut History, c: Value, slot: usize) -> Result<(), Error> {
    let id = if let Some(h) = RHash::from_value(c) {
        hash_get(ruby, h, "id")
    } else {
        attribute(c, &ID_ID)?
    };
    history.push_call(id.and_then(id_string).as_deref(), slot);
    Ok(())
}

/// Adds a message read as an object (RubyLLM-like) to the history.
fn push_object(ruby: &Ruby, history: &mut History, index: usize, m: Value) -> Result<Shape, Error> {
    let role = match attribute(m, &ID_ROLE)? {
        Some(role) => role_of(role),
        None => {
            return Err(crate::error::type_error(
                ruby,
                format!(
                    "message {index} is a {}: expected a Hash or a message with #role",
                    m.class()
                ),
            ))
        }
    };
    let mut shape = Shape::Object;
    match role {
        Role::Tool => {
            let id = attribute(m, &ID_TOOL_CALL_ID)?.and_then(id_string);
            history.push_message(Role::Tool, true, id.as_deref());
        }
        Role::Assistant => {
            history.push_message(Role::Assistant, true, None);
            let calls = attribute_or_nil(ruby, m, &ID_TOOL_CALLS)?;
            if let Some(h) = RHash::from_value(calls) {
                if !h.is_empty() {
                    shape = Shape::ObjectCallsHash;
                    // SwarmSDK keys the calls by id: the key is the id.
                    let mut slot = 0;
                    h.foreach(|k: Value, _c: Value| {
                        history.push_call(id_string(k).as_deref(), slot);
                        slot += 1;
                        Ok(ForEach::Continue)
                    })?;
                }
            } else if let Some(a) = RArray::from_value(calls) {
                if !a.is_empty() {
                    shape = Shape::ObjectCallsArray;
                    for slot in 0..a.len() {
                        push_call(ruby, history, a.entry::<Value>(slot as isize)?, slot)?;
                    }
                }
            }
            if history.calls_of(index) > 0 {
                let content = attribute_or_nil(ruby, m, &ID_CONTENT)?;
                history.set_has_content(object_has_content(content));
            }
        }
        role => history.push_message(role, true, None),
    }
    Ok(shape)
}

/// Adds a Hash message to the history, as the core views its JSON; the view is returned for
/// the names and arguments of its calls, should they be pruned.
fn push_hash(
    ruby: &Ruby,
    history: &mut History,
    index: usize,
    m: Value,
) -> Result<MessageView, Error> {
    let json = convert::to_json(m)?;
    let view = orphan::views_from_json(std::slice::from_ref(&json))
        .map_err(|mut e| {
            e.message = e
                .message
                .replacen("message 0", &format!("message {index}"), 1);
            to_ruby(ruby, e)
        })?
        .pop()
        .ok_or_else(|| invalid_argument(ruby, format!("message {index} has no view")))?;
    history.push_message(view.role, view.has_content, view.tool_call_id.as_deref());
    for c in &view.tool_calls {
        history.push_call_at(c.id.as_deref(), c.slot, c.place);
    }
    for r in &view.tool_results {
        history.push_result(r.id.as_deref(), r.slot);
    }
    Ok(view)
}

/// The `slot`-th call of a message read as an object, and its (name, arguments).
fn object_call(ruby: &Ruby, m: Value, shape: Shape, slot: usize) -> Result<(Value, Value), Error> {
    let calls = attribute_or_nil(ruby, m, &ID_TOOL_CALLS)?;
    let found = if shape == Shape::ObjectCallsHash {
        match RHash::from_value(calls) {
            Some(h) => {
                let (mut left, mut found) = (slot, None);
                h.foreach(|_k: Value, c: Value| {
                    if left == 0 {
                        found = Some(c);
                        return Ok(ForEach::Stop);
                    }
                    left -= 1;
                    Ok(ForEach::Continue)
                })?;
                found
            }
            None => None,
        }
    } else if let Some(a) = RArray::from_value(calls) {
        (slot < a.len())
            .then(|| a.entry::<Value>(slot as isize))
            .transpose()?
    } else {
        None
    };
    let c = found.ok_or_else(|| {
        invalid_argument(
            ruby,
            "a message's tool calls changed while it was being pruned",
        )
    })?;
    // A Hash call as the core views its JSON; an object's by its own methods.
    let nil = ruby.qnil().as_value();
    if RHash::from_value(c).is_some() {
        let json = convert::to_json(c)?;
        let (name, args) = json.as_object().map(orphan::call_parts).unwrap_or_default();
        return Ok((
            name.map_or(nil, |n| ruby.str_new(n).as_value()),
            args.map_or(Ok(nil), |a| from_json(ruby, a, false))?,
        ));
    }
    let read = |method: &str| -> Result<Value, Error> {
        Ok(c.check_funcall::<_, _, Value>(method, ())
            .transpose()?
            .unwrap_or(nil))
    };
    Ok((read("name")?, read("arguments")?))
}

/// `[edits, pruned, dangling_results, reminder]` for a history:
/// - `edits`: `[index, :remove, nil, nil]` or `[index, :strip, tool_calls_slots, content_slots]`
///   (content blocks: Anthropic `tool_use` / `tool_result`), for the messages that change only;
/// - `pruned`: `{id:, name:, arguments:}` per removed call (an object's own name and arguments;
///   a Hash's as JSON values);
/// - `reminder`: the system reminder for the pruned calls, or "".
fn plan(ruby: &Ruby, messages: RArray) -> Result<RArray, Error> {
    guard(ruby, || {
        let n = messages.len();
        let mut history = History::with_capacity(n);
        let history = &mut history;
        let mut shapes = Vec::with_capacity(n);
        // The views of Hash messages, by message index, for the names and arguments of their
        // pruned calls.
        let mut hash_views: Vec<(usize, MessageView)> = Vec::new();
        for i in 0..n {
            let m = messages.entry::<Value>(i as isize)?;
            if RHash::from_value(m).is_some() {
                hash_views.push((i, push_hash(ruby, history, i, m)?));
                shapes.push(Shape::Hash);
            } else if m.is_nil() {
                return Err(invalid_argument(ruby, format!("message {i} is nil")));
            } else {
                shapes.push(push_object(ruby, history, i, m)?);
            }
            if history.len() != i + 1 {
                return Err(internal(ruby, "a message was not read"));
            }
        }
        if messages.len() != n {
            return Err(invalid_argument(
                ruby,
                "the history changed while it was being read",
            ));
        }
        let plan = history.plan();

        let edits = ruby.ary_new_capa(plan.edits.len());
        let nil = ruby.qnil().as_value();
        let (remove, strip) = (ruby.to_symbol("remove"), ruby.to_symbol("strip"));
        for (i, edit) in &plan.edits {
            match edit {
                Edit::Keep => continue,
                Edit::Remove => edits.push((*i, remove, nil, nil))?,
                Edit::Strip {
                    tool_calls,
                    content,
                } => edits.push((
                    *i,
                    strip,
                    ruby.ary_from_iter(tool_calls.iter().copied()),
                    ruby.ary_from_iter(content.iter().copied()),
                ))?,
            }
        }

        let (key_id, key_name, key_arguments) = (
            ruby.to_symbol("id"),
            ruby.to_symbol("name"),
            ruby.to_symbol("arguments"),
        );
        let pruned = ruby.ary_new_capa(plan.pruned.len());
        let mut for_reminder = Vec::with_capacity(plan.pruned.len());
        for at in &plan.pruned {
            let i = at.message;
            let id = history.call_id(i, at.call).map(str::to_owned);
            let h = ruby.hash_new();
            h.aset(
                key_id,
                match &id {
                    Some(id) => ruby.str_new(id).as_value(),
                    None => ruby.qnil().as_value(),
                },
            )?;
            if shapes[i] == Shape::Hash {
                let view = hash_views
                    .binary_search_by_key(&i, |(k, _)| *k)
                    .ok()
                    .and_then(|k| hash_views[k].1.tool_calls.get(at.call))
                    .ok_or_else(|| internal(ruby, "a pruned call could not be found"))?;
                h.aset(key_name, view.name.as_str())?;
                h.aset(key_arguments, from_json(ruby, &view.arguments, false)?)?;
                for_reminder.push(PrunedCall {
                    id,
                    name: view.name.clone(),
                    arguments: view.arguments.clone(),
                });
            } else {
                let m = messages.entry::<Value>(i as isize)?;
                let (name, args) = object_call(ruby, m, shapes[i], at.slot)?;
                h.aset(key_name, name)?;
                h.aset(key_arguments, args)?;
                for_reminder.push(PrunedCall {
                    id,
                    name: if name.is_nil() {
                        "unknown".to_owned()
                    } else {
                        convert::to_s(name)
                    },
                    arguments: convert::to_json(args)?,
                });
            }
            pruned.push(h)?;
        }
        let reminder = orphan::reminder(&for_reminder);
        let out = ruby.ary_new_capa(4);
        out.push(edits)?;
        out.push(pruned)?;
        out.push(plan.dangling_results)?;
        out.push(reminder)?;
        Ok(out)
    })
}

fn internal(ruby: &Ruby, message: &str) -> Error {
    to_ruby(
        ruby,
        retry_core::Error::new(retry_core::ErrorCode::Internal, message),
    )
}

/// The reminder text for `[{name:, arguments:}, ...]` (SwarmSDK's format).
fn reminder(ruby: &Ruby, calls: RArray) -> Result<String, Error> {
    guard(ruby, || {
        let mut list = Vec::with_capacity(calls.len());
        for i in 0..calls.len() {
            let c = calls.entry::<Value>(i as isize)?;
            let h = RHash::from_value(c).ok_or_else(|| {
                crate::error::type_error(
                    ruby,
                    "each pruned call must be a Hash with name: and arguments:",
                )
            })?;
            let name = hash_get(ruby, h, "name")
                .map(convert::to_s)
                .unwrap_or_else(|| "unknown".to_owned());
            let arguments = match hash_get(ruby, h, "arguments") {
                Some(a) => convert::to_json(a)?,
                None => Json::Null,
            };
            let id = hash_get(ruby, h, "id").and_then(id_string);
            list.push(PrunedCall {
                id,
                name,
                arguments,
            });
        }
        Ok(orphan::reminder(&list))
    })
}

/// Whether an error message is a tool-pairing error (the classifier's own phrases).
fn tool_pairing_error(ruby: &Ruby, message: RString) -> Result<bool, Error> {
    guard(ruby, || {
        Ok(orphan::is_tool_pairing_error(&rstring_lossy(message)))
    })
}

pub fn init(_ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method("_orphan_plan", magnus::function!(plan, 1))?;
    module.define_singleton_method("_orphan_reminder", magnus::function!(reminder, 1))?;
    module.define_singleton_method(
        "_tool_pairing_error?",
        magnus::function!(tool_pairing_error, 1),
    )?;
    Ok(())
}
