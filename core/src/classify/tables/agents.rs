//! Phrase families in the words of agent clients, gateways and self-hosted servers that print a
//! failure without its status (batch 16 of the corpus, a plain sample of public threads): a
//! gateway's "upstream request failed", a client's "streaming response failed", a server "could
//! not be reached", vLLM's dead engine, Cloudflare's 520 page and block page, an empty or
//! unparsable reply. Each row names one nature in any client's words, not one product's
//! message: "stream completed without" its final event, "high concurrency" over a limit.
//! `text::permanent` and `text::transient` compile these rows after the main tables, so they
//! only decide where those said nothing.

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Permanent natures: an unusable reply, a refused model, a server's missing flag, a block page.
pub const PERMANENT: &[Phrase] = &[
    // LiteLLM's exception name run together ("litellm.ContentPolicyViolationError: Azure
    // Exception - Error code: 400").
    said("contentpolicyviolationerror", ContentFiltered),
    // The reply came but could not be used (Cline's "The provider returned an empty or
    // unparsable response", "did not provide any assistant messages"; a router's "LLM returned
    // invalid response"; "Response blocked or incomplete").
    said("unparsable response", InvalidResponse),
    said("unparseable response", InvalidResponse),
    said("did not provide any assistant messages", InvalidResponse),
    said("returned invalid response", InvalidResponse),
    said("returned an invalid response", InvalidResponse),
    said("blocked or incomplete", InvalidResponse),
    // Pydantic AI gave up on the model's structured output ("Exceeded maximum retries (1) for
    // result validation"; newer releases say "output validation").
    said("for result validation", Validation),
    said("for output validation", Validation),
    // The key may not use the model (Dify's "No permission to use this model").
    said("no permission to use", Forbidden),
    // Cloudflare's block page in front of an API ("Attention Required! | Cloudflare", "Please
    // enable cookies."): the client is refused, not the server down.
    said("attention required! | cloudflare", Forbidden),
    said("please enable cookies", Forbidden),
    // vLLM started without tool calling ("\"auto\" tool choice requires
    // --enable-auto-tool-choice and --tool-call-parser to be set").
    said("--enable-auto-tool-choice", BadRequest),
    // LM Studio's "No models loaded" (as "No model is loaded": the server's set-up).
    said("no models loaded", Configuration),
    // (batch 17) A local server that cannot load the model file (Ollama's 500 "unable to load
    // model", a newer architecture than the server knows): the server's set-up, the same on
    // every retry, so it overrules the 500.
    stated("unable to load model", Configuration),
    // A chat template that fails on this request (minijinja's "Value is not callable" under a
    // llama.cpp-style server's 500; the same request fails the same way each time).
    stated("value is not callable", BadRequest),
    // DashScope's code for a bad key run together ("InvalidApiKey. Error message: Invalid
    // API-key provided."), and the hyphenated "API-key" other servers print.
    said("invalidapikey", Unauthorized),
    said("invalid api-key", Unauthorized),
    // An unpaid bill (Zed: "Outstanding invoices. Please update your payment information").
    said("outstanding invoice", PaymentRequired),
    said("outstanding invoices", PaymentRequired),
    said("unpaid invoice", PaymentRequired),
    said("unpaid invoices", PaymentRequired),
    said("update your payment information", PaymentRequired),
    // FastAPI/Starlette's 404 body printed by a client ({"detail":"Not Found"}, LangChain4j's
    // OpenAiHttpException): the route or model does not exist.
    said("{\"detail\":\"not found\"}", NotFound),
    said("{\"detail\": \"not found\"}", NotFound),
    // Bedrock's output-length check ("The maximum tokens you requested exceed the model limit
    // of 4096"): the request's max tokens, not its input.
    said("maximum tokens you requested", BadRequest),
    // A client that could not build its model or client object before any call ("Error
    // creating: gpt-4.1|openai", Obsidian Copilot): its set-up.
    said("error creating:", Configuration),
    // (batch 18) An answer with nothing in it, in a framework's words (CrewAI's "Invalid
    // response from LLM call - None or empty.", crewAI src/crewai/utilities/agent_utils.py).
    said("none or empty", InvalidResponse),
    said("invalid response from llm", InvalidResponse),
    // A relay that could not decode the upstream's reply: one-api's "error unmarshalling stream
    // response" and `unmarshal_response_body_failed` (songquanpeng/one-api relay/adaptor), a
    // Go adapter's "response is not 'text/event-stream'", SiliconFlow clients' 响应格式不正确
    // (the response's format is not right).
    said("error unmarshalling", InvalidResponse),
    said("unmarshal_response_body_failed", InvalidResponse),
    said("not 'text/event-stream'", InvalidResponse),
    said("not text/event-stream", InvalidResponse),
    said("响应格式不正确", InvalidResponse),
    said("响应格式错误", InvalidResponse),
    // Python's AttributeError ("'NoneType' object has no attribute 'x'", docs.python.org
    // exceptions): the caller's code met a value of the wrong shape; a retry repeats it.
    said("object has no attribute", Programming),
    // A client with no model configured (DSPy's `assert lm is not None`, "No LM is loaded.").
    said("no lm is loaded", Configuration),
    // An assistant given nothing to call ("No APIs provided", Home Assistant's llm helper when
    // the conversation agent has no LLM API selected): the set-up, the same every time.
    said("no apis provided", Configuration),
    // A gateway's required routing header absent (Portkey: "Either x-portkey-config or
    // x-portkey-provider header is required"): set-up, nothing reached a model.
    // (A credential's header missing is the key's: "Authorization header is required".)
    said("authorization header is required", Unauthorized),
    said("api-key header is required", Unauthorized),
    said("header is required", Configuration),
    // An agent could not parse the model's code or tool call (smolagents' AgentParsingError
    // "Error in code parsing"): the output's shape, retried only when configured.
    said("error in code parsing", Validation),
    // A coding agent whose model sent tool arguments that do not fit the tool's schema (Zed's
    // "Failed to receive tool input: missing field `path`", a serde error on the model's JSON):
    // the model's output, retried only when configured.
    said("failed to receive tool input", Validation),
    // Cloud credentials that are gone (google-auth's RefreshError "Reauthentication is needed.
    // Please run `gcloud auth application-default login`"; Baidu Qianfan code 14 "IAM
    // Certification failed", cloud.baidu.com Qianfan error codes).
    stated("reauthentication is needed", Unauthorized),
    said("iam certification failed", Unauthorized),
    // A refusal of the client itself ("You have been blocked", a risk-control block: "Abnormal
    // access behavior detected by risk control", 风控).
    said("you have been blocked", Forbidden),
    said("risk control", Forbidden),
    said("风控", Forbidden),
    // A plan that does not include the model (Zhipu 1311 当前订阅套餐暂未开放{model}权限,
    // docs.bigmodel.cn error codes; 无权限 / 没有权限, no permission).
    said("暂未开放", Forbidden),
    said("无权限", Forbidden),
    said("没有权限", Forbidden),
    // Something named does not exist (Zhipu 1211/1214 模型不存在, "modelCode 不存在"; Qianfan's
    // "resource not found").
    // (A key or token that does not exist is the credential's: one-api's 令牌不存在, 密钥不存在.)
    said("令牌不存在", Unauthorized),
    said("密钥不存在", Unauthorized),
    said("key 不存在", Unauthorized),
    said("key不存在", Unauthorized),
    said("不存在", NotFound),
    said("resource not found", NotFound),
    // A parameter out of range said by a provider's check (ERNIE/Qianfan "parameter check
    // failed, max_output_tokens range is [2, 2048]").
    said("parameter check failed", BadRequest),
    // OpenAI Responses' reasoning items replayed to another caller or org ("The encrypted content
    // for item rs_... could not be verified").
    said("encrypted content for item", BadRequest),
    // llama.cpp's simple chat ("context size exceeded").
    said("context size exceeded", ContextOverflow),
    // A plan's quota that only an administrator's overage setting lifts (Gemini Code Assist:
    // "Individual quota reached. Contact your administrator to enable overages").
    said("enable overages", PaymentRequired),
    // The caller went away: a JS AbortController's abort (DOMException AbortError, "This
    // operation was aborted"), a server that saw its client disconnect (SGLang: "Request is
    // disconnected from the client side"). Not a cut to retry: nobody waits for the answer.
    // (AbortSignal.timeout's "The operation was aborted due to timeout" is a timeout.)
    said("aborted due to timeout", Timeout),
    said("aborterror", Cancelled),
    said("operation was aborted", Cancelled),
    said("disconnected from the client side", Cancelled),
    // An app's catch-all that sends the reader to a person ("An error occurred while processing
    // your request. Please contact the Admin."): the remedy is someone's action, not time, and
    // the text hides the cause. Unknown, never retried on these words alone.
    said("contact the admin", Unknown),
    said("contact your admin", Unknown),
    // A local system call's failure printed by Python ("[Errno 22] Invalid argument", EINVAL;
    // "[Errno 28] No space left on device", ENOSPC): the app's own machine, which a retry meets
    // again, whatever network words the app adds after it ("Flow build failed - Failed to
    // fetch"). (A network errno names itself: "[Errno 111] Connection refused".)
    said("[errno 22]", Unknown),
    said("[errno 28]", Unknown),
    // (batch 19) A reply with nothing in it, in apps' own words (NextChat's proxy body
    // {"error": true, "message": "empty response from server"}; "Empty response from model",
    // "empty response from Claude" as apps raise it when a reply has no text): the same answer
    // comes again, not a cut (no stream is named) and not a throttle.
    said("empty response", InvalidResponse),
    said("empty reply", InvalidResponse),
    said("empty completion", InvalidResponse),
    said("empty llm response", InvalidResponse),
    // (batch 19) Tool pairing said by a chat template under a local server's 500 (gpt-oss and
    // MiniMax templates: raise_exception("Message has tool role, but there was no previous
    // assistant message with a tool call!")) and Anthropic's newer wording ("Messages
    // containing `tool_use` blocks must be followed by a user message with `tool_result`
    // blocks"): the history, the same on every try, so stated over a 500.
    stated(
        "no previous assistant message with a tool call",
        OrphanToolCalls,
    ),
    stated("`tool_use` blocks must be followed by", OrphanToolCalls),
    stated("tool_use blocks must be followed by", OrphanToolCalls),
    // (batch 19) A request the client could not encode (Cursor's "Serialization error in
    // aiserver.v1.StreamUnifiedChatRequestWithTools", under its generic "Connection failed"
    // banner; "failed to serialize request", "could not serialize"): the same request fails the
    // same way, whatever transport banner is printed over it, so stated. (A reply that cannot
    // be read says "deserialize", a word of its own.)
    stated("serialization error", BadRequest),
    stated("failed to serialize", BadRequest),
    stated("could not serialize", BadRequest),
    stated("unable to serialize", BadRequest),
    // (batch 19) A URL the client cannot use (httpx/httpcore UnsupportedProtocol: "Request URL
    // is missing an 'http://' or 'https://' protocol.", "Request URL has an unsupported protocol
    // 'ws://'"; requests' MissingSchema "No scheme supplied"; Go net/http "unsupported protocol
    // scheme"; reqwest's "relative URL without a base"; .NET's "An invalid request URI was
    // provided"; undici's "Failed to parse URL from"): the configured base URL, nothing was sent.
    said("missing an 'http://' or 'https://' protocol", Configuration),
    said("unsupported protocol", Configuration),
    said("no scheme supplied", Configuration),
    said("relative url without a base", Configuration),
    said("invalid request uri", Configuration),
    said("failed to parse url", Configuration),
    // (batch 19) A reply with no text, as apps throw it when `choices[0].message.content` is
    // empty ("No content generated", "No content generated from Groq API"; "LLM returned no
    // content").
    said("no content generated", InvalidResponse),
    said("returned no content", InvalidResponse),
    // (batch 19) A chat template that refuses the conversation, raised under a local server's
    // 500 or 400 as the tool-role one above: LM Studio's "Error rendering prompt with jinja
    // template: ...", Llama 2 / Mistral templates' raise_exception("Conversation roles must
    // alternate user/assistant/user/assistant/..."), Gemma's raise_exception("System role not
    // supported"), "Only user and assistant roles are supported!", Qwen3's "No user query found
    // in messages.", jinja2's TemplateError named: the same messages fail the same way.
    stated("error rendering prompt with jinja template", BadRequest),
    stated("roles must alternate", BadRequest),
    stated("system role not supported", BadRequest),
    stated("only user and assistant roles are supported", BadRequest),
    stated("no user query found in messages", BadRequest),
    stated("jinja2.exceptions.templateerror", BadRequest),
    // (batch 19) Python's json.dumps on a value it cannot encode ("Object of type datetime is
    // not JSON serializable", a TypeError): the caller's data, code to fix.
    said("is not json serializable", Programming),
    // (batch 20) FastAPI's request validation (its `RequestValidationError` detail, printed by
    // vLLM, SGLang and other OpenAI-compatible servers: "[{'type': 'missing', 'loc': ('body',
    // 'messages'), 'msg': 'Field required'"), as a Python repr or as JSON: the request's body
    // lacks a field or has a wrong one.
    said("'loc': ('body',", BadRequest),
    said("\"loc\":[\"body\"", BadRequest),
    said("\"loc\": [\"body\"", BadRequest),
    // (batch 22) OpenCode's own gateway (Zen / Go, "Error from provider (Console): ..."): its
    // free tier refused outside OpenCode ("OpenCode's free tier can only be used from within
    // OpenCode"; "... can only be used in OpenCode" under a 400 MissingSessionID; its type
    // `FreeTierError` under a 403), and the free allowance spent ("Free limit reached. Subscribe
    // to OpenCode Go"), even under the client's "Retrying in 51s" banner.
    said("free tier can only be used", Forbidden),
    said("freetiererror", Forbidden),
    stated("free limit reached", PaymentRequired),
    // A Chinese gateway's access-key check ("ak is not exist: xxx", AK = access key): the key
    // is not one the service knows.
    said("ak is not exist", Unauthorized),
    said("ak not exist", Unauthorized),
    // (batch 24) AWS Q / Kiro / CodeWhisperer's ValidationException "Improperly formed
    // request.": the request's shape.
    said("improperly formed request", BadRequest),
    // A model id the service does not know (Kiro: "Invalid model ID. Please select a different
    // model to continue."; Tabby's "Invalid `model_id` <x>; please consult ... registry", made
    // set-up by `LOCAL_REGISTRY_WORDS`; Dify's "model not exists").
    said("invalid model id", NotFound),
    said("invalid model identifier", NotFound),
    said("invalid `model_id`", NotFound),
    said("model not exists", NotFound),
    said("model not exist", NotFound),
    // Image limits in any provider's words (Anthropic: "At least one of the image dimensions
    // exceed max allowed size for many-image requests: 2000 pixels", "image dimensions exceed
    // max allowed size: 8000 pixels"; OpenAI: "Image too large"): the request's input, resized
    // by a person or code, never by a retry.
    said("image dimensions exceed", BadRequest),
    said("dimensions exceed max allowed size", BadRequest),
    said("image too large", BadRequest),
    // Bedrock's ValidationException "The model returned the following errors: Image exceeds
    // max pixels allowed."; apps' own upload checks ("Image must be smaller than 5 MB").
    said("image is too large", BadRequest),
    said("image exceeds max pixels", BadRequest),
    said("image must be smaller than", BadRequest),
    // Gemini's 400 "Request payload size exceeds the limit: 20971520 bytes.": the request too
    // large, as a 413 is.
    said("payload size exceeds the limit", ContextOverflow),
    // A client's own guard on the size it sends (Open Interpreter: "Content size exceeds 20
    // MB"): a request too large, as a 413 is.
    said("content size exceeds", ContextOverflow),
    // Prompt over the context, in more servers' words: Ollama/llama.cpp fronts ("Prompt has
    // 49202 tokens, but the configured context size is 49152 tokens", goose), GitHub Copilot's
    // API (`model_max_prompt_tokens_exceeded`, "prompt token count of 140189 exceeds the limit
    // of 64000", Zed), apps' "Your request exceeded the token limit".
    stated("configured context size", ContextOverflow),
    stated("max_prompt_tokens_exceeded", ContextOverflow),
    stated("prompt token count of", ContextOverflow),
    said("exceeded the token limit", ContextOverflow),
    said("exceeds the token limit", ContextOverflow),
    // ElevenLabs' `detected_unusual_activity` ("Unusual activity detected. Free Tier usage
    // disabled."): the account refused, not a limit that passes.
    // ElevenLabs' other `detail.status` words (help.elevenlabs.io, API error codes 400/401):
    // `max_character_limit_exceeded` ("This request's text has 627 characters and exceeds the
    // character limit of 333 characters"), an input too long; `voice_not_found`.
    said("max_character_limit_exceeded", ContextOverflow),
    said("exceeds the character limit of", ContextOverflow),
    said("voice_not_found", NotFound),
    said("detected_unusual_activity", Forbidden),
    said("detected unusual activity", Forbidden),
    said("unusual activity detected", Forbidden),
    // A relay's own "Unauthorized operation" under its generic 500 (a Coze web adapter): the
    // credentials, stated in words.
    stated("unauthorized operation", Unauthorized),
    // Dify's plugin daemon relays the plugin's Python exception as `"error_type":"<Class>"`:
    // an app's bug class is its code's fault.
    said("\"error_type\":\"keyerror\"", Programming),
    said("\"error_type\":\"typeerror\"", Programming),
    said("\"error_type\":\"attributeerror\"", Programming),
    said("\"error_type\":\"nameerror\"", Programming),
    said("\"error_type\": \"keyerror\"", Programming),
    said("\"error_type\": \"typeerror\"", Programming),
    said("\"error_type\": \"attributeerror\"", Programming),
    // Python's NameError ("name 'OK' is not defined", Langflow) and JavaScript's
    // ReferenceError ("ReferenceError: fetch is not defined"): code to fix. (A bare "X is not
    // defined" may be a setting: "OPENAI_API_KEY is not defined".)
    said("' is not defined", Programming),
    said("referenceerror:", Programming),
    // An empty `contents` list refused by Google's SDK before the call ("contents are
    // required."): the request.
    said("contents are required", BadRequest),
    // A reply without its usage counts (Dify's Gemini plugin: "completion_tokens is None"):
    // the reply lacks a field.
    said("completion_tokens is none", InvalidResponse),
    said("prompt_tokens is none", InvalidResponse),
    said("usage is none", InvalidResponse),
    // The Realtime API's error event as Python SDKs repr it (pipecat: "RealtimeError(type=
    // 'invalid_request_error', code='invalid_value', ...)"): the request.
    said("type='invalid_request_error'", BadRequest),
    // Model output the framework could not use (smolagents: "Error in generating tool call
    // with model: The JSON blob you used is invalid"; Pydantic AI's UnexpectedModelBehavior
    // "Exceeded maximum output retries (1)"; deepeval's "Number of verdicts generated does not
    // equal length of retrieved nodes"; openai-agents' ModelBehaviorError "Tool x not found
    // in agent y", "Invalid output type").
    said("json blob you used is invalid", Validation),
    // smolagents utils.py / agents.py: "The model output does not contain any JSON blob.",
    // "Error while parsing tool call from model output: ..." (AgentParsingError);
    // openai-agents: "Invalid JSON when parsing model output"; CrewAI's ConverterError "Failed
    // to convert text into a Pydantic model due to ... error". (smolagents' "Error in
    // generating ..." wraps the model call's own failure, a 429 as well: not here.)
    said("does not contain any json blob", Validation),
    said("parsing tool call from model output", Validation),
    said("when parsing model output", Validation),
    said("failed to convert text into a pydantic model", Validation),
    said("maximum output retries", Validation),
    said("number of verdicts generated does not equal", Validation),
    said("modelbehaviorerror", Validation),
    // An app's own set-up (browser-use: "invalid llm, must be from browser_use.llm"; LiteLLM's
    // cost map: "This model isn't mapped yet"; a CLI's "chat-completions require the
    // --apply_chat_template flag"; Langflow's "Flow ID or Flow Name is required"; a relay's
    // "Windsurf IDE is not running. Please start Windsurf first").
    said("invalid llm, must be", Configuration),
    said("isn't mapped yet", Configuration),
    said("is not mapped yet", Configuration),
    said("require the --", Configuration),
    said("requires the --", Configuration),
    said("flow id or flow name is required", Configuration),
    said("is not running. please start", Configuration),
    // An app that could not turn messages into its prompt format (MemGPT's LocalLLMError
    // "Failed to convert ChatCompletion messages into prompt string with wrapper"): its code.
    said("messages into prompt string", Programming),
    // (batch 24) MiniMax's pairing checks, under its 400 and code 2013 (MiniMax-AI/MiniMax-M2#76;
    // bridge and agent sources quoting it: "invalid params, tool result's tool id(call_a) not
    // found (2013)", "invalid params, tool call result does not follow tool call (2013)"): a
    // result whose call the history lost, or a call left without its result; pruning repairs
    // both, so stated over any status a relay wraps them in.
    stated("tool result's tool id", OrphanToolCalls),
    stated(
        "tool call result does not follow tool call",
        OrphanToolCalls,
    ),
    // (batch 24) MiniMax's 2013 wording of any other refused parameter ("invalid params,
    // invalid thinking.type: \"enabled\" (allowed: adaptive, disabled) (2013)"; "invalid params,
    // invalid function arguments json string"), and JSON-RPC's -32602 "Invalid params": the
    // request's own fault, read where no status says more.
    said("invalid params", BadRequest),
    // (batch 24) A reply whose only text is the model's reasoning (llm_wiki: "Model produced
    // 2,176 characters of reasoning / chain-of-thought, but no actual response content"; the
    // OpenAI-compatible servers' `reasoning_content` with an empty `content`, as apps word it:
    // "only reasoning content", "reasoning but no content"): no answer to use, as an empty
    // reply is.
    said("no actual response content", InvalidResponse),
    said("no response content", InvalidResponse),
    said("only reasoning content", InvalidResponse),
    said("reasoning but no content", InvalidResponse),
    said("reasoning content but no content", InvalidResponse),
    // (batch 25) A history with no user turn, refused before any model ran (LiteLLM's Bedrock
    // adapter: "bedrock requires at least one non-system message"; Anthropic's "messages: at
    // least one message is required"; Bedrock Converse's "A conversation must start with a user
    // message").
    said("at least one non-system", BadRequest),
    said("at least one message is required", BadRequest),
    said("conversation must start with a user message", BadRequest),
    // A request sent with no model in it (a Windsurf relay: "neither PlanModel nor
    // RequestedModel specified. You must specify a valid model.").
    said("must specify a valid model", BadRequest),
    // The plan or key has no access to the model (Cursor: "Invalid Model: The model does not
    // work with your current plan or api key.").
    said("with your current plan or api key", Forbidden),
    said("does not work with your current plan", Forbidden),
    // A 401's reason phrase in an app's own code (Obsidian Local REST API: "Error 40101:
    // Authorization required. Find your API Key ...").
    said("authorization required", Unauthorized),
    // The model's reply failed an agent's own check of its structure (TaskWeaver's planner:
    // "LLM failed to generate complete attachments").
    said("llm failed to generate complete", Validation),
    // (batch 26) An answer with no message in it, in agents' words (Letta: "API call didn't
    // return a message: ... choices=[]"; "returned no choices", "No choices returned"; a repr
    // or JSON with an empty `choices` list).
    said("didn't return a message", InvalidResponse),
    said("did not return a message", InvalidResponse),
    said("returned no choices", InvalidResponse),
    said("no choices returned", InvalidResponse),
    said("choices=[]", InvalidResponse),
    // (batch 26) A chat app's own length limit for the conversation (Claude Desktop and
    // claude.ai: "Your message will exceed the limit for this chat" / "the length limit for
    // this chat"; "Try shortening your message or starting a new conversation").
    said("exceed the limit for this chat", ContextOverflow),
    said("exceed the length limit for this chat", ContextOverflow),
    said("exceeds the length limit for this chat", ContextOverflow),
    said("try shortening your message", ContextOverflow),
    // (batch 26) An MCP host that could not start the server's program (uv/uvx "Failed to
    // spawn: `x` Caused by: program not found", Claude Desktop's "MCP error -32000: Connection
    // closed" after it; Node's form is `PROGRAM_MISSING`): the command is missing or wrong in
    // the host's set-up, the same on every start. Read before the "connection closed".
    said("failed to spawn", Configuration),
    said("program not found", Configuration),
    // (batch 27) A reply the app could not use, in apps' words ("Incorrect response from
    // OpenAI API", Copilot's "The model unexpectedly did not return a response").
    said("incorrect response from", InvalidResponse),
    said("model unexpectedly did not return", InvalidResponse),
    said("model did not return a response", InvalidResponse),
    // (batch 27) A request the app itself calls too large for the model (gpt-pilot's "We sent
    // too large request to the LLM").
    stated("too large request", ContextOverflow),
    // (batch 27) A planner whose output missed the fields its parser needs (TaskWeaver's
    // "Planner failed to generate response because Missing elements: send_to, ..." and "...
    // because Post send_to field is None"; AutoGPT's "ERROR PARSING YOUR RESPONSE: LLM did
    // not call create_agent function").
    said("missing elements:", Validation),
    said("failed to generate response because", Validation),
    said("error parsing your response", Validation),
    said("did not call create_agent", Validation),
    // (batch 27) A router with no entry for the provider named (g4f's ProviderNotFoundError,
    // relayed under its 500): the app's set-up, whatever the status.
    stated("providernotfounderror", Configuration),
    stated("provider not found", Configuration),
    // (batch 27) A client built without its token (slack_sdk's and pydantic settings' "Either
    // an env variable `SLACK_BOT_TOKEN` or `token` argument in the constructor is required").
    said("either an env variable", Configuration),
    // (batch 27) ChatLuna (koishi) prints only its own code ("使用 ChatLuna 时出现错误，错误码为
    // 301。请联系开发者以解决此问题。"); codes from its `ChatLunaErrorCode` enum (src/utils/error.ts).
    // These are not HTTP statuses: 301 is MODEL_NOT_FOUND in its registry, 403 an invalid room
    // template.
    said("使用 chatluna 时出现错误，错误码为 2", Configuration), // UNSUPPORTED_PROXY_PROTOCOL
    said("使用 chatluna 时出现错误，错误码为 6", Configuration), // PLUGIN_ALREADY_REGISTERED
    said("使用 chatluna 时出现错误，错误码为 104", ContentFiltered), // API_UNSAFE_CONTENT
    said("使用 chatluna 时出现错误，错误码为 300", Configuration), // MODEL_ADAPTER_NOT_FOUND
    said("使用 chatluna 时出现错误，错误码为 301", Configuration), // MODEL_NOT_FOUND (its own registry)
    said("使用 chatluna 时出现错误，错误码为 302", Configuration), // PREST_NOT_FOUND
    said("使用 chatluna 时出现错误，错误码为 303", Configuration), // MODEL_INIT_ERROR
    said("使用 chatluna 时出现错误，错误码为 304", Configuration), // EMBEDDINGS_INIT_ERROR
    said("使用 chatluna 时出现错误，错误码为 305", Configuration), // VECTOR_STORE_INIT_ERROR
    said("使用 chatluna 时出现错误，错误码为 307", Configuration), // NOT_AVAILABLE_CONFIG
    said("使用 chatluna 时出现错误，错误码为 309", InvalidResponse), // MODEL_RESPONSE_IS_EMPTY
    said("使用 chatluna 时出现错误，错误码为 311", Configuration), // PRESET_LOAD_ERROR
    said("使用 chatluna 时出现错误，错误码为 403", Configuration), // ROOM_TEMPLATE_INVALID
    said("使用 chatluna 时出现错误，错误码为 405", Configuration), // ROOM_NOT_FOUND
    // (batch 28) A challenge page (Cloudflare's "security check") in front of a web back end
    // that a script cannot pass (ChatGPTBox: "OpenAI Security Check Required ... open
    // https://chat.openai.com/ And refresh"): refused until a person passes it, as the block
    // page above is.
    said("security check required", Forbidden),
    said("complete the security check", Forbidden),
    // (batch 28) ChatGPT's web back end no longer knows the conversation ("Conversation key
    // not found. Try starting a new conversation."; "Conversation not found").
    said("conversation key not found", NotFound),
    said("conversation not found", NotFound),
    // (batch 28) LangChain's PydanticOutputParser: "Failed to parse {name} from completion
    // {text}. Got: ..." (open-notebook's "Failed to parse Outline from completion"): the
    // model's output failed the app's schema; read before the generic "failed to parse".
    said("from completion {", Validation),
    said("from completion [", Validation),
    // (batch 28) An eval tool's own list of judge models (Langfuse: "Selected model is not
    // supported for evaluations. Test tool call failed."; DeepEval models/gpt_model.py:
    // "Invalid model. Available GPT models: ..."): the configured model, set-up.
    said("selected model is not supported", Configuration),
    said("not supported for evaluations", Configuration),
    said("available gpt models", Configuration),
    said("invalid model. available", Configuration),
    // (batch 28) MCP typescript-sdk client/streamableHttp.ts "Unexpected content type: X":
    // the server answered neither JSON nor SSE (an HTML page), the same on every try.
    said("unexpected content type", InvalidResponse),
    // (batch 28) A retry layer's own verdict after its attempts ("Failed after 2 attempts with
    // non-retryable error: 'Provider returned error'", OpenRouter's runner; "Non-retryable
    // error: ..." in other wrappers): the client already found the error not worth a retry,
    // and its catch-all words around it ("An error occurred while processing your request")
    // are no server's advice. Unknown unless the relayed error names itself (read first).
    said("with non-retryable error", Unknown),
    // (batch 29) A model the app's own backend does not offer (Raycast's AI backends: "AI model
    // is unavailable", "Model is not supported" from @raycast/server): the app's model setting,
    // the same on every try. Read after the providers' "model is not supported by provider".
    said("ai model is unavailable", Configuration),
    said("model is not supported", Configuration),
    // (batch 29) A provider naming the model id it does not know (OpenRouter 400 "x is not a
    // valid model ID"; Together's "Unable to access model x", read elsewhere).
    said("is not a valid model id", NotFound),
    said("not a valid model", NotFound),
    // (batch 29) A request field refused by the provider's schema (Anthropic "tools.0.custom.name:
    // String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", pydantic's string_pattern_mismatch
    // wording as a provider answers it).
    said("should match pattern", BadRequest),
    // (batch 29) A client's own reply parser that failed on an item of the answer (Chatbox "API
    // Request Failed: Error parsing item"), and the legacy openai-python APIError for a 200 it
    // could not read ("HTTP code 200 from API (...)"): the reply, not the request.
    said("error parsing item", InvalidResponse),
    said("http code 200 from api", InvalidResponse),
    // (batch 29) An app's word that the key was refused ("Please check your API key and
    // credentials", obsidian-copilot; "check your API key" in other plugins).
    said("check your api key and credentials", Unauthorized),
    // (batch 30) An app sending the user to the provider's billing set-up ("Please ensure that
    // your OpenAI account is configured correctly with a valid credit card",
    // OpenAssistantGPT): the account cannot pay, by the app's word.
    said("with a valid credit card", PaymentRequired),
    said("add a valid credit card", PaymentRequired),
];

