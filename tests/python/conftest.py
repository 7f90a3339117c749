"""Shared fixtures: the shared vectors' location, float comparison, and a scripted loopback
HTTP server that real SDKs talk to (127.0.0.1 only; every request is answered or dropped
within a bounded time)."""

from __future__ import annotations

import json
import math
import os
import socket
import struct
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Dict, List, Optional

import pytest

VECTORS = Path(os.environ.get("RETRY_CORE_VECTORS", Path(__file__).resolve().parent.parent / "vectors"))

TOL = 1e-9


def assert_matches(actual: Any, expected: Any, path: str = "$") -> None:
    """Deep equality with a 1e-9 tolerance on numbers where either side is a float."""
    if isinstance(expected, bool) or isinstance(actual, bool):
        assert actual is expected, f"{path}: {actual!r} != {expected!r}"
    elif isinstance(expected, (int, float)) and isinstance(actual, (int, float)) and (
        isinstance(expected, float) or isinstance(actual, float)
    ):
        assert math.isclose(actual, expected, rel_tol=0, abs_tol=TOL), f"{path}: {actual!r} != {expected!r}"
    elif isinstance(expected, dict):
        assert isinstance(actual, dict), f"{path}: {actual!r} is not a dict"
        assert set(actual) == set(expected), f"{path}: keys {sorted(actual)} != {sorted(expected)}"
        for k in expected:
            assert_matches(actual[k], expected[k], f"{path}.{k}")
    elif isinstance(expected, list):
        assert isinstance(actual, list) and len(actual) == len(expected), f"{path}: {actual!r} != {expected!r}"
        for i, (a, e) in enumerate(zip(actual, expected)):
            assert_matches(a, e, f"{path}[{i}]")
    else:
        assert actual == expected, f"{path}: {actual!r} != {expected!r}"


class Reply:
    """One scripted answer: a response, a dropped connection (`reset`), or a stall longer than
    the client's timeout (`hang`)."""

    def __init__(self, status: int = 200, body: Any = "", headers: Optional[Dict[str, str]] = None,
                 kind: str = "response", hang: float = 0.0, content_type: str = "application/json"):
        self.status = status
        self.body = body if isinstance(body, (str, bytes)) else json.dumps(body)
        self.headers = dict(headers or {})
        self.kind = kind
        self.hang = hang
        self.content_type = content_type


class Loopback:
    """A ThreadingHTTPServer on 127.0.0.1 answering from a script; the last reply repeats."""

    def __init__(self) -> None:
        self.script: List[Reply] = []
        self.requests: List[Dict[str, Any]] = []
        self._lock = threading.Lock()
        outer = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *args: Any) -> None:  # quiet
                pass

            def _answer(self) -> None:
                length = int(self.headers.get("content-length") or 0)
                body = self.rfile.read(length) if length else b""
                with outer._lock:
                    outer.requests.append({"method": self.command, "path": self.path, "body": body})
                    reply = outer.script.pop(0) if len(outer.script) > 1 else (outer.script[0] if outer.script else Reply())
                if reply.hang:
                    time.sleep(min(reply.hang, 5.0))
                if reply.kind == "reset":
                    # SO_LINGER 0: the client sees a real RST, not a polite close.
                    self.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                    self.connection.close()
                    self.close_connection = True
                    return
                if reply.kind == "drop":
                    self.close_connection = True
                    return
                data = reply.body.encode() if isinstance(reply.body, str) else reply.body
                # `truncate`: promise more bytes than are sent, then close (a stream cut short).
                length = len(data) + (1000 if reply.kind == "truncate" else 0)
                try:
                    self.send_response(reply.status)
                    self.send_header("content-type", reply.content_type)
                    self.send_header("content-length", str(length))
                    for k, v in reply.headers.items():
                        self.send_header(k, v)
                    self.end_headers()
                    self.wfile.write(data)
                    if reply.kind == "truncate":
                        self.wfile.flush()
                        self.close_connection = True
                except OSError:
                    pass

            do_GET = _answer
            do_POST = _answer

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
        self.thread.start()
        host, port = self.server.server_address[:2]
        self.url = f"http://{host}:{port}"

    def reply(self, *replies: Reply) -> "Loopback":
        with self._lock:
            self.script = list(replies)
            self.requests = []
        return self

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def loopback():
    server = Loopback()
    try:
        yield server
    finally:
        server.close()


