"""The built-in themes, one TOML file each.

This folder sits at the top of the repository, beside ``raidtop/``, so that
themes are found where a newcomer looks for them; the build ships it inside
the package as ``raidtop.themes.builtin`` (see pyproject.toml), and
:mod:`raidtop.themes` reads it through importlib.resources.
"""
