//! `RetryCore._orphan_plan` (core `orphan.rs`): builds the core's `MessageView`s straight from
//! Ruby messages, asks the core for its plan, and hands the edits back for Ruby to apply with
//! the host's own classes.
//!
//! Two kinds of messages are understood, in any mix:
//! - Hashes (String or Symbol keys), OpenAI / RubyLLM or Anthropic shaped: converted to JSON and
//!   viewed by the core itself (`orphan::views_from_json`), so the rules are exactly the core's;
//! - RubyLLM-like objects (`role`, `content`, `tool_calls` as a Hash of id => call or an Array,
//!   `tool_call_id`): read attribute by attribute, only as far as pairing needs. A call's name
//!   and arguments are read only for the calls that get pruned.

use magnus::{
    prelude::*, value::LazyId, Error, RArray, RHash, RModule, RString, Ruby, Symbol, Value,
};
use retry_core::orphan::{self, Edit, MessageView, PrunedCall, Role, ToolCallView};
use serde_json::Value as Json;

use crate::convert::{self, from_json, hash_get, name_of, rstring_lossy};
use crate::error::{guard, invalid_argument, to_ruby};

static ID_ROLE: LazyId = LazyId::new("role");
static ID_CONTENT: LazyId = LazyId::new("content");
static ID_TOOL_CALLS: LazyId = LazyId::new("tool_calls");
static ID_TOOL_CALL_ID: LazyId = LazyId::new("tool_call_id");
static ID_ID: LazyId = LazyId::new("id");
static ID_NAME: LazyId = LazyId::new("name");
static ID_ARGUMENTS: LazyId = LazyId::new("arguments");
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

fn call(v: Value, id: &'static LazyId) -> Result<Value, Error> {
    v.funcall::<_, _, Value>(**id, ())
}

/// Whether an object message has content beyond its tool calls, as SwarmSDK judges it:
/// nil or a blank String is no content.
fn object_has_content(content: Value) -> bool {
    if content.is_nil() {
        return false;
    }
    if let Some(s) = RString::from_value(content) {
        // SAFETY: the bytes are only read, before any Ruby code runs again.
        let bytes = unsafe { s.as_slice() };
        return !bytes
            .iter()
            .all(|b| b.is_ascii_whitespace() || *b == 0 || *b == 0x0b);
    }
    if let Some(a) = RArray::from_value(content) {
        return !a.is_empty();
    }
    match content.check_funcall::<_, _, bool>(*ID_EMPTY_P, ()) {
        Some(Ok(empty)) => !empty,
        _ => true,
    }
}

fn id_string(v: Value) -> Option<String> {
    if v.is_nil() {
        return None;
    }
    let s = convert::to_s(v);
    (!s.is_empty()).then_some(s)
}

/// The id of a tool call object or Hash.
fn call_id(ruby: &Ruby, c: Value) -> Result<Option<String>, Error> {
    if let Some(h) = RHash::from_value(c) {
        return Ok(hash_get(ruby, h, "id").and_then(id_string));
    }
    Ok(match c.check_funcall::<_, _, Value>(*ID_ID, ()) {
        Some(r) => id_string(r?),
        None => None,
    })
}

