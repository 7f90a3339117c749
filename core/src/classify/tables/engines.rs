//! (batch 19) Inference engines in their own words: a self-hosted server's engine that died
//! under the request, a GPU out of memory, a health check the scheduler missed, a model that
//! would not load, a prompt over the loaded context. Earlier rules named one product's class or
//! sentence each ("EngineDeadError", "engine loop has died"); a new wording of the same death
//! ("MQLLMEngine is already dead", "EngineCore encountered an issue") slipped past them because
//! the engine's name runs its words together. Here the family is the engine's part, in any
//! compound name, and what happened to it (`text::engine_down`), plus the rows below.
//!
//! CONTRACT §2: a server whose engine died or ran out of GPU memory under load answers the next
//! request with a new engine or free memory (`server_error`, transient; the corpus has labelled
//! Ollama's dead runner and vLLM's dead engine so since batch 4). A model that will not load, or
//! a prompt over the context the model was loaded with, fails the same way on every try.
//!
//! Sources (the servers' own strings):
//! - vLLM: `vllm/v1/engine/exceptions.py` EngineDeadError "EngineCore encountered an issue. See
//!   stack trace (above) for the root cause."; `vllm/entrypoints/launcher.py` "MQLLMEngine is
//!   already dead, terminating server process"; `vllm/engine/multiprocessing` MQEngineDeadError
//!   "Engine loop is not running"; `async_llm_engine.py` "Background loop has errored already",
//!   "Background loop is stopped"; the MQ client's "Engine process (pid N) died."
//! - SGLang: `http_server.py` health_generate "Health check failed. Server couldn't get a
//!   response from detokenizer for last 20 seconds" (the scheduler did not answer a one-token
//!   generate in time: busy with long prefills, sglang#22511).
//! - TGI: `launcher/src/main.rs` "Shard {rank} crashed", "Shard process was signaled to shutdown
//!   with signal {n}", "Webserver Crashed".
//! - Ollama: `llm/server.go` "model runner has unexpectedly stopped, this may be due to resource
//!   limitations or an internal error"; "llama runner process has terminated".
//! - GPU memory: PyTorch's `torch.OutOfMemoryError` "CUDA out of memory. Tried to allocate";
//!   the CUDA runtime's "CUDA error: out of memory"; llama.cpp's "cudaMalloc failed: out of
//!   memory"; ROCm's "HIP out of memory"; PyTorch MPS "MPS backend out of memory".
//! - LM Studio: "Trying to keep the first N tokens when context the overflows. However, the model
//!   is loaded with context length of only M tokens" (lmstudio-bug-tracker#546); "The model has
//!   crashed without additional information" when a chat passes the loaded context
//!   (lmstudio-bug-tracker#932 and #1620, Roo-Code#7388, cline#5821: each at the context limit);
//!   "Failed to load model" / "Failed to load the model ... Error loading model".

use super::{said, stated, Phrase};
use crate::category::Category::*;

/// The part of an inference server that runs the model, as the last word of a compound name
/// ("MQLLMEngine", "AsyncLLMEngine", "EngineCore", "llama runner", "TP0 worker").
pub const PARTS: &[&str] = &[
    "engine",
    "enginecore",
    "engine core",
    "engine loop",
    "engine process",
    "background loop",
    "runner",
    "runner process",
    "scheduler",
    "detokenizer",
    "model worker",
    "gpu worker",
    // TGI's launcher (launcher/src/main.rs: "Shard {rank} crashed", "Shard process was signaled
    // to shutdown with signal {n}", "Webserver Crashed").
    "shard",
    "shard process",
    "webserver",
];

/// What happened to that part: it is gone until the server makes a new one.
pub const DOWN: &[&str] = &[
    "is already dead",
    "already dead",
    "is dead",
    "died",
    "has died",
    "crashed",
    "has crashed",
    "encountered an issue",
    "encountered an error",
    "is not running",
    "has errored",
    "errored already",
    "is stopped",
    "has stopped",
    "unexpectedly stopped",
    "stopped unexpectedly",
    "exited unexpectedly",
    "terminated",
    "has terminated",
    "not responding",
    "was signaled to shutdown",
    // (batch 25) Ollama `llm/server.go`: "llama runner exited, you may not have enough
    // available memory to run this model"; "runner process exited".
    "exited",
    "has exited",
    "process exited",
    // Ollama `llm/server.go`: "llama runner process no longer running: -1".
    "no longer running",
];

