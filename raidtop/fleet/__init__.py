"""``raidtop fleet``: every host's arrays from Prometheus or over ssh (no Textual here).

:mod:`raidtop.fleet.model` holds the frozen dataclasses both sources return,
:mod:`raidtop.fleet.prometheus` reads them through Prometheus's HTTP API and
:mod:`raidtop.fleet.ssh` from ``raidtop snapshot --json`` run over ssh;
:mod:`raidtop.fleet.http_get` is the one bounded HTTP GET (and the
credentials it carries). Everything read is untrusted: bounded in bytes and
time, every label cleaned, every number finite and in range, shown as plain
text by the screen.
"""
