//! (batch 20) A client's or framework's own registry or set-up that lacks what the call needs:
//! no AI service registered under the name, no model backend by that name, credentials the
//! provider class needs, a local engine with no model loaded, a stored prompt longer than the
//! framework allows. Nothing reached a provider, and nothing changes until a person changes the
//! set-up (batch 19's `LOCAL_REGISTRY_WORDS` began the family for suggestions lists).

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// Set-up words, read after the main tables.
pub const PERMANENT: &[Phrase] = &[
    // (batch 21) An environment variable the app needs is not set (缺少环境变量 / 缺少環境變數:
    // "missing environment variable: SERPAPI_API_KEY", gpt-ai-assistant's startup check).
    stated("缺少环境变量", Configuration),
    stated("缺少環境變數", Configuration),
    stated("环境变量未设置", Configuration),
    stated("未设置环境变量", Configuration),
    // Semantic Kernel: .NET `KernelException` "Service not found: Service of type X and name
    // <NONE> not registered."; Python `KernelServiceNotFoundError` "Service with service_id
    // 'default' does not exist" and "TextCompletionClientBase service with service_id 'None'
    // not found" (microsoft/semantic-kernel, kernel services and the AI service selector).
    said("service not found", Configuration),
    said("with service_id", Configuration),
    said("kernelservicenotfounderror", Configuration),
    // lm-evaluation-harness lm_eval/api/registry.py `get_model`: "Attempted to load model 'x',
    // but no model for this name found! Supported model names: ..."; the same registry's task
    // words.
    said("no model for this name found", Configuration),
    said("supported model names:", Configuration),
    // gpt4free g4f/errors.py `MissingAuthError` ("Add a \"api_key\" or a .har file") and
    // `MissingRequirementsError` (a package the provider needs is not installed).
    said("missingautherror", Configuration),
    said("missingrequirementserror", Configuration),
    // Jan's nitro and cortex.llamacpp engines (janhq/nitro controllers/llamaCPP.cc: "Model has
    // not been loaded, please load model into nitro", answered with 409 Conflict; its first
    // words are stated in `stated_faults::PERMANENT`).
    said("please load model", Configuration),
    said("model not loaded", Configuration),
    // A framework's stored text longer than its own limit (Letta's memory blocks: "Edit
    // failed: Exceeds 2000 character limit (requested 2563)"): the agent's set-up, not the
    // model's output, though pydantic raises it.
    stated("character limit (requested", Configuration),
    // LocalAI's greedy loader after every backend failed on the model ("could not load model
    // - all backends returned error: 23 errors occurred", mudler/LocalAI pkg/model
    // initializers): no backend can run this model file, the set-up (like Ollama's "unable to
    // load model"). One backend's crash ("could not load model: rpc error: code = Unavailable
    // desc = error reading from server: EOF") stays the server's, as the corpus labels it.
    stated("all backends returned error", Configuration),
    // (batch 22) A shell the agent runs to describe the machine is missing (Roo Code's
    // "API Streaming Failed: Command failed with exit code 1: powershell ... 'powershell' is
    // not recognized as an internal or external command", cmd.exe's words; PowerShell's own
    // "is not recognized as the name of a cmdlet"): the set-up, whatever frame the agent put
    // around it.
    stated(
        "is not recognized as an internal or external command",
        Configuration,
    ),
    stated("is not recognized as the name of a cmdlet", Configuration),
    // (batch 25) An app with no chat model in its own set-up (Cody's agent: "No default chat
    // model found", "No chat model found in server-provided config"; Continue's "No chat model
    // selected"; "No model configured"): nothing was sent.
    said("no default chat model", Configuration),
    said("no chat model found", Configuration),
    said("no chat model configured", Configuration),
    said("no model configured", Configuration),
    // An app's own provider set-up refusing a model id before any call (Crush: "Failed to
    // configure providers: bedrock provider only supports anthropic models for now").
    said("provider only supports", Configuration),
    // (batch 25) The runtime an MCP server or CLI tool is launched with is not on the PATH
    // (`/usr/bin/env`: "env: node: No such file or directory", GNU's "env: 'node': No such
    // file or directory"; Node's spawn: "spawn npx ENOENT", "spawn uvx ENOENT"; shells:
    // "npx: command not found"): the launch fails again until the set-up changes, whatever
    // "transport closed" follows it.
    stated("env: node:", Configuration),
    stated("env: 'node'", Configuration),
    stated("env: npx:", Configuration),
    stated("env: 'npx'", Configuration),
    stated("env: python", Configuration),
    stated("env: 'python", Configuration),
    stated("spawn npx enoent", Configuration),
    stated("spawn node enoent", Configuration),
    stated("spawn uvx enoent", Configuration),
    stated("spawn uv enoent", Configuration),
    stated("npx: command not found", Configuration),
    stated("node: command not found", Configuration),
    stated("uvx: command not found", Configuration),
    // (batch 26) openai<1.0 with an Azure type and no deployment ("Must provide an 'engine' or
    // 'deployment_id' parameter to create a <class ...ChatCompletion>").
    said("must provide an 'engine' or 'deployment_id'", Configuration),
    said("must provide an 'engine' parameter", Configuration),
    // (batch 26) A framework's own missing-key exception (PandasAI's APIKeyNotFoundError "OpenAI
    // API key is required"): no key was configured, not a model that was not found.
    said("apikeynotfounderror", Configuration),
    said("api key is required", Configuration),
    // (batch 26) ioredis gave up on a command because its Redis is unreachable ("Reached the max
    // retries per request limit (which is 20). Refer to \"maxRetriesPerRequest\" option"): the
    // app's own store is misconfigured or down, nothing an LLM call's retry changes.
    said("max retries per request limit", Configuration),
    said("maxretriesperrequest", Configuration),
    // (batch 30) .NET dependency injection with no service for what the kernel asked
    // (Semantic Kernel 0.x `KernelException` "Service of type ...ITextCompletion not
    // registered."; Microsoft.Extensions.DependencyInjection "No service for type 'X' has been
    // registered."): the app's set-up, nothing was sent.
    said("no service for type", Configuration),
    said("service of type", Configuration),
    // (batch 30) A client that refuses a model id its own list does not hold (langchain-nvidia
    // via jupyter-ai: "Model meta/llama2-70b is incompatible with client ChatNVIDIAProvider.
    // Please check `ChatNVIDIAProvider.get_available_models()`.").
    said("is incompatible with client", Configuration),
    said("get_available_models()", Configuration),
    // (batch 30) Apps pointing the user at their own AI set-up ("Translation failed.
    // Double-check your AI settings — the integration may not be fully configured."), and a
    // provider answer that no key was given ("You need to use an API key", Replicate via
    // Continue).
    said("check your ai settings", Configuration),
    said("not fully configured", Configuration),
    said("need to use an api key", Configuration),
];

