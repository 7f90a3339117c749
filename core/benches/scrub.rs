//! Cost of `scrub` on adversarial texts, 1 KB to 10 MB (issue 24; STYLE §20: time linear in the
//! input). An error text is attacker-influenced: the shapes are the ones that made the old
//! scrubber quadratic (a run of backslashes in a text that also holds `\u` or `%`: 8 s for
//! 256 KB, 134 s for 1 MB; JSON quoted inside JSON) and the ones each pass has to walk:
//! `%` runs, keys split by whitespace, long Unicode, keys and credential names everywhere, a
//! prefix repeated (`sk-sk-sk-...`), names whose values are not credentials.
//!
//! Target: any 1 MB text in under 50 ms; the cost per byte flat from 1 KB to 10 MB.
//!
//! Run: cargo bench -p llm-retry-core --bench scrub
//! (SCRUB_BENCH_QUICK=1 skips criterion and prints only the per-byte table.)

use std::hint::black_box;
use std::time::{Duration, Instant};

use criterion::{
    criterion_group, criterion_main, BenchmarkId, Criterion, SamplingMode, Throughput,
};
use retry_core::__private::scrub::scrub;

const SIZES: [(usize, &str); 5] = [
    (1 << 10, "1KB"),
    (10 << 10, "10KB"),
    (100 << 10, "100KB"),
    (1 << 20, "1MB"),
    (10 << 20, "10MB"),
];

const R: &str = "Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP";

/// `unit` repeated to `n` bytes (cut at a character boundary).
fn fill(unit: &str, n: usize) -> String {
    let mut s = String::with_capacity(n + unit.len());
    while s.len() < n {
        s.push_str(unit);
    }
    let mut cut = n.min(s.len());
    while !s.is_char_boundary(cut) {
        cut -= 1;
    }
    s.truncate(cut);
    s
}

/// A provider error quoted inside JSON `depth` times (each level escapes the backslashes of
/// the one inside it, so their runs double).
fn nested_json(depth: usize) -> String {
    let mut s = format!(
        r#"{{"error": {{"message": "Incorrect API key provided: sk-proj-{R}", "x-api-key": "{}", "path": "C:\\tmp\\u002d"}}}}"#,
        &R[..24]
    );
    for _ in 0..depth {
        s = serde_json::json!({ "detail": s, "note": "100% \\u0041" }).to_string();
    }
    s
}

/// The adversarial shapes, each `n` bytes long.
fn shapes(n: usize) -> Vec<(&'static str, String)> {
    let nested = nested_json(20);
    vec![
        // The quadratic case: one long run of backslashes, not before a `u`, in a text with
        // `\u` and `%` (the old scrubber counted the run again at each of its backslashes).
        ("backslash_run", {
            let mut s = String::from("%41 \\u002d ");
            s.push_str(&fill("\\", n.saturating_sub(s.len() + 4)));
            s.push_str(" end");
            s
        }),
        // Many runs of every length, each ending in something that is almost an escape.
        ("backslash_runs", fill("\\\\\\\\\\\\\\\\\\u00\\\\\\\\n\\\\\\\\\\\\\\\\\\\\\\r\\%4", n)),
        // JSON quoted inside JSON 20 times (the 1.6 MB text of issue 24 was 18 levels).
        ("json_nested_20", fill(&nested, n)),
        ("percent_runs", fill("%%%%%%%%%%25%2525%252525%4%%41%3D%%", n)),
        // A key split by a space, a tab, a newline and a literal \n, again and again.
        (
            "split_keys",
            fill(
                &format!(
                    "key sk-proj-{} {}\t{}\n{}\\n{} was rejected; ",
                    &R[..12],
                    &R[12..24],
                    &R[24..36],
                    &R[36..48],
                    &R[48..60]
                ),
                n,
            ),
        ),
        (
            "long_unicode",
            fill("é中𝄞 ошибка ключ 密钥 sk-ß AIza中 token：值 ", n),
        ),
        (
            "keys_everywhere",
            fill(
                &format!(
                    "Incorrect API key provided: sk-proj-{R}. x-api-key: {a}; Authorization: Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.{b} \
                     AKIAQ3EXAMPLE7KEYZ2W AIzaSyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq ?key={a}&sig={a} \
                     {{\"private_key\": \"-----BEGIN PRIVATE KEY-----\\nMIIE{b}\\n-----END PRIVATE KEY-----\\n\"}} \
                     nvapi-{R} dapi0123456789abcdef0123456789abcdef LTAI{c} 0123456789abcdef0123456789abcdef ",
                    a = &R[..24],
                    b = &R[..40],
                    c = &R[..20],
                ),
                n,
            ),
        ),
        // Prefixes and names with nothing after them, or values that are not credentials.
        (
            "names_and_prefixes",
            fill(
                "sk-sk-sk-sk-sk-x token=x://token=x://api_key: None Bearer tokens Basic info \
                 x-api-key: ENV['X'] eyJeyJeyJ.eyJ. AKIAAKIA AIzaAIza ",
                n,
            ),
        ),
        // One token with no separator at all (every pass reads it as one run).
        ("one_long_token", fill(R, n)),
    ]
}

