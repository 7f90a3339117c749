"""Issue 20: the HTTP clients' own transport errors, raised for real against the fault lab, are
classified transient and retried by call_llm_with_retry / acall_llm_with_retry.

aiohttp (ClientPayloadError from ContentLengthError or TransferEncodingError for a body cut
mid-way, a reset mid-body included; ServerDisconnectedError for a close before the answer;
ClientOSError for a reset), httpx (ReadError, RemoteProtocolError) and requests
(ConnectionError, ChunkedEncodingError) each meet: a reset before the answer (RST), a close
before the answer (FIN), a reset mid-body (the headers and half a JSON body, then an RST), a
JSON body cut short (FIN), and an SSE stream cut mid-way (FIN and RST). Waits are recorded, not
slept; the call counts come from the lab's log.

Measured first (before the class rows and the reader fix of this change): every httpx and
requests case passed; aiohttp's four mid-body cases came out ``bad_request`` (the 400 in
aiohttp's parser error's ``code`` read as a status) and were not retried.
"""

from __future__ import annotations

import asyncio
import json
from typing import Any, Callable, Dict, List

import pytest

import retry_core
from retry_core import acall_llm_with_retry, call_llm_with_retry

aiohttp = pytest.importorskip("aiohttp")
httpx = pytest.importorskip("httpx")
requests = pytest.importorskip("requests")

PATH = "/v1/chat/completions"

#: name -> (fault, streamed request)
FAULTS: Dict[str, Any] = {
    "reset": ({"fault": "reset"}, False),
    "close": ({"fault": "reset", "graceful": True}, False),
    "reset_mid_body": ({"fault": "stream_cut", "rst": True}, False),
    "cut_mid_body": ({"fault": "stream_cut"}, False),
    "sse_cut": ({"fault": "stream_cut", "after_chunks": 2}, True),
    "sse_reset": ({"fault": "stream_cut", "after_chunks": 2, "rst": True}, True),
}

#: What aiohttp 3.x raises for each (module.QualName), from a run against the lab.
AIOHTTP_RAISES = {
    "reset": {"aiohttp.client_exceptions.ClientOSError", "aiohttp.client_exceptions.ClientConnectionResetError"},
    "close": {"aiohttp.client_exceptions.ServerDisconnectedError"},
    "reset_mid_body": {"aiohttp.client_exceptions.ClientPayloadError"},
    "cut_mid_body": {"aiohttp.client_exceptions.ClientPayloadError"},
    "sse_cut": {"aiohttp.client_exceptions.ClientPayloadError"},
    "sse_reset": {"aiohttp.client_exceptions.ClientPayloadError"},
}


def body(stream: bool) -> Dict[str, Any]:
    return {"model": "gpt-test", "stream": stream, "messages": [{"role": "user", "content": "hi"}]}


def complete_sse(lines: List[str]) -> str:
    """The text of an OpenAI stream; a stream that ends without its finish reason is refused,
    as an agent must (the lab's cut streams stop before it)."""
    text, done = [], False
    for line in lines:
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            done = True
            continue
        choice = json.loads(data)["choices"][0]
        text.append(choice["delta"].get("content") or "")
        done = done or choice.get("finish_reason") == "stop"
    if not done:
        raise RuntimeError("stream ended without a finish reason")
    return "".join(text)


def plain_text(doc: Dict[str, Any]) -> str:
    return doc["choices"][0]["message"]["content"]


# --- one call per client: returns the reply text or raises the client's own error --------------


def with_requests(url: str, stream: bool, headers: Dict[str, str]) -> str:
    with requests.Session() as s:
        s.trust_env = False  # no proxy for loopback
        r = s.post(url + PATH, json=body(stream), headers=headers, stream=stream, timeout=5)
        r.raise_for_status()
        if stream:
            return complete_sse([ln.decode() for ln in r.iter_lines()])
        return plain_text(r.json())


def with_httpx(url: str, stream: bool, headers: Dict[str, str]) -> str:
    with httpx.Client(timeout=5, trust_env=False) as c:
        with c.stream("POST", url + PATH, json=body(stream), headers=headers) as r:
            r.raise_for_status()
            if stream:
                return complete_sse(list(r.iter_lines()))
            r.read()
            return plain_text(r.json())


async def with_aiohttp(url: str, stream: bool, headers: Dict[str, str]) -> str:
    async with aiohttp.ClientSession(trust_env=False) as s:
        async with s.post(url + PATH, json=body(stream), headers=headers,
                          timeout=aiohttp.ClientTimeout(total=5)) as r:
            r.raise_for_status()
            if stream:
                return complete_sse([ln.decode() async for ln in r.content])
            return plain_text(await r.json())


