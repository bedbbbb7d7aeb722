"""The storage stack: what sits on a block device and what it sits on.

Read from sysfs ``holders/``, ``slaves/``, partitions, ``dm/name`` and
``dm/uuid``, and from ``/proc/self/mountinfo``, all under a :class:`Root`; the
tree is what ``lsblk`` prints, with raidtop's state beside it.
"""
