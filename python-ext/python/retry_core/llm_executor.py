"""A drop-in for PlanExe's ``worker_plan_internal.llm_util.llm_executor``.

Change one import::

    from retry_core.llm_executor import LLMExecutor, LLMModelFromName, PipelineStopRequested, ...

and keep everything else: the same classes and functions, the same constructor and ``run``
(fallback across models, ``should_stop_callback`` after every attempt, ``PipelineStopRequested``
passed through at once and never retried, ``create`` and ``execute`` stages, the final
"Failed to run. Exhausted all LLMs." exception with one line per attempt). What changes is who
decides: transient errors are recognised by the engine (status, provider error code, exception
class chain, and only last the text), not by substrings, so "max_tokens 1500" is not a 500 and
a 429 ``insufficient_quota`` moves on to the next model instead of being retried.

Also: ``max_validation_retries`` retries the same model when its output failed pydantic
validation, with ``executor.validation_feedback`` set to a short description of what was wrong,
for the caller to put into its next prompt. And ``fleet=`` shares a :class:`retry_core.Fleet`'s
budget, breaker and pauses per model with every other executor and call of the process.

``run`` interprets one run of the engine (``retry_core._native.Run``) over the models: the
engine decides retries, waits, validation retries and the fallback to the next model. Each
retry is logged in one WARNING line (the engine's, on the ``retry_core`` logger), and a model
that gives up in one ERROR line, without a traceback.

llama-index is optional. When it is installed, ``execute_function``'s parameter hint is checked
against llama-index's ``LLM`` class as PlanExe does, and each call runs inside its
``instrument_tags``; without it there is no ``LLM`` class to check against, so any hint passes.
"""

from __future__ import annotations

import contextlib
import inspect
import json
import logging
import time
import typing
from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Set, Tuple
from uuid import uuid4

from . import _native
from ._classify import is_transient_error
from ._config import RetryConfig
from ._failure import _utf8
from ._fleet import Fleet
from ._retry import _class_name, _emit, _monotonic, _record, _stalled, _wait_sync

__all__ = [
    "LLMExecutor",
    "LLMModelBase",
    "LLMModelFromName",
    "LLMModelWithInstance",
    "LLMAttempt",
    "ShouldStopCallbackParameters",
    "PipelineStopRequested",
    "RetryConfig",
    "is_transient_error",
    "extract_validation_feedback",
    "get_llm",
    "ModelUnavailable",
    "fleet_key_of",
]

logger = logging.getLogger(__name__)

_MISSING = object()
_llm_class_cache: Any = _MISSING


def _llm_class() -> Optional[type]:
    """llama-index's ``LLM`` class, or None when llama-index is not installed."""
    global _llm_class_cache
    if _llm_class_cache is _MISSING:
        try:
            from llama_index.core.llms.llm import LLM
        except ImportError:
            _llm_class_cache = None
        else:
            _llm_class_cache = LLM
    return typing.cast(Optional[type], _llm_class_cache)


_instrument_tags_cache: Any = _MISSING


def _instrument_tags(tags: Dict[str, Any]) -> Any:
    """llama-index's ``instrument_tags(tags)``, or a null context without llama-index. Looked up
    once: a failed import searches the path under the import lock on every call, and a
    ``fork()`` taken while another thread holds that lock leaves the child's imports stuck."""
    global _instrument_tags_cache
    if _instrument_tags_cache is _MISSING:
        try:
            from llama_index.core.instrumentation.dispatcher import instrument_tags
        except ImportError:
            _instrument_tags_cache = None
        else:
            _instrument_tags_cache = instrument_tags
    if _instrument_tags_cache is None:
        return contextlib.nullcontext()
    return _instrument_tags_cache(tags)


def get_llm(name: str) -> Any:
    """Create the LLM named ``name``. Inside PlanExe this is ``worker_plan_internal.llm_factory
    .get_llm``; elsewhere, replace this function (``retry_core.llm_executor.get_llm = ...``),
    or use :class:`LLMModelWithInstance`."""
    try:
        from worker_plan_internal.llm_factory import get_llm as planexe_get_llm
    except ImportError:
        raise RuntimeError(
            f"cannot create the LLM {name!r}: no LLM factory (PlanExe's worker_plan_internal.llm_factory "
            "is not importable; set retry_core.llm_executor.get_llm or use LLMModelWithInstance)"
        ) from None
    return planexe_get_llm(name)


