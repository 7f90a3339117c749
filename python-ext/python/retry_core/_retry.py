"""The retry loops. The engine (Rust) decides; these loops call, wait and call again: each is
a short interpreter of the engine's run (``_native.Run``, core/src/run.rs), the same step
machine every front door runs.

Waits go through ``time.sleep`` and ``asyncio.sleep``, looked up on their modules at each wait,
so Ctrl-C interrupts a sync wait at once (``time.sleep`` releases the GIL and wakes on
signals) and task cancellation interrupts an async one. Under the testing switch
(``retry_core.testing()``) a wait is a step of the core's virtual clock instead, which the
fleets read too; a patched sleep beside a fleet on the real clock stalls, and the core says so.

The success path does little but call ``fn()``: the keyword arguments are checked before it (a
bad option fails before the first call, never in place of the user's error), and the run is
built only when a call has failed. With a fleet (``fleet=``, ``key=``), a key with no pause and
a closed circuit is called at once and its success recorded; a paused key, an open circuit or a
remote fleet take the whole run, which asks the fleet's gate before every call.
"""

from __future__ import annotations

import asyncio
import inspect
import json
import logging
import time
from collections.abc import Mapping, MutableSequence
from typing import TYPE_CHECKING, Any, Awaitable, Callable, Coroutine, Dict, List, Optional, Tuple, TypedDict, TypeVar, Union

from . import _native
from ._errors import InternalError, InvalidStateError
from ._failure import _utf8, record_of
from ._fleet import Fleet
from ._orphan import PruneResult, prune_in_place
from .observability import record as _span_event
from ._policy import PolicyLike, policy_for_call, resolve_policy

if TYPE_CHECKING:
    from typing_extensions import Unpack

__all__ = ["call_llm_with_retry", "acall_llm_with_retry"]

T = TypeVar("T")
logger = logging.getLogger("retry_core")

EventHook = Callable[[Dict[str, Any]], Any]
OrphanHook = Callable[[Optional[PruneResult]], Any]
CompactHook = Callable[[], Any]
ProgressHook = Callable[[Dict[str, Any]], Any]
#: An attempt's cost for a fleet's admission: its tokens, or ``{"messages": [...], "max_tokens": n}``.
Estimate = Union[int, Mapping[str, Any]]


def _monotonic() -> float:
    """``time.monotonic()``, or the testing switch's virtual clock while it is on."""
    now = _native._testing_now()
    return time.monotonic() if now is None else now


def _emit(on_event: Optional[EventHook], pending: Any, exc: Optional[BaseException] = None) -> None:
    """Each new event of the run to ``on_event``, and its one log line (the core's text, at the
    core's level) to the ``retry_core`` logger. ``pending``: ``(event, level, line)`` triples.
    A hook or a logging handler that raises must not replace the user's result or error: its
    failure is logged and noted on the user's exception (if there is one); the call goes on.
    Only Exception is caught: a KeyboardInterrupt in a hook propagates."""
    for event, level, line in pending:
        try:
            _span_event(event)
        except Exception as err:
            _broken(exc, "OpenTelemetry", err)
        if on_event is not None:
            try:
                on_event(event)
            except Exception as err:
                _broken(exc, "the on_event hook", err)
        if line is not None:
            try:
                logger.log(level, "%s", line)
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


def _give_up(exc: BaseException, run: "_native.Run") -> BaseException:
    """The original exception, with the engine's verdict attached: an attribute always, the
    core's note where the interpreter shows notes (3.11+)."""
    try:
        decision = run.decision
        note = run.note
    except Exception as err:
        _broken(exc, "retry-core's engine", err)
        return exc
    if decision is None:
        return exc
    try:
        exc.retry_classification = decision.classification  # type: ignore[attr-defined]
        exc.retry_decision = decision  # type: ignore[attr-defined]
    except Exception:
        pass
    add_note = getattr(exc, "add_note", None)
    if add_note is not None and note is not None:
        try:
            add_note(note)
        except Exception:
            pass
    return exc


def _prune(messages: Optional[MutableSequence[Any]], on_orphans: Optional[OrphanHook]) -> Tuple[Any, Optional[int]]:
    """Runs the orphan hooks; returns what the caller's hook returned (maybe awaitable) and the
    number of items pruned from ``messages`` (None without ``messages``: the hook's answer
    counts)."""
    if messages is not None:
        result = prune_in_place(messages)
        if on_orphans is not None:
            return on_orphans(result), result.changed
        return None, result.changed
    if on_orphans is not None:
        return on_orphans(None), None
    return None, 0


