"""``raidtop --demo``: a real recorded rebuild plus a simulated array to break.

No root and no md needed; the header says DEMO — SIMULATED at all times.
"""
