//! Behind the `reqwest` feature (reqwest 0.13) or the `reqwest-0_12` feature (reqwest 0.12, in
//! [`v0_12`]): failure records from reqwest errors and responses.
//!
//! A reqwest error has one type for every failure, so its meaning is read from its source chain
//! (CONTRACT §6, Forgeflare R1): [`chain_fact`] walks `source()` for what the chain shows (an
//! `io::Error` of kind `ConnectionReset`, hyper's `IncompleteMessage`, hyper-util's `dns error`,
//! a TLS link, serde_json's error, ...), and [`CHAIN_RULES`] says what each fact means: a reset or
//! a close before the answer is a connection failure, the same while the body streams is a
//! stream cut, a timeout is a timeout, a bad host, a TLS failure or a URL that cannot be built is
//! permanent. The one rule serves both reqwest versions.
//!
//! Both versions share `http` 1.x, so [`headers_of`] takes the one `HeaderMap` type they have in
//! common; the rest is the same code generated for each version's `Error` and `Response`.

use std::error::Error as StdError;
use std::io;

use crate::failure::{Failure, Headers, Transport};

/// The headers of a response as a failure record's headers (values that are not visible ASCII
/// are skipped). `reqwest::header::HeaderMap` of reqwest 0.12 and 0.13 are both this type.
pub fn headers_of(map: &http::HeaderMap) -> Headers {
    map.iter()
        .filter_map(|(k, v)| {
            v.to_str()
                .ok()
                .map(|v| (k.as_str().to_owned(), v.to_owned()))
        })
        .collect()
}

/// The failure for an SSE `error` event payload (classified by `p["error"]["type"]`).
pub fn failure_from_sse_error(payload: &str) -> Failure {
    crate::sse::failure_from_payload(payload)
}

/// What a transport error's source chain shows, as far as retrying cares. [`chain_fact`] finds
/// the first of these (in [`CHAIN_RULES`] order) that the chain holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ChainFact {
    /// Time ran out: reqwest's `is_timeout()`, hyper's timeout, `io::ErrorKind::TimedOut`.
    Timeout,
    /// The request could not be built (reqwest's `is_builder()`: a URL that does not parse, a
    /// scheme the client cannot speak).
    Builder,
    /// The peer reset or aborted the connection, or it was gone when written to
    /// (`io::ErrorKind::{ConnectionReset, ConnectionAborted, BrokenPipe}`).
    Reset,
    /// The connection closed before the message was complete (hyper's `IncompleteMessage`,
    /// `io::ErrorKind::UnexpectedEof`).
    Closed,
    /// The host name did not resolve (hyper-util's `dns error`, reqwest 0.13's `is_dns()`).
    Dns,
    /// The TLS layer failed: a certificate rejected, a handshake refused.
    Tls,
    /// The connection could not be made (`is_connect()`: refused, unreachable).
    Connect,
    /// HTTP itself broke while the body streamed (a hyper error under a body or decode error).
    BodyBroken,
    /// The body arrived whole but is not the JSON expected (serde_json's error under a decode
    /// error).
    BadJson,
    /// Nothing above.
    Other,
}

/// Where in the exchange the error struck.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Phase {
    /// Before the answer: connecting, sending, waiting for the status line and headers.
    Request,
    /// While the answer's body streamed (reqwest's `is_body()` or `is_decode()`).
    Body,
}

/// What a chain fact means: the transport hint the failure record carries before the answer
/// and while the body streams, and a pseudo-class for facts a hint cannot state (a permanent
/// failure below HTTP); the classifier's class table reads it (`tables::CLASSES`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ChainRule {
    /// The fact.
    pub fact: ChainFact,
    /// The hint when the error struck before the answer.
    pub request: Transport,
    /// The hint when it struck while the body streamed.
    pub body: Transport,
    /// The class put first in the record's class chain, if any.
    pub class: Option<&'static str>,
}

