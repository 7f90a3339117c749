//! (batch 19) An answer an SDK could not deserialize, in the SDK's own words. The main tables
//! knew serde's Display form ("expected value at line 1 column 1"), but Rust SDKs print their
//! error with `{:?}` as often: async-openai's `JSONDeserialize(Error("expected value", line: 8,
//! column: 1))` carries serde_json's Debug form, which the Display rows never read; and serde's
//! "unknown variant ``, expected one of `stop`, ..., `content_filter`" lists the accepted values,
//! whose words ("content_filter") the permanent phrases read as the failure. These rows are read
//! first, where no status is given: the SDK says outright the answer was not the shape it knows.
//!
//! Sources: async-openai `src/error.rs` (`OpenAIError::JSONDeserialize`, Display "failed to
//! deserialize api response: {0}"); serde_json `src/error.rs` (Debug `Error({msg:?}, line: N,
//! column: M)`, Display "{msg} at line N column M"); serde `de/mod.rs` ("unknown variant `{}`,
//! expected one of {}", "missing field `{}`", "invalid type: {}, expected {}"); reqwest
//! `src/error.rs` (`Kind::Decode`, Display "error decoding response body", raised both by
//! `Response::json` on a body of the wrong shape and by a body read that broke: a cut only when
//! the text also names the transport, `CUT_CONTEXT`).

use super::{said, Phrase};
use crate::category::Category::*;

/// An SDK's own words for an answer it could not deserialize.
pub const PHRASES: &[Phrase] = &[
    said("failed to deserialize api response", InvalidResponse),
    said("jsondeserialize", InvalidResponse),
    said("unknown variant `", InvalidResponse),
    // serde_json's "EOF while parsing a value|string|object|list at line 1 column 0": a body
    // that ended, complete as HTTP goes, before its JSON did (an empty answer); read before the
    // transport tables' bare "eof". (reqwest's `json()` reads the whole body first: a body read
    // that broke is its body error, not serde's.)
    said("eof while parsing", InvalidResponse),
];

/// reqwest's decode error with no serde words: a wrong shape, unless the text places it in a
/// stream or the transport ("Stream error: error decoding response body", "Transport error:
/// Error while reading the server response: error decoding response body").
pub const BODY_DECODE: &str = "error decoding response body";

/// Words that place a decode failure in a body read that broke (the client's own "network
/// error: error decoding response body" too).
pub const CUT_CONTEXT: &[&str] = &[
    "stream",
    "streaming",
    "network",
    "transport",
    "reading the server response",
    "connection",
    "body error",
    "incomplete",
    "reset",
];
