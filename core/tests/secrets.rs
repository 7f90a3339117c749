//! No secret leaves the engine (CONTRACT §4): every shared vector's failure (classify.json,
//! should_retry.json, policies.json) is replayed with API keys and tokens planted into its
//! message, body and headers, through classification, every preset's decisions (and the
//! policies.json sequences with their own policy), and the error text. Nothing that comes out
//! (`Decision.events` as JSON, `text::error_message`) may contain any piece of a secret.

use std::path::PathBuf;

use retry_core::__private::machine::Retrier;
use retry_core::__private::messages::error_message;
use retry_core::{classify, Action, Failure, RetryPolicy};
use serde_json::Value;

/// A planted secret: its whole text and its random part (a leak of any 12 characters of the
/// random part counts).
struct Secret {
    whole: &'static str,
    random: &'static str,
}

const OPENAI_PROJECT: Secret = Secret {
    whole: "sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP",
    random: "Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP",
};
const OPENAI_LEGACY: Secret = Secret {
    whole: "sk-T3BlbkFJa8Zq2Xw9Vn5Lm1Kp7Jr4Hs6Gt0Fu3Ed8Cy2Bx5Aw9Zv1",
    random: "T3BlbkFJa8Zq2Xw9Vn5Lm1Kp7Jr4Hs6Gt0Fu3Ed8Cy2Bx5Aw9Zv1",
};
const ANTHROPIC: Secret = Secret {
    whole: "sk-ant-api03-Zr8_Yq2-Xp5Wo9Vn3Um7Tl1Sk4Rj6Qi0Ph2Og8Nf5Me9Ld3Kc7Jb1Ia4Hz6Gy0Fx2Ew8Dv5Cu9Bt3As7Zr1Yq4Xp6Wo0Vn2Um8Tl5Sk9Rj3AA",
    random: "Zr8_Yq2-Xp5Wo9Vn3Um7Tl1Sk4Rj6Qi0Ph2Og8Nf5Me9Ld3Kc7Jb1Ia4Hz6Gy0Fx2Ew8Dv5Cu9Bt3As7Zr1Yq4Xp6Wo0Vn2Um8Tl5Sk9Rj3AA",
};
const JWT: Secret = Secret {
    whole: "eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyXzQ4MjkiLCJpYXQiOjE3OTUzNDg4MDB9.Kq3mX9vB2nW7cR5tY1pL8zD4fH6jG0sA-_Qe",
    random: "eyJzdWIiOiJ1c2VyXzQ4MjkiLCJpYXQiOjE3OTUzNDg4MDB9.Kq3mX9vB2nW7cR5tY1pL8zD4fH6jG0sA-_Qe",
};
/// A key with no recognisable shape of its own: only its `x-api-key` name gives it away.
const API_KEY_VALUE: Secret = Secret {
    whole: "xak_Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1",
    random: "Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1",
};
const AWS: Secret = Secret {
    whole: "AKIAQ3EXAMPLE7KEYZ2W",
    random: "AKIAQ3EXAMPLE7KEYZ2W",
};
const GOOGLE: Secret = Secret {
    whole: "AIzaSyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq",
    random: "SyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq",
};

const SECRETS: [&Secret; 7] = [
    &OPENAI_PROJECT,
    &OPENAI_LEGACY,
    &ANTHROPIC,
    &JWT,
    &API_KEY_VALUE,
    &AWS,
    &GOOGLE,
];

/// Three ways each secret turns up in real error texts: provider messages, echoed request
/// headers (HTTP, Python and Ruby reprs, Python bytes), query strings, JSON, JSON escaped inside
/// a JSON string (a serialized body quoted in an exception message) and SDK configuration dumps.
fn planted(variant: usize) -> String {
    let (op, ol, an, jwt, key, aws, g) = (
        OPENAI_PROJECT.whole,
        OPENAI_LEGACY.whole,
        ANTHROPIC.whole,
        JWT.whole,
        API_KEY_VALUE.whole,
        AWS.whole,
        GOOGLE.whole,
    );
    match variant {
        0 => format!(
            "Incorrect API key provided: {op}. Retried with {ol}; \
             x-api-key: {an}; Authorization: Bearer {jwt}; x-api-key: {key}; \
             aws_access_key_id={aws}; https://example.invalid/v1/models?key={g}&alt=sse \
             {{\"x-api-key\": \"{key}\"}}"
        ),
        1 => format!(
            "request headers {{'authorization': 'Bearer {jwt}', 'x-api-key': '{key}', \
             'api-key': '{ol}'}} body {{\"api_key\": \"{op}\", \"anthropic_api_key\": \"{an}\"}} \
             Credential={aws}/20261122/us-east-1/bedrock/aws4_request x-goog-api-key={g} \
             {{b'x-api-key': b'{key}'}} {g}{aws} key_{aws}_old Bearer {jwt}_Bearer {jwt} \
             invalid token: {jwt} set MISTRAL_API_KEY={key} or {aws}Bearer {jwt}"
        ),
        _ => format!(
            "{{\"X-Api-Key\" => \"{key}\", \"Authorization\" => \"bearer {jwt}\"}} \
             (key: {an}) [{op}] <{ol}> AccessKeyId:{aws}, key='{g}'\nBearer\t{jwt} \
             {{\"detail\": \"{{\\\"api_key\\\":\\\"{key}\\\"}}\"}}"
        ),
    }
}

