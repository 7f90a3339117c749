"""The retry loops. The engine (Rust) decides; these loops call, wait and call again.

Waits go through ``time.sleep`` and ``asyncio.sleep``, looked up on their modules at each wait,
so Ctrl-C interrupts a sync wait at once (``time.sleep`` releases the GIL and wakes on
signals), task cancellation interrupts an async one, and tests can patch either.

The success path does little but call ``fn()``: the keyword arguments are checked and the
policy resolved before it (a bad option fails before the first call, never in place of the
user's error), and the native retrier is created only when a call has failed. With a fleet (``fleet=``, ``key=``), the retrier exists from
the start: the fleet is asked before every call (a shared pause or an open circuit is waited out)
and told about the success; that is two native calls on the success path.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from collections.abc import MutableSequence
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, List, Optional, TypeVar, Union

from . import _native
from ._failure import Failure, _utf8, record_of
from ._fleet import Fleet
from ._orphan import PruneResult, prune_in_place
from ._policy import _PRESET_CACHE as _PRESETS, PolicyLike, resolve_policy

__all__ = ["Retrier", "call_llm_with_retry", "acall_llm_with_retry"]

T = TypeVar("T")
logger = logging.getLogger("retry_core")

EventHook = Callable[[Dict[str, Any]], Any]
OrphanHook = Callable[[Optional[PruneResult]], Any]
CompactHook = Callable[[], Any]

Decision = _native.Decision
Gate = _native.Gate

_monotonic = time.monotonic


class Retrier:
    """The engine's state machine for one logical call, for loops of your own.

    Feed it each failure; it answers with a :class:`Decision`: ``retry`` after ``delay``
    seconds, ``recover_orphans`` / ``recover_context`` (then report with
    :meth:`on_orphans_pruned` / :meth:`on_context_compacted`), ``give_up``, or ``reraise``.
    It never sleeps. ``seed`` fixes the jitter (tests, shared vectors).

    With ``fleet=`` and ``key=``, the call shares the fleet's budget, breaker and pauses: ask
    :meth:`before_attempt` before every call (the first included) and report a success with
    :meth:`on_success`.

    >>> from retry_core import Retrier, Failure
    >>> r = Retrier("forgeflare")
    >>> r.on_failure(Failure(status=503, message="busy")).delay
    2.0
    """

    __slots__ = ("_inner",)

    def __init__(self, policy: Optional[PolicyLike] = None, *, seed: Optional[int] = None,
                 context_hook: bool = False, fleet: Optional[Fleet] = None, key: Optional[str] = None) -> None:
        _check_seed(seed)
        native = resolve_policy("default" if policy is None else policy)
        if fleet is None and key is None:
            self._inner = _native.Retrier(native, seed, bool(context_hook))
        else:
            _check_fleet(fleet, key)
            assert fleet is not None
            self._inner = _native.Retrier(native, seed, bool(context_hook), fleet._inner, key)

    def before_attempt(self, elapsed: float = 0.0) -> Optional["_native.Gate"]:
        """Before each call: None when it may go at once, else a :class:`Gate` (wait
        ``gate.wait`` seconds and ask again; ``gate.reject``: stop with the last error; its
        ``events`` are the fleet's). Without a fleet, always None."""
        return self._inner._before_attempt(float(elapsed))

    def on_success(self) -> List[Dict[str, Any]]:
        """The call succeeded: the fleet earns budget back, a half-open circuit closes. Returns the
        fleet's events (``circuit_closed``, ...)."""
        return self._inner._on_success() or []

    def on_failure(self, failure: Union[BaseException, Failure], elapsed: float = 0.0) -> "_native.Decision":
        """A call failed; ``elapsed`` is seconds since the first call began."""
        return self._inner._on_failure(record_of(failure), float(elapsed))

    def on_orphans_pruned(self, pruned: int, failure: Union[BaseException, Failure],
                          elapsed: float = 0.0) -> "_native.Decision":
        """Report how many orphan tool calls were pruned after ``recover_orphans``."""
        if not isinstance(pruned, int) or isinstance(pruned, bool) or pruned < 0:
            raise ValueError(f"pruned must be an int >= 0, got {pruned!r}")
        return self._inner._on_orphans_pruned(pruned, record_of(failure), float(elapsed))

    def on_context_compacted(self, compacted: bool, failure: Union[BaseException, Failure],
                             elapsed: float = 0.0) -> "_native.Decision":
        """Report whether the compaction hook changed the history after ``recover_context``."""
        return self._inner._on_context_compacted(bool(compacted), record_of(failure), float(elapsed))

    @property
    def attempts(self) -> int:
        """Failed calls counted so far (free recoveries do not count)."""
        return self._inner.attempts


def _emit(on_event: Optional[EventHook], decision: "_native.Decision", exc: Optional[BaseException] = None) -> None:
    _emit_events(on_event, decision.events, decision, exc)


def _emit_events(on_event: Optional[EventHook], events: List[Dict[str, Any]],
                 decision: Optional["_native.Decision"] = None, exc: Optional[BaseException] = None) -> None:
    # A hook or a logging handler that raises must not replace the user's result or error: its
    # failure is logged and noted on the user's exception (if there is one); the call goes on.
    # Only Exception is caught: a KeyboardInterrupt in a hook propagates.
    for event in events:
        if on_event is not None:
            try:
                on_event(event)
            except Exception as err:
                _broken(exc, "the on_event hook", err)
        try:
            kind = event["type"]
            if kind == "llm_retry_attempt":
                logger.info("retry-core: %s (%s), attempt %s/%s failed; retrying in %ss",
                            event.get("category"), event.get("error_class"), event.get("attempt"),
                            event.get("max_retries"), event.get("retry_delay"))
            elif kind in ("llm_retry_exhausted", "llm_request_failed"):
                logger.warning("retry-core: %s", decision.note if decision is not None else kind)
            elif kind in ("circuit_opened", "retry_budget_exhausted", "fleet_backend_degraded"):
                logger.warning("retry-core: %s %s", kind, {k: v for k, v in event.items() if k != "type"})
            elif kind in ("circuit_closed", "rate_limit_pause", "fleet_backend_recovered"):
                logger.info("retry-core: %s %s", kind, {k: v for k, v in event.items() if k != "type"})
        except Exception as err:
            _broken(exc, "logging", err)


def _safe_text(obj: BaseException) -> str:
    """``str(obj)`` scrubbed of keys and tokens, or its class name when ``__str__`` misbehaves
    (raises, returns a non-str, recurses)."""
    try:
        text = str(obj)
    except Exception:
        text = None
    if not isinstance(text, str):
        text = _class_name(obj)
    return _native._scrub(_utf8(text))[:500]


def _class_name(obj: Any) -> str:
    try:
        name = type(obj).__name__
    except Exception:
        name = None
    return name if isinstance(name, str) else "Exception"


def _broken(exc: Optional[BaseException], what: str, err: BaseException) -> None:
    """A failure inside retry-core, a hook of the caller's, or an option, met while handling
    the user's exception ``exc``: attached to ``exc`` (``exc.retry_core_errors``, and a note on
    3.11+) and logged, never raised in its place."""
    text = f"retry-core: {what} raised {_class_name(err)}: {_safe_text(err)} (ignored; the original error stands)"
    try:
        logger.warning("%s", text)
    except Exception:
        pass
    if exc is None:
        return
    try:
        errors = exc.__dict__.setdefault("retry_core_errors", [])
        if isinstance(errors, list):
            errors.append(err)
    except Exception:
        pass
    add_note = getattr(exc, "add_note", None)
    if add_note is not None:
        try:
            add_note(text)
        except Exception:
            pass


def _record(exc: BaseException) -> "_native.FailureRecord":
    """The record of ``exc``; when reading it fails (a ``__cause__`` or ``__module__`` that
    raises, ...), a record of its class name alone, and the failure noted on ``exc``."""
    try:
        return record_of(exc)
    except Exception as err:
        _broken(exc, "reading the exception", err)
        return _native.FailureRecord(None, None, None, [_utf8(_class_name(exc))], "", None)


def _give_up(exc: BaseException, decision: "_native.Decision") -> BaseException:
    # The original exception, with the engine's verdict attached: an attribute always, a
    # note where the interpreter shows notes (3.11+).
    try:
        exc.retry_classification = decision.classification  # type: ignore[attr-defined]
        exc.retry_decision = decision  # type: ignore[attr-defined]
    except Exception:
        pass
    add_note = getattr(exc, "add_note", None)
    if add_note is not None:
        try:
            add_note(decision.note)
        except Exception:
            pass
    return exc


def _prune(messages: Optional[MutableSequence[Any]], on_orphans: Optional[OrphanHook]) -> Any:
    """Runs the orphan hooks; returns what the caller's hook returned (maybe awaitable) or the
    number of items pruned from ``messages``."""
    if messages is not None:
        result = prune_in_place(messages)
        if on_orphans is not None:
            return on_orphans(result), result.changed
        return None, result.changed
    if on_orphans is not None:
        return on_orphans(None), None
    return None, 0


def _count(n: Any) -> int:
    if isinstance(n, bool) or not isinstance(n, int):
        return 1 if n else 0
    return min(max(int(n), 0), 2**31)


_OPTIONS = ("max_retries", "delay", "policy", "on_event", "messages", "on_orphans", "on_context_overflow", "seed",
            "fleet", "key")
_OPTION_SET = frozenset(_OPTIONS)


def _hook(name: str, hook: Any) -> Any:
    if hook is not None and not callable(hook):
        raise TypeError(f"{name} must be callable, not {type(hook).__name__}")
    return hook


class _Options:
    """The keyword arguments of a call, checked and the policy resolved before the first call
    (CONTRACT §6), so that a bad keyword or a misspelt preset never stands in for the user's
    own error at the first failure. This runs on the success path of every call given options:
    the defaults are class attributes, the given options land in the instance's dict in one
    update, and only the options given are checked."""

    policy: Optional[PolicyLike] = None
    max_retries: Any = None
    delay: Any = None
    on_event: Optional[EventHook] = None
    messages: Optional[MutableSequence[Any]] = None
    on_orphans: Optional[OrphanHook] = None
    on_context_overflow: Optional[CompactHook] = None
    seed: Optional[int] = None
    fleet: Optional[Fleet] = None
    key: Optional[str] = None
    native: "_native.RetryPolicy"

    def __init__(self, name: str, options: Dict[str, Any]) -> None:
        if not _OPTION_SET.issuperset(options):
            for option in options:
                if option not in _OPTION_SET:
                    raise TypeError(f"{name}() got an unexpected keyword argument {option!r}")
        self.__dict__.update(options)
        policy = self.policy
        swarm = self.max_retries is not None or self.delay is not None
        if policy is not None and swarm:
            raise TypeError(f"{name}() takes max_retries / delay or a policy, not both "
                            "(put them in the policy: {'max_retries': ..., 'backoff': ...})")
        on_event = self.on_event
        if on_event is not None and not callable(on_event):
            _hook("on_event", on_event)
        if "on_orphans" in options:
            _hook("on_orphans", self.on_orphans)
        if "on_context_overflow" in options:
            _hook("on_context_overflow", self.on_context_overflow)
        fleet = self.fleet
        key = self.key
        if (fleet is not None or key is not None) and not (type(fleet) is Fleet and type(key) is str and key):
            _check_fleet(fleet, key)
        messages = self.messages
        if messages is not None and (isinstance(messages, (str, bytes)) or not isinstance(messages, MutableSequence)):
            raise TypeError(f"messages must be a list of messages (pruned in place), not {type(messages).__name__}")
        if self.seed is not None:
            _check_seed(self.seed)
        # With no policy, max_retries or delay, the default preset decides (CONTRACT §6);
        # max_retries / delay alone mean SwarmSDK's loop with those values.
        if policy is None and not swarm:
            policy = "default"
        # A misspelt preset name or a bad configuration fails here, before the first call.
        native = _PRESETS.get(policy) if type(policy) is str else None
        if native is None:
            max_retries = 3 if self.max_retries is None else self.max_retries
            delay = 15.0 if self.delay is None else self.delay
            native = resolve_policy(policy, max_retries, delay)
        self.native = native

    def retrier(self) -> "_native.Retrier":
        if self.fleet is None:
            return _native.Retrier(self.native, self.seed, self.on_context_overflow is not None)
        return _native.Retrier(self.native, self.seed, self.on_context_overflow is not None, self.fleet._inner,
                               self.key)


def _check_seed(seed: Any) -> None:
    if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64):
        raise ValueError(f"seed must be an int in [0, 2**64), got {seed!r}")