/// (batch 17) Frames that say the failure happened before any request: a flow builder's
/// component that failed to build (Langflow's "Error building Component Run Flow: 'message'",
/// "Error building Component OpenAI: 1 validation error for ChatOpenAI"). Nothing inside it is a
/// model's output, so these are read before the main tables' "validation error for".
pub const BEFORE_ANY_CALL: &[Phrase] = &[
    // (batch 18) A hedged list of possible causes ("This might be due to: * Moderation ... *
    // Excessively large context ... * High demands"): the causes are guesses, permanent and
    // transient side by side, so none of them decides.
    said("might be due to:", Unknown),
    said("may be due to:", Unknown),
    said("possible causes:", Unknown),
    said("error building component", Programming),
    // (batch 18) A browser's CORS preflight refused: the request itself was never sent, and the
    // same origin is refused again (Chromium: "has been blocked by CORS policy"). Read before the
    // main tables' "blocked" of a moderation.
    said("blocked by cors policy", Configuration),
    // A bracketed error type a wrapper prints before the provider's message
    // ("Upstream request failed: [invalid_request_error] The request contains invalid
    // parameters"): the provider's own type, the caller's request, whatever frame is around it.
    said("[invalid_request_error]", BadRequest),
    // "Invalid or missing API key": the key, before the main tables' "missing api key" set-up.
    said("invalid or missing api key", Unauthorized),
    // (batch 25) An agent framework's own step budget ran out (LangGraph's GraphRecursionError
    // "Recursion limit of 25 reached without hitting a stop condition"; openai-agents'
    // MaxTurnsExceeded "Max turns (10) exceeded"; LangChain's AgentExecutor "Agent stopped due
    // to iteration limit or time limit"; LlamaIndex's "Reached max iterations"; smolagents'
    // "Reached max steps"). The corpus labels these `unknown` since batch 18: the loop is the
    // model's and the app's together, no API failed, and a bigger budget is a guess. Read
    // before the frame around it ("Failed to stream response: ...").
    said("without hitting a stop condition", Unknown),
    said("maxturnsexceeded", Unknown),
    said("max turns (", Unknown),
    said("due to iteration limit", Unknown),
    said("reached max iterations", Unknown),
    said("reached max steps", Unknown),
    // (batch 25) The Anthropic SDKs refuse a non-streaming request whose max_tokens implies over
    // ten minutes, before sending (anthropic-sdk-python `_calculate_nonstreaming_timeout`,
    // anthropic-sdk-typescript `calculateNonstreamingTimeout`: "Streaming is strongly
    // recommended for operations that may take longer than 10 minutes"): the request must change.
    said("streaming is strongly recommended", BadRequest),
    // (batch 26) A hedged list in Chinese ("可能是密钥错误，也可能是请求过快": it may be the key,
    // it may also be requests too fast): the causes are guesses, none decides.
    said("也可能是", Unknown),
    said("也有可能是", Unknown),
    // (batch 29) A pydantic validation of the app's own client object that rejects the SecretStr
    // the app passed itself (langflow: "validation error for ChatOpenAI api_key Input should be
    // a valid string ... input_type=SecretStr"): the app's code, not the user's input.
    said("input_type=secretstr", Programming),
];