async def with_httpx_async(url: str, stream: bool, headers: Dict[str, str]) -> str:
    async with httpx.AsyncClient(timeout=5, trust_env=False) as c:
        async with c.stream("POST", url + PATH, json=body(stream), headers=headers) as r:
            r.raise_for_status()
            if stream:
                return complete_sse([ln async for ln in r.aiter_lines()])
            await r.aread()
            return plain_text(r.json())


SYNC: Dict[str, Callable[..., str]] = {"requests": with_requests, "httpx": with_httpx}
ASYNC: Dict[str, Callable[..., Any]] = {"aiohttp": with_aiohttp, "httpx_async": with_httpx_async}
CLIENTS = sorted([*SYNC, *ASYNC])


def once(client: str, url: str, stream: bool, headers: Dict[str, str]) -> str:
    if client in SYNC:
        return SYNC[client](url, stream, headers)
    return asyncio.run(ASYNC[client](url, stream, headers))


def chain_names(exc: BaseException) -> List[str]:
    return retry_core.Failure.from_exception(exc).error_class


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("client", CLIENTS)
def test_the_clients_own_error_is_transient(lab, client, fault):
    f, stream = FAULTS[fault]
    lab.script({})
    with pytest.raises(Exception) as ei:
        once(client, lab.url, stream, {"x-lab-fault": json.dumps(f)})
    c = retry_core.classify(ei.value)
    assert c.transient, (c, chain_names(ei.value), str(ei.value))
    assert c.category in ("connection", "stream_interrupted"), (c, chain_names(ei.value))
    assert c.status is None, "a cut response carries no status the client received"
    if client == "aiohttp":
        assert chain_names(ei.value)[0] in AIOHTTP_RAISES[fault], chain_names(ei.value)


@pytest.mark.parametrize("fault", sorted(FAULTS))
@pytest.mark.parametrize("client", CLIENTS)
def test_each_fault_is_retried_to_an_answer(lab, no_sleep, client, fault):
    f, stream = FAULTS[fault]
    lab.script({"steps": [f]})
    events: List[Dict[str, Any]] = []
    if client in SYNC:
        text = call_llm_with_retry(lambda: SYNC[client](lab.url, stream, {}), on_event=events.append)
    else:
        text = asyncio.run(acall_llm_with_retry(lambda: ASYNC[client](lab.url, stream, {}),
                                                on_event=events.append))
    assert text == "Hello from retry-lab! This is reply number 2."
    assert [e["fault"] for e in lab.log()] == [f["fault"], "ok"]
    attempts = [e for e in events if e["type"] == "llm_retry_attempt"]
    assert len(attempts) == 1 and len(no_sleep) == 1, events
    assert attempts[0]["category"] in ("connection", "stream_interrupted"), attempts


def test_aiohttp_transport_classes_by_their_real_names():
    """Every transport class the installed aiohttp has, built as aiohttp raises it: the class
    rows use the real module names (`aiohttp.client_exceptions...`), which live errors carry."""
    from aiohttp import http_exceptions

    cases = [
        (aiohttp.ServerDisconnectedError(), "connection"),
        (aiohttp.ClientPayloadError("Response payload is not completed"), "connection"),
        (http_exceptions.TransferEncodingError("Not enough data to satisfy transfer length header."), "connection"),
        (http_exceptions.ContentLengthError("Not enough data to satisfy content length header."), "connection"),
        (aiohttp.ClientOSError(104, "Connection reset by peer"), "connection"),
        (aiohttp.ServerTimeoutError("Timeout on reading data from socket"), "timeout"),
    ]
    if hasattr(aiohttp, "ClientConnectionResetError"):  # aiohttp 3.10+
        cases.append((aiohttp.ClientConnectionResetError("Cannot write to closing transport"), "connection"))
    for exc, want in cases:
        c = retry_core.classify(exc)
        assert (c.category, c.transient, c.status) == (want, True, None), (type(exc), c)


def test_aiohttps_parser_status_is_no_status():
    """aiohttp's parser errors carry ``code`` 400 (what aiohttp's server would answer a bad
    message with): wrapped in ClientPayloadError, as a cut response raises them, that 400 is
    not read as a received status."""
    from aiohttp import http_exceptions

    inner = http_exceptions.ContentLengthError("Not enough data to satisfy content length header.")
    assert inner.code == 400
    try:
        try:
            raise inner
        except Exception as e:
            raise aiohttp.ClientPayloadError(f"Response payload is not completed: {e!r}") from e
    except Exception as outer:
        exc = outer
    f = retry_core.Failure.from_exception(exc)
    assert f.status is None
    assert retry_core.classify(exc).category == "connection"
    # A real HTTP status on aiohttp's response error still counts.
    err = aiohttp.ClientResponseError(None, (), status=503, message="Service Unavailable")  # type: ignore[arg-type]
    assert retry_core.classify(err).category == "server_error"
