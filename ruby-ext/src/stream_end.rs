//! `RetryCore._stream_incomplete` and `RetryCore::STREAM_APIS` (core `stream_end.rs`): whether a
//! stream ended properly, and the table of reasons that end one; `RetryCore::StreamWatch`, the
//! core's `stream_end::Watch` (which event field carries the stop reason), for
//! `RetryCore::Streams::Watch`.

use std::cell::RefCell;

use magnus::{
    prelude::*, value::ReprValue, Error, RArray, RHash, RModule, RString, Ruby, Symbol, Value,
};
use retry_core::stream_end::{self, Watch};

use crate::convert::{hash_get, rstring_lossy, to_s};
use crate::error::{guard, to_ruby};

/// A decoded event as Ruby holds it (Hashes with String or Symbol keys, Arrays, Strings):
/// the core's `stream_end::Event`, read without calling Ruby code.
#[derive(Clone, Copy)]
struct RbEvent<'a>(&'a Ruby, Value);

impl stream_end::Event for RbEvent<'_> {
    fn field(&self, name: &str) -> Option<Self> {
        let h = RHash::from_value(self.1)?;
        hash_get(self.0, h, name)
            .filter(|v| !v.is_nil())
            .map(|v| RbEvent(self.0, v))
    }
    fn text(&self) -> Option<String> {
        if let Some(s) = RString::from_value(self.1) {
            return Some(rstring_lossy(s));
        }
        Symbol::from_value(self.1).and_then(|s| s.name().ok().map(|n| n.into_owned()))
    }
    fn int(&self) -> Option<i64> {
        magnus::Integer::from_value(self.1).and_then(|i| i.to_i64().ok())
    }
    fn items(&self) -> Option<Vec<Self>> {
        let a = RArray::from_value(self.1)?;
        Some(a.into_iter().map(|v| RbEvent(self.0, v)).collect())
    }
}

/// What `_finish` answers for a stream that did not end properly: `[message, api, reason]`.
type Unfinished = (String, Option<&'static str>, Option<String>);

/// One stream's watch. Per stream; not meant to be shared between threads.
#[magnus::wrap(class = "RetryCore::StreamWatch", free_immediately, size)]
struct RbStreamWatch(RefCell<Watch>);

impl RbStreamWatch {
    fn new(ruby: &Ruby, api: Option<String>) -> Result<Self, Error> {
        guard(ruby, || {
            Watch::new(api.as_deref())
                .map(|w| RbStreamWatch(RefCell::new(w)))
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    fn with<T>(
        ruby: &Ruby,
        rb_self: &Self,
        f: impl FnOnce(&mut Watch) -> Result<T, Error>,
    ) -> Result<T, Error> {
        let mut w = rb_self.0.try_borrow_mut().map_err(|_| {
            to_ruby(
                ruby,
                retry_core::Error::invalid_state("the stream watch is in use"),
            )
        })?;
        guard(ruby, || f(&mut w))
    }

    /// `_see_data(event_name, data)`: one SSE event's data (JSON text): the message of the
    /// error it reports (an error event: the core classifies its payload), else nil.
    fn see_data(
        ruby: &Ruby,
        rb_self: &Self,
        name: Option<String>,
        data: RString,
    ) -> Result<Option<String>, Error> {
        let data = rstring_lossy(data);
        Self::with(ruby, rb_self, |w| {
            w.see_json(name.as_deref(), &data)
                .map(|f| f.map(|f| f.message))
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    /// `_see(item)`: one decoded event (anything else is counted and ignored): for an error
    /// event, `[message, data]` (the data as JSON; the core classifies it), else nil.
    fn see(ruby: &Ruby, rb_self: &Self, event: Value) -> Result<Option<(String, String)>, Error> {
        let error = Self::with(ruby, rb_self, |w| Ok(w.see(None, RbEvent(ruby, event))))?;
        if !error {
            return Ok(None);
        }
        let data = crate::convert::to_json(event)?.to_string();
        let failure = retry_core::sse::failure_from_payload(&data);
        Ok(Some((failure.message, data)))
    }

    /// `_saw(api, index, reason)`: one event whose reason the caller read itself.
    fn saw(
        ruby: &Ruby,
        rb_self: &Self,
        api: Value,
        index: i64,
        reason: Value,
    ) -> Result<(), Error> {
        let api = to_s(api);
        let reason = (!reason.is_nil()).then(|| to_s(reason));
        Self::with(ruby, rb_self, |w| {
            w.count();
            w.saw(&api, index, reason.as_deref())
                .map_err(|e| to_ruby(ruby, e))
        })
    }

    /// `_finish`: nil when the stream ended properly, else `[message, api, reason]`.
    fn finish(ruby: &Ruby, rb_self: &Self) -> Result<Option<Unfinished>, Error> {
        Self::with(ruby, rb_self, |w| {
            Ok(w.finish().map(|i| (i.message, i.api, i.reason)))
        })
    }

    fn api(ruby: &Ruby, rb_self: &Self) -> Result<Option<&'static str>, Error> {
        Self::with(ruby, rb_self, |w| Ok(w.api()))
    }

    fn events(ruby: &Ruby, rb_self: &Self) -> Result<u64, Error> {
        Self::with(ruby, rb_self, |w| Ok(w.events()))
    }
}

/// `nil` when a stream of `api` whose last reason was `reason` (a String, a Symbol or nil)
/// ended properly, else the message of its `StreamIncomplete`.
fn stream_incomplete(ruby: &Ruby, api: Value, reason: Value) -> Result<Option<String>, Error> {
    let api = to_s(api);
    let reason = (!reason.is_nil()).then(|| to_s(reason));
    guard(ruby, || {
        let reason = reason.as_deref();
        match stream_end::ends(&api, reason) {
            Ok(true) => Ok(None),
            Ok(false) => stream_end::incomplete_message(&api, reason)
                .map(Some)
                .map_err(|e| to_ruby(ruby, e)),
            Err(e) => Err(to_ruby(ruby, e)),
        }
    })
}

/// `{"openai" => ["choices[].finish_reason", [ends...], [fails...]], ...}`, frozen.
fn table(ruby: &Ruby) -> Result<magnus::RHash, Error> {
    let h = ruby.hash_new();
    for a in stream_end::APIS {
        let row = ruby.ary_new();
        row.push(a.field)?;
        row.push(ruby.ary_from_iter(a.ends.iter().copied()))?;
        row.push(ruby.ary_from_iter(a.fails.iter().copied()))?;
        h.aset(a.name, row)?;
    }
    Ok(h)
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    module.define_singleton_method(
        "_stream_incomplete",
        magnus::function!(stream_incomplete, 2),
    )?;
    module.const_set("STREAM_APIS", table(ruby)?)?;
    module.const_set("STREAM_INCOMPLETE_CLASS", stream_end::RUBY_CLASS)?;
    let class = module.define_class("StreamWatch", ruby.class_object())?;
    class.undef_default_alloc_func();
    class.define_singleton_method("_new", magnus::function!(RbStreamWatch::new, 1))?;
    class.define_method("_see_data", magnus::method!(RbStreamWatch::see_data, 2))?;
    class.define_method("_see", magnus::method!(RbStreamWatch::see, 1))?;
    class.define_method("_saw", magnus::method!(RbStreamWatch::saw, 3))?;
    class.define_method("_finish", magnus::method!(RbStreamWatch::finish, 0))?;
    class.define_method("api", magnus::method!(RbStreamWatch::api, 0))?;
    class.define_method("events", magnus::method!(RbStreamWatch::events, 0))?;
    Ok(())
}
