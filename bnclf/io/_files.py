"""Writing files so that nothing is lost.

Every file bnclf writes is first written into a temporary folder beside its target and
renamed into place only once it is complete (and, for networks and model sets, read
back): an interrupted or failed write leaves the previous file as it was, never half of
a new one; a full disk or a device error is reported naming the target. A device or
a pipe (``/dev/null``) is written to directly, never replaced. A rename replaces a
symbolic link at the target rather than writing through it. :func:`check_outputs`
refuses an output that is one of the command's own inputs.
"""

from __future__ import annotations

import errno
import os
import shutil
import tempfile
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from pathlib import Path

PathLike = str | os.PathLike


def same_file(a: PathLike, b: PathLike) -> bool:
    """Whether the paths ``a`` and ``b`` name one file: the same resolved path (symbolic
    links followed) or, for two existing files, the same file on disk (hard links)."""
    a, b = os.fspath(a), os.fspath(b)
    if os.path.realpath(a) == os.path.realpath(b):
        return True
    try:
        return os.path.samefile(a, b)
    except OSError:  # one of them does not exist (yet)
        return False


def check_outputs(outputs: Mapping[str, PathLike | None], inputs: Mapping[str, PathLike | None]) -> None:
    """Refuse an output that is one of the inputs, or two outputs that are one file.

    Parameters
    ----------
    outputs, inputs : mapping
        What the user calls each path (an option such as ``"--output"`` or an argument
        such as ``"DATA"``) to the path; None entries are skipped.

    Raises
    ------
    ValueError
        Naming both paths and what they are, before anything is read or written.
    """
    outputs = {k: v for k, v in outputs.items() if v is not None}
    inputs = {k: v for k, v in inputs.items() if v is not None}
    for out_name, out in outputs.items():
        for in_name, source in inputs.items():
            if same_file(out, source):
                raise ValueError(
                    f"{out_name} {os.fspath(out)!r} is the input {in_name} {os.fspath(source)!r}: writing it "
                    "would replace what is being read. Choose another output file."
                )
    names = list(outputs)
    for i, first in enumerate(names):
        for second in names[i + 1 :]:
            if same_file(outputs[first], outputs[second]):
                raise ValueError(
                    f"{first} and {second} are the same file ({os.fspath(outputs[first])!r}); give each its own file."
                )


#: what a failed write reports (a full disk, a quota, a file too large, a device error, a
#: file system mounted read-only): the target is named and kept as it was
WRITE_ERRORS = frozenset({errno.ENOSPC, errno.EDQUOT, errno.EFBIG, errno.EIO, errno.EROFS})


def write_error(exc: OSError, target: str, kept: str) -> OSError:
    """``exc`` as an error that names ``target`` (what failed, e.g. a file or ``standard
    output``) and says what became of it (``kept``), with ``exc``'s errno."""
    reason = exc.strerror or str(exc)
    error = OSError(f"could not write {target}: {reason} (errno {errno.errorcode.get(exc.errno, exc.errno)}); {kept}")
    error.errno = exc.errno
    return error


def _is_stream(path: Path) -> bool:
    """Whether ``path`` is an existing device, pipe or socket (``/dev/null``, ``/dev/full``, a
    FIFO): written to directly, never replaced by a regular file."""
    import stat

    try:
        mode = path.stat().st_mode
    except OSError:
        return False
    return not (stat.S_ISREG(mode) or stat.S_ISDIR(mode))


def _sync(path: Path) -> None:
    """Flush ``path``'s data to disk, so that a full disk or a device error is reported
    here, before the file is renamed onto its target."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextmanager
def staged(*targets: PathLike) -> Iterator[list[Path]]:
    """Temporary paths to write ``targets`` to, renamed onto the targets when the block ends.

    Yields one path per target, of the same file name, in a fresh folder beside it. When
    the block finishes, each is flushed to disk and renamed onto its target (``os.replace``:
    a link at the target is replaced, not followed); when it raises (an error,
    ``KeyboardInterrupt``), the temporary folder is removed and the targets are left
    untouched. A target that is a device or a pipe (``/dev/null``, ``/dev/full``) is
    written to directly, never replaced.

    Raises
    ------
    OSError
        When a write, its flush or its close fails for lack of space, quota or a device
        error: the message names the target, which keeps its previous content.

    Examples
    --------
    >>> import tempfile, pathlib
    >>> folder = pathlib.Path(tempfile.mkdtemp())
    >>> with staged(folder / "a.txt") as (tmp,):
    ...     _ = tmp.write_text("new")
    >>> (folder / "a.txt").read_text()
    'new'
    """
    targets = [Path(t) for t in targets]
    folders: dict[Path, Path] = {}
    streams = [_is_stream(t) for t in targets]
    try:
        paths = []
        for target, stream in zip(targets, streams):
            if stream:
                paths.append(target)
                continue
            parent = target.parent.resolve()
            if parent not in folders:
                parent.mkdir(parents=True, exist_ok=True)
                folders[parent] = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".partial", dir=parent))
            paths.append(folders[parent] / target.name)
        try:
            yield paths
            for path, stream in zip(paths, streams):
                if not stream and path.exists():
                    _sync(path)
        except OSError as exc:
            if exc.errno not in WRITE_ERRORS:
                raise
            names = ", ".join(map(str, targets))
            if any(streams):
                kept = "what reached it is incomplete"
            elif any(t.exists() for t in targets):
                kept = "the file keeps its previous content"
            else:
                kept = "no file was written"
            raise write_error(exc, names, kept) from None
        for path, target, stream in zip(paths, targets, streams):
            if not stream and path.exists():  # a writer may decide not to write one of them
                os.replace(path, target)
    finally:
        for folder in folders.values():
            shutil.rmtree(folder, ignore_errors=True)


def check_readable_file(path: PathLike, what: str = "file") -> Path:
    """``path`` as a Path, if it is a regular file.

    A device (``/dev/zero``), a pipe or a folder is refused before it is read: bnclf reads
    whole files, and a device or a pipe may never end. (What a file holds is sized where
    it is decoded: a model file's arrays, a data table's count tables.)

    Raises
    ------
    FileNotFoundError
        When nothing is at ``path``.
    ValueError
        Naming the path, what it is, and the fix.
    """
    import stat

    path = Path(path)
    try:
        info = path.stat()
    except FileNotFoundError:
        raise FileNotFoundError(f"no such {what}: {path}") from None
    if stat.S_ISDIR(info.st_mode):
        raise ValueError(f"{path} is a folder, not a {what}; name a file in it.")
    if not stat.S_ISREG(info.st_mode):
        raise ValueError(
            f"{path} is not a regular file (a device, a pipe or a socket): bnclf reads a {what} whole, "
            "and such a stream may never end; save it to a file and name that file."
        )
    return path
