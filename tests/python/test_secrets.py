"""No secret survives the Python front door (CONTRACT §4). Every shared vector's failure
(tests/vectors/*.json) is replayed with API keys and tokens planted in its message, body and
headers, both as a retry_core.Failure and as a live exception (status, response headers and
body attached, wrapped the PlanExe way), through classify, format_error_message, every preset's
decisions (and the policies.json sequences with their own policy), call_llm_with_retry and its
async twin, and LLMExecutor; plus the fleet's events and the errors bad configurations raise.
Nothing that comes out (event dicts, notes, error texts, reprs) may hold any 12 characters of a
secret's random part. The secrets and plantings are the core's (core/tests/secrets.rs)."""

from __future__ import annotations

import asyncio
import json
import socket
from typing import Any, Dict, Iterable, List, Optional

import pytest

import retry_core
from retry_core import (
    PRESETS,
    Failure,
    Fleet,
    RetryPolicy,
    acall_llm_with_retry,
    call_llm_with_retry,
    classify,
    format_error_message,
)
from retry_core.llm_executor import LLMExecutor, LLMModelWithInstance, RetryConfig

from conftest import VECTORS, RunMachine

# (whole secret, its random part)
SECRETS = [
    ("sk-proj-Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP",
     "Qx7vT2mN9pL4kR8sW1yZ3bC6dF0gH5jK2lM8nP4qR7sT1uV9wX3yZ6aB0cD5eF8gH2iJ4kL7mN1oP"),
    ("sk-T3BlbkFJa8Zq2Xw9Vn5Lm1Kp7Jr4Hs6Gt0Fu3Ed8Cy2Bx5Aw9Zv1", "T3BlbkFJa8Zq2Xw9Vn5Lm1Kp7Jr4Hs6Gt0Fu3Ed8Cy2Bx5Aw9Zv1"),
    ("sk-ant-api03-Zr8_Yq2-Xp5Wo9Vn3Um7Tl1Sk4Rj6Qi0Ph2Og8Nf5Me9Ld3Kc7Jb1Ia4Hz6Gy0Fx2Ew8Dv5Cu9Bt3As7Zr1Yq4Xp6Wo0Vn2Um8Tl5Sk9Rj3AA",
     "Zr8_Yq2-Xp5Wo9Vn3Um7Tl1Sk4Rj6Qi0Ph2Og8Nf5Me9Ld3Kc7Jb1Ia4Hz6Gy0Fx2Ew8Dv5Cu9Bt3As7Zr1Yq4Xp6Wo0Vn2Um8Tl5Sk9Rj3AA"),
    ("eyJhbGciOiJSUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiJ1c2VyXzQ4MjkiLCJpYXQiOjE3OTUzNDg4MDB9.Kq3mX9vB2nW7cR5tY1pL8zD4fH6jG0sA-_Qe",
     "eyJzdWIiOiJ1c2VyXzQ4MjkiLCJpYXQiOjE3OTUzNDg4MDB9.Kq3mX9vB2nW7cR5tY1pL8zD4fH6jG0sA-_Qe"),
    ("xak_Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1", "Hv4Nw8Qp2Ls6Tz0Ym3Kb7Rd1"),
    ("AKIAQ3EXAMPLE7KEYZ2W", "AKIAQ3EXAMPLE7KEYZ2W"),
    ("AIzaSyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq", "SyD4r8Tq2Wm6Xn0Bv5Lc9Kj3Hg7Fd1Sa4Pq"),
]
OP, OL, AN, JWT, KEY, AWS, G = (s for s, _ in SECRETS)

# Every 12-character window of every random part: a leak of any of them counts.
WINDOWS = {r[i:i + 12]: s for s, r in SECRETS for i in range(len(r) - 11)}


def planted(variant: int) -> str:
    """Three ways secrets turn up in real error texts (the core's plantings, verbatim)."""
    if variant == 0:
        return (f"Incorrect API key provided: {OP}. Retried with {OL}; "
                f"x-api-key: {AN}; Authorization: Bearer {JWT}; x-api-key: {KEY}; "
                f"aws_access_key_id={AWS}; https://example.invalid/v1/models?key={G}&alt=sse "
                f'{{"x-api-key": "{KEY}"}}')
    if variant == 1:
        return (f"request headers {{'authorization': 'Bearer {JWT}', 'x-api-key': '{KEY}', "
                f"'api-key': '{OL}'}} body {{\"api_key\": \"{OP}\", \"anthropic_api_key\": \"{AN}\"}} "
                f"Credential={AWS}/20261122/us-east-1/bedrock/aws4_request x-goog-api-key={G} "
                f"{{b'x-api-key': b'{KEY}'}}")
    return (f'{{"X-Api-Key" => "{KEY}", "Authorization" => "bearer {JWT}"}} '
            f"(key: {AN}) [{OP}] <{OL}> AccessKeyId:{AWS}, key='{G}'\nBearer\t{JWT} "
            f'{{"detail": "{{\\"api_key\\":\\"{KEY}\\"}}"}}')