def _check_fleet(fleet: Any, key: Any) -> None:
    if not isinstance(fleet, Fleet):
        if fleet is None:
            raise TypeError("key= needs fleet= (a retry_core.Fleet)")
        raise TypeError(f"fleet must be a retry_core.Fleet, not {type(fleet).__name__}")
    if not isinstance(key, str):
        if key is None:
            raise TypeError("fleet= needs key=: the provider and model whose budget, breaker and pauses "
                            "the call shares, e.g. 'openai:gpt-4o'")
        raise TypeError(f"key must be a str, not {type(key).__name__}")
    if not key:
        raise ValueError("key must not be empty")


#: The options of a call given none (never modified: a call only reads its options).
_DEFAULTS = _Options("call_llm_with_retry", {})

_USUAL = frozenset(("policy", "on_event"))


def _check_options(name: str, options: Dict[str, Any]) -> None:
    """Checks a call's options before its first call, raising what :class:`_Options` raises.
    The usual call (a known preset name, maybe an ``on_event`` hook) is checked without
    building the options (a microsecond on every successful call); they are built again, from
    the same dict, on the first failure."""
    policy = options.get("policy")
    if _USUAL.issuperset(options) and type(policy) is str and policy in _PRESETS:
        on_event = options.get("on_event")
        if on_event is None or callable(on_event):
            return
    _Options(name, options)


