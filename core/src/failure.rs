//! The failure record (CONTRACT §1): a language-neutral description of one failed call.

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// A hint from a Rust HTTP client about what went wrong below HTTP.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Transport {
    /// The request timed out (classified [`Timeout`](crate::Category::Timeout)).
    Timeout,
    /// The connection could not be made (classified [`Connection`](crate::Category::Connection)).
    Connect,
    /// The response stream broke off mid-way (classified
    /// [`StreamInterrupted`](crate::Category::StreamInterrupted)).
    StreamTransient,
    /// The response stream could not be parsed (classified
    /// [`InvalidResponse`](crate::Category::InvalidResponse)).
    StreamParse,
    /// The response body was not the JSON expected (classified
    /// [`InvalidResponse`](crate::Category::InvalidResponse)).
    Json,
    /// Any other transport error; carries no evidence of its own.
    Other,
}

impl Transport {
    /// Every transport hint, in declaration order.
    pub const ALL: [Transport; 6] = [
        Transport::Timeout,
        Transport::Connect,
        Transport::StreamTransient,
        Transport::StreamParse,
        Transport::Json,
        Transport::Other,
    ];

    /// The snake_case name used in failure records (`timeout`, `stream_transient`, ...).
    pub fn as_str(self) -> &'static str {
        match self {
            Transport::Timeout => "timeout",
            Transport::Connect => "connect",
            Transport::StreamTransient => "stream_transient",
            Transport::StreamParse => "stream_parse",
            Transport::Json => "json",
            Transport::Other => "other",
        }
    }

    /// The hint named `s` (its snake_case name), or `None` for an unknown name.
    pub fn parse(s: &str) -> Option<Transport> {
        Transport::ALL.into_iter().find(|t| t.as_str() == s)
    }
}

/// Response headers with case-insensitive names (stored lower-cased, in arrival order).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Headers(Vec<(String, String)>);

impl Headers {
    /// An empty header list.
    pub fn new() -> Self {
        Headers(Vec::new())
    }

    /// Adds a header. The name is trimmed and lower-cased; an existing value of the same name is
    /// kept, and [`Headers::get`] still returns the first one.
    pub fn insert(&mut self, name: &str, value: impl Into<String>) {
        self.0
            .push((name.trim().to_ascii_lowercase(), value.into()));
    }

    /// The first value of `name` (case-insensitive).
    pub fn get(&self, name: &str) -> Option<&str> {
        // Names are stored lower-cased, and the engine asks in lower case: compare bytes first.
        self.0
            .iter()
            .find(|(k, _)| k == name || k.eq_ignore_ascii_case(name))
            .map(|(_, v)| v.as_str())
    }

    /// Every `(name, value)` pair in arrival order, names lower-cased, duplicates included.
    pub fn iter(&self) -> impl Iterator<Item = (&str, &str)> {
        self.0.iter().map(|(k, v)| (k.as_str(), v.as_str()))
    }

    /// Whether there are no headers.
    pub fn is_empty(&self) -> bool {
        self.0.is_empty()
    }
}

impl<K: AsRef<str>, V: Into<String>> FromIterator<(K, V)> for Headers {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(iter: I) -> Self {
        let mut h = Headers::new();
        for (k, v) in iter {
            h.insert(k.as_ref(), v);
        }
        h
    }
}

impl Serialize for Headers {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeMap;
        let mut m = s.serialize_map(Some(self.0.len()))?;
        for (k, v) in &self.0 {
            m.serialize_entry(k, v)?;
        }
        m.end()
    }
}

/// From a JSON object (or null), every entry in document order, duplicates included: the same
/// headers, and so the same first value per name, as the record that was serialized.
impl<'de> Deserialize<'de> for Headers {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Entries;

        impl<'de> serde::de::Visitor<'de> for Entries {
            type Value = Headers;

            fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
                f.write_str("a map of header names to values, or null")
            }

            fn visit_unit<E: serde::de::Error>(self) -> Result<Headers, E> {
                Ok(Headers::new())
            }

            fn visit_none<E: serde::de::Error>(self) -> Result<Headers, E> {
                Ok(Headers::new())
            }

            fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Headers, D::Error> {
                d.deserialize_map(Entries)
            }

