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
//! - Vercel AI Gateway (`@ai-sdk/gateway` `asGatewayError`, production): "Unauthenticated.
//!   Configure AI_GATEWAY_API_KEY or use a provider module."; its development form
//!   "Unauthenticated request to AI Gateway."; gRPC's `UNAUTHENTICATED`; the
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
    // (llama.cpp `tools/server/utils.hpp` `oaicompat_chat_params_parse` and `tokenize_input_prompts`,
    // `common/chat.cpp` `common_chat_msgs_parse_oaicompat`: each a `std::runtime_error` or
    // `std::invalid_argument` about a field of the request, answered 500 by builds before the
    // server mapped them to 400.)
    stated("expected 'messages' to be an array", BadRequest),
    stated("expected 'content' to be a string or an array", BadRequest),
    stated(
        "all non-assistant messages must contain 'content'",
        BadRequest,
    ),
    stated(
        "assistant message must contain either 'content' or 'tool_calls'",
        BadRequest,
    ),
    stated("missing 'role' in message", BadRequest),
    stated("missing content part type", BadRequest),
    stated("unsupported content part type", BadRequest),
    stated(
        "cannot have 2 or more assistant messages at the end of the list",
        BadRequest,
    ),
    stated("cannot use tools with stream", BadRequest),
    stated("cannot use both json_schema and grammar", BadRequest),
    stated(
        "cannot use custom grammar constraints with tools",
        BadRequest,
    ),
    stated("only one completion choice is allowed", BadRequest),
    stated("top_logprobs requires logprobs", BadRequest),
    stated("response_format type must be one of", BadRequest),
    stated("\"prompt\" must be a string", BadRequest),
    stated("\"prompt\" must not be empty", BadRequest),
    // ("no user query found in messages" is in `agents`, read before these.)
    // The server was started without the templates tool calls need: set-up, not the request.
    stated("tools param requires --jinja flag", Configuration),
    // A chat template that refuses the conversation's shape.
    stated("system role not supported", BadRequest),
    stated("roles must alternate", BadRequest),
    // Credentials the gateway was not given: a person must configure them. The word as a
    // sentence or a status name ("Unauthenticated. Configure ...", grpc-js "16 UNAUTHENTICATED:
    // ...", grpc-go "code = Unauthenticated desc"), never "unauthenticated requests" (GitHub's
    // rate limit for callers without a token).
    stated("unauthenticated.", Unauthorized),
    stated("unauthenticated:", Unauthorized),
    stated("code = unauthenticated", Unauthorized),
    // @ai-sdk/gateway's development form of the same error ("Unauthenticated request to AI
    // Gateway. To authenticate, set the AI_GATEWAY_API_KEY environment variable").
    stated("unauthenticated request to ai gateway", Unauthorized),
    // The British spelling of the main tables' "unauthorized" (DeepInfra's `{"error":
    // "Unauthorised"}`), read the same way.
    said("unauthorised", Unauthorized),
    // A model that will not load or launch.
    stated("do load request", Configuration),
    stated("failed to launch model", Configuration),
    stated("no available slot found for the model", Configuration),
    stated("could not load engine", Configuration),
    stated("could not load library", Configuration),
    stated("when creating modelinstancestate", Configuration),
    stated("check failed: type_code_", Configuration),
    // A server with no model loaded to answer (Jan/cortex.cpp "Model has not been loaded, please
    // load model into cortex.llamacpp"; LM Studio "No models loaded. Please load a model in the
    // developer page or use the `lms load` command."): someone must load one. (llama.cpp's 503
    // "Loading model" is a load under way, transient, and not here.)
    stated("model has not been loaded", Configuration),
    // (LM Studio answers it under a 404 `model_not_found`, which keeps its status.)
    said("no models loaded", Configuration),
    // A server's schema check of the request body (FastAPI's `RequestValidationError`, whose
    // errors carry `loc` from "body"; vLLM's and FastChat's servers answer `str(exc.errors())`
    // under their own envelope, FastAPI itself `{"detail": [{"loc": ["body", ...]}]}`): the
    // request failed the server's schema.
    said("'loc': ('body',", BadRequest),
    said("\"loc\":[\"body\",", BadRequest),
    said("\"loc\": [\"body\",", BadRequest),
    // A prompt over the context the model was loaded with.
    stated("is greater than max_seq_len", ContextOverflow),
    stated("exceed session max length", ContextOverflow),
    stated("exceeds session max length", ContextOverflow),
    stated("the kv cache is full", ContextOverflow),
    // (batch 21) The provider's own words over its generic 400: OpenAI's missing key ("You
    // didn't provide an API key. You need to provide your API key in an Authorization header")
    // and unknown route ("Invalid URL (POST /v1/chat/completion)", its 404); the embeddings
    // endpoint's input over the model ("Invalid 'input': maximum context length is 8192
    // tokens."); Vertex AI Imagen's safety filter ("The response is blocked, as it may violate
    // our policies", cloud.google.com/vertex-ai/generative-ai/docs/image/responsible-ai-imagen).
    stated("didn't provide an api key", Unauthorized),
    stated("did not provide an api key", Unauthorized),
    stated("may violate our policies", ContentFiltered),
    // A server or relay that refuses this client's version, whatever status it picks (a
    // PandoraNext relay's 429 "It is recommended to upgrade to the latest PandoraNext"; "Please
    // upgrade your client"; "client version is too old"): the same client is refused again
    // until a person upgrades it.
    stated("recommended to upgrade to the latest", ClientError),
    stated("please upgrade your client", ClientError),
    stated("client version is too old", ClientError),
    stated("client version is no longer supported", ClientError),
    // (batch 23) A backend that does not implement the call: LocalAI's `pkg/grpc/base/base.go`
    // answers every method a backend leaves out with `fmt.Errorf("unimplemented")`, which gRPC
    // carries as "rpc error: code = Unknown desc = unimplemented" under the API's 500; the same
    // on every try until the model's backend changes (gRPC's UNIMPLEMENTED is permanent too).
    stated("desc = unimplemented", Configuration),
    // (batch 23) A caller state the server names, under whatever status wraps it: a chat web
    // backend's {"code":"Bad_Request","details":"The chat is in progress!"} relayed in a 500
    // (AppsGanin/ai-free-vscode#7). The same call meets the same state until the caller ends
    // its earlier turn; not retrying is the cheaper mistake.
    stated("chat is in progress", BadRequest),
    stated("conversation is in progress", BadRequest),
    // (batch 25) LM Studio / llama.cpp's truncation refusal: "Cannot truncate prompt with
    // n_keep (15028) >= n_ctx (7424)" (the prompt to keep is over the loaded context); older
    // llama.cpp servers: "the request exceeds the available context size, try increasing it".
    stated("cannot truncate prompt with n_keep", ContextOverflow),
    stated("exceeds the available context size", ContextOverflow),
    // (batch 25) A count limit on the request's inputs (Qianfan rerank 336221 "max number of
    // documents is 64"; rerank/embedding APIs' "too many documents", "maximum number of
    // documents"): the request must be split, the same on every try.
    stated("max number of documents", BadRequest),
    stated("maximum number of documents", BadRequest),
    stated("too many documents", BadRequest),
    // (batch 26) A prompt over the engine's KV cache or loaded length, in each engine's words:
    // ik_llama.cpp / llama.cpp `examples/server` "Input prompt is too big compared to KV size.
    // Please try increasing KV size."; llama.cpp "the request exceeds the available context
    // size" (above); vLLM "Input prompt (N tokens) is too long and exceeds limit of M";
    // IBM TGIS (`fmaas`) "input tokens (N) plus prefix length (M) must be < 4096"; Moonshot
    // "model max length exceeded, max length:8192"; Claude Code's own budget check
    // "availableContext N is less than FLOOR_OUTPUT_TOKENS 3000" (the conversation leaves no
    // room for the answer). The same prompt fails the same way on the next try.
    stated("too big compared to kv size", ContextOverflow),
    stated("input prompt is too big", ContextOverflow),
    stated("is too long and exceeds limit of", ContextOverflow),
    stated("plus prefix length", ContextOverflow),
    stated("max length exceeded", ContextOverflow),
    stated("maximum length exceeded", ContextOverflow),
    stated("floor_output_tokens", ContextOverflow),
    // (batch 26) A count limit on a batch (text-embeddings-inference's validation, as
    // opea-project/GenAIComps#564 quotes it: "batch size 270 > maximum allowed batch size 32",
    // set by its `--max-client-batch-size`): split the request.
    stated("maximum allowed batch size", BadRequest),
    // (batch 26) gRPC's own size guard between an app and its backend (grpc-go `rpc_util.go`
    // "grpc: received message larger than max (N vs. M)", "grpc: trying to send message larger
    // than max"; grpc core "Received message larger than max"): answered as RESOURCE_EXHAUSTED
    // but the limit is the channel's set-up (LocalAI's backend channel), not a rate.
    stated("received message larger than max", Configuration),
    stated("trying to send message larger than max", Configuration),
    stated("sent message larger than max", Configuration),
    // (batch 26) A sampling parameter the model accepts only at one value (Kimi k2 / reasoning
    // models: "invalid temperature: only 1 is allowed for this model"; OpenAI o-series
    // "Unsupported value: 'temperature' does not support 0.7 with this model. Only the default
    // (1) value is supported."): the same request fails again.
    stated("invalid temperature", BadRequest),
    stated("only the default (1) value is supported", BadRequest),
    stated("only 1 is allowed for this model", BadRequest),
    // (batch 26) The web relays' login token (LLM-Red-Team's step-free-api wraps the upstream
    // refusal as its generic request-failed code -2001 "[请求step失败]: token is missing", so
    // the words, not the code, decide; "token has expired" is the same refusal for a stale
    // one): the credential is absent or stale, the same on every try.
    stated("token is missing", Unauthorized),
    stated("token has expired", Unauthorized),
    // (batch 27) A prompt over the loaded window in the local engines' words, under whatever
    // 500 the server around them answers: llama-cpp-python `llama.py` ValueError("Requested
    // tokens (N) exceed context window of M"), the MLX-style servers' "Requested tokens exceed
    // context window of M" (the same words without the count).
    stated("exceed context window", ContextOverflow),
    stated("exceeds context window", ContextOverflow),
    // (batch 27) Triton's core (`src/model.cc` Model::GetInput / GetOutput, INVALID_ARG):
    // "unexpected inference input 'x' for model 'm'", "... output ...": the request names a
    // tensor the model does not declare; the same request fails again.
    stated("unexpected inference input", BadRequest),
    stated("unexpected inference output", BadRequest),
    // (batch 28) OpenAI's refusal of a model on an endpoint that does not serve it, in every
    // client's rendering (openai-python, theokanning openai-java, apps' prefixes): "This is not
    // a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to
    // use v1/completions?", its mirror "This is a chat model and not supported in the
    // v1/completions endpoint. Did you mean to use v1/chat/completions?", and the Responses-only
    // models' "This model is only supported in v1/responses and not in v1/chat/completions.".
    // The corpus labels the 404 form not_found (b19b AnythingLLM, b22b Semantic Kernel): the
    // model is not served where it was asked for, with or without the status. (The mirror, a
    // chat model on v1/completions, is labelled bad_request in b20a (openai-kit), so it is
    // left to the status and the envelope.)
    stated("not a chat model", NotFound),
    stated("only supported in v1/responses", NotFound),
    // (batch 28) Cloudflare's API v4 routing codes (7000 "No route for that URI", 7003 "Could not
    // route to /accounts/.../ai/v1, perhaps your object identifier is invalid?"): the configured
    // base URL or account id names nothing; a retry meets the same route table.
    stated("no route for that uri", Configuration),
    stated("perhaps your object identifier is invalid", Configuration),
    // (batch 28) OpenAI's request-schema validator ("'json_object' is not of type 'object' -
    // 'response_format'", "None is not of type 'string' - 'messages.1.content'"): a field of
    // the request has the wrong JSON type.
    said("is not of type 'object' - '", BadRequest),
    said("is not of type 'string' - '", BadRequest),
    said("is not of type 'array' - '", BadRequest),
    // (batch 30a) An error code that names the request's input invalid, under whatever status
    // the server chose (InferKit's "500 - INVALID_INPUT"): the same input fails again.
    stated("invalid_input", BadRequest),
];