@pytest.fixture
def no_sleep(monkeypatch):
    """Patches time.sleep and asyncio.sleep (looked up at call time by retry_core) to record
    the delays instead of waiting."""
    import asyncio

    slept: List[float] = []

    def fake_sleep(d: float) -> None:
        slept.append(d)

    async def fake_async_sleep(d: float, result: Any = None) -> Any:
        slept.append(d)
        return result

    monkeypatch.setattr(time, "sleep", fake_sleep)
    monkeypatch.setattr(asyncio, "sleep", fake_async_sleep)
    return slept


@pytest.fixture(scope="module")
def lab():
    """The fault lab on loopback, one per test module (tests/python/test_lab.py's `Lab`). httpx
    honours HTTP(S)_PROXY even for loopback: proxies are cleared and loopback exempted."""
    from test_lab import Lab

    with pytest.MonkeyPatch.context() as mp:
        for var in ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "http_proxy", "https_proxy", "all_proxy"):
            mp.delenv(var, raising=False)
        mp.setenv("NO_PROXY", "127.0.0.1,localhost")
        mp.setenv("no_proxy", "127.0.0.1,localhost")
        server = Lab()
        try:
            yield server
        finally:
            server.stop()



def without_waits(events: List[Dict[str, Any]]) -> List[Dict[str, Any]]:
    """The events other than a run's wait events, after checking those: every
    ``retry_wait_started`` is closed by its ``retry_wait_finished`` (same seconds and reason)
    before any other wait starts, and none is left open."""
    out: List[Dict[str, Any]] = []
    started: Optional[Dict[str, Any]] = None
    for e in events:
        if e["type"] == "retry_wait_started":
            assert started is None, f"a wait started inside another: {events}"
            started = e
        elif e["type"] == "retry_wait_finished":
            assert started is not None and (e["seconds"], e["reason"]) == (started["seconds"], started["reason"]), events
            started = None
        else:
            out.append(e)
    assert started is None, f"a wait never finished: {events}"
    return out


class RunMachine:
    """The engine's ``Run`` (``retry_core._native.Run``, core/src/run.rs) driven one failure at a
    time, for tests that look at single decisions: each report returns the decision of the last
    failure (``run.decision``), and ``step`` holds the run's last step. A report after a wait
    resumes the run first, as the front doors do. Not public API: the front doors are
    ``call_llm_with_retry`` and ``acall_llm_with_retry``."""

    def __init__(self, policy: Any = "default", *, seed: Optional[int] = None, context_hook: bool = False,
                 fleet: Any = None, key: Optional[str] = None) -> None:
        from retry_core import _native
        from retry_core._policy import resolve_policy

        config = json.dumps({"seed": seed, "context_hook": bool(context_hook)})
        native = resolve_policy(policy)
        if fleet is None:
            self.run = _native.Run(native, config)
        else:
            self.run = _native.Run(native, config, fleet._inner, [key])
        self.step: Any = None
        #: Every event of the run so far, in order.
        self.events: List[Dict[str, Any]] = []

    def _take(self, out: Any) -> Any:
        self.step, pending = out
        self.events.extend(e for e, _, _ in pending or [])
        return self.step

    def start(self, elapsed: float = 0.0) -> Any:
        return self._take(self.run._start(elapsed))

    def succeeded(self, elapsed: float = 0.0) -> Any:
        if self.step is not None and self.step[0] == "wait":
            self._take(self.run._resume(elapsed))
        return self._take(self.run._succeeded(elapsed))

    def on_failure(self, failure: Any, elapsed: float = 0.0) -> Any:
        from retry_core._failure import record_of

        if self.step is not None and self.step[0] == "wait":
            self._take(self.run._resume(elapsed))
        self._take(self.run._failed(record_of(failure), elapsed))
        return self.run.decision

    def on_orphans_pruned(self, pruned: int, elapsed: float = 0.0) -> Any:
        self._take(self.run._pruned(pruned, elapsed))
        return self.run.decision

    def on_context_compacted(self, compacted: bool, elapsed: float = 0.0) -> Any:
        self._take(self.run._compacted(compacted, elapsed))
        return self.run.decision

    @property
    def attempts(self) -> int:
        return self.run.attempts
