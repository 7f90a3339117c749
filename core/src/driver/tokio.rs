//! The async driver on tokio: the twin of [`super::blocking`] over the same
//! [`Run`](crate::run::Run), so the two decide identically. Waits go through an injectable [`AsyncSleeper`] (by default
//! `tokio::time::sleep`, which `tokio::time::pause` turns into virtual time in tests).

use std::future::Future;
use std::pin::Pin;
use std::time::Duration;

use super::blocking::{NoRecovery, Recovery};
use super::{build_run, interpret, Clock, Reported, RetryError};
use crate::events::{EventSink, NoEvents};
use crate::failure::AsFailure;
use crate::fleet::{Cost, Fleet};
use crate::policy::RetryPolicy;
use std::sync::Arc;

/// How the async driver waits.
pub trait AsyncSleeper: Send + Sync {
    /// A future that completes after `d`.
    fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>>;
}

/// `tokio::time::sleep`; under the testing switch ([`crate::testing`]), a step of its virtual
/// clock and a yield to the other tasks instead.
pub struct TokioSleeper;

impl AsyncSleeper for TokioSleeper {
    fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        if crate::testing::sleep(d.as_secs_f64()) {
            return Box::pin(YieldOnce(false));
        }
        Box::pin(tokio::time::sleep(d))
    }
}

/// Pending once (waking itself at once), then ready: the other tasks run between two virtual
/// waits (tokio's own `yield_now` needs its `rt` feature).
struct YieldOnce(bool);

impl Future for YieldOnce {
    fn poll(mut self: Pin<&mut Self>, cx: &mut std::task::Context<'_>) -> std::task::Poll<()> {
        if self.0 {
            return std::task::Poll::Ready(());
        }
        self.0 = true;
        cx.waker().wake_by_ref();
        std::task::Poll::Pending
    }
    type Output = ();
}

/// The tokio clock: follows `tokio::time::pause` / `advance`; under the testing switch, its
/// virtual clock.
#[derive(Debug, Clone)]
pub struct TokioClock(tokio::time::Instant, Option<f64>);

impl Default for TokioClock {
    fn default() -> Self {
        TokioClock(tokio::time::Instant::now(), crate::testing::now())
    }
}

impl Clock for TokioClock {
    fn now(&self) -> f64 {
        super::virtual_since(self.1).unwrap_or_else(|| self.0.elapsed().as_secs_f64())
    }
}

static TOKIO_SLEEPER: TokioSleeper = TokioSleeper;
static NO_EVENTS: NoEvents = NoEvents;

/// An async retry loop: `AsyncRetry::new(policy).run(|attempt| async { call().await }).await`.
pub struct AsyncRetry<'a> {
    policy: RetryPolicy,
    seed: Option<u64>,
    sleeper: &'a dyn AsyncSleeper,
    clock: Option<&'a (dyn Clock + Sync)>,
    sink: &'a (dyn EventSink + Sync),
    fleet: Option<(Arc<Fleet>, String)>,
    estimate: Cost,
}

/// With no policy, the `default` preset (CONTRACT §6), as in Python and Ruby.
impl Default for AsyncRetry<'_> {
    fn default() -> Self {
        AsyncRetry::new(RetryPolicy::default())
    }
}

impl<'a> AsyncRetry<'a> {
    /// A loop under `policy`. It sleeps with [`TokioSleeper`], measures elapsed time with
    /// [`TokioClock`], emits no events, shares nothing with a fleet and seeds its jitter from
    /// entropy until told otherwise.
    pub fn new(policy: RetryPolicy) -> Self {
        AsyncRetry {
            policy,
            seed: None,
            sleeper: &TOKIO_SLEEPER,
            clock: None,
            sink: &NO_EVENTS,
            fleet: None,
            estimate: Cost::REQUEST,
        }
    }
    /// Fixes the jitter seed, so that delays are reproducible.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = Some(seed);
        self
    }
    /// Waits with `s` instead of [`TokioSleeper`].
    pub fn sleeper(mut self, s: &'a dyn AsyncSleeper) -> Self {
        self.sleeper = s;
        self
    }
    /// Measures elapsed time (for the policy's deadline) with `c` instead of [`TokioClock`].
    pub fn clock(mut self, c: &'a (dyn Clock + Sync)) -> Self {
        self.clock = Some(c);
        self
    }
    /// Sends the events of every decision to `sink`.
    pub fn events(mut self, sink: &'a (dyn EventSink + Sync)) -> Self {
        self.sink = sink;
        self
    }
    /// Shares budget, breaker and pauses with every other call of `key` on `fleet`.
    pub fn fleet(mut self, fleet: Arc<Fleet>, key: impl Into<String>) -> Self {
        self.fleet = Some((fleet, key.into()));
        self
    }

    /// What each attempt costs, for a fleet with admission on (default: one request).
    pub fn estimate(mut self, cost: Cost) -> Self {
        self.estimate = cost;
        self
    }

    /// Calls `f(attempt)` until it succeeds or the policy gives up. Dropping the future
    /// cancels the loop, mid-wait included.
    pub async fn run<T, E, F, Fut>(self, f: F) -> Result<T, RetryError<E>>
    where
        E: AsFailure,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        self.run_with(&mut NoRecovery, f).await
    }

    /// [`AsyncRetry::run`] with recovery hooks.
    pub async fn run_with<T, E, F, Fut>(
        self,
        recovery: &mut (dyn Recovery + Send),
        mut f: F,
    ) -> Result<T, RetryError<E>>
    where
        E: AsFailure,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<T, E>>,
    {
        self.run_reported(recovery, move |a| {
            let fut = f(a);
            async move { fut.await.map(Reported::new) }
        })
        .await
    }

    /// [`AsyncRetry::run`] whose call also reports its response's usage and headers
    /// ([`Reported`]), for a fleet's admission to settle and learn from.
    pub async fn run_reported<T, E, F, Fut>(
        self,
        recovery: &mut (dyn Recovery + Send),
        f: F,
    ) -> Result<T, RetryError<E>>
    where
        E: AsFailure,
        F: FnMut(u32) -> Fut,
        Fut: Future<Output = Result<Reported<T>, E>>,
    {
        let tokio_clock = TokioClock::default();
        let run = build_run(
            self.policy,
            self.seed,
            self.fleet,
            recovery.can_compact(),
            self.estimate,
        );
        let sleeper = self.sleeper;
        interpret(
            run,
            recovery,
            self.clock.unwrap_or(&tokio_clock),
            self.sink,
            f,
            |d| sleeper.sleep(d),
        )
        .await
    }
}
