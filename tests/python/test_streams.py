"""Honest streams (issue 22): a stream that ends without its stop reason is raised as
``retry_core.StreamIncomplete`` by ``retry_core.streams``' helpers, which the engine classifies
as ``stream_interrupted``, so ``call_llm_with_retry`` asks for the whole stream again. The real
openai and anthropic SDKs against the fault lab (``stream_cut`` with ``clean: true``: the body
ends properly, only the stop reason and the terminator are missing); the shapes the lab does
not serve (Responses, Gemini, several choices) as the SDKs' own objects or plain dicts."""

from __future__ import annotations

import asyncio
import json
import pickle
from pathlib import Path
from typing import Any, Dict, Iterator, List

import pytest

import retry_core
from retry_core import StreamIncomplete, _native, call_llm_with_retry, acall_llm_with_retry, streams
from retry_core._failure import record_of
from test_lab import AN_KEY, MSGS, OA_KEY, REPLY
from retry_core.integrations import anthropic_client, async_anthropic_client, async_openai_client, openai_client

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

CUT = {"fault": "stream_cut", "clean": True, "after_chunks": 2}


def cut_then_ok(lab: Any) -> None:
    lab.script({"steps": [CUT]})


# --- the SDKs' streams, read through the helpers --------------------------------------------


def openai_text(lab: Any) -> str:
    client = openai_client(api_key=OA_KEY, base_url=lab.url + "/v1", timeout=5.0)
    stream = client.chat.completions.create(model="gpt-4o", messages=MSGS, stream=True)
    return "".join(c.choices[0].delta.content or "" for c in streams.checked(stream) if c.choices)


def openai_helper_text(lab: Any) -> str:
    """``client.chat.completions.stream(...)``: its events, ``chunk`` ones included."""
    client = openai_client(api_key=OA_KEY, base_url=lab.url + "/v1", timeout=5.0)
    with client.chat.completions.stream(model="gpt-4o", messages=MSGS) as s:
        return "".join(e.delta for e in streams.checked(s) if e.type == "content.delta")


def anthropic_raw_text(lab: Any) -> str:
    client = anthropic_client(api_key=AN_KEY, base_url=lab.url, timeout=5.0)
    stream = client.messages.create(model="claude-x", max_tokens=64, messages=MSGS, stream=True)
    return "".join(e.delta.text for e in streams.checked(stream) if e.type == "content_block_delta")


def anthropic_message_stream_text(lab: Any) -> str:
    client = anthropic_client(api_key=AN_KEY, base_url=lab.url, timeout=5.0)
    with client.messages.stream(model="claude-x", max_tokens=64, messages=MSGS) as s:
        return "".join(e.text for e in streams.checked(s) if e.type == "text")


def anthropic_final_message_text(lab: Any) -> str:
    """The ``text_stream`` habit: read the text, then check the final message."""
    client = anthropic_client(api_key=AN_KEY, base_url=lab.url, timeout=5.0)
    with client.messages.stream(model="claude-x", max_tokens=64, messages=MSGS) as s:
        text = "".join(s.text_stream)
        streams.check_final(s.get_final_message())
        return text


READERS = {
    "openai": openai_text,
    "openai_helper": openai_helper_text,
    "anthropic_raw": anthropic_raw_text,
    "anthropic_message_stream": anthropic_message_stream_text,
    "anthropic_final_message": anthropic_final_message_text,
}
readers = pytest.mark.parametrize("reader", sorted(READERS))


@pytest.mark.parametrize("reader", ["openai", "anthropic_raw"])
def test_without_the_helpers_the_sdks_return_half_an_answer(lab, reader):
    """The problem the helpers solve: a clean body without its stop reason raises nothing."""
    cut_then_ok(lab)
    client_text = {
        "openai": lambda: "".join(
            c.choices[0].delta.content or ""
            for c in openai_client(api_key=OA_KEY, base_url=lab.url + "/v1").chat.completions.create(
                model="gpt-4o", messages=MSGS, stream=True) if c.choices),
        "anthropic_raw": lambda: "".join(
            e.delta.text
            for e in anthropic_client(api_key=AN_KEY, base_url=lab.url).messages.create(
                model="claude-x", max_tokens=64, messages=MSGS, stream=True) if e.type == "content_block_delta"),
    }[reader]
    half = client_text()
    assert half and REPLY.format(1).startswith(half) and half != REPLY.format(1)