PLANTED_HEADERS = {"authorization": f"Bearer {JWT}", "x-api-key": AN, "api-key": KEY, "x-goog-api-key": G}


def plant(f: Dict[str, Any], variant: int) -> Dict[str, Any]:
    """A vector's failure record with secrets in its message, body and headers."""
    secret = planted(variant)
    f = dict(f)
    f["message"] = f"{f.get('message', '')} | {secret}"
    body = f.get("body")
    try:
        parsed = json.loads(body) if isinstance(body, str) else None
    except ValueError:
        parsed = None
    if isinstance(parsed, dict) and isinstance(parsed.get("error"), dict) and isinstance(parsed["error"].get("message"), str):
        parsed["error"]["message"] += f" {secret}"
        f["body"] = json.dumps(parsed)
    elif isinstance(parsed, dict):
        parsed["leak"] = secret
        f["body"] = json.dumps(parsed)
    elif isinstance(body, str):
        f["body"] = f"{body} {secret}"
    else:
        f["body"] = secret
    f["headers"] = {**(f.get("headers") or {}), **PLANTED_HEADERS}
    return f


def leaks(texts: Iterable[str]) -> List[str]:
    found = []
    for t in texts:
        for s, _ in SECRETS:
            if s in t:
                found.append(f"{s[:16]}... in {t[:300]!r}")
                break
        else:
            for w, s in WINDOWS.items():
                if w in t:
                    found.append(f"{w} (of {s[:16]}...) in {t[:300]!r}")
                    break
    return found


class Resp:
    def __init__(self, status: Optional[int], headers: Dict[str, str], text: Optional[str]) -> None:
        self.status_code = status
        self.headers = headers
        self.text = text


def live(f: Dict[str, Any]) -> BaseException:
    """A live exception carrying the planted record: class named after the vector's first class,
    status, response headers and raw body attached, wrapped in a PlanExe-style LLMChatError."""
    chain = f.get("error_class") or ["APIError"]
    name = chain[0].rsplit(".", 1)[-1].rsplit("::", 1)[-1] or "APIError"
    cls = type(name, (Exception,), {})
    inner = cls(f["message"])
    inner.status_code = f.get("status")  # type: ignore[attr-defined]
    inner.response = Resp(f.get("status"), f["headers"], f.get("body"))  # type: ignore[attr-defined]
    try:
        try:
            raise inner
        except Exception as cause:
            raise RuntimeError(f"LLM chat failed (error_id=abc): {cause}") from cause
    except RuntimeError as wrapped:
        return wrapped


def events_text(events: Iterable[Dict[str, Any]]) -> List[str]:
    return [json.dumps(e) for e in events]


def decision_texts(d: Any) -> List[str]:
    return events_text(d.events) + [d.note, repr(d), repr(d.classification), json.dumps(d.classification.to_dict())]


def outputs(failure: Any) -> List[str]:
    """What the engine says about one failure (a Failure or a live exception): its error text and
    every preset's decisions, recoveries reported as done so their events appear too."""
    out = [format_error_message(failure), repr(classify(failure)), json.dumps(classify(failure).to_dict())]
    if isinstance(failure, Failure):
        out.append(repr(failure))
    for preset in PRESETS:
        r = RunMachine(preset, seed=1, context_hook=True)
        d = r.on_failure(failure)
        out += decision_texts(d)
        if d.action == "prune_orphans":
            out += decision_texts(r.on_orphans_pruned(1))
        elif d.action == "compact_context":
            out += decision_texts(r.on_context_compacted(True))
        out += events_text(r.events)
    return out


def loop_outputs(exc: BaseException, policy: Any) -> List[str]:
    """call_llm_with_retry and acall_llm_with_retry on a call that always fails with ``exc``:
    the events, the notes on the re-raised exception, its attached decision."""
    texts: List[str] = []
    for mode in ("sync", "async"):
        events: List[Dict[str, Any]] = []
        history: List[Dict[str, Any]] = [{"role": "user", "content": "hi"}]

        def fail() -> Any:
            raise exc

        async def afail() -> Any:
            raise exc

        kwargs = dict(policy=policy, on_event=events.append, messages=history, on_context_overflow=lambda: True, seed=1)
        try:
            if mode == "sync":
                call_llm_with_retry(fail, **kwargs)
            else:
                asyncio.run(acall_llm_with_retry(afail, **kwargs))
        except BaseException as e:  # noqa: BLE001 - the original exception comes back
            d = getattr(e, "retry_decision", None)
            if d is not None:
                texts += [d.note, repr(d)]
        texts += events_text(events)
    texts += [n for n in getattr(exc, "__notes__", [])]
    return texts


