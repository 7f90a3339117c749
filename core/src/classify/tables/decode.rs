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
    // (batch 26) `JSON.parse` of a reply that is not one JSON text, in each JavaScript engine's
    // words. V8 (`src/common/message-template.h` kJsonParseUnexpectedNonWhiteSpaceCharacter,
    // kJsonParseUnterminatedString, kJsonParseBadControlCharacter ...): "Unexpected
    // non-whitespace character after JSON at position N", "Unterminated string in JSON at
    // position N"; SpiderMonkey (`js/src/builtin/JSON.cpp` / `JSONParser.cpp`): "JSON.parse:
    // unexpected end of data at line 1 column 1 of the JSON data", "JSON.parse: unexpected
    // character at ..."; JavaScriptCore (`runtime/LiteralParser.cpp`): "JSON Parse error:
    // Unexpected EOF", "JSON Parse error: Unrecognized token '<'". An SSE frame glued to the
    // next or an empty body, never the request's JSON (that one the caller built).
    said("non-whitespace character after json", InvalidResponse),
    said("unterminated string in json", InvalidResponse),
    said(
        "bad control character in string literal in json",
        InvalidResponse,
    ),
    said("json.parse: unexpected", InvalidResponse),
    said("json.parse: unterminated", InvalidResponse),
    said("json.parse: bad", InvalidResponse),
    said("json.parse: expected", InvalidResponse),
    said("json parse error: unexpected eof", InvalidResponse),
    said("json parse error: unrecognized token", InvalidResponse),
    said("json parse error: unexpected", InvalidResponse),
];