/// A server's transient state in its own words: MLC's prefix cache refusing a block another
/// sequence still references (`paged_kv_cache.cc` "The block is N-time referenced by other
/// blocks, thus cannot accept new KV values."): the next request meets the block released.
pub const TRANSIENT: &[Phrase] = &[
    said("cannot accept new kv values", ServerError),
    // TabbyAPI `endpoints/OAI/utils/completion.py` logs and answers "FATAL ERROR with
    // generation" when the backend's generator raised mid-request: the engine's, not the call's.
    said("fatal error with generation", ServerError),
    // (batch 25) A gateway that waited for its upstream and got nothing (RFC 9110 §15.6.5 504
    // "did not receive a timely response from an upstream server"; lobe-chat's 504 "the server
    // did not receive a response from the upstream server"; nginx "upstream timed out"): a timeout.
    said("did not receive a response from the upstream", Timeout),
    said("did not receive a timely response", Timeout),
    // (batch 25) Elixir Finch/Req: "Finch streaming task exited: {:noproc, ...}" with events
    // already relayed: the stream's process died mid-answer.
    said("streaming task exited", StreamInterrupted),
    said(STREAM_BROKE[0], StreamInterrupted),
    said(STREAM_BROKE[1], StreamInterrupted),
    // (batch 26) Cog (`cog/server/worker.py` FatalWorkerException): "Prediction failed for an
    // unknown reason. It might have run out of memory? (exitcode N)": the worker died, memory
    // that frees up on a fresh worker.
    said("might have run out of memory", ServerError),
];

/// (batch 26) A gateway's own word that its upstream stream broke ("Error occured during
/// streaming: '<model>'" as opencode's gateway sends it as a chunk, misspelt as served; the
/// correct spelling too): the answer had started, a cut stream, also where a decoder's class
/// (the AI SDK's `AI_TypeValidationError`) quotes the chunk that said so.
pub const STREAM_BROKE: &[&str] = &[
    "error occured during streaming",
    "error occurred during streaming",
];

