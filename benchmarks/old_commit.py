"""An older commit of this repository, checked out for a same-run comparison."""

from __future__ import annotations

import contextlib
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def checkout(commit: str) -> Iterator[tuple[Path, Path]]:
    """``(worktree, scratch)``: ``commit`` checked out into a temporary git worktree (import
    its bnclf by putting the worktree first on ``sys.path`` of a subprocess), and a scratch
    folder for data files; both are removed on exit."""
    with tempfile.TemporaryDirectory() as tmp:
        old = Path(tmp) / "old"
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "add", "--detach", str(old), commit], check=True, capture_output=True
        )
        try:
            yield old, Path(tmp)
        finally:
            subprocess.run(
                ["git", "-C", str(REPO), "worktree", "remove", "--force", str(old)], check=False, capture_output=True
            )