/// The pseudo-class of a request that could not be built (classified `configuration`).
pub const BUILDER_CLASS: &str = "reqwest::Error(builder)";
/// The pseudo-class of a name that did not resolve (classified by its text, like Python's
/// `socket.gaierror`: "name or service not known" is `configuration`, "temporary failure in
/// name resolution" is `connection`).
pub const DNS_CLASS: &str = "reqwest::Error(dns)";
/// The pseudo-class of a TLS failure (classified by its text, like Python's `ssl.SSLError`: a
/// certificate failure is `configuration`).
pub const TLS_CLASS: &str = "reqwest::Error(tls)";

const fn rule(
    fact: ChainFact,
    request: Transport,
    body: Transport,
    class: Option<&'static str>,
) -> ChainRule {
    ChainRule {
        fact,
        request,
        body,
        class,
    }
}

/// The rule, most telling fact first: the first fact the chain holds decides. A reset or close
/// is checked before DNS and TLS (a handshake cut by a reset is a network fault, not a
/// certificate), a timeout before everything (a connect timeout is a timeout).
pub const CHAIN_RULES: &[ChainRule] = {
    use ChainFact::*;
    use Transport::{Connect as Conn, Json, Other as Oth, StreamTransient as Cut};
    &[
        rule(Timeout, Transport::Timeout, Transport::Timeout, None),
        rule(Builder, Oth, Oth, Some(BUILDER_CLASS)),
        // Forgeflare R1 names "connection reset"; the same reset after the headers is a stream
        // that ended without its stop reason (StreamTransient).
        rule(Reset, Conn, Cut, None),
        rule(Closed, Conn, Cut, None),
        rule(Dns, Oth, Oth, Some(DNS_CLASS)),
        rule(Tls, Oth, Oth, Some(TLS_CLASS)),
        rule(Connect, Conn, Conn, None),
        rule(BodyBroken, Cut, Cut, None),
        rule(BadJson, Json, Json, None),
        rule(Other, Oth, Oth, None),
    ]
};

/// The rule of `fact`.
pub fn chain_rule(fact: ChainFact) -> &'static ChainRule {
    CHAIN_RULES
        .iter()
        .find(|r| r.fact == fact)
        .unwrap_or(&CHAIN_RULES[CHAIN_RULES.len() - 1])
}

/// What one link of a chain says, by its type and, for a type without predicates, its text.
#[derive(Default)]
struct Seen {
    facts: Vec<ChainFact>,
    body: bool,
}

impl Seen {
    fn add(&mut self, f: ChainFact) {
        if !self.facts.contains(&f) {
            self.facts.push(f);
        }
    }
}

/// reqwest's own predicates, for a link that is a `reqwest::Error` of either version.
macro_rules! reqwest_link {
    ($seen:ident, $link:ident, $reqwest:path) => {{
        use $reqwest as rq;
        if let Some(e) = $link.downcast_ref::<rq::Error>() {
            if e.is_timeout() {
                $seen.add(ChainFact::Timeout);
            }
            if e.is_builder() {
                $seen.add(ChainFact::Builder);
            }
            if e.is_connect() {
                $seen.add(ChainFact::Connect);
            }
            if e.is_body() || e.is_decode() {
                $seen.body = true;
            }
        }
    }};
}

