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
serves the mutated code for the module (mutant_runner.py), so a crash or an interrupted run
leaves the tree as it was. Not collected by pytest and not part of
``make test``: run it when one of the scored modules changes (SCORES.md).
"""

from __future__ import annotations

import argparse
import ast
import os
import sys
import time
import tomllib
from pathlib import Path

from mutant_runner import ROOT, preload, run_in_child
from mutants import Mutant, apply, mutants_of

HERE = Path(__file__).resolve().parent
EQUIVALENTS = HERE / "equivalents.toml"


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
    preload()

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
