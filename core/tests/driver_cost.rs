//! What the `tracing` feature costs a driver's success path when no subscriber listens: run
//! once without the feature and once with it, in release, and compare.
//!
//! cargo test --release -p llm-retry-core --test driver_cost -- --ignored --nocapture
//! cargo test --release -p llm-retry-core --features tracing --test driver_cost -- --ignored --nocapture

use std::hint::black_box;
use std::time::Instant;

use retry_core::driver::blocking::Retry;
use retry_core::{Failure, RetryPolicy};

#[test]
#[ignore = "measurement: prints ns per call of the blocking driver's success path; release only"]
fn blocking_success_path_cost() {
    let policy = RetryPolicy::recommended();
    let runs = 200_000u32;
    let mut best = f64::INFINITY;
    for _ in 0..7 {
        let t = Instant::now();
        for i in 0..runs {
            let out = Retry::new(policy.clone())
                .seed(1)
                .run(|n| Ok::<u32, Failure>(black_box(n + i)));
            black_box(out.unwrap());
        }
        best = best.min(t.elapsed().as_nanos() as f64 / f64::from(runs));
    }
    let feature = if cfg!(feature = "tracing") {
        "tracing on, no subscriber"
    } else {
        "tracing off"
    };
    println!(
        "blocking driver, success at once ({feature}): {best:.0} ns per call (best of 7 x {runs})"
    );
}
