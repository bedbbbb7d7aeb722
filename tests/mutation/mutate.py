"""Mutation testing for one module: do its unit tests notice when its code is wrong?

Usage (from the repository root, with the project's venv)::

    nice -n 10 .venv/bin/python tests/mutation/mutate.py raidtop/safeio.py tests/test_safeio.py

Every mutant is the module with one change in its syntax tree: a comparison
flipped (``<`` → ``<=``, ``in`` → ``not in``), an operator or ``and``/``or``
swapped, a number off by one, ``True`` ↔ ``False``, a condition negated, a
``not`` or minus dropped, a statement deleted, a returned value made ``None``.
A failing test (or a run past the time limit) kills it. A survivor is a test
missing, or an equivalent mutant (it behaves the same), listed with the
reason in ``equivalents.toml`` so the score counts only killable mutants.

No file is modified: each mutant runs in a forked child whose import system
serves the mutated code for the module, so a crash or an interrupted run
leaves the tree as it was. Not collected by pytest and not part of
``make test``: run it when one of the scored modules changes (SCORES.md).
"""

from __future__ import annotations

import argparse
import ast
import copy
import importlib
import importlib.abc
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
import tomllib
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
EQUIVALENTS = HERE / "equivalents.toml"

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
PRELOAD = (
    "hypothesis",
    "hypothesis.strategies",
    "textual.app",
    "rich.text",
    "syrupy",
    "prometheus_client",
    "psutil",
    "pyudev",
)
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


class _MutantFinder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    """Serves the mutated code object for one module name; every other import as usual."""

    def __init__(self, name: str, path: Path, code) -> None:
        self.name, self.path, self.code = name, path, code

    def find_spec(self, fullname, path=None, target=None):
        if fullname != self.name:
            return None
        return importlib.util.spec_from_file_location(fullname, self.path, loader=self)

    def create_module(self, spec):
        return None

    def exec_module(self, module) -> None:
        exec(self.code, module.__dict__)


# Property tests draw the same examples for every mutant, not one run's luck.
_SEEDED = ["--hypothesis-seed=0"] if importlib.util.find_spec("hypothesis") else []


def _absolute(arg: str) -> str:
    """A test path made absolute (the child runs elsewhere); options as they are."""
    path = ROOT / arg.split("::")[0]
    return str(ROOT / arg) if not arg.startswith("-") and path.exists() else arg


def run_in_child(name: str, path: Path, code, pytest_args: list[str], timeout: float, quiet: bool = True) -> str:
    """``passed``, ``failed`` or ``timeout`` for the tests run against ``code`` as module ``name``."""
    # A mutant may write where it should not, or be killed mid-test: its
    # working directory and pytest's tmp_path live in a scratch directory
    # removed afterwards, never in the checkout or the shared /tmp/pytest-of-*.
    scratch = tempfile.mkdtemp(prefix="mutant-")
    pid = os.fork()
    if pid == 0:  # the child: import the mutant, run pytest, report by exit status
        try:
            if quiet:
                null = os.open(os.devnull, os.O_WRONLY)
                os.dup2(null, 1)
                os.dup2(null, 2)
            os.setpgid(0, 0)
            os.chdir(scratch)
            sys.meta_path.insert(0, _MutantFinder(name, path, code))
            import pytest

            status = pytest.main(
                [
                    "-x",
                    "-q",
                    "-p",
                    "no:cacheprovider",
                    "-W",
                    "ignore::pytest.PytestAssertRewriteWarning",
                    "--rootdir",
                    str(ROOT),
                    "-c",
                    str(ROOT / "pyproject.toml"),
                    "--basetemp",
                    os.path.join(scratch, "tmp"),
                    *_SEEDED,
                    *[_absolute(arg) for arg in pytest_args],
                ]
            )
            os._exit(0 if status == 0 else 1)
        except BaseException:  # noqa: BLE001 - the forked child must always _exit, never return into the parent's code
            os._exit(2)
    try:
        return _wait(pid, timeout)
    finally:
        _remove_scratch(scratch)


