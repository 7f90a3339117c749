//! The reqwest-middleware `RetryMiddleware` and the tower `RetryPolicy` against the fault lab:
//! the script (a 429 with its retry-after, a 503, an SSE error before the first byte),
//! one request per attempt in the lab's log; and `?` on a driver's give-up.

use std::future::Future;
use std::pin::Pin;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use retry_core::driver::tokio::{AsyncRetry, AsyncSleeper};
use retry_core::middleware::reqwest_middleware::RetryMiddleware;
use retry_core::middleware::tower::RetryPolicy as TowerPolicy;
use retry_core::{Decision, Failure, RetryPolicy};
use retry_lab::Script;
use serde_json::{json, Value};

/// Records each wait instead of sleeping.
#[derive(Default)]
struct Waits(Mutex<Vec<f64>>);

impl AsyncSleeper for Waits {
    fn sleep(&self, d: Duration) -> Pin<Box<dyn Future<Output = ()> + Send + '_>> {
        self.0.lock().unwrap().push(d.as_secs_f64());
        Box::pin(async {})
    }
}

fn script() -> Script {
    Script::from_value(json!({"steps": [
        {"fault": "rate_limit", "retry_after": 3},
        {"fault": "status", "status": 503},
        {"fault": "sse_error", "prelude": false},
    ]}))
    .unwrap()
}

fn http() -> reqwest::Client {
    reqwest::Client::builder()
        .no_proxy()
        .timeout(Duration::from_secs(10))
        .build()
        .unwrap()
}

fn body(stream: bool) -> String {
    json!({"model": "gpt-4o", "stream": stream, "messages": [{"role": "user", "content": "hi"}]})
        .to_string()
}

fn log(lab: &retry_lab::LabHandle) -> Vec<(String, Option<u16>)> {
    lab.log()
        .iter()
        .map(|e| (e.fault.clone(), e.status))
        .collect()
}

fn faults(names: &[(&str, u16)]) -> Vec<(String, Option<u16>)> {
    names
        .iter()
        .map(|(f, s)| (f.to_string(), Some(*s)))
        .collect()
}

#[tokio::test]
async fn reqwest_middleware_survives_the_lab_script() {
    for path in ["/v1/chat/completions", "/v1/messages"] {
        let (_, lab) = retry_lab::spawn(script());
        let waits = Arc::new(Waits::default());
        let client = reqwest_middleware::ClientBuilder::new(http())
            .with(
                RetryMiddleware::new(RetryPolicy::default())
                    .seed(1)
                    .sleeper(waits.clone()),
            )
            .build();
        let answer = client
            .post(lab.url(path))
            .header("content-type", "application/json")
            .header("x-api-key", "sk-ant-test-0000")
            .body(body(true))
            .send()
            .await
            .unwrap();
        assert_eq!(answer.status(), 200);
        let text = answer.text().await.unwrap();
        // The whole stream of the fourth answer, and nothing of the three failures.
        assert!(
            text.contains("[DONE]") || text.contains("message_stop"),
            "{path}: {text}"
        );
        assert!(!text.contains("\"error\""), "{path}: {text}");
        assert_eq!(
            log(&lab),
            faults(&[
                ("rate_limit", 429),
                ("status", 503),
                ("sse_error", 200),
                ("ok", 200)
            ]),
            "{path}"
        );
        let waits = waits.0.lock().unwrap().clone();
        assert_eq!(waits.len(), 3, "{path}: {waits:?}");
        assert_eq!(waits[0], 3.0, "the 429's retry-after");
    }
}

#[tokio::test]
async fn reqwest_middleware_hands_back_the_last_answer_on_give_up() {
    let (_, lab) =
        retry_lab::spawn(Script::from_value(json!({"then": {"fault": "unauthorized"}})).unwrap());
    let client = reqwest_middleware::ClientBuilder::new(http())
        .with(RetryMiddleware::new(RetryPolicy::default()).sleeper(Arc::new(Waits::default())))
        .build();
    let answer = client
        .post(lab.url("/v1/chat/completions"))
        .body(body(false))
        .send()
        .await
        .unwrap();
    assert_eq!(answer.status(), 401);
    let v: Value = answer.json().await.unwrap();
    assert_eq!(v["error"]["code"], "invalid_api_key");
    assert_eq!(lab.log().len(), 1, "a 401 is never retried");
}

