//! `retry-sim admission`: the coordinator. Starts one loopback redis-server and one lab per
//! mode (each with the same quota per key), runs the modes' agent processes side by side,
//! gathers their records and writes `admission.csv`, `admission.svg` and `admission.md` into
//! `--out`, and the same section into `REPORT.md` there (between its admission markers).
//!
//! ```text
//! retry-sim admission [--out bench/results] [--modes retry_only,headers,...] [--seconds 60]
//!                     [--warmup 20] [--rpm 1800] [--tpm 360000] [--burst-s 5] [--processes 4]
//!                     [--agents-per-process 50] [--sequential] [--virtual] [--command TEXT]
//! ```
//!
//! `--virtual` runs the same agents on virtual time in this process instead
//! ([`super::virtual_time`]) and prints a table.
//!
//! ```text
//! ```

use std::io::Read;
use std::net::TcpStream;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, ExitCode, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

use super::agents::{api_key, wall, DRAIN_S};
use super::chart;
use super::summary::{self, Summary};
use super::{CallRecord, Mode, Workload};

struct Opts {
    /// On virtual time in this process (`--virtual`): a table on stdout, no file written.
    virtual_time: bool,
    workload: Workload,
    modes: Vec<Mode>,
    out: PathBuf,
    sequential: bool,
    command: String,
}

fn parse(argv: &[String]) -> Result<Opts, String> {
    let mut o = Opts {
        virtual_time: false,
        workload: Workload::default(),
        modes: Mode::ALL.to_vec(),
        out: PathBuf::from("bench/results"),
        sequential: false,
        command: format!("retry-sim admission {}", argv.join(" "))
            .trim_end()
            .to_string(),
    };
    let mut it = argv.iter();
    while let Some(flag) = it.next() {
        if flag == "--sequential" {
            o.sequential = true;
            continue;
        }
        if flag == "--virtual" {
            o.virtual_time = true;
            continue;
        }
        let v = it.next().ok_or_else(|| format!("{flag} needs a value"))?;
        let num = |v: &str| -> Result<f64, String> {
            v.parse::<f64>()
                .ok()
                .filter(|x| x.is_finite() && *x > 0.0)
                .ok_or_else(|| format!("{flag}: {v:?} is not a number above 0"))
        };
        let w = &mut o.workload;
        match flag.as_str() {
            "--out" => o.out = PathBuf::from(v),
            "--modes" => {
                o.modes = v
                    .split(',')
                    .map(|m| Mode::parse(m.trim()).ok_or_else(|| format!("unknown mode {m:?}")))
                    .collect::<Result<_, _>>()?
            }
            "--seconds" => w.seconds = num(v)?,
            "--warmup" => w.warmup = num(v)?,
            "--rpm" => w.rpm = num(v)? as u64,
            "--tpm" => w.tpm = num(v)? as u64,
            "--burst-s" => w.burst_s = num(v)?,
            "--processes" => w.processes = num(v)? as usize,
            "--agents-per-process" => w.agents_per_process = num(v)? as usize,
            "--command" => o.command = v.clone(),
            _ => return Err(format!("unknown option {flag}")),
        }
    }
    if o.workload.warmup >= o.workload.seconds {
        return Err("--warmup must be shorter than --seconds".into());
    }
    Ok(o)
}

/// A redis-server of our own on a free loopback port, killed on drop.
struct Redis {
    child: Child,
    port: u16,
}

impl Redis {
    fn start() -> Result<Redis, String> {
        let port = std::net::TcpListener::bind("127.0.0.1:0")
            .and_then(|l| l.local_addr())
            .map_err(|e| format!("no free port: {e}"))?
            .port();
        let child = Command::new("redis-server")
            .args(["--port", &port.to_string(), "--bind", "127.0.0.1"])
            .args(["--save", "", "--appendonly", "no"])
            .stdout(Stdio::null())
            .spawn()
            .map_err(|e| {
                format!("cannot start redis-server ({e}): apt-get install -y redis-server (scripts/setup.sh)")
            })?;
        let r = Redis { child, port };
        let deadline = Instant::now() + Duration::from_secs(10);
        while TcpStream::connect(("127.0.0.1", port)).is_err() {
            if Instant::now() > deadline {
                return Err("redis-server did not start within 10 s".into());
            }
            std::thread::sleep(Duration::from_millis(20));
        }
        Ok(r)
    }

    fn url(&self) -> String {
        format!("redis://127.0.0.1:{}/0", self.port)
    }
}

