//! Observability for the gem: the core's table of names (`observe::names`), for
//! `RetryCore::Notifications` to name ActiveSupport::Notifications events, and a fleet's
//! metrics as Prometheus text (`observe::prometheus`, `RetryCore::Fleet#prometheus_text`).

use magnus::{prelude::*, Error, RHash, RModule, Ruby};
use retry_core::observe::{names, prometheus};
use retry_core::EventKind;

use crate::error::guard;
use crate::fleet::RbFleet;

/// `{"kinds" => {type => [span_event, notification, weight]}, "attributes" => {key => attribute},
/// "prefix" => "retry_core.", "event_type" => "retry_core.event"}`, frozen strings.
fn observe_names(ruby: &Ruby) -> Result<RHash, Error> {
    guard(ruby, || {
        let kinds = ruby.hash_new();
        for k in EventKind::ALL {
            let n = names::of(k);
            let row = ruby.ary_from_vec(vec![n.span_event, n.notification, n.weight.as_str()]);
            kinds.aset(k.as_str(), row)?;
        }
        let attributes = ruby.hash_new();
        for (key, attr) in names::ATTRIBUTES {
            attributes.aset(*key, *attr)?;
        }
        let out = ruby.hash_new();
        out.aset("kinds", kinds)?;
        out.aset("attributes", attributes)?;
        out.aset("prefix", names::PREFIX)?;
        out.aset("event_type", names::EVENT_TYPE)?;
        Ok(out)
    })
}

/// The fleet's metrics as Prometheus text, at most `max_keys` keys.
fn prometheus_text(ruby: &Ruby, rb_self: &RbFleet, max_keys: usize) -> Result<String, Error> {
    guard(ruby, || {
        Ok(prometheus::render(rb_self.0.metrics(), max_keys))
    })
}

pub fn init(ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let native = module.define_module("Native")?;
    native.define_singleton_method("_observe_names", magnus::function!(observe_names, 0))?;
    native.const_set("PROMETHEUS_DEFAULT_MAX_KEYS", prometheus::DEFAULT_MAX_KEYS)?;
    let fleet = module.define_class("Fleet", ruby.class_object())?;
    fleet.define_method("_prometheus_text", magnus::method!(prometheus_text, 1))?;
    Ok(())
}