            fn visit_map<A: serde::de::MapAccess<'de>>(
                self,
                mut map: A,
            ) -> Result<Headers, A::Error> {
                let mut h = Headers::new();
                while let Some((k, v)) = map.next_entry::<String, serde_json::Value>()? {
                    match v {
                        serde_json::Value::String(s) => h.insert(&k, s),
                        serde_json::Value::Null => {}
                        other => h.insert(&k, other.to_string()),
                    }
                }
                Ok(h)
            }
        }

        d.deserialize_option(Entries)
    }
}

/// The HTTP statuses a failure may carry; a binding reads any other number as no status.
pub const STATUS_RANGE: std::ops::RangeInclusive<u16> = 100..=999;

/// How many wrapped causes (`__cause__`, `#cause`) a binding follows when it reads an
/// exception's chain.
pub const MAX_CAUSES: usize = 16;

/// A status as a binding read it (any integer), kept when it is in [`STATUS_RANGE`].
pub fn checked_status(n: i64) -> Option<u16> {
    u16::try_from(n).ok().filter(|s| STATUS_RANGE.contains(s))
}

/// At most this many headers are read from a host's header object, and at most
/// [`MAX_HEADER_BYTES`] of names and values, taking at most [`MAX_HEADER_ITEMS`] items (pairs
/// that are not text count too): a headers object that yields endlessly must grow no memory
/// and hang nothing. Real responses carry a few dozen headers.
pub const MAX_HEADERS: usize = 256;
/// See [`MAX_HEADERS`].
pub const MAX_HEADER_BYTES: usize = 64 * 1024;
/// See [`MAX_HEADERS`].
pub const MAX_HEADER_ITEMS: usize = 4 * MAX_HEADERS;

/// Collects a host's header pairs under the caps of [`MAX_HEADERS`], the same in every binding.
#[derive(Debug, Default)]
pub struct HeaderSink {
    headers: Headers,
    kept: usize,
    bytes: usize,
    taken: usize,
    full: bool,
}

impl HeaderSink {
    /// An empty sink.
    pub fn new() -> Self {
        HeaderSink::default()
    }

    /// Offers one pair (`None` for an item that is not a text pair); answers whether the
    /// reader should go on. A pair that would pass the byte cap ends the reading.
    pub fn offer(&mut self, pair: Option<(&str, String)>) -> bool {
        if self.full {
            return false;
        }
        self.taken += 1;
        if let Some((name, value)) = pair {
            let n = name.len() + value.len();
            if self.bytes + n > MAX_HEADER_BYTES {
                self.full = true;
                return false;
            }
            self.bytes += n;
            self.kept += 1;
            self.headers.insert(name, value);
        }
        self.full = self.kept >= MAX_HEADERS || self.taken >= MAX_HEADER_ITEMS;
        !self.full
    }

    /// Whether no more pairs are taken.
    pub fn is_full(&self) -> bool {
        self.full
    }

    /// The headers collected.
    pub fn finish(self) -> Headers {
        self.headers
    }
}

/// One failed call. Every field is optional except `message`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Failure {
    /// HTTP status code, if the failure carried one.
    #[serde(default)]
    pub status: Option<u16>,
    /// Response headers (case-insensitive names).
    #[serde(default)]
    pub headers: Headers,
    /// Raw response body or SSE `error` payload. Invalid UTF-8 is replaced lossily by the
    /// constructors; the classifier never fails on it.
    #[serde(default)]
    pub body: Option<String>,
    /// The exception's class and its ancestors (and those of wrapped causes), most specific first.
    #[serde(default)]
    pub error_class: Vec<String>,
    /// The exception's message.
    #[serde(default)]
    pub message: String,
    /// A hint from a Rust client.
    #[serde(default)]
    pub transport: Option<Transport>,
    /// Retries the client library already made for this request before it raised (the
    /// openai and anthropic SDKs send it as `x-stainless-retry-count`): a second retry layer.
    /// (A `u8`, 255 standing for any more: with it a `Failure` stays under 128 bytes, a small
    /// `Err` to return.)
    #[serde(default)]
    pub client_retries: Option<u8>,
    /// The messages of the exceptions this one wraps (their causes), read as text evidence
    /// after the message itself ([`Failure::from_chain`] fills it).
    #[serde(default, skip_serializing_if = "<[String]>::is_empty")]
    pub inner_messages: Box<[String]>,
}

