//! (batch 32a) Words SDKs and their runtimes print for a failure, in families the main tables
//! did not hold: a Google client's deadline, a retry helper's give-up on its deadline, a host's
//! first-byte limit, a model package built for another SDK major, a model the endpoint does not
//! serve, request parameters that exclude each other, an address field given a host name, and
//! a provider's Chinese words for high demand.

use super::{said, Phrase};
use crate::category::Category::*;

/// Words that name a deadline that ran out. Google answers one with gRPC's `DEADLINE_EXCEEDED`,
/// which google-api-core maps to a 504 (`DeadlineExceeded(GatewayTimeout)`): under a 5xx the
/// deadline is the failure's nature, the status only its carrier (`refine_status`).
pub const DEADLINE: &[&str] = &["deadline exceeded", "deadline_exceeded"];

/// Read before the main permanent tables.
pub const PERMANENT: &[Phrase] = &[
    // Python's `ipaddress.ip_address` / `ip_network` given a host name (cpython
    // Lib/ipaddress.py: "%r does not appear to be an IPv4 or IPv6 address" / "network"), raised
    // where a client parses a proxy or no-proxy setting: set-up, before any request.
    said("does not appear to be an ipv4 or ipv6", Configuration),
    // The AI SDK refusing a model package built for another major of its specification
    // (vercel/ai `UnsupportedModelVersionError`: "Unsupported model version v1 for provider
    // ... AI SDK 5 only supports models that implement specification version \"v2\""): the
    // installed packages must be aligned; no request is sent.
    said("unsupported model version", Configuration),
    said("only supports models that implement specification version", Configuration),
    // A model the called endpoint does not serve ("this model is not valid for chat
    // completion!", Cohere through an OpenAI-style route; "This model is not supported by the
    // Responses API", Azure AI Foundry): the request goes to the wrong route for the model.
    said("not valid for chat completion", BadRequest),
    said("not valid for chat completions", BadRequest),
    said("not supported by the responses api", BadRequest),
    said("not supported in the responses api", BadRequest),
    said("not supported with the responses api", BadRequest),
    // Parameters of a request that exclude each other (llama-server: "Either \"json_schema\" or
    // \"grammar\" can be specified, but not both"): the request is refused as written.
    said("can be specified, but not both", BadRequest),
    said("can be provided, but not both", BadRequest),
    said("but not both", BadRequest),
    said("are mutually exclusive", BadRequest),
    // Replicate's refusal of a model version whose setup runs fail ("Sorry, this version is
    // currently disabled due to failing setupruns."): it serves nothing until its owner fixes
    // it, which no retry budget outlasts.
    said("version is currently disabled", NotFound),
];

/// Transient words, read with the main transient table.
pub const TRANSIENT: &[Phrase] = &[
    // google-api-core's retry helper giving up when its deadline ran out (api_core
    // retry_unary.py: "Deadline of 120.0s exceeded while calling target function", newer
    // "Timeout of 600.0s exceeded while calling target function"): the calls kept failing
    // transiently until the deadline, a timeout.
    said("exceeded while calling target function", Timeout),
    // A host's limit on a function's first byte (Vercel: "Your function was stopped as it did
    // not return an initial response within 25s"): the model was still generating.
    said("did not return an initial response within", Timeout),
    // An HTTP/2 stream reset for a protocol error, as Qt's network stack words it (GPT4All:
    // "error code \"0-HTTP/2 protocol error\""); Chrome's ERR_HTTP2_PROTOCOL_ERROR and Go's
    // "PROTOCOL_ERROR; received from peer" are read by the network table already.
    said("http/2 protocol error", Connection),
    // A provider's words for high demand in Chinese (VS Code Copilot's zh-cn string:
    // "上游模型提供程序当前遇到高需求"): shared capacity, as "high demand" is in English.
    said("高需求", Overloaded),
    said("需求量过大", Overloaded),
    said("需求过高", Overloaded),
];
