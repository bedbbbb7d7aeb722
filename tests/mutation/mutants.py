"""The mutants of a module: one change each in its syntax tree, found and applied.

Comparisons flipped, operators swapped, numbers off by one, booleans and
conditions negated, statements deleted, returned values made None;
docstrings, annotations, imports and decorators are never touched.
"""

from __future__ import annotations

import ast
import copy
from dataclasses import dataclass

COMPARE_SWAPS = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}


BINOP_SWAPS = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.Div,
    ast.Div: ast.Mult,
    ast.FloorDiv: ast.Div,
    ast.Mod: ast.Mult,
    ast.Pow: ast.Mult,
    ast.BitOr: ast.BitAnd,
    ast.BitAnd: ast.BitOr,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
}


SYMBOL = {
    ast.Lt: "<",
    ast.LtE: "<=",
    ast.Gt: ">",
    ast.GtE: ">=",
    ast.Eq: "==",
    ast.NotEq: "!=",
    ast.In: "in",
    ast.NotIn: "not in",
    ast.Is: "is",
    ast.IsNot: "is not",
    ast.Add: "+",
    ast.Sub: "-",
    ast.Mult: "*",
    ast.Div: "/",
    ast.FloorDiv: "//",
    ast.Mod: "%",
    ast.Pow: "**",
    ast.BitOr: "|",
    ast.BitAnd: "&",
    ast.LShift: "<<",
    ast.RShift: ">>",
    ast.And: "and",
    ast.Or: "or",
}


DELETABLE = (ast.Expr, ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Raise, ast.Continue, ast.Break, ast.Delete)


@dataclass(frozen=True)
class Mutant:
    """One change: the node it applies to (index in ``ast.walk`` order) and how."""

    index: int
    kind: str
    line: int
    change: str
    where: str
    """The innermost function or class around it (``<module>`` at the top)."""


def _short(node: ast.AST, width: int = 60) -> str:
    text = " ".join(ast.unparse(node).split())
    return text if len(text) <= width else text[: width - 1] + "…"


def _skipped(tree: ast.Module) -> set[int]:
    """Nodes no mutant touches: docstrings, annotations, imports, decorators, ``__slots__``/``__all__``."""
    skip: set[int] = set()

    def drop(node: ast.AST | None) -> None:
        if node is not None:
            skip.update(id(n) for n in ast.walk(node))

    for node in ast.walk(tree):
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant) and isinstance(node.value.value, str):
            drop(node)  # docstrings, module's and attributes'
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            drop(node)
        elif isinstance(node, (ast.arg, ast.AnnAssign)):
            drop(node.annotation)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id in ("__slots__", "__all__") for t in node.targets
        ):
            drop(node)
        elif isinstance(node, ast.FormattedValue):
            drop(node.format_spec)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            drop(node.returns)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            for decorator in node.decorator_list:
                drop(decorator)  # @dataclass(frozen=True, slots=True): layout the type checker guards
    return skip


def _changed(value: int | float | bool) -> int | float | bool:
    """The constant's mutant: a bool negated, a number plus one (doubled where +1 is lost to rounding)."""
    if isinstance(value, bool):
        return not value
    return value + 1 if value + 1 != value else value * 2


def mutants_of(tree: ast.Module) -> list[Mutant]:
    """Every mutant of the module, in source order."""
    skip = _skipped(tree)
    owner: dict[int, str] = {}
    for scope in ast.walk(tree):  # outer scopes first: inner ones overwrite
        if isinstance(scope, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            owner.update((id(n), scope.name) for n in ast.walk(scope))
    found: list[Mutant] = []
    for index, node in enumerate(ast.walk(tree)):
        if id(node) in skip:
            continue
        line = getattr(node, "lineno", 0)
        where = owner.get(id(node), "<module>")
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                new = COMPARE_SWAPS[type(op)]
                found.append(Mutant(index, f"cmp:{i}", line, f"`{SYMBOL[type(op)]}` → `{SYMBOL[new]}`", where))
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in BINOP_SWAPS:
            old, new = type(node.op), BINOP_SWAPS[type(node.op)]
            eq = "=" if isinstance(node, ast.AugAssign) else ""
            found.append(Mutant(index, "binop", line, f"`{SYMBOL[old]}{eq}` → `{SYMBOL[new]}{eq}`", where))
        elif isinstance(node, ast.BoolOp):
            new_op = "or" if isinstance(node.op, ast.And) else "and"
            found.append(Mutant(index, "boolop", line, f"`{SYMBOL[type(node.op)]}` → `{new_op}`", where))
        elif isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.Not, ast.USub)):
            found.append(Mutant(index, "unary", line, f"`{_short(node)}` → `{_short(node.operand)}`", where))
        elif isinstance(node, ast.Constant) and type(node.value) in (int, float, bool):
            value = node.value
            new_value = _changed(value)
            found.append(Mutant(index, "const", line, f"`{value!r}` → `{new_value!r}`", where))
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            found.append(Mutant(index, "negate", line, f"condition `{_short(node.test)}` negated", where))
        if (
            isinstance(node, ast.Return)
            and node.value is not None
            and not (isinstance(node.value, ast.Constant) and node.value.value is None)
        ):
            found.append(Mutant(index, "return", line, f"`{_short(node)}` → `return None`", where))
        if isinstance(node, DELETABLE):
            found.append(Mutant(index, "delete", line, f"delete `{_short(node)}`", where))
    found.sort(key=lambda m: (m.line, m.index, m.kind))
    return found


def _parents(tree: ast.AST) -> dict[int, tuple[ast.AST, str, int | None]]:
    parents: dict[int, tuple[ast.AST, str, int | None]] = {}
    for node in ast.walk(tree):
        for field, value in ast.iter_fields(node):
            if isinstance(value, list):
                for i, child in enumerate(value):
                    if isinstance(child, ast.AST):
                        parents[id(child)] = (node, field, i)
            elif isinstance(value, ast.AST):
                parents[id(value)] = (node, field, None)
    return parents


def apply(tree: ast.Module, mutant: Mutant) -> ast.Module:
    """A copy of ``tree`` with ``mutant`` made."""
    tree = copy.deepcopy(tree)
    node = list(ast.walk(tree))[mutant.index]

    def replace(new: ast.AST) -> None:
        parent, field, i = _parents(tree)[id(node)]
        if i is None:
            setattr(parent, field, new)
        else:
            getattr(parent, field)[i] = new

    if mutant.kind.startswith("cmp:"):
        i = int(mutant.kind[4:])
        node.ops[i] = COMPARE_SWAPS[type(node.ops[i])]()
    elif mutant.kind == "binop":
        node.op = BINOP_SWAPS[type(node.op)]()
    elif mutant.kind == "boolop":
        node.op = ast.Or() if isinstance(node.op, ast.And) else ast.And()
    elif mutant.kind == "unary":
        replace(node.operand)
    elif mutant.kind == "const":
        node.value = _changed(node.value)
    elif mutant.kind == "negate":
        node.test = ast.UnaryOp(op=ast.Not(), operand=node.test)
    elif mutant.kind == "return":
        node.value = ast.Constant(value=None)
    elif mutant.kind == "delete":
        replace(ast.Pass())
    return ast.fix_missing_locations(tree)