/// A gateway's own code for an upstream that did not answer, under its generic 400 (Cloudflare
/// AI Gateway's error 2005 "Failed to get response from provider"; ngrok's ERR_NGROK_3800
/// "Could not reach the AI provider. The upstream request failed."): the provider's failure,
/// relayed, not the request's.
pub const UPSTREAM_UNDER_4XX: &[Phrase] = &[
    said("failed to get response from provider", ServerError),
    said("could not reach the ai provider", ServerError),
    // fasthttp (client.go ErrConnectionClosed), relayed by a gateway built on it under its 400.
    said(
        "closed connection before returning the first response byte",
        Connection,
    ),
    // (batch 22) .NET's proxy CONNECT refused by the proxy with a 5xx ("The proxy tunnel request
    // to proxy '{0}' failed with status code '{1}'.", dotnet/runtime System.Net.Http
    // Strings.resx net_http_proxy_tunnel_returned_failure_status_code), under an app's own 400
    // (microsoft/chat-copilot#313): the request never reached the provider. (A proxy's '407'
    // is its credentials, not here.)
    said("failed with status code '502'", Connection),
    said("failed with status code '503'", Connection),
    said("failed with status code '504'", Connection),
    // (batch 29a) NVIDIA NIM / NVCF: "Function id 'X': DEGRADED function cannot be invoked"
    // under its 400 (ninerouter#2527, freellmapi#522): the hosted function's health, which
    // returns; not the request's.
    said("degraded function cannot be invoked", ServerError),
    // (batch 29a) Ollama's runner not ready ("unexpected server status: 1", ollama `llm/server.go`
    // `fmt.Errorf("unexpected server status: %s", ...)`, its ServerStatus by number or by name:
    // 1 no slot, 2 loading model, 3 not responding, 4 error), relayed under its OpenAI layer's
    // 400 (ollama/ollama#3844; Continue ignores the words as Ollama's transient state). The
    // words with any other status after them are an app's own and not here.
    said("unexpected server status: 1", ServerError),
    said("unexpected server status: 2", ServerError),
    said("unexpected server status: 3", ServerError),
    said("unexpected server status: 4", ServerError),
    said("unexpected server status: llm", ServerError),
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
    // (batch 21) OpenAI's answer for a route it does not have ("Invalid URL (POST
    // /v1/chat/completion)", its 404): read before the main tables' client-side "invalid url".
    said("invalid url (post /", NotFound),
    said("invalid url (get /", NotFound),
    said("invalid url (put /", NotFound),
    said("invalid url (delete /", NotFound),
];

/// (batch 21) The reason OpenAI gives after naming a parameter ("Invalid 'input': maximum context
/// length is 8192 tokens." from the embeddings endpoint): the reason decides over the main
/// tables' bare "invalid '" (bad request). ("string too long" is not here: under a tool call's
/// id it is the request's shape, under a message's content its length.)
pub const REASON_AFTER_PARAM: &[Phrase] = &[
    stated("': maximum context length", ContextOverflow),
    // (batch 29) A message's content over OpenAI's per-string cap ("Invalid
    // 'messages[0].content': string too long. Expected a string with maximum length 10485760").
    stated("content': string too long", ContextOverflow),
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
    // (batch 30) gRPC-style clients' transport failures (Warp: "Agent Mode request failed:
    // Internal error occurred at transport layer."): the connection failed under the request,
    // whatever "internal" says (read before the
    // main tables' "internal error").
    said("at transport layer", Connection),
    said("at the transport layer", Connection),
];

/// (batch 23) A stated answer under a connection class: Obsidian's `requestUrl` error
/// ("Request failed, status 400"), the cause a plugin's SDK wraps as "APIConnectionError:
/// Connection error. ... Caused by: Error: Request failed, status 400"
/// (logancyang/obsidian-copilot#925). The answer came, and its 4xx wins over the wrapper's
/// class (read with `text::network()`).
pub const ANSWER_UNDER_A_CONNECTION_CLASS: &[Phrase] = &[
    said("request failed, status 400", BadRequest),
    said("request failed, status 401", Unauthorized),
    said("request failed, status 404", NotFound),
    said("request failed, status 413", ContextOverflow),
    said("request failed, status 422", BadRequest),
];

#[cfg(test)]
mod tests {
    //! Phrasings from the servers' and SDKs' sources named above, not from the corpus.
    use crate::category::Category;
    use crate::classify::classify;
    use crate::failure::Failure;

    fn cat(f: &Failure) -> (Category, bool) {
        let c = classify(f);
        (c.category, c.transient)
    }

