//! State that belongs to one process. After `fork()`, a child finds its parent's copy (whatever
//! it was doing: locks held by threads that do not exist in the child included), never touches
//! it, and makes one of its own; the parent's is left behind, leaked, in the child. Forks nested
//! to any depth each get their own (preforking servers such as gunicorn, Puma and Unicorn fork
//! with a live fleet).
//!
//! Which process this is, is asked on every fleet call (the metrics of a success). On Unix a
//! `pthread_atfork` child handler counts the forks, so the question is one atomic load; asking
//! the kernel (`getpid`, a system call since glibc 2.25) cost about 0.15 us a call, measured
//! (`perf`, a Python door with admission on). Where the handler could not be registered, and
//! off Unix, the process id is compared as before.

use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicU8, Ordering};

struct Owned<T> {
    pid: u32,
    /// [`forks`] when it was made.
    forks: u64,
    value: T,
}

/// A `T` per process, made by `make` on first use in each process.
pub(crate) struct PerProcess<T> {
    state: AtomicPtr<Owned<T>>,
    make: fn() -> T,
}

// SAFETY: the `T` is reached only through `&T` (shared between threads, as `Sync` allows) and
// dropped by the process that made it, on the thread that drops the `PerProcess`.
unsafe impl<T: Send + Sync> Send for PerProcess<T> {}
unsafe impl<T: Send + Sync> Sync for PerProcess<T> {}

/// The forks that led to this process (0 in the first; a child's handler adds one).
static FORKS: AtomicU64 = AtomicU64::new(0);

/// Whether the fork counter is registered: 0 not yet asked, 1 yes, 2 no (compare pids).
static COUNTED: AtomicU8 = AtomicU8::new(0);

#[cfg(unix)]
extern "C" fn forked() {
    FORKS.fetch_add(1, Ordering::Relaxed);
}

#[cfg(unix)]
extern "C" {
    // POSIX; in the C library every Rust program on Unix links.
    fn pthread_atfork(
        prepare: Option<extern "C" fn()>,
        parent: Option<extern "C" fn()>,
        child: Option<extern "C" fn()>,
    ) -> std::ffi::c_int;
}

/// Registers the fork counter once per process image (a child inherits the registration). Its
/// `Once` is completed before a fork by `crate::warm` (`fleet_engine::warm`), like the tables.
pub(super) fn count_forks() {
    if COUNTED.load(Ordering::Acquire) != 0 {
        return;
    }
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        #[cfg(unix)]
        // SAFETY: registers a handler that only adds to an atomic (async-signal-safe).
        let ok = unsafe { pthread_atfork(None, None, Some(forked)) } == 0;
        #[cfg(not(unix))]
        let ok = false;
        COUNTED.store(if ok { 1 } else { 2 }, Ordering::Release);
    });
}

/// Whether `owned` was made in this process.
fn is_ours<T>(owned: &Owned<T>) -> bool {
    if COUNTED.load(Ordering::Relaxed) == 1 {
        owned.forks == FORKS.load(Ordering::Relaxed)
    } else {
        owned.pid == std::process::id()
    }
}

impl<T> PerProcess<T> {
    pub(crate) fn new(make: fn() -> T) -> Self {
        count_forks();
        PerProcess {
            state: AtomicPtr::new(Self::fresh(make)),
            make,
        }
    }

    fn fresh(make: fn() -> T) -> *mut Owned<T> {
        Box::into_raw(Box::new(Owned {
            pid: std::process::id(),
            forks: FORKS.load(Ordering::Relaxed),
            value: make(),
        }))
    }

    /// This process's `T`; after a fork, a fresh one.
    pub(crate) fn get(&self) -> &T {
        loop {
            let cur = self.state.load(Ordering::Acquire);
            // SAFETY: `state` always points to a leaked `Owned`, freed only when `self` is
            // dropped, so it outlives `&self`.
            let owned = unsafe { &*cur };
            if is_ours(owned) {
                return &owned.value;
            }
            let fresh = Self::fresh(self.make);
            if self
                .state
                .compare_exchange(cur, fresh, Ordering::AcqRel, Ordering::Acquire)
                .is_err()
            {
                // SAFETY: just made, and never shared.
                drop(unsafe { Box::from_raw(fresh) });
            }
        }
    }
}

impl<T> Drop for PerProcess<T> {
    fn drop(&mut self) {
        let cur = *self.state.get_mut();
        // SAFETY: `cur` came from `Box::into_raw`; only the process that made it frees it.
        if is_ours(unsafe { &*cur }) {
            drop(unsafe { Box::from_raw(cur) });
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_value_per_process_made_once() {
        let p = PerProcess::new(|| vec![1, 2, 3]);
        let a: *const Vec<i32> = p.get();
        let b: *const Vec<i32> = p.get();
        assert_eq!(a, b);
        assert_eq!(p.get(), &[1, 2, 3]);
    }

    #[cfg(unix)]
    extern "C" {
        fn fork() -> std::ffi::c_int;
        fn waitpid(
            pid: std::ffi::c_int,
            status: *mut std::ffi::c_int,
            options: std::ffi::c_int,
        ) -> std::ffi::c_int;
        fn _exit(code: std::ffi::c_int) -> !;
    }

    /// A child of `fork()` gets a value of its own (and so does its child), the parent keeps
    /// its own: whether the fork counter or the process id says so.
    #[cfg(unix)]
    #[test]
    fn a_child_of_fork_makes_its_own_at_any_depth() {
        use std::sync::atomic::AtomicUsize;
        static MADE: AtomicUsize = AtomicUsize::new(0);
        let p = PerProcess::new(|| MADE.fetch_add(1, Ordering::Relaxed));
        let parents: *const usize = p.get();
        // SAFETY: the child only reads and allocates (glibc's malloc is made safe across fork
        // by its own handlers), then leaves with `_exit`.
        let pid = unsafe { fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            let fresh = !std::ptr::eq(p.get(), parents) && std::ptr::eq(p.get(), p.get());
            let nested = unsafe { fork() };
            if nested == 0 {
                let mine: *const usize = p.get();
                let ok = fresh && std::ptr::eq(p.get(), mine);
                unsafe { _exit(if ok { 0 } else { 3 }) };
            }
            let mut status = 0;
            let waited = unsafe { waitpid(nested, &mut status, 0) };
            let ok = fresh && waited == nested && status == 0;
            unsafe { _exit(if ok { 0 } else { 4 }) };
        }
        let mut status = 0;
        assert_eq!(unsafe { waitpid(pid, &mut status, 0) }, pid);
        assert_eq!(
            status, 0,
            "a child saw its parent's value (wait status {status})"
        );
        assert!(std::ptr::eq(p.get(), parents));
    }
}
