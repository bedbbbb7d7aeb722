"""A --root tree and a recording whose names and labels try to attack the terminal.

Everything here is text some other party writes: a hwmon driver's chip name
and labels, a block device name, the udev database, /proc/mdstat, a
recording's header. The tree starts as a copy of the real recorded root1
(tests/data/ui/PROVENANCE.md) plus the md root of tests/data/md, and only the
hostile entries are added on top, so every panel has real rows to lay out.
"""

from __future__ import annotations

import json
import lzma
import shutil
from pathlib import Path

DATA = Path(__file__).resolve().parent / "data"

OSC_TITLE = "\x1b]0;PWNED\x07"
"""Retitles the terminal window (xterm OSC 0)."""
CLEAR = "\x1b[2J"
"""Erases the whole screen (CSI 2 J)."""
C1_CSI = "\x9b31m"
"""An 8-bit CSI: turns text red on terminals that honour C1 controls."""
RESET = "\x1bc"
"""RIS: a full terminal reset."""
BIDI = "\u202e"
"""RIGHT-TO-LEFT OVERRIDE: makes the rest of a line read backwards."""
MARKUP = ("[/]", "[bold red]X[/]", "[link=http://x]")

# Raw bytes that must never reach the terminal; Textual itself never emits
# them. (The visible text "\ufffd]0;PWNED" is fine: its ESC is gone.)
FORBIDDEN_BYTES = (
    b"\x1b]0;",
    b"PWNED\x07",
    b"\x1b[2J",
    b"\x1bc",
    b"\xc2\x9b",  # U+009B as UTF-8
    "\u202e".encode(),
)

# Names: a file name cannot hold "/", and mdstat's grammar refuses "[", "]" and
# "(", so each place gets the strongest payload its format can carry.
DISK = "evil" + OSC_TITLE + "[b]"
"""A disk in /sys/block (the Tuning screen lists it); diskstats would refuse its name."""
LISTED_DISK = "sdz[b]X[i]"
"""A disk in diskstats, /sys/block and the udev database: names there are printable, markup is not refused."""
DISK_MAJOR, DISK_MINOR = 8, 240
CHIP_NAME = "chip" + OSC_TITLE + "[/]"
SENSOR_LABEL = "[bold red]X[/]" + CLEAR + C1_CSI + BIDI
MODEL = "Model" + OSC_TITLE + "[link=http://x]click[/]"
SERIAL = "SER" + CLEAR + "[/]"
ARRAY = "md_ev" + RESET + C1_CSI + BIDI
MEMBER = "sdq" + RESET + "\x07" + C1_CSI
HOST = "host" + OSC_TITLE + CLEAR + "[/][bold red]X"


def build_root(target: Path) -> Path:
    """Write the hostile tree under ``target`` (which must not exist) and return it."""
    shutil.copytree(DATA / "ui" / "root1", target)
    sysfs = target / "sys"
    # A hwmon chip whose name and label carry escapes and markup.
    chip = sysfs / "class" / "hwmon" / "hwmon99"
    chip.mkdir(parents=True)
    (chip / "name").write_text(CHIP_NAME + "\n")
    (chip / "temp1_input").write_text("45000\n")
    (chip / "temp1_label").write_text(SENSOR_LABEL + "\n")
    # Disks: a diskstats line, sysfs queues (so the Tuning screen lists them), udev db.
    with open(target / "proc" / "diskstats", "a", encoding="utf-8") as stats:
        stats.write(f" {DISK_MAJOR} {DISK_MINOR} {LISTED_DISK} 100 0 800 10 50 0 400 5 0 20 15\n")
    for name in (DISK, LISTED_DISK):
        queue = sysfs / "block" / name / "queue"
        queue.mkdir(parents=True)
        (queue / "scheduler").write_text("[none] mq-deadline\n")
        (queue / "read_ahead_kb").write_text("128\n")
        (queue / "nr_requests").write_text("64\n")
        (queue / "rotational").write_text("0\n")
        device = sysfs / "block" / name / "device"
        device.mkdir()
        (device / "model").write_text(MODEL + "\n")
    udev = target / "run" / "udev" / "data"
    udev.mkdir(parents=True)
    (udev / f"b{DISK_MAJOR}:{DISK_MINOR}").write_text(
        f"S:disk/by-id/ata-{MODEL}_{SERIAL}\nE:ID_MODEL={MODEL}\nE:ID_SERIAL_SHORT={SERIAL}\n"
    )
    # An md array with a hostile name and a hostile member, whole for now
    # (degrade() fails a member), in the format a 6.1 kernel prints.
    write_mdstat(target, degraded=False)
    md = sysfs / "block" / ARRAY / "md"
    md.mkdir(parents=True)
    (md / "array_state").write_text("clean\n")
    (md / "level").write_text("raid1\n")
    (md / "sync_action").write_text("idle\n")
    return target


def write_mdstat(root: Path, *, degraded: bool) -> None:
    """The hostile array whole, or with its second member failed (a Fail event between samples)."""
    members, status = (
        (f"{MEMBER}[1] sdp{BIDI}[0](F)", "[2/1] [_U]") if degraded else (f"{MEMBER}[1] sdp{BIDI}[0]", "[2/2] [UU]")
    )
    (root / "proc" / "mdstat").write_text(
        "Personalities : [raid1]\n"
        f"{ARRAY} : active raid1 {members}\n"
        f"      1048512 blocks super 1.2 {status}\n"
        "\n"
        "unused devices: <none>\n"
    )


def build_recording(root: Path, target: Path, frames: int = 3) -> Path:
    """Record ``frames`` samples of ``root`` into ``target`` with a hostile host field."""
    from raidtop.collect.recording.roots import RecordingRoot, RecordingWriter
    from raidtop.collect.sampler import Sampler
    from raidtop.collect.source import Root

    recording_root = RecordingRoot(Root(root))
    writer = RecordingWriter(target, 1.0, recording_root)
    sampler = Sampler(recording_root, clock=iter(range(1_600_000_000, 1_600_000_000 + frames)).__next__)
    for _ in range(frames):
        snap = sampler.sample()
        writer.add(snap.time, recording_root.take_frame(), events=[{"array": ARRAY, "event": "Fail", "member": MEMBER}])
    writer.close()
    # Rewrite the header line the way someone sharing a doctored recording would.
    lines = lzma.decompress(target.read_bytes()).decode().splitlines()
    header = json.loads(lines[0])
    header["host"] = HOST
    lines[0] = json.dumps(header)
    target.write_bytes(lzma.compress(("\n".join(lines) + "\n").encode()))
    return target


def terminal_bytes(app) -> bytes:
    """What Textual would write to a terminal to paint the current screen, toasts included."""
    import io

    from rich.console import Console

    width, height = app.size
    out = io.StringIO()
    console = Console(
        width=width,
        height=height,
        file=out,
        force_terminal=True,
        color_system="truecolor",
        legacy_windows=False,
        safe_box=False,
    )
    console.print(app.screen._compositor.render_update(full=True, screen_stack=app._background_screens))
    return out.getvalue().encode("utf-8", "surrogateescape")


def leaks(data: bytes) -> list[bytes]:
    """The forbidden byte strings present in ``data``."""
    return [payload for payload in FORBIDDEN_BYTES if payload in data]
