//! Over-reach (issue 24): a redacted message must still read as the message. `scrub` of a text
//! with no secret in it must give the text back unchanged, word for word.
//!
//! Measured on real material nobody here wrote: every message and body of the public error
//! corpus (`tests/corpus/*.json`: provider errors quoted from issue threads, docs and SDK
//! tests; the keys in them are the providers' own masked ones, `sk-PMafP****E873`, which are
//! not secrets). First sight, with the scrubber before issue 24: 17 of 702 texts lost something
//! (`'[REDACTED]': 'invalid_request_error'` for `'type'`, `API key: [REDACTED]` for `None`,
//! masked keys, `ENV[`...). Then on ordinary texts of the kind the old scrubber mangled (12 of
//! the 19 of issue 24 lost a word).
//!
//! The figures: cargo test -p llm-retry-core --test secret_reach -- --nocapture

use std::path::PathBuf;

use retry_core::__private::scrub::scrub;
use serde_json::Value;

/// Every message and body of the public corpus, with its case name.
fn corpus_texts() -> Vec<(String, String)> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../tests/corpus");
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "json"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let doc: Value = serde_json::from_str(&std::fs::read_to_string(&f).unwrap()).unwrap();
        for c in doc["cases"].as_array().unwrap() {
            for field in ["message", "body"] {
                if let Some(t) = c["failure"][field].as_str() {
                    out.push((format!("{} {field}", c["name"]), t.to_owned()));
                }
            }
        }
    }
    out
}

/// Texts that `scrub` changed, with what it made of them.
fn changed(texts: &[(String, String)]) -> Vec<String> {
    texts
        .iter()
        .filter_map(|(name, t)| {
            let s = scrub(t);
            (s != t.as_str()).then(|| format!("{name}:\n  {t}\n  {s}"))
        })
        .collect()
}

#[test]
fn the_public_corpus_keeps_every_word() {
    let texts = corpus_texts();
    let lost = changed(&texts);
    println!(
        "over-reach, public corpus: {} of {} texts changed",
        lost.len(),
        texts.len()
    );
    assert!(texts.len() >= 700, "only {} corpus texts", texts.len());
    // The promise is below 1 in 20; the figure today is 0, and a regression fails here.
    assert!(
        lost.is_empty(),
        "{} of {} texts lost something:\n{}",
        lost.len(),
        texts.len(),
        lost.join("\n")
    );
}

/// Ordinary texts with the words the old scrubber took for credentials: a credential's name
/// followed by a word, a count, a masked key, an id, an identifier with `sk-` inside.
const ORDINARY: &[&str] = &[
    "Authentication uses Bearer tokens; send one in the Authorization header.",
    "Unexpected token: <!DOCTYPE html> is not valid JSON",
    "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
    "job task-A1B2C3D4-run failed after 3 attempts",
    "disk-cache-enabled-for-all and risk-assessment-failed",
    "Invalid token: expired",
    "token: 4096 exceeds the limit; max_tokens: 1500 is too large",
    "Error 400 with provider vertex API key: None: bad request",
    "Incorrect API key provided: sk-PMafP***************************************E873.",
    "Incorrect API key provided: xai-gfsT...",
    "Received API Key = sk-...abcd, Key Hash (Token) =1a2b3c.",
    "Please include the request ID fac8b65ed1c009c456a00410c4f6c376 in your email.",
    "{'message': 'Invalid API Key', 'type': 'invalid_request_error', 'code': 'invalid_api_key'}",
    "{\"error\":{\"code\":\"DeploymentNotFound\",\"message\":\"The API deployment does not exist.\"}}",
    "{'code': 'imagine:content-moderated', 'error': 'Generated image rejected'}",
    "config.anthropic_api_key = ENV['ANTHROPIC_API_KEY']",
    "Basic information about the request is unavailable",
    "password: must be at least 8 characters",
    "secret: not set; the SDK reads OPENAI_API_KEY",
    "The signature: invalid, check the clock skew",
    "Rate limit reached for gpt-4o in organization org-AbC123 on tokens per min (TPM): Limit 30000, Used 27904, Requested 5000.",
    "model claude-3-5-sonnet-20241022 v2 is overloaded, retry gpt-4o-2024-08-06 instead",
    "see https://platform.openai.com/account/api-keys and https://console.x.ai",
    "Failed to open TCP connection to api.openai.com:443 (Connection refused - connect(2))",
];

