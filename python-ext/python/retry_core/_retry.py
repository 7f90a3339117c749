"""The retry loops. The engine (Rust) decides; these loops call, wait and call again.

Waits go through ``time.sleep`` and ``asyncio.sleep``, looked up on their modules at each wait,
so Ctrl-C interrupts a sync wait at once (``time.sleep`` releases the GIL and wakes on
signals), task cancellation interrupts an async one, and tests can patch either.

The success path does nothing but call ``fn()``: the policy is resolved and the native retrier
created only when a call has failed.
"""

from __future__ import annotations

import asyncio
import inspect
import logging
import time
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Dict, MutableSequence, Optional, TypeVar, Union

from . import _native
from ._failure import Failure, record_of
from ._orphan import PruneResult, prune_in_place
from ._policy import PolicyLike, resolve_policy

__all__ = ["Retrier", "call_llm_with_retry", "acall_llm_with_retry"]

T = TypeVar("T")
logger = logging.getLogger("retry_core")

EventHook = Callable[[Dict[str, Any]], Any]
OrphanHook = Callable[[Optional[PruneResult]], Any]
CompactHook = Callable[[], Any]

Decision = _native.Decision

_monotonic = time.monotonic


class Retrier:
    """The engine's state machine for one logical call, for loops of your own.

    Feed it each failure; it answers with a :class:`Decision`: ``retry`` after ``delay``
    seconds, ``recover_orphans`` / ``recover_context`` (then report with
    :meth:`on_orphans_pruned` / :meth:`on_context_compacted`), ``give_up``, or ``reraise``.
    It never sleeps. ``seed`` fixes the jitter (tests, shared vectors).

    >>> from retry_core import Retrier, Failure
    >>> r = Retrier("forgeflare")
    >>> r.on_failure(Failure(status=503, message="busy")).delay
    2.0
    """

    __slots__ = ("_inner",)

    def __init__(self, policy: Optional[PolicyLike] = None, *, seed: Optional[int] = None,
                 context_hook: bool = False) -> None:
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64):
            raise ValueError(f"seed must be an int in [0, 2**64), got {seed!r}")
        self._inner = _native.Retrier(resolve_policy("default" if policy is None else policy), seed,
                                       bool(context_hook))

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


def _emit(on_event: Optional[EventHook], decision: "_native.Decision") -> None:
    events = decision.events
    for event in events:
        if on_event is not None:
            on_event(event)
        kind = event["type"]
        if kind == "llm_retry_attempt":
            logger.info("retry-core: %s (%s), attempt %s/%s failed; retrying in %ss",
                        event.get("category"), event.get("error_class"), event.get("attempt"),
                        event.get("max_retries"), event.get("retry_delay"))
        elif kind in ("llm_retry_exhausted", "llm_request_failed"):
            logger.warning("retry-core: %s", decision.note)


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


_OPTIONS = ("max_retries", "delay", "policy", "on_event", "messages", "on_orphans", "on_context_overflow", "seed")
_DEFAULTS: Dict[str, Any] = {"max_retries": 3, "delay": 15.0}


class _Options:
    """The keyword arguments of a call, checked on its first failure."""

    __slots__ = _OPTIONS

    def __init__(self, name: str, options: Dict[str, Any]) -> None:
        for key in options:
            if key not in _OPTIONS:
                raise TypeError(f"{name}() got an unexpected keyword argument {key!r}")
        if options.get("policy") is not None and ("max_retries" in options or "delay" in options):
            raise TypeError(f"{name}() takes max_retries / delay or a policy, not both "
                            "(put them in the policy: {'max_retries': ..., 'backoff': ...})")
        for key in _OPTIONS:
            setattr(self, key, options.get(key, _DEFAULTS.get(key)))
        for key in ("on_event", "on_orphans", "on_context_overflow"):
            hook = getattr(self, key)
            if hook is not None and not callable(hook):
                raise TypeError(f"{key} must be callable, not {type(hook).__name__}")

    max_retries: Any
    delay: Any
    policy: Optional[PolicyLike]
    on_event: Optional[EventHook]
    messages: Optional[MutableSequence[Any]]
    on_orphans: Optional[OrphanHook]
    on_context_overflow: Optional[CompactHook]
    seed: Optional[int]

    def retrier(self) -> "_native.Retrier":
        seed = self.seed
        if seed is not None and (not isinstance(seed, int) or isinstance(seed, bool) or not 0 <= seed < 2**64):
            raise ValueError(f"seed must be an int in [0, 2**64), got {seed!r}")
        policy = resolve_policy(self.policy, self.max_retries, self.delay)
        return _native.Retrier(policy, seed, self.on_context_overflow is not None)


def _retry_sync(fn: Callable[[], T], exc: Exception, opts: _Options) -> T:
    # The first call failed. Elapsed time (for a policy's deadline) counts from here: reading a
    # clock before the first call would cost the success path.
    t0 = _monotonic()
    retrier = opts.retrier()
    while True:
        record = record_of(exc)
        elapsed = _monotonic() - t0
        decision = retrier._on_failure(record, elapsed)
        while True:
            _emit(opts.on_event, decision)
            action = decision.action
            if action == "retry":
                wait = decision.delay
                if wait:
                    time.sleep(wait)
                break
            if action == "recover_orphans":
                ret, n = _prune(opts.messages, opts.on_orphans)
                if n is None:
                    n = _count(ret)
                decision = retrier._on_orphans_pruned(n, record, elapsed)
                continue
            if action == "recover_context":
                hook = opts.on_context_overflow
                compacted = bool(hook()) if hook is not None else False
                decision = retrier._on_context_compacted(compacted, record, elapsed)
                continue
            if action == "reraise":
                raise exc
            raise _give_up(exc, decision)
        try:
            return fn()
        except Exception as e:
            exc = e