# The user's error always wins: whatever fails inside retry-core while an exception is handled
# (reading it, a hook, the history given as `messages=`) is noted on that exception
# (`_broken`), never raised in its place. A recovery whose hook failed counts as one that changed
# nothing, so the engine gives up with the original error. Each `raise exc` stands outside any
# `except` block: raising there would overwrite the user's own `__context__`. Only Exception is
# caught: a KeyboardInterrupt anywhere propagates at once.

def _after_failure_sync(retrier: "_native.Retrier", exc: Exception, opts: _Options,
                        elapsed: float) -> "_native.Decision":
    """One failure: the engine's decision, its events, the free recoveries, and the wait before
    the next call. Returns the retry decision, or raises (give up, cancellation)."""
    record = _record(exc)
    decision = _decide(exc, lambda: retrier._on_failure(record, elapsed))
    while decision is not None:
        _emit(opts.on_event, decision, exc)
        action = decision.action
        if action == "retry":
            wait = decision.delay
            if wait:
                time.sleep(wait)
            return decision
        if action == "recover_orphans":
            n = 0
            try:
                ret, changed = _prune(opts.messages, opts.on_orphans)
                n = _count(ret) if changed is None else changed
            except Exception as err:
                _broken(exc, "pruning orphan tool calls", err)
            decision = _decide(exc, lambda: retrier._on_orphans_pruned(n, record, elapsed))
            continue
        if action == "recover_context":
            compacted = False
            hook = opts.on_context_overflow
            try:
                compacted = bool(hook()) if hook is not None else False
            except Exception as err:
                _broken(exc, "the on_context_overflow hook", err)
            decision = _decide(exc, lambda: retrier._on_context_compacted(compacted, record, elapsed))
            continue
        if action == "reraise":
            raise exc
        raise _give_up(exc, decision)
    raise exc


