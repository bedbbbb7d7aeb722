"""Readers of /proc and /sys. Nothing here imports Textual (a test enforces it).

Every reader takes a filesystem root (default ``/``) so the same code reads the
live host, a fixture tree under tests/data, or a recorded trace.
"""
