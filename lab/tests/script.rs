//! The script: steps, `then`, outages, the override header, the per-key rate limit, the log and
//! the control endpoints.

mod common;

use std::time::Duration;

use common::*;
use retry_lab::{Fault, FaultKind, Script, Source};
use serde_json::{json, Value};

#[tokio::test]
async fn steps_are_consumed_in_order_across_endpoints_then_then() {
    let lab = lab(json!({
        "steps": [
            {"fault": "rate_limit", "retry_after": 1},
            {"fault": "status", "status": 503},
            {"fault": "ok"}
        ],
        "then": {"fault": "server_error"}
    }));
    let r = call(&lab, OPENAI, false, None, None).await.unwrap();
    assert_eq!((r.status, r.header("retry-after")), (429, Some("1")));
    assert_eq!(status_of(&lab, ANTHROPIC, None).await, 503);
    assert_eq!(status_of(&lab, OPENAI, None).await, 200);
    assert_eq!(status_of(&lab, ANTHROPIC, None).await, 500);
    assert_eq!(status_of(&lab, OPENAI, None).await, 500);

    let log = lab.log();
    let seen: Vec<(u64, &str, Source, Option<usize>)> = log
        .iter()
        .map(|e| (e.seq, e.fault.as_str(), e.source, e.step))
        .collect();
    assert_eq!(
        seen,
        [
            (1, "rate_limit", Source::Step, Some(0)),
            (2, "status", Source::Step, Some(1)),
            (3, "ok", Source::Step, Some(2)),
            (4, "server_error", Source::Then, None),
            (5, "server_error", Source::Then, None),
        ]
    );
    assert_eq!(log[1].path, ANTHROPIC);
    assert_eq!(log[0].detail.as_ref().unwrap().retry_after, Some(json!(1)));
}

#[tokio::test]
async fn then_defaults_to_ok() {
    let lab = lab(json!({"steps": [{"fault": "overloaded"}]}));
    assert_eq!(status_of(&lab, ANTHROPIC, None).await, 529);
    assert_eq!(status_of(&lab, ANTHROPIC, None).await, 200);
    assert_eq!(status_of(&lab, OPENAI, None).await, 200);
}

#[tokio::test]
async fn outage_window_wins_over_steps_without_consuming_them() {
    let lab = lab(json!({
        "steps": [{"fault": "rate_limit"}],
        "outages": [
            {"start_s": 0, "duration_s": 0.3, "fault": {"fault": "status", "status": 503}},
            {"start_s": 0.5, "duration_s": 1.0}
        ]
    }));
    for path in [OPENAI, ANTHROPIC, OPENAI] {
        assert_eq!(status_of(&lab, path, None).await, 503);
    }
    tokio::time::sleep(Duration::from_millis(350)).await;
    assert_eq!(
        status_of(&lab, OPENAI, None).await,
        429,
        "step 0 is still there"
    );
    assert_eq!(status_of(&lab, OPENAI, None).await, 200);
    tokio::time::sleep(Duration::from_millis(550).saturating_sub(ms(&lab))).await;
    // The second outage has the default fault, `unavailable`.
    let r = call(&lab, ANTHROPIC, false, None, None).await.unwrap();
    assert_eq!(r.status, 503);
    assert_eq!(anthropic_error(&r)["type"], "api_error");
    let sources: Vec<Source> = lab.log().iter().map(|e| e.source).collect();
    use Source::*;
    assert_eq!(sources, [Outage, Outage, Outage, Step, Then, Outage]);
    assert!(lab.log()[3].ms >= 300);
}

/// Milliseconds since the lab's script was loaded, as the log's clock sees it (approximately:
/// the last entry's stamp).
fn ms(lab: &retry_lab::LabHandle) -> Duration {
    Duration::from_millis(lab.log().last().map_or(0, |e| e.ms))
}

