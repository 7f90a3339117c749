//! The native extension of the `retry_core` gem: a thin binding of the `retry-core` engine.
//!
//! The engine decides; Ruby waits. Every type here wraps one core type (`Rb*` names, one file
//! per core module) and exposes plain positional, underscore-prefixed methods; the gem's Ruby
//! files (`lib/retry_core/*.rb`) add keyword arguments, defaults, docs and the retry loop,
//! which sleeps through `Kernel#sleep` so that interrupts, `Thread#raise`, `Timeout` and Fiber
//! schedulers all work.
//!
//! Invariants at this boundary:
//! - no Rust panic crosses into Ruby: every entry point runs inside [`error::guard`];
//! - no Ruby object is kept past a call: inputs are copied into owned Rust values, so no
//!   wrapped type needs marking and `GC.stress` finds nothing to break;
//! - errors raise the classes of `lib/retry_core/error.rb`, mapped in `error.rs` only.

mod category;
mod classify;
mod convert;
mod error;
mod events;
mod failure;
mod machine;
mod orphan;
mod policy;
mod retry_after;
mod scrub;
mod text;

use magnus::{Error, Module, Ruby};

/// Rust's allocations in this extension (not Ruby's). Pruning a long history allocates many
/// small strings and frees them at once; glibc then trims its heap and the next call faults the
/// pages back in, which cost more than the pruning itself. mimalloc keeps them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[magnus::init(name = "retry_core")]
fn init(ruby: &Ruby) -> Result<(), Error> {
    let module = ruby.define_module("RetryCore")?;
    error::init(ruby)?;
    failure::init(ruby, module)?;
    category::init(ruby, module)?;
    classify::init(ruby, module)?;
    policy::init(ruby, module)?;
    machine::init(ruby, module)?;
    orphan::init(ruby, module)?;
    retry_after::init(ruby, module)?;
    scrub::init(ruby, module)?;
    text::init(ruby, module)?;
    module.const_set("NATIVE_VERSION", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
