"""``raidtop fleet --prometheus`` with credentials from files and a CA bundle, against a real Prometheus.

Prometheus serves HTTPS with a certificate from a throw-away CA and asks for
basic auth (its own ``--web.config.file``); the fleet view must get in with
``--basic-auth-file`` and ``--ca-file``, and say in words why not without
them. Prometheus cannot check a bearer token, so that header is checked on a
small local server.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import warnings
from pathlib import Path

import pytest

from raidtop.fleet.http_get import FetchError, credentials
from raidtop.fleet.prometheus import PrometheusSource
from tests.exporter import hostile_servers, procs

with warnings.catch_warnings():
    warnings.simplefilter("ignore", DeprecationWarning)
    import crypt  # glibc's bcrypt ($2b$), the hash Prometheus's basic_auth_users takes (3.11 has it)

pytestmark = pytest.mark.skipif(
    shutil.which("prometheus") is None or shutil.which("openssl") is None,
    reason="needs Debian's prometheus and openssl",
)


def make_ca(tmp: Path) -> tuple[Path, Path, Path]:
    """A CA and a server certificate for 127.0.0.1 signed by it: (ca.pem, server.pem, server.key)."""
    run = lambda *args: subprocess.run(["openssl", *args], check=True, capture_output=True, cwd=tmp)  # noqa: E731
    run(
        "req",
        "-x509",
        "-newkey",
        "rsa:2048",
        "-nodes",
        "-keyout",
        "ca.key",
        "-out",
        "ca.pem",
        "-days",
        "1",
        "-subj",
        "/CN=raidtop test CA",
    )
    run("req", "-newkey", "rsa:2048", "-nodes", "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
    (tmp / "san.ext").write_text("subjectAltName=IP:127.0.0.1\n")
    run(
        "x509",
        "-req",
        "-in",
        "server.csr",
        "-CA",
        "ca.pem",
        "-CAkey",
        "ca.key",
        "-CAcreateserial",
        "-out",
        "server.pem",
        "-days",
        "1",
        "-extfile",
        "san.ext",
    )
    return tmp / "ca.pem", tmp / "server.pem", tmp / "server.key"


def secret(tmp: Path, name: str, text: str, mode: int = 0o600) -> Path:
    path = tmp / name
    path.write_text(text + "\n")
    path.chmod(mode)
    return path


@pytest.fixture
def secured_prometheus(tmp_path):
    ca, cert, key = make_ca(tmp_path)
    web = tmp_path / "web.yml"
    web.write_text(
        "\n".join(
            [
                "tls_server_config:",
                f"  cert_file: {cert}",
                f"  key_file: {key}",
                "basic_auth_users:",
                f"  fleet: '{crypt.crypt('s3cret pass', crypt.mksalt(crypt.METHOD_BLOWFISH))}'",
                "",
            ]
        )
    )
    config = tmp_path / "prometheus.yml"
    config.write_text("global:\n  scrape_interval: 1s\nscrape_configs: []\n")
    port = procs.free_port()
    proc = subprocess.Popen(
        [
            "prometheus",
            f"--config.file={config}",
            f"--storage.tsdb.path={tmp_path / 'data'}",
            f"--web.listen-address=127.0.0.1:{port}",
            f"--web.config.file={web}",
            "--log.level=warn",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"https://127.0.0.1:{port}"
    auth = credentials(basic_auth_file=secret(tmp_path, "auth", "fleet:s3cret pass"), ca_file=ca)
    for _ in range(300):
        problem = PrometheusSource(url, auth=auth).read().problem
        if problem is not None and "has no raidtop metrics" in problem:
            break
        time.sleep(0.2)
    yield url, ca, tmp_path
    procs.stop(proc)


def test_basic_auth_from_a_file_and_a_ca_bundle_get_in(secured_prometheus) -> None:
    url, ca, tmp = secured_prometheus
    auth = credentials(basic_auth_file=secret(tmp, "good", "fleet:s3cret pass"), ca_file=ca)
    # In: Prometheus answers (it scrapes no raidtop yet, and says so).
    assert "has no raidtop metrics" in PrometheusSource(url, auth=auth).read().problem
    wrong = credentials(basic_auth_file=secret(tmp, "wrong", "fleet:guess"), ca_file=ca)
    assert PrometheusSource(url, auth=wrong).read().problem == f"Prometheus at {url} answered HTTP 401: no reason given"
    untrusted = credentials(basic_auth_file=secret(tmp, "good2", "fleet:s3cret pass"))
    problem = PrometheusSource(url, auth=untrusted).read().problem
    assert problem.startswith(f"Prometheus at {url} is unreachable") and "CERTIFICATE_VERIFY_FAILED" in problem


def test_a_bearer_token_is_sent_from_its_file_and_never_shown(tmp_path) -> None:
    answer = json.dumps({"status": "success", "data": {"resultType": "vector", "result": []}}).encode()
    server = hostile_servers.answering(lambda: answer, "application/json")
    try:
        auth = credentials(bearer_token_file=secret(tmp_path, "token", "tok-123"))
        reading = PrometheusSource(server.url, auth=auth).read()
    finally:
        server.close()
    assert b"Authorization: Bearer tok-123\r\n" in server.requests[0]
    assert "tok-123" not in repr(auth) and "tok-123" not in (reading.problem or "")


def test_secret_files_others_can_read_or_links_are_refused(tmp_path) -> None:
    with pytest.raises(FetchError, match="readable by every user"):
        credentials(bearer_token_file=secret(tmp_path, "open", "tok", 0o644))
    link = tmp_path / "link"
    link.symlink_to(secret(tmp_path, "real", "tok"))
    with pytest.raises(FetchError, match="symbolic link"):
        credentials(bearer_token_file=link)
    with pytest.raises(FetchError, match="USER:PASSWORD"):
        credentials(basic_auth_file=secret(tmp_path, "nocolon", "just-a-password"))


def test_the_cli_refuses_before_any_screen(tmp_path) -> None:
    env = dict(os.environ, PYTHONPATH=str(procs.REPO))
    for args, said in (
        (
            ["--prometheus", "http://127.0.0.1:9", "--bearer-token-file", str(secret(tmp_path, "o", "t", 0o644))],
            "readable by every user",
        ),
        (["--ssh", "db1", "--ca-file", str(tmp_path / "ca.pem")], "are for --prometheus"),
        (
            [
                "--prometheus",
                "http://127.0.0.1:9",
                "--bearer-token-file",
                str(secret(tmp_path, "a", "t")),
                "--basic-auth-file",
                str(secret(tmp_path, "b", "u:p")),
            ],
            "not both",
        ),
    ):
        done = subprocess.run(
            [sys.executable, "-m", "raidtop", "fleet", *args],
            cwd=procs.REPO,
            env=env,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
        )
        assert done.returncode == 2 and said in done.stderr and "Traceback" not in done.stderr, done.stderr