async def _after_failure_async(retrier: "_native.Retrier", exc: Exception, opts: _Options,
                               elapsed: float) -> "_native.Decision":
    record = _record(exc)
    decision = _decide(exc, lambda: retrier._on_failure(record, elapsed))
    while decision is not None:
        _emit(opts.on_event, decision, exc)
        action = decision.action
        if action == "retry":
            wait = decision.delay
            if wait:
                await asyncio.sleep(wait)
            return decision
        if action == "recover_orphans":
            n = 0
            try:
                ret, changed = _prune(opts.messages, opts.on_orphans)
                if inspect.isawaitable(ret):
                    ret = await ret
                n = _count(ret) if changed is None else changed
            except Exception as err:
                _broken(exc, "pruning orphan tool calls", err)
            decision = _decide(exc, lambda: retrier._on_orphans_pruned(n, record, elapsed))
            continue
        if action == "recover_context":
            compacted: Any = False
            hook = opts.on_context_overflow
            try:
                if hook is not None:
                    compacted = hook()
                    if inspect.isawaitable(compacted):
                        compacted = await compacted
                compacted = bool(compacted)
            except Exception as err:
                _broken(exc, "the on_context_overflow hook", err)
                compacted = False
            decision = _decide(exc, lambda: retrier._on_context_compacted(compacted, record, elapsed))
            continue
        if action == "reraise":
            raise exc
        raise _give_up(exc, decision)
    raise exc