/// (batch 26) A program a host could not start because it is not there, in Node's
/// child_process words: "spawn <command> ENOENT" for any command ("spawn npx ENOENT", "spawn
/// /Users/u/.venv/bin/python ENOENT", VS Code's "Connection state: Error spawn uv ENOENT";
/// anything-llm#3854, binary_ninja_mcp#9): the command in the host's set-up, the same on every
/// start, whatever "connection failed" the host says after it. Each row: the word before the
/// command and the code after it, within `PROGRAM_MISSING_SPAN` bytes on one line.
pub const PROGRAM_MISSING: &[(&str, &str)] = &[("spawn ", " enoent")];
/// How long a command (a path) may be between the two words of a `PROGRAM_MISSING` row.
pub const PROGRAM_MISSING_SPAN: usize = 200;

/// Transient natures said in words only.
pub const TRANSIENT: &[Phrase] = &[
    // A gateway relays an upstream failure without its status ("Upstream request failed").
    // (OpenRouter's bare "Provider returned error" stays unknown: it wraps a 401 as well as a
    // 503, as the corpus has it since batch 4.)
    said("upstream request failed", ServerError),
    // Cloudflare's 520 page ("520: Web server is returning an unknown error").
    said("web server is returning an unknown error", ServerError),
    // vLLM's engine died under the server ("AsyncEngineDeadError: Background loop has errored
    // already", V1's "EngineDeadError").
    said("asyncenginedeaderror", ServerError),
    said("enginedeaderror", ServerError),
    said("background loop has errored", ServerError),
    // A stream cut in a client's words ("Streaming response failed", "Stream completed without
    // a response.completed event", "The provider repeatedly ended the response before returning
    // usable output").
    said("streaming response failed", StreamInterrupted),
    said("stream completed without", StreamInterrupted),
    said("ended the response before", StreamInterrupted),
    // A local or remote server not reached ("Ollama at http://localhost:11434 could not be
    // reached").
    said("could not be reached", Connection),
    // A concurrency limit (Zhipu's "High concurrency usage of this API, please reduce
    // concurrency").
    said("high concurrency", RateLimited),
    said("reduce concurrency", RateLimited),
    // A 408 printed as a name run together ("408.0 RequestTimeout").
    said("requesttimeout", Timeout),
    // A client not connected to its service ("Error interacting with language model not
    // connected", Zed).
    said("not connected", Connection),
    // (batch 17) A dead engine of any vLLM front ("MQEngineDeadError: Engine loop is not
    // running", V0's AsyncEngineDeadError, V1's EngineDeadError above).
    said("mqenginedeaderror", ServerError),
    said("engine loop is not running", ServerError),
    said("engine loop has died", ServerError),
    // Ollama's runner crashed ("llama runner terminated" error="exit status 2"); the next load
    // starts a new one.
    said("runner terminated", ServerError),
    // A stream cut in a client's words (async-openai's "Stream failed: stream ended").
    said("stream failed", StreamInterrupted),
    said("stream ended", StreamInterrupted),
    // A fetch that never reached the server (React Native / whatwg-fetch's "Network request
    // failed", Safari's "Load failed" is too short to read).
    said("network request failed", Connection),
    // A client's generic failure that asks to try again (Copilot's "Sorry, your request
    // failed. Please try again. Request id: ...", and in Chinese 很抱歉，你的请求失败 ... 然后重试).
    said("your request failed", ServerError),
    said("你的请求失败", ServerError),
    said("您的请求失败", ServerError),
    // (batch 18) A connection not made, in apps' words ("couldn't establish a connection",
    // "We're having trouble connecting to the model provider").
    said("couldn't establish a connection", Connection),
    said("could not establish a connection", Connection),
    said("unable to establish a connection", Connection),
    said("trouble connecting to", Connection),
    // A stream cut in a client's words ("Error occurred while streaming response. Streaming
    // error").
    said("while streaming response", StreamInterrupted),
    said("streaming error", StreamInterrupted),
    // A client's own word for a failure it retries (Copilot CLI: "Request failed due to a
    // transient API error. Retrying...").
    said("transient api error", ServerError),
    // A service client's failure toward its backend (Bing/Copilot clients' "InternalError:
    // ServiceClient failure for ChatGpt").
    said("serviceclient failure", ServerError),
    // A stream that was never opened ("Failed to create stream request", the AI SDK's
    // AI_APICallError in Cherry Studio): the provider refused to start, no answer was cut.
    said("failed to create stream", ServerError),
    // (batch 19) A scheduler with nothing to run the call on (Dify's plugin daemon: "no
    // available node, plugin runtime not found" as a PluginDaemonInternalServerError; cluster
    // balancers' "No available nodes"): capacity missing for now, no fault of the request.
    said("no available node", ServerError),
    said("no available nodes", ServerError),
    // (batch 19) An app's failed connection to its own backend or upstream (Open WebUI's
    // proxy routes answer any exception talking to Ollama or an OpenAI-compatible server with
    // status 500 and detail "Open WebUI: Server Connection Error", backend/open_webui/routers;
    // apps' "Server connection error").
    said("server connection", Connection),
    said("server connection error", Connection),
    // (batch 24) Overload as traffic volume (Kiro: "The model you've selected is
    // experiencing a high volume of traffic"; "heavy traffic", "heavy load").
    said("high volume of traffic", Overloaded),
    said("heavy traffic", Overloaded),
    said("heavy load", Overloaded),
    // An agent's catch-all that asks to try again (Antigravity: "Agent terminated due to
    // error. You can prompt the model to try again").
    said("agent terminated due to error", ServerError),
    said("prompt the model to try again", ServerError),
    // The Realtime API's `server_error` event as agents print it (LiveKit: "OpenAI Realtime
    // API response failed with error type: server_error"; a repr's type='server_error').
    said("error type: server_error", ServerError),
    said("type='server_error'", ServerError),
    // Dify could not reach its plugin daemon ("Failed to request plugin daemon, url: ...",
    // raised on the HTTP client's failure): a connection.
    said("failed to request plugin daemon", Connection),
    // ElevenLabs' 429 `detail.status` words (help.elevenlabs.io, API error code 429):
    // `system_busy` ("our services were experiencing high levels of traffic"), and
    // `too_many_concurrent_requests` (the plan's concurrency).
    said("system_busy", Overloaded),
    said("high levels of traffic", Overloaded),
    said("too_many_concurrent_requests", RateLimited),
    // (batch 24) A body that names a wait before the next try in a field of its own (a relay's
    // queue answer under its 403, 9router's Qoder "{\"isQueued\":false,...,
    // \"retryAfterSeconds\":..."; `retry_after_seconds` elsewhere): a throttle, whatever
    // status carries it, even when the log cut the number off (`retry_after::reset_field`
    // reads the number where it is there).
    said("retryafterseconds", RateLimited),
    said("retry_after_seconds", RateLimited),
    // (batch 25) A client's catch-all that asks for the message again (Continue: "There was an
    // error handling the response from {model}. Please try to submit your message again"),
    // with nothing more specific: the labelling guide's try-again catch-all.
    said("error handling the response from", ServerError),
    said("try to submit your message again", ServerError),
    // (batch 26) OpenAI's `model_error` ("The model produced invalid content. Consider modifying
    // your prompt if you are seeing this error persistently.", type `model_error` under a 500):
    // the model's sampling failed on the provider's side; the same prompt usually passes on a
    // retry, so a server error, whatever client prints it.
    said("model produced invalid content", ServerError),
    said("'type': 'model_error'", ServerError),
    said("\"type\":\"model_error\"", ServerError),
    said("\"type\": \"model_error\"", ServerError),
    // (batch 26) A function platform's invocation the caller gave up on (Alibaba Cloud FC's
    // "Error: Invocation canceled by client (duration: 62936ms ...)"): the caller's timer ran out.
    said("invocation canceled by client", Timeout),
    said("invocation cancelled by client", Timeout),
    // (batch 26) Dify's plugin runtime past its request budget ("[models] Error:
    // MAX_REQUEST_TIMEOUT", the daemon's MAX_REQUEST_TIMEOUT setting).
    said("max_request_timeout", Timeout),
    // (batch 26) MCP hosts and SDKs that waited for a tool's answer and gave up (Claude
    // Desktop: "No result received from the Claude Desktop app after waiting 4 minutes";
    // modelcontextprotocol/python-sdk shared/session.py "Timed out while waiting for response
    // to ClientRequest"; typescript-sdk's McpError -32001 "Request timed out").
    said("no result received", Timeout),
    said("timed out while waiting for response", Timeout),
    said("mcp error -32001", Timeout),
    // (batch 27) ChatLuna's own transient codes (see its permanent rows).
    said("使用 chatluna 时出现错误，错误码为 1", Connection), // NETWORK_ERROR
    said("使用 chatluna 时出现错误，错误码为 102", Timeout),  // API_REQUEST_TIMEOUT
    // (batch 28) LibreChat's "The response is incomplete; it's either still processing, was
    // cancelled, or censored": the stream gave no proper end.
    said("the response is incomplete", StreamInterrupted),
    // (batch 28) ChatGPT's catch-all ("Hmm...something seems to have gone wrong. Maybe try me
    // again in a little bit."): a try-again catch-all, a server error.
    said("something seems to have gone wrong", ServerError),
    said("try me again", ServerError),
    // (batch 28) A relay's statement that the upstream failed for overload (OmniRoute's
    // "Antigravity upstream error (400) due to overload").
    said("due to overload", Overloaded),
    // (batch 29) A service's "too busy" (Cherry Studio relays' 503 50508 "System is too busy
    // now. Please try again later."; "server is too busy"): overload in its words.
    said("too busy", Overloaded),
    // (batch 29) Cline's code for a stream its provider would not open
    // ("stream_initialization_failed", with "Failed to create stream" run on): as
    // "failed to create stream" above.
    said("stream_initialization_failed", ServerError),
];