#[tokio::test]
async fn override_header_wins_over_everything_and_consumes_nothing() {
    let lab = lab(json!({
        "steps": [{"fault": "server_error"}],
        "outages": [{"start_s": 0, "duration_s": 30, "fault": {"fault": "overloaded"}}],
        "rate_limit_per_key": {"requests": 1, "window_s": 30}
    }));
    let k = Some("sk-override-key-1");
    for _ in 0..2 {
        let r = call(&lab, OPENAI, false, Some(r#"{"fault":"ok"}"#), k)
            .await
            .unwrap();
        assert_eq!(r.status, 200);
    }
    let r = call(&lab, ANTHROPIC, false, Some("unauthorized"), k)
        .await
        .unwrap();
    assert_eq!(r.status, 401);
    // Without the header the outage is back.
    assert_eq!(status_of(&lab, ANTHROPIC, k).await, 529);
    assert!(lab.log()[..3].iter().all(|e| e.source == Source::Override));

    // After the outage (a new script), the step and the rate limit were untouched.
    lab.set_script(
        Script::from_value(json!({
            "steps": [{"fault": "server_error"}],
            "rate_limit_per_key": {"requests": 1, "window_s": 30}
        }))
        .unwrap(),
    );
    let _ = call(&lab, OPENAI, false, Some("ok"), k).await.unwrap();
    assert_eq!(
        status_of(&lab, OPENAI, k).await,
        500,
        "step 0, admitted by the limiter"
    );
    assert_eq!(status_of(&lab, OPENAI, k).await, 429, "limiter full");
}

#[tokio::test]
async fn bad_override_is_a_lab_error() {
    let lab = lab(json!({"steps": [{"fault": "overloaded"}]}));
    let r = call(&lab, OPENAI, false, Some(r#"{"fault":"teapot"}"#), None)
        .await
        .unwrap();
    assert_eq!(r.status, 400);
    assert!(r.json()["lab_error"]
        .as_str()
        .unwrap()
        .contains("x-lab-fault"));
    assert_eq!(lab.log()[0].fault, "bad_override");
    assert_eq!(
        status_of(&lab, OPENAI, None).await,
        503,
        "the step was not consumed"
    );
}

#[tokio::test]
async fn per_key_rate_limit() {
    let lab = lab(json!({"rate_limit_per_key": {"requests": 2, "window_s": 0.4}}));
    let (a, b) = (Some("sk-key-aaaaaaaa"), Some("sk-key-bbbbbbbb"));
    assert_eq!(status_of(&lab, OPENAI, a).await, 200);
    assert_eq!(status_of(&lab, ANTHROPIC, a).await, 200);
    let r = call(&lab, OPENAI, false, None, a).await.unwrap();
    assert_eq!(r.status, 429);
    assert_eq!(
        r.header("retry-after"),
        Some("1"),
        "computed: window left, rounded up"
    );
    assert_eq!(openai_error(&r)["code"], "rate_limit_exceeded");
    let r = call(&lab, ANTHROPIC, false, None, a).await.unwrap();
    assert_eq!(r.status, 429);
    assert_eq!(anthropic_error(&r)["type"], "rate_limit_error");
    // Another key has its own window.
    assert_eq!(status_of(&lab, OPENAI, b).await, 200);
    // The window slides: rejected requests did not count.
    tokio::time::sleep(Duration::from_millis(450)).await;
    assert_eq!(status_of(&lab, OPENAI, a).await, 200);
    let sources: Vec<Source> = lab.log().iter().map(|e| e.source).collect();
    use Source::*;
    assert_eq!(
        sources,
        [Then, Then, RateLimitPerKey, RateLimitPerKey, Then, Then]
    );

    // A fixed retry_after; requests without a key share one bucket.
    lab.set_script(
        Script::from_value(
            json!({"rate_limit_per_key": {"requests": 1, "window_s": 10, "retry_after": 7}}),
        )
        .unwrap(),
    );
    assert_eq!(status_of(&lab, OPENAI, None).await, 200);
    let r = call(&lab, ANTHROPIC, false, None, None).await.unwrap();
    assert_eq!((r.status, r.header("retry-after")), (429, Some("7")));
}

#[tokio::test]
async fn log_never_holds_a_full_key() {
    let lab = lab(json!({"steps": [{"fault": "unauthorized"}]}));
    let keys = [
        "sk-proj-SECRETSECRET-1a2b",
        "sk-ant-api03-SECRETSECRET-9z8y",
        "azure-SECRETSECRET-7q7q",
        "short",
    ];
    let c = client();
    c.post(lab.url(OPENAI))
        .bearer_auth(keys[0])
        .json(&body(OPENAI, false))
        .send()
        .await
        .unwrap();
    c.post(lab.url(ANTHROPIC))
        .header("x-api-key", keys[1])
        .json(&body(ANTHROPIC, true))
        .send()
        .await
        .unwrap();
    c.post(lab.url(OPENAI))
        .header("api-key", keys[2])
        .json(&body(OPENAI, true))
        .send()
        .await
        .unwrap();
    c.post(lab.url(OPENAI))
        .bearer_auth(keys[3])
        .json(&body(OPENAI, false))
        .send()
        .await
        .unwrap();
    c.post(lab.url(OPENAI))
        .json(&body(OPENAI, false))
        .send()
        .await
        .unwrap();

    let raw = c
        .get(lab.url("/_lab/log"))
        .send()
        .await
        .unwrap()
        .text()
        .await
        .unwrap();
    for k in keys {
        assert!(!raw.contains(k), "full key {k} in the log: {raw}");
    }
    assert!(!raw.contains("SECRET"), "{raw}");
    let log: Vec<Value> = serde_json::from_str(&raw).unwrap();
    let last4: Vec<Value> = log.iter().map(|e| e["key_last4"].clone()).collect();
    assert_eq!(
        last4,
        [
            json!("1a2b"),
            json!("9z8y"),
            json!("7q7q"),
            json!("****"),
            Value::Null
        ]
    );
    for (e, seq) in log.iter().zip(1..) {
        assert_eq!(e["seq"], seq);
        assert!(e["ms"].is_u64() && e["path"].is_string() && e["fault"].is_string());
    }
    assert_eq!(log[0]["fault"], "unauthorized");
    assert_eq!(log[0]["status"], 401);
    assert_eq!(log[1]["stream"], true);
    // The error bodies do not echo the key either.
    let r = call(&lab, OPENAI, false, Some("unauthorized"), Some(keys[0]))
        .await
        .unwrap();
    assert!(!r.text.contains("SECRET"));
}

#[tokio::test]
async fn control_endpoints() {
    let lab = lab(json!({}));
    let c = client();
    let get = |p: &str| c.get(lab.url(p)).send();
    assert_eq!(get("/_lab/health").await.unwrap().status(), 200);

    let script = json!({"steps": [{"fault": "overloaded"}, {"fault": "ok"}], "then": {"fault": "unavailable"}});
    let r = c
        .post(lab.url("/_lab/script"))
        .json(&script)
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert_eq!(r.json::<Value>().await.unwrap()["steps"], 2);
    assert_eq!(
        get("/_lab/script")
            .await
            .unwrap()
            .json::<Value>()
            .await
            .unwrap(),
        script
    );

    assert_eq!(status_of(&lab, ANTHROPIC, None).await, 529);
    assert_eq!(status_of(&lab, ANTHROPIC, None).await, 200);
    assert_eq!(status_of(&lab, ANTHROPIC, None).await, 503);

    // A bad script is refused and the current one stays.
    for bad in [
        json!({"steps": [{"fault": "rate_limit", "retry-after": 1}]}),
        json!({"steps": [{"fault": "nope"}]}),
        json!({"outages": [{"start_s": 0, "duration_s": 0}]}),
        json!({"rate_limit_per_key": {"requests": 0, "window_s": 1}}),
    ] {
        let r = c
            .post(lab.url("/_lab/script"))
            .json(&bad)
            .send()
            .await
            .unwrap();
        assert_eq!(r.status(), 400, "{bad}");
        assert!(r.json::<Value>().await.unwrap()["lab_error"].is_string());
    }
    assert_eq!(lab.log().len(), 3);

    // Reset: counters, clock and log restart; the script stays.
    assert_eq!(
        c.post(lab.url("/_lab/reset"))
            .send()
            .await
            .unwrap()
            .status(),
        200
    );
    assert!(get("/_lab/log")
        .await
        .unwrap()
        .json::<Vec<Value>>()
        .await
        .unwrap()
        .is_empty());
    assert_eq!(status_of(&lab, OPENAI, None).await, 503);
    assert_eq!(lab.log()[0].seq, 1);

    // Loading a script resets too; an empty body loads the empty script.
    let r = c
        .post(lab.url("/_lab/script"))
        .body("")
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 200);
    assert!(lab.log().is_empty());
    assert_eq!(status_of(&lab, OPENAI, None).await, 200);

    // Unknown paths: a provider-style 404, logged, nothing consumed.
    lab.set_script(Script {
        steps: vec![Fault::new(FaultKind::ServerError)],
        ..Script::default()
    });
    let r = c
        .post(lab.url("/v1/v1/chat/completions"))
        .json(&json!({}))
        .send()
        .await
        .unwrap();
    assert_eq!(r.status(), 404);
    assert_eq!(lab.log()[0].fault, "not_found");
    assert_eq!(status_of(&lab, OPENAI, None).await, 500);
    assert_eq!(get("/_lab/nothing").await.unwrap().status(), 404);
}

#[tokio::test]
async fn handle_reset_restarts_steps_and_clock() {
    let lab = lab(
        json!({"steps": [{"fault": "server_error"}], "outages": [{"start_s": 0.2, "duration_s": 5}]}),
    );
    assert_eq!(status_of(&lab, OPENAI, None).await, 500);
    tokio::time::sleep(Duration::from_millis(250)).await;
    assert_eq!(status_of(&lab, OPENAI, None).await, 503);
    lab.reset();
    assert_eq!(
        status_of(&lab, OPENAI, None).await,
        500,
        "step 0 again, before the outage"
    );
    assert_eq!(lab.log().len(), 1);
}