impl Drop for Redis {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// What one mode's run gave: its agents' records and what the lab logged.
struct ModeRun {
    mode: Mode,
    calls: Vec<CallRecord>,
    backends: Vec<String>,
    lab_requests: usize,
    lab_429: usize,
    /// The same, for requests that arrived after the warm-up.
    lab_requests_after: usize,
    lab_429_after: usize,
}

/// Runs `modes` side by side: one lab each, `processes` agent processes each, one start time.
fn run_group(
    rt: &tokio::runtime::Runtime,
    modes: &[Mode],
    w: &Workload,
    redis: &Redis,
) -> Result<Vec<ModeRun>, String> {
    let _guard = rt.enter();
    let exe = std::env::current_exe().map_err(|e| e.to_string())?;
    let labs = modes
        .iter()
        .map(|&m| {
            retry_lab::spawn_with(retry_lab::Options {
                script: w.lab_script(m),
                ..retry_lab::Options::default()
            })
            .map_err(|e| format!("lab: {e}"))
        })
        .collect::<Result<Vec<_>, _>>()?;
    // Time for every process to start and connect before the common start.
    let start_at = wall() + 3.0;
    let lab_lead = 3.0;
    let mut children = Vec::new();
    for (&m, lab) in modes.iter().zip(&labs) {
        for id in 0..w.processes {
            let child = Command::new(&exe)
                .arg("admission-agents")
                .args(["--mode", m.name()])
                .args(["--url", &format!("http://{}", lab.addr())])
                .args(["--redis", &redis.url()])
                .args(["--namespace", &format!("bench-admission-{}", m.name())])
                .args(["--id", &id.to_string()])
                .args(["--start-at", &format!("{start_at:.6}")])
                .args(["--workload", &w.to_json().to_string()])
                .stdout(Stdio::piped())
                .spawn()
                .map_err(|e| format!("cannot start {}: {e}", exe.display()))?;
            children.push((m, child));
        }
    }
    let limit = Duration::from_secs_f64(3.0 + w.seconds + DRAIN_S + 30.0);
    let started = Instant::now();
    let mut runs: Vec<ModeRun> = modes
        .iter()
        .map(|&mode| ModeRun {
            mode,
            calls: Vec::new(),
            backends: Vec::new(),
            lab_requests: 0,
            lab_429: 0,
            lab_requests_after: 0,
            lab_429_after: 0,
        })
        .collect();
    let mut failure = None;
    for (m, mut child) in children {
        let mut text = String::new();
        if let Some(mut out) = child.stdout.take() {
            let _ = out.read_to_string(&mut text);
        }
        let status = loop {
            match child.try_wait() {
                Ok(Some(s)) => break Some(s),
                Ok(None) if started.elapsed() > limit => {
                    let _ = child.kill();
                    let _ = child.wait();
                    break None;
                }
                Ok(None) => std::thread::sleep(Duration::from_millis(50)),
                Err(_) => break None,
            }
        };
        if !status.is_some_and(|s| s.success()) {
            failure.get_or_insert(format!("an agent process of {} failed", m.name()));
            continue;
        }
        let v: Value =
            serde_json::from_str(text.trim()).map_err(|e| format!("agents' output: {e}"))?;
        let run = runs.iter_mut().find(|r| r.mode == m).expect("mode");
        run.backends
            .push(v["backend"].as_str().unwrap_or("?").to_string());
        for c in v["calls"].as_array().into_iter().flatten() {
            run.calls
                .push(CallRecord::from_json(c).ok_or("a malformed call record")?);
        }
    }
    if let Some(f) = failure {
        return Err(f);
    }
    for (run, lab) in runs.iter_mut().zip(&labs) {
        let log = lab.log();
        let key4: String = {
            let k = api_key(run.mode);
            k[k.len() - 4..].to_string()
        };
        let mine = log
            .iter()
            .filter(|e| e.key_last4.as_deref() == Some(key4.as_str()));
        for e in mine {
            let throttled = usize::from(e.status == Some(429));
            run.lab_requests += 1;
            run.lab_429 += throttled;
            // The lab's clock starts when the lab does, a few seconds before the agents.
            if e.ms as f64 / 1000.0 >= lab_lead + w.warmup {
                run.lab_requests_after += 1;
                run.lab_429_after += throttled;
            }
        }
    }
    Ok(runs)
}

fn pct(x: f64) -> String {
    format!("{:.1} %", x * 100.0)
}

fn markdown(o: &Opts, rows: &[Summary], runs: &[ModeRun], date: &str) -> String {
    let w = &o.workload;
    let mut s = String::new();
    s.push_str("## Admission control: goodput against 429s (issue 23)\n\n");
    s.push_str(&format!(
        "Produced by `{}` on {date} ({}).\n\n",
        o.command,
        if o.sequential {
            "one mode after another"
        } else {
            "the modes side by side, at the same time"
        }
    ));
    s.push_str(&format!(
        "{} OS processes x {} agents per mode (no think time: demand is always above the quota), one Fleet per mode shared \
         through one loopback redis-server, against one retry-lab per mode whose quota per key is {} requests and {} tokens \
         per minute, enforced over {} s (token buckets holding {} s of quota, full at the start; `max_tokens` {} reserved at admission, {} used, the rest given back). \
         Prompts of {} to {} characters (input tokens = request bytes / 4). Calls begin for {} s; goodput counts the tokens \
         (input + output, from each answer's usage) served from {} s to {} s, per minute, over the token limit; waits are \
         those of the calls begun in that window (everything before the successful attempt: admission waits, pauses, \
         backoffs, throttled attempts); the share of 429s is the lab's: 429s over every request of the run, learning included \
         (and, in its own column, over the requests after the warm-up). \
         Fair share = agents / (calls a second the quota serves) - the call's own time. `static_wrong`'s limits are {:.0} % \
         above the true ones. `adaptive` runs against the lab's Gemini shape (no rate-limit header; the wait in the 429 body).\n\n",
        w.processes, w.agents_per_process, w.rpm, w.tpm, w.burst_s, w.burst_s, w.max_tokens, w.reply_tokens, w.prompt_min, w.prompt_max,
        w.seconds, w.warmup, w.seconds, (w.wrong_factor - 1.0) * 100.0
    ));
    s.push_str("| mode | goodput / limit | 429s | p50 wait | p99 wait | fair share | calls (failed) | requests (lab) | 429s after the warm-up | fleet backend |\n");
    s.push_str("|---|---|---|---|---|---|---|---|---|---|\n");
    for (r, run) in rows.iter().zip(runs) {
        let mut backends = run.backends.clone();
        backends.sort();
        backends.dedup();
        s.push_str(&format!(
            "| `{}` | {:.3} | {} | {:.2} s | {:.2} s | {:.2} s | {} ({}) | {} | {} | {} |\n",
            r.mode,
            r.goodput_ratio,
            pct(r.share_429),
            r.p50_wait_s,
            r.p99_wait_s,
            r.fair_share_wait_s,
            r.calls,
            r.failed,
            run.lab_requests,
            pct(run.lab_429_after as f64 / run.lab_requests_after.max(1) as f64),
            backends.join(", ")
        ));
    }
    s.push('\n');
    s.push_str("![goodput, 429s and waits per mode](admission.svg)\n\n");
    s.push_str("Targets (issue 23): `headers` at least 0.95 of the limit, at most 1 % 429s, p99 wait at most 2x the fair share; \
                `adaptive` at least 0.85 with at most 5 % 429s.\n\n");
    for r in rows {
        let check = |ok: bool| if ok { "met" } else { "**missed**" };
        match r.mode.as_str() {
            "headers" => s.push_str(&format!(
                "- `headers`: goodput {:.3} (target 0.95: {}), 429s {} (target 1 %: {}), p99 wait {:.2} s vs fair share {:.2} s (target 2x: {}).\n",
                r.goodput_ratio, check(r.goodput_ratio >= 0.95), pct(r.share_429), check(r.share_429 <= 0.01),
                r.p99_wait_s, r.fair_share_wait_s, check(r.p99_wait_s <= 2.0 * r.fair_share_wait_s)
            )),
            "adaptive" => s.push_str(&format!(
                "- `adaptive`: goodput {:.3} (target 0.85: {}), 429s {} (target 5 %: {}).\n",
                r.goodput_ratio, check(r.goodput_ratio >= 0.85), pct(r.share_429), check(r.share_429 <= 0.05)
            )),
            _ => {}
        }
    }
    for r in rows.iter().filter(|r| r.p50_wait_s.is_nan()) {
        s.push_str(&format!(
            "- `{}`: no wait figure (NaN): none of its calls begun after the warm-up succeeded before the run \
             ended ({} s of drain included); {} of its {} calls failed or were cut off.\n",
            r.mode, super::agents::DRAIN_S, r.failed, r.calls
        ));
    }
    s.push('\n');
    s
}

const START: &str = "<!-- admission:start -->";
const END: &str = "<!-- admission:end -->";

/// Puts `section` into the report between its markers (before the history if it has none yet).
fn splice(report: &str, section: &str) -> String {
    let block = format!("{START}\n{section}{END}\n");
    if let (Some(a), Some(b)) = (report.find(START), report.find(END)) {
        if a < b {
            let tail = &report[b + END.len()..];
            return format!(
                "{}{block}{}",
                &report[..a],
                tail.strip_prefix('\n').unwrap_or(tail)
            );
        }
    }
    match report.find("\n## History") {
        Some(i) => format!("{}{block}{}", &report[..i + 1], &report[i + 1..]),
        None => format!("{report}\n{block}"),
    }
}

fn write(path: &Path, text: &str) -> Result<(), String> {
    std::fs::write(path, text).map_err(|e| format!("{}: {e}", path.display()))
}

fn date_utc() -> String {
    Command::new("date")
        .args(["-u", "+%Y-%m-%d %H:%M UTC"])
        .output()
        .ok()
        .and_then(|o| String::from_utf8(o.stdout).ok())
        .map(|s| s.trim().to_string())
        .unwrap_or_default()
}

pub fn main(argv: &[String]) -> ExitCode {
    let o = match parse(argv) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("retry-sim admission: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&o) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("retry-sim admission: {e}");
            ExitCode::FAILURE
        }
    }
}