@readers
def test_a_stream_without_its_stop_reason_raises_stream_incomplete(lab, reader):
    cut_then_ok(lab)
    with pytest.raises(StreamIncomplete) as info:
        READERS[reader](lab)
    err = info.value
    assert err.api == ("openai" if reader.startswith("openai") else "anthropic")
    assert err.reason is None
    assert "stream ended without a stop reason" in str(err)
    c = retry_core.classify(err)
    assert (c.category, c.transient, c.evidence) == ("stream_interrupted", True, "error_class")
    # The next request is whole: the helper lets it through unchanged.
    assert READERS[reader](lab) == REPLY.format(2)


@readers
def test_a_lab_stream_without_its_stop_reason_is_retried_through_the_helpers(lab, no_sleep, reader):
    cut_then_ok(lab)
    events: List[Dict[str, Any]] = []
    out = call_llm_with_retry(lambda: READERS[reader](lab), policy="forgeflare", on_event=events.append)
    assert out == REPLY.format(2)
    log = lab.log()
    assert [(e["fault"], e["stream"]) for e in log] == [("stream_cut", True), ("ok", True)], "one request per attempt"
    assert no_sleep == [2.0]
    assert events[0]["type"] == "llm_retry_attempt" and events[0]["category"] == "stream_interrupted"


@pytest.mark.parametrize("reader, reason, incomplete", [
    ("openai", "error", True),           # OpenRouter's failed generation
    ("openai", "length", False),         # a proper end, though short
    ("anthropic_raw", "refusal", False),
    ("openai_helper", "error", True),
    # Anthropic never sends "error": like any reason its table does not list, it ends the stream.
    ("anthropic_message_stream", "error", False),
])
def test_a_lab_stream_closed_with_a_failing_reason_is_incomplete(lab, no_sleep, reader, reason, incomplete):
    """The lab closes the cut stream with its terminator and this reason (``finish_reason``)."""
    lab.script({"steps": [dict(CUT, finish_reason=reason)]})
    if not incomplete:
        # A reason that ends the stream: the (short) answer is the answer, in one request.
        text = call_llm_with_retry(lambda: READERS[reader](lab), policy="forgeflare")
        assert text and REPLY.format(1).startswith(text) and text != REPLY.format(1)
        assert [e["fault"] for e in lab.log()] == ["stream_cut"] and no_sleep == []
        return
    out = call_llm_with_retry(lambda: READERS[reader](lab), policy="forgeflare")
    assert out == REPLY.format(2)
    assert [e["fault"] for e in lab.log()] == ["stream_cut", "ok"]


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_the_async_helpers_retry_a_lab_stream_without_its_stop_reason(lab, no_sleep, provider):
    cut_then_ok(lab)
    events: List[Dict[str, Any]] = []

    async def main() -> str:
        if provider == "openai":
            oa = async_openai_client(api_key=OA_KEY, base_url=lab.url + "/v1", timeout=5.0)

            async def ask() -> str:
                stream = await oa.chat.completions.create(model="gpt-4o", messages=MSGS, stream=True)
                return "".join([c.choices[0].delta.content or "" async for c in streams.achecked(stream) if c.choices])
        else:
            an = async_anthropic_client(api_key=AN_KEY, base_url=lab.url, timeout=5.0)

            async def ask() -> str:
                async with an.messages.stream(model="claude-x", max_tokens=64, messages=MSGS) as s:
                    return "".join([e.text async for e in streams.achecked(s) if e.type == "text"])

        return await acall_llm_with_retry(ask, policy="forgeflare", on_event=events.append)

    assert asyncio.run(main()) == REPLY.format(2)
    assert [e["fault"] for e in lab.log()] == ["stream_cut", "ok"]
    assert no_sleep == [2.0] and events[0]["category"] == "stream_interrupted"