/// Transient states of a serving engine, read before the main transient table.
pub const TRANSIENT: &[Phrase] = &[
    // SGLang's scheduler did not answer the health probe in time: a busy server (its long
    // prefills), read before the health check's own words.
    said("a response from detokenizer", Overloaded),
    said("response from the detokenizer", Overloaded),
    said("health check failed", ServerError),
    // GPU memory gone under load: the next request meets freed memory.
    said("cuda out of memory", ServerError),
    said("cuda error: out of memory", ServerError),
    said("cudamalloc failed", ServerError),
    said("hip out of memory", ServerError),
    said("mps backend out of memory", ServerError),
    said("outofmemoryerror", ServerError),
    // (Not "CUDA error" alone: "no kernel image is available for execution on the device" is
    // a GPU the build does not support, the same on every try.)
    // Ollama's newer word for a runner that died.
    said("runner has unexpectedly stopped", ServerError),
    // (batch 31a) A serving part out of memory in the server's own words, whatever the part is
    // called (Xinference's "Model actor is out of memory."; "the worker ran out of memory";
    // 显存不足, GPU memory short), as the GPU runtimes' rows above say it. A bare "out of
    // memory" stays a standing fault for the last-resort readings (`nearby::CALLER_FAULT`),
    // and a model that would not load for lack of memory is set-up (LM Studio's "Failed to
    // load model: out of memory", read by the load family).
    said("is out of memory", ServerError),
    said("ran out of memory", ServerError),
    said("显存不足", ServerError),
    // The same, in two more GPU runtimes' names for it: onnxruntime's CUDA provider prints
    // "CUDA failure 2: out of memory" (cudaErrorMemoryAllocation is 2; microsoft/foundry-local
    // #209 under a bare 500); Apple Metal's command-buffer status
    // kIOGPUCommandBufferCallbackErrorOutOfMemory, as llama.cpp's Metal backend logs it
    // ("error: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOfMemory)",
    // ollama#6257).
    said("cuda failure 2: out of memory", ServerError),
    said("kiogpucommandbuffercallbackerroroutofmemory", ServerError),
    // (batch 31a) Ollama's prefix for a runner that failed under the request ("an error was
    // encountered while running the model: unexpected EOF"): the runner's connection ending
    // is the runner's death, not the caller's link (the corpus labels it so since batch 4).
    said("encountered while running the model", ServerError),
    // (batch 35a) llama-swap's refusal to forward while its upstream process is not running
    // ("Process can not ProxyRequest, state is failed", mostlygeek/llama-swap#92; the same line
    // names `starting` or `stopping` in proxy/process.go): the local server is not serving,
    // whatever state it names. The server's fault, not the request's.
    said("can not proxyrequest", ServerError),
    said("cannot proxyrequest", ServerError),
];

/// Permanent states of a local server: a prompt over the loaded context. `stated`: a server's 500 around them is still the same failure on the next try.
pub const PERMANENT: &[Phrase] = &[
    stated("when context the overflows", ContextOverflow),
    stated("when the context overflows", ContextOverflow),
    stated("loaded with context length of only", ContextOverflow),
    stated("trying to keep the first", ContextOverflow),
    // LM Studio's crash at the context limit (see the sources above): never a retry.
    stated("crashed without additional information", ContextOverflow),
    // (batch 24) An input longer than what the engine holds per sequence or per batch, as the
    // embedding and rerank servers word it under their 400 or 500: llama.cpp's server "input (N
    // tokens) is too large to process. increase the physical batch size (current batch size:
    // 512)" (tools/server, send_error; quoted in Roo-Code's and Docker Model Runner's notes);
    // GPUStack's llama-box "Illegal param: prefill N tokens exceed n_ctx_per_seq, try increasing
    // total context size" (gpustack#1845); llama.cpp's "input is larger than the max context
    // size"; Ollama's embed "the input length exceeds the context length". The same input
    // fails the same way: shorten it.
    stated("is too large to process", ContextOverflow),
    stated("increase the physical batch size", ContextOverflow),
    stated("exceed n_ctx_per_seq", ContextOverflow),
    stated("exceeds n_ctx_per_seq", ContextOverflow),
    stated("exceed n_ctx", ContextOverflow),
    stated("exceeds n_ctx", ContextOverflow),
    stated("larger than the max context size", ContextOverflow),
    stated("input length exceeds the context length", ContextOverflow),
];

#[cfg(test)]
mod tests {
    //! Wordings from the servers' sources and notes named above, not only the corpus's.
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    #[test]
    fn an_input_over_the_engines_batch_or_context_is_not_retried_under_a_500() {
        for (status, m) in [
            // llama.cpp server (embeddings, rerank), as Docker Model Runner's notes quote it.
            (500, "input (5567 tokens) is too large to process. increase the physical batch size (current batch size: 4096)"),
            (500, r#"{"error":{"code":500,"message":"input is too large to process. increase the physical batch size","type":"server_error"}}"#),
            // GPUStack's llama-box.
            (400, "Illegal param: prefill 744 tokens exceed n_ctx_per_seq, try increasing total context size"),
            (500, "input is larger than the max context size. skipping"),
            // Ollama's /api/embed.
            (500, "the input length exceeds the context length"),
        ] {
            let c = classify(&Failure::http(status, m));
            assert_eq!((c.category, c.transient), (ContextOverflow, false), "{m}");
        }
        // A batch word alone is no overflow: llama.cpp's own busy answer stays transient.
        let c = classify(&Failure::http(503, "Loading model"));
        assert!(c.transient);
    }
}

#[cfg(test)]
mod batch25a_tests {
    use crate::classify::text::engine_down;

    /// (batch 25) A runner or engine that exited (Ollama `llm/server.go`, vLLM's engine core).
    #[test]
    fn exited_parts_are_down() {
        assert!(engine_down(
            "llama runner exited, you may not have enough available memory"
        ));
        assert!(engine_down("engine core process exited with code 1"));
        assert!(engine_down("the runner has exited"));
        assert!(engine_down(
            "llama runner process no longer running: -1 error:failed to create context with model"
        ));
        // Not a part of a server: an MCP tool's subprocess is the app's.
        assert!(!engine_down("the user exited the program"));
    }
}
