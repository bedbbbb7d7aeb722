"""Will the next rebuild succeed? The readiness audit: one rule table, one detector per rule.

:mod:`raidtop.audit.rules` declares each rule once (kind, severity, the
sentence's shape, the fix, its source); :mod:`raidtop.audit.facts` reads the
few sysfs files the snapshot does not carry (bad-block logs, command
timeouts, write caches, partition starts); :mod:`raidtop.audit.detect` judges
the snapshot, those facts and the SMART readings into
:class:`~raidtop.audit.model.Finding` rows. No Textual, no rich.
"""
