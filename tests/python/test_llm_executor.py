"""retry_core.llm_executor behaves as PlanExe's llm_executor (the same tests PlanExe runs, on a
fake LLM), plus transient retries per model and validation retries with feedback."""


import importlib.util
import sys
import textwrap
import types

import pydantic
import pytest
from conftest import without_waits

from retry_core import llm_executor as mod
from retry_core.llm_executor import (
    LLMAttempt,
    LLMExecutor,
    LLMModelBase,
    LLMModelFromName,
    LLMModelWithInstance,
    PipelineStopRequested,
    RetryConfig,
    ShouldStopCallbackParameters,
    is_transient_error,
)


class FakeLLM:
    """Answers from a list: a string, or an exception to raise ("raise:TEXT" raises Exception(TEXT))."""

    def __init__(self, responses):
        self.responses = list(responses)
        self.calls = 0

    def complete(self, prompt):
        self.calls += 1
        r = self.responses.pop(0) if len(self.responses) > 1 else self.responses[0]
        if isinstance(r, BaseException):
            raise r
        if isinstance(r, str) and r.startswith("raise:"):
            raise Exception(r[len("raise:"):])
        return r


class StatusError(Exception):
    def __init__(self, status, msg="", headers=None, body=None):
        super().__init__(msg or f"Error code: {status}")
        self.status_code = status
        self.headers = headers or {}
        if body is not None:
            self.body = body


def run(llm):
    return llm.complete("Hi")


def models(*llms):
    return LLMModelWithInstance.from_instances(list(llms))


# --- PlanExe's behaviour --------------------------------------------------------------------

def test_simple():
    executor = LLMExecutor(llm_models=models(FakeLLM(["Hello, world!"])))
    assert executor.run(run) == "Hello, world!"
    assert executor.attempt_count == 1


def test_fallback_to_the_2nd_llm():
    executor = LLMExecutor(llm_models=models(FakeLLM(["raise:BAD"]), FakeLLM(["I'm the 2nd LLM"])))
    assert executor.run(run) == "I'm the 2nd LLM"
    assert executor.attempt_count == 2
    assert not executor.attempts[0].success and executor.attempts[1].success


def test_exhaust_all_llms_one_line_per_attempt():
    bad1, bad2 = FakeLLM(["raise:BAD1"]), FakeLLM(["raise:BAD2"])
    executor = LLMExecutor(llm_models=models(bad1, bad2))
    with pytest.raises(Exception) as info:
        executor.run(run)
    text = str(info.value)
    assert text.startswith("Failed to run. Exhausted all LLMs. Failure summary:\n")
    lines = text.splitlines()[1:]
    assert lines == [
        " - Attempt 0 with LLMModelWithInstance(llm=FakeLLM) failed during 'execute' stage: Exception('BAD1')",
        " - Attempt 1 with LLMModelWithInstance(llm=FakeLLM) failed during 'execute' stage: Exception('BAD2')",
    ]
    assert executor.attempt_count == 2


def test_failure_inside_create_llm():
    class BadLLMModel(LLMModelBase):
        def create_llm(self):
            raise ValueError("Cannot initialize this model")

        def __repr__(self):
            return "BadLLMModel()"

    bad = BadLLMModel()
    executor = LLMExecutor(llm_models=[bad])
    with pytest.raises(Exception, match="Failed to run. Exhausted all LLMs."):
        executor.run(run)
    a = executor.attempts[0]
    assert (a.llm_model, a.stage, a.success, a.result) == (bad, "create", False, None)
    assert isinstance(a.exception, ValueError) and str(a.exception) == "Cannot initialize this model"


def test_callback_continue_and_parameters():
    seen = []

    def cb(p: ShouldStopCallbackParameters) -> None:
        seen.append((p.attempt_index, p.total_attempts, p.last_attempt.success, p.total_duration >= 0))

    executor = LLMExecutor(llm_models=models(FakeLLM(["raise:BAD0"]), FakeLLM(["I'm the last LLM"])), should_stop_callback=cb)
    assert executor.run(run) == "I'm the last LLM"
    assert seen == [(0, 2, False, True), (1, 2, True, True)]


