"""``@frozen_dataclass``: a frozen dataclass whose compared, hashed and shown fields are read by shared methods.

Python 3.11's ``dataclass`` writes and compiles ``__eq__``, ``__hash__``,
``__repr__``, ``__setattr__`` and ``__delattr__`` for every class, and with
``slots=True`` the last two keep alive the class as it was before its slots
were added (they close over it): 14.5 KB a five-field class, measured with
tracemalloc. raidtop has about 170 frozen classes. This decorator makes the
dataclass as ``dataclass(frozen=True, slots=True)`` does and then puts one
shared function in place of each of those five, reading the fields from the
class: 5.7 KB a class, with the same results (the same tuples compared and
hashed, the same text shown). ``__init__`` stays the generated one.

A method the class defines itself is kept, as ``dataclass`` keeps it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import FrozenInstanceError, dataclass, field, fields
from operator import attrgetter
from reprlib import recursive_repr
from typing import Any, TypeVar, dataclass_transform, overload

_T = TypeVar("_T")


@overload
def frozen_dataclass(cls: type[_T], /) -> type[_T]: ...


@overload
def frozen_dataclass(*, slots: bool = True, repr: bool = True) -> Callable[[type[_T]], type[_T]]: ...


@dataclass_transform(frozen_default=True, field_specifiers=(field,))
def frozen_dataclass(cls: type[Any] | None = None, /, *, slots: bool = True, repr: bool = True) -> Any:
    """``@dataclass(frozen=True, slots=slots, repr=repr)``, then its generated methods shared (see the module)."""

    def make(cls: type[Any]) -> type[Any]:
        written = set(cls.__dict__)  # what the class defines itself, which dataclass keeps
        made = dataclass(frozen=True, slots=slots, repr=repr)(cls)
        _share_methods(made, written)
        return made

    return make if cls is None else make(cls)


def _share_methods(cls: type[Any], written: set[str]) -> None:
    """Put the shared methods in place of the ones ``dataclass`` wrote into ``cls`` (not in ``written``)."""
    generated = set(cls.__dict__) - written
    every = fields(cls)
    shared: dict[str, Any] = {"__setattr__": _frozen_setattr, "__delattr__": _frozen_delattr}
    if "__eq__" in generated:
        cls.__compared__ = _tuple_of([f.name for f in every if f.compare])
        shared["__eq__"] = _eq
    if "__hash__" in generated:
        cls.__hashed__ = _tuple_of([f.name for f in every if (f.compare if f.hash is None else f.hash)])
        shared["__hash__"] = _hash
    if "__repr__" in generated:
        cls.__shown__ = tuple(f.name for f in every if f.repr)
        shared["__repr__"] = _repr
    for name, method in shared.items():
        # type.__setattr__: the class's own (frozen) __setattr__ guards instances, not the class.
        type.__setattr__(cls, name, method)


def _tuple_of(names: list[str]) -> Callable[[Any], tuple]:
    """A function giving ``obj``'s values of ``names`` as a tuple, as the generated methods build it."""
    if len(names) > 1:
        return attrgetter(*names)
    if names:
        one = attrgetter(names[0])
        return lambda obj: (one(obj),)
    return lambda obj: ()


def _frozen_setattr(self: object, name: str, value: object) -> None:
    raise FrozenInstanceError(f"cannot assign to field {name!r}")


def _frozen_delattr(self: object, name: str) -> None:
    raise FrozenInstanceError(f"cannot delete field {name!r}")


def _eq(self: Any, other: Any) -> bool:
    if other.__class__ is self.__class__:
        compared = self.__class__.__compared__
        return compared(self) == compared(other)
    return NotImplemented


def _hash(self: Any) -> int:
    return hash(self.__class__.__hashed__(self))


@recursive_repr()
def _repr(self: Any) -> str:
    shown = ", ".join(f"{name}={getattr(self, name)!r}" for name in self.__class__.__shown__)
    return f"{self.__class__.__qualname__}({shown})"
