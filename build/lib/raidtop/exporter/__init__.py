"""``raidtop exporter``: raidtop's md knowledge as Prometheus metrics.

No Textual and no Rich here: the metrics are built from the same Snapshot the
dashboard shows (:mod:`raidtop.exporter.metrics`), sampling runs on its own
thread (:mod:`raidtop.exporter.service`) and a scrape only hands out what the
last sample built, so it never waits on sysfs.
"""
