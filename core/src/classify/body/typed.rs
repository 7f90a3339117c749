//! The envelope fields the classifier reads, deserialized straight from the body: strings are
//! borrowed where the JSON has no escapes, and every other field is skipped without being
//! built. About three times cheaper than a `serde_json::Value` of the same body (measured with
//! callgrind, see `body.rs`); the `Value` reader stays for what this one refuses (duplicate
//! keys, odd shapes), and both fill a `ProviderError` the same way.

use std::borrow::Cow;
use std::fmt;

use serde::de::{
    self, value::MapAccessDeserializer, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor,
};
use serde::Deserialize;

use super::{ProviderError, ScopedCode, MAX_NESTING};

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
pub struct Detail<'a> {
    #[serde(borrow, default)]
    reason: Scalar<'a>,
}

/// OpenRouter's `metadata.raw`: the upstream body as a string (JSON or not) or as an object.
pub enum Raw<'a> {
    Text(Cow<'a, str>),
    Envelope(Box<Envelope<'a>>),
    Other,
}

impl<'de: 'a, 'a> Deserialize<'de> for Raw<'a> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V;
        impl<'de> Visitor<'de> for V {
            type Value = Raw<'de>;
            fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
                f.write_str("an upstream body")
            }
            fn visit_map<A: MapAccess<'de>>(self, map: A) -> Result<Self::Value, A::Error> {
                Envelope::deserialize(MapAccessDeserializer::new(map))
                    .map(|e| Raw::Envelope(Box::new(e)))
            }
            fn visit_borrowed_str<E: de::Error>(self, v: &'de str) -> Result<Self::Value, E> {
                Ok(Raw::Text(Cow::Borrowed(v)))
            }
            fn visit_str<E: de::Error>(self, v: &str) -> Result<Self::Value, E> {
                Ok(Raw::Text(Cow::Owned(v.to_owned())))
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Self::Value, A::Error> {
                while seq.next_element::<IgnoredAny>()?.is_some() {}
                Ok(Raw::Other)
            }
            fn visit_u64<E>(self, _: u64) -> Result<Self::Value, E> {
                Ok(Raw::Other)
            }
            fn visit_i64<E>(self, _: i64) -> Result<Self::Value, E> {
                Ok(Raw::Other)
            }
            fn visit_f64<E>(self, _: f64) -> Result<Self::Value, E> {
                Ok(Raw::Other)
            }
            fn visit_bool<E>(self, _: bool) -> Result<Self::Value, E> {
                Ok(Raw::Other)
            }
            fn visit_unit<E>(self) -> Result<Self::Value, E> {
                Ok(Raw::Other)
            }
        }
        d.deserialize_any(V)
    }
}

#[derive(Deserialize, Default)]
pub struct Metadata<'a> {
    #[serde(borrow, default)]
    raw: Option<Raw<'a>>,
}

#[derive(Deserialize, Default)]
pub struct ErrObj<'a> {
    #[serde(borrow, default)]
    metadata: Option<Metadata<'a>>,
    /// (batch 34a) A relay's upstream error object (claude-code-hub), read as `metadata.raw`.
    #[serde(borrow, default)]
    upstream_error: Option<Box<Raw<'a>>>,
    #[serde(borrow, default)]
    innererror: Option<Inner<'a>>,
    #[serde(borrow, default)]
    code: Scalar<'a>,
    #[serde(borrow, default, rename = "type")]
    kind: Scalar<'a>,
    #[serde(borrow, default)]
    status: Scalar<'a>,
    #[serde(borrow, default)]
    details: Option<Vec<Detail<'a>>>,
    #[serde(borrow, default)]
    message: Scalar<'a>,
    #[serde(borrow, default)]
    param: Scalar<'a>,
    /// MiniMax's Anthropic-shaped envelope: the status as a string (`"http_code": "400"`).
    #[serde(borrow, default, alias = "httpcode")]
    http_code: Scalar<'a>,
}

/// `"error"` is an object (most providers) or a string (Ollama, TGI).
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

/// MiniMax `base_resp`, iFlytek `header`, Cloudflare `errors[]`: a provider's own code and
/// its message.
#[derive(Deserialize, Default)]
pub struct CodeMsg<'a> {
    #[serde(borrow, default, alias = "status_code")]
    code: Scalar<'a>,
    #[serde(borrow, default, alias = "status_msg")]
    message: Scalar<'a>,
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
    error_type: Scalar<'a>,
    #[serde(borrow, default)]
    error_code: Scalar<'a>,
    #[serde(borrow, default)]
    error_msg: Scalar<'a>,
    #[serde(borrow, default)]
    base_resp: Option<CodeMsg<'a>>,
    #[serde(borrow, default)]
    header: Option<CodeMsg<'a>>,
    #[serde(borrow, default)]
    errors: Option<Vec<CodeMsg<'a>>>,
    /// Tencent Cloud API 3.0's `{"Response": {"Error": ...}}` is left to the `Value` reader:
    /// rare, and a field of its own here would make every envelope bigger to move.
    #[serde(default, rename = "Response")]
    response: Option<IgnoredAny>,
    #[serde(borrow, default)]
    object: Scalar<'a>,
    #[serde(borrow, default)]
    message: Scalar<'a>,
    #[serde(borrow, default, rename = "Message")]
    message_aws: Scalar<'a>,
    #[serde(borrow, default)]
    detail: Scalar<'a>,
    #[serde(borrow, default, rename = "promptFeedback")]
    prompt_feedback: Option<Feedback<'a>>,
    #[serde(borrow, default)]
    candidates: Option<Vec<Candidate<'a>>>,
}