class PipelineStopRequested(RuntimeError):
    """Raised (by ``should_stop_callback``) to stop the pipeline, e.g. after Ctrl-C or when the
    user closed the browser tab. Never retried: it passes through ``run`` at once."""


class ModelUnavailable(Exception):
    """The fleet held a model back: its circuit is open, or its calls are paused, for longer than
    the executor waits (``RetryConfig.max_delay``; nothing without a ``retry_config``). The
    executor moved on to the next model without calling this one."""


class LLMModelBase:
    """Something that can create an LLM."""

    def create_llm(self) -> Any:
        raise NotImplementedError("Subclasses must implement this method")


class LLMModelFromName(LLMModelBase):
    """An LLM created by name through :func:`get_llm`."""

    def __init__(self, name: str):
        self.name = name

    def create_llm(self) -> Any:
        # Looked up at call time, so that replacing `get_llm` works.
        return globals()["get_llm"](self.name)

    def __repr__(self) -> str:
        return f"LLMModelFromName(name='{self.name}')"

    @classmethod
    def from_names(cls, names: List[str]) -> List[LLMModelBase]:
        return [cls(name) for name in names]


class LLMModelWithInstance(LLMModelBase):
    """An LLM instance that already exists."""

    def __init__(self, llm: Any):
        self.llm = llm

    def create_llm(self) -> Any:
        return self.llm

    def __repr__(self) -> str:
        return f"LLMModelWithInstance(llm={self.llm.__class__.__name__})"

    @classmethod
    def from_instances(cls, llms: List[Any]) -> List[LLMModelBase]:
        return [cls(llm) for llm in llms]


@dataclass
class LLMAttempt:
    """The result of a single LLM attempt."""

    stage: str
    llm_model: LLMModelBase
    success: bool
    duration: float
    result: Optional[Any] = None
    exception: Optional[Exception] = None


@dataclass
class ShouldStopCallbackParameters:
    """Parameters passed to the should_stop_callback after each attempt."""

    last_attempt: LLMAttempt
    total_duration: float
    attempt_index: int
    total_attempts: int


def _validation_errors(exc: BaseException) -> List[BaseException]:
    """The pydantic ``ValidationError``s in ``exc``'s chain, outermost first."""
    found: List[BaseException] = []
    seen: Set[int] = set()
    cur: Optional[BaseException] = exc
    while cur is not None and id(cur) not in seen and len(seen) < 16:
        seen.add(id(cur))
        errors = getattr(type(cur), "errors", None)
        if type(cur).__name__ == "ValidationError" and callable(errors):
            found.append(cur)
        nxt = cur.__cause__
        if nxt is None and not cur.__suppress_context__:
            nxt = cur.__context__
        cur = nxt
    return found


def _short(v: Any, limit: int = 60) -> str:
    try:
        text = repr(v)
    except Exception:
        text = f"<{type(v).__name__}>"
    return text if len(text) <= limit else text[: limit - 3] + "..."


def extract_validation_feedback(exc: BaseException) -> Optional[str]:
    """What was wrong with the model's output, from the pydantic ``ValidationError``s in
    ``exc``'s chain, as short lines for the next prompt; None when there are none.

    >>> import pydantic
    >>> class Plan(pydantic.BaseModel):
    ...     title: str
    ...     steps: int
    >>> try:
    ...     Plan.model_validate({"steps": "many"})
    ... except pydantic.ValidationError as e:
    ...     print(extract_validation_feedback(e))
    Your previous response did not match the schema of Plan:
    - title: Field required (missing)
    - steps: Input should be a valid integer, unable to parse string as an integer (int_parsing); got 'many'
    Reply again with output that matches the schema exactly.
    """
    errors = _validation_errors(exc)
    if not errors:
        return None
    lines: List[str] = []
    for err in errors:
        title = getattr(err, "title", None) or "the expected type"
        lines.append(f"Your previous response did not match the schema of {title}:")
        try:
            details: List[Dict[str, Any]] = list(getattr(err, "errors")())
        except Exception:
            details = []
        for d in details[:20]:
            loc = ".".join(str(p) for p in d.get("loc", ())) or "(root)"
            line = f"- {loc}: {d.get('msg', 'invalid')}"
            kind = d.get("type")
            if kind:
                line += f" ({kind})"
            if kind != "missing" and "input" in d and not isinstance(d["input"], (dict, list)):
                line += f"; got {_short(d['input'])}"
            lines.append(line)
        if len(details) > 20:
            lines.append(f"- ... and {len(details) - 20} more")
    lines.append("Reply again with output that matches the schema exactly.")
    return _native._scrub("\n".join(lines))


