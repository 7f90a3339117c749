//! (batch 20) The client's own bug, in the words of each language's runtime: the call was never
//! made, or its answer was read by code that is wrong, and the same code fails the same way on
//! every retry. Each row is a runtime's own message (the family), never one app's sentence.
//! `text::permanent` reads them after the main tables, so a provider's words (a rate limit, a
//! balance) named anywhere in the text decide first, and a status beats them as ever.

use super::{said, Phrase};
use crate::category::Category::*;

/// Runtime errors of a program's own code.
pub const PERMANENT: &[Phrase] = &[
    // Lua (lua/ldebug.c `luaG_typeerror`: "attempt to %s a %s value%s", with the variable's
    // kind: "attempt to call method 'parse_curl_args' (a nil value)", "attempt to index a nil
    // value (field 'x')", "attempt to concatenate a nil value").
    said("attempt to index a nil value", Programming),
    said("attempt to call a nil value", Programming),
    said("attempt to concatenate a nil value", Programming),
    said("attempt to perform arithmetic on a nil value", Programming),
    said("(a nil value)", Programming),
    // V8 and JavaScriptCore TypeErrors ("Cannot read properties of undefined (reading 'x')",
    // "Cannot set properties of null", "x.map is not a function", "undefined is not an
    // object (evaluating 'a.b')", "x is not iterable").
    said("cannot set properties of undefined", Programming),
    said("cannot set properties of null", Programming),
    said("is not a function", Programming),
    said("undefined is not an object", Programming),
    said("null is not an object", Programming),
    said("is not iterable", Programming),
    // Dart ("Null check operator used on a null value", "type 'Null' is not a subtype of type
    // 'String'"), Swift ("Unexpectedly found nil while unwrapping an Optional value"), Kotlin
    // (`kotlin.KotlinNullPointerException`, "lateinit property x has not been initialized"),
    // .NET ("Object reference not set to an instance of an object"), Go ("invalid memory
    // address or nil pointer dereference"), Rust ("called `Option::unwrap()` on a `None`
    // value").
    said("null check operator used on a null value", Programming),
    said("type 'null' is not a subtype of type", Programming),
    said("unexpectedly found nil while unwrapping", Programming),
    said("kotlinnullpointerexception", Programming),
    said("lateinit property", Programming),
    said(
        "object reference not set to an instance of an object",
        Programming,
    ),
    said("nil pointer dereference", Programming),
    said("on a `none` value", Programming),
    // Ruby ("undefined method `content' for nil:NilClass", newer "for nil").
    said("for nil:nilclass", Programming),
    // Python TypeErrors (CPython Objects/unicodeobject.c "string indices must be integers",
    // Objects/abstract.c "'NoneType' object is not subscriptable", "... is not iterable",
    // "'NoneType' object has no attribute").
    said("string indices must be integers", Programming),
    said("list indices must be integers", Programming),
    said("'nonetype' object is not subscriptable", Programming),
    said("'nonetype' object has no attribute", Programming),
    said("'nonetype' object is not callable", Programming),
    // A Python client's own check on an argument its caller left None (Letta's local-LLM
    // wrapper: "function_call == None not supported (auto only)"; "None is not supported for
    // 'x'"): the calling code passes a value the library never takes.
    said("== none not supported", Programming),
    said("none is not supported", Programming),
    // Emacs Lisp's void variable or function (src/eval.c: "Symbol's value as variable is
    // void", "Symbol's function definition is void"), and its "Wrong type argument".
    said("symbol's value as variable is void", Programming),
    said("symbol's function definition is void", Programming),
    said("wrong type argument", Programming),
    // GDScript (modules/gdscript/gdscript_vm.cpp "Invalid get index '%s' (on base: '%s')."),
    // Java (JEP 358 helpful NullPointerException: "Cannot load from object array because
    // \"x.choices\" is null", "Cannot invoke \"...\" because \"x\" is null").
    said("invalid get index", Programming),
    said("invalid call. nonexistent function", Programming),
    said("java.lang.nullpointerexception", Programming),
    said("cannot load from object array because", Programming),
    // httpx `_client.py`: "Cannot send a request, as the client has been closed." (the caller
    // closed its own client); Node's spawn of curl with an argument over the OS limit
    // ("curl could not be started: ENAMETOOLONG").
    said("client has been closed", Programming),
    said("enametoolong", Programming),
    // (batch 25) asyncio misused by the caller (CPython `base_events.py`: "This event loop is
    // already running", "asyncio.run() cannot be called from a running event loop", "Cannot
    // run the event loop while another loop is running", "Event loop is closed"; `events.py`:
    // "There is no current event loop in thread"): ragas' executor inside a notebook's loop.
    said("event loop is already running", Programming),
    said("cannot be called from a running event loop", Programming),
    said("while another loop is running", Programming),
    said("there is no current event loop", Programming),
    said("event loop is closed", Programming),
    // (batch 26) Code written for the openai<1.0 interface run against openai>=1.0 (openai-python
    // lib/_old_api.py APIRemovedInV1: "You tried to access openai.ChatCompletion, but this is no
    // longer supported in openai>=1.0.0"; "You can run `openai migrate`"): the caller's code.
    said("no longer supported in openai>=1.0", Programming),
    said("apiremovedinv1", Programming),
    said("you can run `openai migrate`", Programming),
    // (batch 26) httpx's misuse of a streamed response (httpx _exceptions.py ResponseNotRead
    // "Attempted to access streaming response content, without having called `read()`.",
    // StreamConsumed "... but the content has already been streamed", StreamClosed "... but
    // the stream has been closed"): the client's code read the body wrongly.
    said("without having called `read()`", Programming),
    said("responsenotread", Programming),
    said("content has already been streamed", Programming),
    said("streamconsumed", Programming),
    // (batch 30) An Emacs Lisp error inside a package's process sentinel (gptel: "error in
    // process sentinel: gptel-curl--parse-response: Search failed: ..."): Emacs prints this
    // head for any signal the package's own callback raised, a bug in the client's code.
    said("error in process sentinel", Programming),
    said("error in process filter", Programming),
    // (batch 30a) CPython's own runtime errors of a program's control flow (Python/ceval.c
    // "No active exception to reraise": a bare `raise` outside an `except`; Objects/dictobject.c
    // "dictionary changed size during iteration"): the wrapper's code, the same on every try.
    said("no active exception to reraise", Programming),
    said("dictionary changed size during iteration", Programming),
];

