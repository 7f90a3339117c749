//! Drivers: the loops that call, wait and call again, for Rust users. Each interprets a
//! [`crate::run::Run`], as the Python and Ruby front doors do with their host's sleep.

pub mod blocking;
#[cfg(feature = "tokio")]
pub mod tokio;

use std::future::Future;
use std::sync::Arc;

use crate::events::EventSink;
use crate::failure::{AsFailure, Failure, Headers};
use crate::fleet::{Cost, Fleet, Usage};
use crate::machine::Decision;
use crate::policy::RetryPolicy;
use crate::run::{Run, RunConfig, Step};
use blocking::Recovery;

/// A wait as a `Duration` that cannot panic, whatever a policy or a fleet says: NaN and negative
/// waits are none, and no wait is longer than [`MAX_DELAY_S`](crate::policy::MAX_DELAY_S).
pub(crate) fn wait_duration(secs: f64) -> std::time::Duration {
    let secs = if secs.is_nan() {
        0.0
    } else {
        secs.clamp(0.0, crate::policy::MAX_DELAY_S)
    };
    std::time::Duration::from_secs_f64(secs)
}

/// A monotonic clock in seconds; injectable so tests run on virtual time.
pub trait Clock {
    /// Seconds since an arbitrary fixed start; never goes backwards.
    fn now(&self) -> f64;
}

/// A clock that only moves when told to: virtual time for replays and tests, shareable with a
/// [`Fleet`] as its wall clock ([`ManualClock::wall_clock`]).
#[derive(Debug, Clone, Default)]
pub struct ManualClock(Arc<std::sync::atomic::AtomicU64>);

impl ManualClock {
    /// A clock showing `t` seconds.
    pub fn new(t: f64) -> Self {
        let c = ManualClock::default();
        c.set(t);
        c
    }
    /// Sets the time to `t` seconds.
    pub fn set(&self, t: f64) {
        self.0
            .store(t.to_bits(), std::sync::atomic::Ordering::SeqCst);
    }
    /// This clock as a fleet's wall clock.
    pub fn wall_clock(&self) -> crate::fleet::WallClock {
        let c = self.clone();
        Arc::new(move || c.now())
    }
}

impl Clock for ManualClock {
    fn now(&self) -> f64 {
        f64::from_bits(self.0.load(std::sync::atomic::Ordering::SeqCst))
    }
}

/// The real monotonic clock; under the testing switch ([`crate::testing`]), its virtual clock.
#[derive(Debug, Clone)]
pub struct SystemClock(std::time::Instant, Option<f64>);

impl Default for SystemClock {
    fn default() -> Self {
        SystemClock(std::time::Instant::now(), crate::testing::now())
    }
}

impl Clock for SystemClock {
    fn now(&self) -> f64 {
        virtual_since(self.1).unwrap_or_else(|| self.0.elapsed().as_secs_f64())
    }
}

/// Virtual seconds since `start` (a virtual reading), while the testing switch is on.
pub(crate) fn virtual_since(start: Option<f64>) -> Option<f64> {
    Some((crate::testing::now()? - start?).max(0.0))
}

/// A call's value with what its response said of the provider's limits: the usage it reports
/// and its headers. A fleet with admission on settles the call's reservation against the usage
/// and learns the limits from the headers (`Retry::run_reported`).
#[derive(Debug, Clone, PartialEq)]
pub struct Reported<T> {
    /// The call's value.
    pub value: T,
    /// The tokens the response says were used, if it says.
    pub usage: Option<Usage>,
    /// The response's headers (its rate-limit headers are read).
    pub headers: Headers,
}

impl<T> Reported<T> {
    /// `value`, with no usage and no headers.
    pub fn new(value: T) -> Self {
        Reported {
            value,
            usage: None,
            headers: Headers::new(),
        }
    }

    /// With the usage the response reports.
    pub fn usage(mut self, usage: Usage) -> Self {
        self.usage = Some(usage);
        self
    }

    /// With the response's headers.
    pub fn headers(mut self, headers: Headers) -> Self {
        self.headers = headers;
        self
    }
}

/// The error a driver returns when it stops: the last error, and the decision that stopped it.
#[derive(Debug)]
pub struct RetryError<E> {
    /// The error the last call returned.
    pub error: E,
    /// The failure record built from that error.
    // Boxed: the success path should not carry a 200-byte error variant around.
    pub failure: Box<Failure>,
    /// The decision that stopped the loop (its action says why).
    pub decision: Box<Decision>,
}

impl<E: std::fmt::Display> std::fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "{} (category {}, after {} attempt(s))",
            self.error, self.decision.classification.category, self.decision.attempt
        )
    }
}

impl<E: std::fmt::Debug + std::fmt::Display> std::error::Error for RetryError<E> {}

/// Sends the run's new events to `sink`.
pub(crate) fn drain<S: EventSink + ?Sized>(run: &mut Run, sink: &S) {
    if run.has_events() {
        for e in &run.take_events() {
            sink.emit(e);
            #[cfg(feature = "tracing")]
            crate::observe::tracing::emit(e);
        }
    }
}

/// The error a driver returns at the run's end: the last error, its failure and its decision.
/// A run ends without a failure only when the fleet made it skip every model, which the
/// drivers never ask for (they wait out the fleet), so `last` is always there.
pub(crate) fn finish<E>(run: &Run, last: Option<(E, Failure)>) -> RetryError<E> {
    let (error, failure) = last.expect("a driver's run ends after a failed call");
    let decision = run
        .decision()
        .cloned()
        .expect("a failed call always has a decision");
    RetryError {
        error,
        failure: Box::new(failure),
        decision: Box::new(decision),
    }
}