impl Failure {
    /// A failure with only a message (no status, headers, body, class chain or transport hint).
    pub fn new(message: impl Into<String>) -> Self {
        Failure {
            message: message.into(),
            ..Default::default()
        }
    }

    /// A failure carrying an HTTP status.
    pub fn http(status: u16, message: impl Into<String>) -> Self {
        Failure {
            status: Some(status),
            message: message.into(),
            ..Default::default()
        }
    }

    /// Sets the HTTP status code.
    pub fn with_status(mut self, status: u16) -> Self {
        self.status = Some(status);
        self
    }
    /// Adds a response header (see [`Headers::insert`]).
    pub fn with_header(mut self, name: &str, value: impl Into<String>) -> Self {
        self.headers.insert(name, value);
        self
    }
    /// Sets the raw response body or SSE `error` payload.
    pub fn with_body(mut self, body: impl Into<String>) -> Self {
        self.body = Some(body.into());
        self
    }
    /// Sets the body from raw bytes, replacing invalid UTF-8 rather than failing.
    pub fn with_body_bytes(mut self, body: &[u8]) -> Self {
        self.body = Some(String::from_utf8_lossy(body).into_owned());
        self
    }
    /// Sets the exception class chain, most specific class first.
    pub fn with_class<I, S>(mut self, chain: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.error_class = chain.into_iter().map(Into::into).collect();
        self
    }
    /// Sets the transport hint.
    pub fn with_transport(mut self, t: Transport) -> Self {
        self.transport = Some(t);
        self
    }

    /// A stream that ended without its finish or stop reason (or with one that reports a
    /// failure): classified as [`StreamInterrupted`](crate::Category::StreamInterrupted) and
    /// so retried. `detail` is the message; [`stream_end::incomplete`](crate::stream_end::incomplete)
    /// builds it from the reason the stream gave.
    pub fn stream_incomplete(detail: impl Into<String>) -> Self {
        Failure {
            message: detail.into(),
            transport: Some(Transport::StreamTransient),
            ..Default::default()
        }
    }

    /// Parses a failure record from JSON (the shape of the shared vectors).
    pub fn from_json(json: &str) -> crate::error::Result<Failure> {
        Ok(serde_json::from_str(json)?)
    }
}

/// One line for people and logs: the status if any, then the message (keys and tokens
/// scrubbed), e.g. `HTTP 429: Rate limit reached`. With it a `Failure` is a
/// `std::error::Error`, and so is a driver's give-up (`RetryError<Failure>`): `?` works on both.
impl std::fmt::Display for Failure {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let message = crate::scrub::scrub(&self.message);
        match (self.status, message.is_empty()) {
            (Some(status), true) => write!(f, "HTTP {status}"),
            (Some(status), false) => write!(f, "HTTP {status}: {message}"),
            (None, true) => f.write_str("failed call"),
            (None, false) => f.write_str(&message),
        }
    }
}

impl std::error::Error for Failure {}

/// Anything the drivers can turn into a failure record.
pub trait AsFailure {
    /// The failure record for this error.
    fn as_failure(&self) -> Failure;
}

impl AsFailure for Failure {
    fn as_failure(&self) -> Failure {
        self.clone()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headers_survive_a_json_round_trip_with_duplicates_and_order() {
        let mut f = Failure::http(429, "slow down");
        f.headers.insert("Retry-After", "7");
        f.headers.insert("retry-after", "30");
        f.headers.insert("x-b", "1");
        let json = serde_json::to_string(&f).unwrap();
        let back: Failure = serde_json::from_str(&json).unwrap();
        assert_eq!(back.headers, f.headers);
        assert_eq!(
            back.headers.get("retry-after"),
            Some("7"),
            "the first value, as before the trip"
        );
    }

    #[test]
    fn headers_from_json_keep_document_order_and_skip_nulls() {
        let h: Headers =
            serde_json::from_str(r#"{"Retry-After": "9", "retry-after": "1", "x": null, "n": 5}"#)
                .unwrap();
        assert_eq!(
            h.iter().collect::<Vec<_>>(),
            [("retry-after", "9"), ("retry-after", "1"), ("n", "5")]
        );
        let none: Headers = serde_json::from_str("null").unwrap();
        assert!(none.is_empty());
        assert!(serde_json::from_str::<Headers>("[1]").is_err());
    }
}
