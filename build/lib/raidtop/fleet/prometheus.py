"""Read the fleet from a Prometheus server's HTTP API (``/api/v1/query``)."""

from __future__ import annotations

import json
import time
import urllib.error
import urllib.parse
import urllib.request
from collections import defaultdict
from collections.abc import Callable

from raidtop.fleet.model import FleetArray, FleetHost, FleetMember, FleetReading, worst_first

RESPONSE_LIMIT = 16 * 1024 * 1024
"""Bytes read at most from one answer: a fleet of thousands of arrays is far below."""
STALE_SAMPLE_S = 30.0
"""An exporter whose last sample is older than this has stopped sampling."""
SEEN_WINDOW = "1h"
"""Hosts that exported raidtop metrics within this window are listed, even when down now."""

KNOWN_HOSTS = f"max by (instance) (last_over_time(raidtop_exporter_build_info[{SEEN_WINDOW}]))"
UP = "up"
SAMPLE_AGE = "time() - raidtop_exporter_last_sample_timestamp_seconds"
MD_SERIES = ('{__name__=~"raidtop_md_(state|info|raid_disks|degraded_disks|mismatch_sectors|sync_completed_bytes|'
             'sync_total_bytes|sync_speed_bytes_per_second|sync_eta_seconds|member_role|member_slow|'
             'member_corrected_read_errors)"}')
QUERIES = (KNOWN_HOSTS, UP, SAMPLE_AGE, MD_SERIES)
"""Every PromQL expression the fleet view runs (the tests run them on a real Prometheus)."""


class PrometheusError(Exception):
    """Prometheus could not be asked; ``str()`` is one sentence."""


class PrometheusSource:
    """Fetch :class:`FleetReading` from Prometheus at ``url`` (``http://host:9090``)."""

    def __init__(self, url: str, timeout_s: float = 5.0, clock: Callable[[], float] = time.time) -> None:
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self._clock = clock

    def query(self, expr: str) -> list[dict]:
        """The result vector of an instant query; raises :class:`PrometheusError` with one sentence."""
        address = f"{self.url}/api/v1/query?{urllib.parse.urlencode({'query': expr})}"
        try:
            with urllib.request.urlopen(address, timeout=self.timeout_s) as answer:  # noqa: S310 - http(s) checked by the CLI
                body = answer.read(RESPONSE_LIMIT + 1)
        except urllib.error.HTTPError as exc:
            raise PrometheusError(f"Prometheus at {self.url} answered HTTP {exc.code}: {_api_error(exc)}") from None
        except (urllib.error.URLError, OSError, ValueError) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise PrometheusError(f"Prometheus at {self.url} is unreachable: {reason}") from None
        if len(body) > RESPONSE_LIMIT:
            raise PrometheusError(f"Prometheus at {self.url} sent more than {RESPONSE_LIMIT >> 20} MiB for one query")
        try:
            doc = json.loads(body)
            if doc.get("status") != "success" or doc["data"]["resultType"] != "vector":
                raise ValueError(doc.get("error", "not a vector"))
            return [r for r in doc["data"]["result"] if isinstance(r, dict)]
        except (ValueError, KeyError, TypeError, AttributeError) as exc:
            raise PrometheusError(f"Prometheus at {self.url} sent no usable answer: {str(exc)[:200]}") from None

    def read(self) -> FleetReading:
        """One refresh: every host that exported raidtop metrics in the last hour."""
        now = self._clock()
        try:
            known = {_label(r, "instance") for r in self.query(KNOWN_HOSTS)}
            known.discard("")
            if not known:
                return FleetReading(problem=f"Prometheus at {self.url} has no raidtop metrics: "
                                            "is a `raidtop exporter` in its scrape configuration?", time=now)
            up = {_label(r, "instance"): _value(r) for r in self.query(UP)}
            age = {_label(r, "instance"): _value(r) for r in self.query(SAMPLE_AGE)}
            series = self.query(MD_SERIES)
        except PrometheusError as exc:
            return FleetReading(problem=str(exc), time=now)
        return FleetReading(hosts=worst_first(build_hosts(known, up, age, series)), time=now)


def build_hosts(known: set[str], up: dict[str, float | None], age: dict[str, float | None],
                series: list[dict]) -> list[FleetHost]:
    """Turn query results into hosts (pure, for tests)."""
    arrays: dict[str, dict[str, dict]] = defaultdict(dict)
    members: dict[tuple[str, str], dict[str, dict]] = defaultdict(dict)
    for r in series:
        instance, name = _label(r, "instance"), _label(r, "__name__")
        array = _label(r, "array")
        if instance not in known or not array:
            continue
        fields = arrays[instance].setdefault(array, {})
        value = _value(r)
        metric = name.removeprefix("raidtop_md_")
        if metric == "state" and value == 1:
            fields["state"] = _label(r, "state")
        elif metric == "info":
            fields["level"] = _label(r, "level") or None
        elif metric.startswith("member_"):
            member = members[(instance, array)].setdefault(_label(r, "member"), {})
            if metric == "member_role" and value == 1:
                member["role"] = _label(r, "role")
            elif metric == "member_slow":
                member["slow"] = value == 1
            elif metric == "member_corrected_read_errors" and value is not None:
                member["errors"] = int(value)
        elif metric in ("sync_completed_bytes", "sync_total_bytes"):
            fields["action"] = _label(r, "action") or None
            fields["done_bytes" if metric == "sync_completed_bytes" else "total_bytes"] = value
        else:
            key = {"raid_disks": "raid_disks", "degraded_disks": "degraded", "mismatch_sectors": "mismatch_sectors",
                   "sync_speed_bytes_per_second": "speed_bytes_s", "sync_eta_seconds": "eta_s"}.get(metric)
            if key is not None and value is not None:
                fields[key] = int(value) if key in ("raid_disks", "degraded", "mismatch_sectors") else value
    hosts = []
    for instance in sorted(known):
        problem = _host_problem(instance, up.get(instance, None) if instance in up else "missing", age.get(instance))
        found = []
        for name, fields in arrays.get(instance, {}).items():
            if "state" not in fields:
                continue
            mem = tuple(FleetMember(m, f.get("role", "unknown"), f.get("slow", False), f.get("errors"))
                        for m, f in sorted(members.get((instance, name), {}).items()))
            found.append(FleetArray(name=name, members=mem, **fields))
        hosts.append(FleetHost(instance, tuple(found), problem))
    return hosts


def _host_problem(instance: str, up, age: float | None) -> str | None:
    if up == "missing":
        return "no longer scraped by Prometheus (its target is gone); last data within the hour"
    if up is not None and up < 1:
        return "exporter down: Prometheus's last scrape of it failed"
    if age is not None and age > STALE_SAMPLE_S:
        return f"exporter answers, but its last sample is {age:.0f} s old (sampling stalled)"
    return None


def _label(result: dict, name: str) -> str:
    metric = result.get("metric")
    value = metric.get(name, "") if isinstance(metric, dict) else ""
    return value if isinstance(value, str) else ""


def _value(result: dict) -> float | None:
    try:
        number = float(result["value"][1])
    except (KeyError, IndexError, TypeError, ValueError):
        return None
    return number if number == number else None  # NaN is no value


def _api_error(exc: urllib.error.HTTPError) -> str:
    try:
        return str(json.loads(exc.read(65536)).get("error", exc.reason))[:200]
    except (ValueError, AttributeError, OSError):
        return str(exc.reason)[:200]
