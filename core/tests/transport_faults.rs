//! Issue 20: the network faults a real agent meets most, raised for real by reqwest 0.13 and
//! reqwest 0.12 against the fault lab, classified through `Failure::from(&reqwest::Error)`:
//! a reset before the answer, a reset mid-body, a body cut short, an SSE stream cut mid-way are
//! transient; a bad host (DNS), a TLS certificate failure and a URL that cannot be built stay
//! permanent. Then a whole retry through the tokio driver survives each transient fault.
//!
//! The bad host is `nowhere.invalid`: a resolver in the test refuses `.invalid` names as
//! RFC 6761 §6.4 asks resolvers to (NXDOMAIN, without asking the network), with the error
//! glibc's getaddrinfo gives for one, so no DNS query leaves the machine. The TLS server is
//! in-process, with a self-signed certificate made by the `openssl` command for each run.
#![cfg(any(feature = "reqwest", feature = "reqwest-0_12"))]

use std::future::Future;
use std::pin::Pin;
use std::sync::Mutex;
use std::time::Duration;

use retry_core::driver::tokio::AsyncSleeper;
use retry_core::{classify, Category, Failure};

/// Records the waits instead of sleeping them.
#[derive(Default)]
struct Recorder(Mutex<Vec<Duration>>);

impl AsyncSleeper for Recorder {
    fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.0.lock().unwrap().push(d);
        Box::pin(async {})
    }
}

fn lab(script: &str) -> retry_lab::LabHandle {
    retry_lab::spawn(retry_lab::Script::parse(script).unwrap()).1
}

fn stream_body() -> serde_json::Value {
    serde_json::json!({"model": "claude-test", "max_tokens": 64, "stream": true,
                       "messages": [{"role": "user", "content": "hi"}]})
}

fn plain_body() -> serde_json::Value {
    serde_json::json!({"model": "gpt-test", "messages": [{"role": "user", "content": "hi"}]})
}

/// Whether an Anthropic SSE text reached its stop (`message_stop`).
fn stopped(sse: &str) -> bool {
    sse.lines().any(|l| l.trim() == "event: message_stop")
}

fn assert_transient(f: &Failure, want: Category) {
    let c = classify(f);
    assert_eq!(c.category, want, "{f:?}");
    assert!(c.category.is_transient(), "{f:?}");
}

fn assert_permanent(f: &Failure, want: Category) {
    let c = classify(f);
    assert_eq!(c.category, want, "{f:?}");
    assert!(!c.category.is_transient(), "{f:?}");
}