def test_a_whole_lab_stream_passes_and_leaving_early_raises_nothing(lab):
    lab.script({"steps": [{"fault": "ok"}]})
    assert openai_text(lab) == REPLY.format(1)
    client = openai_client(api_key=OA_KEY, base_url=lab.url + "/v1", timeout=5.0)
    stream = client.chat.completions.create(model="gpt-4o", messages=MSGS, stream=True)
    for _ in streams.checked(stream):
        break  # the caller stops reading: not the stream's fault
    stream.close()


# --- the rule is the core's ---------------------------------------------------------------


def test_the_class_name_and_the_reason_table_come_from_the_core():
    err = StreamIncomplete("half an answer")
    assert record_of(err).error_class[0] == _native.STREAM_INCOMPLETE_CLASS == "retry_core.StreamIncomplete"
    assert retry_core.classify(err).category == "stream_interrupted", "the class alone decides, not the words"
    assert set(streams.STREAM_APIS) == {"openai", "openai_responses", "anthropic", "gemini"}
    field, ends, fails = streams.STREAM_APIS["anthropic"]
    assert field == "message_delta.delta.stop_reason" and "end_turn" in ends and fails == ()


def test_the_openai_and_anthropic_sdks_reasons_are_all_in_the_core_table():
    """Every finish and stop reason the installed SDKs type ends a stream: a new one in an SDK
    upgrade fails here, to be added to core/src/stream_end.rs."""
    import typing

    from anthropic.types import StopReason
    from openai.types.chat.chat_completion_chunk import Choice
    from openai.types.responses.response_status import ResponseStatus

    finish = typing.get_args(typing.get_args(Choice.model_fields["finish_reason"].annotation)[0])
    assert set(finish) == set(streams.STREAM_APIS["openai"][1])
    assert set(typing.get_args(StopReason)) == set(streams.STREAM_APIS["anthropic"][1])
    ends, fails = streams.STREAM_APIS["openai_responses"][1:]
    assert set(typing.get_args(ResponseStatus)) == set(ends) | set(fails)
    genai = pytest.importorskip("google.genai.types")
    assert {r.value for r in genai.FinishReason} == set(streams.STREAM_APIS["gemini"][1]) | set(
        streams.STREAM_APIS["gemini"][2])


@pytest.mark.parametrize(
    "api, reason, incomplete",
    [
        ("openai", "stop", False), ("openai", "tool_calls", False), ("openai", None, True),
        ("openai", "error", True), ("openai", "a_reason_from_next_year", False),
        ("anthropic", "pause_turn", False), ("anthropic", None, True), ("anthropic", "", True),
        ("openai_responses", "completed", False), ("openai_responses", "in_progress", True),
        ("openai_responses", "failed", True), ("gemini", "STOP", False), ("gemini", "stop", False),
        ("gemini", "FINISH_REASON_UNSPECIFIED", True),
    ],
)
def test_check(api, reason, incomplete):
    if incomplete:
        with pytest.raises(StreamIncomplete) as info:
            streams.check(api, reason)
        assert (info.value.api, info.value.reason) == (api, reason)
        assert retry_core.classify(info.value).category == "stream_interrupted"
    else:
        assert streams.check(api, reason) is None


def test_an_unknown_api_is_a_value_error_naming_the_known_ones():
    with pytest.raises(ValueError, match="openai, openai_responses, anthropic, gemini"):
        streams.check("opanai", "stop")
    with pytest.raises(ValueError):
        list(streams.checked([], api="opanai"))


def chunk(*reasons: Any) -> Dict[str, Any]:
    return {"object": "chat.completion.chunk",
            "choices": [{"index": i, "delta": {"content": "x"}, "finish_reason": r} for i, r in enumerate(reasons)]}


