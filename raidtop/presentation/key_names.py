"""How a bound key is written for people, and which character it types, without Unicode name lookups.

Textual finds both by looking a key's name up in the Unicode database
(``unicodedata.lookup("QUESTION MARK")``): for the footer's labels, and for
every key of the binding chain when a screen's bindings are gathered. Each
lookup touches pages of that table, and the dashboard's keys had made 0.9 MB
of it resident for the life of the process. The keys raidtop binds are
ASCII or named keys, so their answers are written down here (the tests hold
them to Textual's); a key not listed is left to Textual.
"""

from __future__ import annotations

_ASCII_NAMED = {
    "exclamation_mark": "!",
    "quotation_mark": '"',
    "number_sign": "#",
    "dollar_sign": "$",
    "percent_sign": "%",
    "ampersand": "&",
    "apostrophe": "'",
    "left_parenthesis": "(",
    "right_parenthesis": ")",
    "asterisk": "*",
    "plus": "+",
    "comma": ",",
    "minus": "-",
    "full_stop": ".",
    "slash": "/",
    "colon": ":",
    "semicolon": ";",
    "less_than_sign": "<",
    "equals_sign": "=",
    "greater_than_sign": ">",
    "question_mark": "?",
    "at": "@",
    "left_square_bracket": "[",
    "backslash": "\\",
    "right_square_bracket": "]",
    "circumflex_accent": "^",
    "underscore": "_",
    "grave_accent": "`",
    "left_curly_bracket": "{",
    "vertical_line": "|",
    "right_curly_bracket": "}",
    "tilde": "~",
}
"""Textual's name of each ASCII punctuation key, and its character (which is also how it is shown)."""

_NAMED_KEYS: dict[str, tuple[str, str | None]] = {
    # name: (how Textual shows it, the character it types)
    "up": ("↑", None),
    "down": ("↓", None),
    "left": ("←", None),
    "right": ("→", None),
    "backspace": ("⌫", "\x08"),
    "escape": ("esc", "\x1b"),
    "enter": ("⏎", None),
    "space": ("space", " "),
    "pagedown": ("pgdn", None),
    "pageup": ("pgup", None),
    "delete": ("del", "\x7f"),
    "tab": ("tab", "\t"),
    "home": ("home", None),
    "end": ("end", None),
    "insert": ("insert", None),
    **{f"f{n}": (f"f{n}", None) for n in range(1, 25)},
}

_NO_CHARACTER = {"plus", "minus", "slash", "at", "backslash", "underscore"}
"""Names Textual finds no character for (Unicode says PLUS SIGN, SOLIDUS, LOW LINE...): neither does raidtop."""

_KNOWN = {
    **{name: (char, None if name in _NO_CHARACTER else char) for name, char in _ASCII_NAMED.items()},
    **_NAMED_KEYS,
}


def _known(name: str) -> tuple[str, str | None] | None:
    """(display, character) of one key without modifiers, or None for a key Textual must look up."""
    known = _KNOWN.get(name)
    if known is None and len(name) == 1 and name.isascii() and name.isalnum():
        return name, name
    return known


def key_display(key: str) -> str:
    """``key`` (one key of a binding, such as ``ctrl+p`` or ``question_mark``) as Textual's footer writes it."""
    *modifiers, name = key.split("+")
    known = _known(name)
    if known is not None:
        shown = known[0]
    else:
        from textual.keys import format_key

        shown = format_key(name)
    if "ctrl" in modifiers:
        modifiers.remove("ctrl")
        shown = f"^{shown}"
    return "+".join([*modifiers, shown])


def key_character(key: str, textual_lookup) -> str | None:
    """The character ``key`` types (None for a key with a modifier or no character), as Textual's
    ``key_to_character`` says; ``textual_lookup`` (that function) answers for keys not listed here."""
    if "+" in key:
        return None  # a modifier other than shift: not a printable key (Textual's rule)
    known = _known(key)
    return known[1] if known is not None else textual_lookup(key)
