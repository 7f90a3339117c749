"""The native exception reader (python-ext/src/failure.rs) reads exactly what the reference
reader in Python (reference_reader.py, the binding's reader before it moved into Rust) reads:
for real SDK exceptions from real HTTP responses and for every odd shape an exception, its
response, its headers or its body can take. Compared as the record the engine sees."""

from __future__ import annotations

import email.message
import enum
import json
import random

import pytest

from retry_core import _native

import reference_reader
from conftest import Reply


def native(exc: BaseException) -> str:
    return _native.FailureRecord._from_exception(exc)._to_json()


def reference(exc: BaseException) -> str:
    return reference_reader.record(exc)._to_json()


def same(exc: BaseException) -> None:
    assert json.loads(native(exc)) == json.loads(reference(exc))


def raised(fn):
    try:
        fn()
    except BaseException as e:  # noqa: BLE001 - the point is to catch what the SDK raises
        return e
    raise AssertionError("nothing raised")


# --- real SDK exceptions -----------------------------------------------------------------------

openai = pytest.importorskip("openai")
anthropic = pytest.importorskip("anthropic")
httpx = pytest.importorskip("httpx")


def _sdk_exceptions(loopback):
    out = []
    oa = openai.OpenAI(api_key="sk-test-abcdefghijklmnop", base_url=loopback.url + "/v1", max_retries=0, timeout=0.5)
    an = anthropic.Anthropic(api_key="sk-ant-test-abcdefghijklmnop", base_url=loopback.url, max_retries=0, timeout=0.5)
    msgs = [{"role": "user", "content": "hi"}]
    replies = [
        Reply(429, {"error": {"message": "You exceeded your current quota.", "type": "insufficient_quota", "code": "insufficient_quota"}},
              {"retry-after": "7", "x-ratelimit-reset-tokens": "6m0s", "Set-Cookie": "a=1"}),
        Reply(529, {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
        Reply(502, "<html><body><h1>502 Bad Gateway</h1></body></html>", content_type="text/html"),
        Reply(400, b"\xff\xfe not utf-8 \xed\xa0\x80", content_type="application/octet-stream"),
        Reply(401, {"error": {"message": "Incorrect API key provided: sk-test-****mnop."}}),
        Reply(kind="reset"),
        Reply(200, "{}", hang=1.0),
    ]
    for reply in replies:
        loopback.reply(reply)
        out.append(raised(lambda: oa.chat.completions.create(model="gpt-4o", messages=msgs)))
        loopback.reply(reply)
        out.append(raised(lambda: an.messages.create(model="claude-x", max_tokens=8, messages=msgs)))
    loopback.reply(Reply(200, "data: {\"choices\": []}\n\n", kind="truncate", content_type="text/event-stream"))
    out.append(raised(lambda: list(oa.chat.completions.create(model="gpt-4o", messages=msgs, stream=True))))
    with httpx.Client(trust_env=False, timeout=0.5) as client:
        loopback.reply(Reply(429, {"error": {"message": "slow down"}}, {"retry-after": "3"}))
        out.append(raised(lambda: client.get(loopback.url + "/").raise_for_status()))
        out.append(raised(lambda: client.get("http://127.0.0.1:9/")))
    return out


def test_real_sdk_exceptions_read_the_same(loopback):
    excs = _sdk_exceptions(loopback)
    assert len(excs) >= 15
    for e in excs:
        same(e)
        # Wrapped the PlanExe way, with the cause's text in the wrapper's.
        try:
            raise RuntimeError(f"LLM chat failed: {e}") from e
        except RuntimeError as w:
            same(w)


# --- odd shapes --------------------------------------------------------------------------------


class Resp:
    def __init__(self, **attrs):
        self.__dict__.update(attrs)


class Err(Exception):
    def __init__(self, msg="boom", **attrs):
        super().__init__(msg)
        self.__dict__.update(attrs)


class Raising:
    """Every attribute read raises the given exception."""

    def __init__(self, exc):
        object.__setattr__(self, "_exc", exc)

    def __getattr__(self, name):
        raise object.__getattribute__(self, "_exc")


class BadStr(Exception):
    def __str__(self):
        raise ValueError("no str for you")


class HTTPStatus(enum.IntEnum):
    TOO_MANY = 429


class MultiHeaders:
    def multi_items(self):
        return [("Retry-After", "3"), ("X-Thing", "a"), ("x-thing", "b")]


class ItemsHeaders:
    def items(self):
        return iter([(b"retry-after", bytearray(b"4")), ("k", memoryview(b"v")), ("n", None), (3, "x")])


class RawHeaders:
    raw = [(b"Retry-After", b"5"), (b"X-Latin", b"caf\xe9"), ("str", b"skipped"), (b"v", 1)]


def _message(**kw):
    m = email.message.Message()
    for k, v in kw.items():
        m[k.replace("_", "-")] = v
    return m


class CyclicDict(dict):
    pass


_cyclic = CyclicDict()
_cyclic["self"] = _cyclic

ODD = {
    "plain": lambda: ValueError("bad value"),
    "empty message": lambda: RuntimeError(),
    "status_code int": lambda: Err(status_code=503),
    "status attr": lambda: Err(status=429),
    "status bool": lambda: Err(status_code=True, status=500),
    "status IntEnum": lambda: Err(status_code=HTTPStatus.TOO_MANY),
    "status float and str": lambda: Err(status_code=503.0, status="503"),
    "status out of range": lambda: Err(status_code=99, status=10**30),
    "response status": lambda: Err(response=Resp(status=502, headers={"Retry-After": "2"}, text="bad gateway")),
    "response status_code": lambda: Err(response=Resp(status_code=504, headers=[("retry-after", "1")], content=b"\xffx")),
    "response raising": lambda: Err(response=Raising(AttributeError("no")), status_code=500),
    "response raising ValueError": lambda: Err(response=Raising(ValueError("no")), body="raw"),
    "headers dict": lambda: Err(headers={"Retry-After": "9", " X-Should-Retry ": "true", "n": None}),
    "headers email.message": lambda: Err(headers=_message(Retry_After="8", X_A="b")),
    "headers multi_items": lambda: Err(headers=MultiHeaders()),
    "headers items with bytes": lambda: Err(headers=ItemsHeaders()),
    "headers raw": lambda: Err(headers=RawHeaders()),
    "headers raw not a list": lambda: Err(headers=Resp(raw=("a", "b"), items=lambda: [("k", "v")])),
    "headers triples": lambda: Err(headers=[("a", "b", "c")], status_code=500),
    "headers two-char strings": lambda: Err(headers=["ab", "cd"]),
    "headers a string": lambda: Err(headers="retry-after: 3"),
    "headers an int": lambda: Err(headers=42),
    "headers empty then later ones": lambda: _chain(Err(headers={}), Err(headers={"retry-after": "3"})),
    "headers raising": lambda: Err(headers=Raising(ValueError("x"))),
    "body str": lambda: Err(body='{"error": {"type": "overloaded_error"}}'),
    "body bytes": lambda: Err(body=b'{"error": "x"} \xff'),
    "body bytearray": lambda: Err(body=bytearray(b"\xc3\x28 bad")),
    "body memoryview": lambda: Err(body=memoryview(b"mv body")),
    "body dict": lambda: Err(body={"error": {"code": "insufficient_quota"}}),
    "body dict with object": lambda: Err(body={"when": object()}),
    "body cyclic": lambda: Err(body=_cyclic),
    "body dict but response text": lambda: Err(body={"a": 1}, response=Resp(text="raw text", status_code=400)),
    "body None response content": lambda: Err(response=Resp(content=bytearray(b"content"))),
    "body int": lambda: Err(body=12),
    "surrogates": lambda: Err("reset \udcff", headers={"x\udcfe": "\udcfd"}, body="b\udcfc"),
    "str raises": lambda: BadStr(),
    "str raises in a chain": lambda: _chain(RuntimeError(""), BadStr()),
    "messages down the chain": lambda: _chain(RuntimeError(""), ValueError(""), TimeoutError("read timed out")),
    "suppressed context": lambda: _suppressed(),
    "cause and context": lambda: _cause_and_context(),
    "cycle": lambda: _cycle(),
    "deep": lambda: _deep(40),
    "module None": lambda: type("NoModule", (Exception,), {"__module__": None})("x"),
    "module not a str": lambda: type("OddModule", (Exception,), {"__module__": 7})("x"),
    "nested qualname": lambda: Outer.Inner("x"),
    "KeyboardInterrupt": lambda: KeyboardInterrupt(),
    "OSError": lambda: ConnectionResetError(104, "Connection reset by peer"),
    # botocore's ClientError.response is a dict; google-genai keeps the response JSON in
    # `details`; urllib, google-api-core and google-genai say the status as `code`.
    "aws response dict": lambda: Err(response={
        "Error": {"Code": "ThrottlingException", "Message": "Too many requests"},
        "ResponseMetadata": {"HTTPStatusCode": 429, "HTTPHeaders": {"retry-after": "3", "x-amzn-errortype": "ThrottlingException:x"}},
    }),
    "aws response without metadata": lambda: Err(response={"Error": {"Code": "ValidationException"}}),
    "aws metadata not a dict": lambda: Err(response={"ResponseMetadata": "429", "Error": "x"}),
    "aws status a str": lambda: Err(response={"ResponseMetadata": {"HTTPStatusCode": "429", "HTTPHeaders": [("a", "b")]}}),
    "aws headers raising": lambda: Err(response={"ResponseMetadata": {"HTTPHeaders": Raising(ValueError("x"))}}),
    "aws error with an object": lambda: Err(response={"Error": {"Code": "X", "When": object()}}),
    "aws dict subclass": lambda: Err(response=CyclicDict(ResponseMetadata={"HTTPStatusCode": 503})),
    "litellm headers": lambda: Err(litellm_response_headers={"retry-after": "7"}, response=Resp(headers={}, status_code=429)),
    "litellm headers raising": lambda: Err(litellm_response_headers=Raising(ValueError("x")), headers={"a": "b"}),
    "aws dict with a key whose __eq__ raises": lambda: Err(response={BadKey(): 1, "Error": {"Code": "X"}}),
    "code int": lambda: Err(code=429),
    "code str": lambda: Err(code="rate_limit_exceeded", status_code=429),
    "code out of range": lambda: Err(code=1006),
    "code bool": lambda: Err(code=True),
    "code after response status": lambda: Err(code=500, response=Resp(status_code=429)),
    "details dict": lambda: Err(details={"error": {"code": 429, "status": "RESOURCE_EXHAUSTED"}}, code=429),
    "details list": lambda: Err(details=[{"@type": "x"}]),
    "details dict but body": lambda: Err(details={"a": 1}, body="raw"),
    "details cyclic": lambda: Err(details=_cyclic),
    "details not a dict": lambda: Err(details=Raising(ValueError("x")), code=Raising(ValueError("y"))),
    "code and details properties raising": lambda: RaisingProps("x"),
}


class BadKey:
    """Collides with the str key looked up, and refuses to compare."""

    def __hash__(self):
        return hash("ResponseMetadata")

    def __eq__(self, other):
        raise ValueError("no comparing")


class RaisingProps(Exception):
    @property
    def code(self):
        raise ValueError("no code")

    @property
    def details(self):
        raise RuntimeError("no details")


class Outer:
    class Inner(Exception):
        pass


def _chain(*excs):
    for a, b in zip(excs, excs[1:]):
        a.__cause__ = b
    return excs[0]


def _suppressed():
    try:
        try:
            raise TimeoutError("t")
        except TimeoutError:
            raise ValueError("v") from None
    except ValueError as e:
        return e


def _cause_and_context():
    try:
        try:
            raise Err("ctx", status_code=500)
        except Err as ctx:
            raise RuntimeError("outer") from Err("cause", status_code=429, headers={"retry-after": "1"})
    except RuntimeError as e:
        return e


def _cycle():
    a, b = RuntimeError("a"), Err("b", status_code=503)
    a.__cause__, b.__cause__ = b, a
    return a


def _deep(n):
    top = cur = Exception("0")
    for i in range(n):
        nxt = Err(str(i + 1), status_code=500 + i % 5)
        cur.__cause__ = nxt
        cur = nxt
    return top


@pytest.mark.parametrize("name", list(ODD))
def test_odd_shapes_read_the_same(name):
    same(ODD[name]())


def test_base_exceptions_from_attributes_propagate_from_both():
    e = Err(response=Raising(KeyboardInterrupt()))
    with pytest.raises(KeyboardInterrupt):
        reference(e)
    with pytest.raises(KeyboardInterrupt):
        native(e)


def test_random_bytes_decode_like_python():
    """Rust's lossy UTF-8 decoding replaces invalid sequences exactly as Python's
    ``decode("utf-8", "replace")`` does (maximal subparts)."""
    rng = random.Random(7)
    pool = [b"\xed\xa0\x80", b"\xf0\x9f\x98", b"\xe2\x82", b"\xc0\xaf", b"\xf4\x90\x80\x80", b"\x80", b"ok", "é".encode(), "😀".encode()]
    for _ in range(500):
        data = b"".join(rng.choice(pool) if rng.random() < 0.7 else bytes([rng.randrange(256)]) for _ in range(rng.randrange(12)))
        same(Err(body=data, headers=[(data, data)]))


def test_the_class_name_cache_survives_many_classes():
    # More classes than the cache holds: it starts over, and names stay right.
    for i in range(5000):
        cls = type(f"Dyn{i}", (ConnectionError,), {})
        if i % 500 == 0:
            same(cls("x"))
    assert _native.FailureRecord._from_exception(type("Last", (TimeoutError,), {"__module__": "m"})("t")).error_class[:2] == ["m.Last", "TimeoutError"]


def test_not_an_exception_is_a_type_error():
    with pytest.raises(TypeError):
        _native.FailureRecord._from_exception("boom")  # type: ignore[arg-type]
