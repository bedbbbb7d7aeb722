"""fio benchmarks: presets, guarded targets, live runs, a results history, comparisons.

No Textual here: the Benchmarks screen (raidtop.screens.bench) and ``raidtop bench``
(raidtop.cli.bench) both drive these modules.

- :mod:`.presets`  built-in and user presets (presets.toml)
- :mod:`.guards`   what may be benchmarked (directories; lab or named raw devices)
- :mod:`.command`  the exact fio argv, engine fallback
- :mod:`.process`  the fio subprocess, per-second progress, cancel
- :mod:`.results`  fio JSON 2.1–3.x parsed into dataclasses
- :mod:`.stack`    the target's device stack and the tuning in force
- :mod:`.store`    the SQLite results store (:class:`~.store.RunStore`)
- :mod:`.session`  plan → confirm → execute → store, repeats
- :mod:`.compare`  baseline comparison, repeat statistics, sweeps, export
- :mod:`.prefs`    the remembered target and runtime
"""