/// Parses `body` (an object, or an array whose first element is one). `None` when serde
/// refuses it (invalid JSON, duplicate keys, another shape): the `Value` reader decides then.
pub fn parse(body: &str, depth: usize) -> Option<ProviderError> {
    let env: Envelope = if body.starts_with('[') {
        serde_json::from_str::<Vec<Envelope>>(body)
            .ok()?
            .into_iter()
            .next()?
    } else {
        serde_json::from_str(body).ok()?
    };
    if env.response.is_some() {
        return None;
    }
    let mut out = ProviderError::default();
    assemble(&env, &mut out, depth);
    Some(out)
}

fn push(out: &mut ProviderError, s: &Scalar<'_>) {
    match s {
        Scalar::Str(v) => out.push_str_value(v),
        Scalar::Num(n) => out.push_number(*n),
        Scalar::Other => {}
    }
}

fn scoped<'s>(s: &'s Scalar<'_>) -> ScopedCode<'s> {
    match s {
        Scalar::Str(v) => ScopedCode::Str(v),
        Scalar::Num(n) => ScopedCode::Num(*n),
        Scalar::Other => ScopedCode::None,
    }
}

fn text<'s>(s: &'s Scalar<'_>) -> Option<&'s str> {
    match s {
        Scalar::Str(v) => Some(v),
        _ => None,
    }
}

/// What an envelope says, into `out`, in the order the `Value` reader reads it.
fn assemble(env: &Envelope<'_>, out: &mut ProviderError, depth: usize) {
    match &env.error {
        Some(ErrorField::Obj(e)) => {
            out.has_error = true;
            assemble_error(e, out, depth);
        }
        Some(ErrorField::Str(s)) => {
            out.has_error = true;
            out.add_message(s);
            // (batch 31b) A code in the message's place, as the `Value` reader reads it.
            if super::is_code_shaped(s) {
                out.push_code(s);
            }
        }
        _ => {}
    }
    push(out, &env.aws_type);
    push(out, &env.code);
    match &env.kind {
        Scalar::Str(k) if k == "error" => {
            out.has_error = true;
            out.event = true;
        }
        other => push(out, other),
    }
    push(out, &env.error_type);
    out.push_scoped("error_code", scoped(&env.error_code));
    if let Some(b) = &env.base_resp {
        out.push_scoped("base_resp", scoped(&b.code));
    }
    if let Some(h) = &env.header {
        out.push_scoped("header", scoped(&h.code));
    }
    for e in env.errors.iter().flatten() {
        out.push_scoped("errors", scoped(&e.code));
    }
    if matches!(&env.object, Scalar::Str(o) if o == "error")
        || matches!(env.aws_type, Scalar::Str(_))
    {
        out.has_error = true;
    }
    if let Some(f) = &env.prompt_feedback {
        push(out, &f.block_reason);
    }
    for c in env.candidates.iter().flatten() {
        if let Scalar::Str(r) = &c.finish_reason {
            if r != "STOP" && r != "MAX_TOKENS" {
                push(out, &c.finish_reason);
            }
        }
    }
    if out.message.is_none() {
        if let Some(m) = text(&env.message)
            .or_else(|| text(&env.message_aws))
            .or_else(|| text(&env.detail))
            .or_else(|| text(&env.error_msg))
            .or_else(|| env.base_resp.as_ref().and_then(|b| text(&b.message)))
            .or_else(|| env.header.as_ref().and_then(|h| text(&h.message)))
            .or_else(|| {
                env.errors
                    .as_ref()
                    .and_then(|e| e.first())
                    .and_then(|e| text(&e.message))
            })
        {
            out.add_message(m);
        }
    }
}

fn assemble_error(e: &ErrObj<'_>, out: &mut ProviderError, depth: usize) {
    let mut upstream_text = None;
    let mut upstream_status = None;
    if depth < MAX_NESTING {
        match e
            .metadata
            .as_ref()
            .and_then(|m| m.raw.as_ref())
            .or(e.upstream_error.as_deref())
        {
            Some(Raw::Text(s)) => match super::parse_nested(s, depth) {
                Some(inner) => upstream_status = super::merge_upstream(out, inner),
                None => upstream_text = Some(s.as_ref()),
            },
            Some(Raw::Envelope(env)) => {
                let mut inner = ProviderError::default();
                assemble(env, &mut inner, depth + 1);
                upstream_status = super::merge_upstream(out, inner);
            }
            _ => {}
        }
    }
    // A gateway's message that is the upstream's whole body (see `read_error_object`).
    if depth < MAX_NESTING
        && e.metadata
            .as_ref()
            .and_then(|m| m.raw.as_ref())
            .or(e.upstream_error.as_deref())
            .is_none()
    {
        if let Some(inner) = text(&e.message).and_then(|m| super::parse_nested(m, depth)) {
            let s = super::merge_upstream(out, inner);
            upstream_status = upstream_status.or(s);
        }
    }
    if let Some(inner) = &e.innererror {
        push(out, &inner.code);
    }
    // ErrorInfo reasons detail the status, so they come first (as in `read_error_object`).
    for d in e.details.iter().flatten() {
        push(out, &d.reason);
    }
    push(out, &e.code);
    push(out, &e.kind);
    push(out, &e.status);
    push(out, &e.http_code);
    if out.numeric_code.is_none() {
        out.numeric_code = upstream_status;
    }
    if let Scalar::Str(param) = &e.param {
        super::relayed_status(out, param);
    }
    let upstream = out.message.take();
    for t in [text(&e.message), upstream.as_deref(), upstream_text]
        .into_iter()
        .flatten()
    {
        out.add_message(t);
    }
}
