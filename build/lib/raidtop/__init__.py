"""raidtop: a live terminal dashboard for Linux storage and md software RAID."""

__version__ = "0.1.0"