    fn llama_cpp_500(message: &str) -> Failure {
        let body =
            format!(r#"{{"error":{{"code":500,"message":"{message}","type":"server_error"}}}}"#);
        Failure::http(500, message).with_body(body)
    }

    #[test]
    fn a_request_fault_stated_under_a_servers_500_is_not_retried() {
        for m in [
            "Failed to parse tool call arguments as JSON: [json.exception.parse_error.101] parse error at line 1, column 7: syntax error while parsing object - invalid literal",
            "[json.exception.type_error.302] type must be string, but is null",
            "[json.exception.out_of_range.403] key 'messages' not found",
            "Expected 'content' to be a string or an array",
            "Assistant message must contain either 'content' or 'tool_calls'!",
            "Cannot have 2 or more assistant messages at the end of the list.",
            "Cannot use custom grammar constraints with tools.",
            "top_logprobs requires logprobs to be set to true",
            "response_format type must be one of \\\"text\\\" or \\\"json_object\\\", but got: xml",
            "Only one completion choice is allowed",
            "no user query found in messages",
            "System role not supported",
        ] {
            assert_eq!(cat(&llama_cpp_500(m)), (Category::BadRequest, false), "{m}");
        }
        // A Python server's KeyError on the field its handler looked up.
        assert_eq!(
            cat(&Failure::http(
                500,
                "{'error': {'message': \"KeyError('top_k')\", 'code': 500}}"
            )),
            (Category::BadRequest, false)
        );
        // A server started without what tool calls need: set-up.
        assert_eq!(
            cat(&llama_cpp_500("tools param requires --jinja flag")),
            (Category::Configuration, false)
        );
    }

    #[test]
    fn a_servers_schema_check_of_the_request_body() {
        for f in [
            // FastAPI's 422 detail and vLLM's envelope around `str(exc.errors())`, as a client
            // logs them without the status.
            Failure::new(
                r#"{"detail":[{"type":"missing","loc":["body","model"],"msg":"Field required","input":{}}]}"#,
            ),
            Failure::new(
                "{\"object\":\"error\",\"message\":\"[{'type': 'string_type', 'loc': ('body', 'model'), 'msg': 'Input should be a valid string'}]\",\"code\":400}",
            ),
        ] {
            assert_eq!(cat(&f), (Category::BadRequest, false), "{}", f.message);
        }
    }

    #[test]
    fn a_server_with_no_model_loaded() {
        let m = "Model has not been loaded, please load model into cortex.llamacpp";
        assert_eq!(
            cat(&Failure::http(409, m)),
            (Category::Configuration, false)
        );
        assert_eq!(
            cat(&Failure::http(500, m)),
            (Category::Configuration, false)
        );
        let m = "No models loaded. Please load a model in the developer page or use the `lms load` command.";
        assert_eq!(cat(&Failure::new(m)), (Category::Configuration, false));
        // Under LM Studio's own 404 `model_not_found` the status keeps its reading.
        assert_eq!(cat(&Failure::http(404, m)), (Category::NotFound, false));
        // A load under way answers again soon.
        let body = r#"{"error":{"code":503,"message":"Loading model","type":"unavailable_error"}}"#;
        assert!(cat(&Failure::http(503, body).with_body(body)).1);
    }

    #[test]
    fn a_wrappers_500_around_a_requests_client_error() {
        let m = "500 Server Error: Internal Server Error for url: http://relay/v1/chat | detail: upstream said 422 Client Error: Unprocessable Entity for url: https://api.example.com/v1/chat";
        assert_eq!(
            cat(&Failure::http(500, m)),
            (Category::Unprocessable, false)
        );
        // A 429 quoted the same way stays the rate limit.
        let m = "500 Server Error: relay failed: 429 Client Error: Too Many Requests for url: https://api.example.com";
        assert_eq!(cat(&Failure::http(500, m)), (Category::RateLimited, true));
    }

    #[test]
    fn a_gateway_key_never_set_is_set_up() {
        // @ai-sdk/gateway's development form names the variable to set: the credentials-unset
        // family (`agents::CREDENTIAL_UNSET`) reads it first, as set-up; never retried.
        let c = classify(&Failure::http(
            500,
            "Unauthenticated request to AI Gateway.\n\nTo authenticate, set the AI_GATEWAY_API_KEY environment variable with your API key.",
        ));
        assert_eq!((c.category, c.transient), (Category::Configuration, false));
    }

    #[test]
    fn a_keyerror_on_a_reply_key_or_unauthenticated_callers_rate_stay_what_they_are() {
        // A KeyError on a key of the provider's reply is not the request's fault.
        assert_ne!(
            cat(&Failure::http(500, "Internal error: KeyError('choices')")).0,
            Category::BadRequest
        );
        // GitHub's rate limit for callers without a token names them "unauthenticated".
        assert_eq!(
            cat(&Failure::http(
                429,
                "API rate limit exceeded for 10.0.0.1. For unauthenticated requests, the rate limit allows for up to 60 requests per hour."
            ))
            .0,
            Category::RateLimited
        );
    }

    #[test]
    fn credentials_a_gateway_was_not_given_under_its_500() {
        for m in [
            "Unauthenticated request to AI Gateway.",
            "16 UNAUTHENTICATED: Request had invalid authentication credentials.",
            "rpc error: code = Unauthenticated desc = missing credentials",
        ] {
            assert_eq!(cat(&Failure::http(500, m)).0, Category::Unauthorized, "{m}");
        }
        // The British spelling, as DeepInfra answers it (no status kept): read as "unauthorized".
        assert_eq!(
            cat(&Failure::new("{\"error\": \"Unauthorised\"}")),
            (Category::Unauthorized, false)
        );
    }

    #[test]
    fn the_servers_own_failures_stay_retried() {
        // A 500 with a server's own words, none of them a fault of the request.
        for m in [
            "llama runner process has terminated: exit status 2",
            "CUDA out of memory. Tried to allocate 2.00 GiB",
            "Internal server error",
            "upstream connect error or disconnect/reset before headers",
        ] {
            assert!(cat(&Failure::http(500, m)).1, "{m}");
        }
        // MLC's prefix cache refusing a block still referenced: the next request meets it free.
        assert_eq!(
            cat(&Failure::new(
                "The block is 2-time referenced by other blocks, thus cannot accept new KV values."
            )),
            (Category::ServerError, true)
        );
    }

    #[test]
    fn a_model_that_will_not_load_or_launch() {
        for m in [
            "do load request: Post \"http://127.0.0.1:33333/load\": EOF",
            "Failed to launch model, detail: [address=127.0.0.1:4000, pid=1] No available slot found for the model",
            "Could not load engine: Could not load library \"libengine.so\"",
            "UNAVAILABLE: Internal: unexpected error when creating modelInstanceState: [TensorRT-LLM][ERROR] Assertion failed: tp * pp == worldSize",
            "Check failed: type_code_ == kTVMPackedFuncHandle (0 vs. 10) : expected FunctionHandle but got int",
        ] {
            assert_eq!(cat(&Failure::http(500, m)).0, Category::Configuration, "{m}");
            assert_eq!(cat(&Failure::new(m)).0, Category::Configuration, "{m}");
        }
    }

    #[test]
    fn local_servers_words_for_a_prompt_over_the_loaded_context() {
        for m in [
            "Request length 9000 is greater than max_seq_len 8192",
            "ValueError: Request length 4000 + 512 is greater than max_seq_len 4096",
            "exceed session max length. Please end the session.",
            "Check failed: (!free_page_ids_.empty()) is false: The KV cache is full. No page can be allocated.",
        ] {
            assert_eq!(cat(&Failure::new(m)), (Category::ContextOverflow, false), "{m}");
            assert_eq!(cat(&Failure::http(500, m)), (Category::ContextOverflow, false), "{m}");
        }
    }

    #[test]
    fn grpc_unavailable_that_never_connected_is_a_connection() {
        for m in [
            "[StatusCode.UNAVAILABLE] failed to connect to all addresses; last error: UNKNOWN: ipv4:127.0.0.1:8001: Failed to connect to remote host: Connection refused",
            "UNAVAILABLE: failed to connect to all addresses",
            "[StatusCode.UNAVAILABLE] Socket operation on non-socket",
            "[StatusCode.UNAVAILABLE] DNS resolution failed for triton:8001",
        ] {
            assert_eq!(cat(&Failure::new(m)), (Category::Connection, true), "{m}");
        }
        // The bare status stays the server's.
        assert!(cat(&Failure::new("UNAVAILABLE: Server is shutting down")).1);
    }

    #[test]
    fn a_gateways_400_around_an_upstream_that_did_not_answer() {
        let body = r#"{"success":false,"result":[],"messages":[],"error":[{"code":2005,"message":"Failed to get response from provider"}]}"#;
        assert_eq!(
            cat(&Failure::http(400, body).with_body(body)),
            (Category::ServerError, true)
        );
        assert_eq!(
            cat(&Failure::http(
                400,
                "Could not reach the AI provider. The upstream request failed."
            )),
            (Category::ServerError, true)
        );
    }

    #[test]
    fn an_allowance_that_resets_within_a_stated_short_wait_is_a_rate_limit() {
        assert_eq!(
            cat(&Failure::http(429, "Your quota will reset after 45s.")),
            (Category::RateLimited, true)
        );
        assert_eq!(
            cat(&Failure::http(
                429,
                "You have exhausted your capacity on this model. Your quota will reset after 2m10s."
            )),
            (Category::RateLimited, true)
        );
        // Hours away: the plan's allowance, not retried.
        assert_eq!(
            cat(&Failure::http(429, "Your quota will reset after 5h3m2s.")),
            (Category::PaymentRequired, false)
        );
        // Money never resets by waiting.
        assert!(
            !cat(&Failure::http(
                429,
                "Insufficient credits: your quota will reset after 30s once you add credits to your billing plan."
            ))
            .1
        );
    }

    #[test]
    fn a_model_the_provider_says_it_does_not_have() {
        for m in [
            "400 '\"unknown model \\\"mistral-large3\\\"\"'",
            "The model you requested is unavailable in your region. To access it, enable cross region inference.",
        ] {
            assert_eq!(cat(&Failure::http(400, m)).0, Category::NotFound, "{m}");
        }
    }

    #[test]
    fn fastchat_codes_under_its_400() {
        let f = |code: u32| {
            let body = format!(r#"{{"object":"error","message":"","code":{code}}}"#);
            cat(&Failure::http(400, body.clone()).with_body(body))
        };
        assert_eq!(f(50006), (Category::Timeout, true));
        assert_eq!(f(50002), (Category::ServerError, true));
        assert_eq!(f(42901), (Category::RateLimited, true));
        assert_eq!(f(40301).0, Category::NotFound);
        assert_eq!(f(40101), (Category::Unauthorized, false));
    }

    /// (batch 23) Phrasings from the threads cited at each row: a stated caller state and a
    /// stated 4xx win over a 500 or a connection class; a far end not reached and an h2 reset
    /// are connections.
    #[test]
    fn batch_23_stated_answers_and_unreached_ends() {
        let f = Failure::http(
            500,
            r#"Reason: Unexpected non-SSE response: {"data":{"code":"Bad_Request","details":"The chat is in progress!"}}"#,
        );
        assert_eq!(cat(&f), (Category::BadRequest, false));
        let f = Failure::new("APIConnectionError: Connection error.\n    at OpenAI.makeRequest Caused by: Error: Request failed, status 400")
            .with_class(["APIConnectionError", "OpenAIError", "Error"]);
        assert_eq!(cat(&f), (Category::BadRequest, false));
        for m in [
            "Request failed with error: Transport(reqwest::Error { kind: Request, source: hyper_util::client::legacy::Error(SendRequest, hyper::Error(Http2, Error { kind: Reset(StreamId(9), NO_ERROR, Remote) })) })",
            "stream error received: unspecific protocol error detected",
            r#"{"error": true, "message": "Fail to fetch"}"#,
            "Make sure that the vLLM server is running and reachable at http://localhost:8000/v1/completions.",
        ] {
            assert_eq!(cat(&Failure::new(m)), (Category::Connection, true), "{m}");
        }
    }

    #[test]
    fn browsers_fetch_type_errors_are_connections() {
        for m in [
            "Failed to fetch",
            "NetworkError when attempting to fetch resource.",
            "Load failed",
            "Error sending message: TypeError: NetworkError when attempting to fetch resource.",
        ] {
            let f = Failure::new(m).with_class(["TypeError", "Error"]);
            assert_eq!(cat(&f), (Category::Connection, true), "{m}");
        }
    }

    #[test]
    fn a_reason_phrase_as_the_last_clause() {
        for (m, want) in [
            ("Error: API request failed: Not Found", Category::NotFound),
            (
                "Error: API request failed: Unauthorized",
                Category::Unauthorized,
            ),
            (
                "Error: API request failed: Too Many Requests",
                Category::RateLimited,
            ),
            (
                "Error: API request failed: Bad Gateway",
                Category::ServerError,
            ),
        ] {
            assert_eq!(cat(&Failure::new(m)).0, want, "{m}");
        }
    }
}

#[cfg(test)]
mod batch21_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 21) The provider's words over its generic status: a missing key, an unknown route,
    /// an embedding input over the model, Imagen's safety block, a relay refusing the client's
    /// version (under a 429 too), TabbyAPI's failed generation (under any status).
    #[test]
    fn provider_words_over_the_status() {
        for (status, text, want, retry) in [
            (400, "You didn't provide an API key. You need to provide your API key in an Authorization header", Unauthorized, false),
            (404, "Invalid URL (GET /v1/model)", NotFound, false),
            (400, "Invalid 'input': maximum context length is 8191 tokens.", ContextOverflow, false),
            (400, "Image generation failed: The response is blocked, as it may violate our policies.", ContentFiltered, false),
            (429, "It is recommended to upgrade to the latest version: https://example.com", ClientError, false),
            (426, "Please upgrade your client", ClientError, false),
            (500, "FATAL ERROR with generation: CUDA out of memory", ServerError, true),
        ] {
            let c = classify(&Failure::http(status, text));
            assert_eq!((c.category, c.transient), (want, retry), "{status} {text}");
        }
        let c = classify(&Failure::new("Error: OPENAI_API_KEY is not set"));
        assert_eq!((c.category, c.transient), (Configuration, false));
    }
}