class _CallOptions(TypedDict, total=False):
    """The keyword options of :func:`call_llm_with_retry` and :func:`acall_llm_with_retry`, declared
    once: type checkers read them here (``**options: Unpack[_CallOptions]``), and so do ``help()``
    and ``inspect.signature`` (``__signature__``) and the unknown-keyword check. :class:`_Options`
    holds them checked, with their defaults (``tests/python/test_retry.py`` checks they agree)."""

    max_retries: Optional[int]
    delay: Optional[float]
    policy: Optional[PolicyLike]
    on_event: Optional[EventHook]
    messages: Optional[MutableSequence[Any]]
    on_orphans: Optional[OrphanHook]
    on_context_overflow: Optional[CompactHook]
    seed: Optional[int]
    fleet: Optional[Fleet]
    key: Optional[str]
    on_progress: Optional[ProgressHook]
    estimate: Optional[Estimate]


_OPTION_SET = frozenset(_CallOptions.__annotations__)
#: The options whose checks a call with only ``fleet``, ``key``, ``estimate`` and ``on_event`` skips.
_RARE_OPTIONS = _OPTION_SET - {"fleet", "key", "estimate", "on_event"}


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
    on_progress: Optional[ProgressHook] = None
    estimate: Any = None
    #: The estimate as the core computed it, ``(input_tokens, output_tokens)``.
    _cost: Optional[Tuple[float, float]] = None
    native: "_native.RetryPolicy"

    def __init__(self, name: str, options: Mapping[str, object]) -> None:
        if not _OPTION_SET.issuperset(options):
            for option in options:
                if option not in _OPTION_SET:
                    raise TypeError(f"{name}() got an unexpected keyword argument {option!r}")
        self.__dict__.update(options)
        # The options a call with a fleet, a key, an estimate and a hook does without are looked
        # for once (a set's `isdisjoint`), not one by one; the checks keep their order.
        rare = not _RARE_OPTIONS.isdisjoint(options)
        on_event = self.on_event
        if on_event is not None and not callable(on_event):
            _hook("on_event", on_event)
        if rare:
            if "on_orphans" in options:
                _hook("on_orphans", self.on_orphans)
            if "on_context_overflow" in options:
                _hook("on_context_overflow", self.on_context_overflow)
            if "on_progress" in options:
                _hook("on_progress", self.on_progress)
        fleet = self.fleet
        key = self.key
        if (fleet is not None or key is not None) and not (type(fleet) is Fleet and type(key) is str and key):
            _check_fleet(fleet, key)
        if rare:
            messages = self.messages
            if messages is not None and (isinstance(messages, (str, bytes)) or not isinstance(messages, MutableSequence)):
                raise TypeError(f"messages must be a list of messages (pruned in place), not {type(messages).__name__}")
            if self.seed is not None:
                _check_seed(self.seed)
        estimate = self.estimate
        if estimate is not None:
            # One native call on the success path; without a fleet, the error.
            self._cost = fleet._inner._cost(estimate) if fleet is not None else _estimate_cost(estimate, fleet)
        # Which policy the call gets is the core's rule (CONTRACT §6); misspelt preset names,
        # bad configurations and both forms at once fail here, before the first call. Given
        # none of the three, the call gets the class's (the core's answer for nothing given).
        if rare and ("policy" in options or "max_retries" in options or "delay" in options):
            self.native = policy_for_call(self.policy, self.max_retries, self.delay)

    def run(self, slot: Any = None) -> "_native.Run":
        """The engine's run for this call; its deadline's clock starts now. ``slot``: the admission
        slot the first attempt went on (``Fleet._admits_freely_with``), when it failed."""
        cfg: Dict[str, Any] = {}
        if self.seed is not None:
            cfg["seed"] = self.seed
        if self.on_context_overflow is not None:
            cfg["context_hook"] = True
        config = json.dumps(cfg) if cfg else None
        if self.fleet is None or self.key is None:
            return _native.Run(self.native, config)
        if slot is None or slot is True:
            return _native.Run(self.native, config, self.fleet._inner, [self.key], self._cost)
        return _native.Run(self.native, config, self.fleet._inner, [self.key], self._cost, slot)


