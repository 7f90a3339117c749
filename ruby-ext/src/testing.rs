//! `RetryCore::Testing`'s native half (core `testing.rs`): the process-wide switch, virtual
//! time the fleets share, the fixed seed and the record. `lib/retry_core/testing.rb` adds
//! `RetryCore.testing!`, the recorder and the minitest helper.

use magnus::{prelude::*, Error, RArray, RModule, Ruby};
use retry_core::testing::{self, Host};

use crate::error::guard;

fn on(seed: u64) {
    testing::on(seed);
}

fn off() {
    testing::off();
}

/// With the switch on: the virtual clock moves to the wait's end, `true` at once; off, `false`.
fn sleep(seconds: f64) -> bool {
    testing::sleep(seconds)
}

fn now() -> Option<f64> {
    testing::now()
}

fn elapsed() -> Option<f64> {
    testing::elapsed()
}

fn events(ruby: &Ruby) -> Result<RArray, Error> {
    guard(ruby, || crate::events::to_array(ruby, &testing::recorded()))
}

fn stalled_message() -> String {
    testing::stalled_message(Host::Ruby)
}

pub fn init(_ruby: &Ruby, module: RModule) -> Result<(), Error> {
    let t = module.define_module("Testing")?;
    t.define_singleton_method("_on", magnus::function!(on, 1))?;
    t.define_singleton_method("_off", magnus::function!(off, 0))?;
    t.define_singleton_method("_sleep", magnus::function!(sleep, 1))?;
    t.define_singleton_method("_now", magnus::function!(now, 0))?;
    t.define_singleton_method("_elapsed", magnus::function!(elapsed, 0))?;
    t.define_singleton_method("_events", magnus::function!(events, 0))?;
    t.define_singleton_method("_stalled_message", magnus::function!(stalled_message, 0))?;
    Ok(())
}
