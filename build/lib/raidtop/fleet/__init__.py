"""``raidtop fleet``: every host's arrays from Prometheus or over ssh (no Textual here).

:mod:`raidtop.fleet.model` holds the frozen dataclasses both sources return,
:mod:`raidtop.fleet.prometheus` reads them through Prometheus's HTTP API and
:mod:`raidtop.fleet.ssh` from ``raidtop snapshot --json`` run over ssh.
Everything read is untrusted text: bounded, parsed defensively, and shown
as plain text by the screen.
"""
