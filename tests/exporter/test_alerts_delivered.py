"""Alerts end to end: exporter -> Prometheus with the shipped rules -> Alertmanager -> a webhook receiver.

The exporter replays the real recorded md rebuild (degraded, recovering,
clean) with a SMART reading folded in: the derived failing SATA drive for
the first part of the replay, the corpus reading it was derived from (not
failing) after it.
A real Prometheus (Debian's) evaluates the shipped rules, with only their
``for:`` holds cut to 1 s; a real Alertmanager (Debian's
prometheus-alertmanager) groups with 1 s intervals and posts to a webhook
receiver in this test on 127.0.0.1. Every case in :data:`CASES` must arrive
firing and then arrive resolved; the fleet view meanwhile lists the firing
alerts of the host.
"""

from __future__ import annotations

import json
import lzma
import re
import shutil
import subprocess
import threading
import time
from dataclasses import asdict, dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from collections.abc import Callable
from pathlib import Path

import pytest

from raidtop.collect.smart.parse import parse_smartctl
from raidtop.fleet.prometheus import PrometheusSource
from raidtop.presentation.smart_rules import judge
from tests.exporter import procs
from tests.exporter.expressions import RULES

ALERTMANAGER = "prometheus-alertmanager"
pytestmark = pytest.mark.skipif(
    shutil.which("prometheus") is None or shutil.which(ALERTMANAGER) is None,
    reason="needs Debian's prometheus and prometheus-alertmanager (.ci/run installs them)",
)

SMART = procs.REPO / "tests" / "data" / "smartctl"
HEALTHY_FROM_FRAME = 24
"""The replayed drive reads as failing before this frame of the recording and not failing from it on."""


Frames = list[dict]


def stall_sync(at_frame: int, seconds: int) -> Callable[[Frames], Frames]:
    """An edit of the recording: from ``at_frame`` (mid-recovery) nothing changes for ``seconds``, then it goes on.

    The frames put in record no reads at all (an empty delta), so every file
    keeps its value: md's sync_completed stands still while the sync runs,
    as in a real stall; every later frame moves ``seconds`` later.
    """

    def edit(frames: Frames) -> Frames:
        held = frames[at_frame]
        still = [{"t": held["t"] + i + 1, "d": {}, "events": [], "actions": []} for i in range(seconds)]
        later = [dict(f, t=f["t"] + seconds) for f in frames[at_frame + 1 :]]
        return frames[: at_frame + 1] + still + later

    return edit


@dataclass(frozen=True)
class AlertCase:
    """One alert that must reach the receiver firing, then resolved; ``labels`` must all match.

    ``edit`` changes the recorded frames when the recording lacks the alert's condition (see :func:`stall_sync`).
    """

    alertname: str
    labels: dict
    edit: Callable[[Frames], Frames] | None = None


STALL_S = 90
"""Recorded seconds the sync stands still: past the 60 s after which raidtop calls it STALLED, with
30 s of STALLED left for Prometheus to scrape it (at 2x replay speed that is 45 s of the test's time)."""

CASES = (
    AlertCase("MdArrayDegraded", {"array": "md6", "severity": "critical"}),  # the recording's array
    AlertCase("SmartFailing", {"disk": "sda", "severity": "critical"}),
    AlertCase("MdSyncStalled", {"array": "md6", "severity": "warning"}, stall_sync(at_frame=30, seconds=STALL_S)),
)
"""A new rule's end-to-end proof is one entry here."""


class Receiver:
    """A webhook receiver on 127.0.0.1: keeps every alert Alertmanager posts; stops by itself after 5 minutes."""

    def __init__(self) -> None:
        self.alerts: list[dict] = []
        received = self.alerts

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(min(int(self.headers.get("Content-Length", 0)), 1 << 20))
                received.extend(json.loads(body).get("alerts", []))
                self.send_response(200)
                self.end_headers()

            def log_message(self, *args) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self._timer = threading.Timer(300, self.close)
        self._timer.daemon = True
        self._timer.start()

    def seen(self, case: AlertCase, status: str) -> bool:
        return any(
            a.get("status") == status
            and a["labels"].get("alertname") == case.alertname
            and all(a["labels"].get(k) == v for k, v in case.labels.items())
            for a in self.alerts
        )

    def close(self) -> None:
        self._timer.cancel()
        self.server.shutdown()
        self.server.server_close()


def smart_dict(path: str) -> dict:
    health = judge(parse_smartctl(json.loads((SMART / path).read_text()), "sda", 1_795_319_000.0))
    return json.loads(json.dumps(asdict(health)))