def _estimate_cost(estimate: Any, fleet: Optional[Fleet]) -> Tuple[float, float]:
    """``estimate=`` checked and handed to the core, which computes the attempt's cost (core
    ``Fleet::estimate``: the request's bytes and its ``max_tokens``), in one native call
    (``python-ext/src/estimate.rs``). Raises before the first call."""
    if fleet is None:
        raise TypeError("estimate= needs fleet= (a retry_core.Fleet with admission on)")
    return fleet._inner._cost(estimate)


def _answer(value: Any) -> Tuple[Any, Optional[List[Tuple[str, str]]]]:
    """What the core reads an answer's usage and headers from: for a raw response (openai's and
    anthropic's ``with_raw_response``, an ``httpx.Response``) its body text and headers; else the
    answer's ``usage`` object or mapping (``value.usage``, ``value["usage"]``), whose fields the
    core reads by name (``fleet.rs``: ``usage_of``), and no headers."""
    try:
        if type(value) is dict or isinstance(value, Mapping):  # a dict first: isinstance(ABC) costs
            return value.get("usage"), None
        headers = _raw_headers(value)
        if headers is not None:
            text = getattr(value, "text", None)
            return (text if isinstance(text, str) else None), headers
        return getattr(value, "usage", None), None
    except Exception:  # an answer we cannot read settles as spent, never costs the caller it
        return None, None


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


_Options.native = policy_for_call(None, None, None)

#: The options of a call given none (never modified: a call only reads its options).
_DEFAULTS = _Options("call_llm_with_retry", {})


# The user's error always wins: whatever fails inside retry-core while an exception is handled
# (reading it, a hook, the history given as `messages=`) is noted on that exception
# (`_broken`), never raised in its place. A recovery whose hook failed counts as one that changed
# nothing, so the engine gives up with the original error. Each `raise exc` stands outside any
# `except` block: raising there would overwrite the user's own `__context__`. Only Exception is
# caught: a KeyboardInterrupt anywhere propagates at once.
#
# The loops below only interpret the engine's run (`_native.Run`, core/src/run.rs): one native
# call per step, which returns the next step and the new events with their log lines.

_RERAISE = ("reraise",)


def _step(exc: Optional[BaseException], opts: Any, method: Callable[..., Any], *args: Any) -> Any:
    """One step of the run: its events sent to ``on_event`` and logged; returns the next step.
    When asking the engine fails, that is noted on ``exc`` and ``exc`` is re-raised."""
    try:
        step, pending = method(*args)
    except Exception as err:
        if exc is None:
            raise
        _broken(exc, "retry-core's engine", err)
        return _RERAISE
    if pending:
        _emit(opts.on_event, pending, exc)
    return step


def _raw_headers(value: Any) -> Optional[List[Tuple[str, str]]]:
    """The headers of a raw response (openai's and anthropic's ``with_raw_response``, an
    ``httpx.Response``): what the ``headers`` admission mode learns from. None for anything else."""
    try:
        if isinstance(value, Mapping):
            return None
        headers = getattr(value, "headers", None)
        items = getattr(headers, "items", None)
        if not callable(items):
            return None
        return [(k, v) for k, v in items() if isinstance(k, str) and isinstance(v, str)]
    except Exception:  # an answer we cannot read teaches nothing, never costs the caller it
        return None


def _succeeded(run: "_native.Run", opts: Any, t0: float, value: Any) -> None:
    """The run told of the success; with a fleet's admission on, of the usage ``value`` reports
    and, for a raw response, its headers."""
    fleet = opts.fleet
    usage = headers = None
    if fleet is not None and fleet._inner._admission:
        usage, headers = _answer(value)
    try:
        _, pending = run._succeeded(_elapsed(t0), usage, headers)
    except Exception as err:  # the fleet's bookkeeping must not cost the caller a result
        _broken(None, "the fleet", err)
        return
    if pending:
        _emit(opts.on_event, pending)


def _fleet_succeeded(opts: Any, slot: Any, value: Any) -> None:
    """The success path's bookkeeping with a fleet: metrics, budget and breaker told; with
    admission on, the call's ``slot`` settled against the usage ``value`` reports."""
    try:
        if slot is True:
            pending = opts.fleet._inner._succeeded(opts.key)
        else:
            usage, headers = _answer(value)
            pending = opts.fleet._inner._succeeded_with(opts.key, slot, usage, headers)
    except Exception as err:  # the fleet's bookkeeping must not cost the caller a result
        _broken(None, "the fleet", err)
        return
    if pending:
        _emit(opts.on_event, pending)


