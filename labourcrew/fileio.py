"""File input and output shared by every phase: atomic writes, output checks, batch files.

Atomic writes are the one helper every persisted file goes through.

A write goes to a temporary file in the target's folder, is flushed and fsynced, then renamed over
the target (``os.replace`` is atomic on POSIX and Windows), so a reader never sees half a file and
a crash never loses the previous version. The temporary file is removed when anything fails.
Files are created with mode ``0o644`` (a ``mkstemp`` file would be ``0o600``): saved runs,
calibration records and exports are meant to be read by other users of the machine.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import IO, Any

from labourcrew.errors import InputError

__all__ = ["atomic_open", "write_text_atomic", "write_json_atomic", "check_output_path", "read_batch", "FILE_MODE"]

FILE_MODE = 0o644


@contextmanager
def atomic_open(path: str | Path, *, binary: bool = False) -> Iterator[IO[Any]]:
    """Open a temporary file beside ``path``; on a clean exit it replaces ``path``.

    Args:
        path: the target file (parent folders are created).
        binary: open in ``"wb"`` instead of UTF-8 text mode.

    Yields:
        The open temporary file.

    Raises:
        OSError: the folder cannot be created or written; the temporary file is removed and the
            previous ``path`` (if any) is left untouched -- as on any exception in the block.
    """
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        with os.fdopen(fd, "wb" if binary else "w", **({} if binary else {"encoding": "utf-8"})) as fh:
            yield fh
            fh.flush()
            os.fsync(fh.fileno())
        os.chmod(tmp, FILE_MODE)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def write_text_atomic(path: str | Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically (see :func:`atomic_open`).

    Returns:
        The path written.
    """
    with atomic_open(path) as fh:
        fh.write(text)
    return Path(path)


def write_json_atomic(path: str | Path, obj: Any, *, indent: int | None = 2, allow_nan: bool = True) -> Path:
    """Write ``obj`` as JSON (sorted keys, UTF-8 kept, trailing newline) atomically.

    Equal objects always produce byte-identical files (sorted keys), so saved files diff cleanly.

    Raises:
        TypeError: ``obj`` is not JSON-serialisable (nothing is written).
        ValueError: ``allow_nan`` is False and ``obj`` holds NaN or infinity (nothing is written).
        OSError: as :func:`write_text_atomic`.
    """
    text = json.dumps(obj, indent=indent, sort_keys=True, ensure_ascii=False, allow_nan=allow_nan)
    return write_text_atomic(path, text + "\n")


def check_output_path(path: str | Path | None) -> None:
    """Fail fast when an output file (``--out``) cannot be written, before any work is done.

    Raises:
        InputError: ``path`` is a folder, or its folder is missing or not writable.
    """
    if not path:
        return
    p = Path(path)
    if p.is_dir():
        raise InputError(f"--out একটি ফোল্ডার; ফাইলের নাম দিন — --out {str(path)!r} is a directory; give a file name",
                         help_message="--out ফাইলের নাম দিন, ফোল্ডার নয় / give a file name, not a folder.")
    parent = p.parent if str(p.parent) else Path(".")
    if not parent.is_dir() or not os.access(parent, os.W_OK):
        raise InputError(f"--out-এর ফোল্ডারটি নেই বা সেখানে লেখা যায় না — --out {str(path)!r}: folder {str(parent)!r} "
                         "does not exist or is not writable")
    existed = p.exists()
    try:  # os.access says yes for root on /proc or a read-only mount: try the file itself
        with open(p, "a", encoding="utf-8"):
            pass
    except OSError as exc:
        raise InputError(f"--out ফাইলে লেখা যায় না — --out {str(path)!r} cannot be written: {exc.strerror or exc}") from exc
    if not existed:
        p.unlink(missing_ok=True)


def read_batch(path: str | Path, field: str = "question_bn") -> list[dict[str, Any]]:
    """Read a batch file: one JSON object per line, each with a string ``field``.

    Blank lines are skipped; every other field of a line is passed through unchanged.

    Returns:
        The rows, in file order (at least one).

    Raises:
        InputError: the file is missing or empty, a line is not JSON, not an object, or lacks a
            string ``field`` (the message names the line).
    """
    p = Path(path)
    if not p.is_file():
        raise InputError(f"ব্যাচ ফাইলটি পাওয়া যায়নি — batch file not found: {path}")
    rows: list[dict[str, Any]] = []
    for n, line in enumerate(p.read_text(encoding="utf-8").splitlines(), 1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise InputError(f"{path}:{n}: লাইনটি বৈধ JSON নয় — not valid JSON ({exc.msg})") from exc
        if not isinstance(row, dict) or not isinstance(row.get(field), str):
            raise InputError(f"{path}:{n}: প্রতিটি লাইনে {field!r} প্রশ্নসহ একটি JSON অবজেক্ট লাগবে — "
                             f"each line must be a JSON object with a {field!r} string")
        rows.append(row)
    if not rows:
        raise InputError(f"ব্যাচ ফাইলে কোনো প্রশ্ন নেই — batch file {path} holds no question")
    return rows