/// (batch 22) Permanent natures read before the main tables, whose broader rows would claim the
/// same words: Gemini's function-call turn-order rule (the main tables' "function response turn"
/// is a pairing error; an out-of-order turn is the request's shape, not a missing response), and
/// a one-api / new-api relay's "no channel serves this model for your group", which it answers
/// with 503 although no later try can pass until the model or group changes.
/// - Gemini 400 INVALID_ARGUMENT: "Please ensure that function call turn comes immediately after
///   a user turn or after a function response turn." (xincmm/sageread#8; the Gemini API's
///   function-calling docs on turn order).
/// - new-api middleware/distributor.go: "分组 %s 下模型 %s 无可用渠道（distributor）" with code
///   model_not_found; its i18n English "No available channels for model %s under group %s" /
///   "No available channels for model %s in group %s"; one-api middleware/distributor.go:
///   "当前分组 %s 下对于模型 %s 无可用渠道" (songquanpeng/one-api). Under a 503 they are stated:
///   `NotFound` is in `tables::STATED_IN_WORDS`.
/// - DashScope's moderation through compatible mode, misspelt as served: "input data may contain
///   inappropiate content" (errs.dmxapi.cn id 1648); the main tables hold the correct spelling.
/// - Groq: code `model_decommissioned`, "The model `X` has been decommissioned and is no longer
///   supported." (console.groq.com/docs/deprecations).
///
/// (TGI's bare "`max_new_tokens` must be <= N" is not here: the corpus reads it as the 422's
/// unprocessable parameter (tgi.json, tgi_validation_b5), its sum form as context overflow.)
pub const READ_FIRST: &[Phrase] = &[
    stated("function call turn comes immediately after", BadRequest),
    stated("no available channels for model", NotFound),
    stated("no available channel for model", NotFound),
    stated("无可用渠道", NotFound),
    stated("inappropiate content", ContentFiltered),
    said("model_decommissioned", NotFound),
    said("has been decommissioned", NotFound),
    // (batch 25) A router with no provider behind the model (Hugging Face's router
    // `router.huggingface.co`: "The requested model 'X' is not supported by any provider you
    // have enabled.", its passthrough "Model not supported by provider together"): the model is
    // unknown where the request went, under the 400 it answers.
    stated("not supported by any provider", NotFound),
    stated("model not supported by provider", NotFound),
    stated("model is not supported by provider", NotFound),
    // (batch 25) llama.cpp/ggml memory words under a model load (Ollama "llama runner process
    // has terminated: error loading model: unable to allocate backend buffer"; ggml-backend
    // "failed to allocate buffer", llama.cpp "failed to allocate compute buffers", "unable to
    // allocate CUDA0 buffer"): memory, which frees up (`engines::TRANSIENT`), read before the
    // main tables' "error loading model" (set-up).
    said("unable to allocate backend buffer", ServerError),
    said("failed to allocate compute buffers", ServerError),
    said("unable to allocate cuda0 buffer", ServerError),
    said("not enough available memory", ServerError),
    // (batch 26) A FastAPI-style body that names a throttle ({"detail":"Rate limit exceeded"},
    // as Sourcegraph's "Anthropic API failed with: ..." relays it), even where the client then
    // failed to parse that body as its answer: the server's own words decide.
    stated("{\"detail\":\"rate limit exceeded\"}", RateLimited),
    stated("{\"detail\": \"rate limit exceeded\"}", RateLimited),
    stated("{\"detail\":\"too many requests\"}", RateLimited),
    // (batch 29a) A llama.cpp-family engine with no KV cells left for the batch (llama.cpp
    // `llama_decode`: "failed to find free space in the KV cache", older "failed to find KV
    // cache slot for ubatch"; LocalAI relays it from `update_slots`): the prompt over the loaded
    // context, the same on every try (ggml-org/llama.cpp#6603, mudler/LocalAI#2282).
    stated("failed to find free space in the kv cache", ContextOverflow),
    stated("failed to find kv cache slot", ContextOverflow),
    // (batch 29a) A relay with no upstream that serves the model (gpt-load's
    // `no_available_candidate` "No available upstream candidate."), the sibling of new-api's
    // "no available channel for model" above and read the same way under its 503.
    stated("no available upstream candidate", NotFound),
    stated("no_available_candidate", NotFound),
    // (batch 29a) LM Studio's unknown route ("Unexpected endpoint or method. (POST
    // /v1/models/unload)", lmstudio-ai/lmstudio-bug-tracker#1680): not found where it went.
    stated("unexpected endpoint or method", NotFound),
    // (batch 29a) LM Studio's Responses API: "Prediction history node with id 'X' not found
    // while attempting to build chat history chain" (lmstudio-bug-tracker#1188): the request
    // names a previous response the server does not hold; the request must change.
    stated("while attempting to build chat history chain", BadRequest),
    stated("prediction history node with id", BadRequest),
    // (batch 29a) A gateway refusing a parameter for one provider (LiteLLM's OCI adapter
    // "param `n` is not supported on OCI" under its 500; LiteLLM's UnsupportedParamsError
    // "does not support parameters"): the request's shape, the same on every try.
    stated("is not supported on oci", BadRequest),
    // (batch 29a) marshmallow's schema error (KoboldAI's API: {"detail": {"stop_sequence":
    // ["Unknown field."]}}, SillyTavern#93): a field the server's schema does not know.
    stated("'unknown field.'", BadRequest),
    stated("\"unknown field.\"", BadRequest),
];