/// The one loop both drivers run: `call` makes a call, `sleep` waits, the recoveries go
/// through `recovery`. Panics on [`Step::Stalled`] (see [`crate::testing`]). The tokio driver awaits its host's futures; the blocking driver's are
/// all ready when made (the call and the sleep happen then), so [`run_ready`] finishes it.
pub(crate) async fn interpret<T, E, R, C, S, CallFut, SleepFut>(
    run: Run,
    recovery: &mut R,
    clock: &C,
    sink: &S,
    call: impl FnMut(u32) -> CallFut,
    sleep: impl FnMut(std::time::Duration) -> SleepFut,
) -> Result<T, RetryError<E>>
where
    E: AsFailure,
    R: Recovery + ?Sized,
    C: Clock + ?Sized,
    S: EventSink + ?Sized,
    CallFut: Future<Output = Result<Reported<T>, E>>,
    SleepFut: Future<Output = ()>,
{
    // With the `tracing` feature, the whole call runs inside its span (entered on every poll,
    // never held across an await), and the span records how it ended.
    #[cfg(feature = "tracing")]
    {
        use crate::observe::tracing as t;
        let span = t::call_span(&run);
        let calls = std::sync::atomic::AtomicU32::new(0);
        let mut call = call;
        let counted = |attempt| {
            calls.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            call(attempt)
        };
        let out = tracing::Instrument::instrument(
            interpret_steps(run, recovery, clock, sink, counted, sleep),
            span.clone(),
        )
        .await;
        let calls = calls.into_inner();
        match &out {
            Ok(_) => t::finish(&span, "success", calls, None),
            Err(e) => t::finish(
                &span,
                e.decision.action.name(),
                calls,
                Some(e.decision.classification.category.as_str()),
            ),
        }
        out
    }
    #[cfg(not(feature = "tracing"))]
    interpret_steps(run, recovery, clock, sink, call, sleep).await
}

async fn interpret_steps<T, E, R, C, S, CallFut, SleepFut>(
    mut run: Run,
    recovery: &mut R,
    clock: &C,
    sink: &S,
    mut call: impl FnMut(u32) -> CallFut,
    mut sleep: impl FnMut(std::time::Duration) -> SleepFut,
) -> Result<T, RetryError<E>>
where
    E: AsFailure,
    R: Recovery + ?Sized,
    C: Clock + ?Sized,
    S: EventSink + ?Sized,
    CallFut: Future<Output = Result<Reported<T>, E>>,
    SleepFut: Future<Output = ()>,
{
    let start = clock.now();
    let mut last = None;
    let mut step = run.start(0.0);
    loop {
        drain(&mut run, sink);
        let elapsed = clock.now() - start;
        step = match step {
            Step::Call { .. } => match call(run.attempts() + 1).await {
                Ok(r) => {
                    run.succeeded_with(elapsed, r.usage.as_ref(), &r.headers);
                    drain(&mut run, sink);
                    return Ok(r.value);
                }
                Err(e) => {
                    let failure = e.as_failure();
                    let next = run.failed(&failure, clock.now() - start);
                    last = Some((e, failure));
                    next
                }
            },
            Step::Wait { seconds, .. } => {
                sleep(wait_duration(seconds)).await;
                run.resume(clock.now() - start)
            }
            Step::Skip { .. } => run.resume(elapsed),
            Step::PruneOrphans => run.pruned(recovery.prune_orphans(), elapsed),
            Step::CompactContext => run.compacted(recovery.compact_context(), elapsed),
            Step::Return | Step::GiveUp { .. } | Step::Reraise => return Err(finish(&run, last)),
            // A sleeper that does not sleep beside a fleet on the real clock: a test's bug,
            // and the loop would spin for ever.
            Step::Stalled { .. } => panic!(
                "{}",
                crate::testing::stalled_message(crate::testing::Host::Rust)
            ),
        };
    }
}

/// Runs a future whose every await is ready at once (the blocking driver's) to its end, in one
/// poll: no executor, no thread.
pub(crate) fn run_ready<F: Future>(fut: F) -> F::Output {
    struct Noop;
    impl std::task::Wake for Noop {
        fn wake(self: Arc<Self>) {}
    }
    static WAKER: std::sync::OnceLock<std::task::Waker> = std::sync::OnceLock::new();
    let waker = WAKER.get_or_init(|| Arc::new(Noop).into());
    let mut fut = std::pin::pin!(fut);
    match fut
        .as_mut()
        .poll(&mut std::task::Context::from_waker(waker))
    {
        std::task::Poll::Ready(out) => out,
        std::task::Poll::Pending => {
            unreachable!("the blocking driver's futures are ready when made")
        }
    }
}

/// The run a driver interprets.
pub(crate) fn build_run(
    policy: RetryPolicy,
    seed: Option<u64>,
    fleet: Option<(Arc<Fleet>, String)>,
    context_hook: bool,
    estimate: Cost,
) -> Run {
    let cfg = RunConfig {
        context_hook,
        seed,
        ..RunConfig::default()
    };
    let run = Run::with_config(policy, cfg).estimate(estimate);
    match fleet {
        Some((fleet, key)) => run.fleet(fleet, vec![key]),
        None => run,
    }
}