/// (batch 26) Traceback frames where a Python server decodes the request it received: LiteLLM
/// proxy `proxy_server.py` "data = json.loads(body_str)" after `await request.body()`;
/// Starlette/FastAPI handlers "await request.json()"; Flask "request.get_json(". A
/// `JSONDecodeError` raised there is the request's body, answered as the server's 500.
pub const REQUEST_DECODE_FRAMES: &[&str] = &[
    "json.loads(body",
    "json.loads(request",
    "await request.json()",
    "request.get_json(",
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

/// (batch 20) The same failure, "the client could not decode the reply", in other languages'
/// decoders: read with [`PHRASES`].
/// - Swift `Codable`: `DecodingError` cases print as `keyNotFound(CodingKeys(...),
///   Swift.DecodingError.Context(...))`, `typeMismatch(Swift.String, Swift.DecodingError.
///   Context(...))`, `valueNotFound(...)`, `dataCorrupted(...)`; Foundation's localized text "The
///   data couldn’t be read because it is missing." / "isn’t in the correct format."
/// - Go `encoding/json`: `UnmarshalTypeError` "json: cannot unmarshal string into Go struct field
///   X of type int"; `SyntaxError` "invalid character '<' looking for beginning of value".
/// - Jackson (Java SDKs): `MismatchedInputException`, `UnrecognizedPropertyException`, "Cannot
///   deserialize value of type `X` from ...".
/// - .NET `System.Text.Json.JsonException`: "The JSON value could not be converted to X. Path:
///   $.id".
/// - kotlinx.serialization: `JsonDecodingException` "Unexpected JSON token at offset N",
///   `MissingFieldException` "Field 'id' is required for type with serial name 'X', but it was
///   missing".
/// - pydantic v1 on an SDK's response model (replicate-python's `Prediction.status`): "unexpected
///   value; permitted: 'starting', ..." (`const`/`Literal`), "value is not a valid enumeration
///   member; permitted: ..." (an enum): serde's "unknown variant" in Python.
/// - Vercel AI SDK `NoOutputGeneratedError` "No output generated. Check the stream for errors.",
///   and its older "No text generated." / "No content generated.": the reply carried nothing.
pub const OTHER_LANGUAGES: &[Phrase] = &[
    said("swift.decodingerror", InvalidResponse),
    said("decodingerror.keynotfound", InvalidResponse),
    said("keynotfound(codingkeys", InvalidResponse),
    said("the data couldn’t be read because", InvalidResponse),
    said("the data couldn't be read because", InvalidResponse),
    said("json: cannot unmarshal", InvalidResponse),
    said("mismatchedinputexception", InvalidResponse),
    said("unrecognizedpropertyexception", InvalidResponse),
    said("cannot deserialize value of type", InvalidResponse),
    said("the json value could not be converted to", InvalidResponse),
    said("jsondecodingexception", InvalidResponse),
    said("missingfieldexception", InvalidResponse),
    said("unexpected value; permitted:", InvalidResponse),
    said(
        "value is not a valid enumeration member; permitted:",
        InvalidResponse,
    ),
    said("no output generated", InvalidResponse),
    said("no text generated", InvalidResponse),
    said("no content generated", InvalidResponse),
    // LangChain's `generate_from_stream` ("No generations found in stream."): a stream that
    // carried no answer.
    said("no generations found in stream", InvalidResponse),
    // Dart's `jsonDecode` (dart:convert) on a body that is not JSON, in the Dart SDKs
    // (dart_openai, langchain_dart): "FormatException: Unexpected character (at character 1)",
    // "FormatException: Unexpected end of input".
    said("formatexception: unexpected character", InvalidResponse),
    said("formatexception: unexpected end of input", InvalidResponse),
    // (batch 22) kotlinx.serialization's message without its class name, as openai-kotlin's
    // OpenAIHttpException carries it ("Unexpected JSON token at offset 0: Expected start of the
    // object '{'", aallam/openai-kotlin#243).
    said("unexpected json token at offset", InvalidResponse),
    // (batch 23) MATLAB's `jsondecode` on a reply cut short: "JSON syntax error: expected \"\"
    // but found end of text." (toshiakit/MatGPT#31; wording from the thread, not MATLAB's
    // source): a body that ended before its JSON did, as serde's "eof while parsing".
    said("but found end of text", InvalidResponse),
];

/// The head of a reply that failed to parse, as V8's `JSON.parse` quotes it (`Unexpected token
/// 'I', "Internal s"... is not valid JSON`): when it begins a server's own failure words (the
/// 5xx reason phrases of RFC 9110 §15.6, a proxy's "upstream connect error"), the reply was a
/// server's error page, the failure that page names, not a reply of the wrong shape.
pub const SERVER_ERROR_HEADS: &[(&str, crate::Category)] = &[
    ("internal server error", ServerError),
    ("bad gateway", ServerError),
    ("service unavailable", ServerError),
    ("service temporarily unavailable", ServerError),
    ("gateway timeout", Timeout),
    ("upstream connect error", Connection),
    ("upstream request timeout", Timeout),
];

/// (batch 25) Marks of an HTML page quoted in a decoder's error (requests' `JSONDecodeError`
/// "[Errno Expecting value] <!doctype html>...<title>429</title>429 Too Many Requests"): the
/// reply was a server's or proxy's error page, whose stated status decides.
pub const HTML_PAGE_MARKS: &[&str] = &["<!doctype html", "<html", "<title>"];

/// A Go struct the server decodes the *request* into ("json: cannot unmarshal string into Go
/// struct field ChatRequest.messages of type []api.Message": Ollama's `api.ChatRequest`,
/// `GenerateRequest`; any `...Request` type): a server's words about what it received, the
/// request's fault, not a reply the client could not read.
pub const GO_REQUEST_TARGET: &str =
    r"into go (?:struct field|value of type) (?:[a-z0-9_]+\.)*[a-z0-9_]*request\b";

/// (batch 27) A stream's event parser that met the end of its input before any JSON: the
/// event was empty because the stream stopped, not because the server sent a malformed one
/// (a GitHub app on anthropic-sdk-go's words: "Failed to parse Anthropic message stream event:
/// EOF while parsing a value at line 1 column 0"). Both a frame and an end must be present.
pub const STREAM_EVENT_FRAMES: &[&str] = &["stream event", "sse event", "stream chunk"];
/// The parsers' words for input that ended before a value began: serde_json's line 1 column 0
/// EOF, V8's "Unexpected end of JSON input", SpiderMonkey's "unexpected end of data at line 1
/// column 1".
pub const EMPTY_INPUT_ENDS: &[&str] = &[
    "eof while parsing a value at line 1 column 0",
    "unexpected end of json input",
    "unexpected end of data at line 1 column 1",
];

#[cfg(test)]
mod tests {
    //! Each decoder's own error text (the sources above), not the corpus's.
    use crate::category::Category;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn the_client_could_not_decode_the_reply_in_any_language() {
        for m in [
            // Swift Codable
            "typeMismatch(Swift.String, Swift.DecodingError.Context(codingPath: [CodingKeys(stringValue: \"created\", intValue: nil)], debugDescription: \"Expected to decode String but found a number instead.\", underlyingError: nil))",
            "valueNotFound(Swift.String, Swift.DecodingError.Context(codingPath: [], debugDescription: \"Expected String value but found null instead.\", underlyingError: nil))",
            "The data couldn’t be read because it is missing.",
            // Go encoding/json
            "json: cannot unmarshal number into Go struct field ChatCompletionResponse.id of type string",
            // Jackson
            "com.fasterxml.jackson.databind.exc.MismatchedInputException: Cannot deserialize value of type `java.lang.String` from Object value",
            "UnrecognizedPropertyException: Unrecognized field \"refusal\" (class ChatMessage), not marked as ignorable",
            // System.Text.Json
            "System.Text.Json.JsonException: The JSON value could not be converted to System.Int32. Path: $.usage.total_tokens",
            // kotlinx.serialization
            "kotlinx.serialization.json.internal.JsonDecodingException: Unexpected JSON token at offset 0: Expected start of the object '{', but had 'T' instead",
            "kotlinx.serialization.MissingFieldException: Field 'id' is required for type with serial name 'ChatCompletion', but it was missing",
            // pydantic v1 on a response model
            "1 validation error for Prediction\nstatus\n  unexpected value; permitted: 'starting', 'processing', 'succeeded' (type=value_error.const; given=queued)",
            "value is not a valid enumeration member; permitted: 'stop', 'length'",
            // Vercel AI SDK
            "No output generated. Check the stream for errors.",
        ] {
            let c = classify(&Failure::new(m));
            assert_eq!((c.category, c.transient), (Category::InvalidResponse, false), "{m}");
        }
    }

    #[test]
    fn a_server_decoding_the_request_is_the_requests_fault() {
        let c = classify(&Failure::new(
            "json: cannot unmarshal string into Go struct field ChatRequest.messages of type []api.Message",
        ));
        assert_eq!((c.category, c.transient), (Category::BadRequest, false));
        // The same words into a reply's struct are the reply's.
        let c = classify(&Failure::new(
            "json: cannot unmarshal number into Go struct field ChatCompletionResponse.id of type string",
        ));
        assert_eq!(c.category, Category::InvalidResponse);
    }

    #[test]
    fn decoders_classes_and_darts_words() {
        for chain in [
            &["com.fasterxml.jackson.databind.exc.MismatchedInputException"][..],
            &["System.Text.Json.JsonException", "System.Exception"],
            &["kotlinx.serialization.json.internal.JsonDecodingException"],
            &["AI_NoOutputGeneratedError", "AISDKError", "Error"],
        ] {
            let c = classify(&Failure::new("decoding failed").with_class(chain.iter().copied()));
            assert_eq!(
                (c.category, c.transient),
                (Category::InvalidResponse, false),
                "{chain:?}"
            );
        }
        let c = classify(&Failure::new(
            "FormatException: Unexpected character (at character 1)\n<html>",
        ));
        assert_eq!(c.category, Category::InvalidResponse);
    }

    #[test]
    fn a_reply_head_that_is_a_servers_error_page() {
        for m in [
            "SyntaxError: Unexpected token 'B', \"Bad Gateway\" is not valid JSON",
            "SyntaxError: Unexpected token 'S', \"Service Un\"... is not valid JSON",
            "invalid json response body at https://x/api reason: Unexpected token 'u', \"upstream c\"... is not valid JSON",
        ] {
            let c = classify(&Failure::new(m));
            if m.contains("\"upstream c") {
                // A proxy's own words for a connection it could not make.
                assert_eq!((c.category, c.transient), (Category::Connection, true), "{m}");
            } else if m.contains("...") {
                assert_eq!((c.category, c.transient), (Category::ServerError, true), "{m}");
            } else {
                // V8 quotes a short reply whole, without "...": read as any decode failure.
                assert!(!c.transient, "{m}");
            }
        }
        // Any other head is a reply of the wrong shape.
        let c = classify(&Failure::new(
            "SyntaxError: Unexpected token 'H', \"Hello ther\"... is not valid JSON",
        ));
        assert_eq!(c.category, Category::InvalidResponse);
    }

    #[test]
    fn a_reply_that_failed_to_decode_because_it_was_a_server_error() {
        let f = Failure::http(200, "keyNotFound(CodingKeys(stringValue: \"choices\", intValue: nil), Swift.DecodingError.Context(codingPath: [], debugDescription: \"No value associated with key\", underlyingError: nil))")
            .with_body("502 Bad Gateway: upstream server error");
        let c = classify(&f);
        assert!(c.transient, "{:?}", c.category);
    }

    // (batch 20) A status another layer quotes: node-fetch around V8's JSON.parse quoting the
    // first characters of a 5xx page, and requests' `raise_for_status` line inside a wrapper's
    // 5xx (requests/models.py).
    #[test]
    fn a_quoted_5xx_page_is_the_5xx() {
        for text in [
            "FetchError: invalid json response body at https://example.test/v1 reason: Unexpected token 'B', \"Bad Gatewa\"... is not valid JSON",
            "SyntaxError: Unexpected token 'S', \"Service Un\"... is not valid JSON",
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (Category::ServerError, true), "{text}");
        }
        // An HTML page with no reason phrase stays the parse error it is.
        let c = classify(&Failure::new(
            "SyntaxError: Unexpected token '<', \"<!DOCTYPE \"... is not valid JSON",
        ));
        assert!(!c.transient, "{c:?}");
    }

    #[test]
    fn a_requests_client_error_inside_a_5xx_is_the_client_error() {
        let c = classify(&Failure::http(
            502,
            "upstream failed: 400 Client Error: Bad Request for url: https://example.test/v1/chat",
        ));
        assert_eq!((c.category, c.transient), (Category::BadRequest, false));
        let c = classify(&Failure::http(
            500,
            "proxy: 401 Client Error: Unauthorized for url: https://example.test/v1/chat",
        ));
        assert_eq!((c.category, c.transient), (Category::Unauthorized, false));
    }

    /// (batch 25) A JSON decoder's error that quotes an HTML error page with its status in the
    /// title (requests' `JSONDecodeError` over a relay's 429 page, a proxy's 502/503 page): the
    /// page's status decides; a decoder's error over a page with no status stays a bad reply.
    #[test]
    fn an_html_error_page_under_a_decoder_is_its_status() {
        let class = [
            "requests.exceptions.JSONDecodeError",
            "json.JSONDecodeError",
            "ValueError",
        ];
        for (text, want, retry) in [
            ("[Errno Expecting value] <!doctype html><meta charset=\"utf-8\"><title>429</title>429 Too Many Requests: 0", Category::RateLimited, true),
            ("Expecting value: line 1 column 1 (char 0) <html><head><title>502 Bad Gateway</title></head>", Category::ServerError, true),
            ("Expecting value: line 1 column 1 (char 0) <html><title>401 Authorization Required</title>", Category::Unauthorized, false),
        ] {
            let c = classify(&Failure::new(text).with_class(class));
            assert_eq!((c.category, c.transient), (want, retry), "{text}");
        }
        let c = classify(
            &Failure::new("Expecting value: line 1 column 1 (char 0) <html><title>Welcome</title>")
                .with_class(class),
        );
        assert_eq!(
            (c.category, c.transient),
            (Category::InvalidResponse, false)
        );
    }
}

