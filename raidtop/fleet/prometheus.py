"""Read the fleet from a Prometheus server's HTTP API (``/api/v1/query``, ``/api/v1/alerts``).

Everything Prometheus answers was written by whatever it scrapes (a
compromised host, a pushgateway): every label goes through
:func:`~raidtop.untrusted.plain`, every value through
:func:`~raidtop.untrusted.finite` / :func:`~raidtop.untrusted.count`, and a
host whose values raidtop cannot use is that one host marked unreadable.
"""

from __future__ import annotations

import json
import time
import urllib.parse
from collections import Counter, defaultdict
from collections.abc import Callable
from typing import Any

from raidtop.fleet.http_get import Credentials, FetchError, TimedOut, get
from raidtop.fleet.model import NAME_LIMIT, FleetArray, FleetHost, FleetMember, FleetReading, UnusableValue, worst_first
from raidtop.untrusted import COUNT_LIMIT, count, finite, plain

RESPONSE_LIMIT = 16 * 1024 * 1024
"""Bytes read at most from one answer: a fleet of thousands of arrays is far below."""
STALE_SAMPLE_S = 30.0
"""An exporter whose last sample is older than this has stopped sampling."""
SEEN_WINDOW = "1h"
"""Hosts that exported raidtop metrics within this window are listed, even when down now."""
TIMEOUT_S = 10.0
"""The whole of one refresh (all its queries), connect to last byte: a server that dribbles is cut off here."""
MAX_DISKS = 65536
"""md's 1.x superblock holds at most 1920 devices; a larger count is no count."""

KNOWN_HOSTS = f"max by (instance) (last_over_time(raidtop_exporter_build_info[{SEEN_WINDOW}]))"
UP = "up"
SAMPLE_AGE = "time() - raidtop_exporter_last_sample_timestamp_seconds"
MD_SERIES = (
    '{__name__=~"raidtop_md_(state|info|raid_disks|degraded_disks|mismatch_sectors|sync_completed_bytes|'
    'sync_total_bytes|sync_speed_bytes_per_second|sync_eta_seconds|member_role|member_slow|'
    'member_corrected_read_errors)"}'
)
NODENAMES = "raidtop_exporter_node_info"
QUERIES = (KNOWN_HOSTS, UP, SAMPLE_AGE, MD_SERIES, NODENAMES)
"""Every PromQL expression the fleet view runs (the tests run them on a real Prometheus)."""

# metric -> (field of FleetArray, parse): one entry per numeric series the view shows.
_ARRAY_NUMBERS: dict[str, tuple[str, Callable[[object], float | int | None]]] = {
    "raid_disks": ("raid_disks", lambda v: count(v, MAX_DISKS)),
    "degraded_disks": ("degraded", lambda v: count(v, MAX_DISKS)),
    "mismatch_sectors": ("mismatch_sectors", count),
    "sync_completed_bytes": ("done_bytes", lambda v: finite(v, 0, COUNT_LIMIT)),
    "sync_total_bytes": ("total_bytes", lambda v: finite(v, 0, COUNT_LIMIT)),
    "sync_speed_bytes_per_second": ("speed_bytes_s", lambda v: finite(v, 0, COUNT_LIMIT)),
    "sync_eta_seconds": ("eta_s", lambda v: finite(v, 0, COUNT_LIMIT)),
}


class PrometheusError(Exception):
    """Prometheus could not be asked; ``str()`` is one sentence."""