/// Overload words that overrule a generic 400 or 4xx: FastChat's controller and the servers
/// built on it answer their own "NETWORK ERROR DUE TO HIGH TRAFFIC. PLEASE REGENERATE OR
/// REFRESH THIS PAGE." with a 400 (`SERVER_ERROR_MSG`). Only words that say the server is
/// busy, never a request's fault.
pub const OVERLOAD_UNDER_4XX: &[Phrase] = &[
    said("due to high traffic", Overloaded),
    // (batch 28) OmniRoute's "upstream error (400) due to overload".
    said("due to overload", Overloaded),
    // (batch 35b) A gRPC backend's UNAVAILABLE (14) in the model's words under a gateway's 400
    // ("APP_ERROR(14) The model is overloaded. Please try again later.", Vertex AI via an MCP
    // client): the status is the wrapper's, the overload is the failure.
    said("the model is overloaded", Overloaded),
];

/// (batch 18) Pydantic locations into a reply's list of answers ("3 validation errors for
/// typed-dict\ncandidates.0.content.role\n  Field required"; Gemini's GenerateContentResponse
/// `candidates`, OpenAI's ChatCompletion `choices`): the provider's reply failed the client's
/// schema, an invalid response, not the model's structured output. Read before the main
/// tables' "validation error for".
pub const REPLY_FIELD_PATHS: &[Phrase] = &[
    said("candidates.0.", InvalidResponse),
    said("choices.0.", InvalidResponse),
];

