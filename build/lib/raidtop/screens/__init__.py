"""Screens: the dashboard, help and dialogs."""
