"""The real openai and anthropic SDKs against the fault lab (target/debug/retry-lab, a loopback
OpenAI/Anthropic server that fails on purpose), through call_llm_with_retry, its async twin and
LLMExecutor: rate limits with retry-after, overloads, 503s, a 401, quota errors, tool-pairing
400s, SSE errors mid-stream, cut streams, stalls past the client timeout, resets, and a fleet's
shared pause. The SDKs' own retries are off (retry_core.integrations); waits are recorded
instead of slept (time.sleep / asyncio.sleep patched), except the fleet test's short pause; the
call counts come from the lab's own log."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import Any, Dict, List

import pytest

import retry_core
from conftest import without_waits
from retry_core import Fleet, acall_llm_with_retry, call_llm_with_retry
from retry_core.integrations import anthropic_client, async_anthropic_client, async_openai_client, openai_client
from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance, RetryConfig

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")

ROOT = Path(__file__).resolve().parents[2]
LAB_BIN = Path(os.environ.get("RETRY_LAB", ROOT / "target" / "debug" / "retry-lab"))
sys.path.insert(0, str(ROOT / "lab"))
from retry_lab import LabProcess  # noqa: E402  (the lab's own driver)
OA_KEY = "sk-test-lab-openai-0000aaaa"
AN_KEY = "sk-ant-test-lab-anthropic-0000bbbb"
REPLY = "Hello from retry-lab! This is reply number {}."


class Lab(LabProcess):
    """The lab (lab/retry_lab.py) for a test: a missing binary or a failed start fails the test."""

    def __init__(self) -> None:
        try:
            super().__init__(LAB_BIN)
        except RuntimeError as e:
            pytest.fail(str(e))

    def statuses(self) -> List[Any]:
        return [e["status"] for e in self.log()]



# --- the two providers, sync and async, plain and streamed -------------------------------------

MSGS = [{"role": "user", "content": "hi"}]


class OpenAIChat:
    name = "openai"

    def __init__(self, lab: Lab, timeout: float = 5.0, key: str = OA_KEY, model: str = "gpt-4o") -> None:
        self.client = openai_client(api_key=key, base_url=lab.url + "/v1", timeout=timeout)
        self.aclient = async_openai_client(api_key=key, base_url=lab.url + "/v1", timeout=timeout)
        self.model = model

    def complete(self, messages: Any = MSGS, stream: bool = False) -> str:
        if stream:
            chunks = self.client.chat.completions.create(model=self.model, messages=messages, stream=True)
            return "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
        return self.client.chat.completions.create(model=self.model, messages=messages).choices[0].message.content

    async def acomplete(self, messages: Any = MSGS, stream: bool = False) -> str:
        if stream:
            chunks = await self.aclient.chat.completions.create(model=self.model, messages=messages, stream=True)
            return "".join([c.choices[0].delta.content or "" async for c in chunks if c.choices])
        r = await self.aclient.chat.completions.create(model=self.model, messages=messages)
        return r.choices[0].message.content


class AnthropicChat:
    name = "anthropic"

    def __init__(self, lab: Lab, timeout: float = 5.0, key: str = AN_KEY, model: str = "claude-x") -> None:
        self.client = anthropic_client(api_key=key, base_url=lab.url, timeout=timeout)
        self.aclient = async_anthropic_client(api_key=key, base_url=lab.url, timeout=timeout)
        self.model = model

    def complete(self, messages: Any = MSGS, stream: bool = False) -> str:
        if stream:
            with self.client.messages.stream(model=self.model, max_tokens=64, messages=messages) as s:
                return "".join(s.text_stream)
        return self.client.messages.create(model=self.model, max_tokens=64, messages=messages).content[0].text

    async def acomplete(self, messages: Any = MSGS, stream: bool = False) -> str:
        if stream:
            async with self.aclient.messages.stream(model=self.model, max_tokens=64, messages=messages) as s:
                return "".join([t async for t in s.text_stream])
        r = await self.aclient.messages.create(model=self.model, max_tokens=64, messages=messages)
        return r.content[0].text


PROVIDERS = {"openai": OpenAIChat, "anthropic": AnthropicChat}


def call(mode: str, chat: Any, stream: bool = False, history: Any = None, **options: Any) -> str:
    """One logical call through call_llm_with_retry (sync) or acall_llm_with_retry (async).
    ``history`` is sent and handed to the engine (``messages=``) for pruning."""
    messages = MSGS if history is None else history
    if history is not None:
        options["messages"] = history
    if mode == "sync":
        return call_llm_with_retry(lambda: chat.complete(messages, stream), **options)

    async def main() -> str:
        try:
            return await acall_llm_with_retry(lambda: chat.acomplete(messages, stream), **options)
        finally:
            await chat.aclient.close()

    return asyncio.run(main())


both = pytest.mark.parametrize("provider", ["openai", "anthropic"])
modes = pytest.mark.parametrize("mode", ["sync", "async"])


def kinds(events: List[Dict[str, Any]]) -> List[str]:
    return [e["type"] for e in events]


# --- call_llm_with_retry / acall_llm_with_retry -------------------------------------------------


@both
@modes
def test_rate_limit_honours_retry_after(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "rate_limit", "retry_after": 7}]})
    events: List[Dict[str, Any]] = []
    out = call(mode, PROVIDERS[provider](lab), policy="default", on_event=events.append)
    assert out == REPLY.format(2)
    assert lab.statuses() == [429, 200]
    assert no_sleep == [7.0]
    assert kinds(without_waits(events)) == ["llm_retry_attempt"]
    e = events[0]
    assert (e["category"], e["status_code"], e["retry_delay"], e["retry_after"], e["attempt"]) == ("rate_limited", 429, 7.0, 7.0, 1)


@both
@modes
def test_overloaded_is_retried_with_swarm_sdks_defaults(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "overloaded"}, {"fault": "overloaded"}]})
    events: List[Dict[str, Any]] = []
    out = call(mode, PROVIDERS[provider](lab), max_retries=3, on_event=events.append)
    assert out == REPLY.format(3)
    status = 529 if provider == "anthropic" else 503
    assert lab.statuses() == [status, status, 200]
    assert no_sleep == [15.0, 15.0]
    assert [(e["category"], e["attempt"], e["max_retries"]) for e in without_waits(events)] == [("overloaded", 1, 3), ("overloaded", 2, 3)]


@both
@modes
def test_503_then_ok(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "status", "status": 503}]})
    events: List[Dict[str, Any]] = []
    assert call(mode, PROVIDERS[provider](lab), policy="forgeflare", on_event=events.append) == REPLY.format(2)
    assert lab.statuses() == [503, 200]
    assert no_sleep == [2.0]
    assert [(e["category"], e["status_code"]) for e in without_waits(events)] == [("server_error", 503)]


@both
@modes
def test_401_is_one_call_and_no_wait(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "unauthorized"}]})
    events: List[Dict[str, Any]] = []
    with pytest.raises(openai.AuthenticationError if provider == "openai" else anthropic.AuthenticationError) as info:
        call(mode, PROVIDERS[provider](lab), policy="default", on_event=events.append)
    assert lab.statuses() == [401]
    assert no_sleep == []
    assert kinds(events) == ["llm_request_failed"]
    assert (events[0]["error_type"], events[0]["status_code"], events[0]["retryable"]) == ("Unauthorized", 401, False)
    assert info.value.retry_classification.category == "unauthorized"
    assert info.value.retry_decision.reason == "permanent"
    assert "0000aaaa" not in json.dumps(events) and "0000bbbb" not in json.dumps(events)


@both
@modes
def test_insufficient_quota_is_not_retried(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "insufficient_quota"}]})
    events: List[Dict[str, Any]] = []
    with pytest.raises(openai.RateLimitError if provider == "openai" else anthropic.BadRequestError) as info:
        call(mode, PROVIDERS[provider](lab), policy="default", on_event=events.append)
    assert lab.statuses() == [429 if provider == "openai" else 400]
    assert no_sleep == []
    assert kinds(events) == ["llm_request_failed"] and events[0]["category"] == "payment_required"
    assert info.value.retry_classification.transient is False


def _history(provider: str) -> List[Dict[str, Any]]:
    """A history whose assistant tool call never got its result."""
    if provider == "openai":
        return [
            {"role": "user", "content": "read the file"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "call_1", "type": "function", "function": {"name": "Read", "arguments": '{"file_path": "/a.rb"}'}}]},
            {"role": "user", "content": "and?"},
        ]
    return [
        {"role": "user", "content": "read the file"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_1", "name": "Read", "input": {"file_path": "/a.rb"}}]},
        {"role": "user", "content": "and?"},
    ]


@both
@modes
def test_tool_pairing_400_prunes_messages_and_retries_for_free(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "tool_pairing"}]})
    history = _history(provider)
    events: List[Dict[str, Any]] = []
    reminders: List[str] = []
    out = call(mode, PROVIDERS[provider](lab), history=history, policy="default", on_event=events.append,
               on_orphans=lambda r: reminders.append(r.reminder))
    assert out == REPLY.format(2)
    assert lab.statuses() == [400, 200]
    assert no_sleep == []
    assert [m["content"] for m in history] == ["read the file", "and?"], "pruned in place: the retry sent this"
    assert kinds(events) == ["orphan_tool_calls_pruned"] and events[0]["pruned_count"] == 1
    assert 'Read(file_path: "/a.rb")' in reminders[0]


@both
@modes
def test_sse_error_mid_stream_is_retried(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "sse_error", "after_chunks": 3}]})
    events: List[Dict[str, Any]] = []
    out = call(mode, PROVIDERS[provider](lab), stream=True, policy="forgeflare", on_event=events.append)
    assert out == REPLY.format(2)
    assert [(e["fault"], e["status"], e["stream"]) for e in lab.log()] == [("sse_error", 200, True), ("ok", 200, True)]
    assert no_sleep == [2.0]
    # openai raises a status-less APIError "Overloaded"; anthropic an APIStatusError with status
    # 200 whose body is the SSE error payload: both are transient.
    assert events[0]["category"] == ("overloaded" if provider == "openai" else "stream_interrupted")


@both
@modes
def test_a_cut_stream_is_retried(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "stream_cut", "after_chunks": 2}]})
    events: List[Dict[str, Any]] = []
    assert call(mode, PROVIDERS[provider](lab), stream=True, policy="forgeflare", on_event=events.append) == REPLY.format(2)
    assert [e["fault"] for e in lab.log()] == ["stream_cut", "ok"]
    assert no_sleep == [2.0] and events[0]["category"] == "connection"


@both
@modes
def test_a_stall_past_the_client_timeout_is_retried(lab, no_sleep, provider, mode):
    lab.script({"steps": [{"fault": "stall", "seconds": 5}]})
    events: List[Dict[str, Any]] = []
    t0 = time.monotonic()
    out = call(mode, PROVIDERS[provider](lab, timeout=0.3), policy="forgeflare", on_event=events.append)
    assert out == REPLY.format(2)
    assert time.monotonic() - t0 < 3, "the client gave up after its timeout, not the stall"
    assert [e["fault"] for e in lab.log()] == ["stall", "ok"]
    assert no_sleep == [2.0] and events[0]["category"] == "timeout"


@both
@modes
@pytest.mark.parametrize("graceful", [False, True])
def test_a_reset_is_retried(lab, no_sleep, provider, mode, graceful):
    lab.script({"steps": [{"fault": "reset", "graceful": graceful}]})
    events: List[Dict[str, Any]] = []
    assert call(mode, PROVIDERS[provider](lab), policy="forgeflare", on_event=events.append) == REPLY.format(2)
    assert [(e["fault"], e["status"]) for e in lab.log()] == [("reset", None), ("ok", 200)]
    assert no_sleep == [2.0] and events[0]["category"] == "connection"


@both
def test_exhaustion_reraises_the_last_sdk_error_with_the_verdict(lab, no_sleep, provider):
    lab.script({"then": {"fault": "html", "status": 524}})
    events: List[Dict[str, Any]] = []
    with pytest.raises(openai.InternalServerError if provider == "openai" else anthropic.InternalServerError) as info:
        call("sync", PROVIDERS[provider](lab), max_retries=3, delay=1.0, on_event=events.append)
    assert lab.statuses() == [524, 524, 524]
    assert no_sleep == [1.0, 1.0]
    assert kinds(without_waits(events)) == ["llm_retry_attempt", "llm_retry_attempt", "llm_retry_exhausted"]
    assert info.value.retry_decision.reason == "exhausted"


# --- LLMExecutor ---------------------------------------------------------------------------------


def _executor(lab, *models: Any, **kwargs: Any) -> LLMExecutor:
    return LLMExecutor(LLMModelWithInstance.from_instances(list(models)), **kwargs)


def test_llm_executor_moves_to_the_next_model_on_insufficient_quota(lab, no_sleep):
    lab.script({"steps": [{"fault": "insufficient_quota"}]})
    first = OpenAIChat(lab, key="sk-test-lab-first-model-1111", model="gpt-4o")
    second = OpenAIChat(lab, key="sk-test-lab-second-model-2222", model="gpt-4o-mini")
    events: List[Dict[str, Any]] = []
    ex = _executor(lab, first, second, retry_config=RetryConfig(max_retries=2), on_event=events.append)
    assert ex.run(lambda llm: llm.complete()) == REPLY.format(2)
    assert [(e["key_last4"], e["status"]) for e in lab.log()] == [("1111", 429), ("2222", 200)]
    assert no_sleep == [], "a quota error is not retried on the same model"
    assert [a.success for a in ex.attempts] == [False, True]
    assert kinds(events) == ["llm_request_failed", "model_fallback"] and events[0]["category"] == "payment_required"


def test_llm_executor_retries_a_503_on_the_same_model(lab, no_sleep):
    lab.script({"steps": [{"fault": "status", "status": 503}, {"fault": "overloaded"}]})
    chat = AnthropicChat(lab)
    ex = _executor(lab, chat, retry_config=RetryConfig(max_retries=2, base_delay=1.0))
    assert ex.run(lambda llm: llm.complete()) == REPLY.format(3)
    assert lab.statuses() == [503, 529, 200]
    assert no_sleep == [1.0, 2.0]
    assert ex.attempt_count == 3


def test_llm_executor_401_moves_on_without_waiting_and_the_last_model_exhausts(lab, no_sleep):
    lab.script({"steps": [{"fault": "unauthorized"}, {"fault": "unauthorized"}]})
    ex = _executor(lab, OpenAIChat(lab), AnthropicChat(lab), retry_config=RetryConfig())
    with pytest.raises(Exception, match="Failed to run. Exhausted all LLMs.") as info:
        ex.run(lambda llm: llm.complete())
    assert [(e["path"], e["status"]) for e in lab.log()] == [("/v1/chat/completions", 401), ("/v1/messages", 401)]
    assert no_sleep == []
    assert "AuthenticationError" in str(info.value) and "0000aaaa" not in str(info.value)


def test_llm_executor_with_a_stalled_stream_and_a_fleet(lab, no_sleep):
    """A read timeout mid-stream on the first model, retried there; the fleet counts it."""
    lab.script({"steps": [{"fault": "stall", "seconds": 5, "after_chunks": 2}]})
    fleet = Fleet()
    chat = OpenAIChat(lab, timeout=0.3)
    events: List[Dict[str, Any]] = []
    ex = _executor(lab, chat, retry_config=RetryConfig(max_retries=1, base_delay=0.5), fleet=fleet, on_event=events.append)
    assert ex.run(lambda llm: llm.complete(stream=True)) == REPLY.format(2)
    assert no_sleep == [0.5]
    assert [e["category"] for e in without_waits(events)] == ["timeout"]
    m = fleet.metrics()["gpt-4o"]
    assert (m["timeout"]["retries"], m["success"]["successes"], m["total"]["calls"]) == (1, 1, 2)
    # A timeout's retry costs 10 tokens; the success after it earns back a retry's cost (5).
    assert fleet.tokens("gpt-4o") == 495.0


# --- a fleet's shared pause, live ----------------------------------------------------------------


def test_a_fleet_pauses_every_caller_after_one_rate_limit(lab):
    """Six threads share one API key and a fleet. The lab admits 2 requests per second per key;
    the first 429 (retry-after 1) pauses every caller: nothing reaches the lab until the pause
    ends. Real waits (about two seconds in all)."""
    lab.script({"rate_limit_per_key": {"requests": 2, "window_s": 1, "retry_after": 1}})
    fleet = Fleet(breaker=False)
    barrier = threading.Barrier(6)
    errors: List[BaseException] = []

    def agent() -> None:
        chat = OpenAIChat(lab)
        barrier.wait()
        try:
            call_llm_with_retry(lambda: chat.complete(), policy="default", fleet=fleet, key="openai:gpt-4o")
        except BaseException as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=agent) for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(30)
    assert not errors and not any(t.is_alive() for t in threads)
    log = lab.log()
    assert [e["status"] for e in log].count(200) == 6
    first_429 = next(e["ms"] for e in log if e["status"] == 429)
    # Requests already in flight when the first 429 was answered still arrive; after that, none
    # until the shared pause (1 s) is over.
    early = [e for e in log if first_429 + 100 < e["ms"] < first_429 + 950]
    assert early == [], f"requests during the shared pause: {early}"
    assert fleet.metrics()["openai:gpt-4o"]["success"]["successes"] == 6


def test_the_lab_fixture_is_bounded_and_the_keys_are_masked(lab):
    assert lab.proc.poll() is None
    lab.script({})
    OpenAIChat(lab).complete()
    assert lab.log()[0]["key_last4"] == "aaaa"
    assert retry_core.classify(TimeoutError()).category == "timeout"


def test_the_demo_runs():
    """`make demo`'s Python part (scripts/demo-python.sh runs this example): both runs succeed,
    with the decisions the script's faults call for. About 6 s of real waits."""
    import sys

    out = subprocess.run([sys.executable, str(ROOT / "python-ext" / "examples" / "planexe_demo.py"), "--lab", str(LAB_BIN)],
                         capture_output=True, text=True, timeout=60, env=dict(os.environ, NO_PROXY="127.0.0.1,localhost"))
    assert out.returncode == 0, out.stderr[-3000:]
    text = out.stdout
    assert text.count("run succeeded") == 2
    for needle in ("rate_limit_pause", "the server's retry-after (1 s)", "payment_required", "overloaded",
                   "unauthorized", "timeout", "the lab saw 5 requests", "the lab saw 3 requests"):
        assert needle in text, needle
    assert "Traceback" not in out.stderr