fn bench(c: &mut Criterion) {
    if std::env::var_os("SCRUB_BENCH_QUICK").is_none() {
        for (size, label) in SIZES {
            let mut g = c.benchmark_group(format!("scrub/{label}"));
            g.throughput(Throughput::Bytes(size as u64));
            if size >= 1 << 20 {
                g.sampling_mode(SamplingMode::Flat).sample_size(10);
            }
            for (name, text) in shapes(size) {
                g.bench_with_input(BenchmarkId::from_parameter(name), &text, |b, t| {
                    b.iter(|| scrub(black_box(t)))
                });
            }
            g.finish();
        }
    }
    per_byte_table();
    cpu_per_mb();
}

/// The best of a few runs of each shape at each size, as ns per byte and ms per text: the
/// figure the target is stated in.
fn per_byte_table() {
    println!("\nscrub: best of runs, ns/byte (ms per text)");
    print!("{:<20}", "shape");
    for (_, label) in SIZES {
        print!("{label:>20}");
    }
    println!();
    let by_size: Vec<Vec<(&str, String)>> = SIZES.iter().map(|(n, _)| shapes(*n)).collect();
    for (s, (name, _)) in by_size[0].iter().enumerate() {
        print!("{name:<20}");
        for ((size, _), texts) in SIZES.iter().zip(&by_size) {
            let text = &texts[s].1;
            let runs = if *size >= 10 << 20 { 3 } else { 7 };
            let best = (0..runs)
                .map(|_| {
                    let t = Instant::now();
                    black_box(scrub(black_box(text)));
                    t.elapsed()
                })
                .min()
                .unwrap_or(Duration::ZERO);
            let ns_per_byte = best.as_nanos() as f64 / text.len().max(1) as f64;
            print!(
                "{:>20}",
                format!("{ns_per_byte:.1} ({:.2} ms)", best.as_secs_f64() * 1e3)
            );
        }
        println!();
    }
}

/// CPU time of this thread so far (user + system), from /proc on Linux: on a shared machine the
/// wall clock counts the time other processes had the core; this does not. `None` elsewhere.
fn cpu_time() -> Option<Duration> {
    let stat = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the command name (which is in parentheses and may hold spaces).
    let fields: Vec<&str> = stat.rsplit_once(')')?.1.split_whitespace().collect();
    let ticks: u64 = fields.get(11)?.parse::<u64>().ok()? + fields.get(12)?.parse::<u64>().ok()?;
    // USER_HZ is 100 on every Linux this runs on.
    Some(Duration::from_millis(ticks * 10))
}

/// CPU milliseconds per 1 MB text of each shape (20 runs, so the 10 ms clock tick is 0.5 ms).
fn cpu_per_mb() {
    if cpu_time().is_none() {
        return;
    }
    println!("\nscrub: CPU time per 1 MB text (mean of 20 runs, /proc/thread-self/stat)");
    for (name, text) in shapes(1 << 20) {
        let start = cpu_time().unwrap_or_default();
        for _ in 0..20 {
            black_box(scrub(black_box(&text)));
        }
        let spent = cpu_time().unwrap_or_default().saturating_sub(start) / 20;
        println!("{name:<20}{:>10.1} ms", spent.as_secs_f64() * 1e3);
    }
}

criterion_group! {
    name = benches;
    config = Criterion::default()
        .warm_up_time(Duration::from_millis(300))
        .measurement_time(Duration::from_secs(1));
    targets = bench
}
criterion_main!(benches);
