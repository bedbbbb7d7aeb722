"""Real processes for the exporter tests: raidtop exporters, Prometheus, sshd, on free localhost ports."""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.parse
import urllib.request
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
RECORDING = REPO / "raidtop" / "demo" / "data" / "rebuild.xz"
MD_DATA = REPO / "tests" / "data" / "md"
UI_ROOT1 = REPO / "tests" / "data" / "ui" / "root1"


def free_port() -> int:
    """A TCP port nothing listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def clean_root(tmp: Path) -> Path:
    """A root whose md arrays are all clean: real /proc files (sysstat's) and a real mdstat (pymdstat's)."""
    root = tmp / "clean-root"
    shutil.copytree(UI_ROOT1 / "proc", root / "proc", symlinks=True)
    shutil.copy(MD_DATA / "mdstat" / "nicolargo-pymdstat__mdstat.04", root / "proc" / "mdstat")
    return root


def raidtop(*args: str, **kwargs) -> subprocess.Popen:
    """``python -m raidtop ARGS`` from this checkout."""
    env = dict(os.environ, PYTHONPATH=str(REPO))
    return subprocess.Popen(
        [sys.executable, "-m", "raidtop", *args],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        **kwargs,
    )


def wait_http(url: str, timeout_s: float = 30.0) -> bytes:
    """GET ``url`` until it answers 200."""
    deadline = time.monotonic() + timeout_s
    while True:
        try:
            with urllib.request.urlopen(url, timeout=2) as answer:
                return answer.read()
        except OSError:
            if time.monotonic() > deadline:
                raise
            time.sleep(0.2)


def stop(proc: subprocess.Popen) -> None:
    """End a process this test started."""
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Prometheus:
    """A real Prometheus with a temporary data directory, scraping ``targets`` every second."""

    def __init__(
        self, tmp: Path, targets: list[str], rules: Path | None = None, alertmanager: str | None = None
    ) -> None:
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        config = tmp / "prometheus.yml"
        lines = ["global:", "  scrape_interval: 1s", "  evaluation_interval: 1s", "  scrape_timeout: 900ms"]
        if rules is not None:
            lines += ["rule_files:", f"  - {rules}"]
        if alertmanager is not None:
            lines += [
                "alerting:",
                "  alertmanagers:",
                "    - static_configs:",
                f"        - targets: [{json.dumps(alertmanager)}]",
            ]
        lines += [
            "scrape_configs:",
            "  - job_name: raidtop",
            "    static_configs:",
            f"      - targets: {json.dumps(targets)}",
        ]
        config.write_text("\n".join(lines) + "\n")
        self.proc = subprocess.Popen(
            [
                "prometheus",
                f"--config.file={config}",
                f"--storage.tsdb.path={tmp / 'data'}",
                f"--web.listen-address=127.0.0.1:{self.port}",
                "--log.level=warn",
            ],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
        )
        wait_http(f"{self.url}/-/ready", 60)

    def api(self, path: str, **params: str) -> dict:
        """A GET on the HTTP API, decoded."""
        query = f"?{urllib.parse.urlencode(params)}" if params else ""
        with urllib.request.urlopen(f"{self.url}/api/v1/{path}{query}", timeout=10) as answer:
            return json.loads(answer.read())

    def query(self, expr: str) -> list[dict]:
        """An instant query's result (asserting Prometheus accepted it)."""
        doc = self.api("query", query=expr)
        assert doc["status"] == "success", (expr, doc)
        return doc["data"]["result"]

    def alerts(self) -> list[dict]:
        """Active alerts (pending and firing)."""
        return self.api("alerts")["data"]["alerts"]

    def close(self) -> None:
        stop(self.proc)