def test_callback_stops_after_success():
    def cb(p):
        raise PipelineStopRequested("Stopping execution after first successful attempt")

    executor = LLMExecutor(llm_models=models(FakeLLM(["good"]), FakeLLM(["never"])), should_stop_callback=cb)
    with pytest.raises(PipelineStopRequested, match="first successful attempt"):
        executor.run(run)
    assert executor.attempt_count == 1 and executor.attempts[0].result == "good"


def test_callback_stops_on_second_attempt():
    def cb(p):
        if p.attempt_index == 1:
            raise PipelineStopRequested("Stopping execution after second attempt")

    executor = LLMExecutor(llm_models=models(FakeLLM(["raise:I'm bad"]), FakeLLM(["good"])), should_stop_callback=cb)
    with pytest.raises(PipelineStopRequested):
        executor.run(run)
    assert executor.attempt_count == 2
    assert str(executor.attempts[0].exception) == "I'm bad" and executor.attempts[1].success


def test_exception_inside_should_stop_callback_propagates():
    def cb(p):
        raise ValueError("Broken database connection")

    executor = LLMExecutor(llm_models=models(FakeLLM(["good"]), FakeLLM(["never"])), should_stop_callback=cb)
    with pytest.raises(ValueError, match="Broken database connection"):
        executor.run(run)
    assert executor.attempt_count == 1


def test_pipeline_stop_from_execute_function_passes_through_and_is_never_retried(no_sleep):
    llm = FakeLLM(["x"])

    def stop(llm):
        llm.calls += 1
        raise PipelineStopRequested("execute function requested pipeline stop")

    executor = LLMExecutor(llm_models=models(llm, FakeLLM(["2nd"])), retry_config=RetryConfig())
    with pytest.raises(PipelineStopRequested, match="requested pipeline stop"):
        executor.run(stop)
    assert executor.attempt_count == 0 and llm.calls == 1 and no_sleep == []


def test_foreign_pipeline_stop_requested_is_not_retried(no_sleep):
    # PlanExe's own class (another module) arriving through the drop-in: cancellation too.
    PlanExeStop = type("PipelineStopRequested", (RuntimeError,), {"__module__": "worker_plan_internal.llm_util.llm_executor"})
    second = FakeLLM(["2nd"])
    executor = LLMExecutor(llm_models=models(FakeLLM([PlanExeStop("stop")]), second), retry_config=RetryConfig())
    with pytest.raises(PlanExeStop):
        executor.run(run)
    assert second.calls == 0 and no_sleep == []


def test_constructor_validation():
    with pytest.raises(ValueError, match="No LLMs provided"):
        LLMExecutor(llm_models=[])
    with pytest.raises(TypeError, match="should_stop_callback must be a function that can raise PipelineStopRequested to stop execution"):
        LLMExecutor(llm_models=models(FakeLLM(["x"])), should_stop_callback="I'm not a function")
    with pytest.raises(ValueError):
        LLMExecutor(llm_models=models(FakeLLM(["x"])), max_validation_retries=-1)
    with pytest.raises(TypeError):
        LLMExecutor(llm_models=models(FakeLLM(["x"])), retry_config={"max_retries": 2})


def test_validate_execute_function_1_and_2():
    executor = LLMExecutor(llm_models=models(FakeLLM(["x"])))
    with pytest.raises(TypeError, match="validate_execute_function1: must be a function that takes a LLM parameter"):
        executor.run("I'm not a function")

    def three(a: int, b: int, c: int) -> str:
        raise AssertionError("not called")

    with pytest.raises(TypeError, match="validate_execute_function2: must be a function that takes a single parameter"):
        executor.run(three)


