//! The testing switch: virtual time for a whole process, so that tests of code that retries run
//! in no real time, fleet included.
//!
//! While a [`VirtualTime`] lives (Python `retry_core.testing()`, Ruby `RetryCore.testing!`):
//!
//! - every [`Fleet`](crate::fleet::Fleet) built on the system clock reads the virtual clock, so a
//!   shared pause, an open circuit or an admission slot ends when virtual time reaches it;
//! - a wait ([`sleep`]: the drivers' [`ThreadSleeper`](crate::driver::blocking::ThreadSleeper)
//!   and `TokioSleeper`, the Python and Ruby front doors) moves the virtual clock to its end at
//!   once instead of sleeping, and the drivers' clocks read it for the policy's deadline;
//! - a run given no seed takes the switch's, so jitter is the same on every run of a test;
//! - each event a run emits is kept ([`recorded`]), so a test can assert the decisions.
//!
//! The clock is process-wide because a fleet is: the callers of one key on several threads all
//! wait on the same pause. A wait moves the clock to `now + seconds` at once, never back. So
//! threads do not wait side by side in virtual time: each wait ends before the next thread's
//! begins, and their waits add up (a test of threads that must overlap in time needs real
//! time, or one thread's calls).
//!
//! The opposite mistake, patching the host's sleep (`time.sleep`, `Kernel#sleep`) while a fleet
//! reads the real clock, makes the fleet's gate answer "wait" again and again. A
//! [`Run`](crate::Run) notices (its gate waits end with the fleet's clock still where they
//! began, [`STALLED_WAITS`] times in a row) and stops with [`Step::Stalled`](crate::Step), whose
//! message ([`stalled_message`]) names this switch in the caller's language.
//!
//! ```
//! use std::sync::Arc;
//! use retry_core::driver::blocking::Retry;
//! use retry_core::fleet::{Fleet, FleetConfig};
//! use retry_core::testing::VirtualTime;
//! use retry_core::{Failure, RetryPolicy};
//!
//! let time = VirtualTime::start(7);
//! let fleet = Arc::new(Fleet::in_process(FleetConfig::default()));
//! let mut answers = vec![
//!     Err(Failure::http(429, "slow down").with_header("retry-after", "20")),
//!     Err(Failure::http(503, "busy")),
//!     Ok("hello"),
//! ]
//! .into_iter();
//! let out = Retry::new(RetryPolicy::recommended())
//!     .fleet(Arc::clone(&fleet), "openai:gpt-4o")
//!     .run(|_| answers.next().unwrap());
//! assert_eq!(out.unwrap(), "hello");
//! // 20 s of the server's retry-after and a backoff went by, on the virtual clock only.
//! assert!(time.elapsed() >= 20.0);
//! let waits = time.events().iter().filter(|e| e.kind == "retry_wait_started").count();
//! assert_eq!(waits, 2);
//! ```

use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use crate::events::Event;

/// How many switches are on (nested `with` blocks, several tests' helpers): off at 0.
static DEPTH: AtomicUsize = AtomicUsize::new(0);
/// The virtual wall clock, Unix seconds as `f64` bits. Non-negative floats order as their
/// bits do, so `fetch_max` on the bits is the later of two instants.
static NOW: AtomicU64 = AtomicU64::new(0);
/// The virtual clock when the switch went on.
static ORIGIN: AtomicU64 = AtomicU64::new(0);
/// The jitter seed of runs given none.
static SEED: AtomicU64 = AtomicU64::new(0);
/// The events runs emitted since the switch went on.
static RECORD: Mutex<Vec<Event>> = Mutex::new(Vec::new());

/// The most events kept: a test that loops for ever must not take the memory with it. Past it
/// the oldest go.
pub const MAX_RECORDED: usize = 100_000;

/// Gate waits in a row that end with the fleet's clock short of half their length before a run
/// stops with [`Step::Stalled`](crate::Step): one could be a clock adjusted backwards, three
/// are a sleep that does not sleep.
pub const STALLED_WAITS: u32 = 3;

fn load(cell: &AtomicU64) -> f64 {
    f64::from_bits(cell.load(Ordering::SeqCst))
}

fn real_wall_clock() -> f64 {
    std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map(|d| d.as_secs_f64())
        .unwrap_or(0.0)
}

/// Turns the switch on (or nests one more level): virtual time starts at the real wall-clock
/// time, so a fleet's state from before stays meaningful; the record is emptied. `seed` fixes
/// the jitter of every run given no seed of its own. Prefer [`VirtualTime::start`], which
/// turns it off when dropped.
pub fn on(seed: u64) {
    SEED.store(seed, Ordering::SeqCst);
    if DEPTH.fetch_add(1, Ordering::SeqCst) == 0 {
        let t = real_wall_clock();
        NOW.store(t.to_bits(), Ordering::SeqCst);
        ORIGIN.store(t.to_bits(), Ordering::SeqCst);
        lock().clear();
    }
}

/// Turns one level of the switch off; real time again when none is left.
pub fn off() {
    let _ = DEPTH.fetch_update(Ordering::SeqCst, Ordering::SeqCst, |d| d.checked_sub(1));
}

