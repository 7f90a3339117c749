"""A measurement, not a test (pytest does not collect it): what the streams helpers cost per
event, through the core's watch (``_native._StreamWatch``), beside what converting each SDK
object to JSON would cost (the road not taken: an Anthropic ``text`` event carries the whole
text so far, so its conversion grows with the answer). Best of 7 x 20000. Build the extension
in release first (``maturin develop --release``); run:

    .venv/bin/python tests/python/measure_stream_watch.py
"""

from __future__ import annotations

import timeit
from typing import Any, Callable, List, Tuple

from anthropic.lib.streaming import TextEvent
from anthropic.types import RawContentBlockDeltaEvent
from openai.types.chat import ChatCompletionChunk

from retry_core import streams

N = 20000


def best(f: Callable[[], Any]) -> float:
    return min(timeit.repeat(f, number=N, repeat=7)) / N * 1e6


def main() -> None:
    chunk = ChatCompletionChunk.model_validate({
        "id": "c", "object": "chat.completion.chunk", "created": 1, "model": "gpt-4o",
        "choices": [{"index": 0, "delta": {"content": "Hello there"}, "finish_reason": None}]})
    delta = RawContentBlockDeltaEvent.model_validate(
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "hi"}})
    text = TextEvent(type="text", text="x", snapshot="y" * 4000)
    as_dict = {"choices": [{"index": 0, "delta": {"content": "Hello there"}, "finish_reason": None}]}
    rows: List[Tuple[str, str, float]] = []
    for name, item in [("openai ChatCompletionChunk", chunk), ("anthropic content_block_delta", delta),
                       ("anthropic TextEvent, 4000-char snapshot", text), ("dict chat chunk", as_dict)]:
        watch = streams._Watch(None)
        rows.append((name, "_Watch.see (the core)", best(lambda: watch.see(item))))
        if not isinstance(item, dict):
            rows.append((name, "model_dump_json()", best(item.model_dump_json)))
    for name, how, us in rows:
        print(f"{name:42s} {how:24s} {us:7.2f} us/event")


if __name__ == "__main__":
    main()