def _elapsed(t0: float) -> float:
    return max(_monotonic() - t0, 0.0)


def _stalled(exc: Optional[BaseException]) -> BaseException:
    """A patched sleep beside a fleet on the real clock (step ``stalled``): the misuse error
    naming the testing switch, the user's last error (if a call failed) as its cause."""
    stalled = InvalidStateError(_native._stalled_message())
    stalled.__cause__ = exc
    stalled.__suppress_context__ = True
    return stalled


def _end(exc: Optional[BaseException], run: "_native.Run", kind: str) -> BaseException:
    """The exception to raise when the run ends with ``give_up`` or ``reraise``."""
    if kind == "stalled":
        return _stalled(exc)
    if exc is None:
        return InternalError(f"retry-core: the run ended ({kind}) before any call failed")
    return _give_up(exc, run) if kind == "give_up" else exc


# One interpreter, two hosts. `_run` and the steps it takes are coroutines over a host: the
# async host awaits the user's function, `asyncio.sleep` and awaitable hooks; the sync host calls
# them plainly, so its coroutines never suspend and `_drive` runs one to its end in one step.


class _SyncHost:
    """Plain calls, ``time.sleep`` (looked up at each wait: Ctrl-C interrupts it at once, tests
    patch it), and a hook's return value taken as it is."""

    @staticmethod
    async def call(fn: Callable[[], Any]) -> Tuple[bool, Any]:
        # The error is returned, not raised: a StopIteration leaving a coroutine would become
        # a RuntimeError, and the user's own exception must stay itself.
        try:
            return True, fn()
        except Exception as e:
            return False, e

    @staticmethod
    async def sleep(seconds: float) -> None:
        if not _native._testing_sleep(seconds):
            time.sleep(seconds)

    @staticmethod
    async def settle(ret: Any) -> Any:
        return ret


class _AsyncHost:
    """Awaits: the user's coroutine, ``asyncio.sleep`` (a cancelled task stops at once), and
    hooks that return awaitables."""

    @staticmethod
    async def call(fn: Callable[[], Any]) -> Tuple[bool, Any]:
        try:
            return True, await fn()
        except Exception as e:
            return False, e

    @staticmethod
    async def sleep(seconds: float) -> None:
        if _native._testing_sleep(seconds):
            await asyncio.sleep(0)  # virtual time: the other tasks still get their turn
        else:
            await asyncio.sleep(seconds)

    @staticmethod
    async def settle(ret: Any) -> Any:
        return (await ret) if inspect.isawaitable(ret) else ret


_Host = Union[_SyncHost, _AsyncHost]
_SYNC = _SyncHost()
_ASYNC = _AsyncHost()


