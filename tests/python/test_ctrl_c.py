"""Ctrl-C during a retry wait: KeyboardInterrupt arrives within 100 ms of the signal, not after
the 30 s delay (the sync loop waits in time.sleep, which releases the GIL and wakes on
signals)."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import textwrap
import time

import pytest

CHILD = textwrap.dedent(
    """
    import signal, sys, time
    from retry_core import call_llm_with_retry

    # A suite started in the background (`make test &`, nohup) inherits SIGINT ignored.
    signal.signal(signal.SIGINT, signal.default_int_handler)

    def always_busy():
        raise TimeoutError("read timed out")

    def on_event(event):
        print("WAITING", event["retry_delay"], flush=True)

    try:
        call_llm_with_retry(always_busy, max_retries=3, delay=30.0, on_event=on_event)
    except KeyboardInterrupt:
        print("INTERRUPTED", repr(time.monotonic()), flush=True)
        sys.exit(0)
    print("NOT INTERRUPTED", flush=True)
    sys.exit(1)
    """
)


@pytest.mark.skipif(sys.platform == "win32", reason="POSIX signals")
def test_ctrl_c_interrupts_the_retry_wait():
    proc = subprocess.Popen([sys.executable, "-c", CHILD], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        assert line.split() == ["WAITING", "30.0"], line + proc.stderr.read()
        time.sleep(0.2)  # let it settle into time.sleep
        # CLOCK_MONOTONIC is system-wide on Linux and macOS: the child's stamp is comparable.
        sent = time.monotonic()
        os.kill(proc.pid, signal.SIGINT)
        out, err = proc.communicate(timeout=10)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    assert proc.returncode == 0, out + err
    word, stamp = out.split()
    latency = float(stamp) - sent
    assert word == "INTERRUPTED"
    assert 0 <= latency < 0.1, f"KeyboardInterrupt arrived {latency * 1000:.1f} ms after SIGINT"