def _decide(exc: BaseException, step: Callable[[], "_native.Decision"]) -> Optional["_native.Decision"]:
    """The engine's answer, or None (noted on ``exc``) when asking it failed."""
    try:
        return step()
    except Exception as err:
        _broken(exc, "retry-core's engine", err)
        return None


def _retry_sync(fn: Callable[[], T], exc: Exception, opts: _Options) -> T:
    # The first call failed. Elapsed time (for a policy's deadline) counts from here: reading a
    # clock before the first call would cost the success path.
    t0 = _monotonic()
    retrier = opts.retrier()
    while True:
        _after_failure_sync(retrier, exc, opts, _monotonic() - t0)
        try:
            return fn()
        except Exception as e:
            exc = e


async def _retry_async(fn: Callable[[], Awaitable[T]], exc: Exception, opts: _Options) -> T:
    t0 = _monotonic()
    retrier = opts.retrier()
    while True:
        await _after_failure_async(retrier, exc, opts, _monotonic() - t0)
        try:
            return await fn()
        except Exception as e:
            exc = e


def _fleet_sync(fn: Callable[[], T], opts: _Options) -> T:
    """The loop with a fleet: ask before every call, wait out pauses and open circuits, report
    the success. Elapsed time counts from the first failure, as without a fleet."""
    retrier = opts.retrier()
    t0 = 0.0
    exc: Optional[Exception] = None
    last: Optional["_native.Decision"] = None
    while True:
        gate = retrier._before_attempt(0.0 if exc is None else _monotonic() - t0)
        if gate is not None:
            _emit_events(opts.on_event, gate.events, None, exc)
            if gate.reject and exc is not None and last is not None:
                raise _give_up(exc, last._stopped_at_gate())
            wait = gate.wait
            if wait is not None:
                if wait > 0:
                    time.sleep(wait)
                continue
        try:
            value = fn()
        except Exception as e:
            if exc is None:
                t0 = _monotonic()
            exc = e
        else:
            try:
                events = retrier._on_success()
            except Exception as err:  # the fleet's bookkeeping must not cost the caller a result
                _broken(None, "the fleet", err)
                events = []
            if events:
                _emit_events(opts.on_event, events)
            return value
        last = _after_failure_sync(retrier, exc, opts, _monotonic() - t0)


