"""The command line stops quietly when its reader goes away (``... | head``)."""

from __future__ import annotations

import subprocess
import sys

from labourcrew.settings import REPO_ROOT


def test_a_closed_pipe_ends_the_command_without_a_traceback():
    # Section 2's JSON (~230 kB) is larger than a pipe's buffer, so the writer meets the closed pipe.
    proc = subprocess.Popen([sys.executable, "-m", "labourcrew", "statute", "show", "2", "--json"], cwd=REPO_ROOT,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert proc.stdout is not None and proc.stderr is not None
    assert proc.stdout.read(10)  # the reader takes a little, then leaves, like `head -c 10`
    proc.stdout.close()
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 141
    assert "Traceback" not in err and "BrokenPipeError" not in err, err