def _wait(pid: int, timeout: float) -> str:
    deadline = time.monotonic() + timeout
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            return "passed" if os.waitstatus_to_exitcode(status) == 0 else "failed"
        if time.monotonic() > deadline:
            try:
                os.killpg(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            os.waitpid(pid, 0)
            return "timeout"
        time.sleep(0.02)


def _remove_scratch(scratch: str) -> None:
    """Remove a child's scratch directory, first unmounting what a killed test left mounted there."""
    with open("/proc/self/mounts", encoding="utf-8") as mounts:
        points = [line.split()[1] for line in mounts]
    for point in sorted((p for p in points if p.startswith(scratch + "/")), key=len, reverse=True):
        subprocess.run(["umount", "-l", point], check=False, capture_output=True)
    shutil.rmtree(scratch, ignore_errors=True)


def _preload() -> None:
    """Import pytest and its plugins once, here, so each forked child starts warm."""
    import importlib.metadata

    import pytest  # noqa: F401

    for entry in importlib.metadata.entry_points(group="pytest11"):
        try:
            entry.load()
        except Exception:  # noqa: BLE001 - a plugin that fails here fails in the child too, visibly
            pass
    # Heavy third-party imports the tests make (never raidtop's own modules,
    # which must come fresh in each child to see the mutant).
    for heavy in PRELOAD:
        try:
            importlib.import_module(heavy)
        except ImportError:
            pass


def load_equivalents(module: str) -> list[dict]:
    if not EQUIVALENTS.exists():
        return []
    table = tomllib.loads(EQUIVALENTS.read_text(encoding="utf-8"))
    return table.get(module, {}).get("mutant", [])


def is_equivalent(mutant: Mutant, source_line: str, equivalents: list[dict]) -> str | None:
    """The recorded reason when this mutant is equivalent: matched by its line's text, its change
    and, when the entry names one (``in``), the function around it."""
    for entry in equivalents:
        if (
            entry["code"].strip() == source_line.strip()
            and entry["change"] == mutant.change
            and entry.get("in", mutant.where) == mutant.where
        ):
            return entry["why"]
    return None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("module", help="the module's file, e.g. raidtop/safeio.py")
    parser.add_argument("tests", nargs="+", help="test files to run per mutant; pytest options after `--`")
    parser.add_argument("--lines", help="only mutants on these lines, e.g. 40-80")
    parser.add_argument("--list", action="store_true", help="list the mutants, run nothing")
    argv = sys.argv[1:] if argv is None else argv
    extra = argv[argv.index("--") + 1 :] if "--" in argv else []
    args = parser.parse_args(argv[: argv.index("--")] if "--" in argv else argv)
    args.tests += extra

    os.chdir(ROOT)
    path = Path(args.module).resolve()
    rel = path.relative_to(ROOT).as_posix()
    name = rel.removesuffix(".py").replace("/", ".").removesuffix(".__init__")
    source = path.read_text(encoding="utf-8")
    lines = source.splitlines()
    tree = ast.parse(source, filename=str(path))
    mutants = mutants_of(tree)
    if args.lines:
        low, _, high = args.lines.partition("-")
        mutants = [m for m in mutants if int(low) <= m.line <= int(high or low)]
    if args.list:
        for m in mutants:
            print(f"{rel}:{m.line} ({m.where}): {m.change}")
        print(f"{len(mutants)} mutants")
        return 0
    if "raidtop" in sys.modules:
        raise SystemExit("mutate.py must not import raidtop itself: the children import the mutant")
    _preload()

    started = time.monotonic()
    baseline = run_in_child(name, path, compile(tree, str(path), "exec"), args.tests, timeout=600, quiet=False)
    took = time.monotonic() - started
    if baseline != "passed":
        print(f"the tests fail on the unchanged module ({baseline}): fix them first", file=sys.stderr)
        return 2
    timeout = max(10.0, 5 * took)
    equivalents = load_equivalents(rel)
    print(
        f"{rel}: {len(mutants)} mutants, tests {' '.join(args.tests)} "
        f"(unchanged: {took:.1f} s, limit {timeout:.0f} s per mutant)",
        flush=True,
    )
    killed = survived = excluded = 0
    survivors: list[str] = []
    for n, mutant in enumerate(mutants, 1):
        try:
            code = compile(apply(tree, mutant), str(path), "exec")
        except (SyntaxError, ValueError, TypeError):
            print(f"[{n}/{len(mutants)}] L{mutant.line} {mutant.change}: does not compile (not counted)")
            continue
        result = run_in_child(name, path, code, args.tests, timeout)
        where = f"{rel}:{mutant.line} ({mutant.where}): {mutant.change}"
        if result != "passed":
            killed += 1
            print(f"[{n}/{len(mutants)}] killed{' (timeout)' if result == 'timeout' else ''}  {where}", flush=True)
            continue
        reason = is_equivalent(mutant, lines[mutant.line - 1], equivalents)
        if reason:
            excluded += 1
            print(f"[{n}/{len(mutants)}] equivalent  {where}  ({reason})", flush=True)
        else:
            survived += 1
            survivors.append(f"  {where}\n      {lines[mutant.line - 1].strip()}")
            print(f"[{n}/{len(mutants)}] SURVIVED  {where}", flush=True)
    counted = killed + survived
    score = 100.0 * killed / counted if counted else 100.0
    print(
        f"\n{rel}: killed {killed} of {counted} non-equivalent mutants ({score:.1f} %); "
        f"{excluded} equivalent excluded; {time.monotonic() - started:.0f} s"
    )
    if survivors:
        print("survivors:\n" + "\n".join(survivors))
    return 0


if __name__ == "__main__":
    sys.exit(main())
