"""The Benchmarks screen (the fio feature; ``b`` on the dashboard, ``raidtop bench`` on the command line).

- :mod:`.screen`    composition and message handling
- :mod:`.keys`      what each key does, and the dialogs it opens
- :mod:`.workers`   everything that blocks, in thread workers
- :mod:`.messages`  what the workers post, and the job being confirmed
- :mod:`.rows`      tables and lines as pure functions of stored runs

The plot is :class:`raidtop.widgets.fio_plot.FioProgressPlot`; the fio
machinery itself is :mod:`raidtop.actions.fio` (no Textual there).
"""