/// `--virtual`: every mode on virtual time, one process (admission state shared in process).
fn run_virtual(o: &Opts) -> Result<(), String> {
    println!("| mode (virtual time, one process) | goodput / limit | 429s | p50 wait | p99 wait | fair share | calls (failed) |");
    println!("|---|---|---|---|---|---|---|");
    for &m in &o.modes {
        let calls = super::virtual_time::simulate(m, &o.workload);
        let r = summary::summarize(m.name(), &o.workload, &calls);
        println!(
            "| `{}` | {:.3} | {} | {:.2} s | {:.2} s | {:.2} s | {} ({}) |",
            r.mode,
            r.goodput_ratio,
            pct(r.share_429),
            r.p50_wait_s,
            r.p99_wait_s,
            r.fair_share_wait_s,
            r.calls,
            r.failed
        );
    }
    Ok(())
}

fn run(o: &Opts) -> Result<(), String> {
    if o.virtual_time {
        return run_virtual(o);
    }
    let redis = Redis::start()?;
    let rt = tokio::runtime::Builder::new_multi_thread()
        .worker_threads(2)
        .enable_all()
        .build()
        .map_err(|e| e.to_string())?;
    let date = date_utc();
    let groups: Vec<Vec<Mode>> = if o.sequential {
        o.modes.iter().map(|m| vec![*m]).collect()
    } else {
        vec![o.modes.clone()]
    };
    let mut runs = Vec::new();
    for g in &groups {
        eprintln!(
            "retry-sim admission: {} for {} s",
            g.iter().map(|m| m.name()).collect::<Vec<_>>().join(", "),
            o.workload.seconds
        );
        runs.extend(run_group(&rt, g, &o.workload, &redis)?);
    }
    let rows: Vec<Summary> = runs
        .iter()
        .map(|r| {
            let mut s = summary::summarize(r.mode.name(), &o.workload, &r.calls);
            // The lab's count is the record: it also sees the attempts of calls cut off at the
            // end of the run.
            if r.lab_requests > 0 {
                s.share_429 = r.lab_429 as f64 / r.lab_requests as f64;
            }
            s
        })
        .collect();
    std::fs::create_dir_all(&o.out).map_err(|e| e.to_string())?;
    write(&o.out.join("admission.csv"), &summary::csv(&rows))?;
    let caption = format!(
        "{} x {} agents per mode, {} RPM / {} TPM per key; `{}`, {}",
        o.workload.processes,
        o.workload.agents_per_process,
        o.workload.rpm,
        o.workload.tpm,
        o.command,
        date
    );
    write(&o.out.join("admission.svg"), &chart::svg(&rows, &caption))?;
    let md = markdown(o, &rows, &runs, &date);
    write(&o.out.join("admission.md"), &md)?;
    let report = o.out.join("REPORT.md");
    if let Ok(text) = std::fs::read_to_string(&report) {
        write(&report, &splice(&text, &md))?;
    }
    print!("{md}");
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_replaces_its_old_self_or_goes_before_the_history() {
        let first = splice("# R\n\n## A\n\n## History\n\nold\n", "S1\n");
        assert_eq!(
            first,
            format!("# R\n\n## A\n\n{START}\nS1\n{END}\n## History\n\nold\n")
        );
        let second = splice(&first, "S2\n");
        assert_eq!(
            second,
            format!("# R\n\n## A\n\n{START}\nS2\n{END}\n## History\n\nold\n")
        );
        assert_eq!(
            splice("# R\n", "S\n"),
            format!("# R\n\n{START}\nS\n{END}\n")
        );
    }
}