fn read_link(seen: &mut Seen, link: &(dyn StdError + 'static)) {
    #[cfg(feature = "reqwest")]
    reqwest_link!(seen, link, reqwest);
    #[cfg(feature = "reqwest-0_12")]
    reqwest_link!(seen, link, reqwest_0_12);
    if let Some(io) = link.downcast_ref::<io::Error>() {
        match io.kind() {
            io::ErrorKind::ConnectionReset
            | io::ErrorKind::ConnectionAborted
            | io::ErrorKind::BrokenPipe => seen.add(ChainFact::Reset),
            io::ErrorKind::UnexpectedEof => seen.add(ChainFact::Closed),
            io::ErrorKind::TimedOut => seen.add(ChainFact::Timeout),
            _ => {}
        }
    }
    if let Some(h) = link.downcast_ref::<hyper::Error>() {
        if h.is_timeout() {
            seen.add(ChainFact::Timeout);
        }
        if h.is_incomplete_message() {
            seen.add(ChainFact::Closed);
        }
        if seen.body {
            seen.add(ChainFact::BodyBroken);
        }
    }
    if link.is::<serde_json::Error>() {
        seen.add(ChainFact::BadJson);
    }
    // Types this crate cannot name (hyper-util's ConnectError, reqwest's DnsError, the TLS
    // stack's errors) are known by their text.
    let text = without_urls(&link.to_string().to_ascii_lowercase());
    if text.starts_with("dns error") || text.contains("failed to lookup address") {
        seen.add(ChainFact::Dns);
    }
    let tls_word = text
        .split(|c: char| !c.is_ascii_alphanumeric())
        .any(|w| matches!(w, "tls" | "ssl" | "certificate" | "handshake"));
    if tls_word || text.contains("ssl routines") {
        seen.add(ChainFact::Tls);
    }
}

/// `text` with every URL blanked (reqwest names the URL in its text: a host such as
/// `tls.example.com` says nothing about the failure).
fn without_urls(text: &str) -> String {
    let mut out = String::with_capacity(text.len());
    let mut rest = text;
    while let Some(i) = rest.find("http") {
        let tail = &rest[i..];
        if tail.starts_with("http://") || tail.starts_with("https://") {
            out.push_str(&rest[..i]);
            let end = tail
                .find(|c: char| c.is_whitespace() || c == ')')
                .unwrap_or(tail.len());
            rest = &tail[end..];
        } else {
            out.push_str(&rest[..i + 4]);
            rest = &rest[i + 4..];
        }
    }
    out.push_str(rest);
    out
}

/// The fact that decides for `err` (the first in [`CHAIN_RULES`] order that its source chain
/// holds, the error itself included) and where it struck.
pub fn chain_fact(err: &(dyn StdError + 'static)) -> (ChainFact, Phase) {
    let mut seen = Seen::default();
    let mut link = Some(err);
    let mut depth = 0;
    // reqwest marks the phase on the outer link; read it first so that a hyper link further
    // down knows it is a body error.
    while let Some(l) = link {
        read_link(&mut seen, l);
        depth += 1;
        if depth >= MAX_LINKS {
            break;
        }
        link = l.source();
    }
    let phase = if seen.body {
        Phase::Body
    } else {
        Phase::Request
    };
    let fact = CHAIN_RULES
        .iter()
        .map(|r| r.fact)
        .find(|f| seen.facts.contains(f))
        .unwrap_or(ChainFact::Other);
    (fact, phase)
}

/// How many links of a source chain are read (a cycle or a pathological chain stops here).
const MAX_LINKS: usize = 16;

/// The longest message a chain gives a failure record; the rest is cut.
const MAX_MESSAGE: usize = 1000;

/// The messages of `err` and its sources, joined with `": "`: a link whose text the message
/// already holds is skipped (reqwest 0.13 repeats its source in its own text).
pub fn chain_message(err: &(dyn StdError + 'static)) -> String {
    let mut out = String::new();
    let mut link = Some(err);
    let mut depth = 0;
    while let Some(l) = link {
        let text = l.to_string();
        let text = text.trim();
        if !text.is_empty() && !out.contains(text) {
            if !out.is_empty() {
                out.push_str(": ");
            }
            out.push_str(text);
        }
        depth += 1;
        if depth >= MAX_LINKS || out.len() >= MAX_MESSAGE {
            break;
        }
        link = l.source();
    }
    if out.len() > MAX_MESSAGE {
        let mut cut = MAX_MESSAGE;
        while !out.is_char_boundary(cut) {
            cut -= 1;
        }
        out.truncate(cut);
    }
    out
}

/// The failure record of a transport error, read through its source chain by [`CHAIN_RULES`].
/// `class` is the error's own type name (`reqwest::Error`).
pub fn failure_from_chain(
    err: &(dyn StdError + 'static),
    class: &str,
    status: Option<u16>,
) -> Failure {
    let (fact, phase) = chain_fact(err);
    let r = chain_rule(fact);
    let transport = match phase {
        Phase::Request => r.request,
        Phase::Body => r.body,
    };
    let mut error_class: Vec<String> = r.class.map(str::to_owned).into_iter().collect();
    error_class.push(class.to_owned());
    Failure {
        status,
        message: chain_message(err),
        error_class,
        transport: Some(transport),
        ..Failure::default()
    }
}

/// `transport_of`, `From<&reqwest::Error> for Failure`, `AsFailure` and `failure_from_response`
/// for one reqwest version, named `$reqwest` in this crate.
macro_rules! reqwest_glue {
    ($reqwest:ident) => {
        use crate::failure::{AsFailure, Failure, Transport};

        /// The transport hint for a reqwest error, read through its source chain
        /// ([`CHAIN_RULES`](super::CHAIN_RULES)).
        pub fn transport_of(e: &$reqwest::Error) -> Transport {
            let (fact, phase) = super::chain_fact(e);
            let r = super::chain_rule(fact);
            match phase {
                super::Phase::Request => r.request,
                super::Phase::Body => r.body,
            }
        }

        /// Read through the error's source chain: a reset or a close before the answer is
        /// `connection`, the same while the body streams `stream_interrupted`, a timeout
        /// `timeout`; a bad host, a TLS certificate failure or a URL that cannot be built is
        /// permanent. The message holds the chain's messages.
        impl From<&$reqwest::Error> for Failure {
            fn from(e: &$reqwest::Error) -> Self {
                super::failure_from_chain(e, "reqwest::Error", e.status().map(|s| s.as_u16()))
            }
        }

        impl AsFailure for $reqwest::Error {
            fn as_failure(&self) -> Failure {
                Failure::from(self)
            }
        }

        /// A failure record from a non-success response (consumes it to read the body; invalid
        /// UTF-8 is replaced, never an error).
        pub async fn failure_from_response(resp: $reqwest::Response) -> Failure {
            let status = resp.status().as_u16();
            let headers = super::headers_of(resp.headers());
            let reason = resp.status().canonical_reason().unwrap_or("");
            let body = match resp.bytes().await {
                Ok(b) => String::from_utf8_lossy(&b).into_owned(),
                Err(_) => String::new(),
            };
            Failure {
                status: Some(status),
                headers,
                message: format!("API returned {status} {reason}")
                    .trim_end()
                    .to_owned(),
                body: (!body.is_empty()).then_some(body),
                ..Failure::default()
            }
        }
    };
}

#[cfg(feature = "reqwest")]
mod v0_13 {
    reqwest_glue!(reqwest);
}
#[cfg(feature = "reqwest")]
pub use v0_13::{failure_from_response, transport_of};

/// The same functions for reqwest 0.12 (feature `reqwest-0_12`). `Failure::from(&e)` and
/// [`AsFailure`](crate::failure::AsFailure) work for either version's `reqwest::Error`.
#[cfg(feature = "reqwest-0_12")]
pub mod v0_12 {
    reqwest_glue!(reqwest_0_12);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{classify, Category};

    /// An error with a source, for chains built by hand.
    #[derive(Debug)]
    struct Link(&'static str, Option<Box<dyn StdError + Send + Sync>>);

    impl std::fmt::Display for Link {
        fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
            f.write_str(self.0)
        }
    }

    impl StdError for Link {
        fn source(&self) -> Option<&(dyn StdError + 'static)> {
            self.1.as_deref().map(|e| e as _)
        }
    }

    fn category(e: &(dyn StdError + 'static)) -> Category {
        classify(&failure_from_chain(e, "reqwest::Error", None)).category
    }

    #[test]
    fn every_fact_has_one_rule_and_other_is_last() {
        for (i, r) in CHAIN_RULES.iter().enumerate() {
            assert_eq!(chain_rule(r.fact), r, "{:?} twice", r.fact);
            assert_eq!(CHAIN_RULES.iter().position(|x| x.fact == r.fact), Some(i));
        }
        assert_eq!(CHAIN_RULES.last().unwrap().fact, ChainFact::Other);
    }

    #[test]
    fn io_kinds_in_the_chain_decide() {
        let reset = Link(
            "client error (SendRequest)",
            Some(Box::new(io::Error::from(io::ErrorKind::ConnectionReset))),
        );
        assert_eq!(chain_fact(&reset), (ChainFact::Reset, Phase::Request));
        assert_eq!(category(&reset), Category::Connection);
        let eof = Link(
            "x",
            Some(Box::new(io::Error::from(io::ErrorKind::UnexpectedEof))),
        );
        assert_eq!(category(&eof), Category::Connection);
        let timed_out = Link(
            "x",
            Some(Box::new(io::Error::from(io::ErrorKind::TimedOut))),
        );
        assert_eq!(category(&timed_out), Category::Timeout);
    }

    #[test]
    fn dns_and_tls_text_is_permanent_unless_it_says_temporary() {
        let gai = |msg: &'static str| {
            Link(
                "client error (Connect)",
                Some(Box::new(Link(
                    "dns error",
                    Some(Box::new(io::Error::other(msg))),
                ))),
            )
        };
        let bad_host = gai("failed to lookup address information: Name or service not known");
        assert_eq!(chain_fact(&bad_host).0, ChainFact::Dns);
        assert_eq!(category(&bad_host), Category::Configuration);
        let flaky =
            gai("failed to lookup address information: Temporary failure in name resolution");
        assert_eq!(category(&flaky), Category::Connection);
        let cert = Link(
            "client error (Connect)",
            Some(Box::new(io::Error::new(
                io::ErrorKind::InvalidData,
                "invalid peer certificate: UnknownIssuer",
            ))),
        );
        assert_eq!(chain_fact(&cert).0, ChainFact::Tls);
        assert_eq!(category(&cert), Category::Configuration);
        // A handshake cut by a reset is the reset.
        let cut = Link(
            "tls handshake eof",
            Some(Box::new(io::Error::from(io::ErrorKind::ConnectionReset))),
        );
        assert_eq!(category(&cut), Category::Connection);
    }

    #[test]
    fn a_host_name_is_no_evidence() {
        assert_eq!(
            without_urls("error sending request for url (https://tls.example/v1): refused"),
            "error sending request for url (): refused"
        );
        let refused = Link(
            "error sending request for url (https://ssl.example/)",
            Some(Box::new(io::Error::from(io::ErrorKind::ConnectionRefused))),
        );
        assert_eq!(chain_fact(&refused).0, ChainFact::Other);
    }

    #[test]
    fn a_json_error_alone_is_invalid_response() {
        let bad = serde_json::from_str::<serde_json::Value>("{\"a\":").unwrap_err();
        let e = Link("error decoding response body", Some(Box::new(bad)));
        assert_eq!(chain_fact(&e).0, ChainFact::BadJson);
        assert_eq!(category(&e), Category::InvalidResponse);
    }

    #[test]
    fn the_message_joins_the_chain_without_repeats() {
        let e = Link(
            "error sending request: connection reset",
            Some(Box::new(Link(
                "connection reset",
                Some(Box::new(Link("os error 104", None))),
            ))),
        );
        assert_eq!(
            chain_message(&e),
            "error sending request: connection reset: os error 104"
        );
        let long = Link("x", Some(Box::new(io::Error::other("é".repeat(2000)))));
        assert!(chain_message(&long).len() <= MAX_MESSAGE);
    }
}
