"""Fleets: one retry budget, one circuit breaker and one shared pause per provider/model key,
for every call of a process (or, with ``redis_url``, of many processes). The state and every
decision live in Rust (``core/src/fleet``); this module adds keyword arguments and config files.
"""

from __future__ import annotations

import json
import os
from typing import Any, Dict, Mapping, Optional, Union

from . import _native

__all__ = ["Fleet"]


def _section(name: str, value: Any) -> Any:
    # `budget=False` / `breaker=None` switch a mechanism off, `True` keeps its defaults.
    if value is True:
        return {}
    if value is False:
        return None
    if value is None or isinstance(value, Mapping):
        return None if value is None else dict(value)
    raise TypeError(f"{name} must be a dict of settings, True, False or None, not {type(value).__name__}")


class Fleet:
    """Shared resilience state for many calls, keyed by provider and model.

    ``Fleet()`` has the engine's defaults (``core/src/fleet``): a retry budget of 500 tokens per
    key (a retry costs 5, a timeout or reset 10; successes earn tokens back), a circuit breaker
    (opens after 5 consecutive transient failures or a 50 % failure rate over at least 20 calls
    in 10 s; one probe after 0.5 s, later ones after a quarter of the time it has been failing,
    at most 30 s), and shared pauses (a 429/529 with ``retry-after`` pauses every caller of the
    key). Keyword arguments are the configuration's keys:

    - ``budget``: ``{"capacity", "retry_cost", "timeout_cost", "success_refund"}``, or
      ``None`` / ``False`` to switch it off;
    - ``breaker``: ``{"consecutive_failures", "failure_rate", "min_calls", "window_s",
      "open_s", "max_open_s", "probe_timeout_s"}``, or ``None`` / ``False``;
    - ``shared_pause`` (bool), ``max_pause_s`` (seconds);
    - ``redis_url`` (``redis://host:port/db``) to share the state across processes, and
      ``namespace``, the prefix of its Redis keys. If Redis cannot be reached, calls fall back to
      local state at once (a ``fleet_backend_degraded`` event) and go back when it answers.
      ``redis_timeout_s`` (0.25) bounds each Redis operation, every read of its replies included;
    - ``key_idle_ttl_s`` (600) and ``max_keys`` (100000): a key unused that long is forgotten
      (never while its pause or open circuit lasts), and at most that many keys are held (the
      least recently used go first);
    - ``admission``: pace calls under the provider's rate limits instead of retrying after the
      429. ``"headers"`` learns the limits from the rate-limit headers of every response
      (OpenAI, Azure, Anthropic, the IETF ``RateLimit`` drafts), ``"adaptive"`` from throttles
      alone (the AWS SDKs' CUBIC), ``"static"`` takes them from
      ``{"mode": "static", "limits": {"requests": ..., "tokens": ..., "input_tokens": ...,
      "output_tokens": ...}, "window_s": 60}``; ``"off"`` / ``None`` / ``False`` (the default)
      costs nothing. Calls then wait their turn, spread evenly through the window (events
      ``admission_wait`` and ``limits_learned``; ``metrics()`` gains an ``admission`` entry per
      key). Each call counts as one request of no tokens unless given its estimate
      (``call_llm_with_retry(..., estimate={"messages": messages, "max_tokens": 512})``, or
      an int of tokens); the usage its answer reports then settles it.

    Pass it to ``call_llm_with_retry(..., fleet=fleet, key="openai:gpt-4o")``, its async twin, or
    ``LLMExecutor(..., fleet=fleet)``. One object may be shared by any number of threads.

    >>> from retry_core import Fleet
    >>> fleet = Fleet(budget={"capacity": 50}, breaker=False)
    >>> fleet.backend, fleet.tokens("openai:gpt-4o")
    ('in_process', 50.0)
    """

    __slots__ = ("_inner",)

    _inner: "_native.Fleet"

    def __init__(self, **config: Any) -> None:
        for name in ("budget", "breaker"):
            if name in config:
                config[name] = _section(name, config[name])
        try:
            text = json.dumps(config, allow_nan=False)
        except (TypeError, ValueError) as e:
            raise TypeError(f"a fleet configuration must be JSON-serialisable without NaN: {e}") from None
        except RecursionError:
            raise ValueError("a fleet configuration nested too deeply") from None
        self._inner = _native.Fleet._from_json(text)

    @classmethod
    def from_file(cls, path: Union[str, "os.PathLike[str]"]) -> "Fleet":
        """A fleet from a configuration file: YAML when PyYAML is installed (JSON is YAML too),
        else JSON. The top level is a mapping of the keyword arguments of :class:`Fleet`,
        optionally under a ``fleet:`` key."""
        with open(path, encoding="utf-8") as f:
            text = f.read()
        data: Any
        try:
            import yaml
        except ImportError:
            try:
                data = json.loads(text)
            except ValueError as e:
                raise ValueError(
                    f"{os.fspath(path)}: not JSON ({e}); for a YAML file, install PyYAML (pip install pyyaml)"
                ) from None
        else:
            try:
                data = yaml.safe_load(text)
            except yaml.YAMLError as e:
                raise ValueError(f"{os.fspath(path)}: invalid YAML: {e}") from None
        if isinstance(data, Mapping) and set(data) == {"fleet"}:
            data = data["fleet"]
        if data is None:
            data = {}
        if not isinstance(data, Mapping):
            raise ValueError(f"{os.fspath(path)}: a fleet configuration is a mapping, not {type(data).__name__}")
        if not all(isinstance(k, str) for k in data):
            raise ValueError(f"{os.fspath(path)}: configuration keys must be strings")
        return cls(**data)

    @property
    def backend(self) -> str:
        """``in_process`` or ``redis``."""
        return self._inner.backend

    @property
    def config(self) -> Dict[str, Any]:
        """The whole configuration, defaults filled in."""
        cfg: Dict[str, Any] = json.loads(self._inner._config_json())
        return cfg

    def metrics(self) -> Dict[str, Any]:
        """What retrying cost, by key and category: ``{key: {category: counters, "total":
        counters}}``, counters being ``calls``, ``successes``, ``failures``, ``retries``,
        ``waited_s``, ``gave_up``, ``wasted_calls`` and ``wasted_s`` (calls and waits of sequences
        that failed in the end). Successes are under the category ``success``. Counted in this
        process (a Redis fleet shares its state, not its metrics)."""
        return self._inner._metrics()

    def prometheus_text(self, max_keys: int = _native._PROMETHEUS_DEFAULT_MAX_KEYS) -> str:
        """:meth:`metrics` as Prometheus text (exposition format 0.0.4), for a ``/metrics``
        page: ``retry_core_calls_total``, ``retry_core_retries_total``,
        ``retry_core_retry_delay_seconds_total``, ``retry_core_gave_up_total``... labelled by
        ``key`` and ``category``, with HELP and TYPE lines. At most ``max_keys`` keys (the
        busiest) are written; ``retry_core_metrics_keys_omitted`` counts the rest. The names
        and the rendering are the core's (``core/src/observe/prometheus.rs``);
        :class:`retry_core.prometheus.FleetCollector` serves them through ``prometheus_client``."""
        if isinstance(max_keys, bool) or not isinstance(max_keys, int) or max_keys < 0:
            raise ValueError(f"max_keys must be an int >= 0, not {max_keys!r}")
        return _native._prometheus_text(self._inner, max_keys)

    def reset_metrics(self) -> None:
        """Forget every counter."""
        self._inner._reset_metrics()

    def tokens(self, key: str) -> Optional[float]:
        """The retry-budget tokens left for ``key`` (None without a budget)."""
        if not isinstance(key, str):
            raise TypeError(f"key must be a str, not {type(key).__name__}")
        return self._inner._tokens(key)

    def __repr__(self) -> str:
        return f"Fleet(backend={self.backend!r})"
