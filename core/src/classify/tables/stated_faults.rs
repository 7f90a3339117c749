//! (batch 20) A server's own statement of what was wrong, read over the status it answered
//! with. Self-hosted servers answer almost every exception with a 500 (llama.cpp's HTTP layer
//! returns `e.what()` of any exception as `server_error`; text-generation-webui and FastChat
//! wrap any Python exception; a gateway relays its own set-up fault as a 500): the status says
//! only "the handler threw", the words say what threw. When the words are the parser of the
//! request, a template refusing a role, a request field the handler looked up, credentials not
//! configured, a model that will not load or a prompt over the loaded context, the same request
//! fails the same way on the next try. Only words that name such a fault of the request or the
//! set-up are here; a server's own failure words (a dead engine, memory, a connection) stay
//! transient (`engines::TRANSIENT`).
//!
//! Sources (the servers' and libraries' own strings):
//! - llama.cpp: `common/chat.cpp` "Failed to parse tool call arguments as JSON" (a tool call in
//!   the request's history whose `arguments` are not JSON); `tools/server/utils.hpp` and
//!   `server.cpp` answer the exception's text as `{"code":500,...,"type":"server_error"}`.
//! - nlohmann/json (llama.cpp's JSON library): `exceptions.hpp` "[json.exception.parse_error.101]
//!   parse error at line 1, column 1: attempting to parse an empty input; check that your input
//!   string or stream contains the expected JSON", "syntax error while parsing value - unexpected
//!   end of input", "[json.exception.type_error.302] type must be string, but is null",
//!   "[json.exception.out_of_range.403] key 'x' not found": the request body or a field in it.
//! - Jinja chat templates (llama.cpp's minja, vLLM, TGI, mistral.rs): "Conversation roles must
//!   alternate user/assistant/user/assistant/...", "System role not supported" (Gemma's
//!   template `raise_exception('System role not supported')`).
//! - Python servers (text-generation-webui's `extensions/openai`, FastChat, LocalAI's Python
//!   backends): a `KeyError('field')` in the handler's body is the request's missing field.
//! - Vercel AI Gateway (`@ai-sdk/gateway` `GatewayAuthenticationError`): "Unauthenticated.
//!   Configure AI_GATEWAY_API_KEY or use a provider module."; gRPC's `UNAUTHENTICATED`; the
//!   British "Unauthorised" (DeepInfra's `{"error": "Unauthorised"}`).
//! - Model loading: Ollama `llm/server.go` `fmt.Errorf("do load request: %w", err)` (the runner
//!   died while loading the weights: an unsupported model or too little memory, the same on every
//!   try); Xinference `xinference/core/worker.py` "Failed to launch model", "No available slot
//!   found for the model" (every GPU is taken by another model); Jan/cortex "Could not load
//!   engine", "Could not load library"; Triton "unexpected error when creating
//!   modelInstanceState" (TensorRT-LLM's `TLLM_CHECK` assertion while building the instance);
//!   TVM/MLC "Check failed: type_code_ == kTVMPackedFuncHandle" (a compiled model library that
//!   does not match the runtime).
//! - Context over the loaded length: TabbyAPI `backends/exllamav2/model.py` "Request length N is
//!   greater than max_seq_len M" (also "... + N is greater than"); LMDeploy
//!   `lmdeploy/serve/async_engine.py` "exceed session max length. Please end the session.";
//!   MLC/WebLLM `paged_kv_cache.cc` "The KV cache is full. No page can be allocated."

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Faults of the request, the set-up or the loaded model that a server's text states: `stated`,
/// so a 5xx (or a transient code) around them is still the same failure on the next try.
pub const PERMANENT: &[Phrase] = &[
    // The request's JSON, or JSON inside it (tool-call arguments), as the server's parser saw it.
    stated("failed to parse tool call arguments", BadRequest),
    stated("failed to parse tool call args", BadRequest),
    stated("json.exception.parse_error", BadRequest),
    stated("json.exception.type_error", BadRequest),
    stated("json.exception.out_of_range", BadRequest),
    stated("attempting to parse an empty input", BadRequest),
    // A chat template that refuses the conversation's shape.
    stated("system role not supported", BadRequest),
    stated("roles must alternate", BadRequest),
    // A handler that looked up a field the request did not carry (Python's KeyError repr).
    stated("keyerror('", BadRequest),
    stated("keyerror(\"", BadRequest),
    // Credentials the gateway was not given: a person must configure them.
    stated("unauthenticated", Unauthorized),
    stated("unauthorised", Unauthorized),
    // A model that will not load or launch.
    stated("do load request", Configuration),
    stated("failed to launch model", Configuration),
    stated("no available slot found for the model", Configuration),
    stated("could not load engine", Configuration),
    stated("could not load library", Configuration),
    stated("when creating modelinstancestate", Configuration),
    stated("check failed: type_code_", Configuration),
    // A prompt over the context the model was loaded with.
    stated("is greater than max_seq_len", ContextOverflow),
    stated("exceed session max length", ContextOverflow),
    stated("exceeds session max length", ContextOverflow),
    stated("the kv cache is full", ContextOverflow),
];

/// A server's transient state in its own words: MLC's prefix cache refusing a block another
/// sequence still references (`paged_kv_cache.cc` "The block is N-time referenced by other
/// blocks, thus cannot accept new KV values."): the next request meets the block released.
pub const TRANSIENT: &[Phrase] = &[said("cannot accept new kv values", ServerError)];

/// A gateway's own code for an upstream that did not answer, under its generic 400 (Cloudflare
/// AI Gateway's error 2005 "Failed to get response from provider"; ngrok's ERR_NGROK_3800
/// "Could not reach the AI provider. The upstream request failed."): the provider's failure,
/// relayed, not the request's.
pub const UPSTREAM_UNDER_4XX: &[Phrase] = &[
    said("failed to get response from provider", ServerError),
    said("could not reach the ai provider", ServerError),
];

/// (batch 20) Models the provider says it does not have, read before the main tables' "unknown
/// model" (a client's own registry, set-up): Snowflake Cortex's `"unknown model \"name\""` (the
/// server names the model it was asked for) and "The model you requested is unavailable in your
/// region" (docs.snowflake.com cross-region inference): not found where the call went.
pub const MODEL_ABSENT: &[Phrase] = &[
    said("unknown model \\\"", NotFound),
    said("unknown model \"", NotFound),
    said("unavailable in your region", NotFound),
    said("not available in your region", NotFound),
];

/// (batch 20) Allowances that name their reset: payment when the reset is hours or days away
/// (Gemini Code Assist's "Your quota will reset after 8h44m7s"), a rate limit when the text
/// states a wait of under an hour ("Your quota will reset after 20s"): the stated short wait is
/// the remedy. Money words (a balance, credits) never reset by waiting and are not here.
pub const RESETTING_ALLOWANCES: &[&str] = &["quota will reset", "exhausted your capacity"];

/// (batch 20) gRPC's words under UNAVAILABLE for a channel that never connected (grpc core
/// `pick_first` "failed to connect to all addresses; last error: ..."; the socket's strerror
/// ENOTSOCK "Socket operation on non-socket"; "DNS resolution failed"): a connection failure,
/// read before the bare status name.
pub const GRPC_CONNECTION: &[Phrase] = &[
    said("failed to connect to all addresses", Connection),
    said("socket operation on non-socket", Connection),
    said("dns resolution failed", Connection),
];