#[test]
fn ordinary_texts_keep_every_word() {
    let texts: Vec<(String, String)> = ORDINARY
        .iter()
        .enumerate()
        .map(|(i, t)| (format!("#{i}"), (*t).to_owned()))
        .collect();
    let lost = changed(&texts);
    println!(
        "over-reach, ordinary texts: {} of {} texts changed",
        lost.len(),
        texts.len()
    );
    assert!(lost.is_empty(), "{}", lost.join("\n"));
}

/// A secret in an ordinary text takes only itself: the words around it stay.
#[test]
fn a_redaction_takes_the_value_not_the_words_around_it() {
    for (text, expected) in [
        (
            "Use Bearer tokens: Authorization: Bearer Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1 was refused",
            "Use Bearer tokens: Authorization: Bearer [REDACTED] was refused",
        ),
        (
            "job task-A1B2C3D4-run used key sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6 and failed",
            "job task-A1B2C3D4-run used key [REDACTED] and failed",
        ),
        (
            "request ID fac8b65ed1c009c456a00410c4f6c376, key 0f1e2d3c4b5a69788796a5b4c3d2e1f0",
            "request ID fac8b65ed1c009c456a00410c4f6c376, key [REDACTED]",
        ),
        // Random-looking ids that the words before them name: a request (camelCase too), an
        // account. An unnamed run of the same shape is still a key.
        (
            "requestId='20250217055635krK1bwDl8hFQWAp0pk3w', then Xq7Hv2Lm9Pz4Kt8Nw1Ry3Bc6Df0Gh5Jk",
            "requestId='20250217055635krK1bwDl8hFQWAp0pk3w', then [REDACTED]",
        ),
        (
            "Not found for account 'Qawmu2vUw3rdcREnubcAVqe1c55nUTb1hCogKQx4BCA'",
            "Not found for account 'Qawmu2vUw3rdcREnubcAVqe1c55nUTb1hCogKQx4BCA'",
        ),
        // Runs that sit side by side in logs and pages are not the pieces of a split key: a
        // duration, Go's pointers, Tailwind's classes.
        (
            "model=hy4-preview 2857ms status=400 0xc00010a100 0xc0000e8420 text-2xl text-gray-600 key sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK",
            "model=hy4-preview 2857ms status=400 0xc00010a100 0xc0000e8420 text-2xl text-gray-600 key [REDACTED]",
        ),
        // A path and a protocol are not the pieces of a split key.
        (
            "\"GET /v1//models HTTP/1.1\" 404 key sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK",
            "\"GET /v1//models HTTP/1.1\" 404 key [REDACTED]",
        ),
    ] {
        assert_eq!(scrub(text), expected);
    }
}

/// A key planted at the end of every corpus text takes only itself: the rest of the text comes
/// back word for word, except that a text whose `\u`/`%` escapes could hide a key comes back
/// decoded (by design). Today: 702 texts, 0 otherwise changed, 5 decoded.
#[test]
fn a_planted_key_in_a_corpus_text_takes_only_itself() {
    let key = "sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9";
    let texts = corpus_texts();
    let (mut decoded, mut lost) = (0, Vec::new());
    for (name, t) in &texts {
        let out = scrub(&format!("{t} key {key}")).into_owned();
        if out != format!("{t} key [REDACTED]") {
            if t.contains("\\u") || t.contains('%') {
                decoded += 1;
            } else {
                lost.push(format!("{name}:\n  {t}\n  {out}"));
            }
        }
    }
    println!(
        "over-reach beside a planted key: {} of {} texts changed beyond the key ({decoded} more decoded)",
        lost.len(),
        texts.len()
    );
    assert!(lost.is_empty(), "{}", lost.join("\n"));
    assert!(decoded * 20 < texts.len(), "{decoded} texts decoded");
}