/// (batch 18) The last clause of an app's sentence when it is a client's whole error text:
/// undici's fetch rejects with `TypeError("terminated")` when the socket under a response it had
/// begun to read closes (nodejs/undici lib/web/fetch/index.js), quoted by apps as "An error
/// occurred while processing the request: terminated". The answer was cut.
pub const LAST_CLAUSE: &[(&str, crate::Category)] = &[
    ("terminated", StreamInterrupted),
    // (batch 20) An HTTP reason phrase (RFC 9110 §15) as the whole last clause: a client that
    // prints `response.statusText` for a status it did not keep (replicate-javascript
    // `lib/error.js` and `index.js`: "API request failed: ${response.statusText}"). Each names
    // its status, read as the status would be (`tables::STATUS`).
    ("Bad Request", BadRequest),
    ("Unauthorized", Unauthorized),
    ("Payment Required", PaymentRequired),
    ("Forbidden", Forbidden),
    ("Not Found", NotFound),
    ("Request Timeout", Timeout),
    ("Unprocessable Entity", Unprocessable),
    ("Unprocessable Content", Unprocessable),
    ("Too Many Requests", RateLimited),
    ("Internal Server Error", ServerError),
    ("Bad Gateway", ServerError),
    ("Service Unavailable", ServerError),
    ("Gateway Timeout", ServerError),
];

/// (batch 18) Keys of a provider's reply: a Python `KeyError` on one of them (str() of a KeyError
/// is the quoted key: "Node LLM run failed: [openrouter] Error: 'choices'") says the reply came
/// without it, an invalid response. A KeyError on any other key ("litellm.APIConnectionError:
/// 'name'", LiteLLM wrapping whatever it caught) says nothing of the network or the provider:
/// unknown, whatever class is named before it.
pub const REPLY_KEYS: &[&str] = &[
    "choices",
    "candidates",
    "content",
    "message",
    "delta",
    "output",
    "usage",
];

