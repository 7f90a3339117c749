//! Helpers shared by the lab's integration tests.
#![allow(dead_code)]

use std::time::Duration;

use reqwest::header::HeaderMap;
use retry_lab::{LabHandle, Script};
use serde_json::{json, Value};

pub const OPENAI: &str = "/v1/chat/completions";
pub const ANTHROPIC: &str = "/v1/messages";

pub fn lab(script: Value) -> LabHandle {
    let _ = client(); // built before the lab's clock starts: its windows are the script's own
    let (_, lab) = retry_lab::spawn(Script::from_value(script).expect("valid script"));
    lab
}

/// One client for every test: building one loads the system's certificates when a TLS backend
/// is compiled in (a workspace build unifies reqwest's features, and the core's transport tests
/// bring native-tls), a cost that would eat the scripts' sub-second windows on every call. No
/// idle pool, so that no connection outlives the test runtime that opened it.
pub fn client() -> reqwest::Client {
    static CLIENT: std::sync::OnceLock<reqwest::Client> = std::sync::OnceLock::new();
    CLIENT
        .get_or_init(|| {
            // no_proxy: an HTTP(S)_PROXY in the environment must not swallow loopback traffic.
            reqwest::Client::builder()
                .no_proxy()
                .pool_max_idle_per_host(0)
                .timeout(Duration::from_secs(10))
                .build()
                .unwrap()
        })
        .clone()
}

/// A minimal request body for the endpoint.
pub fn body(path: &str, stream: bool) -> Value {
    if path == ANTHROPIC {
        json!({"model": "claude-test", "max_tokens": 64, "stream": stream,
               "messages": [{"role": "user", "content": "hi"}]})
    } else {
        json!({"model": "gpt-test", "stream": stream,
               "messages": [{"role": "user", "content": "hi"}]})
    }
}

pub struct Reply {
    pub status: u16,
    pub headers: HeaderMap,
    pub text: String,
}

impl Reply {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.text).unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text))
    }

    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

/// POSTs to a model endpoint, with an optional `x-lab-fault` and API key.
pub async fn call(
    lab: &LabHandle,
    path: &str,
    stream: bool,
    fault: Option<&str>,
    key: Option<&str>,
) -> Result<Reply, reqwest::Error> {
    let mut req = client().post(lab.url(path)).json(&body(path, stream));
    if let Some(f) = fault {
        req = req.header("x-lab-fault", f);
    }
    if let Some(k) = key {
        req = if path == ANTHROPIC {
            req.header("x-api-key", k)
        } else {
            req.bearer_auth(k)
        };
    }
    let resp = req.send().await?;
    let status = resp.status().as_u16();
    let headers = resp.headers().clone();
    let text = resp.text().await?;
    Ok(Reply {
        status,
        headers,
        text,
    })
}

pub async fn status_of(lab: &LabHandle, path: &str, key: Option<&str>) -> u16 {
    call(lab, path, false, None, key).await.unwrap().status
}

/// Reads a streamed response chunk by chunk: what arrived, and whether the body ended cleanly.
pub async fn read_stream(resp: reqwest::Response) -> (String, Result<(), reqwest::Error>) {
    let mut resp = resp;
    let mut text = String::new();
    loop {
        match resp.chunk().await {
            Ok(Some(b)) => text.push_str(&String::from_utf8_lossy(&b)),
            Ok(None) => return (text, Ok(())),
            Err(e) => return (text, Err(e)),
        }
    }
}

/// One SSE event: its `event:` name (if any) and its `data:`.
#[derive(Debug)]
pub struct Sse {
    pub event: Option<String>,
    pub data: String,
}

impl Sse {
    pub fn json(&self) -> Value {
        serde_json::from_str(&self.data).unwrap_or(Value::Null)
    }
}

pub fn parse_sse(text: &str) -> Vec<Sse> {
    text.split("\n\n")
        .filter(|b| !b.trim().is_empty())
        .map(|block| {
            let mut ev = Sse {
                event: None,
                data: String::new(),
            };
            for line in block.lines() {
                if let Some(v) = line.strip_prefix("event: ") {
                    ev.event = Some(v.to_string());
                } else if let Some(v) = line.strip_prefix("data: ") {
                    ev.data.push_str(v);
                }
            }
            ev
        })
        .collect()
}

/// The text deltas of an OpenAI or Anthropic stream, in order.
pub fn deltas(events: &[Sse]) -> Vec<String> {
    events
        .iter()
        .filter_map(|e| {
            let v = e.json();
            v.pointer("/choices/0/delta/content")
                .or_else(|| v.pointer("/delta/text"))
                .and_then(Value::as_str)
                .filter(|s| !s.is_empty())
                .map(str::to_string)
        })
        .collect()
}

/// Asserts an OpenAI-shaped error body and returns its `error` object.
pub fn openai_error(r: &Reply) -> Value {
    let v = r.json();
    let e = v
        .get("error")
        .cloned()
        .unwrap_or_else(|| panic!("no error object: {v}"));
    for k in ["message", "type", "param", "code"] {
        assert!(e.get(k).is_some(), "OpenAI error lacks {k}: {v}");
    }
    assert!(r.header("x-request-id").is_some(), "no x-request-id");
    e
}

/// Asserts an Anthropic-shaped error body and returns its `error` object.
pub fn anthropic_error(r: &Reply) -> Value {
    let v = r.json();
    assert_eq!(v["type"], "error", "not an Anthropic error: {v}");
    let e = v["error"].clone();
    assert!(
        e["type"].is_string() && e["message"].is_string(),
        "bad error: {v}"
    );
    assert!(r.header("request-id").is_some(), "no request-id");
    e
}

/// Walks an error's sources into one string, for asserting what kind of failure a client saw.
pub fn chain(e: &dyn std::error::Error) -> String {
    let mut s = format!("{e:?}");
    let mut cur = e.source();
    while let Some(c) = cur {
        s.push_str(&format!(" <- {c:?}"));
        cur = c.source();
    }
    s
}
