//! State that belongs to one process. After `fork()`, a child finds its parent's copy (whatever
//! it was doing: locks held by threads that do not exist in the child included), never touches
//! it, and makes one of its own; the parent's is left behind, leaked, in the child. Forks nested
//! to any depth each get their own (preforking servers such as gunicorn, Puma and Unicorn fork
//! with a live fleet).

use std::sync::atomic::{AtomicPtr, Ordering};

struct Owned<T> {
    pid: u32,
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

impl<T> PerProcess<T> {
    pub(crate) fn new(make: fn() -> T) -> Self {
        PerProcess {
            state: AtomicPtr::new(Self::fresh(make)),
            make,
        }
    }

    fn fresh(make: fn() -> T) -> *mut Owned<T> {
        Box::into_raw(Box::new(Owned {
            pid: std::process::id(),
            value: make(),
        }))
    }

    /// This process's `T`; after a fork, a fresh one.
    pub(crate) fn get(&self) -> &T {
        let pid = std::process::id();
        loop {
            let cur = self.state.load(Ordering::Acquire);
            // SAFETY: `state` always points to a leaked `Owned`, freed only when `self` is
            // dropped, so it outlives `&self`.
            let owned = unsafe { &*cur };
            if owned.pid == pid {
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
        if unsafe { &*cur }.pid == std::process::id() {
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
}
