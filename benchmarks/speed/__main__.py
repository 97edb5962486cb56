"""``python -m benchmarks.speed [NAME [--quick] [options]]``: run one speed benchmark.

Without ``NAME`` (or with ``--list``), list the benchmarks with the first line of each one's
docstring. ``--quick`` adds the benchmark's smallest settings (those of ``side_by_side
run --quick``; the result file still goes where ``--out`` says, so give one).
"""

from __future__ import annotations

import ast
import importlib
import sys
from pathlib import Path

from benchmarks.speed import BENCHMARKS

HERE = Path(__file__).resolve().parent


def summary(module: str) -> str:
    """The first line of a benchmark module's docstring, read without importing it."""
    doc = ast.get_docstring(ast.parse((HERE / f"{module}.py").read_text())) or ""
    return doc.splitlines()[0] if doc else ""


def listing() -> str:
    width = max(map(len, BENCHMARKS))
    lines = ["python -m benchmarks.speed NAME [--quick] [options]; NAME --help for its options:", ""]
    lines += [f"  {name:<{width}}  {summary(module)}" for name, module in BENCHMARKS.items()]
    return "\n".join(lines)


def quick_args(name: str) -> list[str]:
    """The smallest settings of ``name`` (``side_by_side``'s quick run; its shared cache
    folder in the system's temporary folder), none if it has none."""
    import tempfile

    from benchmarks.speed.side_by_side import BY_NAME

    cache = str(Path(tempfile.gettempdir()) / "bnclf-speed-cache")
    job = BY_NAME.get(name)
    return [a.replace("{cache}", cache) for a in job.quick] if job is not None else []


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if not argv or argv[0] in ("--list", "-h", "--help"):
        print(listing())
        return 0
    name, rest = argv[0], argv[1:]
    if name not in BENCHMARKS:
        print(f"unknown benchmark {name!r}\n\n{listing()}", file=sys.stderr)
        return 2
    if "--quick" in rest and name != "side_by_side":
        rest = [*quick_args(name), *(a for a in rest if a != "--quick")]
    result = importlib.import_module(f"benchmarks.speed.{BENCHMARKS[name]}").main(rest)
    return result if isinstance(result, int) else 0


if __name__ == "__main__":
    sys.exit(main())
