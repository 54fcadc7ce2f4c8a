"""--out checks: a path that cannot be written is refused before any work, with a Bangla-first line."""

from __future__ import annotations

import os

import pytest

from labourcrew.errors import InputError
from labourcrew.fileio import check_output_path


def test_writable_path_passes_and_leaves_nothing_behind(tmp_path):
    out = tmp_path / "r.json"
    check_output_path(out)
    assert not out.exists()
    out.write_text("kept", encoding="utf-8")
    check_output_path(out)  # an existing file is neither truncated nor removed
    assert out.read_text(encoding="utf-8") == "kept"


def test_folder_missing_folder_and_unwritable_file_are_refused(tmp_path):
    with pytest.raises(InputError, match="ফোল্ডার"):
        check_output_path(tmp_path)
    with pytest.raises(InputError, match="does not exist or is not writable"):
        check_output_path(tmp_path / "missing" / "r.json")
    if os.path.isdir("/proc"):  # root may "access" /proc, but cannot create a file there
        with pytest.raises(InputError, match="^--out ফাইলে লেখা যায় না"):
            check_output_path("/proc/labourcrew-test.json")