fn object_view(ruby: &Ruby, index: usize, m: Value) -> Result<(MessageView, Shape), Error> {
    let role = match m.check_funcall::<_, _, Value>(*ID_ROLE, ()) {
        Some(role) => role_of(role?),
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
    let mut view = MessageView {
        role,
        has_content: true,
        tool_calls: Vec::new(),
        tool_call_id: None,
        tool_results: Vec::new(),
    };
    let mut shape = Shape::Object;
    match role {
        Role::Tool => {
            view.tool_call_id = match m.check_funcall::<_, _, Value>(*ID_TOOL_CALL_ID, ()) {
                Some(v) => id_string(v?),
                None => None,
            };
        }
        Role::Assistant => {
            let calls = match m.check_funcall::<_, _, Value>(*ID_TOOL_CALLS, ()) {
                Some(v) => v?,
                None => ruby.qnil().as_value(),
            };
            if let Some(h) = RHash::from_value(calls) {
                if !h.is_empty() {
                    shape = Shape::ObjectCallsHash;
                    let mut slot = 0;
                    h.foreach(|k: Value, _c: Value| {
                        // SwarmSDK keys the calls by id: the key is the id.
                        view.tool_calls.push(ToolCallView {
                            id: id_string(k),
                            name: String::new(),
                            arguments: Json::Null,
                            slot,
                        });
                        slot += 1;
                        Ok(magnus::r_hash::ForEach::Continue)
                    })?;
                }
            } else if let Some(a) = RArray::from_value(calls) {
                if !a.is_empty() {
                    shape = Shape::ObjectCallsArray;
                    for slot in 0..a.len() {
                        let c = a.entry::<Value>(slot as isize)?;
                        view.tool_calls.push(ToolCallView {
                            id: call_id(ruby, c)?,
                            name: String::new(),
                            arguments: Json::Null,
                            slot,
                        });
                    }
                }
            }
            if !view.tool_calls.is_empty() {
                view.has_content = object_has_content(call(m, &ID_CONTENT)?);
            }
        }
        _ => {}
    }
    Ok((view, shape))
}

fn hash_view(ruby: &Ruby, index: usize, m: Value) -> Result<MessageView, Error> {
    let json = convert::to_json(m)?;
    let mut views = orphan::views_from_json(std::slice::from_ref(&json)).map_err(|mut e| {
        e.message = e
            .message
            .replacen("message 0", &format!("message {index}"), 1);
        to_ruby(ruby, e)
    })?;
    views
        .pop()
        .ok_or_else(|| invalid_argument(ruby, format!("message {index} has no view")))
}

/// The `slot`-th call of a message read as an object, and its (name, arguments).
fn object_call(ruby: &Ruby, m: Value, shape: Shape, slot: usize) -> Result<(Value, Value), Error> {
    let calls = call(m, &ID_TOOL_CALLS)?;
    let mut found = None;
    if shape == Shape::ObjectCallsHash {
        if let Some(h) = RHash::from_value(calls) {
            let mut i = 0;
            h.foreach(|_k: Value, c: Value| {
                if i == slot {
                    found = Some(c);
                    return Ok(magnus::r_hash::ForEach::Stop);
                }
                i += 1;
                Ok(magnus::r_hash::ForEach::Continue)
            })?;
        }
    } else if let Some(a) = RArray::from_value(calls) {
        found = Some(a.entry::<Value>(slot as isize)?);
    }
    let c = found.ok_or_else(|| {
        invalid_argument(
            ruby,
            "a message's tool calls changed while it was being pruned",
        )
    })?;
    if let Some(h) = RHash::from_value(c) {
        let nil = ruby.qnil().as_value();
        let func = hash_get(ruby, h, "function").and_then(RHash::from_value);
        let name = func
            .and_then(|f| hash_get(ruby, f, "name"))
            .or_else(|| hash_get(ruby, h, "name"));
        let args = func
            .and_then(|f| hash_get(ruby, f, "arguments"))
            .or_else(|| hash_get(ruby, h, "arguments"))
            .or_else(|| hash_get(ruby, h, "input"));
        return Ok((name.unwrap_or(nil), args.unwrap_or(nil)));
    }
    let name = match c.check_funcall::<_, _, Value>(*ID_NAME, ()) {
        Some(v) => v?,
        None => ruby.qnil().as_value(),
    };
    let args = match c.check_funcall::<_, _, Value>(*ID_ARGUMENTS, ()) {
        Some(v) => v?,
        None => ruby.qnil().as_value(),
    };
    Ok((name, args))
}

/// `[edits, pruned, dangling_results, reminder]` for a history:
/// - `edits`: `[index, :remove, nil]`, `[index, :tool_calls, slots]` or `[index, :content, slots]`
///   (content blocks: Anthropic `tool_use` / `tool_result`), for the messages that change only;
/// - `pruned`: `{id:, name:, arguments:}` per removed call (an object's own name and arguments;
///   a Hash's as JSON values);
/// - `reminder`: the system reminder for the pruned calls, or "".
fn plan(ruby: &Ruby, messages: RArray) -> Result<RArray, Error> {
    guard(ruby, || {
        let n = messages.len();
        let mut views = Vec::with_capacity(n);
        let mut shapes = Vec::with_capacity(n);
        for i in 0..n {
            let m = messages.entry::<Value>(i as isize)?;
            if RHash::from_value(m).is_some() {
                views.push(hash_view(ruby, i, m)?);
                shapes.push(Shape::Hash);
            } else if m.is_nil() {
                return Err(invalid_argument(ruby, format!("message {i} is nil")));
            } else {
                let (v, s) = object_view(ruby, i, m)?;
                views.push(v);
                shapes.push(s);
            }
        }
        if messages.len() != n {
            return Err(invalid_argument(
                ruby,
                "the history changed while it was being read",
            ));
        }
        let plan = orphan::plan(&views);

        let edits = ruby.ary_new();
        let mut located: Vec<(usize, usize)> = Vec::with_capacity(plan.pruned.len());
        for (i, edit) in plan.edits.iter().enumerate() {
            let view = &views[i];
            let owns_calls = view.role == Role::Assistant && !view.tool_calls.is_empty();
            let entry: (&str, Option<&Vec<usize>>) = match edit {
                Edit::Keep => continue,
                Edit::Remove => {
                    if owns_calls {
                        located.extend(view.tool_calls.iter().map(|c| (i, c.slot)));
                    }
                    ("remove", None)
                }
                Edit::RemoveToolCalls { slots } => {
                    located.extend(
                        view.tool_calls
                            .iter()
                            .filter(|c| slots.contains(&c.slot))
                            .map(|c| (i, c.slot)),
                    );
                    let from_blocks = shapes[i] == Shape::Hash && {
                        let m = RHash::from_value(messages.entry::<Value>(i as isize)?);
                        !m.and_then(|h| hash_get(ruby, h, "tool_calls"))
                            .is_some_and(|tc| {
                                RArray::from_value(tc).is_some_and(|a| !a.is_empty())
                                    || RHash::from_value(tc).is_some_and(|h| !h.is_empty())
                            })
                    };
                    (
                        if from_blocks { "content" } else { "tool_calls" },
                        Some(slots),
                    )
                }
                Edit::RemoveToolResults { slots } => ("content", Some(slots)),
            };
            let slots = match entry.1 {
                Some(s) => ruby.ary_from_iter(s.iter().copied()).as_value(),
                None => ruby.qnil().as_value(),
            };
            edits.push((i, ruby.to_symbol(entry.0), slots))?;
        }
        if located.len() != plan.pruned.len() {
            return Err(crate::error::to_ruby(
                ruby,
                retry_core::Error::new(
                    retry_core::ErrorCode::Internal,
                    "pruned calls could not be located",
                ),
            ));
        }

        let pruned = ruby.ary_new_capa(located.len());
        let mut for_reminder = Vec::with_capacity(located.len());
        for ((i, slot), core_call) in located.into_iter().zip(plan.pruned) {
            let h = ruby.hash_new();
            let id = match &core_call.id {
                Some(id) => ruby.str_new(id).as_value(),
                None => ruby.qnil().as_value(),
            };
            h.aset(ruby.to_symbol("id"), id)?;
            if shapes[i] == Shape::Hash {
                h.aset(ruby.to_symbol("name"), core_call.name.as_str())?;
                h.aset(
                    ruby.to_symbol("arguments"),
                    from_json(ruby, &core_call.arguments, false)?,
                )?;
                for_reminder.push(core_call);
            } else {
                let m = messages.entry::<Value>(i as isize)?;
                let (name, args) = object_call(ruby, m, shapes[i], slot)?;
                h.aset(ruby.to_symbol("name"), name)?;
                h.aset(ruby.to_symbol("arguments"), args)?;
                for_reminder.push(PrunedCall {
                    id: core_call.id,
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