/// (batch 21) A key the client never had, in the words SDKs print before sending anything
/// (CONTRACT §2: a key never set is set-up, a key refused is `unauthorized`): DashScope's
/// `AuthenticationError` "No api key provided. You can set by dashscope.api_key = ..."
/// (help.aliyun.com model-studio status codes), openai-python's "The api_key client option
/// must be set", LangChain's "Did not find openai_api_key, please add an environment variable",
/// an app's "缺少環境變數:SERPAPI_API_KEY" (missing environment variable). Read under an
/// authentication class with no status: no server refused the key.
pub const KEY_NEVER_SET: &[&str] = &[
    "no api key provided",
    "no api-key provided",
    "no api_key provided",
    "api key not provided",
    "api key was not provided",
    "missing api key",
    "api key is missing",
    "api key not set",
    "api key is not set",
    "api_key is not set",
    "did not find openai_api_key",
    "please add an environment variable",
    "缺少环境变量",
    "缺少環境變數",
    "未设置环境变量",
    "环境变量未设置",
    "未配置api key",
    "未设置api key",
];

#[cfg(test)]
mod tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// A registry or set-up in each framework's words: configuration, never retried.
    #[test]
    fn registries_and_set_up_from_sources() {
        for f in [
            Failure::new("KernelServiceNotFoundError: Service with service_id 'azure' does not exist"),
            Failure::new("ChatCompletionClientBase service with service_id 'gpt4' not found"),
            Failure::new("Service not found: Service of type IChatCompletionService and name gpt not registered."),
            Failure::new("ValueError: Attempted to load model 'vllm-remote', but no model for this name found! Supported model names: hf, vllm"),
            Failure::new("g4f.errors.MissingAuthError: Add a .har file for OpenaiChat"),
            Failure::new("MissingRequirementsError: Install \"curl_cffi\" package"),
            Failure::http(409, "{\"message\":\"Model has not been loaded, please load model into nitro\"}"),
            Failure::http(500, "{\"error\":{\"code\":500,\"message\":\"could not load model - all backends returned error: 3 errors occurred\"}}"),
            Failure::new("1 validation error for Block\nvalue\n  Value error, Edit failed: Exceeds 5000 character limit (requested 6120).")
                .with_class(["pydantic_core._pydantic_core.ValidationError"]),
        ] {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (Configuration, false), "{f:?}");
        }
    }

    /// The set-up reading stays narrow: a provider's own 404 for a model stays not found, and
    /// one LocalAI backend that crashed stays the server's.
    #[test]
    fn a_providers_not_found_and_a_crashed_backend_stay_theirs() {
        let c = classify(&Failure::http(
            404,
            "{\"error\":{\"message\":\"The model `gpt-5x` does not exist\",\"type\":\"invalid_request_error\",\"code\":\"model_not_found\"}}",
        ));
        assert_eq!(c.category, NotFound);
        let c = classify(&Failure::http(
            500,
            "could not load model: rpc error: code = Unavailable desc = error reading from server: EOF",
        ));
        assert!(c.transient, "{c:?}");
    }

    /// (batch 25) No chat model in an app's own set-up (Cody's agent, Continue), a provider
    /// set-up that refuses a model id before any call (Crush), and the launch runtime of an MCP
    /// server missing from the PATH (`/usr/bin/env`, Node's spawn, shells), even with the MCP
    /// client's "transport closed" after it: configuration, never retried.
    #[test]
    fn no_chat_model_and_a_missing_runtime_are_set_up() {
        for f in [
            Failure::new("org.eclipse.lsp4j.jsonrpc.ResponseErrorException: No default chat model found"),
            Failure::new("Request commands/explain failed with message: No chat model found in server-provided config"),
            Failure::new("No chat model configured"),
            Failure::new("Error: no model configured for role 'chat'"),
            Failure::new("Failed to configure providers: bedrock provider only supports anthropic models for now"),
            Failure::new("env: node: No such file or directory\n[info] Server transport closed unexpectedly, this is likely due to the process exiting early."),
            Failure::new("/usr/bin/env: 'node': No such file or directory"),
            Failure::new("Error: spawn npx ENOENT"),
            Failure::new("spawn uvx ENOENT"),
            Failure::new("zsh:1: npx: command not found"),
            Failure::new("env: python3: No such file or directory"),
        ] {
            let c = classify(&f);
            assert_eq!((c.category, c.transient), (Configuration, false), "{f:?}");
        }
        // The transport closing alone stays a connection that failed.
        let c = classify(&Failure::new(
            "Server transport closed unexpectedly, this is likely due to the process exiting early.",
        ));
        assert!(c.transient, "{c:?}");
    }
}