/// (batch 19) Credentials the client itself found unset before any call, read before the frames
/// of `BEFORE_ANY_CALL` (a component that failed to build because its key is None is set-up,
/// not code): Anthropic's SDKs ("Could not resolve authentication method. Expected either
/// apiKey or authToken to be set", anthropic-sdk-typescript src/index.ts, anthropic-sdk-python
/// `_validate_headers`), openai-python ("The api_key client option must be set either by
/// passing api_key to the client or by setting the OPENAI_API_KEY environment variable"),
/// openai-node ("The OPENAI_API_KEY environment variable is missing or empty"), LangChain's
/// `get_from_dict_or_env` ("Did not find openai_api_key, please add an environment variable
/// `OPENAI_API_KEY` which contains it"), Langflow's input check ("Invalid value type `<class
/// 'NoneType'>` for input `api_key`").
pub const CREDENTIAL_UNSET: &[Phrase] = &[
    said("could not resolve authentication method", Configuration),
    said("client option must be set", Configuration),
    said("environment variable is missing or empty", Configuration),
    said("please add an environment variable", Configuration),
    said("for input `api_key`", Configuration),
    said("for input `apikey`", Configuration),
    // google-genai's Client without a key ("Missing key inputs argument! To use the Google AI
    // API, provide (`api_key`) arguments.").
    said("missing key inputs argument", Configuration),
    // (batch 21) An app's own check of its key variable ("OPENAI_API_KEY not set", "OPENAI_API_KEY
    // is not set", aider/llm/CLI tools' "No API key provided"), and a GitHub Action pointing at
    // the repository's "Secrets and variables" settings where its key was never stored.
    said("api_key not set", Configuration),
    said("api_key is not set", Configuration),
    said("openai_api_key not set", Configuration),
    said("openai_api_key is not set", Configuration),
    said("anthropic_api_key not set", Configuration),
    said("anthropic_api_key is not set", Configuration),
    said("no api key provided", Configuration),
    said("in variables/secrets", Configuration),
    // (batch 24) The same check in JavaScript's words ("OPENAI_API_KEY is not defined"): read
    // before the NameError row "' is not defined".
    said("api_key is not defined", Configuration),
    said("openai_api_key is not defined", Configuration),
    said("anthropic_api_key is not defined", Configuration),
];

/// (batch 19) Words that show a "model not found" came from the client's own list of providers
/// and models, not from a provider's answer: opencode's `ProviderModelNotFoundError` carries
/// `suggestions` and prints "Model not found: x. Did you mean: y?"; a client that suggests names
/// looked them up locally. Read only where no status and no provider envelope is there (a
/// provider's 404 stays `not_found`): the configured model string is wrong, set-up.
pub const LOCAL_REGISTRY_WORDS: &[&str] = &[
    "did you mean",
    "suggestions:",
    "providerid:",
    // (batch 20) A framework's registry of services or model backends that names its key or
    // lists what it has (Semantic Kernel's "Service with service_id 'default' does not
    // exist"; lm-eval's "Supported model names: ..."; Haystack's and others' "Available
    // models:").
    "service_id",
    "supported model names:",
    "available models:",
    // (batch 24) A model the app's own configuration or registry lacks (simple-one-api: "model
    // not found in the configuration"; Tabby: "consult https://github.com/TabbyML/registry-tabby
    // for the correct `model_id`").
    "in the configuration",
    "in your configuration",
    "for the correct `model_id`",
    // (batch 25) opencode's error name itself in its log ("reason=ProviderModelNotFoundError
    // Unhandled rejection"): its lookup in its own registry (models.dev) failed.
    "providermodelnotfounderror",
    // (batch 32a) Genkit JS's own model lookup (`resolveModel`), before any provider is
    // called: "GenkitError: NOT_FOUND: Model '...' not found" (genkit-ai/genkit#3077).
    "genkiterror: not_found: model '",
];

/// (batch 28) Suggestions only a provider's answer makes, which `LOCAL_REGISTRY_WORDS`' "did
/// you mean" would otherwise read as a client's registry: OpenAI's wrong-endpoint refusals
/// suggest the other endpoint ("This is not a chat model and thus not supported in the
/// v1/chat/completions endpoint. Did you mean to use v1/completions?", and its mirror "Did you
/// mean to use v1/chat/completions?"). The model exists; the provider does not serve it there.
pub const PROVIDER_SUGGESTIONS: &[&str] = &["did you mean to use v1/"];

/// (batch 19) Class names whose library gives them a status of their own, read when nothing
/// else in the failure decided: LiteLLM's proxy answers a litellm exception that carries no
/// status with 500, "Internal Server Error as default" (litellm/proxy/common_utils/
/// swagger_utils.py `get_status_code`; only `Timeout`, 408, and `APIConnectionError`, 503,
/// differ), and its `APIError` reaches agents with an empty text when the provider's failure
/// had none ("APIError: OpenAIException - .").
pub const DOCUMENTED_STATUS: &[(&str, u16)] = &[
    ("litellm.APIError", 500),
    ("litellm.exceptions.APIError", 500),
];

/// (batch 19) Pydantic's "validation error(s) for <Model>" where the model's name ends in one of
/// these words is a reply failing the client's schema (Dify's `LLMResultChunk`, OpenAI's
/// `ChatCompletion` and `ChatCompletionChunk`, Gemini's `GenerateContentResponse`, LiteLLM's
/// `ModelResponse`, LangChain's `LLMResult`): an invalid response, not the model's structured
/// output. (A request model, `ChatCompletionRequest`, ends otherwise.)
pub const REPLY_MODEL_SUFFIXES: &[&str] = &["chunk", "completion", "response", "result"];

/// (batch 24) Pydantic's "validation error(s) for <Model>" where the model's name ends in one of
/// these words is the app's own parameters or settings failing their schema (Dify's agent
/// strategy `ReActParams` with no model entity set; pydantic-settings' `Settings`, a tool's
/// `...Config`): the set-up, not the model's output.
pub const SETUP_MODEL_SUFFIXES: &[&str] = &["params", "settings", "config"];

#[cfg(test)]
mod tests {
    use crate::category::Category::{self, *};
    use crate::classify::classify;
    use crate::failure::Failure;

    fn cat(f: Failure) -> (Category, bool) {
        let c = classify(&f);
        (c.category, c.transient)
    }

    /// (batch 24) Apps', agents' and frameworks' own words, with siblings of each family.
    #[test]
    fn app_and_framework_families() {
        for (f, want) in [
            // AWS Q / CodeWhisperer ValidationException
            (Failure::new("Improperly formed request."), BadRequest),
            (Failure::new("Invalid model ID. Please select a different model to continue."), NotFound),
            // Anthropic image limits
            (Failure::new("messages.0.content.1.image.source.base64.data: At least one of the image dimensions exceed max allowed size: 8000 pixels"), BadRequest),
            (Failure::http(413, "Content size exceeds 20 MB"), ContextOverflow),
            (Failure::new("Invalid image: image must be smaller than 20MB"), BadRequest),
            (Failure::new("The image is too large. Maximum size is 5MB"), BadRequest),
            (Failure::http(400, "Request payload size exceeds the limit: 20971520 bytes."), ContextOverflow),
            (Failure::new("Content size exceeds 20 MB"), ContextOverflow),
            // llama.cpp-style and Copilot context limits under a 400 or a 500
            (Failure::http(400, "Prompt has 9000 tokens, but the configured context size is 8192 tokens"), ContextOverflow),
            (Failure::http(500, "Prompt has 9000 tokens, but the configured context size is 8192 tokens"), ContextOverflow),
            (Failure::http(400, "{\"error\":{\"message\":\"prompt token count of 140189 exceeds the limit of 128000\",\"code\":\"model_max_prompt_tokens_exceeded\"}}"), ContextOverflow),
            (Failure::new("Your message exceeds the token limit"), ContextOverflow),
            (Failure::new("Unusual activity detected. Free Tier usage disabled."), Forbidden),
            (Failure::new("PluginInvokeError: {\"args\":{},\"error_type\":\"TypeError\",\"message\":\"'NoneType' object is not iterable\"}"), Programming),
            (Failure::new("NameError: name 'json' is not defined"), Programming),
            (Failure::new("ReferenceError: fetch is not defined"), Programming),
            (Failure::new("[models] Error: prompt_tokens is None"), InvalidResponse),
            (Failure::new("RealtimeError(type='invalid_request_error', code='invalid_value', message='x')"), BadRequest),
            (Failure::new("Error in generating tool call with model:\nThe JSON blob you used is invalid due to the following error: Expecting value"), Validation),
            (Failure::new("Exceeded maximum output retries (3)"), Validation),
            (Failure::new("Error while parsing tool call from model output: The model output does not contain any JSON blob."), Validation),
            (Failure::new("ModelBehaviorError: Invalid JSON when parsing model output for agent x"), Validation),
            (Failure::new("ConverterError: Failed to convert text into a Pydantic model due to validation error: 1 validation error"), Validation),
            (Failure::http(400, "{\"detail\":{\"status\":\"max_character_limit_exceeded\",\"message\":\"This request's text has 627 characters and exceeds the character limit of 333 characters for non signed in accounts.\"}}"), ContextOverflow),
            (Failure::http(400, "{\"detail\":{\"status\":\"voice_not_found\",\"message\":\"A voice with the voice_id x was not found.\"}}"), NotFound),
            (Failure::new("Number of verdicts generated does not equal number of statements"), Validation),
            (Failure::new("Tool get_date not found in agent main").with_class(["agents.exceptions.ModelBehaviorError"]), Validation),
            (Failure::new("invalid llm, must be from browser_use.llm"), Configuration),
            (Failure::new("This model isn't mapped yet. model=foo, custom_llm_provider=openai."), Configuration),
            (Failure::new("generation requires the --trust_remote_code flag"), Configuration),
            (Failure::new("{\"error\":\"model not found in the configuration\"}"), Configuration),
            (Failure::new("Error: OPENAI_API_KEY is not defined"), Configuration),
            (Failure::new("PluginInvokeError: {\"error_type\":\"ValidationError\",\"message\":\"1 validation error for FunctionCallingParams\\nmodel.entity\\n  Input should be a valid dictionary\"}"), Configuration),
            (Failure::new("2 validation errors for Settings\nopenai_api_key\n  Field required"), Configuration),
        ] {
            assert_eq!(cat(f.clone()).0, want, "{f:?}");
            assert!(!cat(f.clone()).1, "{f:?}");
        }
        for (f, want) in [
            (Failure::new("The model you've selected is experiencing a high volume of traffic."), Overloaded),
            (Failure::new("The service is under heavy load, please retry"), Overloaded),
            (Failure::new("{\"detail\":{\"status\":\"system_busy\",\"message\":\"Our services are experiencing high levels of traffic\"}}"), Overloaded),
            (Failure::new("{\"detail\":{\"status\":\"too_many_concurrent_requests\"}}"), RateLimited),
            (Failure::new("Agent terminated due to error.\nYou can prompt the model to try again"), ServerError),
            (Failure::new("Realtime API response failed with error type: server_error"), ServerError),
            (Failure::new("Failed to request plugin daemon, url: plugin/x/dispatch/llm/invoke"), Connection),
        ] {
            assert_eq!(cat(f.clone()), (want, true), "{f:?}");
        }
    }