#[cfg(test)]
mod tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// Each runtime's own wording, with names of its own: the client's bug, never retried.
    #[test]
    fn runtime_errors_of_each_language_are_the_clients_bug() {
        for text in [
            "lua/plugin/init.lua:42: attempt to index a nil value (field 'opts')",
            "E5108: Error executing lua: attempt to call a nil value (global 'setup')",
            "attempt to concatenate a nil value (local 'model')",
            "TypeError: Cannot set properties of undefined (setting 'content')",
            "TypeError: response.body.getReader is not a function",
            "TypeError: undefined is not an object (evaluating 'data.choices[0]')",
            "TypeError: stream is not iterable",
            "Unhandled Exception: Null check operator used on a null value",
            "type 'Null' is not a subtype of type 'String' in type cast",
            "Fatal error: Unexpectedly found nil while unwrapping an Optional value",
            "kotlin.KotlinNullPointerException",
            "kotlin.UninitializedPropertyAccessException: lateinit property client has not been initialized",
            "System.NullReferenceException: Object reference not set to an instance of an object.",
            "panic: runtime error: invalid memory address or nil pointer dereference",
            "thread 'main' panicked at src/main.rs:9:5: called `Option::unwrap()` on a `None` value",
            "NoMethodError: undefined method `[]' for nil:NilClass",
            "TypeError: list indices must be integers or slices, not str",
            "AttributeError: 'NoneType' object has no attribute 'choices'",
            "TypeError: 'NoneType' object is not subscriptable",
            "Symbol's function definition is void: gptel-request",
            "Wrong type argument: stringp, nil",
            "ValueError: stream == None not supported here",
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (Programming, false), "{text}");
        }
    }

    /// How a bug ranks against a provider's words: a status or a rate-limit sentence elsewhere
    /// in the text decides first (the bug is only how the client fell over reading it).
    #[test]
    fn a_status_or_a_provider_sentence_outranks_the_bug() {
        let c = classify(&Failure::http(
            429,
            "TypeError: Cannot read properties of undefined (reading 'message')",
        ));
        assert_eq!((c.category, c.transient), (RateLimited, true));
        let c = classify(&Failure::new(
            "Rate limit reached for gpt-4o in organization org-x on requests per min (RPM): \
             Limit 500. TypeError: x is not a function",
        ));
        assert_eq!((c.category, c.transient), (RateLimited, true));
        let c = classify(&Failure::new(
            "Insufficient balance. attempt to index a nil value (field 'choices')",
        ));
        assert_eq!((c.category, c.transient), (PaymentRequired, false));
    }
}

#[cfg(test)]
mod batch21_tests {
    use crate::category::Category::*;
    use crate::classify::classify;
    use crate::failure::Failure;

    /// (batch 21) GDScript's and Java's runtime words, httpx's closed client and a spawn over
    /// the OS's name limit: the program's own bug, never retried.
    #[test]
    fn more_runtimes_own_bugs() {
        for text in [
            "Invalid get index 'message' (on base: 'Nil').",
            "java.lang.NullPointerException: Cannot load from object array because \"r.data\" is null",
            "RuntimeError: Cannot send a request, as the client has been closed.",
            "spawn ENAMETOOLONG",
        ] {
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (Programming, false), "{text}");
        }
    }

    /// (batch 25) asyncio misused by the caller, in CPython's own words (`base_events.py`,
    /// `events.py`): a bug of the app's, never retried.
    #[test]
    fn asyncio_loop_misuse_is_the_callers_bug() {
        for text in [
            "RuntimeError: This event loop is already running",
            "asyncio.run() cannot be called from a running event loop",
            "Cannot run the event loop while another loop is running",
            "RuntimeError: There is no current event loop in thread 'ThreadPoolExecutor-0_0'.",
            "RuntimeError: Event loop is closed",
        ] {
            let c = classify(&Failure::new(text).with_class(["RuntimeError"]));
            assert_eq!((c.category, c.transient), (Programming, false), "{text}");
            let c = classify(&Failure::new(text));
            assert_eq!((c.category, c.transient), (Programming, false), "{text}");
        }
    }
}

#[cfg(test)]
mod batch26b_tests {
    use crate::category::Category::*;
    use crate::failure::Failure;

    use crate::classify::tables::decides::each_with as check;

    /// (batch 26) The openai>=1.0 migration error for every removed name, httpx's stream misuse.
    #[test]
    fn removed_interfaces_and_stream_misuse() {
        check(vec![
            (Failure::new("You tried to access openai.Completion, but this is no longer supported in openai>=1.0.0 - see the README"), Programming, false),
            (Failure::new("APIRemovedInV1: You tried to access openai.Embedding").with_class(["openai.lib._old_api.APIRemovedInV1"]), Programming, false),
            (Failure::new("httpx.ResponseNotRead: Attempted to access streaming response content, without having called `read()`."), Programming, false),
            (Failure::new("httpx.StreamConsumed: Attempted to read or stream some content, but the content has already been streamed."), Programming, false),
        ]);
    }
}
