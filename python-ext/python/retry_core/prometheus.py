"""A fleet's metrics for ``prometheus_client``: :class:`FleetCollector` serves
:meth:`retry_core.Fleet.prometheus_text` through a registry, so an application's existing
``/metrics`` endpoint (``prometheus_client.start_http_server``, ``make_asgi_app``...) shows
them. The metric names, HELP texts and labels are the core's; this module only hands the text
to ``prometheus_client``'s own parser.

>>> from prometheus_client import CollectorRegistry
>>> from retry_core import Fleet
>>> from retry_core.prometheus import FleetCollector
>>> registry = CollectorRegistry()
>>> collector = FleetCollector(Fleet(), registry=registry)
"""

from __future__ import annotations

from typing import Any, Iterable, List, Optional

from . import _native
from ._fleet import Fleet

__all__ = ["FleetCollector"]


class FleetCollector:
    """A ``prometheus_client`` collector of a :class:`~retry_core.Fleet`'s metrics, at most
    ``max_keys`` keys per scrape. Registered in ``registry`` when given (pass
    ``prometheus_client.REGISTRY`` for the default one)."""

    def __init__(self, fleet: Fleet, max_keys: int = _native._PROMETHEUS_DEFAULT_MAX_KEYS,
                 registry: Optional[Any] = None) -> None:
        if not isinstance(fleet, Fleet):
            raise TypeError(f"fleet must be a retry_core.Fleet, not {type(fleet).__name__}")
        fleet.prometheus_text(max_keys)  # checks max_keys now, not at the first scrape
        self._fleet = fleet
        self._max_keys = max_keys
        if registry is not None:
            registry.register(self)

    def describe(self) -> List[Any]:
        # No fixed list: the families present depend on the fleet (admission's only with
        # admission on). An empty description keeps registration from scraping.
        return []

    def collect(self) -> Iterable[Any]:
        from prometheus_client.parser import text_string_to_metric_families

        return list(text_string_to_metric_families(self._fleet.prometheus_text(self._max_keys)))
