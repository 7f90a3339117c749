//! (batch 34a) Go's `encoding/json` syntax errors, the whole list. A Go client (go-openai,
//! Ollama's `api` package, langchaingo) decodes the reply and, when it is not JSON (an HTML
//! error page, a plain-text "404 page not found", two JSON texts glued together), prints only
//! the decoder's `SyntaxError`, without the status: "invalid character '<' looking for beginning
//! of value". Every such message is "invalid character " + the quoted byte + " " + where the
//! scanner was; the rows are the places, each after the closing quote of the byte so that no
//! other sentence with the same words matches. The quote mark is Go's `quoteChar`: always a
//! pair of single quotes around the byte (`'\''` for the quote itself).
//!
//! Source: golang/go `src/encoding/json/scanner.go` (`s.error(c, "...")` in `stateBeginValue`,
//! `stateBeginStringOrEmpty`, `stateEndValue`, `stateInString`, `stateInStringEsc`,
//! `stateInStringEscU*`, `state0`/`state1`/`stateDot`/`stateE*`, `stateT`/`stateTr`/`stateTru`,
//! `stateF*`, `stateN*`, `stateEndTop`; `checkValid`'s "unexpected end of JSON input") and
//! `src/encoding/json/stream.go` (`Decoder.tokenError`: "looking for beginning of value", "after
//! object key", "after object key:value pair", "after array element"). Read where no status is
//! given, as the other decoders' words are (`tables::decode`).

use super::{said, Phrase};
use crate::category::Category::*;

/// Where Go's JSON scanner was when it met a byte it could not take.
pub const SYNTAX: &[Phrase] = &[
    said("' looking for beginning of value", InvalidResponse),
    said(
        "' looking for beginning of object key string",
        InvalidResponse,
    ),
    said("' after object key", InvalidResponse),
    said("' after object key:value pair", InvalidResponse),
    said("' after array element", InvalidResponse),
    said("' after top-level value", InvalidResponse),
    said("' in string literal", InvalidResponse),
    said("' in string escape code", InvalidResponse),
    said("' in \\u hexadecimal character escape", InvalidResponse),
    said("' in numeric literal", InvalidResponse),
    said("' after decimal point in numeric literal", InvalidResponse),
    said("' in exponent of numeric literal", InvalidResponse),
    said("' in literal true (expecting", InvalidResponse),
    said("' in literal false (expecting", InvalidResponse),
    said("' in literal null (expecting", InvalidResponse),
];