async def _fleet_async(fn: Callable[[], Awaitable[T]], opts: _Options) -> T:
    retrier = opts.retrier()
    t0 = 0.0
    exc: Optional[Exception] = None
    last: Optional["_native.Decision"] = None
    while True:
        gate = retrier._before_attempt(0.0 if exc is None else _monotonic() - t0)
        if gate is not None:
            _emit_events(opts.on_event, gate.events, None, exc)
            if gate.reject and exc is not None and last is not None:
                raise _give_up(exc, last._stopped_at_gate())
            wait = gate.wait
            if wait is not None:
                if wait > 0:
                    await asyncio.sleep(wait)
                continue
        try:
            value = await fn()
        except Exception as e:
            if exc is None:
                t0 = _monotonic()
            exc = e
        else:
            try:
                events = retrier._on_success()
            except Exception as err:  # the fleet's bookkeeping must not cost the caller a result
                _broken(None, "the fleet", err)
                events = []
            if events:
                _emit_events(opts.on_event, events)
            return value
        last = await _after_failure_async(retrier, exc, opts, _monotonic() - t0)


_DOC_SYNC = """Call ``fn()`` and retry it as the engine decides; return its value or re-raise.

    With no ``policy``, ``max_retries`` or ``delay``, the ``"default"`` preset decides (CONTRACT §6):
    a 429's retry-after is honoured, a permanent error costs one call. ``max_retries`` and/or
    ``delay`` alone mean SwarmSDK's ``call_llm_with_retry(max_retries: 3, delay: 15)`` with those
    values: ``max_retries`` counts every call, a fixed ``delay`` in seconds. ``policy`` may be a preset
    name, a configuration dict or a :class:`RetryPolicy` (then without ``max_retries`` /
    ``delay``: a policy carries its own).

    - ``on_event(dict)`` receives each event (``llm_retry_attempt``, ``llm_retry_exhausted``,
      ``llm_request_failed``, ``orphan_tool_calls_pruned``, ...), ``type`` first.
    - ``messages``: the history the next call sends. On a tool-pairing 400 it is pruned in place
      once (a free retry), and ``on_orphans(PruneResult)`` is called so that you can add
      ``result.reminder`` to the next prompt. Without ``messages``, ``on_orphans(None)`` must
      prune your history itself and return how many calls it removed.
    - ``on_context_overflow()``: compacts the history after a context overflow, returns whether it
      changed anything (offered once, when the policy allows it).
    - ``seed``: fixes the jitter (tests).
    - ``fleet``, ``key``: share a :class:`Fleet`'s retry budget, circuit breaker and pauses
      with every other call of ``key`` (the provider and model, e.g. ``"openai:gpt-4o"``):
      a shared pause or an open circuit is waited out before a call (through ``time.sleep``),
      a retry the budget cannot pay for gives up, and the fleet's events (``circuit_opened``,
      ``circuit_closed``, ``retry_budget_exhausted``, ``rate_limit_pause``,
      ``fleet_backend_degraded``, ``fleet_backend_recovered``) go to ``on_event`` too.

    A permanent failure or exhaustion re-raises the original exception with the classification
    attached (``exc.retry_classification``, ``exc.retry_decision``, and a note on 3.11+).
    Cancellation (``KeyboardInterrupt``, ``PipelineStopRequested``, ...) is re-raised untouched.

    The keyword arguments are checked and the policy resolved before the first call (a bad
    keyword or a misspelt preset raises at once, ``fn`` uncalled); the engine's retrier is
    created on the first failure, and a policy's deadline counts from that failure. Nothing
    that goes wrong inside retry-core while it handles your exception (reading it, a hook that
    raises) is ever raised in its place: it is attached to your exception
    (``exc.retry_core_errors``, and a note on 3.11+).

    >>> from retry_core import call_llm_with_retry
    >>> call_llm_with_retry(lambda: "ok", max_retries=5)
    'ok'
    """

