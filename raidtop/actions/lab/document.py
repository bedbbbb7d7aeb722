"""The lab registry's JSON document, and the check that every field is what it claims.

The registry is a file anyone with write access to the lab directory can
edit, and a crash or a full disk can leave it half written, so nothing in it
is used before it is checked: every field of every record must have the type
its dataclass declares (an ``inode`` of ``"12"`` is damage, not a number),
numbers must be finite and not negative, names must be kernel names
(``loop7``, ``md100``: they become ``/dev/…`` and ``/sys/block/…`` paths) and
no text may hold a control character. One bad field makes the whole
document damaged (:class:`DocumentError`, one sentence saying which field),
because a registry that is partly wrong is no guide to what the lab made.
Keys this raidtop does not know are ignored, so an older raidtop reads a
newer document.
"""

from __future__ import annotations

import functools
import math
import re
import types
import typing
from dataclasses import MISSING, asdict, fields, is_dataclass
from typing import Any

from raidtop.actions.lab.records import ARRAY_STATES, IMAGE_STATES, ArrayRecord, ImageRecord, LabState
from raidtop.untrusted import has_controls

REGISTRY_VERSION = 1
_LOOP = re.compile(r"^loop\d{1,6}$")
_MD = re.compile(r"^md\d{1,6}$")
_MAX_INT = 2**64
"""Larger than any inode or size the lab records; a bigger whole number is damage."""
_MAX_FLOAT = 1e10
"""Every float in the registry is a Unix time or a duration: 1e10 s is the year 2286,
while a time near 1e19 overflows the clock functions that show it."""
_KIND_WORDS = {str: "a string", int: "a whole number", float: "a number", bool: "true or false"}


class DocumentError(ValueError):
    """The document is not a lab registry; ``str()`` names the field and what is wrong with it."""


def state_to_json(state: LabState) -> dict[str, Any]:
    """The registry document of ``state``."""
    return {
        "version": REGISTRY_VERSION,
        "images": [_drop_none(asdict(i)) for i in state.images],
        "arrays": [_array_json(a) for a in state.arrays],
    }


def state_from_json(doc: Any, images_dir: str = "") -> LabState:
    """Check and parse a registry document; raises :class:`DocumentError` when it is not one."""
    if not isinstance(doc, dict):
        raise DocumentError("it is not a JSON object")
    version = doc.get("version", REGISTRY_VERSION)
    if version != REGISTRY_VERSION or isinstance(version, bool):
        raise DocumentError(f"its version is not {REGISTRY_VERSION}, the only one this raidtop reads")
    images = tuple(_parse(ImageRecord, raw, f"images[{n}]") for n, raw in enumerate(_list(doc, "images")))
    arrays = tuple(_parse(ArrayRecord, raw, f"arrays[{n}]") for n, raw in enumerate(_list(doc, "arrays")))
    for n, image in enumerate(images):
        _check_image(image, f"images[{n}]")
    for n, array in enumerate(arrays):
        if not _MD.match(array.name):
            raise DocumentError(f"arrays[{n}].name is not an md device name")
        if array.state not in ARRAY_STATES:
            raise DocumentError(f"arrays[{n}].state is not one of {', '.join(ARRAY_STATES)}")
    return LabState(images, arrays, images_dir)


def _check_image(image: ImageRecord, where: str) -> None:
    if image.state not in IMAGE_STATES:
        raise DocumentError(f"{where}.state is not one of {', '.join(IMAGE_STATES)}")
    if not image.path.startswith("/"):
        raise DocumentError(f"{where}.path is not an absolute path")
    if image.loop is not None and not _LOOP.match(image.loop):
        raise DocumentError(f"{where}.loop is not a loop device name")
    if image.array is not None and not _MD.match(image.array):
        raise DocumentError(f"{where}.array is not an md device name")


def _list(doc: dict[str, Any], key: str) -> list[Any]:
    value = doc.get(key, [])
    if not isinstance(value, list):
        raise DocumentError(f"{key} is not a list")
    return value


def _parse(kind: type, raw: Any, where: str) -> Any:
    """A ``kind`` dataclass from ``raw``, every field checked against its declared type."""
    if not isinstance(raw, dict):
        raise DocumentError(f"{where} is not an object")
    hints = _hints(kind)
    values = {}
    for item in fields(kind):
        if item.name in raw:
            values[item.name] = _value(hints[item.name], raw[item.name], f"{where}.{item.name}")
        elif item.default is MISSING:
            raise DocumentError(f"{where} has no {item.name}")
    return kind(**values)


@functools.cache
def _hints(kind: type) -> dict[str, Any]:
    return typing.get_type_hints(kind)


def _value(hint: Any, raw: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if origin in (typing.Union, types.UnionType):
        if raw is None:
            return None
        (inner,) = [arg for arg in typing.get_args(hint) if arg is not type(None)]
        return _value(inner, raw, where)
    if origin is tuple:
        if not isinstance(raw, list):
            raise DocumentError(f"{where} is not a list")
        inner = typing.get_args(hint)[0]
        # JSON has no tuples; the dataclasses hold tuples so they compare and hash.
        return tuple(_value(inner, item, f"{where}[{n}]") for n, item in enumerate(raw))
    if is_dataclass(hint):
        return _parse(typing.cast(type, hint), raw, where)
    return _scalar(hint, raw, where)


def _scalar(hint: type, raw: Any, where: str) -> Any:
    # bool is an int in Python, but true is not an inode.
    if hint is bool:
        ok = isinstance(raw, bool)
    elif hint is int:
        ok = isinstance(raw, int) and not isinstance(raw, bool)
    elif hint is float:
        ok = isinstance(raw, (int, float)) and not isinstance(raw, bool)
    else:
        ok = isinstance(raw, str)
    if not ok:
        raise DocumentError(f"{where} is {_describe(raw)}, not {_KIND_WORDS.get(hint, 'what the lab writes')}")
    if hint is str:
        if has_controls(raw):
            raise DocumentError(f"{where} holds a control character")
        return raw
    if hint is bool:
        return raw
    # json reads NaN and Infinity; a time of NaN breaks every clock that shows it.
    if not math.isfinite(raw) or not 0 <= raw < (_MAX_FLOAT if hint is float else _MAX_INT):
        raise DocumentError(f"{where} is out of range")
    return float(raw) if hint is float else raw


def _describe(raw: Any) -> str:
    if raw is None:
        return "null"
    for kind, words in (
        (bool, "true or false"),
        (str, "a string"),
        (int, "a whole number"),
        (float, "a number"),
        (list, "a list"),
        (dict, "an object"),
    ):
        if isinstance(raw, kind):
            return words
    return "something else"


def _array_json(array: ArrayRecord) -> dict[str, Any]:
    out = _drop_none(
        {f.name: getattr(array, f.name) for f in fields(array) if f.name not in ("timeline", "rebuilds", "watch")}
    )
    out["timeline"] = [_drop_none(asdict(e)) for e in array.timeline]
    out["rebuilds"] = [_drop_none(asdict(r)) for r in array.rebuilds]
    if array.watch is not None:
        out["watch"] = _drop_none(asdict(array.watch))
    return out


def _drop_none(values: dict[str, Any]) -> dict[str, Any]:
    return {k: (list(v) if isinstance(v, tuple) else v) for k, v in values.items() if v is not None}


__all__ = ["DocumentError", "REGISTRY_VERSION", "state_from_json", "state_to_json"]
