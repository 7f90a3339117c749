//! Events (core `events.rs`) as Ruby Hashes with Symbol keys, `type:` first: the shape
//! SwarmSDK's `LogStream.emit(**data)` takes.

use magnus::{Error, RArray, RHash, Ruby};
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