@pytest.fixture
def fake_llama_index(monkeypatch):
    """A stand-in for llama_index.core.llms.llm (the real package is optional and heavy)."""
    llm_mod = types.ModuleType("llama_index.core.llms.llm")

    class LLM:
        pass

    llm_mod.LLM = LLM
    tags = []
    disp = types.ModuleType("llama_index.core.instrumentation.dispatcher")

    class instrument_tags:
        def __init__(self, t):
            tags.append(t)

        def __enter__(self):
            return self

        def __exit__(self, *a):
            return False

    disp.instrument_tags = instrument_tags
    for name in ("llama_index", "llama_index.core", "llama_index.core.llms", "llama_index.core.instrumentation"):
        monkeypatch.setitem(sys.modules, name, types.ModuleType(name))
    monkeypatch.setitem(sys.modules, "llama_index.core.llms.llm", llm_mod)
    monkeypatch.setitem(sys.modules, "llama_index.core.instrumentation.dispatcher", disp)
    monkeypatch.setattr(mod, "_llm_class_cache", mod._MISSING)
    monkeypatch.setattr(mod, "_instrument_tags_cache", mod._MISSING)
    yield LLM, tags
    mod._llm_class_cache = mod._MISSING
    mod._instrument_tags_cache = mod._MISSING


def test_validate_execute_function_3_with_llama_index(fake_llama_index, tmp_path):
    LLM, tags = fake_llama_index

    class MyLLM(LLM):
        def complete(self, prompt):
            return "fine"

    executor = LLMExecutor(llm_models=models(MyLLM()))

    def wrong(wrong_parameter_type: str) -> str:
        raise AssertionError("not called")

    with pytest.raises(TypeError) as info:
        executor.run(wrong)
    text = str(info.value)
    assert "validate_execute_function3: must be a function that takes a single parameter of type LLM" in text
    assert "but got type" in text and "<class 'str'>" in text

    def right(llm: LLM) -> str:
        return llm.complete("Hi")

    assert executor.run(right) == "fine"
    assert "llm_executor_uuid" in tags[-1]

    # `from __future__ import annotations`: string hints are resolved.
    src = tmp_path / "postponed_mod.py"
    src.write_text(textwrap.dedent("""
        from __future__ import annotations
        from llama_index.core.llms.llm import LLM

        def good_function(llm: LLM) -> str:
            return llm.complete("Hi")

        def bad_function(wrong_type: str) -> str:
            return "should not run"

        def unresolvable(llm: NoSuchType) -> str:
            return "nope"
    """))
    spec = importlib.util.spec_from_file_location("postponed_mod", src)
    m = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(m)
    assert executor.run(m.good_function) == "fine"
    with pytest.raises(TypeError, match="validate_execute_function3"):
        executor.run(m.bad_function)
    with pytest.raises(TypeError, match="Could not resolve type hints"):
        executor.run(m.unresolvable)


def test_without_llama_index_any_hint_passes(monkeypatch):
    monkeypatch.setattr(mod, "_llm_class", lambda: None)
    executor = LLMExecutor(llm_models=models(FakeLLM(["ok"])))

    def typed(llm: FakeLLM) -> str:
        return llm.complete("Hi")

    assert executor.run(typed) == "ok"


def test_llm_model_from_name(monkeypatch):
    created = []

    def factory(name):
        created.append(name)
        return FakeLLM([f"from {name}"])

    monkeypatch.setattr(mod, "get_llm", factory)
    ms = LLMModelFromName.from_names(["a", "b"])
    assert repr(ms[0]) == "LLMModelFromName(name='a')"
    assert LLMExecutor(llm_models=ms).run(run) == "from a" and created == ["a"]


def test_llm_model_from_name_without_planexe_is_a_create_stage_failure():
    executor = LLMExecutor(llm_models=[LLMModelFromName("gpt-x")])
    with pytest.raises(Exception, match="Exhausted all LLMs"):
        executor.run(run)
    assert executor.attempts[0].stage == "create"
    assert isinstance(executor.attempts[0].exception, RuntimeError)


# --- transient retries per model ------------------------------------------------------------

def test_no_retry_config_means_no_retries(no_sleep):
    first = FakeLLM([StatusError(503, "Service Unavailable")])
    executor = LLMExecutor(llm_models=models(first, FakeLLM(["2nd"])))
    assert executor.run(run) == "2nd"
    assert first.calls == 1 and no_sleep == []