    /// (batch 25) Each agent framework's own step budget (LangGraph `GraphRecursionError`,
    /// openai-agents `MaxTurnsExceeded`, LangChain `AgentExecutor`, LlamaIndex ReActAgent,
    /// smolagents): unknown and never retried, whatever frame the app put around it.
    #[test]
    fn an_agent_step_budget_is_unknown_under_any_frame() {
        for f in [
            Failure::new("Failed to stream response: Recursion limit of 25 reached without hitting a stop condition. You can increase the limit by setting the `recursion_limit` config key."),
            Failure::new("Max turns (10) exceeded").with_class(["agents.exceptions.MaxTurnsExceeded"]),
            Failure::new("agents.exceptions.MaxTurnsExceeded: Max turns (25) exceeded"),
            Failure::new("Agent stopped due to iteration limit or time limit."),
            Failure::new("ValueError: Reached max iterations."),
            Failure::new("AgentMaxStepsError: Reached max steps."),
        ] {
            assert_eq!(cat(f.clone()), (Unknown, false), "{f:?}");
        }
    }

    /// (batch 25) A history with no user turn, a request with no model, a plan or key without
    /// the model, a 401 reason in an app's code, a reply failing an agent's structure check, a
    /// client catch-all that asks for the message again.
    #[test]
    fn batch_25_app_wordings() {
        for (f, want) in [
            (Failure::new("error: invalid message bedrock requires at least one non-system messageno fallback model group found for original model_group=bedrock-claude"), (BadRequest, false)),
            (Failure::new("messages: at least one message is required"), (BadRequest, false)),
            (Failure::new("ValidationException: A conversation must start with a user message. Try again with a conversation that starts with a user message."), (BadRequest, false)),
            (Failure::new("Chat error: neither PlanModel nor RequestedModel specified. You must specify a valid model."), (BadRequest, false)),
            (Failure::new("Invalid Model: The model does not work with your current plan or api key."), (Forbidden, false)),
            (Failure::new("Caught Exception. Error: Error 40101: Authorization required.  Find your API Key in the settings."), (Unauthorized, false)),
            (Failure::new("Cannot process your request due to Exception: Planner failed to generate response because LLM failed to generate complete attachments"), (Validation, false)),
            (Failure::new("Error handling model response\nThere was an error handling the response from Llama 3.1 8B.\n\nPlease try to submit your message again."), (ServerError, true)),
            (Failure::new("ERROR service=acp-command reason=ProviderModelNotFoundError Unhandled rejection"), (Configuration, false)),
        ] {
            assert_eq!(cat(f.clone()), want, "{f:?}");
        }
        // A provider's own 404 for a model stays not found.
        assert_eq!(
            cat(Failure::http(404, "{\"error\":{\"message\":\"The model `x` does not exist\",\"code\":\"model_not_found\"}}")).0,
            NotFound
        );
    }
}

#[cfg(test)]
mod batch25a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 25) The Anthropic SDKs' refusal, before sending, of a non-streaming request that
    /// may run over ten minutes (Python raises ValueError; TypeScript an Error): the request.
    #[test]
    fn sdk_requires_streaming() {
        for f in [
            Failure::new("Streaming is strongly recommended for operations that may take longer than 10 minutes. See https://github.com/anthropics/anthropic-sdk-python#long-requests for more details").with_class(["ValueError"]),
            Failure::new("Error: Streaming is strongly recommended for operations that may take longer than 10 minutes. See https://github.com/anthropics/anthropic-sdk-typescript#long-requests for more details"),
        ] {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (BadRequest, false), "{f:?}");
        }
    }
}

#[cfg(test)]
mod batch26b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each_with as check;

    /// (batch 26) OpenAI's model_error in each client's print, platform and MCP timeouts.
    #[test]
    fn model_error_and_waits_given_up() {
        check(vec![
            // OpenAI model_error (openai-python issues; OpenHands, opencode)
            (Failure::http(500, "{\"error\":{\"message\":\"The model produced invalid content. Consider modifying your prompt if you are seeing this error persistently.\",\"type\":\"model_error\",\"param\":null,\"code\":null}}"), ServerError, true),
            (Failure::new("openai.InternalServerError: Error code: 500 - {'error': {'message': 'x', 'type': 'model_error', 'param': None, 'code': None}}"), ServerError, true),
            (Failure::new("APIError: The model produced invalid content."), ServerError, true),
            // LiteLLM's print (BerriAI/litellm#8020)
            (Failure::new("litellm.APIError: APIError: OpenAIException - Error code: 500 - {'error': {'message': 'The model produced invalid content. Consider modifying your prompt if you are seeing this error persistently.', 'type': 'model_error', 'param': None, 'code': None}}"), ServerError, true),
            // Alibaba Cloud FC, Dify plugin daemon, Chinese bots
            (Failure::new("Error: Invocation cancelled by client (duration: 30001ms)"), Timeout, true),
            (Failure::new("PluginInvokeError: [models] Error: MAX_REQUEST_TIMEOUT"), Timeout, true),
            // MCP python-sdk / typescript-sdk / Claude Desktop
            (Failure::new("Timed out while waiting for response to ClientRequest. Waited 5.0 seconds."), Timeout, true),
            (Failure::new("McpError: MCP error -32001: Request timed out"), Timeout, true),
            (Failure::new("No result received from client-side tool execution."), Timeout, true),
        ]);
    }

    /// (batch 26) Empty replies, a chat's length limit, MCP servers that could not start, and a
    /// hedged Chinese list of causes.
    #[test]
    fn empty_replies_chat_limits_and_spawns() {
        check(vec![
            (Failure::new("LLM API call did not return a message"), InvalidResponse, false),
            (Failure::new("ChatCompletion(id='x', choices=[], model='gpt-4o')"), InvalidResponse, false),
            (Failure::new("The provider returned no choices"), InvalidResponse, false),
            (Failure::new("Your message will exceed the length limit for this chat. Try attaching fewer or smaller files or starting a new conversation."), ContextOverflow, false),
            (Failure::new("Failed to spawn: `uvx` Caused by: No such file or directory (os error 2)"), Configuration, false),
            (Failure::new("spawn npx ENOENT"), Configuration, false),
            (Failure::new("Failed to start MCP server: spawn node ENOENT"), Configuration, false),
            // other commands (nova-memory#4, VS Code's MCP log, binary_ninja_mcp#9)
            (Failure::new("MCP server \"mcp-nova\": Connection failed: Error: spawn mcp-nova ENOENT"), Configuration, false),
            (Failure::new("Connection state: Error spawn uv ENOENT"), Configuration, false),
            (Failure::new("spawn /Users/user/binary_ninja_mcp/.venv/bin/python ENOENT"), Configuration, false),
            // Not a missing program: an argument list over the OS limit stays the client's bug.
            (Failure::new("Error: spawn ENAMETOOLONG"), Programming, false),
            (Failure::new("Error: spawn uvx ENOENT\nMCP error -32000: Connection closed"), Configuration, false),
            (Failure::new("接口不可用，可能是网络问题，也有可能是余额不足"), Unknown, false),
        ]);
    }
}