#[cfg(test)]
mod batch22_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 22) Phrasings from the relays', servers' and clients' sources named in the tables:
    /// the words decide over a generic or transient status, and a pairing row does not swallow
    /// Gemini's turn-order rule.
    #[test]
    fn words_read_before_the_broader_rows() {
        for (status, text, want, retry) in [
            // new-api / one-api distributor, English and Chinese, under their 503.
            (503, "No available channels for model gpt-5 under group default (request id: x)", NotFound, false),
            (503, "No available channel for model deepseek-v4 under group vip (distributor)", NotFound, false),
            (503, "当前分组 default 下对于模型 gpt-4o 无可用渠道", NotFound, false),
            (503, "分组 auto 下模型 gemini-pro 无可用渠道（distributor）", NotFound, false),
            (400, "Please ensure that function call turn comes immediately after a user turn or after a function response turn.", BadRequest, false),
            (400, "Output data may contain inappropiate content.", ContentFiltered, false),
            (400, "The model `llama3-70b-8192` has been decommissioned and is no longer supported.", NotFound, false),
            // .NET's refused proxy tunnel under an app's own 400; a proxy's 407 is not retried.
            (400, "Retry failed after 2 tries. (The proxy tunnel request to proxy 'http://p:8080/' failed with status code '502'.)", Connection, true),
        ] {
            let c = classify(&Failure::http(status, text));
            assert_eq!((c.category, c.transient), (want, retry), "{status} {text}");
        }
        for (text, want, retry) in [
            ("Error: The model `mixtral-8x7b-32768` has been decommissioned and is no longer supported.", NotFound, false),
            ("The proxy tunnel request to proxy 'http://p:8080/' failed with status code '407'.", Configuration, false),
            // Without a status of its own the quoted '503' is read as the status: a server
            // error, retried all the same.
            ("The proxy tunnel request to proxy 'http://p:8080/' failed with status code '503'.", ServerError, true),
            ("reqwest::Error { kind: Request, source: hyper_util::client::legacy::Error(SendRequest, hyper::Error(ChannelClosed)) }", Connection, true),
            ("error sending request: client error (SendRequest): dispatch task is gone: runtime dropped the dispatch task", Connection, true),
            ("Unexpected JSON token at offset 0: Expected start of the object '{', but had ' ' instead at path: $", InvalidResponse, false),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, retry), "{text}");
        }
    }
}

#[cfg(test)]
mod batch23a_tests {
    use crate::category::Category;
    use crate::classify::classify;
    use crate::failure::Failure;

    fn cat(f: &Failure) -> (Category, bool) {
        let c = classify(f);
        (c.category, c.transient)
    }

    /// (batch 23) Families of batch 23a, each read on a phrasing other than the corpus case's.
    #[test]
    fn batch_23a_families_hold_beyond_their_cases() {
        // LocalAI `pkg/grpc/base/base.go`: every method a backend leaves out is "unimplemented",
        // here on the embeddings route, under its 500: set-up, never retried.
        let f = Failure::http(500, "rpc error: code = Unknown desc = unimplemented").with_body(
            r#"{"error":{"code":500,"message":"rpc error: code = Unknown desc = unimplemented","type":""}}"#,
        );
        assert_eq!(cat(&f), (Category::Configuration, false));
        // anyio's EndOfStream leaking through httpcore (encode/httpcore#808), with no text.
        let f = Failure::new("").with_class(["anyio.EndOfStream", "Exception"]);
        assert_eq!(cat(&f), (Category::Connection, true));
        // Go's context.Canceled on a model call another client words the same way.
        let f = Failure::new("OpenAI: error getting response from LLM: context canceled");
        assert_eq!(cat(&f), (Category::Timeout, true));
        // grpc core's never-connected channel under google-api-core's 503, another last error.
        let f = Failure::http(
            503,
            "503 failed to connect to all addresses; last error: UNAVAILABLE: ipv4:10.0.0.1:443: Socket closed",
        );
        assert_eq!(cat(&f), (Category::Connection, true));
        // Zhipu 1003 (docs.bigmodel.cn api-code "Token 已过期") as served, without the space.
        let f = Failure::new("Error code: 1003, Authorization Token已过期");
        assert_eq!(cat(&f), (Category::Unauthorized, false));
        // MATLAB jsondecode on a reply cut short, another expected token.
        let f = Failure::new("JSON syntax error: expected ',' or '}' but found end of text.");
        assert_eq!(cat(&f), (Category::InvalidResponse, false));
    }
}

