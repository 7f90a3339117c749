//! Reading a provider's error body: the error type/code names and the message, whatever the
//! provider's envelope looks like.

use serde_json::Value;

/// Bodies above this size are not parsed as JSON (only their head is scanned as text).
pub const MAX_JSON_BODY: usize = 1 << 20;

/// What a provider's error body says.
#[derive(Debug, Default)]
pub struct ProviderError {
    /// Codes and type names in order of specificity (e.g. `innererror.code`, `code`, `type`).
    pub codes: Vec<String>,
    /// A numeric code inside the body (Gemini `error.code`, OpenRouter, vLLM), used as a status
    /// when the failure carried none.
    pub numeric_code: Option<u16>,
    pub message: Option<String>,
    /// The body had an error envelope at all (an SSE `error` event, `{"error": ...}`).
    pub has_error: bool,
}

pub fn push_code(out: &mut ProviderError, v: Option<&Value>) {
    match v {
        Some(Value::String(s)) if !s.is_empty() => {
            // AWS: "ThrottlingException:http://internal.amazon.com/coral/..." or "com.amazon#X".
            let s = s.split(':').next().unwrap_or(s);
            let s = s.rsplit('#').next().unwrap_or(s);
            out.codes.push(s.to_ascii_lowercase());
        }
        Some(Value::Number(n)) => {
            if let Some(n) = n.as_u64().filter(|n| (100..=599).contains(n)) {
                out.numeric_code.get_or_insert(n as u16);
            }
        }
        _ => {}
    }
}

fn message_of(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str).map(str::to_owned)
}

/// Parses `body` if it is a JSON error envelope. Returns `None` for non-JSON bodies.
pub fn parse(body: &str) -> Option<ProviderError> {
    let trimmed = body.trim_start();
    if body.len() > MAX_JSON_BODY || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    let mut v: Value = serde_json::from_str(trimmed).ok()?;
    // Gemini sometimes wraps the envelope in a one-element array.
    if let Value::Array(items) = &mut v {
        v = items.first().cloned()?;
    }
    let obj = v.as_object()?;
    let mut out = ProviderError::default();
    match obj.get("error") {
        Some(Value::Object(err)) => {
            out.has_error = true;
            if let Some(Value::Object(inner)) = err.get("innererror") {
                push_code(&mut out, inner.get("code"));
            }
            push_code(&mut out, err.get("code"));
            push_code(&mut out, err.get("type"));
            push_code(&mut out, err.get("status"));
            out.message = message_of(err.get("message"));
        }
        // Ollama: {"error": "model 'x' not found"}
        Some(Value::String(s)) => {
            out.has_error = true;
            out.message = Some(s.clone());
        }
        _ => {}
    }
    push_code(&mut out, obj.get("__type"));
    push_code(&mut out, obj.get("code"));
    // Anthropic's envelope has "type": "error"; vLLM's has "object": "error", "type": "BadRequestError".
    match obj.get("type").and_then(Value::as_str) {
        Some("error") => out.has_error = true,
        Some(_) => push_code(&mut out, obj.get("type")),
        None => {}
    }
    if obj.get("object").and_then(Value::as_str) == Some("error") || obj.contains_key("__type") {
        out.has_error = true;
    }
    // Gemini safety blocks arrive in a 200 body.
    if let Some(reason) = obj.get("promptFeedback").and_then(|f| f.get("blockReason")) {
        push_code(&mut out, Some(reason));
    }
    if let Some(Value::Array(cands)) = obj.get("candidates") {
        for c in cands {
            if let Some(r @ Value::String(s)) = c.get("finishReason") {
                if s != "STOP" && s != "MAX_TOKENS" {
                    push_code(&mut out, Some(r));
                }
            }
        }
    }
    if out.message.is_none() {
        out.message = message_of(obj.get("message")).or_else(|| message_of(obj.get("Message")));
    }
    Some(out)
}
