//! retry-lab: a fault-injecting fake LLM server on loopback.
//!
//! It speaks OpenAI's `POST /v1/chat/completions` and Anthropic's `POST /v1/messages` (plain and
//! SSE), and the endpoints of Bedrock, Gemini, Azure OpenAI, OpenRouter, Groq, Mistral, Cohere,
//! vLLM, TGI, llama.cpp and Ollama (`providers.rs` routes them and holds each one's errors), and
//! answers each request as a [`Script`] says: an outage window, a per-key rate limit, the
//! next scripted step, or a per-request `x-lab-fault` header. Real clients (reqwest, the Python
//! `openai` / `anthropic` SDKs, Ruby `Net::HTTP`) talk to it, so retry code is tested against
//! what it will meet on the wire. See the crate README for the script format.
//!
//! ```no_run
//! # async fn demo() {
//! let script = retry_lab::Script::parse(r#"{"steps": [{"fault": "overloaded"}]}"#).unwrap();
//! let (addr, lab) = retry_lab::spawn(script);
//! // point a client at format!("http://{addr}/v1") ...
//! assert!(lab.log().is_empty());
//! # }
//! ```

mod providers;
pub mod quota;
pub mod quota_wire;
mod render;
mod script;
mod state;

use std::convert::Infallible;
use std::io;
use std::net::{Ipv4Addr, SocketAddr, SocketAddrV4};
use std::pin::Pin;
use std::sync::{Arc, Mutex, MutexGuard};
use std::task::{Context, Poll};
use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Body, Bytes, Frame, Incoming};
use hyper::header::{HeaderValue, CONTENT_TYPE};
use hyper::server::conn::http1;
use hyper::service::service_fn;
use hyper::{Method, Request, Response, StatusCode};
use hyper_util::rt::{TokioIo, TokioTimer};
use serde_json::{json, Value};
use tokio::net::TcpListener;
use tokio::sync::mpsc;
use tokio::task::{JoinHandle, JoinSet};

pub use script::{Fault, FaultKind, LimitShape, Outage, RateLimitPerKey, RateLimits, Script};
pub use state::{LogEntry, Source};

use providers::Streaming;
use render::{Api, Ctx, Op, Plan};
use state::State;

/// How to start a lab.
///
/// # Default
/// Port 0 (a free port), an empty script (every request succeeds), no per-request lines on stderr.
#[derive(Clone, Debug, Default)]
pub struct Options {
    /// Port on 127.0.0.1; 0 picks a free one.
    pub port: u16,
    /// The script loaded at start.
    pub script: Script,
    /// Print one line per request to stderr (the binary does).
    pub log_to_stderr: bool,
}

struct Shared {
    state: Mutex<State>,
    /// Lines for stderr, written by a thread of their own: a harness that pipes stderr and never
    /// reads it must not be able to stall the server once the pipe is full (lines are dropped
    /// instead).
    stderr: Option<std::sync::mpsc::SyncSender<StderrMsg>>,
}

enum StderrMsg {
    Line(String),
    /// Answered once every line before it is written.
    Flush(std::sync::mpsc::Sender<()>),
}