#[cfg(test)]
mod batch25a_tests {
    use crate::category::Category::{self, *};
    use crate::classify::classify;
    use crate::failure::Failure;

    fn cat(f: &Failure) -> (Category, bool) {
        let c = classify(f);
        (c.category, c.transient)
    }

    /// (batch 25) A router with no provider behind the model, in the router's wordings
    /// (huggingface.js / router.huggingface.co), under the 400 it answers: not found.
    #[test]
    fn router_without_a_provider_for_the_model() {
        for f in [
            Failure::http(400, "The requested model 'meta-llama/Llama-3.3-70B-Instruct' is not supported by any provider you have enabled."),
            Failure::http(400, "{\"error\":\"Model not supported by provider fireworks-ai\"}"),
            Failure::new("400 The requested model 'Qwen/Qwen3-32B' is not supported by any provider you have enabled."),
            // Under a 503 an app relays it with, and with the router's code (public threads quoting
            // `{'message': "...", 'code': 'model_not_supported'}`).
            Failure::http(503, "The requested model 'meta-llama/Llama-3.2-1B-Instruct' is not supported by any provider you have enabled."),
            Failure::http(400, "Bad request: {'message': \"The requested model 'X' is not supported by any provider you have enabled.\", 'code': 'model_not_supported'}"),
        ] {
            assert_eq!(cat(&f), (NotFound, false), "{f:?}");
        }
        // A parameter a provider does not support is not a missing model.
        assert_ne!(
            cat(&Failure::http(
                400,
                "Parameter 'tools' is not supported by this provider"
            ))
            .0,
            NotFound
        );
    }

    /// (batch 25) Memory gone while a model loads (ggml/llama.cpp allocator words, Ollama's
    /// runner): transient, read before the set-up "error loading model".
    #[test]
    fn memory_words_under_a_model_load() {
        for m in [
            "Error: llama runner process has terminated: error loading model: unable to allocate backend buffer",
            "llama_new_context_with_model: failed to allocate compute buffers",
            "error loading model: unable to allocate CUDA0 buffer",
            "Error: llama runner exited, you may not have enough available memory to run this model",
        ] {
            assert_eq!(cat(&Failure::new(m)), (ServerError, true), "{m}");
        }
        // A model file that will not load for another reason stays set-up.
        assert!(
            !cat(&Failure::new(
                "error loading model: unknown model architecture: 'foo'"
            ))
            .1
        );
    }

    /// (batch 25) The prompt to keep over the loaded context (LM Studio / llama.cpp): context
    /// overflow, whatever status wraps it.
    #[test]
    fn prompt_over_the_loaded_context() {
        for f in [
            Failure::new("Cannot truncate prompt with n_keep (15028) >= n_ctx (7424)"),
            // LM Studio's other wording of the same refusal.
            Failure::http(400, "{\"error\":\"Trying to keep the first 6269 tokens when context the overflows. However, the model is loaded with context length of only 4096 tokens, which is not enough. Try to load the model with a larger context length, or provide a shorter input\"}"),
            Failure::http(
                500,
                "{\"error\":\"Cannot truncate prompt with n_keep (4270) >= n_ctx (4096)\"}",
            ),
            Failure::http(
                400,
                "the request exceeds the available context size, try increasing it",
            ),
        ] {
            assert_eq!(cat(&f), (ContextOverflow, false), "{f:?}");
        }
    }

    /// (batch 25) Count limits on a request's inputs (Qianfan rerank 336221; rerank APIs).
    #[test]
    fn input_count_limits() {
        for f in [
            Failure::new("api request req_id: as-x failed with error code: 336221, err msg: max number of documents is 64"),
            Failure::http(400, "{\"message\":\"too many documents, at most 1000 allowed\"}"),
            Failure::http(500, "The maximum number of documents is 100"),
        ] {
            assert_eq!(cat(&f), (BadRequest, false), "{f:?}");
        }
    }

    /// (batch 25) Words that say a gateway waited for its upstream and got nothing: a timeout
    /// where no status speaks; under a 504 the status's server error stays (CONTRACT §2).
    #[test]
    fn gateway_waited_for_its_upstream() {
        for m in [
            "Sorry, the server did not receive a response from the upstream server. Please try again later.",
            "The gateway did not receive a timely response from the upstream server.",
        ] {
            assert_eq!(cat(&Failure::new(m)), (Timeout, true), "{m}");
            assert_eq!(cat(&Failure::http(504, m)), (ServerError, true), "{m}");
        }
    }

    /// (batch 25) Elixir Finch's streaming task gone mid-answer: the stream was cut.
    #[test]
    fn finch_streaming_task_exited() {
        let f = Failure::new("Finch streaming task exited: {:noproc, {GenServer, :call, [#PID<0.1.0>, {:http_event, {:data, \"event: content_block_delta\"}}, 5000]}}");
        assert_eq!(cat(&f), (StreamInterrupted, true));
    }
}

#[cfg(test)]
mod batch26b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each_with as check;

    /// (batch 26) A FastAPI throttle body inside a client's parse failure.
    #[test]
    fn throttle_body_inside_a_parse_failure() {
        check(vec![
            (Failure::new("error parsing response: SyntaxError: Unexpected token A in JSON at position 0, response text: OpenAI API failed with: {\"detail\":\"Rate limit exceeded\"}"), RateLimited, true),
            (Failure::new("Unexpected token T, response text: {\"detail\": \"Too many requests\"}"), RateLimited, true),
        ]);
    }
}

