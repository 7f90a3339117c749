"""Drives the fault lab (`retry-lab`) from Python: starts it on a free loopback port, scripts its
faults, reads its request log, stops it. One copy for the Python tests, the README runner and the
side-by-side demo. Never through a proxy: the lab is on loopback."""

from __future__ import annotations

import json
import select
import subprocess
import urllib.request
from pathlib import Path
from typing import Any, Dict, List, Union


class LabProcess:
    """The lab process; it exits by itself when its stdin closes (`--exit-on-stdin-close`)."""

    def __init__(self, binary: Union[str, Path]) -> None:
        if not Path(binary).exists():
            raise RuntimeError(f"{binary} is missing; build it with: cargo build -p retry-lab")
        self.proc = subprocess.Popen([str(binary), "--port", "0", "--exit-on-stdin-close", "--quiet"],
                                     stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True)
        assert self.proc.stdout is not None
        ready, _, _ = select.select([self.proc.stdout], [], [], 10)
        line = self.proc.stdout.readline() if ready else ""
        if not line.startswith("LISTENING "):
            self.stop()
            raise RuntimeError(f"retry-lab did not start (said {line!r})")
        self.url = "http://" + line.split()[1]
        self.http = urllib.request.build_opener(urllib.request.ProxyHandler({}))

    def script(self, script: Dict[str, Any]) -> None:
        req = urllib.request.Request(self.url + "/_lab/script", data=json.dumps(script).encode(), method="POST")
        with self.http.open(req, timeout=5) as r:
            assert r.status == 200

    def reset(self) -> None:
        """No fault, and an empty log."""
        self.script({})

    def log(self) -> List[Dict[str, Any]]:
        with self.http.open(self.url + "/_lab/log", timeout=5) as r:
            return list(json.loads(r.read()))

    def calls(self) -> int:
        return len(self.log())

    def stop(self) -> None:
        try:
            if self.proc.stdin:
                self.proc.stdin.close()
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()
            self.proc.wait(timeout=5)
