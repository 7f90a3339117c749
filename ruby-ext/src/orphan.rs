//! `RetryCore._orphan_plan` (core `orphan.rs`): reads Ruby messages straight into the core's
//! flat `orphan::History`, asks the core for its plan, and hands the edits back for Ruby to
//! apply with the host's own classes.
//!
//! Two kinds of messages are understood, in any mix:
//! - Hashes (String or Symbol keys), OpenAI / RubyLLM or Anthropic shaped: converted to JSON and
//!   viewed by the core itself (`orphan::views_from_json`), so the rules are exactly the core's;
//! - RubyLLM-like objects (`role`, `content`, `tool_calls` as a Hash of id => call or an Array,
//!   `tool_call_id`): read attribute by attribute, only as far as pairing needs. A call's name
//!   and arguments are read only for the calls that get pruned.
//!
//! What keeps a long history cheap (10 000 RubyLLM messages, see `bench/ruby/bench.rb`): plain
//! `attr_reader`s are read as instance variables; an id that is a UTF-8 String is copied from
//! its bytes straight into the history's one text buffer (no `String` per id, see
//! `with_plain_id` for why borrowing them is sound); a calls Hash's keys are read by
//! `rb_hash_foreach` with a C callback rather than a protected Rust closure; the history's
//! buffers are reused from call to call; and only the messages that change, and the calls
//! pruned, cost anything after the plan.

use magnus::{
    prelude::*,
    rb_sys::{AsRawId, AsRawValue, FromRawValue},
    value::{Id, LazyId},
    Error, RArray, RHash, RModule, RString, Ruby, Symbol, Value,
};
use rb_sys::{StableApiDefinition, VALUE};
use std::cell::Cell;

use retry_core::__private::orphan::{self, Edit, History, MessageView, PrunedCall, Role};
use serde_json::Value as Json;

use crate::convert::{self, from_json, hash_get, name_of, rstring_lossy};
use crate::error::{guard, invalid_argument, to_ruby};

static ID_ID: LazyId = LazyId::new("id");
static ID_EMPTY_P: LazyId = LazyId::new("empty?");

thread_local! {
    /// The history's buffers, kept between calls: a long history's are large enough for the
    /// allocator to map and unmap them on every call otherwise.
    static SCRATCH: Cell<History> = Cell::new(History::default());
}

/// Gives the history's buffers back to `SCRATCH` when dropped (emptied, and only if not huge).
struct Recycle(History);

