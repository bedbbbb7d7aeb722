"""Talk to the guest's qemu over QMP, and let the guest script ask the host to.

qemu runs with ``-qmp unix:SOCK,server=on,wait=off`` (see
:func:`qmp_arguments`). A guest script cannot reach that socket, so
:class:`QmpBridge` (a host thread during the boot) watches
``$RESULTS/qmp/`` on the writable share: the guest writes ``NAME.json``
holding one QMP command, the bridge runs it and writes ``NAME.reply`` with
qemu's answer (``{"return": ...}`` or ``{"error": ...}``).
``guest_lib.sh``'s ``qmp_request`` does the guest's half. Only reading and
setting properties (``qom-get``, ``qom-set``) and ``query-*`` commands pass:
a script cannot quit or reconfigure the VM through the bridge.
"""

from __future__ import annotations

import json
import os
import socket
import threading
from pathlib import Path

REQUEST_DIR = "qmp"
ALLOWED_COMMANDS = ("qom-get", "qom-set")
POLL_SECONDS = 0.1
SOCKET_TIMEOUT_SECONDS = 10.0


class QmpError(RuntimeError):
    """qemu's QMP socket did not answer as the protocol says."""


def qmp_arguments(socket_path: Path) -> list[str]:
    """qemu arguments for a QMP server on ``socket_path`` that does not wait for a client."""
    return ["-qmp", f"unix:{socket_path},server=on,wait=off"]


def qmp_execute(socket_path: Path, command: dict) -> dict:
    """Connect, negotiate capabilities, run ``command``, return qemu's reply.

    One connection per command: the bridge outlives a retried boot, and a
    fresh connection needs no state from an old qemu.

    Raises:
        QmpError: no greeting, the connection closed, or an unparsable line.
        OSError: the socket cannot be reached.
    """
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as connection:
        connection.settimeout(SOCKET_TIMEOUT_SECONDS)
        connection.connect(str(socket_path))
        stream = connection.makefile("rwb")
        greeting = _read_message(stream)
        if "QMP" not in greeting:
            raise QmpError(f"qemu's QMP greeting was {greeting!r}")
        for message in ({"execute": "qmp_capabilities"}, command):
            stream.write(json.dumps(message).encode() + b"\n")
            stream.flush()
            # Events (e.g. an NVMe asynchronous event) may come before the answer.
            while "event" in (reply := _read_message(stream)):
                pass
        return reply


def _read_message(stream) -> dict:
    line = stream.readline()
    if not line:
        raise QmpError("qemu closed the QMP connection")
    try:
        return json.loads(line)
    except ValueError as error:
        raise QmpError(f"qemu sent a line that is not JSON: {line[:200]!r}") from error


def _allowed(command: object) -> bool:
    if not isinstance(command, dict) or not isinstance(command.get("execute"), str):
        return False
    name = command["execute"]
    return name in ALLOWED_COMMANDS or name.startswith("query-")


class QmpBridge:
    """A host thread that runs the guest's QMP requests from the share (see the module docstring).

    Use as a context manager around the boot; ``handled`` lists
    ``(name, command, reply)`` for the test to report.
    """

    def __init__(self, results_dir: Path, socket_path: Path) -> None:
        self.requests = results_dir / REQUEST_DIR
        self.socket_path = socket_path
        self.handled: list[tuple[str, dict, dict]] = []
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="realmd-qmp-bridge", daemon=True)

    def __enter__(self) -> QmpBridge:
        self._thread.start()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self._stop.set()
        self._thread.join()

    def _run(self) -> None:
        while not self._stop.wait(POLL_SECONDS):
            try:
                names = sorted(entry.name for entry in os.scandir(self.requests))
            except FileNotFoundError:
                continue
            for name in names:
                stem = name.removesuffix(".json")
                if stem != name and f"{stem}.reply" not in names:
                    self._answer(stem)

    def _answer(self, stem: str) -> None:
        try:
            command = json.loads((self.requests / f"{stem}.json").read_text())
        except (OSError, ValueError) as error:
            reply = {"error": {"class": "BridgeError", "desc": f"unreadable request: {error}"}}
            command = {}
        else:
            if not _allowed(command):
                reply = {
                    "error": {
                        "class": "BridgeError",
                        "desc": f"the bridge only passes {', '.join(ALLOWED_COMMANDS)} and query-* commands",
                    }
                }
            else:
                try:
                    reply = qmp_execute(self.socket_path, command)
                except (OSError, QmpError) as error:
                    reply = {"error": {"class": "BridgeError", "desc": str(error)}}
        self.handled.append((stem, command, reply))
        # Write then rename: the guest polls for the name and must never read half a reply.
        partial = self.requests / f".{stem}.reply.partial"
        partial.write_text(json.dumps(reply) + "\n")
        partial.rename(self.requests / f"{stem}.reply")
