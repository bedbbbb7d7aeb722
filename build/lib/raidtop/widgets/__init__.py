"""Widgets: one per module, CSS inside, no I/O."""
