"""Wake the sampler when a block device is added, removed or changed.

With udev running, raidtop listens to udev's events (sent after udev has
updated its database, so the new disk's model and serial are readable);
without udev, it listens to the kernel's own uevents, which need no daemon.
Either way a pulled disk shows within a second instead of at the next tick.
"""

from __future__ import annotations

import os
from collections.abc import Callable

from raidtop.collect.source import Root


class BlockDeviceWatcher:
    """Calls ``on_event(action, device_name)`` from a background thread."""

    def __init__(self, root: Root, on_event: Callable[[str, str], None]) -> None:
        self._root = root
        self._on_event = on_event
        self._observer = None
        self.source: str | None = None
        """``udev`` or ``kernel`` once started."""

    def start(self) -> str | None:
        """Start listening; return ``None``, or a sentence saying why not."""
        if not self._root.is_live:
            return "device events are only watched on the live system (not with --root)"
        try:
            import pyudev
        except ImportError:
            return "pyudev is not installed: device changes show at the next sample"
        source = "udev" if os.path.exists("/run/udev/control") else "kernel"
        try:
            context = pyudev.Context()
            monitor = pyudev.Monitor.from_netlink(context, source=source)
            monitor.filter_by("block")
            observer = pyudev.MonitorObserver(monitor, callback=self._forward, name="raidtop-uevents")
            observer.daemon = True
            observer.start()
        except Exception as exc:  # noqa: BLE001 - netlink needs privileges some containers deny
            return f"cannot listen for device events ({exc}); changes show at the next sample"
        self._observer, self.source = observer, source
        return None

    def _forward(self, device) -> None:
        self._on_event(device.action or "change", device.sys_name)

    def stop(self) -> None:
        """Stop the listening thread."""
        if self._observer is not None:
            self._observer.send_stop()
            self._observer = None