def failing_recording(tmp: Path, cases: tuple[AlertCase, ...] = CASES) -> Path:
    """The real recorded rebuild with the drive ``sda``'s SMART reading in every frame (see module doc)."""
    failing, healthy = smart_dict("derived/sata-failing-ST3500418AS.json"), smart_dict("corpus/ST3500418AS_11.json")
    assert failing["verdict"] == "failing" and healthy["verdict"] != "failing"
    lines = lzma.decompress(procs.RECORDING.read_bytes()).decode().splitlines()
    frames = [json.loads(line) for line in lines[1:]]
    for index, frame in enumerate(frames):
        frame["d"].update({"S:": ["sda"], "s:sda": failing if index < HEALTHY_FROM_FRAME else healthy})
    for case in cases:
        if case.edit is not None:
            frames = case.edit(frames)
    out = [lines[0]] + [json.dumps(frame, separators=(",", ":")) for frame in frames]
    path = tmp / "rebuild-with-failing-disk.xz"
    path.write_bytes(lzma.compress(("\n".join(out) + "\n").encode()))
    return path


def alertmanager(tmp: Path, receiver: Receiver) -> tuple[subprocess.Popen, str]:
    port = procs.free_port()
    config = tmp / "alertmanager.yml"
    config.write_text(
        "\n".join(
            [
                "route:",
                "  receiver: test",
                "  group_by: [alertname, instance]",
                "  group_wait: 1s",
                "  group_interval: 1s",
                "  repeat_interval: 1h",
                "receivers:",
                "  - name: test",
                "    webhook_configs:",
                f"      - url: {receiver.url}",
                "        send_resolved: true",
                "",
            ]
        )
    )
    # --cluster.listen-address= turns gossip off: nothing but 127.0.0.1:PORT is opened.
    proc = subprocess.Popen(
        [
            ALERTMANAGER,
            f"--config.file={config}",
            f"--storage.path={tmp / 'am-data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            "--cluster.listen-address=",
            "--log.level=warn",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    procs.wait_http(f"http://127.0.0.1:{port}/-/ready", 60)
    return proc, f"127.0.0.1:{port}"


def test_degraded_stalled_and_smart_alerts_reach_a_webhook_and_resolve(tmp_path) -> None:
    recording = failing_recording(tmp_path)
    rules = tmp_path / "rules.yml"
    rules.write_text(re.sub(r"for: \d+m", "for: 1s", RULES.read_text()))
    receiver = Receiver()
    am, am_address = alertmanager(tmp_path, receiver)
    port = procs.free_port()
    host = f"127.0.0.1:{port}"
    prometheus = exporter = None
    try:
        prometheus = procs.Prometheus(tmp_path, [host], rules, alertmanager=am_address)
        exporter = procs.raidtop(
            "exporter", "--replay", str(recording), "--replay-speed", "2", "--interval", "0.5", "--listen", host
        )
        shown_in_fleet: set[str] = set()
        start = time.monotonic()
        deadline = start + 240  # a guard against a hang, not a timing assertion
        while time.monotonic() < deadline:
            reading = PrometheusSource(prometheus.url).read()
            for h in reading.hosts:
                shown_in_fleet.update(h.alerts)
            if all(receiver.seen(c, "firing") and receiver.seen(c, "resolved") for c in CASES):
                break
            time.sleep(0.5)
        took = time.monotonic() - start
        print(f"all alerts fired and resolved after {took:.1f} s, load {Path('/proc/loadavg').read_text().split()[:3]}")
        for case in CASES:
            assert receiver.seen(case, "firing"), (case, receiver.alerts)
            assert receiver.seen(case, "resolved"), (case, receiver.alerts)
        firing = [a for a in receiver.alerts if a["status"] == "firing" and a["labels"]["alertname"] == "SmartFailing"]
        assert firing[0]["labels"]["instance"] == host and "sda" in firing[0]["annotations"]["summary"]
        # The fleet view listed the host's firing alerts by name while they fired.
        assert {c.alertname for c in CASES} <= shown_in_fleet, shown_in_fleet
    finally:
        if exporter is not None:
            procs.stop(exporter)
        if prometheus is not None:
            prometheus.close()
        procs.stop(am)
        receiver.close()


def test_a_stall_edit_holds_the_sync_where_it_was(tmp_path) -> None:
    """What a stalled-sync case would replay: md's completed count frozen for the inserted seconds, then going on."""
    from raidtop.collect.recording.roots import read_recording
    from raidtop.collect.recording.replayer import Replayer

    stalled = AlertCase("Stall", {}, stall_sync(at_frame=30, seconds=20))
    replayer = Replayer(read_recording(failing_recording(tmp_path, (stalled,))))
    done = [replayer.snapshot_at(i).arrays[0].sync.done_kib for i in range(30, 52)]
    assert len(set(done[:21])) == 1 and done[21] > done[0]
    assert replayer.snapshot_at(30).arrays[0].sync.running
