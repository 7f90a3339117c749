//! `retry-lab [--port N] [--script FILE] [--rpm N] [--tpm N] [--input-tpm N] [--output-tpm N]
//! [--limit-shape provider|gemini] [--reply-tokens N] [--exit-on-stdin-close] [--quiet]`
//!
//! Prints exactly one line, `LISTENING 127.0.0.1:<port>`, to stdout once it accepts connections,
//! then one line per request to stderr. Exits with 0 on SIGTERM / SIGINT, or when stdin reaches
//! end of file if `--exit-on-stdin-close` is given (so a harness that dies cannot leak it).

use std::io::Write;
use std::process::ExitCode;

const USAGE: &str =
    "usage: retry-lab [--port N] [--script FILE] [--rpm N] [--tpm N] [--input-tpm N]
                 [--output-tpm N] [--limit-shape provider|gemini] [--reply-tokens N]
                 [--exit-on-stdin-close] [--quiet]

  --port N                port on 127.0.0.1 (default 0: a free port)
  --script FILE           fault script (JSON) to load at start
  --rpm N, --tpm N        per-key quotas: requests / tokens (input + output) per minute
  --input-tpm N           per-key input tokens per minute (Anthropic's ITPM)
  --output-tpm N          per-key output tokens per minute (Anthropic's OTPM)
  --limit-shape S         provider (each provider's rate-limit headers, the default) or gemini
                          (no rate-limit headers; 429 RESOURCE_EXHAUSTED with RetryInfo)
  --reply-tokens N        output tokens a successful answer reports (capped at max_tokens)
  (these set the script's rate_limits / reply_tokens, over what --script says)
  --exit-on-stdin-close   exit when stdin reaches end of file
  --quiet                 no per-request lines on stderr

Prints `LISTENING 127.0.0.1:<port>` on stdout when ready. Control: POST /_lab/script,
GET /_lab/log, POST /_lab/reset, GET /_lab/health.";

struct Args {
    port: u16,
    script: Option<String>,
    /// requests, tokens, input tokens, output tokens per minute.
    limits: [Option<u64>; 4],
    shape: Option<retry_lab::LimitShape>,
    reply_tokens: Option<u64>,
    exit_on_stdin_close: bool,
    quiet: bool,
}

fn parse_args() -> Result<Args, String> {
    let mut args = Args {
        port: 0,
        script: None,
        limits: [None; 4],
        shape: None,
        reply_tokens: None,
        exit_on_stdin_close: false,
        quiet: false,
    };
    let mut it = std::env::args().skip(1);
    while let Some(a) = it.next() {
        let (flag, inline) = match a.split_once('=') {
            Some((f, v)) if f.starts_with("--") => (f.to_string(), Some(v.to_string())),
            _ => (a.clone(), None),
        };
        let mut value = |name: &str| {
            inline
                .clone()
                .or_else(|| it.next())
                .ok_or_else(|| format!("{name} needs a value"))
        };
        match flag.as_str() {
            "--port" => {
                let v = value("--port")?;
                args.port = v
                    .parse()
                    .map_err(|_| format!("--port: {v:?} is not a port"))?;
            }
            "--script" => args.script = Some(value("--script")?),
            "--rpm" | "--tpm" | "--input-tpm" | "--output-tpm" | "--reply-tokens" => {
                let v = value(&flag)?;
                let n: u64 = v
                    .parse()
                    .ok()
                    .filter(|n| *n >= 1)
                    .ok_or_else(|| format!("{flag}: {v:?} is not a whole number >= 1"))?;
                match flag.as_str() {
                    "--rpm" => args.limits[0] = Some(n),
                    "--tpm" => args.limits[1] = Some(n),
                    "--input-tpm" => args.limits[2] = Some(n),
                    "--output-tpm" => args.limits[3] = Some(n),
                    _ => args.reply_tokens = Some(n),
                }
            }
            "--limit-shape" => {
                args.shape = Some(match value("--limit-shape")?.as_str() {
                    "provider" => retry_lab::LimitShape::Provider,
                    "gemini" => retry_lab::LimitShape::Gemini,
                    other => {
                        return Err(format!(
                            "--limit-shape: {other:?} is not provider or gemini"
                        ))
                    }
                })
            }
            "--exit-on-stdin-close" => args.exit_on_stdin_close = true,
            "--quiet" => args.quiet = true,
            "-h" | "--help" => {
                println!("{USAGE}");
                std::process::exit(0);
            }
            other => return Err(format!("unknown argument {other:?}")),
        }
    }
    Ok(args)
}

fn main() -> ExitCode {
    let args = match parse_args() {
        Ok(a) => a,
        Err(e) => {
            eprintln!("retry-lab: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let script = match &args.script {
        None => retry_lab::Script::default(),
        Some(path) => match std::fs::read_to_string(path)
            .map_err(|e| e.to_string())
            .and_then(|t| retry_lab::Script::parse(&t))
        {
            Ok(s) => s,
            Err(e) => {
                eprintln!("retry-lab: {path}: {e}");
                return ExitCode::from(2);
            }
        },
    };
    let script = match with_flags(script, &args) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("retry-lab: {e}\n{USAGE}");
            return ExitCode::from(2);
        }
    };
    let rt = match tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
    {
        Ok(rt) => rt,
        Err(e) => {
            eprintln!("retry-lab: cannot start runtime: {e}");
            return ExitCode::FAILURE;
        }
    };
    rt.block_on(run(args, script))
}

/// The script with the quota flags laid over its `rate_limits` and `reply_tokens`.
fn with_flags(mut script: retry_lab::Script, args: &Args) -> Result<retry_lab::Script, String> {
    if args.reply_tokens.is_some() {
        script.reply_tokens = args.reply_tokens;
    }
    if args.limits.iter().any(Option::is_some) || args.shape.is_some() {
        let mut rl = script.rate_limits.take().unwrap_or(retry_lab::RateLimits {
            requests: None,
            tokens: None,
            input_tokens: None,
            output_tokens: None,
            period_s: 60.0,
            burst_s: None,
            shape: retry_lab::LimitShape::Provider,
        });
        let [r, t, i, o] = args.limits;
        rl.requests = r.or(rl.requests);
        rl.tokens = t.or(rl.tokens);
        rl.input_tokens = i.or(rl.input_tokens);
        rl.output_tokens = o.or(rl.output_tokens);
        rl.shape = args.shape.unwrap_or(rl.shape);
        script.rate_limits = Some(rl);
    }
    script.validate()?;
    Ok(script)
}

async fn run(args: Args, script: retry_lab::Script) -> ExitCode {
    let lab = match retry_lab::spawn_with(retry_lab::Options {
        port: args.port,
        script,
        log_to_stderr: !args.quiet,
    }) {
        Ok(lab) => lab,
        Err(e) => {
            eprintln!("retry-lab: cannot listen on 127.0.0.1:{}: {e}", args.port);
            return ExitCode::FAILURE;
        }
    };

    let watch_stdin = args.exit_on_stdin_close;
    let stdin_closed = async move {
        if !watch_stdin {
            return std::future::pending::<()>().await;
        }
        let (tx, rx) = tokio::sync::oneshot::channel::<()>();
        // A plain thread: tokio's stdin would keep the runtime's blocking pool busy at exit.
        std::thread::spawn(move || {
            let _ = std::io::copy(&mut std::io::stdin().lock(), &mut std::io::sink());
            let _ = tx.send(());
        });
        let _ = rx.await;
    };

    {
        let mut out = std::io::stdout().lock();
        let _ = writeln!(out, "LISTENING {}", lab.addr());
        let _ = out.flush();
    }

    // No farewell line on stderr: a harness that never reads its stderr pipe could block it.
    tokio::select! {
        _ = tokio::signal::ctrl_c() => {}
        _ = sigterm() => {}
        _ = stdin_closed => {}
    }
    lab.flush_stderr(std::time::Duration::from_millis(200));
    lab.shutdown();
    ExitCode::SUCCESS
}

#[cfg(unix)]
async fn sigterm() {
    match tokio::signal::unix::signal(tokio::signal::unix::SignalKind::terminate()) {
        Ok(mut s) => {
            s.recv().await;
        }
        Err(_) => std::future::pending::<()>().await,
    }
}

#[cfg(not(unix))]
async fn sigterm() {
    std::future::pending::<()>().await
}
