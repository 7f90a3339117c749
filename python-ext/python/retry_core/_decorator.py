"""``@retry_core.retry(...)``: a function whose every call goes through
:func:`call_llm_with_retry` (or :func:`acall_llm_with_retry` for a coroutine function) with the
options given once. No loop of its own: the decorated function is the ``fn`` of the same door,
so it decides, waits and reports exactly as the door does. The options are checked when the
function is decorated (a misspelt option or preset fails at import, not at the first error),
and again by the door at each call. The wrapper keeps the function's signature for type
checkers (``ParamSpec``) and for ``inspect`` and ``help()`` (``functools.wraps``)."""

from __future__ import annotations

import functools
import inspect
from typing import TYPE_CHECKING, Any, Callable, Optional, ParamSpec, Protocol, TypeVar, overload

from ._retry import _CallOptions, _Options, acall_llm_with_retry, call_llm_with_retry

if TYPE_CHECKING:
    from typing_extensions import Unpack

R = TypeVar("R")
P = ParamSpec("P")


class _Decorator(Protocol):
    """What ``retry(...)`` returns: keeps the decorated function's parameters and result."""

    def __call__(self, fn: Callable[P, R], /) -> Callable[P, R]: ...

__all__ = ["retry"]


def _wrap(fn: Any, options: "_CallOptions") -> Any:
    if not callable(fn):
        raise TypeError(f"retry() decorates a function, not {type(fn).__name__}")
    if inspect.iscoroutinefunction(fn):

        @functools.wraps(fn)
        async def async_wrapper(*args: Any, **kwargs: Any) -> Any:
            return await acall_llm_with_retry(lambda: fn(*args, **kwargs), **options)

        return async_wrapper

    @functools.wraps(fn)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        return call_llm_with_retry(lambda: fn(*args, **kwargs), **options)

    return wrapper


@overload
def retry(fn: "Callable[P, R]", /) -> "Callable[P, R]": ...


@overload
def retry(fn: None = None, /, **options: "Unpack[_CallOptions]") -> "_Decorator": ...


def retry(fn: Optional[Callable[..., Any]] = None, /, **options: Any) -> Any:
    """Decorate a sync or async function so that each call is retried as the engine decides::

        @retry_core.retry(policy="forgeflare")
        def ask(question: str) -> str:
            return client.chat.completions.create(...).choices[0].message.content

    ``@retry_core.retry`` without arguments uses the ``default`` preset. The keyword options are
    those of :func:`call_llm_with_retry`; a bad one raises here, before any call. A coroutine
    function goes through :func:`acall_llm_with_retry`. ``messages=`` is the history the next
    attempt sends, pruned in place (shared by every call of the decorated function)."""
    _Options("retry", options)  # a bad keyword, hook or preset fails at decoration time
    if fn is not None:
        if options:
            raise TypeError("retry(fn) takes no options; write @retry(...) to give some")
        return _wrap(fn, options)  # type: ignore[arg-type]
    return lambda f: _wrap(f, options)  # type: ignore[arg-type]
