"""Code that changes the system. Nothing here imports Textual (a test enforces it).

Every change is described by the exact command a user could type, is
confirmed in the UI before it runs, and is appended to the action log.
"""