@pytest.mark.parametrize(
    "items, ok",
    [
        ([chunk(None), chunk("stop")], True),
        ([chunk(None), chunk(None)], False),
        ([chunk(None), chunk("error")], False),
        ([chunk(None, None), chunk("stop", None)], False),  # two choices: the second never ended
        ([chunk(None, None), chunk("stop", "length")], True),
        ([chunk(None), chunk("stop"), {"choices": [], "usage": {"total_tokens": 3}}], True),  # usage after the end
        ([{"type": "message_start", "message": {"stop_reason": None}},
          {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}, {"type": "message_stop"}], True),
        ([{"type": "message_start", "message": {"stop_reason": None}},
          {"type": "content_block_delta", "delta": {"text": "x"}}], False),
        ([{"type": "response.created", "response": {"status": "in_progress"}},
          {"type": "response.output_text.delta", "delta": "x"}], False),
        ([{"type": "response.created", "response": {"status": "in_progress"}},
          {"type": "response.completed", "response": {"status": "completed"}}], True),
        ([{"candidates": [{"content": {}, "finishReason": None}]},
          {"candidates": [{"content": {}, "finishReason": "STOP"}]}], True),
        ([{"candidates": [{"content": {}}]}], False),
        ([], False),
    ],
)
def test_checked_reads_every_shape(items, ok):
    if ok:
        assert list(streams.checked(items)) == items
        return
    seen: List[Any] = []
    with pytest.raises(StreamIncomplete) as info:
        for item in streams.checked(items):
            seen.append(item)
    assert seen == items, "every item is delivered before the error"
    assert info.value.events == len(items)


def test_checked_reads_the_google_genai_objects():
    types = pytest.importorskip("google.genai.types")
    done = types.GenerateContentResponse(candidates=[types.Candidate(finish_reason=types.FinishReason.STOP)])
    going = types.GenerateContentResponse(candidates=[types.Candidate()])
    assert len(list(streams.checked([going, done]))) == 2
    with pytest.raises(StreamIncomplete) as info:
        list(streams.checked([going]))
    assert info.value.api == "gemini"


def test_check_final_reads_finished_answers():
    from anthropic.types import Message

    def message(stop_reason: Any) -> Any:
        return Message.model_validate({"id": "m", "type": "message", "role": "assistant", "model": "x", "content": [],
                                       "stop_reason": stop_reason, "stop_sequence": None,
                                       "usage": {"input_tokens": 1, "output_tokens": 1}})

    done = message("end_turn")
    assert streams.check_final(done) is done
    with pytest.raises(StreamIncomplete):
        streams.check_final(message(None))
    with pytest.raises(StreamIncomplete):
        streams.check_final({"object": "response", "status": "in_progress"})
    assert streams.check_final({"object": "chat.completion", "choices": [{"finish_reason": "stop"}]})


def test_stream_incomplete_survives_pickling_and_keeps_its_facts():
    err = StreamIncomplete("cut", api="openai", reason="error", events=3)
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), str(back), back.api, back.reason, back.events) == (StreamIncomplete, "cut", "openai", "error", 3)
    assert retry_core.StreamIncomplete is StreamIncomplete and StreamIncomplete.__module__ == "retry_core"


def test_checked_reads_the_openai_responses_events():
    from openai.types.responses import Response, ResponseCompletedEvent, ResponseCreatedEvent, ResponseTextDeltaEvent

    def response(status: str) -> Any:
        return Response.model_construct(id="resp_1", object="response", status=status, output=[])

    created = ResponseCreatedEvent.model_construct(type="response.created", response=response("in_progress"),
                                                   sequence_number=0)
    delta = ResponseTextDeltaEvent.model_construct(type="response.output_text.delta", delta="hi", sequence_number=1)
    done = ResponseCompletedEvent.model_construct(type="response.completed", response=response("completed"),
                                                  sequence_number=2)
    assert list(streams.checked([created, delta, done])) == [created, delta, done]
    with pytest.raises(StreamIncomplete) as info:
        list(streams.checked([created, delta]))
    assert (info.value.api, info.value.reason) == ("openai_responses", "in_progress")
    assert streams.check_final(response("completed")).status == "completed"
    with pytest.raises(StreamIncomplete):
        streams.check_final(response("failed"))


