"""From a live exception to the failure record: class chains, wrapped causes, status, headers,
body; and bad input rejected with TypeError / ValueError, never a crash."""

from __future__ import annotations

import pytest

import retry_core
from retry_core import Failure, classify


class FakeResponse:
    def __init__(self, status_code, headers=None, text=""):
        self.status_code = status_code
        self.headers = headers or {}
        self.text = text


class HTTPishError(Exception):
    def __init__(self, msg, response):
        super().__init__(msg)
        self.response = response


class LLMChatError(Exception):
    """PlanExe's wrapper: its text preserves the cause's."""


def test_class_chain_is_mro_with_modules_outermost_first():
    try:
        try:
            raise ConnectionResetError("peer reset")
        except ConnectionResetError as inner:
            raise LLMChatError("LLM call failed") from inner
    except LLMChatError as e:
        f = Failure.from_exception(e)
        c = classify(e)
    assert f.error_class[0] == f"{__name__}.LLMChatError"
    assert "Exception" in f.error_class
    assert "BaseException" not in f.error_class and "object" not in f.error_class
    i = f.error_class.index("ConnectionResetError")
    assert f.error_class[i:i + 3] == ("ConnectionResetError", "ConnectionError", "OSError")
    assert f.message == "LLM call failed"
    assert c.category == "connection"


def test_status_headers_body_come_from_the_first_exception_that_has_them():
    resp = FakeResponse(429, {"Retry-After": "3", "X-Should-Retry": "true"},
                        '{"error": {"type": "rate_limit_error", "message": "slow down"}}')
    try:
        try:
            raise HTTPishError("HTTP error", resp)
        except HTTPishError:
            raise RuntimeError("step failed")  # implicit __context__
    except RuntimeError as e:
        f = Failure.from_exception(e)
        c = classify(e)
    assert f.status == 429
    assert f.headers["retry-after"] == "3"
    assert "rate_limit_error" in f.body
    assert (c.category, c.transient, c.retry_after) == ("rate_limited", True, 3.0)


def test_suppressed_context_is_not_looked_through():
    try:
        try:
            raise TimeoutError("read timed out")
        except TimeoutError:
            raise ValueError("bad configuration value") from None
    except ValueError as e:
        f = Failure.from_exception(e)
    assert "TimeoutError" not in f.error_class


def test_cycles_and_depth_are_bounded():
    a = RuntimeError("a")
    b = RuntimeError("b")
    a.__cause__ = b
    b.__cause__ = a
    f = Failure.from_exception(a)
    assert f.error_class.count("RuntimeError") == 2
    deep = Exception("0")
    cur = deep
    for i in range(100):
        nxt = Exception(str(i + 1))
        cur.__cause__ = nxt
        cur = nxt
    assert Failure.from_exception(deep).error_class.count("Exception") == retry_core._failure.MAX_CHAIN


def test_properties_that_raise_are_absent_not_errors():
    class Nasty(Exception):
        @property
        def response(self):
            raise RuntimeError("no response for you")

        @property
        def status_code(self):
            raise KeyError("nope")

        def __str__(self):
            raise ValueError("cannot print")

    f = Failure.from_exception(Nasty())
    assert f.status is None and f.message == "Nasty"


def test_body_variants():
    class WithBody(Exception):
        pass

    e = WithBody("boom")
    e.body = {"error": {"code": "insufficient_quota", "message": "You exceeded your current quota"}}
    e.status_code = 429
    c = classify(e)
    assert (c.category, c.transient) == ("payment_required", False)
    e.body = b'{"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}'
    e.status_code = 529
    assert classify(e).category == "overloaded"


def test_failure_constructor_and_record():
    f = Failure(status=503, headers=[("Retry-After", "2")], body=b"busy", error_class="X", message="m")
    assert f.headers == {"retry-after": "2"} and f.body == "busy" and f.error_class == ("X",)
    assert f.to_dict()["status"] == 503
    assert Failure(message="m") == Failure(message="m")
    assert "sk-" not in repr(Failure(message="bad key sk-abcdefghijklmnopqrstuvwxyz"))
    assert classify(f).retry_after == 2.0


@pytest.mark.parametrize(
    "kwargs,error",
    [
        ({"status": "429"}, TypeError),
        ({"status": True}, TypeError),
        ({"status": 70000}, ValueError),
        ({"status": -1}, ValueError),
        ({"headers": "retry-after: 1"}, TypeError),
        ({"headers": [("a",)]}, TypeError),
        ({"headers": {1: "x"}}, TypeError),
        ({"error_class": [1, 2]}, TypeError),
        ({"message": 42}, TypeError),
        ({"transport": "carrier-pigeon"}, ValueError),
        ({"transport": 3}, TypeError),
        ({"body": object()}, TypeError),
    ],
)
def test_bad_failure_input_is_a_python_error(kwargs, error):
    with pytest.raises(error):
        Failure(**kwargs)


def test_invalid_argument_error_is_both_retry_core_and_value_error():
    with pytest.raises(retry_core.InvalidArgumentError) as info:
        Failure(status=99)
    assert isinstance(info.value, ValueError) and isinstance(info.value, retry_core.RetryCoreError)
    assert info.value.code == "invalid_argument"


def test_classify_rejects_non_exceptions():
    with pytest.raises(TypeError):
        classify("a string")  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        retry_core.is_transient_error(None)  # type: ignore[arg-type]


def test_a_rust_panic_is_an_internal_error_not_an_abort():
    """retry_core::debug_panic (a panic inside the core, with the GIL released, as around every
    Redis call) arrives as retry_core.InternalError, which `except Exception` catches, and the
    interpreter and the engine live on."""
    with pytest.raises(retry_core.InternalError) as info:
        retry_core._native._debug_panic("deliberate panic")
    assert isinstance(info.value, RuntimeError) and isinstance(info.value, retry_core.RetryCoreError)
    assert info.value.code == "internal"
    assert "retry-core bug (please report)" in str(info.value) and "deliberate panic" in str(info.value)
    assert classify(TimeoutError("read timed out")).category == "timeout"

    import subprocess
    import sys

    script = (
        "import retry_core\n"
        "caught = 0\n"
        "for i in range(50):\n"
        "    try:\n"
        "        retry_core._native._debug_panic(f'panic {i}')\n"
        "    except Exception:\n"
        "        caught += 1\n"
        "print(caught, retry_core.classify(ConnectionResetError()).category)\n"
    )
    out = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr[-2000:]
    assert out.stdout.split() == ["50", "connection"]


def test_huge_and_binary_inputs_do_not_crash():
    big = "x" * (2 << 20) + " rate limit exceeded"
    assert classify(Failure(message=big, body=big)).category in {"rate_limited", "unknown"}
    assert classify(Failure(status=500, body=bytes(range(256)) * 100)).category == "server_error"
    # Lone surrogates (bytes decoded with surrogateescape) are replaced, not an error.
    assert classify(OSError("connection reset \udcff")).category == "connection"
    assert Failure(message="\udcff", headers={"x": "\udcff"}, body="\udcff").message == "?"