#[cfg(test)]
mod batch26_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 26) Sibling wordings of the families added above, from the sources named at the
    /// rows: the stated fault decides with or without a status around it.
    #[test]
    fn engines_words_for_a_prompt_over_the_loaded_context() {
        for (status, text, want) in [
            (None, "Input prompt is too big compared to KV size. Please try increasing KV size.", ContextOverflow),
            (Some(500), "{\"error\":{\"code\":500,\"message\":\"Input prompt is too big compared to KV size.\",\"type\":\"server_error\"}}", ContextOverflow),
            (Some(400), "The decoder prompt (length 9000) is longer than the maximum model length of 8192. Input prompt (9000 tokens) is too long and exceeds limit of 8192", ContextOverflow),
            (Some(400), "3 INVALID_ARGUMENT: input tokens (5000) plus prefix length (20) must be < 4096", ContextOverflow),
            (Some(400), "model max length exceeded, max length:32768", ContextOverflow),
            (None, "availableContext 120 is less than FLOOR_OUTPUT_TOKENS 3000", ContextOverflow),
            (Some(413), "batch size 64 > maximum allowed batch size 32", BadRequest),
            (None, "rpc error: code = ResourceExhausted desc = grpc: trying to send message larger than max (5000000 vs. 4194304)", Configuration),
            (Some(400), "invalid temperature: only 1 is allowed for this model", BadRequest),
            (Some(400), "Unsupported value: 'temperature' does not support 0.2 with this model. Only the default (1) value is supported.", BadRequest),
            (None, "{'code': -2001, 'message': '[请求kimi失败]: token is missing', 'data': None}", Unauthorized),
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (want, false), "{status:?} {text}");
        }
    }

    /// (batch 26) Transient words: a gateway's stream that broke, a worker that died.
    #[test]
    fn a_broken_stream_or_worker_is_retried() {
        for (text, want) in [
            ("{\"error\":\"Error occurred during streaming: 'claude-sonnet-4'\"}", StreamInterrupted),
            ("Prediction failed for an unknown reason. It might have run out of memory? (exitcode -9)", ServerError),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, true), "{text}");
        }
        // The AI SDK's decoder class quoting the chunk that said so.
        let f = Failure::new("Type validation failed: Value: {\"id\":\"x\",\"error\":\"Error occurred during streaming: 'gpt-5'\"}.")
            .with_class(["AI_TypeValidationError", "Error"]);
        assert_eq!(classify(&f).category, StreamInterrupted);
    }
}

#[cfg(test)]
mod batch27a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 27) A prompt over the loaded window and a tensor the model does not declare, in
    /// the servers' own words, decide over the 500 around them.
    #[test]
    fn local_engines_state_the_request_fault() {
        for (status, text, want) in [
            // llama-cpp-python llama.py ValueError, as quoted in threads and tests
            (Some(500), "Requested tokens (5136) exceed context window of 4096", ContextOverflow),
            (None, "ValueError: Requested tokens (18690) exceed context window of 7168", ContextOverflow),
            // an MLX-style server's form without the count
            (Some(500), "Requested tokens exceed context window of 2048", ContextOverflow),
            // Triton core src/model.cc GetInput; the config validator's "allowed inputs" form
            (None, "{\"detail\":\"unexpected inference input 'return_num_input_tokens' for model 'llama'\"}", BadRequest),
            (Some(500), "unexpected inference input 'ids', allowed inputs are: input_ids, attention_mask", BadRequest),
            (Some(400), "unexpected inference output 'logits' for model 'bert'", BadRequest),
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (want, false), "{status:?} {text}");
        }
    }
}

#[cfg(test)]
mod batch28a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 28) A model asked for on an endpoint that does not serve it, Cloudflare's
    /// routing codes and OpenAI's request-schema types, under any status or none.
    #[test]
    fn wrong_endpoints_routes_and_field_types_are_permanent() {
        for (status, text, want) in [
            // openai-python NotFoundError, as apps print it
            (None, "Error code: 404 - {'error': {'message': 'This is not a chat model and thus not supported in the v1/chat/completions endpoint. Did you mean to use v1/completions?', 'type': 'invalid_request_error'}}", NotFound),
            // theokanning openai-java OpenAiHttpException, no status kept
            (None, "com.theokanning.openai.OpenAiHttpException: This is not a chat model and thus not supported in the v1/chat/completions endpoint.", NotFound),
            (None, "This model is only supported in v1/responses and not in v1/chat/completions.", NotFound),
            // Cloudflare API v4 7000/7003 (an account id or base URL that routes nowhere)
            (Some(400), "{\"success\":false,\"errors\":[{\"code\":7003,\"message\":\"Could not route to /accounts/abc/ai/run, perhaps your object identifier is invalid?\"}]}", Configuration),
            (Some(404), "{\"success\":false,\"errors\":[{\"code\":7000,\"message\":\"No route for that URI\"}],\"messages\":[],\"result\":null}", Configuration),
            // OpenAI's schema validator through openai-php and openai-python
            (None, "'json_object' is not of type 'object' - 'response_format'", BadRequest),
            (Some(400), "None is not of type 'string' - 'messages.1.content'", BadRequest),
            (Some(400), "'hello' is not of type 'array' - 'stop'", BadRequest),
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (want, false), "{status:?} {text}");
        }
    }
}

#[cfg(test)]
mod batch29a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 29a) Engines', relays' and servers' own words over the status they chose; sources
    /// beside the rows in `READ_FIRST` and `UPSTREAM_UNDER_4XX`.
    #[test]
    fn engine_and_relay_words_decide() {
        for (status, text, want, retry) in [
            (
                500,
                "decode: failed to find free space in the KV cache",
                ContextOverflow,
                false,
            ),
            (
                500,
                "failed to find KV cache slot for ubatch of size 512",
                ContextOverflow,
                false,
            ),
            (
                503,
                "err=no_available_candidate err_msg=\"No available upstream candidate.\"",
                NotFound,
                false,
            ),
            (
                404,
                "Unexpected endpoint or method. (GET /v1/foo)",
                NotFound,
                false,
            ),
            (
                500,
                "param `temperature` is not supported on OCI",
                BadRequest,
                false,
            ),
            (
                422,
                "{\"detail\": {\"max_tokens\": [\"Unknown field.\"]}}",
                BadRequest,
                false,
            ),
            (
                400,
                "{\"detail\":\"Function id 'abc': DEGRADED function cannot be invoked\"}",
                ServerError,
                true,
            ),
            (
                400,
                "{'error': {'message': 'unexpected server status: llm server loading model'}}",
                ServerError,
                true,
            ),
            (
                400,
                "{'error': {'message': 'unexpected server status: 1', 'type': 'api_error'}}",
                ServerError,
                true,
            ),
        ] {
            let c = classify(&Failure::http(status, text));
            assert_eq!((c.category, c.transient), (want, retry), "{status} {text}");
        }
        for (text, want, retry) in [
            ("update_slots : failed to find free space in the KV cache, retrying with smaller n_batch", ContextOverflow, false),
            ("Unexpected endpoint or method, (POST /v1/models/unload)", NotFound, false),
            ("Prediction history node with id 'r1' not found while attempting to build chat history chain that includes this node.", BadRequest, false),
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (want, retry), "{text}");
        }
        // An app's own "unexpected server status" with an HTTP status after it is not Ollama's.
        let c = classify(&Failure::http(
            400,
            "Unexpected server status 404: Not Found",
        ));
        assert_ne!(c.category, ServerError);
    }
}

#[cfg(test)]
mod batch29b_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 29) A message content over OpenAI's per-string cap is the input's length, under
    /// any status; a tool call id "string too long" stays the request's shape.
    #[test]
    fn content_string_too_long_is_context() {
        for (status, text, want) in [
            (Some(400), "Error code: 400 - Invalid 'messages[0].content': string too long", ContextOverflow),
            (None, "Invalid 'messages[3].content': string too long. Expected a string with maximum length 10485760, but got a string with length 12000000 instead.", ContextOverflow),
            (Some(400), "Invalid 'messages[1].tool_calls[0].id': string too long. Expected a string with maximum length 40", BadRequest),
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            assert_eq!(classify(&f).category, want, "{status:?} {text}");
        }
    }
}