def _model_name(llm_model: "LLMModelBase") -> str:
    """A model's name in the engine's events and log lines: its ``name``, else its ``repr``."""
    try:
        name = getattr(llm_model, "name", None)
    except Exception:
        name = None
    if not isinstance(name, str) or not name:
        try:
            name = repr(llm_model)
        except Exception:
            name = None
        if not isinstance(name, str) or not name:
            name = type(llm_model).__name__
    return _native._scrub(_utf8(name))[:200]


def fleet_key_of(llm_model: "LLMModelBase") -> str:
    """The fleet key of a model, when ``LLMExecutor`` is given no ``fleet_key``: the name of an
    :class:`LLMModelFromName`; the ``model`` / ``model_name`` of an :class:`LLMModelWithInstance`'s
    LLM (llama-index and most clients have one); else the class of the model or its LLM."""
    name = getattr(llm_model, "name", None)
    if isinstance(name, str) and name:
        return name
    llm = getattr(llm_model, "llm", None)
    if llm is not None:
        for attr in ("model", "model_name"):
            try:
                value = getattr(llm, attr, None)
            except Exception:
                value = None
            if isinstance(value, str) and value:
                return value
        return f"{type(llm).__module__}.{type(llm).__qualname__}"
    return f"{type(llm_model).__module__}.{type(llm_model).__qualname__}"


def _log_text(text: str) -> str:
    """PlanExe's log lines, scrubbed of keys and tokens."""
    return _native._scrub(_utf8(text))


def _exc_text(exc: BaseException) -> str:
    """``str(exc)`` scrubbed (the class name when ``__str__`` misbehaves). Scrubbed before any
    quoting: ``repr``'s escapes (``\\n``, ``\\'``) would hide a key from the patterns."""
    try:
        text = str(exc)
    except Exception:
        text = None
    if not isinstance(text, str):
        text = _class_name(exc)
    return _native._scrub(_utf8(text))


def _exc_repr(exc: Optional[BaseException]) -> str:
    """PlanExe's ``repr(exc)`` (``ValueError('...')``), built from the scrubbed ``str(exc)``:
    never the exception's own ``__repr__``, which may raise or escape a key past the scrubber."""
    if exc is None:
        return "None"
    return f"{_class_name(exc)}({_exc_text(exc)!r})"


_NO_RETRIES = RetryConfig(max_retries=0)


class _Failed:
    """Marks a model whose attempts all failed."""


_FAILED = _Failed()


def _skipped(llm_model: Any, key: str, seconds: float) -> LLMAttempt:
    """The attempt recorded for a model the fleet holds back longer than the executor waits."""
    return LLMAttempt(stage="fleet", llm_model=llm_model, success=False, duration=0.0,
                      exception=ModelUnavailable(f"the fleet holds {key} back for {seconds:.1f}s "
                                                 "(open circuit or shared pause); moved on"))