def test_transient_errors_retried_with_planexe_backoff_then_next_model(no_sleep):
    first = FakeLLM([StatusError(503), StatusError(429, "Rate limit reached"), TimeoutError("timed out")])
    seen = []
    events = []
    executor = LLMExecutor(llm_models=models(first, FakeLLM(["2nd"])), retry_config=RetryConfig(),
                           should_stop_callback=lambda p: seen.append(p.attempt_index), on_event=events.append)
    assert executor.run(run) == "2nd"
    assert first.calls == 3  # the first call and max_retries=2 retries
    assert no_sleep == [1.0, 2.0]
    assert seen == [0, 0, 0, 1]  # after every attempt, retries included
    assert [a.success for a in executor.attempts] == [False, False, False, True]
    assert [e["type"] for e in without_waits(events)] == ["llm_retry_attempt", "llm_retry_attempt", "llm_retry_exhausted",
                                                          "model_fallback"]


def test_transient_then_success_on_same_model(no_sleep):
    llm = FakeLLM([ConnectionResetError("reset"), "recovered"])
    executor = LLMExecutor(llm_models=models(llm), retry_config=RetryConfig(max_retries=3, base_delay=0.5))
    assert executor.run(run) == "recovered"
    assert no_sleep == [0.5] and executor.attempt_count == 2


