"""Which raw block devices raidtop's lab made: the one question the fio guards ask the lab.

Benchmarks may write to a raw block device only when raidtop's lab made it
(or the user names the device explicitly). The answer comes from the lab's
own registry (:class:`raidtop.actions.lab.registry.LabRegistry`, the only
record of what the lab made) checked against the kernel now, because an
entry alone proves nothing: loop numbers are reused once a device is
detached, a path can be recreated with new content, and anyone who can
write the registry can write any name into it. So:

* a loop device is the lab's only while the registry records it as attached
  to an image *directly in the lab's images folder*, the kernel says it
  holds that very path, and the file it holds is the recorded inode (an
  entry without an inode is refused);
* an md array is the lab's only while the registry records it as active and
  every device the kernel lists for it (spares and faulty ones included) is
  such a loop device.

A damaged or unreadable registry means no lab devices.
"""

from __future__ import annotations

import os
from pathlib import Path

from raidtop.actions.lab.guard import check_array, lab_image_of
from raidtop.actions.lab.loopdev import is_loop_name
from raidtop.actions.lab.registry import LabRegistry, RegistryDamaged
from raidtop.actions.member_actions import ActionRefused
from raidtop.collect.source import Root, as_root


def is_lab_device(name: str, *, path: Path | None = None, root: Root | str = "/") -> bool:
    """True when ``name`` (``loop7``, ``/dev/md127``) is a live device raidtop's lab created.

    ``path`` is the lab's ``registry.json`` (its folder is the lab directory);
    by default the lab's usual one (``$RAIDTOP_LAB_DIR`` or
    ``$XDG_DATA_HOME/raidtop/lab``).
    """
    root = as_root(root)
    name = os.path.basename(name)
    try:
        state = LabRegistry(None if path is None else Path(path).parent).read()
    except RegistryDamaged:
        return False
    if is_loop_name(name):
        return lab_image_of(name, state, root) is not None
    try:
        check_array(name, state, root)
    except ActionRefused:
        return False
    return True
