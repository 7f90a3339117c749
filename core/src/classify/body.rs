//! Reading a provider's error body: the error type/code names and the message, whatever the
//! provider's envelope looks like.

use serde_json::Value;

/// Bodies above this size are not parsed as JSON (only their head is scanned as text).
pub const MAX_JSON_BODY: usize = 1 << 20;

/// What a provider's error body says.
#[derive(Debug, Default)]
pub struct ProviderError<'a> {
    /// Codes and type names in order of specificity (e.g. `innererror.code`, `code`, `type`).
    pub codes: Vec<String>,
    /// A numeric code inside the body (Gemini `error.code`, OpenRouter, vLLM), used as a status
    /// when the failure carried none.
    pub numeric_code: Option<u16>,
    pub message: Option<std::borrow::Cow<'a, str>>,
    /// The body had an error envelope at all (an SSE `error` event, `{"error": ...}`).
    pub has_error: bool,
}

/// A code as the tables spell it: lower case, without AWS's namespace ("com.amazon#X") or
/// documentation suffix ("X:http://internal.amazon.com/...").
fn normalize_code(s: &str) -> String {
    let b = s.as_bytes();
    let end = b.iter().position(|c| *c == b':').unwrap_or(b.len());
    let start = b[..end]
        .iter()
        .rposition(|c| *c == b'#')
        .map_or(0, |i| i + 1);
    s[start..end].to_ascii_lowercase()
}

pub fn push_code(out: &mut ProviderError<'_>, v: Option<&Value>) {
    match v {
        Some(Value::String(s)) if !s.is_empty() => out.codes.push(normalize_code(s)),
        Some(Value::Number(n)) => {
            if let Some(n) = n.as_u64().filter(|n| (100..=599).contains(n)) {
                out.numeric_code.get_or_insert(n as u16);
            }
        }
        _ => {}
    }
}

fn message_of(v: Option<&Value>) -> Option<std::borrow::Cow<'static, str>> {
    v.and_then(Value::as_str)
        .map(|s| std::borrow::Cow::Owned(s.to_owned()))
}

/// Parses `body` if it is a JSON error envelope. Returns `None` for non-JSON bodies.
pub fn parse(body: &str) -> Option<ProviderError<'_>> {
    let trimmed = body.trim_start();
    if body.len() > MAX_JSON_BODY || !(trimmed.starts_with('{') || trimmed.starts_with('[')) {
        return None;
    }
    // Fast path: borrow the few fields we read, skip the rest. The generic path below handles
    // what the typed one refuses (duplicate keys, odd shapes).
    if let Some(p) = typed::parse(trimmed) {
        return Some(p);
    }
    parse_value(trimmed)
}

fn parse_value(trimmed: &str) -> Option<ProviderError<'static>> {
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
            out.message = Some(std::borrow::Cow::Owned(s.clone()));
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

/// Typed, borrowing deserialisation of the envelope fields the classifier reads.
mod typed {
    use std::borrow::Cow;
    use std::fmt;

    use serde::de::{
        self, value::MapAccessDeserializer, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
    };
    use serde::Deserialize;

    use super::{normalize_code, ProviderError};

    /// A string or a number; any other shape is skipped.
    #[derive(Default)]
    pub enum Scalar<'a> {
        Str(Cow<'a, str>),
        Num(u64),
        #[default]
        Other,
    }

    struct ScalarVisitor;

