"""Dashboard test fixtures: everything the app writes goes to a temporary folder (see support.py)."""

from __future__ import annotations

import os
from collections.abc import Iterator

import pytest

from labourcrew.settings import REPO_ROOT
from tests.app.support import QUESTION, AppEnv, make_env


@pytest.fixture(scope="module")
def app_env(tmp_path_factory: pytest.TempPathFactory) -> Iterator[AppEnv]:
    """A module's app environment, with two saved runs made by the real offline board.

    Module scope: the LABOURCREW_* variables (and the fake key) are restored when the module's
    tests end, so no other test of the session sees them.
    """
    env = make_env(tmp_path_factory.mktemp("app"))
    with pytest.MonkeyPatch.context() as mp:
        for k, v in env.env().items():
            mp.setenv(k, v)
        from labourcrew.board.run import ask
        from labourcrew.settings import load_settings
        from labourcrew.wiring import make_board

        board = make_board(load_settings())
        ask(QUESTION, board=board)
        ask("ধারা ৪০০ অনুযায়ী ওভারটাইমের হার কত?", board=board)
        yield env


@pytest.fixture()
def app_page(app_env: AppEnv):
    """Factory: an AppTest of a page file (relative to the repo root) in the test environment."""
    from streamlit.testing.v1 import AppTest

    def make(page: str) -> AppTest:
        assert os.environ["LABOURCREW_RUNS_DIR"] == str(app_env.runs)
        return AppTest.from_file(str(REPO_ROOT / page), default_timeout=180)

    return make
