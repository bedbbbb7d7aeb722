"""The failure lab: md arrays on loop devices to fail, remove, add, replace and time.

No Textual here: the Lab screen (raidtop.screens.lab.screen), ``raidtop lab``
(raidtop.cli.lab) and the Arrays panel's member keys all drive these modules.

- :mod:`.loopdev`    which file (path and inode) a loop device holds
- :mod:`.records`    the frozen dataclasses the registry holds (images, arrays, timelines)
- :mod:`.document`   the registry's JSON, every field type-checked on reading
- :mod:`.registry`   the registry file: bounded reads, atomic writes, before each creation
- :mod:`.images`     the images folder, the only place the lab creates or deletes a file
- :mod:`.commands`   runs, shows and logs every command (action log kind ``lab``)
- :mod:`.preflight`  md driver, personalities, mdadm, losetup, loop, root: what is missing, in words
- :mod:`.spec`       level, disks, size, chunk, bitmap, filesystem: validation and the exact commands
- :mod:`.guard`      only arrays made entirely of the lab's own loop devices may be touched
- :mod:`.timeline`   events and measured rebuilds from successive looks at an array
- :mod:`.core`       :class:`~.core.Lab`: create, observe, wait
- :mod:`.teardown`   stop, detach and delete exactly what the lab made, and report the rest
- :mod:`.members`    :class:`~.members.LabMemberActions`, the MemberActions of lab arrays
- :mod:`.store`      :class:`~.store.LabStore`, SQLite: rebuilds, finished timelines, experiments
- :mod:`.study`      the RAID-level study: repeated runs, filled arrays, writes during a rebuild
- :mod:`.study_results` its figures (declared once), mean ± sd per level, table and CSV
- :mod:`.rebuild_load`  a rebuild with a fio load running through it (the study, the trade-off)

This package imports nothing on its own. :mod:`raidtop.actions.lab_registry`
(the fio guards' one question, "did the lab make this device?") is built on
:mod:`.registry` and :mod:`.guard`; nothing here imports it.
"""