    impl<'de> Visitor<'de> for ScalarVisitor {
        type Value = Scalar<'de>;
        fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
            f.write_str("any JSON value")
        }
        fn visit_borrowed_str<E>(self, v: &'de str) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Borrowed(v)))
        }
        fn visit_str<E>(self, v: &str) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Owned(v.to_owned())))
        }
        fn visit_string<E>(self, v: String) -> Result<Self::Value, E> {
            Ok(Scalar::Str(Cow::Owned(v)))
        }
        fn visit_u64<E>(self, v: u64) -> Result<Self::Value, E> {
            Ok(Scalar::Num(v))
        }
        fn visit_i64<E>(self, v: i64) -> Result<Self::Value, E> {
            Ok(u64::try_from(v).map_or(Scalar::Other, Scalar::Num))
        }
        fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_unit<E>(self) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_none<E>(self) -> Result<Self::Value, E> {
            Ok(Scalar::Other)
        }
        fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Self::Value, D::Error> {
            d.deserialize_any(self)
        }
        fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
            while seq.next_element::<IgnoredAny>()?.is_some() {}
            Ok(Scalar::Other)
        }
        fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Self::Value, A::Error> {
            while map.next_entry::<IgnoredAny, IgnoredAny>()?.is_some() {}
            Ok(Scalar::Other)
        }
    }

    impl<'de: 'a, 'a> Deserialize<'de> for Scalar<'a> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            d.deserialize_any(ScalarVisitor)
        }
    }

    #[derive(Deserialize, Default)]
    pub struct Inner<'a> {
        #[serde(borrow, default)]
        code: Scalar<'a>,
    }

    #[derive(Deserialize, Default)]
    pub struct ErrObj<'a> {
        #[serde(borrow, default)]
        innererror: Option<Inner<'a>>,
        #[serde(borrow, default)]
        code: Scalar<'a>,
        #[serde(borrow, default, rename = "type")]
        kind: Scalar<'a>,
        #[serde(borrow, default)]
        status: Scalar<'a>,
        #[serde(borrow, default)]
        message: Scalar<'a>,
    }

    /// `"error"` is an object (most providers) or a string (Ollama).
    pub enum ErrorField<'a> {
        Obj(ErrObj<'a>),
        Str(Cow<'a, str>),
        Other,
    }

    impl<'de: 'a, 'a> Deserialize<'de> for ErrorField<'a> {
        fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
            struct V;
            impl<'de> Visitor<'de> for V {
                type Value = ErrorField<'de>;
                fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                    f.write_str("an error object or string")
                }
                fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                    ErrObj::deserialize(MapAccessDeserializer::new(map)).map(ErrorField::Obj)
                }
                fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                    Ok(ErrorField::Str(Cow::Borrowed(v)))
                }
                fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                    Ok(ErrorField::Str(Cow::Owned(v.to_owned())))
                }
                fn visit_unit<E>(self) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                    Ok(ErrorField::Other)
                }
                fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                    while seq.next_element::<IgnoredAny>()?.is_some() {}
                    Ok(ErrorField::Other)
                }
            }
            d.deserialize_any(V)
        }
    }

    #[derive(Deserialize, Default)]
    pub struct Feedback<'a> {
        #[serde(borrow, default, rename = "blockReason")]
        block_reason: Scalar<'a>,
    }

    #[derive(Deserialize, Default)]
    pub struct Candidate<'a> {
        #[serde(borrow, default, rename = "finishReason")]
        finish_reason: Scalar<'a>,
    }

    #[derive(Deserialize, Default)]
    pub struct Envelope<'a> {
        #[serde(borrow, default)]
        error: Option<ErrorField<'a>>,
        #[serde(borrow, default, rename = "__type")]
        aws_type: Scalar<'a>,
        #[serde(borrow, default)]
        code: Scalar<'a>,
        #[serde(borrow, default, rename = "type")]
        kind: Scalar<'a>,
        #[serde(borrow, default)]
        object: Scalar<'a>,
        #[serde(borrow, default)]
        message: Scalar<'a>,
        #[serde(borrow, default, rename = "Message")]
        message_aws: Scalar<'a>,
        #[serde(borrow, default, rename = "promptFeedback")]
        prompt_feedback: Option<Feedback<'a>>,
        #[serde(borrow, default)]
        candidates: Option<Vec<Candidate<'a>>>,
    }

    fn push(out: &mut ProviderError<'_>, s: &Scalar) {
        match s {
            Scalar::Str(v) if !v.is_empty() => out.codes.push(normalize_code(v)),
            Scalar::Num(n) if (100..=599).contains(n) => {
                out.numeric_code.get_or_insert(*n as u16);
            }
            _ => {}
        }
    }

    fn text<'a>(s: &Scalar<'a>) -> Option<Cow<'a, str>> {
        match s {
            Scalar::Str(v) => Some(v.clone()),
            _ => None,
        }
    }

    pub fn parse(body: &str) -> Option<ProviderError<'_>> {
        let env: Envelope = if body.starts_with('[') {
            serde_json::from_str::<Vec<Envelope>>(body)
                .ok()?
                .into_iter()
                .next()?
        } else {
            serde_json::from_str(body).ok()?
        };
        let mut out = ProviderError::default();
        match &env.error {
            Some(ErrorField::Obj(e)) => {
                out.has_error = true;
                if let Some(inner) = &e.innererror {
                    push(&mut out, &inner.code);
                }
                push(&mut out, &e.code);
                push(&mut out, &e.kind);
                push(&mut out, &e.status);
                out.message = text(&e.message);
            }
            Some(ErrorField::Str(s)) => {
                out.has_error = true;
                out.message = Some(s.clone());
            }
            _ => {}
        }
        push(&mut out, &env.aws_type);
        push(&mut out, &env.code);
        match &env.kind {
            Scalar::Str(k) if k == "error" => out.has_error = true,
            other => push(&mut out, other),
        }
        if matches!(&env.object, Scalar::Str(o) if o == "error")
            || matches!(env.aws_type, Scalar::Str(_))
        {
            out.has_error = true;
        }
        if let Some(f) = &env.prompt_feedback {
            push(&mut out, &f.block_reason);
        }
        for c in env.candidates.iter().flatten() {
            if let Scalar::Str(r) = &c.finish_reason {
                if r != "STOP" && r != "MAX_TOKENS" {
                    push(&mut out, &c.finish_reason);
                }
            }
        }
        if out.message.is_none() {
            out.message = text(&env.message).or_else(|| text(&env.message_aws));
        }
        Some(out)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The typed fast path and the generic path read the same envelopes the same way.
    #[test]
    fn typed_and_generic_paths_agree() {
        let bodies = [
            r#"{"error":{"message":"m","type":"insufficient_quota","param":null,"code":"insufficient_quota"}}"#,
            r#"{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}"#,
            r#"[{"error":{"code":429,"message":"x","status":"RESOURCE_EXHAUSTED"}}]"#,
            r#"{"__type":"com.amazon.coral#ThrottlingException","message":"Rate exceeded"}"#,
            r#"{"error":{"code":"content_filter","innererror":{"code":"ResponsibleAIPolicyViolation"},"message":"x"}}"#,
            r#"{"error":"model 'x' not found"}"#,
            r#"{"object":"error","message":"too long","type":"BadRequestError","code":400}"#,
            r#"{"promptFeedback":{"blockReason":"SAFETY"}}"#,
            r#"{"candidates":[{"finishReason":"SAFETY"}]}"#,
            r#"{"error":{"code":402,"message":"Insufficient credits","metadata":{"a":[1,2]}}}"#,
            r#"{"error": null, "message": 5}"#,
        ];
        for b in bodies {
            let fast = typed::parse(b).unwrap();
            let slow = parse_value(b).unwrap();
            assert_eq!(fast.codes, slow.codes, "{b}");
            assert_eq!(fast.numeric_code, slow.numeric_code, "{b}");
            assert_eq!(fast.message, slow.message, "{b}");
            assert_eq!(fast.has_error, slow.has_error, "{b}");
        }
    }
}