#[cfg(test)]
mod js_engine_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 26) Each JavaScript engine's `JSON.parse` words (V8, SpiderMonkey, JavaScriptCore;
    /// sources at `PHRASES`) are an answer that did not parse.
    #[test]
    fn every_js_engines_json_parse_error_is_an_invalid_answer() {
        for text in [
            "SyntaxError: Unexpected non-whitespace character after JSON at position 124 (line 2 column 1)",
            "SyntaxError: Unterminated string in JSON at position 4096",
            "SyntaxError: Bad control character in string literal in JSON at position 12",
            "SyntaxError: JSON.parse: unexpected end of data at line 1 column 1 of the JSON data",
            "SyntaxError: JSON.parse: unexpected character at line 1 column 1 of the JSON data",
            "SyntaxError: JSON.parse: unterminated string at line 1 column 90 of the JSON data",
            "SyntaxError: JSON Parse error: Unexpected EOF",
            "SyntaxError: JSON Parse error: Unrecognized token '<'",
        ] {
            let c = classify(&Failure::new(text).with_class(["SyntaxError"]));
            assert_eq!((c.category, c.transient), (InvalidResponse, false), "{text}");
        }
    }
}

#[cfg(test)]
mod batch27b_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// An empty event at the end of a stream is a cut; the same EOF on a whole body stays an
    /// unusable reply.
    #[test]
    fn empty_stream_event_is_a_cut() {
        for msg in [
            "Error: Failed to parse Anthropic message stream event:\nEOF while parsing a value at line 1 column 0",
            "failed to parse SSE event: Unexpected end of JSON input",
            "Could not parse stream chunk: JSON.parse: unexpected end of data at line 1 column 1 of the JSON data",
        ] {
            let c = classify(&Failure::new(msg));
            assert_eq!((c.category, c.transient), (StreamInterrupted, true), "{msg}");
        }
        let c = classify(&Failure::new(
            "EOF while parsing a value at line 1 column 0",
        ));
        assert_eq!(c.category, InvalidResponse);
    }
}
