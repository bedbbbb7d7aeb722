"""``frozen_dataclass`` behaves as ``dataclass(frozen=True, slots=True)`` and holds less.

Each case is a class made both ways from the same body; every answer the
shared methods give is held to the one the generated methods give.
"""

from __future__ import annotations

import copy
import gc
import importlib
import math
import pickle
import pkgutil
import weakref
from dataclasses import FrozenInstanceError, dataclass, field, fields, is_dataclass

import pytest

import raidtop
from raidtop.model import frozen
from raidtop.model.frozen import frozen_dataclass


def _both(body: dict, *, slots: bool = True, repr: bool = True, bases: tuple = ()):
    """The class made from ``body`` by the standard library and by raidtop."""
    standard = dataclass(frozen=True, slots=slots, repr=repr)(type("Case", bases[:1], dict(body)))
    ours = frozen_dataclass(slots=slots, repr=repr)(type("Case", bases[1:], dict(body)))
    return standard, ours


CASES = {
    "several": ({"__annotations__": {"a": "int", "b": "str", "c": "float"}, "c": 0.0}, [(1, "x"), (1, "x", 2.5)]),
    "one": ({"__annotations__": {"a": "float"}}, [(1.0,), (math.nan,)]),
    "none": ({"__annotations__": {}}, [()]),
    "not compared": (
        {"__annotations__": {"a": "int", "b": "list"}, "b": field(default_factory=list, compare=False, repr=False)},
        [(1,), (1, [2])],
    ),
    "hashed only": (
        {"__annotations__": {"a": "int", "b": "int"}, "b": field(default=0, compare=False, hash=True)},
        [(1,), (1, 2)],
    ),
    "not hashed": ({"__annotations__": {"a": "int", "b": "int"}, "b": field(default=0, hash=False)}, [(1,), (1, 2)]),
}


@pytest.mark.parametrize("slots", [True, False])
@pytest.mark.parametrize("case", list(CASES))
def test_every_answer_is_the_standard_librarys(case: str, slots: bool) -> None:
    body, arguments = CASES[case]
    standard, ours = _both(body, slots=slots)
    for one in arguments:
        for other in arguments:
            a, b = standard(*one), standard(*other)
            x, y = ours(*one), ours(*other)
            assert (a == b) == (x == y) and (a != b) == (x != y)
            assert (a == a) == (x == x)  # NaN: the tuples' identity shortcut, as generated
            assert x.__eq__(3) is NotImplemented
        assert hash(standard(*one)) == hash(ours(*one))
        assert repr(standard(*one)) == repr(ours(*one))
        instance = ours(*one)
        for name in [f.name for f in fields(ours)] or ["anything"]:
            with pytest.raises(FrozenInstanceError, match=f"cannot assign to field '{name}'"):
                setattr(instance, name, 1)
            with pytest.raises(FrozenInstanceError, match=f"cannot delete field '{name}'"):
                delattr(instance, name)
        assert copy.copy(instance) == instance == copy.deepcopy(instance)


def test_repr_false_and_own_methods_are_kept() -> None:
    standard, ours = _both({"__annotations__": {"a": "int"}}, repr=False)
    one, other = ours(1), standard(1)
    assert repr(one) == object.__repr__(one) and repr(other) == object.__repr__(other)

    def own_repr(self) -> str:
        return "mine"

    def own_eq(self, other) -> bool:
        return True

    standard, ours = _both({"__annotations__": {"a": "int"}, "__repr__": own_repr, "__eq__": own_eq})
    assert repr(ours(1)) == repr(standard(1)) == "mine"
    assert ours(1) == ours(2) and standard(1) == standard(2)
    assert hash(ours(1)) == hash(standard(1)) == hash((1,))


def test_a_subclass_compares_its_own_fields() -> None:
    base = frozen_dataclass(type("Base", (), {"__annotations__": {"a": "int"}}))
    child = frozen_dataclass(type("Child", (base,), {"__annotations__": {"b": "int"}}))
    assert child(1, 2) != child(1, 3) and child(1, 2) == child(1, 2)
    assert child(1, 2) != base(1) and repr(child(1, 2)) == "Child(a=1, b=2)"
    assert hash(child(1, 2)) == hash((1, 2))


def test_the_class_before_its_slots_is_not_kept() -> None:
    # dataclass(slots=True) makes a new class; its frozen __setattr__ closed over the old one.
    def made(decorate) -> tuple[type, weakref.ref]:
        before = type("Case", (), {"__annotations__": {"a": "int", "b": "str"}})
        return decorate(before), weakref.ref(before)

    standard, standard_before = made(dataclass(frozen=True, slots=True))
    ours, ours_before = made(frozen_dataclass)
    gc.collect()
    assert standard is not standard_before() is not None  # what the shared methods are for
    assert ours_before() is None and ours(1, "x").a == 1


@frozen_dataclass
class Pickled:
    a: int
    b: tuple = ()


def test_a_module_level_class_pickles() -> None:
    value = Pickled(1, (2,))
    assert pickle.loads(pickle.dumps(value)) == value


def test_every_frozen_class_of_raidtop_is_made_by_frozen_dataclass() -> None:
    made_otherwise = []
    count = 0
    for info in pkgutil.walk_packages(raidtop.__path__, "raidtop."):
        module = importlib.import_module(info.name)
        for value in vars(module).values():
            if not (isinstance(value, type) and is_dataclass(value) and value.__module__ == info.name):
                continue
            if value.__dataclass_params__.frozen:  # type: ignore[attr-defined]
                count += 1
                if value.__setattr__ is not frozen._frozen_setattr and info.name != "raidtop.config":
                    made_otherwise.append(f"{info.name}.{value.__qualname__}")
    assert count > 100
    assert not made_otherwise, f"use @frozen_dataclass from raidtop.model.frozen: {made_otherwise}"