/// A self-signed certificate and its key (PEM), made by the `openssl` command.
fn self_signed() -> (Vec<u8>, Vec<u8>) {
    let dir = std::env::temp_dir().join(format!("retry-core-tls-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (cert, key) = (dir.join("cert.pem"), dir.join("key.pem"));
    let out = std::process::Command::new("openssl")
        .args([
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1",
        ])
        .args(["-subj", "/CN=localhost", "-keyout"])
        .arg(&key)
        .arg("-out")
        .arg(&cert)
        .output()
        .expect("the openssl command (Debian's openssl package) makes the test certificate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let pair = (std::fs::read(&cert).unwrap(), std::fs::read(&key).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    pair
}

/// A TLS server on loopback whose certificate no client trusts; it accepts until dropped.
async fn untrusted_tls_server() -> (std::net::SocketAddr, tokio::task::JoinHandle<()>) {
    let (cert, key) = self_signed();
    let id = native_tls::Identity::from_pkcs8(&cert, &key).unwrap();
    let acceptor = tokio_native_tls::TlsAcceptor::from(native_tls::TlsAcceptor::new(id).unwrap());
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap();
    let task = tokio::spawn(async move {
        while let Ok((s, _)) = listener.accept().await {
            let a = acceptor.clone();
            tokio::spawn(async move {
                let _ = a.accept(s).await;
            });
        }
    });
    (addr, task)
}

/// The getaddrinfo error glibc gives for a name that does not exist (EAI_NONAME), as std
/// words it.
const NXDOMAIN: &str = "failed to lookup address information: Name or service not known";

/// The same tests for one reqwest version, named `$rq`; `$glue` is retry_core's module for it.
macro_rules! transport_tests {
    ($rq:ident, $glue:path) => {
        use super::*;
        use std::sync::Arc;

        use retry_core::driver::tokio::AsyncRetry;
        use retry_core::RetryPolicy;
        use $glue as glue;

        /// Refuses `.invalid` names (RFC 6761 §6.4) and resolves everything else to loopback.
        struct NoInvalid;

        impl $rq::dns::Resolve for NoInvalid {
            fn resolve(&self, name: $rq::dns::Name) -> $rq::dns::Resolving {
                let host = name.as_str().to_owned();
                Box::pin(async move {
                    if host.ends_with(".invalid") {
                        Err(Box::new(std::io::Error::other(NXDOMAIN)) as _)
                    } else {
                        let addrs: $rq::dns::Addrs = Box::new(std::iter::once(
                            std::net::SocketAddr::from(([127, 0, 0, 1], 0)),
                        ));
                        Ok(addrs)
                    }
                })
            }
        }

        fn client() -> $rq::Client {
            $rq::Client::builder()
                .no_proxy()
                .timeout(Duration::from_secs(10))
                .dns_resolver(Arc::new(NoInvalid))
                .build()
                .unwrap()
        }

        async fn post(
            lab: &retry_lab::LabHandle,
            path: &str,
            body: &serde_json::Value,
        ) -> Result<$rq::Response, $rq::Error> {
            client().post(lab.url(path)).json(body).send().await
        }

        /// Reads an SSE body to its end: the text, then the error that broke it, if any.
        async fn read_sse(mut resp: $rq::Response) -> (String, Option<$rq::Error>) {
            let mut text = String::new();
            loop {
                match resp.chunk().await {
                    Ok(Some(c)) => text.push_str(&String::from_utf8_lossy(&c)),
                    Ok(None) => return (text, None),
                    Err(e) => return (text, Some(e)),
                }
            }
        }

        #[tokio::test]
        async fn a_reset_before_the_answer_is_a_connection_fault() {
            let lab =
                lab(r#"{"steps": [{"fault": "reset"}, {"fault": "reset", "graceful": true}]}"#);
            for _ in 0..2 {
                let e = post(&lab, "/v1/chat/completions", &plain_body())
                    .await
                    .unwrap_err();
                let f = Failure::from(&e);
                assert_transient(&f, Category::Connection);
                assert_eq!(f.transport, Some(retry_core::Transport::Connect));
            }
            assert_eq!(lab.log().len(), 2, "no client-side replay hid a reset");
        }

        #[tokio::test]
        async fn a_reset_or_a_cut_mid_body_is_a_stream_fault() {
            for fault in [
                r#"{"fault": "stream_cut", "rst": true}"#,
                r#"{"fault": "stream_cut"}"#,
            ] {
                let lab = lab(&format!(r#"{{"steps": [{fault}, {fault}]}}"#));
                // json(), the pattern the README shows: a decode error whose source is the
                // broken connection, not bad JSON.
                let resp = post(&lab, "/v1/chat/completions", &plain_body())
                    .await
                    .unwrap();
                assert_eq!(resp.status().as_u16(), 200);
                let e = resp.json::<serde_json::Value>().await.unwrap_err();
                let f = Failure::from(&e);
                assert_transient(&f, Category::StreamInterrupted);
                if fault.contains("rst") {
                    assert!(f.message.to_lowercase().contains("reset"), "{}", f.message);
                }
                // bytes(): the same.
                let resp = post(&lab, "/v1/chat/completions", &plain_body())
                    .await
                    .unwrap();
                let e = resp.bytes().await.unwrap_err();
                assert_transient(&Failure::from(&e), Category::StreamInterrupted);
                assert_eq!(
                    glue::transport_of(&e),
                    retry_core::Transport::StreamTransient
                );
            }
        }

        #[tokio::test]
        async fn a_complete_body_that_is_not_json_stays_invalid_response() {
            let lab =
                lab(r#"{"steps": [{"fault": "status", "status": 200, "body": "{\"half\": "}]}"#);
            let resp = post(&lab, "/v1/chat/completions", &plain_body())
                .await
                .unwrap();
            let e = resp.json::<serde_json::Value>().await.unwrap_err();
            assert_permanent(&Failure::from(&e), Category::InvalidResponse);
        }

        #[tokio::test]
        async fn an_sse_stream_cut_mid_way_is_a_stream_fault() {
            let lab = lab(r#"{"steps": [
                {"fault": "stream_cut", "after_chunks": 3},
                {"fault": "stream_cut", "after_chunks": 3, "rst": true},
                {"fault": "stream_cut", "after_chunks": 3, "clean": true}]}"#);
            for _ in 0..2 {
                let resp = post(&lab, "/v1/messages", &stream_body()).await.unwrap();
                let (text, err) = read_sse(resp).await;
                assert!(text.contains("retry-lab!") && !stopped(&text), "{text}");
                let f = Failure::from(&err.expect("the body breaks"));
                assert_transient(&f, Category::StreamInterrupted);
            }
            // The body ends cleanly but without the stop: the crate's SSE rule.
            let resp = post(&lab, "/v1/messages", &stream_body()).await.unwrap();
            let (text, err) = read_sse(resp).await;
            assert!(err.is_none() && !stopped(&text));
            assert_transient(
                &retry_core::sse::ended_without_stop_reason(),
                Category::StreamInterrupted,
            );
        }

        #[tokio::test]
        async fn a_bad_host_is_configuration() {
            let e = client()
                .get("http://nowhere.invalid/v1/models")
                .send()
                .await
                .unwrap_err();
            let f = Failure::from(&e);
            assert_permanent(&f, Category::Configuration);
            assert!(
                f.message.contains("Name or service not known"),
                "{}",
                f.message
            );
        }

        #[tokio::test]
        async fn a_tls_certificate_failure_is_configuration() {
            let (addr, server) = untrusted_tls_server().await;
            let e = client()
                .get(format!("https://localhost:{}/v1/models", addr.port()))
                .send()
                .await
                .unwrap_err();
            server.abort();
            let f = Failure::from(&e);
            assert_permanent(&f, Category::Configuration);
            assert!(f.message.contains("certificate"), "{}", f.message);
        }

        #[tokio::test]
        async fn a_stall_past_the_timeout_and_a_refused_port_are_transient() {
            let lab = lab(r#"{"steps": [{"fault": "stall", "seconds": 2}]}"#);
            let quick = $rq::Client::builder()
                .no_proxy()
                .timeout(Duration::from_millis(300))
                .build()
                .unwrap();
            let e = quick
                .post(lab.url("/v1/chat/completions"))
                .json(&plain_body())
                .send()
                .await
                .unwrap_err();
            assert_transient(&Failure::from(&e), Category::Timeout);
            // A port nobody listens on (bound, then let go).
            let port = std::net::TcpListener::bind("127.0.0.1:0")
                .unwrap()
                .local_addr()
                .unwrap()
                .port();
            let e = client()
                .get(format!("http://127.0.0.1:{port}/"))
                .send()
                .await
                .unwrap_err();
            assert!(e.is_connect());
            let f = Failure::from(&e);
            assert_transient(&f, Category::Connection);
            assert!(
                f.message.to_lowercase().contains("refused"),
                "{}",
                f.message
            );
        }

        #[tokio::test]
        async fn a_url_that_cannot_be_built_is_configuration() {
            let e = client().get("http://[::1/v1").send().await.unwrap_err();
            assert!(e.is_builder());
            assert_permanent(&Failure::from(&e), Category::Configuration);
        }

        /// One streamed call: the text, or the failure record of what broke it.
        async fn stream_call(url: &str) -> Result<String, Failure> {
            let resp = client()
                .post(url)
                .json(&stream_body())
                .send()
                .await
                .map_err(|e| Failure::from(&e))?;
            if !resp.status().is_success() {
                return Err(glue::failure_from_response(resp).await);
            }
            let (text, err) = read_sse(resp).await;
            if let Some(e) = err {
                return Err(Failure::from(&e));
            }
            if !stopped(&text) {
                return Err(retry_core::sse::ended_without_stop_reason());
            }
            Ok(text)
        }

        #[tokio::test]
        async fn the_tokio_driver_survives_each_fault() {
            let lab = lab(r#"{"steps": [
                {"fault": "reset"},
                {"fault": "reset", "graceful": true},
                {"fault": "stream_cut", "rst": true},
                {"fault": "stream_cut", "after_chunks": 2},
                {"fault": "stream_cut", "after_chunks": 2, "rst": true},
                {"fault": "stream_cut", "after_chunks": 2, "clean": true}]}"#);
            let url = lab.url("/v1/messages");
            let rec = Recorder::default();
            // `default` would stop sooner than six faults in a row; forgeflare retries 4 times,
            // so give it room: swarm_sdk(7, 1) is 7 calls.
            let out = AsyncRetry::new(RetryPolicy::swarm_sdk(7, 1.0))
                .sleeper(&rec)
                .run(|_| stream_call(&url))
                .await;
            let text = out.unwrap_or_else(|e| panic!("{:?} {:?}", e.failure, e.decision.action));
            assert!(
                text.contains("msg_lab00000007"),
                "the seventh request answered: {text}"
            );
            assert_eq!(lab.log().len(), 7, "six faults, then the answer");
            assert_eq!(rec.0.lock().unwrap().len(), 6);
        }
    };
}

#[cfg(feature = "reqwest")]
mod with_reqwest_0_13 {
    transport_tests!(reqwest, retry_core::reqwest_support);
}

#[cfg(feature = "reqwest-0_12")]
mod with_reqwest_0_12 {
    transport_tests!(reqwest_0_12, retry_core::reqwest_support::v0_12);
}