/// `f` with secrets in its message, its body (inside a JSON error message when it has one) and
/// its headers.
fn plant(f: &Failure, variant: usize) -> Failure {
    let secret = planted(variant);
    let mut f = f.clone();
    f.message = format!("{} | {secret}", f.message);
    f.body = Some(match f.body.as_deref().map(serde_json::from_str::<Value>) {
        Some(Ok(mut v)) => {
            match v.pointer_mut("/error/message") {
                Some(Value::String(m)) => m.push_str(&format!(" {secret}")),
                _ => {
                    if let Value::Object(o) = &mut v {
                        o.insert("leak".into(), Value::from(secret.clone()));
                    }
                }
            }
            v.to_string()
        }
        Some(Err(_)) => format!("{} {secret}", f.body.as_deref().unwrap()),
        None => secret.clone(),
    });
    f.headers
        .insert("authorization", format!("Bearer {}", JWT.whole));
    f.headers.insert("x-api-key", ANTHROPIC.whole);
    f.headers.insert("api-key", API_KEY_VALUE.whole);
    f.headers.insert("x-goog-api-key", GOOGLE.whole);
    f
}

/// The first piece of a secret found in `text`, if any.
fn leaked(text: &str) -> Option<String> {
    for s in SECRETS {
        if text.contains(s.whole) {
            return Some(s.whole.to_owned());
        }
        let r = s.random.as_bytes();
        for w in r.windows(12) {
            let w = std::str::from_utf8(w).unwrap();
            if text.contains(w) {
                return Some(format!("{w} (of {})", s.whole));
            }
        }
    }
    None
}

fn vectors(name: &str) -> Value {
    let path = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("../tests/vectors")
        .join(name);
    serde_json::from_str(&std::fs::read_to_string(path).unwrap()).unwrap()
}

/// Everything a failure makes the engine say: its error text and every event of every
/// preset's decision on it (recoveries reported as done, so their events appear too).
fn outputs(f: &Failure) -> Vec<String> {
    let c = classify(f);
    let mut out = vec![error_message(f, &c)];
    for name in retry_core::__private::policy::PRESETS {
        let mut r = Retrier::new(RetryPolicy::preset(name).unwrap())
            .with_seed(1)
            .with_context_hook(true);
        let mut d = r.on_failure(f, 0.0);
        out.extend(d.events.iter().map(|e| e.to_json().to_string()));
        d = match d.action {
            Action::PruneOrphans => r.on_orphans_pruned(1, f, 0.0),
            Action::CompactContext => r.on_context_compacted(true, f, 0.0),
            _ => continue,
        };
        out.extend(d.events.iter().map(|e| e.to_json().to_string()));
    }
    out
}

fn check(what: &str, texts: &[String], leaks: &mut Vec<String>) {
    for t in texts {
        if let Some(piece) = leaked(t) {
            leaks.push(format!("{what}: {piece} in {t}"));
        }
    }
}

fn failures_of(doc: &Value) -> Vec<(String, Failure)> {
    doc["cases"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| {
            let f = serde_json::from_value(c["failure"].clone()).unwrap();
            (c["name"].as_str().unwrap().to_owned(), f)
        })
        .collect()
}

#[test]
fn the_planting_is_seen_by_the_checker() {
    // Guards the test itself: unscrubbed, every secret is found.
    for v in 0..3 {
        let p = planted(v);
        for s in SECRETS {
            assert!(p.contains(s.whole), "variant {v} lacks {}", s.whole);
        }
        assert!(leaked(&p).is_some());
    }
}

#[test]
fn classification_vectors_leak_no_secret() {
    let mut leaks = Vec::new();
    let mut seen = 0;
    for file in ["classify.json", "should_retry.json"] {
        // Each record gets one of the three plantings in turn (all three: 3x the time, no
        // new path: the engine reads the message the same way whatever the planting).
        for (i, (name, f)) in failures_of(&vectors(file)).into_iter().enumerate() {
            let v = i % 3;
            check(
                &format!("{file} {name} #{v}"),
                &outputs(&plant(&f, v)),
                &mut leaks,
            );
            seen += 1;
        }
    }
    assert!(seen > 100, "only {seen} planted failures");
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}

#[test]
fn policy_sequences_leak_no_secret() {
    let doc = vectors("policies.json");
    let mut leaks = Vec::new();
    for case in doc["cases"].as_array().unwrap() {
        let name = case["name"].as_str().unwrap();
        for v in 0..3 {
            let policy = RetryPolicy::from_config(&case["policy"].to_string()).unwrap();
            let mut r = Retrier::new(policy)
                .with_seed(case["seed"].as_u64().unwrap_or(0))
                .with_context_hook(case["context_hook"].as_bool().unwrap_or(false));
            let mut last: Option<Failure> = None;
            let mut texts = Vec::new();
            for step in case["steps"].as_array().unwrap() {
                let elapsed = step["elapsed"].as_f64().unwrap_or(0.0);
                let d = if let Some(f) = step.get("failure") {
                    let f = plant(&serde_json::from_value(f.clone()).unwrap(), v);
                    texts.extend(outputs(&f));
                    let d = r.on_failure(&f, elapsed);
                    last = Some(f);
                    d
                } else if let Some(n) = step.get("pruned") {
                    let n = n.as_u64().unwrap() as usize;
                    r.on_orphans_pruned(n, last.as_ref().unwrap(), elapsed)
                } else {
                    let ok = step["compacted"].as_bool().unwrap();
                    r.on_context_compacted(ok, last.as_ref().unwrap(), elapsed)
                };
                texts.extend(d.events.iter().map(|e| e.to_json().to_string()));
                texts.push(error_message(last.as_ref().unwrap(), &d.classification));
            }
            check(&format!("policies.json {name} #{v}"), &texts, &mut leaks);
        }
    }
    assert!(
        leaks.is_empty(),
        "{} leaks:\n{}",
        leaks.len(),
        leaks.join("\n")
    );
}
