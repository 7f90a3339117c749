//! Running Rust work without Ruby's global VM lock, so that other Ruby threads keep running
//! while a fleet talks to Redis (up to the backend's 250 ms I/O timeout per operation).
//!
//! The closure must not touch any Ruby object or call into Ruby: everything it needs is copied
//! into owned Rust values first (STYLE.md, practice 5). A panic inside it is caught on the
//! thread without the lock (unwinding through Ruby's C frames would be undefined behaviour) and
//! resumed once the lock is held again, where [`crate::error::guard`] turns it into
//! `RetryCore::InternalError`.

use std::ffi::c_void;
use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::ptr;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::{Duration, Instant};

/// Closures running (or about to run) without the GVL. `fork` copies only the forking thread:
/// a lock that another thread holds at that moment (the fleet's state, the Redis connection's)
/// stays held for ever in the child, whose first fleet call then hangs. So `Process._fork`
/// (`lib/retry_core/fleet.rb`) first waits, holding the GVL, until this is zero: no new closure
/// can start without the GVL, and those under way are bounded by the backend's timeouts.
static IN_FLIGHT: AtomicUsize = AtomicUsize::new(0);

/// Decrements `IN_FLIGHT` when the closure is done, however it ends.
struct Leaving;

impl Drop for Leaving {
    fn drop(&mut self) {
        IN_FLIGHT.fetch_sub(1, Ordering::SeqCst);
    }
}

/// Waits (holding the GVL, so no closure starts meanwhile) until no closure runs without the
/// GVL, or `limit` has passed; returns whether it got there. Called right before `fork`.
pub fn quiesce(limit: Duration) -> bool {
    let deadline = Instant::now() + limit;
    while IN_FLIGHT.load(Ordering::SeqCst) != 0 {
        if Instant::now() >= deadline {
            return false;
        }
        std::thread::sleep(Duration::from_micros(200));
    }
    true
}

struct Call<F, R> {
    f: Option<F>,
    result: Option<std::thread::Result<R>>,
}

unsafe extern "C" fn trampoline<F: FnOnce() -> R, R>(data: *mut c_void) -> *mut c_void {
    // SAFETY: `data` is the `Call` that `without_gvl` keeps alive on its stack for this call.
    let call = unsafe { &mut *(data as *mut Call<F, R>) };
    if let Some(f) = call.f.take() {
        let _leaving = Leaving;
        call.result = Some(catch_unwind(AssertUnwindSafe(f)));
    }
    ptr::null_mut()
}

/// `f()` with the GVL released. No unblocking function is given: the work is bounded by the
/// backend's own timeouts.
///
/// `rb_thread_call_without_gvl2`, not `rb_thread_call_without_gvl`: the latter checks for
/// pending interrupts (`Thread#raise`, `Timeout`, a signal) before and after the call and
/// raises them with a `longjmp` straight through these Rust frames, skipping their destructors
/// (a retrier would stay borrowed for ever). The `2` variant never raises: when an interrupt is
/// pending it returns without calling `f`, which then runs with the lock held (it is bounded),
/// and Ruby handles the interrupt as soon as the method returns.
pub fn without_gvl<F: FnOnce() -> R, R>(f: F) -> R {
    let mut call = Call {
        f: Some(f),
        result: None,
    };
    // Counted while the GVL is held: a fork (which holds it) sees every closure under way.
    IN_FLIGHT.fetch_add(1, Ordering::SeqCst);
    // SAFETY: the callback only runs `f`, which touches no Ruby state; `call` outlives the call.
    unsafe {
        rb_sys::rb_thread_call_without_gvl2(
            Some(trampoline::<F, R>),
            &mut call as *mut Call<F, R> as *mut c_void,
            None,
            ptr::null_mut(),
        );
    }
    match call.result.take() {
        Some(Ok(r)) => r,
        Some(Err(payload)) => resume_unwind(payload),
        // An interrupt was pending: Ruby did not release the lock nor call back.
        None => match call.f.take() {
            Some(f) => {
                let _leaving = Leaving;
                f()
            }
            None => unreachable!("the callback took the closure and left no result"),
        },
    }
}
