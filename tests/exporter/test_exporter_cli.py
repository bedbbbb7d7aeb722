"""``raidtop exporter`` as a user runs it: one-line errors, the textfile, HTTP and HTTPS, hostile inputs."""

from __future__ import annotations

import os
import shutil
import ssl
import subprocess
import urllib.request

import pytest

from raidtop.exporter.listen import DEFAULT_LISTEN
from tests.exporter import procs


def run_cli(*args: str, timeout: float = 60) -> subprocess.CompletedProcess:
    env = dict(os.environ, PYTHONPATH=str(procs.REPO))
    return subprocess.run(
        [os.sys.executable, "-m", "raidtop", *args],
        cwd=procs.REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@pytest.mark.parametrize(
    "listen", ["nonsense", "127.0.0.1:99999", "[zz]:1", "127.0.0.1", "-h:1", "a b:1", "\x1b[31m:80"]
)
def test_a_bad_listen_is_one_line_and_exit_2(listen) -> None:
    done = run_cli("exporter", "--listen", listen)
    assert done.returncode == 2 and done.stdout == ""
    assert len(done.stderr.strip().splitlines()) == 1 and "Traceback" not in done.stderr
    assert "\x1b" not in done.stderr


def test_a_busy_port_is_one_line(tmp_path) -> None:
    port = procs.free_port()
    first = procs.raidtop("--root", str(procs.clean_root(tmp_path)), "exporter", "--listen", f"127.0.0.1:{port}")
    try:
        procs.wait_http(f"http://127.0.0.1:{port}/metrics")
        done = run_cli("--root", str(tmp_path / "clean-root"), "exporter", "--listen", f"127.0.0.1:{port}")
        assert done.returncode == 2 and done.stderr.startswith(f"raidtop exporter: cannot serve on 127.0.0.1:{port}")
        assert len(done.stderr.strip().splitlines()) == 1
    finally:
        procs.stop(first)


def test_the_default_is_localhost() -> None:
    assert DEFAULT_LISTEN.startswith("127.0.0.1:")


@pytest.mark.parametrize(
    "args, words",
    [
        (("--once",), "--once writes the textfile once"),
        (("--tls-cert", "/etc/hostname"), "--tls-cert and --tls-key go together"),
        (("--replay", "/etc/hostname"), "raidtop exporter: "),
    ],
)
def test_option_mistakes_are_one_sentence(args, words) -> None:
    done = run_cli("exporter", *args)
    assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr
    assert len(done.stderr.strip().splitlines()) == 1


def test_textfile_once_writes_atomically_and_follows_no_link(tmp_path) -> None:
    textdir, outside = tmp_path / "textfile", tmp_path / "outside"
    textdir.mkdir()
    outside.write_text("sentinel\n")
    (textdir / "other.prom").write_text("node_other 1\n")
    (textdir / "raidtop.prom").symlink_to(outside)  # planted: a write through it would clobber "outside"
    done = run_cli(
        "--root", str(procs.clean_root(tmp_path)), "exporter", "--textfile", str(textdir), "--once", "--interval", "0.1"
    )
    assert done.returncode == 0, done.stderr
    written = textdir / "raidtop.prom"
    assert not written.is_symlink() and written.is_file()
    assert outside.read_text() == "sentinel\n" and (textdir / "other.prom").read_text() == "node_other 1\n"
    text = written.read_text()
    assert "raidtop_md_arrays 4.0" in text and 'state="active"} 1.0' in text
    assert "process_" not in text  # node_exporter has its own process metrics
    assert sorted(p.name for p in textdir.iterdir()) == ["other.prom", "raidtop.prom"]  # no temporary left
    if shutil.which("promtool"):
        lint = subprocess.run(["promtool", "check", "metrics"], input=text, capture_output=True, text=True)
        assert lint.returncode == 0 and lint.stdout == lint.stderr == ""


def test_a_textfile_directory_that_is_a_link_is_refused(tmp_path) -> None:
    real = tmp_path / "real"
    real.mkdir()
    (real / "keep.prom").write_text("keep 1\n")
    (tmp_path / "link").symlink_to(real)
    done = run_cli("exporter", "--textfile", str(tmp_path / "link"), "--once")
    assert done.returncode == 2 and "links are refused" in done.stderr
    assert [p.name for p in real.iterdir()] == ["keep.prom"]


def test_a_fifo_in_the_root_never_blocks_a_scrape(tmp_path) -> None:
    root = procs.clean_root(tmp_path)
    (root / "proc" / "mdstat").unlink()
    os.mkfifo(root / "proc" / "mdstat")  # a read would block forever
    port = procs.free_port()
    proc = procs.raidtop("--root", str(root), "exporter", "--listen", f"127.0.0.1:{port}", "--interval", "0.2")
    try:
        text = procs.wait_http(f"http://127.0.0.1:{port}/metrics", 30).decode()
        assert "raidtop_md_arrays 0.0" in text
        unreadable = [line for line in text.splitlines() if line.startswith("raidtop_exporter_unreadable_inputs_total")]
        assert float(unreadable[0].split()[1]) >= 1
    finally:
        procs.stop(proc)
    assert (root / "proc" / "mdstat").is_fifo()


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl to make a throw-away certificate")
def test_https_through_the_client_librarys_tls_options(tmp_path) -> None:
    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        [
            "openssl",
            "req",
            "-x509",
            "-newkey",
            "rsa:2048",
            "-nodes",
            "-days",
            "1",
            "-subj",
            "/CN=127.0.0.1",
            "-addext",
            "subjectAltName=IP:127.0.0.1",
            "-keyout",
            str(key),
            "-out",
            str(cert),
        ],
        check=True,
        capture_output=True,
    )
    port = procs.free_port()
    proc = procs.raidtop(
        "--root",
        str(procs.clean_root(tmp_path)),
        "exporter",
        "--listen",
        f"127.0.0.1:{port}",
        "--tls-cert",
        str(cert),
        "--tls-key",
        str(key),
    )
    try:
        context = ssl.create_default_context(cafile=str(cert))
        for _ in range(100):
            try:
                with urllib.request.urlopen(f"https://127.0.0.1:{port}/metrics", context=context, timeout=2) as answer:
                    assert b"raidtop_md_arrays" in answer.read()
                break
            except OSError as exc:
                if proc.poll() is not None:
                    raise AssertionError(proc.stderr.read()) from exc
                import time

                time.sleep(0.2)
        else:
            raise AssertionError("no HTTPS answer")
        with pytest.raises(OSError):
            urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=2).read()
    finally:
        procs.stop(proc)