impl Drop for Recycle {
    fn drop(&mut self) {
        let mut history = std::mem::take(&mut self.0);
        if history.len() <= 1 << 20 {
            history.clear();
            SCRATCH.with(|s| s.set(history));
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

/// Where an id read from Ruby goes in the history.
#[derive(Clone, Copy)]
enum IdOf {
    /// A new `tool` message's `tool_call_id`.
    ToolMessage,
    /// A tool call of the last message, at this slot.
    Call(usize),
}

fn put_id(history: &mut History, of: IdOf, id: Option<&str>) {
    match of {
        IdOf::ToolMessage => history.push_message(Role::Tool, true, id),
        IdOf::Call(slot) => history.push_call(id, slot),
    }
}

/// The encodings whose Strings are read in place (their bytes are UTF-8 when valid UTF-8).
#[derive(Clone, Copy)]
struct Encodings([i32; 3]);

impl Encodings {
    /// (`_ruby`: these are read with the GVL held.)
    fn new(_ruby: &Ruby) -> Self {
        // SAFETY: these only return the built-in encodings' indices.
        Encodings(unsafe {
            [
                rb_sys::rb_utf8_encindex(),
                rb_sys::rb_usascii_encindex(),
                rb_sys::rb_ascii8bit_encindex(),
            ]
        })
    }
}

/// Calls `f` with the id `v` as `id_string` reads it (nil and "" are no id) when `v` is a
/// String that can be read in place: UTF-8, US-ASCII or binary, holding valid UTF-8. Returns
/// false, without calling `f`, for anything else. `f` must not call any Ruby API.
fn with_plain_id(v: VALUE, encodings: Encodings, f: impl FnOnce(Option<&str>)) -> bool {
    let api = rb_sys::stable_api::get_default();
    if api.special_const_p(v) {
        if api.nil_p(v) {
            f(None);
            return true;
        }
        return false;
    }
    // SAFETY: `v` is a live heap object (it was just read from a live message or Hash), so
    // its flags can be read; the String checks below read only what a String has.
    unsafe {
        if api.builtin_type(v) != rb_sys::ruby_value_type::RUBY_T_STRING
            || !encodings.0.contains(&api.encoding_get(v))
        {
            return false;
        }
        // The bytes are borrowed only for `f`. They stay where they are as long as no Ruby code
        // runs and nothing is allocated on Ruby's heap (GC could then compact and move an
        // embedded String, and Ruby code could change or drop it). Only Rust runs until this
        // block ends: UTF-8 validation and `f`, which calls no Ruby API (the callers copy the
        // text into the history's own buffer). The String is alive meanwhile: it is reachable
        // from the message being read, which the history Array holds, and that Array is
        // marked through the method's own argument. Nothing borrowed outlives the block.
        let bytes = std::slice::from_raw_parts(
            api.rstring_ptr(v) as *const u8,
            api.rstring_len(v) as usize,
        );
        match std::str::from_utf8(bytes) {
            Ok(text) => {
                f((!text.is_empty()).then_some(text));
                true
            }
            Err(_) => false,
        }
    }
}

/// Adds an id to the history as `id_string` reads it (nil and "" are no id, a String its text
/// with invalid bytes replaced, anything else its `to_s`), without a `String` of its own in the
/// common case (see `with_plain_id`): the bytes are copied straight into the history's text.
fn push_id(history: &mut History, v: Value, of: IdOf, encodings: Encodings) {
    if with_plain_id(v.as_raw(), encodings, |id| put_id(history, of, id)) {
        return;
    }
    // Everything else (Symbols, numbers, Strings in other encodings or with invalid bytes):
    // an owned copy, which may call Ruby (`to_s`, encoding conversion).
    let id = id_string(v);
    put_id(history, of, id.as_deref());
}

/// Adds the keys of a RubyLLM calls Hash (id => call) to the last message as its calls' ids,
/// when they are all Strings read in place (`with_plain_id`): `rb_hash_foreach` with a
/// callback that runs no Ruby code and can neither raise nor panic, instead of a protected call
/// through magnus. Returns false, having added nothing, when a key must be read otherwise.
fn push_plain_keys(history: &mut History, h: RHash, encodings: Encodings) -> bool {
    struct State<'h> {
        history: &'h mut History,
        encodings: Encodings,
        slot: usize,
        plain: bool,
    }
    unsafe extern "C" fn each(key: VALUE, _call: VALUE, arg: VALUE) -> std::os::raw::c_int {
        // SAFETY: `arg` is the `State` below, alive and not otherwise borrowed for the call.
        let state = unsafe { &mut *(arg as *mut State) };
        // Nothing here should panic; should it anyway, the panic stops at this C frame and the
        // keys are read again the general way, inside `guard`.
        let read = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let slot = state.slot;
            let history = &mut *state.history;
            with_plain_id(key, state.encodings, |id| history.push_call(id, slot))
        }));
        if matches!(read, Ok(true)) {
            state.slot += 1;
            rb_sys::st_retval::ST_CONTINUE as _
        } else {
            state.plain = false;
            rb_sys::st_retval::ST_STOP as _
        }
    }
    let mut state = State {
        history,
        encodings,
        slot: 0,
        plain: true,
    };
    // SAFETY: `h` is a live Hash; the callback does not modify it (the one way
    // `rb_hash_foreach` raises) and calls no Ruby API; `state` outlives the call.
    unsafe {
        rb_sys::rb_hash_foreach(h.as_raw(), Some(each), &mut state as *mut State as VALUE);
    }
    if !state.plain {
        state.history.clear_calls();
    }
    state.plain
}