def _drive(coro: Coroutine[Any, Any, T]) -> T:
    """Runs a coroutine of the sync host to its end: nothing in it suspends."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise InternalError("retry-core: a blocking run suspended (please report)")


async def _pruned(host: _Host, exc: BaseException, opts: Any) -> int:
    try:
        ret, changed = _prune(opts.messages, opts.on_orphans)
        ret = await host.settle(ret)
        if changed is not None:
            return changed
        if isinstance(ret, int):  # an int or a truth: the core reads it (run::HookAnswer)
            return ret
        return bool(ret)
    except Exception as err:
        _broken(exc, "pruning orphan tool calls", err)
        return 0


async def _compacted(host: _Host, exc: BaseException, opts: Any) -> bool:
    hook = opts.on_context_overflow
    try:
        return bool(await host.settle(hook())) if hook is not None else False
    except Exception as err:
        _broken(exc, "the on_context_overflow hook", err)
        return False


#: Waits longer than this are slept in slices of at most this long when a progress hook is given.
_PROGRESS_SLICE = 1.0


async def _wait(host: _Host, seconds: float, reason: str, hook: Optional[ProgressHook],
                exc: Optional[BaseException], model: Optional[str] = None) -> None:
    """One sleep, or with a progress hook and a wait over a second, slices of a second with
    ``hook({"remaining", "seconds", "reason", "model"})`` after each. A hook that raises is
    noted and not called again."""
    if seconds <= _PROGRESS_SLICE:
        hook = None
    left = seconds
    while left > 0:
        piece = min(_PROGRESS_SLICE, left) if hook is not None else left
        await host.sleep(piece)
        left = max(left - piece, 0.0)
        if hook is not None:
            try:
                await host.settle(hook({"remaining": left, "seconds": seconds, "reason": reason, "model": model}))
            except Exception as err:
                _broken(exc, "the on_progress hook", err)
                hook = None


def _wait_sync(seconds: float, reason: str, hook: Optional[ProgressHook], exc: Optional[BaseException],
               model: Optional[str] = None) -> None:
    _drive(_wait(_SYNC, seconds, reason, hook, exc, model))


async def _run(host: _Host, fn: Callable[[], Any], opts: _Options, exc: Optional[Exception],
               slot: Any = None) -> Tuple[bool, Any]:
    """Interprets the engine's run. ``exc``: the first call's error (without a fleet the run is
    built only then), or None (with a fleet: the run asks the fleet before the first call);
    ``slot``: the admission slot that first call went on. Returns ``(True, value)``, or
    ``(False, the exception to raise)``: the caller raises it, outside any coroutine and any
    ``except`` block."""
    run = opts.run(slot)
    t0 = _monotonic()
    try:
        if exc is None:
            step = _step(None, opts, run._start, 0.0)
        else:
            step = _step(exc, opts, run._failed, _record(exc), 0.0)
        while True:
            kind = step[0]
            if kind == "call":
                ok, out = await host.call(fn)
                if ok:
                    _succeeded(run, opts, t0, out)
                    return True, out
                exc = out
                step = _step(exc, opts, run._failed, _record(out), _elapsed(t0))
            elif kind == "wait":
                await _wait(host, step[1], step[2], opts.on_progress, exc)
                step = _step(exc, opts, run._resume, _elapsed(t0))
            elif kind == "skip":
                step = _step(exc, opts, run._resume, _elapsed(t0))
            elif kind == "prune_orphans":
                assert exc is not None
                step = _step(exc, opts, run._pruned, await _pruned(host, exc, opts), _elapsed(t0))
            elif kind == "compact_context":
                assert exc is not None
                step = _step(exc, opts, run._compacted, await _compacted(host, exc, opts), _elapsed(t0))
            else:
                return False, _end(exc, run, kind)
    finally:
        # Ended by an exception the loop does not handle (KeyboardInterrupt, a cancelled task):
        # a half-open probe's slot is freed now, not when the caller drops the exception.
        run._abandon()


def _run_sync(fn: Callable[[], T], opts: _Options, exc: Optional[Exception], slot: Any = None) -> T:
    ok, out = _drive(_run(_SYNC, fn, opts, exc, slot))
    if ok:
        return out  # type: ignore[no-any-return]
    raise out


async def _run_async(fn: Callable[[], Awaitable[T]], opts: _Options, exc: Optional[Exception],
                     slot: Any = None) -> T:
    ok, out = await _run(_ASYNC, fn, opts, exc, slot)
    if ok:
        return out  # type: ignore[no-any-return]
    raise out


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
    - ``on_progress(dict)``: during a wait longer than a second, called after each second
      slept with ``{"remaining": s, "seconds": total, "reason": ..., "model": None}`` (``reason``:
      ``backoff``, ``retry_after``, ``fleet_pause``, ``circuit_open`` or ``admission``); without it a wait is
      one sleep. A hook that raises is noted on the error and not called again for that wait.
    - ``fleet``, ``key``: share a :class:`Fleet`'s retry budget, circuit breaker and pauses
      with every other call of ``key`` (the provider and model, e.g. ``"openai:gpt-4o"``):
      a shared pause or an open circuit is waited out before a call (through ``time.sleep``),
      a retry the budget cannot pay for gives up, and the fleet's events (``circuit_opened``,
      ``circuit_closed``, ``retry_budget_exhausted``, ``rate_limit_pause``,
      ``fleet_backend_degraded``, ``fleet_backend_recovered``) go to ``on_event`` too. A wait
      for the fleet that would end past the policy's deadline gives up with the last error
      (reason ``circuit_open``, and an ``llm_retry_exhausted`` event).
    - ``estimate``: with a fleet whose admission is on (``Fleet(admission=...)``), what each
      attempt costs against the provider's limits: an int (tokens), or
      ``{"messages": [...], "max_tokens": n}`` (the messages' JSON size and ``max_tokens``,
      estimated by the core). Without it an attempt costs one request. Each attempt waits for
      its slot (reason ``admission``, an ``admission_wait`` event); after a success the usage
      the answer reports (``answer.usage`` as openai and anthropic return it, or
      ``answer["usage"]``) settles it; a raw response (``client.chat.completions.with_raw_response``)
      also gives its headers, which the ``"headers"`` mode learns the limits from. A bad estimate
      raises before the first call.
    - Every wait is announced to ``on_event`` by ``retry_wait_started`` (``seconds``, ``reason``,
      ``attempt``) and closed by ``retry_wait_finished``.

    A permanent failure or exhaustion re-raises the original exception with the classification
    attached (``exc.retry_classification``, ``exc.retry_decision``, and a note on 3.11+).
    Cancellation (``KeyboardInterrupt``, ``PipelineStopRequested``, ...) is re-raised untouched.

    The keyword arguments are checked and the policy resolved before the first call (a bad
    keyword or a misspelt preset raises at once, ``fn`` uncalled); the engine's run is
    created on the first failure, and a policy's deadline counts from that failure (with a
    fleet, from the first call).

    Each event is logged once, with the core's line, on the ``retry_core`` logger (retries and
    give-ups at WARNING), whether or not ``on_event`` is given. Nothing
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


# `**options` rather than eleven keyword-only parameters: filling keyword-only defaults costs
# more than the whole rest of the success path. `help()` and `inspect` see them as keyword-only
# parameters all the same (`__signature__` below).


# The success path checks the options (a bad keyword or preset raises before the first call),
# asks a fleet's gate whether the key is free and, with admission on, for a slot now
# (`Fleet::admits_freely_with`), calls, and tells the fleet (`Fleet::succeeded_with`).
# Only a failure, a paused key or a remote fleet builds the engine's run.


def call_llm_with_retry(fn: Callable[[], T], **options: Unpack[_CallOptions]) -> T:
    return _door(fn, _Options("call_llm_with_retry", options) if options else _DEFAULTS)


def _door(fn: Callable[[], T], opts: _Options) -> T:
    """The sync door after its options: also the httpx transport's, so the two cannot drift."""
    fleet = opts.fleet
    slot = None
    if fleet is not None:
        slot = fleet._inner._admits_freely_with(opts.key, opts._cost)  # type: ignore[arg-type]  # _Options: a fleet has a key
        if slot is None:
            return _run_sync(fn, opts, None)
    try:
        value = fn()
    except Exception as e:
        exc = e
    else:
        if fleet is not None:
            _fleet_succeeded(opts, slot, value)
        return value
    # Outside the except block: later attempts' exceptions must not chain to this one.
    return _run_sync(fn, opts, exc, slot)


