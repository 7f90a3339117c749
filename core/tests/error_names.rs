//! `RunConfig::error_names`: SwarmSDK's `error_type` names are the core's to give (the Ruby
//! adapter used to rewrite the events after the core emitted them).

use retry_core::{ErrorNames, Run, RunConfig, Step};
use retry_core::{Failure, RetryPolicy};

fn request_failed_error_type(names: ErrorNames, failure: &Failure) -> String {
    let cfg = RunConfig {
        error_names: names,
        ..RunConfig::default()
    };
    let mut run = Run::with_config(RetryPolicy::swarm_sdk(3, 15.0), cfg);
    assert!(matches!(run.start(0.0), Step::Call { .. }));
    assert!(matches!(
        run.failed(failure, 0.1),
        Step::Reraise | Step::GiveUp { .. }
    ));
    let events = run.take_events();
    let e = events
        .iter()
        .find(|e| e.kind == "llm_request_failed")
        .expect("a request_failed event");
    e.fields["error_type"].as_str().unwrap().to_owned()
}

#[test]
fn swarm_sdk_names_come_from_the_run() {
    let llm =
        |name: &str| [name, "RubyLLM::Error", "StandardError", "Exception"].map(str::to_owned);
    // A refusal under a 400: the contract says what it is, SwarmSDK's rescue clauses say 400.
    let refused = Failure::http(
        400,
        "Your request was rejected as a result of our safety system.",
    )
    .with_body(r#"{"error":{"code":"content_policy_violation","type":"invalid_request_error"}}"#)
    .with_class(llm("RubyLLM::BadRequestError"));
    assert_eq!(
        request_failed_error_type(ErrorNames::Contract, &refused),
        "ContentFiltered"
    );
    assert_eq!(
        request_failed_error_type(ErrorNames::SwarmSdk, &refused),
        "BadRequest"
    );
    // A programming error is named by its class in both vocabularies.
    let typo = Failure::new("undefined method `foo'").with_class([
        "NoMethodError",
        "NameError",
        "StandardError",
    ]);
    assert_eq!(
        request_failed_error_type(ErrorNames::Contract, &typo),
        "NoMethodError"
    );
    assert_eq!(
        request_failed_error_type(ErrorNames::SwarmSdk, &typo),
        "NoMethodError"
    );
}