/// Whether virtual time is on.
pub fn is_on() -> bool {
    DEPTH.load(Ordering::SeqCst) > 0
}

/// The virtual wall-clock time (Unix seconds) while the switch is on.
pub fn now() -> Option<f64> {
    is_on().then(|| load(&NOW))
}

/// Virtual seconds since the switch went on.
pub fn elapsed() -> Option<f64> {
    is_on().then(|| load(&NOW) - load(&ORIGIN))
}

/// The jitter seed of runs given none, while the switch is on.
pub fn seed() -> Option<u64> {
    is_on().then(|| SEED.load(Ordering::SeqCst))
}

/// A wait of `seconds`: with the switch on, moves the virtual clock to at least `now +
/// seconds` and returns `true` at once; off, returns `false` (the caller sleeps for real).
/// NaN and negative waits are none.
pub fn sleep(seconds: f64) -> bool {
    if !is_on() {
        return false;
    }
    let seconds = if seconds.is_finite() {
        seconds.max(0.0)
    } else if seconds > 0.0 {
        crate::policy::MAX_DELAY_S
    } else {
        0.0
    };
    let end = load(&NOW) + seconds;
    NOW.fetch_max(end.to_bits(), Ordering::SeqCst);
    true
}

fn lock() -> std::sync::MutexGuard<'static, Vec<Event>> {
    RECORD.lock().unwrap_or_else(|e| e.into_inner())
}

/// Keeps `events` while the switch is on ([`Run::take_events`](crate::Run::take_events) calls
/// it); nothing when off.
pub fn record(events: &[Event]) {
    if events.is_empty() || !is_on() {
        return;
    }
    let mut kept = lock();
    kept.extend(events.iter().cloned());
    if kept.len() > MAX_RECORDED {
        let over = kept.len() - MAX_RECORDED;
        kept.drain(..over);
    }
}

/// The events kept since the switch went on, in the order the runs emitted them.
pub fn recorded() -> Vec<Event> {
    lock().clone()
}

/// The language a message speaks to.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Host {
    /// The Rust drivers.
    Rust,
    /// The Python package.
    Python,
    /// The Ruby gem.
    Ruby,
}

/// Per host: the sleep a test patches, and the switch to use instead.
const SWITCHES: [(Host, &str, &str); 3] = [
    (
        Host::Rust,
        "a Sleeper that does not sleep",
        "retry_core::testing::VirtualTime::start(seed)",
    ),
    (
        Host::Python,
        "a patched time.sleep or asyncio.sleep",
        "`with retry_core.testing(seed=0):` (pytest: the `retry_core_testing` fixture)",
    ),
    (
        Host::Ruby,
        "a stubbed sleep",
        "RetryCore.testing! (minitest: include RetryCore::Testing::Minitest)",
    ),
];

/// The message of a run stopped by [`Step::Stalled`](crate::Step): what happened, the likely
/// cause, and the switch that does it right, in `host`'s words.
pub fn stalled_message(host: Host) -> String {
    let (_, patched, switch) = SWITCHES
        .iter()
        .find(|(h, _, _)| *h == host)
        .copied()
        .unwrap_or(SWITCHES[0]);
    format!(
        "retry-core: the fleet's clock did not move while this call waited for it \
         ({STALLED_WAITS} waits in a row): the sleep does not sleep ({patched}?), so the fleet \
         would answer \"wait\" for ever. Turn waits into virtual time the fleet shares with \
         {switch}."
    )
}

/// The testing switch, on while this value lives (switches nest). See the module documentation.
///
/// Process-wide: in a Rust test binary, put the tests that use it in their own file (or
/// serialise them), since tests that sleep for real in the same binary would stop sleeping.
#[derive(Debug)]
pub struct VirtualTime(());

impl VirtualTime {
    /// Turns the switch on with jitter seed `seed`.
    pub fn start(seed: u64) -> Self {
        on(seed);
        VirtualTime(())
    }

    /// The virtual wall-clock time (Unix seconds).
    pub fn now(&self) -> f64 {
        load(&NOW)
    }

    /// Virtual seconds since the switch went on.
    pub fn elapsed(&self) -> f64 {
        load(&NOW) - load(&ORIGIN)
    }

    /// Moves the virtual clock forward by `seconds` (a test's own "time passes").
    pub fn advance(&self, seconds: f64) {
        sleep(seconds);
    }

    /// The events the runs emitted since the switch went on.
    pub fn events(&self) -> Vec<Event> {
        recorded()
    }
}

impl Drop for VirtualTime {
    fn drop(&mut self) {
        off();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The switch itself is tested in core/tests/testing_clock.rs: turning it on here would
    // change the clock under the unit tests running beside this one.

    #[test]
    fn every_host_has_its_switch_named() {
        for (host, word) in [
            (Host::Rust, "VirtualTime"),
            (Host::Python, "retry_core.testing"),
            (Host::Ruby, "RetryCore.testing!"),
        ] {
            let m = stalled_message(host);
            assert!(m.contains(word), "{m}");
            assert!(m.starts_with("retry-core: "));
        }
    }
}