@pytest.mark.parametrize(
    "error",
    [
        StatusError(401, "Incorrect API key provided"),
        StatusError(429, body={"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}),
        Exception("Invalid request: max_tokens 1500 exceeds the model's limit"),
        Exception("the 500 words summary failed schema checks"),
    ],
    ids=["unauthorized", "insufficient_quota", "max_tokens_1500", "bare_500_in_text"],
)
def test_permanent_errors_move_on_at_once(no_sleep, error):
    first = FakeLLM([error])
    executor = LLMExecutor(llm_models=models(first, FakeLLM(["2nd"])), retry_config=RetryConfig())
    assert executor.run(run) == "2nd"
    assert first.calls == 1 and no_sleep == []


def test_retry_after_within_max_delay_is_honoured_longer_moves_on(no_sleep):
    llm = FakeLLM([StatusError(429, "Rate limit", {"retry-after": "10"}), "ok"])
    assert LLMExecutor(llm_models=models(llm), retry_config=RetryConfig()).run(run) == "ok"
    assert no_sleep == [10.0]
    no_sleep.clear()
    first = FakeLLM([StatusError(429, "Rate limit", {"retry-after": "120"})])
    assert LLMExecutor(llm_models=models(first, FakeLLM(["2nd"])), retry_config=RetryConfig()).run(run) == "2nd"
    assert first.calls == 1 and no_sleep == []


def test_custom_delay_for_retry_is_used(no_sleep):
    class Linear(RetryConfig):
        def delay_for_retry(self, retry_index):
            return 0.25 * (retry_index + 1)

    llm = FakeLLM([TimeoutError(), TimeoutError(), "ok"])
    assert LLMExecutor(llm_models=models(llm), retry_config=Linear()).run(run) == "ok"
    assert no_sleep == [0.25, 0.5]


def test_retry_config_defaults_and_delays():
    c = RetryConfig()
    assert (c.max_retries, c.base_delay, c.max_delay, c.backoff_multiplier) == (2, 1.0, 30.0, 2.0)
    assert [c.delay_for_retry(i) for i in range(7)] == [1.0, 2.0, 4.0, 8.0, 16.0, 30.0, 30.0]
    assert RetryConfig(base_delay=0.5, backoff_multiplier=3.0, max_delay=4.0).delay_for_retry(2) == 4.0
    with pytest.raises(ValueError):
        RetryConfig(base_delay=-1).delay_for_retry(0)
    with pytest.raises(ValueError):
        LLMExecutor(llm_models=models(FakeLLM(["x"])), retry_config=RetryConfig(base_delay=-1)).run(run)
    # As in PlanExe (`range(max_retries)`), a negative count means no retries, not an error.
    assert LLMExecutor(llm_models=models(FakeLLM(["x"])), retry_config=RetryConfig(max_retries=-1)).run(run) == "x"


def test_is_transient_error_is_exported():
    assert is_transient_error(TimeoutError()) and not is_transient_error(ValueError("max_tokens 1500"))


# --- validation retries with feedback -------------------------------------------------------

class Plan(pydantic.BaseModel):
    title: str
    steps: int


def test_validation_retries_same_model_with_feedback(no_sleep):
    outputs = iter(['{"steps": "many"}', '{"title": "T", "steps": 3}'])
    feedback_seen = []

    def execute(llm):
        feedback_seen.append(executor.validation_feedback)
        return Plan.model_validate_json(next(outputs))

    other = FakeLLM(["never"])
    executor = LLMExecutor(llm_models=models(FakeLLM(["x"]), other), max_validation_retries=2)
    plan = executor.run(execute)
    assert plan.title == "T" and other.calls == 0
    assert feedback_seen[0] is None
    fb = feedback_seen[1]
    assert "title: Field required (missing)" in fb and "steps:" in fb and "int_parsing" in fb
    assert executor.attempt_count == 2 and no_sleep == []


def test_validation_feedback_found_through_wrappers():
    class LLMChatError(Exception):
        pass

    try:
        try:
            Plan.model_validate({"title": 3})
        except pydantic.ValidationError as e:
            raise LLMChatError("structured output failed") from e
    except LLMChatError as wrapped:
        fb = mod.extract_validation_feedback(wrapped)
    assert "schema of Plan" in fb and "steps: Field required" in fb
    assert mod.extract_validation_feedback(ValueError("x")) is None


def test_without_validation_retries_validation_errors_move_on():
    def execute(llm):
        if isinstance(llm, FakeLLM) and llm.responses == ["first"]:
            return Plan.model_validate({})
        return "second"

    executor = LLMExecutor(llm_models=models(FakeLLM(["first"]), FakeLLM(["second"])), retry_config=RetryConfig())
    assert executor.run(execute) == "second"
    assert executor.attempt_count == 2


def test_validation_retry_budget_is_per_model(no_sleep):
    calls = []

    def execute(llm):
        calls.append(llm)
        Plan.model_validate({})

    a, b = FakeLLM(["a"]), FakeLLM(["b"])
    executor = LLMExecutor(llm_models=models(a, b), max_validation_retries=1, retry_config=RetryConfig())
    with pytest.raises(Exception, match="Exhausted all LLMs"):
        executor.run(execute)
    assert [c is a for c in calls] == [True, True, False, False]
    assert no_sleep == []


def test_public_names_match_planexe():
    for name in ["LLMExecutor", "LLMModelBase", "LLMModelFromName", "LLMModelWithInstance", "LLMAttempt",
                 "ShouldStopCallbackParameters", "PipelineStopRequested", "RetryConfig", "is_transient_error"]:
        assert hasattr(mod, name)
    assert issubclass(PipelineStopRequested, RuntimeError)
    a = LLMAttempt(stage="execute", llm_model=LLMModelWithInstance(FakeLLM(["x"])), success=True, duration=0.1)
    assert a.result is None and a.exception is None


def test_without_llama_index_the_tags_are_looked_up_once(monkeypatch):
    """A failed import searches the path under the import lock; done on every call, a fork taken
    meanwhile could leave the child's imports stuck. After the first call, none is tried."""
    monkeypatch.setattr(mod, "_instrument_tags_cache", mod._MISSING)
    monkeypatch.setitem(sys.modules, "llama_index", None)  # an import of it fails
    looked = []

    class Watch:
        def find_spec(self, name, path=None, target=None):
            if name.startswith("llama_index"):
                looked.append(name)
            return None

    monkeypatch.setattr(sys, "meta_path", [Watch()] + sys.meta_path)
    monkeypatch.delitem(sys.modules, "llama_index")
    with mod._instrument_tags({"a": 1}):
        pass
    first = len(looked)
    for _ in range(3):
        with mod._instrument_tags({"a": 1}):
            pass
    assert first >= 1 and len(looked) == first, looked
    monkeypatch.setattr(mod, "_instrument_tags_cache", mod._MISSING)