async def _retry_async(fn: Callable[[], Awaitable[T]], exc: Exception, opts: _Options) -> T:
    t0 = _monotonic()
    retrier = opts.retrier()
    while True:
        record = record_of(exc)
        elapsed = _monotonic() - t0
        decision = retrier._on_failure(record, elapsed)
        while True:
            _emit(opts.on_event, decision)
            action = decision.action
            if action == "retry":
                wait = decision.delay
                if wait:
                    await asyncio.sleep(wait)
                break
            if action == "recover_orphans":
                ret, n = _prune(opts.messages, opts.on_orphans)
                if inspect.isawaitable(ret):
                    ret = await ret
                if n is None:
                    n = _count(ret)
                decision = retrier._on_orphans_pruned(n, record, elapsed)
                continue
            if action == "recover_context":
                compacted: Any = False
                hook = opts.on_context_overflow
                if hook is not None:
                    compacted = hook()
                    if inspect.isawaitable(compacted):
                        compacted = await compacted
                decision = retrier._on_context_compacted(bool(compacted), record, elapsed)
                continue
            if action == "reraise":
                raise exc
            raise _give_up(exc, decision)
        try:
            return await fn()
        except Exception as e:
            exc = e


_DOC_SYNC = """Call ``fn()`` and retry it as the engine decides; return its value or re-raise.

    Without ``policy`` this is SwarmSDK's ``call_llm_with_retry(max_retries: 3, delay: 15)``:
    ``max_retries`` counts every call, a fixed ``delay`` in seconds. ``policy`` may be a preset
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

    A permanent failure or exhaustion re-raises the original exception with the classification
    attached (``exc.retry_classification``, ``exc.retry_decision``, and a note on 3.11+).
    Cancellation (``KeyboardInterrupt``, ``PipelineStopRequested``, ...) is re-raised untouched.

    The success path only calls ``fn()``: the keyword arguments are checked, the policy resolved
    and the engine's retrier created on the first failure, and a policy's deadline counts from
    that failure.

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
        max_retries: int = 3,
        delay: float = 15.0,
        policy: Optional[PolicyLike] = None,
        on_event: Optional[EventHook] = None,
        messages: Optional[MutableSequence[Any]] = None,
        on_orphans: Optional[OrphanHook] = None,
        on_context_overflow: Optional[CompactHook] = None,
        seed: Optional[int] = None,
    ) -> T: ...

    async def acall_llm_with_retry(
        fn: Callable[[], Awaitable[T]],
        *,
        max_retries: int = 3,
        delay: float = 15.0,
        policy: Optional[PolicyLike] = None,
        on_event: Optional[EventHook] = None,
        messages: Optional[MutableSequence[Any]] = None,
        on_orphans: Optional[OrphanHook] = None,
        on_context_overflow: Optional[CompactHook] = None,
        seed: Optional[int] = None,
    ) -> T: ...

else:
    # `**options` rather than eight keyword-only parameters: filling keyword-only defaults costs
    # more than the whole rest of the success path. The signature above is what users and type
    # checkers see (`__signature__` below).

    def call_llm_with_retry(fn, **options):
        try:
            return fn()
        except Exception as e:
            exc = e
        # Outside the except block: later attempts' exceptions must not chain to this one.
        return _retry_sync(fn, exc, _Options("call_llm_with_retry", options))

    async def acall_llm_with_retry(fn, **options):
        try:
            return await fn()
        except Exception as e:
            exc = e
        return await _retry_async(fn, exc, _Options("acall_llm_with_retry", options))

    def _signature(async_: bool) -> inspect.Signature:
        P = inspect.Parameter
        kw = P.KEYWORD_ONLY
        return inspect.Signature([
            P("fn", P.POSITIONAL_OR_KEYWORD, annotation="Callable[[], Awaitable[T]]" if async_ else "Callable[[], T]"),
            P("max_retries", kw, default=3, annotation="int"),
            P("delay", kw, default=15.0, annotation="float"),
            P("policy", kw, default=None, annotation="Optional[PolicyLike]"),
            P("on_event", kw, default=None, annotation="Optional[EventHook]"),
            P("messages", kw, default=None, annotation="Optional[MutableSequence[Any]]"),
            P("on_orphans", kw, default=None, annotation="Optional[OrphanHook]"),
            P("on_context_overflow", kw, default=None, annotation="Optional[CompactHook]"),
            P("seed", kw, default=None, annotation="Optional[int]"),
        ], return_annotation="T")

    call_llm_with_retry.__doc__ = _DOC_SYNC
    call_llm_with_retry.__signature__ = _signature(False)
    acall_llm_with_retry.__doc__ = _DOC_ASYNC
    acall_llm_with_retry.__signature__ = _signature(True)