# --- SSE error events: classified by the core from their payload ----------------------------


def raw_dicts(lab: Any, provider: str) -> Iterator[Dict[str, Any]]:
    """A provider's stream read by hand (httpx, no SDK): each SSE event's data, decoded."""
    import httpx

    if provider == "anthropic":
        url, headers = lab.url + "/v1/messages", {"x-api-key": AN_KEY, "anthropic-version": "2023-06-01"}
    else:
        url, headers = lab.url + "/v1/chat/completions", {"authorization": f"Bearer {OA_KEY}"}
    body = {"model": "claude-x" if provider == "anthropic" else "gpt-4o", "max_tokens": 64, "stream": True,
            "messages": MSGS}
    with httpx.stream("POST", url, json=body, headers=headers, timeout=5.0) as r:
        r.raise_for_status()
        for line in r.iter_lines():
            if line.startswith("data:") and line[5:].strip() != "[DONE]":
                yield json.loads(line[5:])


def raw_text(lab: Any, provider: str) -> str:
    out = []
    for d in streams.checked(raw_dicts(lab, provider)):
        choices = d.get("choices") or [{}]
        out.append((choices[0].get("delta") or {}).get("content") or (d.get("delta") or {}).get("text") or "")
    return "".join(out)


@pytest.mark.parametrize("provider", ["openai", "anthropic"])
def test_an_sse_error_event_in_a_dict_stream_is_classified_by_its_type(lab, no_sleep, provider):
    lab.script({"steps": [{"fault": "sse_error", "after_chunks": 2, "error_type": "overloaded_error"}]})
    assert call_llm_with_retry(lambda: raw_text(lab, provider), policy="forgeflare") == REPLY.format(2)
    assert [e["fault"] for e in lab.log()] == ["sse_error", "ok"]
    for kind in ["invalid_request_error", "authentication_error"]:
        lab.script({"steps": [{"fault": "sse_error", "after_chunks": 2, "error_type": kind}]})
        with pytest.raises(streams.StreamError) as info:
            call_llm_with_retry(lambda: raw_text(lab, provider), policy="forgeflare")
        assert [e["fault"] for e in lab.log()] == ["sse_error"], f"{kind}: one request, no retry"
        assert json.loads(info.value.body)["error"]["type"] == kind
        assert not retry_core.classify(info.value).transient, kind


def test_stream_error_survives_pickling():
    err = streams.StreamError("Overloaded", '{"type":"error","error":{"type":"overloaded_error"}}')
    back = pickle.loads(pickle.dumps(err))
    assert (type(back), str(back), back.body, back.status_code) == (streams.StreamError, "Overloaded", err.body, 200)
    assert retry_core.classify(back).category == "stream_interrupted"


def test_the_shared_stream_vectors():
    """tests/vectors/stream_watch.json: the verdicts the core's unit tests and Ruby's replay give."""
    path = Path(__file__).resolve().parents[1] / "vectors" / "stream_watch.json"
    cases = json.loads(path.read_text())["cases"]
    assert len(cases) >= 15
    for case in cases:
        verdict = case["verdict"]
        try:
            list(streams.checked([e["data"] for e in case["events"]], api=case.get("api")))
            assert verdict.get("ends"), case["name"]
        except StreamIncomplete as e:
            want = verdict.get("incomplete")
            assert want is not None, (case["name"], str(e))
            assert (e.api, e.reason) == (want["api"], want["reason"]), case["name"]
        except streams.StreamError as e:
            assert retry_core.classify(e).category == verdict["error"], case["name"]