_DOC_ASYNC = """The asyncio twin of :func:`call_llm_with_retry`: ``fn()`` returns an awaitable, waits go
    through ``asyncio.sleep`` (cancelling the task cancels the wait at once), and the hooks may
    be plain functions or coroutines. Same policy, same decisions."""


if TYPE_CHECKING:

    def call_llm_with_retry(
        fn: Callable[[], T],
        *,
        max_retries: Optional[int] = None,
        delay: Optional[float] = None,
        policy: Optional[PolicyLike] = None,
        on_event: Optional[EventHook] = None,
        messages: Optional[MutableSequence[Any]] = None,
        on_orphans: Optional[OrphanHook] = None,
        on_context_overflow: Optional[CompactHook] = None,
        seed: Optional[int] = None,
        fleet: Optional[Fleet] = None,
        key: Optional[str] = None,
    ) -> T: ...

    async def acall_llm_with_retry(
        fn: Callable[[], Awaitable[T]],
        *,
        max_retries: Optional[int] = None,
        delay: Optional[float] = None,
        policy: Optional[PolicyLike] = None,
        on_event: Optional[EventHook] = None,
        messages: Optional[MutableSequence[Any]] = None,
        on_orphans: Optional[OrphanHook] = None,
        on_context_overflow: Optional[CompactHook] = None,
        seed: Optional[int] = None,
        fleet: Optional[Fleet] = None,
        key: Optional[str] = None,
    ) -> T: ...

else:
    # `**options` rather than ten keyword-only parameters: filling keyword-only defaults costs
    # more than the whole rest of the success path. The signature above is what users and type
    # checkers see (`__signature__` below).

    def call_llm_with_retry(fn, **options):
        if options:
            if options.get("fleet") is not None:
                return _fleet_sync(fn, _Options("call_llm_with_retry", options))
            _check_options("call_llm_with_retry", options)
        try:
            return fn()
        except Exception as e:
            exc = e
        # Outside the except block: later attempts' exceptions must not chain to this one.
        return _retry_sync(fn, exc, _Options("call_llm_with_retry", options) if options else _DEFAULTS)

    async def acall_llm_with_retry(fn, **options):
        if options:
            if options.get("fleet") is not None:
                return await _fleet_async(fn, _Options("acall_llm_with_retry", options))
            _check_options("acall_llm_with_retry", options)
        try:
            return await fn()
        except Exception as e:
            exc = e
        return await _retry_async(fn, exc, _Options("acall_llm_with_retry", options) if options else _DEFAULTS)

    def _signature(async_: bool) -> inspect.Signature:
        P = inspect.Parameter
        kw = P.KEYWORD_ONLY
        return inspect.Signature([
            P("fn", P.POSITIONAL_OR_KEYWORD, annotation="Callable[[], Awaitable[T]]" if async_ else "Callable[[], T]"),
            P("max_retries", kw, default=None, annotation="Optional[int]"),
            P("delay", kw, default=None, annotation="Optional[float]"),
            P("policy", kw, default=None, annotation="Optional[PolicyLike]"),
            P("on_event", kw, default=None, annotation="Optional[EventHook]"),
            P("messages", kw, default=None, annotation="Optional[MutableSequence[Any]]"),
            P("on_orphans", kw, default=None, annotation="Optional[OrphanHook]"),
            P("on_context_overflow", kw, default=None, annotation="Optional[CompactHook]"),
            P("seed", kw, default=None, annotation="Optional[int]"),
            P("fleet", kw, default=None, annotation="Optional[Fleet]"),
            P("key", kw, default=None, annotation="Optional[str]"),
        ], return_annotation="T")

    call_llm_with_retry.__doc__ = _DOC_SYNC
    call_llm_with_retry.__signature__ = _signature(False)
    acall_llm_with_retry.__doc__ = _DOC_ASYNC
    acall_llm_with_retry.__signature__ = _signature(True)