#[cfg(test)]
mod batch26b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each_with as check;

    /// (batch 26) Set-up refused before any call: LiteLLM's provider, openai<1.0's Azure engine,
    /// a framework's missing key, ioredis' store.
    #[test]
    fn setup_refused_before_any_call() {
        check(vec![
            (Failure::new("litellm.BadRequestError: LLM Provider NOT provided. Pass in the LLM provider you are trying to call. You passed model=llama3").with_class(["litellm.BadRequestError"]), Configuration, false),
            (Failure::http(400, "LLM Provider NOT provided"), Configuration, false),
            (Failure::new("InvalidRequestError: Must provide an 'engine' or 'deployment_id' parameter to create a <class 'openai.api_resources.completion.Completion'>"), Configuration, false),
            (Failure::new("Anthropic API key is required").with_class(["pandasai.exceptions.APIKeyNotFoundError"]), Configuration, false),
            (Failure::new("MaxRetriesPerRequestError: Reached the max retries per request limit (which is 3)."), Configuration, false),
        ]);
    }
}

#[cfg(test)]
mod batch30b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each_with as check;

    /// (batch 30) Each family in wordings other than the corpus case's: .NET DI, a client's
    /// model list, apps' set-up advice, a missing key, a network hint, a transport layer, an
    /// Emacs sentinel, a harness with no code, a card on file.
    #[test]
    fn batch30_families_in_new_wordings() {
        check(vec![
            (Failure::new("System.InvalidOperationException: No service for type 'Microsoft.SemanticKernel.ChatCompletion.IChatCompletionService' has been registered."), Configuration, false),
            (Failure::new("Service of type Microsoft.SemanticKernel.AI.Embeddings.ITextEmbeddingGeneration not registered."), Configuration, false),
            (Failure::new("Model mistralai/mixtral-8x7b is incompatible with client ChatNVIDIA. Please check `ChatNVIDIA.get_available_models()`."), Configuration, false),
            (Failure::new("Summary failed. Please check your AI settings."), Configuration, false),
            (Failure::new("The assistant is not fully configured yet."), Configuration, false),
            (Failure::new("Error: you need to use an API key for this model"), Configuration, false),
            (Failure::new("Could not reach the AI service. Please check your internet connection or try again later."), Connection, true),
            (Failure::new("Request timed out. Check your network connection and try again."), Timeout, true),
            (Failure::new("Something went wrong while talking to Gemini. Please check your internet connection."), Connection, true),
            (Failure::new("request failed: internal error occurred at the transport layer"), Connection, true),
            (Failure::new("error in process filter: json-parse-error: unexpected token"), Programming, false),
            (Failure::new("error in process sentinel: wrong-type-argument stringp nil"), Programming, false),
            (Failure::new("The model did not respond with code."), Validation, false),
            (Failure::new("Your request failed. Please add a valid credit card to your OpenAI account."), PaymentRequired, false),
        ]);
    }
}