#[tokio::test]
async fn reqwest_middleware_keeps_the_whole_long_body_and_the_decision() {
    let text = "x".repeat(5000);
    let (_, lab) = retry_lab::spawn(
        Script::from_value(
            json!({"then": {"fault": "status", "status": 400, "body": {"error": {"message": text}}}}),
        )
        .unwrap(),
    );
    let client = reqwest_middleware::ClientBuilder::new(http())
        .with(RetryMiddleware::new(RetryPolicy::default()).max_body(100))
        .build();
    let mut extensions = http::Extensions::new();
    let request = client
        .post(lab.url("/v1/chat/completions"))
        .body(body(false))
        .build()
        .unwrap();
    let answer = client
        .execute_with_extensions(request, &mut extensions)
        .await
        .unwrap();
    assert_eq!(answer.status(), 400);
    let v: Value = answer.json().await.unwrap();
    assert_eq!(v["error"]["message"], text.as_str());
    let decision = extensions
        .get::<Decision>()
        .expect("the decision that stopped the run");
    assert!(!decision.classification.transient);
    assert_eq!(lab.log().len(), 1);
}

#[tokio::test]
async fn reqwest_middleware_never_retries_an_sse_error_after_bytes_went_out() {
    let (_, lab) = retry_lab::spawn(
        Script::from_value(json!({"steps": [{"fault": "sse_error", "after_chunks": 2}]})).unwrap(),
    );
    let client = reqwest_middleware::ClientBuilder::new(http())
        .with(RetryMiddleware::new(RetryPolicy::default()).sleeper(Arc::new(Waits::default())))
        .build();
    let answer = client
        .post(lab.url("/v1/chat/completions"))
        .body(body(true))
        .send()
        .await
        .unwrap();
    let text = answer.text().await.unwrap();
    assert!(text.contains("\"error\""), "{text}");
    assert_eq!(lab.log().len(), 1);
}

#[tokio::test]
async fn tower_policy_honours_retry_after() {
    use tower::{Service, ServiceExt};

    let (_, lab) = retry_lab::spawn(
        Script::from_value(json!({"steps": [
            {"fault": "rate_limit", "retry_after": 3},
            {"fault": "status", "status": 503},
        ]}))
        .unwrap(),
    );
    let waits = Arc::new(Waits::default());
    let client = http();
    // A service of `http` requests over reqwest: the policy sees `http::Response`s.
    let service = tower::service_fn(move |req: http::Request<String>| {
        let client = client.clone();
        async move {
            let req = reqwest::Request::try_from(req)?;
            let answer = client.execute(req).await?;
            let status = answer.status();
            let headers = answer.headers().clone();
            let text = answer.text().await?;
            let mut out = http::Response::new(text);
            *out.status_mut() = status;
            *out.headers_mut() = headers;
            Ok::<_, reqwest::Error>(out)
        }
    });
    let mut retrying = tower::retry::Retry::new(
        TowerPolicy::new(RetryPolicy::default()).sleeper(waits.clone()),
        service,
    );
    let request = http::Request::post(lab.url("/v1/chat/completions"))
        .body(body(false))
        .unwrap();
    let answer = retrying.ready().await.unwrap().call(request).await.unwrap();
    assert_eq!(answer.status(), 200);
    assert!(answer.body().contains("reply number 3"));
    assert_eq!(
        log(&lab),
        faults(&[("rate_limit", 429), ("status", 503), ("ok", 200)])
    );
    let waits = waits.0.lock().unwrap().clone();
    assert_eq!(waits.len(), 2);
    assert_eq!(waits[0], 3.0);
}

/// `?` on a give-up in a function returning `Box<dyn Error>`: `RetryError<Failure>` is an error.
async fn always_503() -> Result<u32, Box<dyn std::error::Error>> {
    let waits = Waits::default();
    let value = AsyncRetry::new(RetryPolicy::swarm_sdk(2, 0.5))
        .sleeper(&waits)
        .run(|_| async { Err::<u32, _>(Failure::http(503, "Service Unavailable")) })
        .await?;
    Ok(value)
}

#[tokio::test]
async fn question_mark_works_on_a_give_up() {
    let err = always_503().await.unwrap_err();
    let text = err.to_string();
    assert!(text.starts_with("HTTP 503: Service Unavailable"), "{text}");
    assert!(text.contains("server_error"), "{text}");
}

#[test]
fn failure_displays_without_secrets() {
    let f = Failure::http(
        401,
        "Incorrect API key provided: sk-proj-abcdefghijklmnopqrstuvwxyz012345",
    );
    let text = f.to_string();
    assert!(
        text.starts_with("HTTP 401: Incorrect API key provided"),
        "{text}"
    );
    assert!(!text.contains("abcdefghijklmnop"), "{text}");
    assert_eq!(Failure::new("").to_string(), "failed call");
    let boxed: Box<dyn std::error::Error> = Box::new(Failure::new("boom"));
    assert_eq!(boxed.to_string(), "boom");
}

#[test]
fn fleet_default_is_in_process_with_default_config() {
    let fleet = retry_core::fleet::Fleet::default();
    assert_eq!(fleet.config(), &retry_core::fleet::FleetConfig::default());
    assert!(!fleet.is_remote());
}