class PrometheusSource:
    """Fetch :class:`FleetReading` from Prometheus at ``url`` (``http://host:9090``)."""

    def __init__(
        self,
        url: str,
        timeout_s: float = TIMEOUT_S,
        clock: Callable[[], float] = time.time,
        auth: Credentials = Credentials(),
    ) -> None:
        self.url = url.rstrip("/")
        self.timeout_s = timeout_s
        self.auth = auth
        self._clock = clock
        self._deadline: float | None = None

    def _api(self, path: str, **params: str) -> dict[str, Any]:
        address = f"{self.url}/api/v1/{path}" + (f"?{urllib.parse.urlencode(params)}" if params else "")
        left = self.timeout_s if self._deadline is None else self._deadline - time.monotonic()
        if left <= 0:
            raise PrometheusError(
                f"Prometheus at {plain(self.url)} is unreachable: no complete answer within {self.timeout_s:g} s"
            )
        try:
            answer = get(address, timeout_s=left, limit=RESPONSE_LIMIT, auth=self.auth)
        except TimedOut:
            raise PrometheusError(
                f"Prometheus at {plain(self.url)} is unreachable: no complete answer within {self.timeout_s:g} s"
            ) from None
        except FetchError as exc:
            raise PrometheusError(f"Prometheus at {plain(self.url)} is unreachable: {exc}") from None
        try:
            doc = json.loads(answer.body)
        except (ValueError, RecursionError):
            doc = None
        if answer.status != 200:
            said = doc.get("error") if isinstance(doc, dict) else None
            raise PrometheusError(
                f"Prometheus at {plain(self.url)} answered HTTP {answer.status}: "
                f"{plain(said if isinstance(said, str) else 'no reason given')[:200]}"
            )
        if not isinstance(doc, dict) or doc.get("status") != "success" or not isinstance(doc.get("data"), dict):
            raise PrometheusError(f"Prometheus at {plain(self.url)} sent no usable answer")
        return doc["data"]

    def query(self, expr: str) -> list[dict]:
        """The result vector of an instant query; raises :class:`PrometheusError` with one sentence."""
        data = self._api("query", query=expr)
        if data.get("resultType") != "vector" or not isinstance(data.get("result"), list):
            raise PrometheusError(f"Prometheus at {plain(self.url)} sent no usable answer: not a vector")
        return [r for r in data["result"] if isinstance(r, dict)]

    def firing(self) -> dict[str, tuple[str, ...]]:
        """instance -> names of its firing alerts (Prometheus's ``/api/v1/alerts``)."""
        data = self._api("alerts")
        alerts = data.get("alerts") if isinstance(data, dict) else None
        found: dict[str, set[str]] = defaultdict(set)
        for alert in alerts if isinstance(alerts, list) else ():
            if isinstance(alert, dict) and alert.get("state") == "firing":
                instance, name = _label(alert, "instance", "labels"), _label(alert, "alertname", "labels")
                if instance and name:
                    found[instance].add(name)
        return {instance: tuple(sorted(names)) for instance, names in found.items()}

    def read(self) -> FleetReading:
        """One refresh: every host that exported raidtop metrics in the last hour."""
        now = self._clock()
        self._deadline = time.monotonic() + self.timeout_s
        try:
            known = {_label(r, "instance") for r in self.query(KNOWN_HOSTS)}
            known.discard("")
            if not known:
                return FleetReading(
                    problem=f"Prometheus at {plain(self.url)} has no raidtop metrics: "
                    "is a `raidtop exporter` in its scrape configuration?",
                    time=now,
                )
            up = {_label(r, "instance"): finite(_raw(r)) for r in self.query(UP)}
            age = {_label(r, "instance"): finite(_raw(r)) for r in self.query(SAMPLE_AGE)}
            names = {_label(r, "instance"): _label(r, "nodename") for r in self.query(NODENAMES)}
            series = self.query(MD_SERIES)
            alerts = self.firing()
        except PrometheusError as exc:
            return FleetReading(problem=str(exc), time=now)
        finally:
            self._deadline = None
        return FleetReading(hosts=worst_first(build_hosts(known, up, age, series, names, alerts)), time=now)