def vector_failures(name: str) -> List[Dict[str, Any]]:
    return [c["failure"] for c in json.loads((VECTORS / name).read_text())["cases"]]


def test_the_planting_is_seen_by_the_checker():
    for v in range(3):
        p = planted(v)
        assert all(s in p for s, _ in SECRETS)
        assert leaks([p])


def test_classification_vectors_leak_no_secret(no_sleep):
    found: List[str] = []
    seen = 0
    for name in ("classify.json", "should_retry.json"):
        for i, record in enumerate(vector_failures(name)):
            f = plant(record, i % 3)
            failure = Failure(**f)
            exc = live(f)
            texts = outputs(failure) + outputs(exc)
            # The loops (every call fails): SwarmSDK's defaults, and the recommended policy.
            texts += loop_outputs(exc, None if i % 2 else "default")
            found += [f"{name} #{i}: {leak}" for leak in leaks(texts)]
            seen += 1
    assert seen > 100, f"only {seen} planted failures"
    assert not found, f"{len(found)} leaks:\n" + "\n".join(found[:20])


def test_policy_sequences_leak_no_secret():
    found: List[str] = []
    for case in json.loads((VECTORS / "policies.json").read_text())["cases"]:
        for v in range(3):
            r = RunMachine(case["policy"], seed=case.get("seed", 0), context_hook=bool(case.get("context_hook", False)))
            last: Any = None
            texts: List[str] = []
            for step in case["steps"]:
                elapsed = step.get("elapsed", 0.0)
                if "failure" in step:
                    last = Failure(**plant(step["failure"], v))
                    texts += outputs(last)
                    d = r.on_failure(last, elapsed)
                elif "pruned" in step:
                    d = r.on_orphans_pruned(step["pruned"], elapsed)
                else:
                    d = r.on_context_compacted(step["compacted"], elapsed)
                texts += decision_texts(d) + [format_error_message(last)]
            texts += events_text(r.events)
            found += [f"{case['name']} #{v}: {leak}" for leak in leaks(texts)]
    assert not found, f"{len(found)} leaks:\n" + "\n".join(found[:20])


def test_llm_executor_texts_leak_no_secret(caplog, no_sleep):
    """The drop-in's events, its final "Exhausted all LLMs" text (PlanExe lists every attempt's
    exception there) and its log lines."""
    found: List[str] = []
    for i, record in enumerate(vector_failures("classify.json")[:40]):
        exc = live(plant(record, i % 3))

        class LLM:
            def complete(self) -> Any:
                raise exc

        events: List[Dict[str, Any]] = []
        ex = LLMExecutor(LLMModelWithInstance.from_instances([LLM(), LLM()]), retry_config=RetryConfig(max_retries=1, base_delay=0.0),
                         on_event=events.append)
        caplog.clear()
        with pytest.raises(Exception) as info:
            ex.run(lambda llm: llm.complete())
        texts = events_text(events) + [str(info.value)] + [r.getMessage() for r in caplog.records]
        found += [f"classify.json #{i}: {leak}" for leak in leaks(texts)]
    assert not found, f"{len(found)} leaks:\n" + "\n".join(found[:20])


def test_fleet_events_and_configuration_errors_leak_no_secret():
    texts: List[str] = []
    # A Redis URL with a key as its password, unreachable: the degraded event's error text.
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    fleet = Fleet(redis_url=f"redis://:{OP}@127.0.0.1:{port}/0", namespace=KEY)
    events: List[Dict[str, Any]] = []
    call_llm_with_retry(lambda: "ok", fleet=fleet, key="openai:gpt-4o", on_event=events.append)
    assert [e["type"] for e in events] == ["fleet_backend_degraded"]
    texts += events_text(events) + [repr(fleet)]
    # Keys pasted into the wrong configuration field: the errors quote the value, scrubbed.
    for bad in (lambda: RetryPolicy.from_config({"max_attempts": OP}), lambda: RetryPolicy.from_config({AN: 1}),
                lambda: RetryPolicy(JWT), lambda: RetryPolicy.from_config(f"{{\"name\": 1, \"x\": \"{G}\"}}"),
                lambda: Fleet(budget={"capacity": AN}), lambda: Fleet(**{f"Bearer {JWT}": 1}),
                lambda: Fleet(redis_url=f"redis://:{OP}@[::1/0"), lambda: Failure(transport=f"x-api-key: {KEY}"),
                lambda: call_llm_with_retry(lambda: "ok", policy=f"Authorization: Bearer {JWT}")):
        with pytest.raises((TypeError, ValueError)) as info:
            bad()
        texts.append(str(info.value))
    found = leaks(texts)
    assert not found, "\n".join(found)


def test_scrub_is_what_the_front_door_uses():
    for v in range(3):
        assert not leaks([retry_core.scrub(planted(v))])