impl Shared {
    fn say(&self, line: String) {
        if let Some(tx) = &self.stderr {
            let _ = tx.try_send(StderrMsg::Line(line));
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // A panic while holding the lock cannot leave the state half-updated in a way that
        // matters to a test server, so a poisoned lock is simply taken over.
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

/// A running lab. Dropping it (or [`LabHandle::shutdown`]) stops the server and every
/// connection it holds.
pub struct LabHandle {
    addr: SocketAddr,
    shared: Arc<Shared>,
    task: JoinHandle<()>,
}

impl LabHandle {
    /// The address the lab listens on (always 127.0.0.1).
    pub fn addr(&self) -> SocketAddr {
        self.addr
    }

    /// `http://127.0.0.1:PORT` followed by `path`.
    pub fn url(&self, path: &str) -> String {
        format!("http://{}{}", self.addr, path)
    }

    /// Replaces the script and restarts counters, the outage clock, the rate-limit windows and
    /// the log (what `POST /_lab/script` does).
    pub fn set_script(&self, script: Script) {
        self.shared.lock().load(script);
    }

    /// Restarts counters, clock, windows and log, keeping the script (`POST /_lab/reset`).
    pub fn reset(&self) {
        self.shared.lock().reset();
    }

    /// Every request handled since the script was loaded (`GET /_lab/log`).
    pub fn log(&self) -> Vec<LogEntry> {
        self.shared.lock().log()
    }

    /// Waits until the request lines logged so far are on stderr, at most `timeout` (a reader
    /// that does not read stderr cannot hold it longer). A no-op without `log_to_stderr`.
    pub fn flush_stderr(&self, timeout: Duration) {
        if let Some(tx) = &self.shared.stderr {
            let (ack_tx, ack_rx) = std::sync::mpsc::channel();
            if tx.try_send(StderrMsg::Flush(ack_tx)).is_ok() {
                let _ = ack_rx.recv_timeout(timeout);
            }
        }
    }

    /// Stops the server now.
    pub fn shutdown(self) {
        drop(self);
    }
}

impl Drop for LabHandle {
    fn drop(&mut self) {
        self.task.abort();
    }
}

/// Starts a lab with `script` on a free port of 127.0.0.1, on the current tokio runtime.
///
/// # Panics
/// Outside a tokio runtime, or if no loopback port can be bound; [`spawn_with`] returns the error.
pub fn spawn(script: Script) -> (SocketAddr, LabHandle) {
    let lab = spawn_with(Options {
        script,
        ..Options::default()
    })
    .expect("retry-lab: cannot bind 127.0.0.1");
    (lab.addr(), lab)
}

/// Starts a lab as `options` say, on the current tokio runtime.
pub fn spawn_with(options: Options) -> io::Result<LabHandle> {
    options
        .script
        .validate()
        .map_err(|e| io::Error::new(io::ErrorKind::InvalidInput, e))?;
    let std_listener =
        std::net::TcpListener::bind(SocketAddrV4::new(Ipv4Addr::LOCALHOST, options.port))?;
    std_listener.set_nonblocking(true)?;
    let listener = TcpListener::from_std(std_listener)?;
    let addr = listener.local_addr()?;
    let stderr = options.log_to_stderr.then(|| {
        let (tx, rx) = std::sync::mpsc::sync_channel::<StderrMsg>(1024);
        std::thread::spawn(move || {
            use std::io::Write;
            for msg in rx {
                match msg {
                    StderrMsg::Line(line) => {
                        let _ = writeln!(std::io::stderr().lock(), "{line}");
                    }
                    StderrMsg::Flush(ack) => {
                        let _ = ack.send(());
                    }
                }
            }
        });
        tx
    });
    let shared = Arc::new(Shared {
        state: Mutex::new(State::new(options.script)),
        stderr,
    });
    let task = tokio::spawn(accept_loop(listener, shared.clone()));
    Ok(LabHandle { addr, shared, task })
}

async fn accept_loop(listener: TcpListener, shared: Arc<Shared>) {
    // Connections live in this set, so aborting the accept task drops (aborts) them all.
    let mut conns = JoinSet::new();
    loop {
        while conns.try_join_next().is_some() {}
        let stream = match listener.accept().await {
            Ok((stream, _)) => stream,
            Err(e) => {
                // EMFILE and friends: back off a little instead of spinning.
                shared.say(format!("retry-lab: accept failed: {e}"));
                tokio::time::sleep(Duration::from_millis(50)).await;
                continue;
            }
        };
        let _ = stream.set_nodelay(true);
        // A second handle on the same socket, so that a `reset` fault can set SO_LINGER=0
        // while hyper owns the stream.
        let sock = match stream.into_std().and_then(|s| {
            let dup = s.try_clone()?;
            Ok((tokio::net::TcpStream::from_std(s)?, dup))
        }) {
            Ok(pair) => pair,
            Err(_) => continue,
        };
        let (stream, raw) = sock;
        let raw = Arc::new(raw);
        let shared = shared.clone();
        conns.spawn(async move {
            let svc = service_fn(move |req| handle(shared.clone(), raw.clone(), req));
            let _ = http1::Builder::new()
                .timer(TokioTimer::new())
                .serve_connection(TokioIo::new(stream), svc)
                .await;
        });
    }
}

type LabBody = http_body_util::combinators::BoxBody<Bytes, io::Error>;
type BoxError = Box<dyn std::error::Error + Send + Sync>;

/// The error a service returns to make hyper drop the connection without a response.
#[derive(Debug)]
struct ResetConnection;

impl std::fmt::Display for ResetConnection {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("retry-lab: reset fault")
    }
}

impl std::error::Error for ResetConnection {}

/// A streamed body fed by a producer task.
struct ChannelBody(mpsc::Receiver<Result<Bytes, io::Error>>);

impl Body for ChannelBody {
    type Data = Bytes;
    type Error = io::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Bytes>, io::Error>>> {
        self.0.poll_recv(cx).map(|o| o.map(|r| r.map(Frame::data)))
    }
}

fn full(body: impl Into<Bytes>) -> LabBody {
    Full::new(body.into())
        .map_err(|e: Infallible| match e {})
        .boxed()
}

fn lab_json(status: StatusCode, v: &Value) -> Response<LabBody> {
    let mut r = Response::new(full(v.to_string()));
    *r.status_mut() = status;
    r.headers_mut()
        .insert(CONTENT_TYPE, HeaderValue::from_static("application/json"));
    r
}

async fn handle(
    shared: Arc<Shared>,
    raw: Arc<std::net::TcpStream>,
    req: Request<Incoming>,
) -> Result<Response<LabBody>, BoxError> {
    let method = req.method().clone();
    let path = req.uri().path().to_string();
    if let Some(ctl) = path.strip_prefix("/_lab/") {
        let resp = control(&shared, &method, ctl, req).await;
        shared.say(format!(
            "retry-lab {method} {path} -> {}",
            resp.status().as_u16()
        ));
        return Ok(resp);
    }
    let route = if method == Method::POST {
        providers::find_route(&path)
    } else {
        None
    };

    let headers = req.headers().clone();
    let key = api_key(&headers);
    let key4 = key.as_deref().map(state::key_last4);
    // Read the whole request first: faults are "accepted, then ..." and a reset must not race
    // the client's upload.
    let body = match req.into_body().collect().await {
        Ok(b) => b.to_bytes(),
        Err(_) => return Err(Box::new(ResetConnection)),
    };

    let Some((route, path_model)) = route else {
        let (seq, ms) = shared.lock().stamp();
        let resp = lab_json(
            StatusCode::NOT_FOUND,
            &json!({"error": {"message": format!("Invalid URL ({method} {path})"),
                    "type": "invalid_request_error", "param": null, "code": null}}),
        );
        record(
            &shared,
            seq,
            ms,
            &method,
            &path,
            key4,
            false,
            "not_found",
            Source::Router,
            None,
            Some(404),
            None,
        );
        return Ok(resp);
    };

    let override_fault = match headers.get("x-lab-fault") {
        None => None,
        Some(v) => match v.to_str().map_err(|e| e.to_string()).and_then(Fault::parse) {
            Ok(f) => Some(f),
            Err(e) => {
                let (seq, ms) = shared.lock().stamp();
                record(
                    &shared,
                    seq,
                    ms,
                    &method,
                    &path,
                    key4,
                    false,
                    "bad_override",
                    Source::Router,
                    None,
                    Some(400),
                    None,
                );
                return Ok(lab_json(
                    StatusCode::BAD_REQUEST,
                    &json!({"lab_error": format!("x-lab-fault: {e}")}),
                ));
            }
        },
    };

    let req_json: Value = serde_json::from_slice(&body).unwrap_or(Value::Null);
    let asked = req_json.get("stream").and_then(Value::as_bool);
    let stream = match route.streaming {
        Streaming::Body => asked.unwrap_or(false),
        Streaming::BodyDefaultOn => asked.unwrap_or(true),
        Streaming::Always => true,
        Streaming::Never => false,
    };
    let model = path_model.unwrap_or_else(|| {
        req_json
            .get("model")
            .and_then(Value::as_str)
            .unwrap_or(match route.api {
                Api::Anthropic => "claude-lab",
                _ => "gpt-lab",
            })
            .to_string()
    });
    let include_usage = req_json
        .pointer("/stream_options/include_usage")
        .and_then(Value::as_bool)
        .unwrap_or(false);

    let prompt_tokens = (body.len() as u64 / 4).max(1);
    let max_tokens = max_tokens(&req_json);
    let (decision, chunk_delay, reply_tokens, shape) = {
        let mut st = shared.lock();
        let reply_tokens = st.script.reply_tokens.unwrap_or(render::REPLY_PIECES);
        let cost = quota::Cost {
            input: prompt_tokens,
            // Without `max_tokens` nothing more than the answer is reserved.
            max_output: max_tokens.unwrap_or(reply_tokens),
        };
        let d = st.decide(key.as_deref(), override_fault, cost);
        let shape = st.script.rate_limits.as_ref().map(|r| r.shape);
        (
            d,
            Duration::from_millis(st.script.chunk_delay_ms),
            reply_tokens,
            shape,
        )
    };
    let output_tokens = max_tokens.map_or(reply_tokens, |m| m.min(reply_tokens));
    let ctx = Ctx {
        provider: route.provider,
        api: route.api,
        seq: decision.seq,
        model,
        stream,
        include_usage,
        prompt_tokens,
        output_tokens,
        chunk_delay,
    };
    let mut planned = render::plan(&decision.fault, &ctx);
    if let (Some(verdict), Some(shape)) = (&decision.quota, shape) {
        match verdict {
            Err(refusal) => quota_wire::refusal(&mut planned.plan, &ctx, shape, refusal),
            Ok(snapshot) => {
                if let Plan::Full { headers, .. } | Plan::Stream { headers, .. } = &mut planned.plan
                {
                    quota_wire::add_headers(ctx.provider, shape, snapshot, headers);
                }
                // Settled at once: the answer is already decided. Only a successful answer
                // produced output; an error gives every reserved output token back.
                let used = if matches!(decision.fault.fault, FaultKind::Ok | FaultKind::Stall) {
                    output_tokens
                } else {
                    0
                };
                let cost = quota::Cost {
                    input: prompt_tokens,
                    max_output: max_tokens.unwrap_or(reply_tokens),
                };
                shared.lock().settle(key.as_deref(), cost, used);
            }
        }
    }
    record(
        &shared,
        decision.seq,
        decision.ms,
        &method,
        &path,
        key4,
        stream,
        decision.fault.fault.name(),
        decision.source,
        decision.step,
        planned.plan.status(),
        Some(decision.fault.clone()),
    );

    if let Some(wait) = planned.delay {
        tokio::time::sleep(wait).await;
    }
    match planned.plan {
        Plan::Reset { graceful } => {
            if !graceful {
                // Closing with SO_LINGER=0 sends an RST: the client sees "connection reset".
                let _ = socket2::SockRef::from(&*raw).set_linger(Some(Duration::ZERO));
            }
            Err(Box::new(ResetConnection))
        }
        Plan::Full {
            status,
            headers,
            body,
        } => {
            let mut r = Response::new(full(body));
            set_status(&mut r, status)?;
            *r.headers_mut() = headers;
            Ok(r)
        }
        Plan::Stream {
            status,
            headers,
            ops,
        } => {
            let (tx, rx) = mpsc::channel(16);
            tokio::spawn(produce(tx, ops, raw));
            let mut r = Response::new(ChannelBody(rx).boxed());
            set_status(&mut r, status)?;
            *r.headers_mut() = headers;
            Ok(r)
        }
    }
}

/// Sets the status, with the reason phrase the real servers send for codes hyper does not name
/// (hyper would write `<none>`, which shows up in clients' error messages).
fn set_status(r: &mut Response<LabBody>, status: u16) -> Result<(), BoxError> {
    let code = StatusCode::from_u16(status)?;
    *r.status_mut() = code;
    if code.canonical_reason().is_none() {
        let reason: &'static [u8] = match status {
            520 => b"Unknown Error",
            521 => b"Web Server Is Down",
            522 => b"Connection Timed Out",
            523 => b"Origin Is Unreachable",
            524 => b"A Timeout Occurred",
            525 => b"SSL Handshake Failed",
            526 => b"Invalid SSL Certificate",
            529 => b"Site Overloaded",
            _ => b"Unknown",
        };
        r.extensions_mut()
            .insert(hyper::ext::ReasonPhrase::from_static(reason));
    }
    Ok(())
}

/// Plays a stream's ops into the body channel; stops as soon as the client is gone. `raw` is
/// the connection's socket, for an abort that must end in an RST.
async fn produce(
    tx: mpsc::Sender<Result<Bytes, io::Error>>,
    ops: Vec<Op>,
    raw: Arc<std::net::TcpStream>,
) {
    for op in ops {
        match op {
            Op::Send(b) => {
                if tx.send(Ok(b)).await.is_err() {
                    return;
                }
            }
            Op::Sleep(d) => {
                tokio::select! {
                    _ = tokio::time::sleep(d) => {}
                    _ = tx.closed() => return,
                }
            }
            Op::Abort { rst } => {
                if rst {
                    // Set before hyper closes its handle; the last handle to close (hyper's or
                    // this one, dropped on return) then sends the RST.
                    let _ = socket2::SockRef::from(&*raw).set_linger(Some(Duration::ZERO));
                }
                let cut = io::Error::new(io::ErrorKind::ConnectionAborted, "retry-lab: stream cut");
                let _ = tx.send(Err(cut)).await;
                return;
            }
        }
    }
}

#[allow(clippy::too_many_arguments)]
fn record(
    shared: &Shared,
    seq: u64,
    ms: u64,
    method: &Method,
    path: &str,
    key_last4: Option<String>,
    stream: bool,
    fault: &str,
    source: Source,
    step: Option<usize>,
    status: Option<u16>,
    detail: Option<Fault>,
) {
    if shared.stderr.is_some() {
        let key = key_last4
            .as_deref()
            .map_or("-".to_string(), |k| format!("...{k}"));
        let status = status.map_or("no response".to_string(), |s| s.to_string());
        let from = match (source, step) {
            (Source::Step, Some(i)) => format!("step {i}"),
            (s, _) => serde_json::to_value(s)
                .ok()
                .and_then(|v| v.as_str().map(str::to_string))
                .unwrap_or_default(),
        };
        shared.say(format!(
            "retry-lab #{seq} +{ms}ms {method} {path} key={key} stream={stream} -> {fault} {status} ({from})"
        ));
    }
    shared.lock().push_log(LogEntry {
        seq,
        ms,
        method: method.to_string(),
        path: path.to_string(),
        key_last4,
        stream,
        fault: fault.to_string(),
        source,
        step,
        status,
        detail,
    });
}

/// The request's output cap, where each API puts it: OpenAI's `max_tokens` /
/// `max_completion_tokens` / `max_output_tokens` (Responses), Anthropic's `max_tokens`, Gemini's
/// `generationConfig.maxOutputTokens`, Bedrock Converse's `inferenceConfig.maxTokens`, Ollama's
/// `options.num_predict`.
fn max_tokens(req: &Value) -> Option<u64> {
    [
        "/max_tokens",
        "/max_completion_tokens",
        "/max_output_tokens",
        "/generationConfig/maxOutputTokens",
        "/inferenceConfig/maxTokens",
        "/options/num_predict",
    ]
    .iter()
    .find_map(|p| req.pointer(p).and_then(Value::as_u64))
}

/// The request's API key: Anthropic's `x-api-key`, Gemini's `x-goog-api-key`, OpenAI's
/// `Authorization: Bearer` (for AWS SigV4, the whole `Authorization` value), or Azure's `api-key`.
fn api_key(headers: &hyper::HeaderMap) -> Option<String> {
    for name in ["x-api-key", "x-goog-api-key"] {
        if let Some(v) = headers.get(name).and_then(|v| v.to_str().ok()) {
            return Some(v.trim().to_string());
        }
    }
    if let Some(v) = headers.get("authorization").and_then(|v| v.to_str().ok()) {
        let v = v.trim();
        let token = v
            .strip_prefix("Bearer ")
            .or_else(|| v.strip_prefix("bearer "))
            .unwrap_or(v);
        return Some(token.trim().to_string());
    }
    headers
        .get("api-key")
        .and_then(|v| v.to_str().ok())
        .map(|v| v.trim().to_string())
}

async fn control(
    shared: &Shared,
    method: &Method,
    ctl: &str,
    req: Request<Incoming>,
) -> Response<LabBody> {
    match (method, ctl) {
        (&Method::GET, "health") => lab_json(StatusCode::OK, &json!({"ok": true})),
        (&Method::GET, "log") => {
            let log = shared.lock().log();
            lab_json(
                StatusCode::OK,
                &serde_json::to_value(log).unwrap_or(Value::Null),
            )
        }
        (&Method::GET, "script") => {
            let script = shared.lock().script.clone();
            lab_json(
                StatusCode::OK,
                &serde_json::to_value(script).unwrap_or(Value::Null),
            )
        }
        (&Method::POST, "reset") => {
            shared.lock().reset();
            lab_json(StatusCode::OK, &json!({"ok": true}))
        }
        (&Method::POST, "script") => {
            let body = match req.into_body().collect().await {
                Ok(b) => b.to_bytes(),
                Err(e) => {
                    return lab_json(
                        StatusCode::BAD_REQUEST,
                        &json!({"lab_error": e.to_string()}),
                    )
                }
            };
            let text = String::from_utf8_lossy(&body);
            let text = if text.trim().is_empty() {
                "{}"
            } else {
                text.trim()
            };
            match Script::parse(text) {
                Ok(script) => {
                    let steps = script.steps.len();
                    shared.lock().load(script);
                    lab_json(StatusCode::OK, &json!({"ok": true, "steps": steps}))
                }
                Err(e) => lab_json(StatusCode::BAD_REQUEST, &json!({"lab_error": e})),
            }
        }
        _ => lab_json(
            StatusCode::NOT_FOUND,
            &json!({"lab_error": format!("no control endpoint {method} /_lab/{ctl}")}),
        ),
    }
}
