//! Events (core `events.rs`) as Ruby Hashes with Symbol keys, `type:` first: the shape
//! SwarmSDK's `LogStream.emit(**data)` takes.

use magnus::{Error, RArray, RHash, Ruby};
use retry_core::__private::messages::LogLevel;
use retry_core::Event;

use crate::convert::from_json;

pub fn to_hash(ruby: &Ruby, event: &Event) -> Result<RHash, Error> {
    let h = ruby.hash_new();
    h.aset(ruby.to_symbol("type"), event.kind.as_str())?;
    for (k, v) in &event.fields {
        h.aset(ruby.to_symbol(k), from_json(ruby, v, true)?)?;
    }
    Ok(h)
}

pub fn to_array(ruby: &Ruby, events: &[Event]) -> Result<RArray, Error> {
    let a = ruby.ary_new_capa(events.len());
    for e in events {
        a.push(to_hash(ruby, e)?)?;
    }
    Ok(a)
}

/// Each event's log line, in the same order: `[level, text]` (`:warn`, `:info` or `:debug`),
/// or nil.
pub fn log_lines(ruby: &Ruby, evs: &[Event]) -> Result<RArray, Error> {
    let a = ruby.ary_new_capa(evs.len());
    for e in evs {
        match retry_core::__private::messages::log_line(e) {
            Some((level, text)) => {
                let pair = ruby.ary_new_capa(2);
                pair.push(ruby.to_symbol(match level {
                    LogLevel::Warning => "warn",
                    LogLevel::Info => "info",
                    LogLevel::Debug => "debug",
                }))?;
                pair.push(text)?;
                a.push(pair)?;
            }
            None => a.push(ruby.qnil())?,
        }
    }
    Ok(a)
}
