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
//! - work that may wait on the network (a Redis-backed fleet) runs without the GVL and touches
//!   no Ruby object meanwhile (`nogvl.rs`);
//! - errors raise the classes of `lib/retry_core/error.rb`, mapped in `error.rs` only.

mod category;
mod classify;
mod convert;
mod error;
mod estimate;
mod events;
mod failure;
mod fleet;
mod messages;
mod nogvl;
mod observe;
mod orphan;
mod policy;
mod retry_after;
mod run;
mod scrub;
mod stream_end;
mod testing;
mod usage;

use magnus::{prelude::*, Error, Ruby};

/// Rust's allocations in this extension (not Ruby's). Pruning a long history allocates many
/// small strings and frees them at once; glibc then trims its heap and the next call faults the
/// pages back in, which cost more than the pruning itself. mimalloc keeps them.
#[global_allocator]
static ALLOCATOR: mimalloc::MiMalloc = mimalloc::MiMalloc;

#[magnus::init(name = "retry_core")]
fn init(ruby: &Ruby) -> Result<(), Error> {
    let module = ruby.define_module("RetryCore")?;
    error::init(ruby)?;
    error::install_panic_hook();
    failure::init(ruby, module)?;
    category::init(ruby, module)?;
    classify::init(ruby, module)?;
    policy::init(ruby, module)?;
    fleet::init(ruby, module)?;
    run::init(ruby, module)?;
    orphan::init(ruby, module)?;
    retry_after::init(ruby, module)?;
    scrub::init(ruby, module)?;
    messages::init(ruby, module)?;
    module.define_singleton_method("_sse_first_event", magnus::function!(sse_first_event, 1))?;
    // Core `warm`: every lazy table built now (`Process._fork` calls it, see fork.rb).
    module.define_singleton_method("_warm", magnus::function!(retry_core::warm, 0))?;
    testing::init(ruby, module)?;
    stream_end::init(ruby, module)?;
    usage::init(ruby, module)?;
    estimate::init(ruby, module)?;
    resolve_classes(ruby);
    module.const_set("NATIVE_VERSION", env!("CARGO_PKG_VERSION"))?;
    // Hidden entry points for the suite, never for users.
    let native = module.define_module("Native")?;
    native.define_singleton_method("_debug_panic", magnus::function!(error::debug_panic, 1))?;
    observe::init(ruby, module)?;
    Ok(())
}

/// Each wrapped type finds its Ruby class lazily, through a once-lock whose first initialisation
/// calls into Ruby (`const_get`), and a call into Ruby may switch threads. A second thread that
/// then needs the same class blocks on that lock while holding the GVL, and the first can never
/// get the GVL back to finish: the process hangs (seen with two threads' first failures at
/// once). Resolved here, while `require` runs on one thread, no lock is ever initialised later.
fn resolve_classes(ruby: &Ruby) {
    use magnus::TypedData;
    category::RbClassification::class(ruby);
    failure::RbFailure::class(ruby);
    fleet::RbFleet::class(ruby);
    fleet::RbSlot::class(ruby);
    run::RbDecision::class(ruby);
    run::RbRun::class(ruby);
    policy::RbPolicy::class(ruby);
}

/// Core `middleware::first_event` (`RetryCore._sse_first_event(bytes)`): where a stream's
/// first SSE event ends (nil while incomplete) and, when it is an error event, its data; the
/// Faraday middleware holds a stream back until it knows.
fn sse_first_event(
    ruby: &Ruby,
    data: magnus::RString,
) -> Result<(Option<usize>, Option<String>), Error> {
    // SAFETY: the bytes are copied before any Ruby code can run.
    let bytes = unsafe { data.as_slice() }.to_vec();
    error::guard(ruby, || Ok(retry_core::middleware::first_event(&bytes)))
}