/// Adds a tool call (a Hash or an object with `id`) to the last message.
fn push_call(
    ruby: &Ruby,
    history: &mut History,
    c: Value,
    slot: usize,
    encodings: Encodings,
) -> Result<(), Error> {
    let id = if let Some(h) = RHash::from_value(c) {
        hash_get(ruby, h, "id")
    } else {
        c.check_funcall::<_, _, Value>(*ID_ID, ()).transpose()?
    };
    match id {
        Some(id) => push_id(history, id, IdOf::Call(slot), encodings),
        None => history.push_call(None, slot),
    }
    Ok(())
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
    /// The last message's `RBASIC_CLASS` (its singleton class, if it has one) whose class was
    /// `class`: the next message with the same one needs no `rb_obj_class`.
    basic_class: VALUE,
    roles: RoleSymbols,
    encodings: Encodings,
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
            basic_class: 0,
            roles: RoleSymbols::new(ruby),
            encodings: Encodings::new(ruby),
        }
    }

    /// Looks up, once per class met, which attributes are plain readers.
    fn learn(&mut self, ruby: &Ruby, m: Value) -> Result<(), Error> {
        let api = rb_sys::stable_api::get_default();
        let raw = m.as_raw();
        // SAFETY: a heap object's class pointer is read, nothing else.
        let basic = if api.special_const_p(raw) {
            0
        } else {
            unsafe { api.rbasic_class(raw) }.map_or(0, |c| c.as_ptr() as VALUE)
        };
        if basic != 0 && basic == self.basic_class {
            return Ok(());
        }
        let class = m.class().as_value();
        if self.class.is_some_and(|c| c.as_raw() == class.as_raw()) {
            self.basic_class = basic;
            return Ok(());
        }
        let orphans: RModule = ruby
            .class_object()
            .const_get::<_, RModule>("RetryCore")?
            .const_get("Orphans")?;
        self.mask = orphans.funcall::<_, _, u8>("reader_mask", (class,))?;
        self.class = Some(class);
        self.basic_class = basic;
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

/// Adds a message read as an object (RubyLLM-like) to the history.
fn push_object(
    ruby: &Ruby,
    reader: &mut Reader,
    history: &mut History,
    index: usize,
    m: Value,
) -> Result<Shape, Error> {
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
    let mut shape = Shape::Object;
    match role {
        Role::Tool => match reader.read(m, &reader.tool_call_id)? {
            Some(id) => push_id(history, id, IdOf::ToolMessage, reader.encodings),
            None => history.push_message(Role::Tool, true, None),
        },
        Role::Assistant => {
            history.push_message(Role::Assistant, true, None);
            let calls = reader
                .read(m, &reader.tool_calls)?
                .unwrap_or_else(|| ruby.qnil().as_value());
            if let Some(h) = RHash::from_value(calls) {
                if !h.is_empty() {
                    shape = Shape::ObjectCallsHash;
                    // SwarmSDK keys the calls by id: the key is the id.
                    if !push_plain_keys(history, h, reader.encodings) {
                        let mut slot = 0;
                        h.foreach(|k: Value, _c: Value| {
                            push_id(history, k, IdOf::Call(slot), reader.encodings);
                            slot += 1;
                            Ok(magnus::r_hash::ForEach::Continue)
                        })?;
                    }
                }
            } else if let Some(a) = RArray::from_value(calls) {
                if !a.is_empty() {
                    shape = Shape::ObjectCallsArray;
                    for slot in 0..a.len() {
                        let c = a.entry::<Value>(slot as isize)?;
                        push_call(ruby, history, c, slot, reader.encodings)?;
                    }
                }
            }
            if history.calls_of(index) > 0 {
                let content = reader
                    .read(m, &reader.content)?
                    .unwrap_or_else(|| ruby.qnil().as_value());
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

/// The `slot`-th value of a Hash, read with `rb_hash_foreach` and a callback that runs no Ruby
/// code and can neither raise nor panic.
fn hash_value_at(h: RHash, slot: usize) -> Option<Value> {
    struct State {
        left: usize,
        found: Option<VALUE>,
    }
    // Cannot panic: a comparison, a subtraction and a store.
    unsafe extern "C" fn each(_key: VALUE, value: VALUE, arg: VALUE) -> std::os::raw::c_int {
        // SAFETY: `arg` is the `State` below, alive and not otherwise borrowed for the call.
        let state = unsafe { &mut *(arg as *mut State) };
        if state.left == 0 {
            state.found = Some(value);
            return rb_sys::st_retval::ST_STOP as _;
        }
        state.left -= 1;
        rb_sys::st_retval::ST_CONTINUE as _
    }
    let mut state = State {
        left: slot,
        found: None,
    };
    // SAFETY: `h` is a live Hash; the callback does not modify it (the one way
    // `rb_hash_foreach` raises) and calls no Ruby API; `state` outlives the call. The value
    // found is still held by the Hash when it is returned.
    unsafe {
        rb_sys::rb_hash_foreach(h.as_raw(), Some(each), &mut state as *mut State as VALUE);
        state.found.map(|v| Value::from_raw(v))
    }
}

/// The `slot`-th call of a message read as an object, and its (name, arguments).
fn object_call(
    ruby: &Ruby,
    reader: &mut Reader,
    m: Value,
    shape: Shape,
    slot: usize,
) -> Result<(Value, Value), Error> {
    reader.learn(ruby, m)?;
    let calls = reader
        .read(m, &reader.tool_calls)?
        .unwrap_or_else(|| ruby.qnil().as_value());
    let found = if shape == Shape::ObjectCallsHash {
        RHash::from_value(calls).and_then(|h| hash_value_at(h, slot))
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
    // A Hash call as the core views its JSON; an object's by its own methods (only pruned
    // calls are read, so no reader tricks are needed here).
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
        let mut history = Recycle(SCRATCH.with(Cell::take));
        let history = &mut history.0;
        history.clear();
        history.reserve(n);
        let mut shapes = Vec::with_capacity(n);
        // The views of Hash messages, by message index, for the names and arguments of their
        // pruned calls.
        let mut hash_views: Vec<(usize, MessageView)> = Vec::new();
        let mut reader = Reader::new(ruby);
        for i in 0..n {
            let m = messages.entry::<Value>(i as isize)?;
            if RHash::from_value(m).is_some() {
                hash_views.push((i, push_hash(ruby, history, i, m)?));
                shapes.push(Shape::Hash);
            } else if m.is_nil() {
                return Err(invalid_argument(ruby, format!("message {i} is nil")));
            } else {
                shapes.push(push_object(ruby, &mut reader, history, i, m)?);
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
                let (name, args) = object_call(ruby, &mut reader, m, shapes[i], at.slot)?;
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