class LLMExecutor:
    """Cycle through multiple LLMs, falling back to the next on failure.

    A callback can abort execution after any attempt. With ``retry_config``, transient errors
    (rate limits, overload, 5xx, timeouts, connection failures, as the engine classifies them) are
    retried with exponential backoff on the same model before moving on to the next; without it,
    nothing is retried, as in PlanExe. With ``max_validation_retries``, output that failed
    pydantic validation is retried on the same model, with :attr:`validation_feedback` set.
    ``on_event`` (an addition) receives the engine's events as dicts.

    ``fleet`` (an addition): a :class:`retry_core.Fleet` shared with every other executor and
    call of the process (or, with Redis, of many). Each model is a key (``fleet_key(llm_model)``,
    by default :func:`fleet_key_of`: the model's name). Before every attempt the fleet is asked:
    a shared pause or an open circuit up to ``retry_config.max_delay`` is waited out, a longer one
    (or any, without a ``retry_config``) moves on to the next model at once, recorded as a failed
    attempt of stage ``fleet`` with a :class:`ModelUnavailable`. Retries spend the key's budget,
    and the fleet's events go to ``on_event``.
    """

    def __init__(
        self,
        llm_models: List[LLMModelBase],
        should_stop_callback: Optional[Callable[[ShouldStopCallbackParameters], None]] = None,
        retry_config: Optional[RetryConfig] = None,
        max_validation_retries: int = 0,
        *,
        on_event: Optional[Callable[[Dict[str, Any]], Any]] = None,
        fleet: Optional[Fleet] = None,
        fleet_key: Optional[Callable[[LLMModelBase], str]] = None,
    ):
        if not llm_models:
            raise ValueError("No LLMs provided")
        if should_stop_callback is not None and not callable(should_stop_callback):
            raise TypeError("should_stop_callback must be a function that can raise PipelineStopRequested to stop execution")
        if retry_config is not None and not isinstance(retry_config, RetryConfig):
            raise TypeError(f"retry_config must be a RetryConfig, not {type(retry_config).__name__}")
        if not isinstance(max_validation_retries, int) or isinstance(max_validation_retries, bool) or max_validation_retries < 0:
            raise ValueError(f"max_validation_retries must be an int >= 0, got {max_validation_retries!r}")
        if on_event is not None and not callable(on_event):
            raise TypeError("on_event must be callable")
        if fleet is not None and not isinstance(fleet, Fleet):
            raise TypeError(f"fleet must be a retry_core.Fleet, not {type(fleet).__name__}")
        if fleet_key is not None and not callable(fleet_key):
            raise TypeError("fleet_key must be a function of the model that returns its key")
        self.llm_models = llm_models
        self.should_stop_callback = should_stop_callback
        self.retry_config = retry_config or RetryConfig(max_retries=0)
        self.max_validation_retries = max_validation_retries
        self.on_event = on_event
        self.fleet = fleet
        self.fleet_key = fleet_key or fleet_key_of
        self.attempts: List[LLMAttempt] = []
        #: Set before a validation retry: what was wrong with the last output, for the prompt.
        self.validation_feedback: Optional[str] = None

    @property
    def attempt_count(self) -> int:
        return len(self.attempts)

    def run(self, execute_function: Callable[[Any], Any]) -> Any:
        self._validate_execute_function(execute_function)

        self.attempts = []
        self.validation_feedback = None
        overall_start_time = time.perf_counter()
        # Built once per run; a bad RetryConfig or fleet key fails here, before any call.
        # As in PlanExe (`range(max_retries)`), a negative count means no retries, not an error.
        config = self.retry_config if self.retry_config.max_retries > 0 else _NO_RETRIES
        policy = config.to_policy()._inner
        keys = self._fleet_keys()
        result = self._run_models(execute_function, overall_start_time, policy, keys)
        if result is _FAILED:
            self._raise_final_exception()
        return result

    def _fleet_keys(self) -> Optional[List[str]]:
        if self.fleet is None:
            return None
        keys = []
        for llm_model in self.llm_models:
            key = self.fleet_key(llm_model)
            if not isinstance(key, str) or not key:
                raise TypeError(f"fleet_key({llm_model!r}) must return a non-empty str, not {type(key).__name__}")
            keys.append(key)
        return keys

    def _new_run(self, policy: Any, keys: Optional[List[str]]) -> "_native.Run":
        config = json.dumps({
            "models": [{"name": _model_name(m)} for m in self.llm_models],
            # PlanExe moves on to the next model after any error but a stop request.
            "move_on_programming_errors": True,
            "max_validation_retries": self.max_validation_retries,
            # A fleet's wait up to max_delay is waited out; a longer one (any, without retries)
            # skips the model.
            "max_gate_wait": float(self.retry_config.max_delay) if self.retry_config.max_retries > 0 else 0.0,
        })
        if keys is None:
            return _native.Run(policy, config)
        assert self.fleet is not None
        return _native.Run(policy, config, self.fleet._inner, keys)

    def _step(self, exc: Optional[BaseException], method: Callable[..., Any], *args: Any) -> Tuple[Any, Any]:
        """One step of the run, its events sent to ``on_event`` and logged (the core's lines)."""
        step, pending = method(*args)
        if pending:
            _emit(self.on_event, pending, exc)
        return step, pending or ()

    def _run_models(self, execute_function: Callable[[Any], Any], overall_start_time: float,
                    policy: Any, keys: Optional[List[str]]) -> Any:
        """Interprets one engine run over the models: the result, or ``_FAILED``."""
        run = self._new_run(policy, keys)
        try:
            return self._interpret(run, execute_function, overall_start_time, keys)
        finally:
            # Ended by an exception (KeyboardInterrupt, a stop request): a half-open probe's
            # slot is freed now, not when the caller drops the exception.
            run._abandon()

    def _interpret(self, run: "_native.Run", execute_function: Callable[[Any], Any],
                   overall_start_time: float, keys: Optional[List[str]]) -> Any:
        t0 = _monotonic()
        custom_delay = type(self.retry_config).delay_for_retry is not RetryConfig.delay_for_retry
        exc: Optional[BaseException] = None
        current = -1
        step, _ = self._step(None, run._start, 0.0)
        while True:
            kind, index = step[0], run.model
            llm_model = self.llm_models[index]
            if kind == "call":
                if index != current:
                    self.validation_feedback, current = None, index
                attempt = self._try_one_attempt(llm_model, execute_function)
                self.attempts.append(attempt)
                self._check_stop_callback(attempt, overall_start_time, index)
                if attempt.success:
                    self._step(None, run._succeeded, _monotonic() - t0)
                    return attempt.result
                exc = attempt.exception
                assert exc is not None
                step, events = self._step(exc, run._failed, _record(exc), _monotonic() - t0)
                self._after_failure(attempt, events, step[0] == "give_up" or run.model != index)
            elif kind == "wait":
                seconds = step[1]
                if custom_delay and step[2] == "backoff":
                    seconds = self.retry_config.delay_for_retry(run.attempts - 1)
                _wait_sync(seconds, step[2], None, exc)
                step, _ = self._step(exc, run._resume, _monotonic() - t0)
            elif kind == "skip":
                attempt = _skipped(llm_model, keys[index] if keys else repr(llm_model), step[2])
                self.attempts.append(attempt)
                self._check_stop_callback(attempt, overall_start_time, index)
                step, _ = self._step(exc, run._resume, _monotonic() - t0)
            elif kind == "stalled":
                raise _stalled(exc)
            elif kind == "reraise" and exc is not None:
                # A stop request of another module's class (or any other cancellation that is an
                # Exception): never retried, never turned into "exhausted".
                raise exc
            else:
                # The end: give_up, or a recovery step no llm_executor policy asks for.
                return _FAILED

    def _after_failure(self, attempt: LLMAttempt, events: Any, model_done: bool) -> None:
        """A validation retry carries the error's feedback to the next call; a model's last
        failure is logged in one line (its earlier ones are the engine's retry lines)."""
        exc = attempt.exception
        assert exc is not None
        if any(e["type"] == "validation_retry" for e, _, _ in events):
            self.validation_feedback = extract_validation_feedback(exc) or _exc_text(exc)[:2000]
        elif model_done:
            logger.error(_log_text(f"LLMExecutor: {attempt.llm_model!r} failed during '{attempt.stage}' stage: "
                                   f"{_exc_repr(exc)}"))

    def _validate_execute_function(self, execute_function: Callable[[Any], Any]) -> None:
        """``execute_function`` must be callable with exactly one parameter, whose type hint (if
        any, and if llama-index is installed) is llama-index's ``LLM`` or a subclass."""
        if not callable(execute_function):
            raise TypeError("validate_execute_function1: must be a function that takes a LLM parameter")
        params = list(inspect.signature(execute_function).parameters.values())
        if len(params) != 1:
            raise TypeError("validate_execute_function2: must be a function that takes a single parameter")
        try:
            # get_type_hints resolves postponed (string) annotations.
            param_type = typing.get_type_hints(execute_function).get(params[0].name)
        except (NameError, TypeError) as e:
            raise TypeError(f"Could not resolve type hints for execute_function. Error: {e}")
        if param_type is None:
            return
        llm_class = _llm_class()
        if llm_class is None:
            return
        if not (isinstance(param_type, type) and issubclass(param_type, llm_class)):
            raise TypeError(
                "validate_execute_function3: must be a function that takes a single parameter of type LLM, "
                f"but got type '{param_type}'"
            )

    def _try_one_attempt(self, llm_model: LLMModelBase, execute_function: Callable[[Any], Any]) -> LLMAttempt:
        """One complete attempt with one LLM: the ``create`` stage, then the ``execute`` stage."""
        attempt_start_time = time.perf_counter()
        try:
            llm = llm_model.create_llm()
        except Exception as e:
            duration = time.perf_counter() - attempt_start_time
            # Logged by the run: one line per retry (the core's), an ERROR line when the model gives up.
            _record_metrics(len(self.attempts), getattr(llm_model, "name", llm_model.__class__.__name__),
                            duration, False, e, None)
            return LLMAttempt(stage="create", llm_model=llm_model, success=False, duration=duration, exception=e)

        llm_executor_uuid = str(uuid4())
        model_name = getattr(llm_model, "name", llm.__class__.__name__)
        try:
            logger.debug(f"LLMExecutor will invoke execute_function. LLM {llm_model!r}. llm_executor_uuid: {llm_executor_uuid!r}")
            with _instrument_tags({"llm_executor_uuid": llm_executor_uuid}):
                result = execute_function(llm)
            duration = time.perf_counter() - attempt_start_time
            logger.info(f"LLMExecutor did invoke execute_function. LLM {llm_model!r}. llm_executor_uuid: {llm_executor_uuid!r}. Duration: {duration:.2f} seconds")
            _record_metrics(len(self.attempts), model_name, duration, True, None, result)
            return LLMAttempt(stage="execute", llm_model=llm_model, success=True, duration=duration, result=result)
        except PipelineStopRequested as e:
            logger.info(f"LLMExecutor: Stopping because the execute_function callback raised PipelineStopRequested: {_exc_repr(e)}")
            raise
        except Exception as e:
            duration = time.perf_counter() - attempt_start_time
            logger.debug(f"LLMExecutor: execute_function failed. LLM {llm_model!r}. llm_executor_uuid: {llm_executor_uuid!r}")
            _record_metrics(len(self.attempts), model_name, duration, False, e, None)
            return LLMAttempt(stage="execute", llm_model=llm_model, success=False, duration=duration, exception=e)

    def _check_stop_callback(self, last_attempt: LLMAttempt, start_time: float, attempt_index: int) -> None:
        """Calls ``should_stop_callback``, if any; ``PipelineStopRequested`` (or anything else it
        raises) ends ``run``."""
        if self.should_stop_callback is None:
            return
        parameters = ShouldStopCallbackParameters(
            last_attempt=last_attempt,
            total_duration=time.perf_counter() - start_time,
            attempt_index=attempt_index,
            total_attempts=len(self.llm_models),
        )
        try:
            self.should_stop_callback(parameters)
        except PipelineStopRequested as e:
            logger.warning(f"Callback raised PipelineStopRequested. Aborting execution after attempt {attempt_index}: {_exc_text(e)}")
            raise

    def _raise_final_exception(self) -> typing.NoReturn:
        """Raise the final exception when no attempt succeeded: one line per attempt."""
        rows = []
        for attempt_index, attempt in enumerate(self.attempts):
            status = "success" if attempt.success else "failed"
            rows.append(f" - Attempt {attempt_index} with {attempt.llm_model!r} {status} during '{attempt.stage}' stage: "
                        f"{_exc_repr(attempt.exception)}")
        # PlanExe's text, scrubbed: providers quote keys in their messages ("Incorrect API key
        # provided: sk-..."), and this text goes to logs and users (CONTRACT §4).
        error_summary = _log_text("\n".join(rows))
        raise Exception(f"Failed to run. Exhausted all LLMs. Failure summary:\n{error_summary}")


_metrics_hooks: Any = _MISSING


def _record_metrics(attempt_index: int, model: str, duration: float, success: bool,
                    exception: Optional[BaseException], response: Any) -> None:
    """PlanExe's best-effort usage metrics, when running inside PlanExe; never raises."""
    global _metrics_hooks
    if _metrics_hooks is _MISSING:
        hooks = []
        try:
            from worker_plan_internal.llm_util.token_instrumentation import record_attempt_tokens
            hooks.append(("tokens", record_attempt_tokens))
        except Exception:
            pass
        try:
            from worker_plan_internal.llm_util.usage_metrics import record_usage_metric
            hooks.append(("usage", record_usage_metric))
        except Exception:
            pass
        _metrics_hooks = hooks
    error_message = None if exception is None else _exc_text(exception)
    for kind, hook in _metrics_hooks:
        try:
            if kind == "tokens":
                hook(attempt_index=attempt_index, llm_model=model, duration_seconds=duration,
                     success=success, error_message=error_message, response=response)
            elif not success:
                hook(model=model, duration_seconds=duration, success=False, error_message=error_message,
                     error_id=getattr(exception, "error_id", None))
        except Exception as exc:
            logger.debug("Failed to record metrics for attempt: %s", _exc_text(exc))
