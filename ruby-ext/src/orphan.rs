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
    prelude::*,
    rb_sys::{AsRawId, AsRawValue, FromRawValue},
    value::{Id, LazyId},
    Error, RArray, RHash, RModule, RString, Ruby, Symbol, Value,
};
use std::cell::Cell;

use retry_core::orphan::{self, Edit, MessageView, PrunedCall, Role, ToolCallView};
use serde_json::Value as Json;

use crate::convert::{self, from_json, hash_get, name_of, rstring_lossy};
use crate::error::{guard, invalid_argument, to_ruby};

static ID_TOOL_CALLS: LazyId = LazyId::new("tool_calls");
static ID_ID: LazyId = LazyId::new("id");
static ID_NAME: LazyId = LazyId::new("name");
static ID_ARGUMENTS: LazyId = LazyId::new("arguments");
static ID_EMPTY_P: LazyId = LazyId::new("empty?");

thread_local! {
    static SCRATCH: Cell<Vec<MessageView>> = const { Cell::new(Vec::new()) };
}

/// Gives the views' buffer back to `SCRATCH` when dropped (emptied, and only if not huge).
struct Recycle(Vec<MessageView>);

impl std::ops::Deref for Recycle {
    type Target = Vec<MessageView>;
    fn deref(&self) -> &Self::Target {
        &self.0
    }
}

impl Drop for Recycle {
    fn drop(&mut self) {
        let mut views = std::mem::take(&mut self.0);
        if views.capacity() <= 1 << 20 {
            views.clear();
            SCRATCH.with(|s| s.set(views));
        }
    }
}

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

/// The roles as the Symbols RubyLLM uses, compared by identity before any text is read.
struct RoleSymbols([(Value, Role); 4]);

impl RoleSymbols {
    fn new(ruby: &Ruby) -> Self {
        let sym = |name: &str| ruby.to_symbol(name).as_value();
        RoleSymbols([
            (sym("user"), Role::User),
            (sym("assistant"), Role::Assistant),
            (sym("tool"), Role::Tool),
            (sym("system"), Role::System),
        ])
    }

    fn role_of(&self, v: Value) -> Role {
        let raw = v.as_raw();
        match self.0.iter().find(|(s, _)| s.as_raw() == raw) {
            Some((_, role)) => *role,
            None => role_of(v),
        }
    }
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
    let s = match RString::from_value(v) {
        Some(s) => rstring_lossy(s),
        None => convert::to_s(v),
    };
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

/// The four attributes pairing reads, and how to read each of a message class's: a plain
/// `attr_reader` is read as its instance variable (no method call, nothing that can raise: an
/// order of magnitude cheaper than a protected call), anything else by calling the method.
struct Attr {
    method: Id,
    ivar: Id,
    bit: u8,
}

struct Reader {
    role: Attr,
    content: Attr,
    tool_calls: Attr,
    tool_call_id: Attr,
    /// The class last asked about and its `attr_reader` bits (`Orphans.reader_mask`).
    class: Option<Value>,
    mask: u8,
    roles: RoleSymbols,
}

impl Reader {
    fn new(ruby: &Ruby) -> Self {
        let attr = |name: &str, bit| Attr {
            method: ruby.intern(name),
            ivar: ruby.intern(&format!("@{name}")),
            bit,
        };
        Reader {
            role: attr("role", 1),
            content: attr("content", 2),
            tool_calls: attr("tool_calls", 4),
            tool_call_id: attr("tool_call_id", 8),
            class: None,
            mask: 0,
            roles: RoleSymbols::new(ruby),
        }
    }

    /// Looks up, once per class met, which attributes are plain readers.
    fn learn(&mut self, ruby: &Ruby, m: Value) -> Result<(), Error> {
        let class = m.class().as_value();
        if self.class.is_some_and(|c| c.as_raw() == class.as_raw()) {
            return Ok(());
        }
        let orphans: RModule = ruby
            .class_object()
            .const_get::<_, RModule>("RetryCore")?
            .const_get("Orphans")?;
        self.mask = orphans.funcall::<_, _, u8>("reader_mask", (class,))?;
        self.class = Some(class);
        Ok(())
    }

    /// The attribute's value; `None` when the message has no such method.
    fn read(&self, m: Value, attr: &Attr) -> Result<Option<Value>, Error> {
        if self.mask & attr.bit != 0 {
            // SAFETY: rb_ivar_get only reads (nil when unset) and never raises.
            let raw = unsafe { rb_sys::rb_ivar_get(m.as_raw(), attr.ivar.as_raw()) };
            return Ok(Some(unsafe { Value::from_raw(raw) }));
        }
        m.check_funcall::<_, _, Value>(attr.method, ()).transpose()
    }
}

fn object_view(
    ruby: &Ruby,
    reader: &mut Reader,
    index: usize,
    m: Value,
) -> Result<(MessageView, Shape), Error> {
    reader.learn(ruby, m)?;
    let role = match reader.read(m, &reader.role)? {
        Some(role) => reader.roles.role_of(role),
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
            view.tool_call_id = reader.read(m, &reader.tool_call_id)?.and_then(id_string);
        }
        Role::Assistant => {
            let calls = reader
                .read(m, &reader.tool_calls)?
                .unwrap_or_else(|| ruby.qnil().as_value());
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
                let content = reader
                    .read(m, &reader.content)?
                    .unwrap_or_else(|| ruby.qnil().as_value());
                view.has_content = object_has_content(content);
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
        // The views' buffer is kept between calls: a long history's is large enough for the
        // allocator to map and unmap it on every call otherwise.
        let mut views = SCRATCH.with(Cell::take);
        views.clear();
        views.reserve(n);
        let mut shapes = Vec::with_capacity(n);
        let mut reader = Reader::new(ruby);
        for i in 0..n {
            let m = messages.entry::<Value>(i as isize)?;
            if RHash::from_value(m).is_some() {
                views.push(hash_view(ruby, i, m)?);
                shapes.push(Shape::Hash);
            } else if m.is_nil() {
                return Err(invalid_argument(ruby, format!("message {i} is nil")));
            } else {
                let (v, s) = object_view(ruby, &mut reader, i, m)?;
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
        let views = Recycle(views);

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

        let (key_id, key_name, key_arguments) = (
            ruby.to_symbol("id"),
            ruby.to_symbol("name"),
            ruby.to_symbol("arguments"),
        );
        let pruned = ruby.ary_new_capa(located.len());
        let mut for_reminder = Vec::with_capacity(located.len());
        for ((i, slot), core_call) in located.into_iter().zip(plan.pruned) {
            let h = ruby.hash_new();
            let id = match &core_call.id {
                Some(id) => ruby.str_new(id).as_value(),
                None => ruby.qnil().as_value(),
            };
            h.aset(key_id, id)?;
            if shapes[i] == Shape::Hash {
                h.aset(key_name, core_call.name.as_str())?;
                h.aset(key_arguments, from_json(ruby, &core_call.arguments, false)?)?;
                for_reminder.push(core_call);
            } else {
                let m = messages.entry::<Value>(i as isize)?;
                let (name, args) = object_call(ruby, m, shapes[i], slot)?;
                h.aset(key_name, name)?;
                h.aset(key_arguments, args)?;
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