async def acall_llm_with_retry(fn: Callable[[], Awaitable[T]], **options: Unpack[_CallOptions]) -> T:
    return await _adoor(fn, _Options("acall_llm_with_retry", options) if options else _DEFAULTS)


async def _adoor(fn: Callable[[], Awaitable[T]], opts: _Options) -> T:
    """The async door after its options (the async httpx transport's too)."""
    fleet = opts.fleet
    slot = None
    if fleet is not None:
        slot = fleet._inner._admits_freely_with(opts.key, opts._cost)  # type: ignore[arg-type]  # _Options: a fleet has a key
        if slot is None:
            return await _run_async(fn, opts, None)
    try:
        value = await fn()
    except Exception as e:
        exc = e
    else:
        if fleet is not None:
            _fleet_succeeded(opts, slot, value)
        return value
    return await _run_async(fn, opts, exc, slot)


def _signature(async_: bool) -> inspect.Signature:
    """The keyword-only signature ``help()`` shows, from :class:`_CallOptions`."""
    P = inspect.Parameter
    fn = "Callable[[], Awaitable[T]]" if async_ else "Callable[[], T]"
    return inspect.Signature(
        [P("fn", P.POSITIONAL_OR_KEYWORD, annotation=fn)]
        + [P(name, P.KEYWORD_ONLY, default=None, annotation=getattr(kind, "__forward_arg__", kind))
           for name, kind in _CallOptions.__annotations__.items()],
        return_annotation="T")


call_llm_with_retry.__doc__ = _DOC_SYNC
call_llm_with_retry.__signature__ = _signature(False)  # type: ignore[attr-defined]
acall_llm_with_retry.__doc__ = _DOC_ASYNC
acall_llm_with_retry.__signature__ = _signature(True)  # type: ignore[attr-defined]