#[cfg(test)]
mod batch27b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each as check;

    /// (batch 27) Apps' own words for an unusable reply, a request too large, a planner's
    /// missing fields, a provider or token absent from the set-up, a catch-all to try again.
    #[test]
    fn apps_words() {
        check(vec![
            // easychatgpt#2, Copilot (vscode-copilot-release#8619)
            (Failure::new("发生错误: Incorrect response from OpenAI API"), InvalidResponse),
            (Failure::new("Error: incorrect response from the server"), InvalidResponse),
            (Failure::new("The model unexpectedly did not return a response, which may indicate a service issue. Please report a bug."), InvalidResponse),
            // gpt-pilot#1070
            (Failure::new("We sent too large request to the LLM, resulting in an error."), ContextOverflow),
            // TaskWeaver#274, #25; AutoGPT with LM Studio
            (Failure::new("Planner failed to generate response because Missing elements: send_to, message in the `response` element"), Validation),
            (Failure::new("Planner failed to generate response because Post send_to field is None"), Validation),
            (Failure::new("ERROR PARSING YOUR RESPONSE: LLM did not call create_agent function"), Validation),
            // pot-app#707 (g4f behind it): its 500 carries the router's own fault
            (Failure::http(500, "ProviderNotFoundError: Provider not found: OpenaiChat"), Configuration),
            // litellm#2969 (slack_sdk's words)
            (Failure::new("Either an env variable `SLACK_BOT_TOKEN` or `token` argument in the constructor is required."), Configuration),
            // researchgpt#57 and siblings; a named cause stays its own
            (Failure::new("Error: Request to OpenAI failed. Please try again."), ServerError),
            (Failure::new("The request to the model server failed, please try again"), ServerError),
            // chatgpt-alfred#4 and chatgpt-telegram-bot#6: ChatGPT's web 400 "Try refreshing your
            // browser" came from a changed model name; the 400 decides
            (Failure::http(400, "UserError: An error ocurred. Try refreshing your browser."), BadRequest),
            // The same parser's empty event (anthropic-sdk-go in a GitHub app)
            (Failure::new("Error: Failed to parse Anthropic message stream event:\nEOF while parsing a value at line 1 column 0"), StreamInterrupted),
        ]);
    }

    /// (batch 27) ChatLuna's own codes: never read as HTTP statuses.
    #[test]
    fn chatluna_codes() {
        check(vec![
            (
                Failure::new("使用 ChatLuna 时出现错误，错误码为 301。请联系开发者以解决此问题。"),
                Configuration,
            ),
            (
                Failure::new("使用 ChatLuna 时出现错误，错误码为 403。请联系开发者以解决此问题。"),
                Configuration,
            ),
            (
                Failure::new("使用 ChatLuna 时出现错误，错误码为 309。请联系开发者以解决此问题。"),
                InvalidResponse,
            ),
            (
                Failure::new("使用 ChatLuna 时出现错误，错误码为 102。请联系开发者以解决此问题。"),
                Timeout,
            ),
            (
                Failure::new("使用 ChatLuna 时出现错误，错误码为 1。请联系开发者以解决此问题。"),
                Connection,
            ),
        ]);
    }

    /// (batch 27) A day window only where it names the quota: not a note's folder, not an
    /// aside in a list of windows that names a minute one; OpenRouter's `limit_rpd` id.
    #[test]
    fn day_windows_read_where_they_name_the_quota() {
        check(vec![
            // obsidian-smart-connections#24
            (Failure::http(429, "failed embedding: 5 Daily Notes/2022-11-14-Mon.md\nError: Request failed, status 429"), RateLimited),
            // Bob's OpenAI plugin (bob-plugin-openai-translator#106), and OpenAI's English
            (Failure::http(429, "请求过于频繁，请慢一点。这些限制适用于每分钟 tokens 数、每分钟请求数（某些情况下是每天请求数）。"), RateLimited),
            (Failure::http(429, "Rate limits apply to tokens per minute, requests per minute (in some cases requests per day)."), RateLimited),
            // A day quota stays one
            (Failure::http(429, "You exceeded your daily quota (requests per day)."), PaymentRequired),
            (Failure::http(429, "Daily limit reached for notes/x.md uploads"), PaymentRequired),
            // litellm#9035 (OpenRouter)
            (Failure::http(429, "{\"error\":{\"message\":\"Rate limit exceeded: limit_rpd/google/gemini-2.0-flash-thinking-exp-01-21/54276bca\",\"code\":429}}"), PaymentRequired),
        ]);
    }
}

/// (batch 28) Sibling wordings of batch 28b's app, eval and MCP families, each with its source.
#[cfg(test)]
mod batch28b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each as check;

    #[test]
    fn challenge_pages_and_chatgpt_web_words() {
        check(vec![
            // ChatGPTBox's wording; Cloudflare's challenge text.
            (Failure::new("OpenAI Security Check Required\nPlease open https://chat.openai.com/"), Forbidden),
            (Failure::new("Please complete the security check to access chatgpt.com"), Forbidden),
            // ChatGPT web back end (chatgpt-api / ChatGPTBox threads).
            (Failure::new("Error: Conversation not found"), NotFound),
            (Failure::new("{\"detail\":{\"message\":\"Conversation key not found. Try starting a new conversation.\"}}"), NotFound),
            (Failure::new("{\"detail\":\"Hmm...something seems to have gone wrong. Maybe try me again in a little bit.\"}"), ServerError),
            // LibreChat client/src/... "The response is incomplete; it's either still processing, was cancelled, or censored."
            (Failure::new("The response is incomplete; it's either still processing, was cancelled, or censored. Refresh or try a different prompt."), StreamInterrupted),
        ]);
    }

    #[test]
    fn parsers_judge_models_and_transports_named() {
        check(vec![
            // langchain_core/output_parsers/pydantic.py: "Failed to parse {name} from completion {json}. Got: {e}".
            (Failure::new("OutputParserException: Failed to parse Flower from completion {'name': 'x', 'colors': ['a']}. Got: Expecting property name enclosed in double quotes: line 1 column 2 (char 1)"), Validation),
            (Failure::new("Failed to parse Action from completion {\"action\": \"search\"}. Got: 1 validation error for Action"), Validation),
            // A log that merely resumes "from completion 3/10" is no parser's failure.
            (Failure::new("resuming from completion 3/10"), Unknown),
            // Langfuse's judge check; DeepEval models/gpt_model.py.
            (Failure::new("Selected model is not supported for evaluations."), Configuration),
            (Failure::new("ValueError: Invalid model. Available GPT models: gpt-4o, gpt-4o-mini, gpt-4.1"), Configuration),
            // MCP typescript-sdk client/streamableHttp.ts "Unexpected content type: ${contentType}".
            (Failure::new("Streamable HTTP error: Unexpected content type: text/plain"), InvalidResponse),
            // A relay's overload under its own 400, and without a status.
            (Failure::http(400, "Gemini upstream error (400) due to overload"), Overloaded),
            (Failure::new("upstream error due to overload, retry later"), Overloaded),
        ]);
    }
}

#[cfg(test)]
mod batch28a_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 28) A retry layer's "non-retryable" verdict hides a catch-all: unknown, unless
    /// the relayed error names itself.
    #[test]
    fn a_wrappers_non_retryable_verdict_is_not_a_server_catch_all() {
        // OpenRouter runner (openrouter-runner#110)
        let c = classify(&Failure::new("Error: An error occurred while processing your request. Failed after 2 attempts with non-retryable error: 'Provider returned error'"));
        assert_eq!((c.category, c.transient), (Unknown, false));
        let c = classify(&Failure::new(
            "Failed after 1 attempts with non-retryable error: 'Provider returned error'",
        ));
        assert_eq!((c.category, c.transient), (Unknown, false));
        // The relayed error's own words still decide.
        let c = classify(&Failure::new(
            "Failed after 3 attempts with non-retryable error: 'Incorrect API key provided'",
        ));
        assert_eq!(c.category, Unauthorized);
        let c = classify(&Failure::new("Failed after 1 attempts with non-retryable error: 'You exceeded your current quota, please check your plan and billing details'"));
        assert_eq!(c.category, PaymentRequired);
    }
}

#[cfg(test)]
mod batch29b_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 29) Apps' own words for a model, a key, a schema, a reply and a busy service, under
    /// any status or none.
    #[test]
    fn app_words_name_their_family() {
        for (status, text, want, transient) in [
            // Raycast's backends (raycast-unblock, promptlab issues)
            (None, "Failed to get the prompt: AI model is unavailable", Configuration, false),
            (None, "Error: Model is not supported", Configuration, false),
            // OpenRouter 400, and the same words with no status
            (Some(400), "{\"error\":{\"message\":\"openai/gpt-9 is not a valid model ID\",\"code\":400}", NotFound, false),
            (None, "anthropic/claude-x is not a valid model ID", NotFound, false),
            // Anthropic's tool-name schema
            (Some(400), "tools.3.custom.name: String should match pattern '^[a-zA-Z0-9_-]{1,128}$'", BadRequest, false),
            // Chatbox and legacy openai-python reply parsers
            (None, "API Request Failed: Error parsing item", InvalidResponse, false),
            (None, "openai.error.APIError: HTTP code 200 from API ({\"id\": )", InvalidResponse, false),
            (None, "Please check your API key and credentials", Unauthorized, false),
            // langflow's pydantic check of its own client object
            (None, "ValidationError: 1 validation error for ChatAnthropic\napi_key\n Input should be a valid string [type=string_type, input_value=SecretStr('**********'), input_type=SecretStr]", Programming, false),
            // a relay's 503 and other "too busy" wordings
            (Some(503), "System is too busy now. Please try again later.", Overloaded, true),
            (None, "The server is too busy right now", Overloaded, true),
            // a browser's fetch failure on the last line of an app's frame (Chatbox on Safari,
            // Chromium, Firefox)
            (None, "API 请求失败：\nTXT\nLoad failed", Connection, true),
            (None, "API Request Failed:\nFailed to fetch", Connection, true),
            (None, "Request failed\nNetworkError when attempting to fetch resource.", Connection, true),
            // Cline's code run onto its message
            (None, "stream_initialization_failedFailed to create stream", ServerError, true),
            (None, "api_request_failedToo many requests", RateLimited, true),
        ] {
            let f = match status {
                Some(s) => Failure::http(s, text),
                None => Failure::new(text),
            };
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (want, transient), "{status:?} {text}");
        }
    }

    /// (batch 29) A rate limit whose stated wait is a day or more, in hours or days, is a
    /// day's quota; an hour's wait or seconds of boilerplate stay a rate limit.
    #[test]
    fn waits_of_a_day_or_more_are_payment() {
        for (text, want) in [
            ("Sorry, your request was rate-limited. Please wait 269 hours 20 minutes before trying again.", PaymentRequired),
            ("Rate limit exceeded. Try again in 3 days.", PaymentRequired),
            ("Sorry, your request was rate-limited. Please wait 2 hours before trying again.", RateLimited),
            ("Rate limit exceeded. Please retry after 30 seconds.", RateLimited),
        ] {
            assert_eq!(classify(&Failure::new(text)).category, want, "{text}");
        }
    }
}
