"""The Benchmarks screen (the fio feature; ``b`` on the dashboard, ``raidtop bench`` on the command line).

- :mod:`.screen`    composition, keys and drawing
- :mod:`.bindings`  the screen's keys, declared once
- :mod:`.data`      :class:`~.data.BenchData`: presets, fio, the results store, exports, the remembered target
- :mod:`.run_flow`  :class:`~.run_flow.BenchRun`: plan, confirm the fio command, run, report
- :mod:`.history`   :class:`~.history.ResultsView`: the history, comparison and passes table
- :mod:`.dialogs`   the target and pass-count questions
- :mod:`.job`       the job being confirmed and run
- :mod:`.rows`      tables and lines as pure functions of stored runs

``BenchData`` and ``BenchRun`` are invisible widgets that own their thread
workers and reach the screen only by posting messages. The plot is
:class:`raidtop.widgets.fio_plot.FioProgressPlot`; the fio machinery itself
is :mod:`raidtop.actions.fio` (no Textual there).
"""