def build_hosts(
    known: set[str],
    up: dict[str, float | None],
    age: dict[str, float | None],
    series: list[dict],
    names: dict[str, str] | None = None,
    alerts: dict[str, tuple[str, ...]] | None = None,
) -> list[FleetHost]:
    """Turn query results into hosts (pure, for tests); a host with an unusable value is marked unreadable."""
    by_instance: dict[str, list[dict]] = defaultdict(list)
    for r in series:
        by_instance[_label(r, "instance")].append(r)
    shown = host_names(known, names or {})
    hosts = []
    for instance in sorted(known):
        problem = _host_problem(up.get(instance) if instance in up else "missing", age.get(instance))
        try:
            arrays = _arrays(by_instance.get(instance, []))
        except UnusableValue as exc:
            arrays, problem = (), problem or f"sent a value raidtop cannot use: {exc}"
        hosts.append(
            FleetHost(instance, arrays, problem, shown=shown[instance], alerts=(alerts or {}).get(instance, ()))
        )
    return hosts


def host_names(known: set[str], names: dict[str, str]) -> dict[str, str]:
    """instance -> what to call it: its node name, else the target's host; the instance too when names repeat."""
    first = {i: names.get(i) or _target_host(i) for i in known}
    repeated = {n for n, times in Counter(first.values()).items() if times > 1}
    return {i: f"{n} ({i})" if n in repeated and n != i else n for i, n in first.items()}


def _arrays(series: list[dict]) -> tuple[FleetArray, ...]:
    arrays: dict[str, dict] = {}
    members: dict[str, dict[str, dict]] = defaultdict(dict)
    for r in series:
        name, array = _label(r, "__name__"), _label(r, "array")
        if not array:
            continue
        fields = arrays.setdefault(array, {})
        metric = name.removeprefix("raidtop_md_")
        raw = _raw(r)
        if metric == "state":
            if _flag(raw, name, array) == 1:
                fields["state"] = _label(r, "state")
        elif metric == "info":
            fields["level"] = _label(r, "level") or None
        elif metric.startswith("member_"):
            member = members[array].setdefault(_label(r, "member"), {})
            if metric == "member_role" and _flag(raw, name, array) == 1:
                member["role"] = _label(r, "role")
            elif metric == "member_slow":
                member["slow"] = _flag(raw, name, array) == 1
            elif metric == "member_corrected_read_errors":
                member["errors"] = _checked(count(raw), raw, name, array)
        elif metric in _ARRAY_NUMBERS:
            key, parse = _ARRAY_NUMBERS[metric]
            fields[key] = _checked(parse(raw), raw, name, array)
            if metric in ("sync_completed_bytes", "sync_total_bytes"):
                fields["action"] = _label(r, "action") or None
    found = []
    for name, fields in arrays.items():
        if "state" not in fields:
            continue
        mem = tuple(
            FleetMember(m, f.get("role", "unknown"), f.get("slow", False), f.get("errors"))
            for m, f in sorted(members.get(name, {}).items())
        )
        found.append(FleetArray(name=name, members=mem, **fields))
    return tuple(found)


def _checked(value, raw: object, metric: str, array: str):
    if value is None:
        raise UnusableValue(f"{plain(metric)}{{array={plain(array)!r}}} = {plain(str(raw))[:40]}")
    return value


def _flag(raw: object, metric: str, array: str) -> float:
    return _checked(finite(raw, 0, 1), raw, metric, array)


def _host_problem(up, age: float | None) -> str | None:
    if up == "missing":
        return "no longer scraped by Prometheus (its target is gone); last data within the hour"
    if up is not None and up < 1:
        return "exporter down: Prometheus's last scrape of it failed"
    if age is not None and age > STALE_SAMPLE_S:
        return f"exporter answers, but its last sample is {age:.0f} s old (sampling stalled)"
    return None


def _target_host(instance: str) -> str:
    host, sep, port = instance.rpartition(":")
    return host.strip("[]") if sep and port.isdigit() and host else instance


def _label(result: dict, name: str, key: str = "metric") -> str:
    """A label's value, cleaned: labels are whatever the scraped host wrote."""
    labels = result.get(key)
    value = labels.get(name, "") if isinstance(labels, dict) else ""
    return plain(value[:NAME_LIMIT]) if isinstance(value, str) else ""


def _raw(result: dict) -> object:
    value = result.get("value")
    return value[1] if isinstance(value, list) and len(value) == 2 else None
