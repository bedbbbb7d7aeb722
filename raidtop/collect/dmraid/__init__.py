"""LVM RAID (dm-raid) logical volumes as arrays, from ``dmsetup status --target raid``.

dm-raid runs md's personalities inside device-mapper; the kernel's status
line (Documentation/admin-guide/device-mapper/dm-raid.rst) carries the level,
each leg's health, the sync ratio and action and the mismatch count, which is
all the Arrays panel shows for an md array. Each volume becomes an
:class:`~raidtop.model.md.MdArray` with ``source="dm-raid"``, so events, ETA
and the exporter follow the md rules unchanged.
"""
