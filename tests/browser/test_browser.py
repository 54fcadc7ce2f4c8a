"""Real-browser check (issue 5): `streamlit run app.py` headless, driven by Debian's Chromium.

Asks one Bangla question on the Ask page, waits for the release-status badge, and saves a
screenshot of every page under ``test-artifacts/`` (look at them: Bangla must render as Bangla).
Skips with the reason when Chromium, ChromeDriver or selenium is missing (``make test`` installs
them through its ``sysdeps`` step when it can).
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from labourcrew.settings import REPO_ROOT
from tests.app.support import QUESTION, make_env

pytestmark = pytest.mark.browser

CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
ARTIFACTS = REPO_ROOT / "test-artifacts"
PAGES = {  # URL path -> screenshot name
    "Run_inspector": "2_run_inspector",
    "StatuteGraph": "3_statutegraph",
    "Annotate": "4_annotate",
    "Calibration": "5_calibration",
    "Evaluation": "6_evaluation",
}


# Shape of the evaluation results file (labourcrew.viz.evaluation); values are illustrative only.
SAMPLE_RESULTS = {"dataset": "browser check", "configs": {
    "full": {"kind": "system", "overall": {"citation_based_precision": 0.6, "tglo_rate": 0.5, "degraded_rate": 0.2,
                                           "undecided_rate": 0.3, "n": 20},
             "by_category": {"সরাসরি তথ্য": {"citation_based_precision": 0.7, "tglo_rate": 0.6, "degraded_rate": 0.2,
                                             "undecided_rate": 0.2, "n": 10},
                             "বহু-ধাপ": {"citation_based_precision": 0.5, "tglo_rate": 0.4, "degraded_rate": 0.2,
                                         "undecided_rate": 0.4, "n": 10}}},
    "single_pass_rag": {"kind": "baseline", "overall": {"citation_based_precision": 0.3, "n": 20},
                        "by_category": {"সরাসরি তথ্য": {"citation_based_precision": 0.35},
                                        "বহু-ধাপ": {"citation_based_precision": None}}}}}


def _missing() -> str | None:
    for path, pkg in ((CHROMIUM, "chromium"), (CHROMEDRIVER, "chromium-driver")):
        if not (Path(path).is_file() and os.access(path, os.X_OK)):
            return f"{path} not found: install Debian's {pkg} (make test's sysdeps step does it as root)"
    try:
        import selenium  # noqa: F401
    except ImportError:
        return "selenium is not installed in the venv (it is in requirements.txt: run make deps)"
    return None


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _wait_healthy(url: str, proc: subprocess.Popen, timeout_s: float = 90) -> None:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited early with code {proc.returncode}")
        try:
            with urllib.request.urlopen(url + "/_stcore/health", timeout=2) as r:
                if r.status == 200:
                    return
        except OSError:
            time.sleep(0.5)
    raise TimeoutError("streamlit did not become healthy")


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    reason = _missing()
    if reason:
        pytest.skip(reason)
    env_paths = make_env(tmp_path_factory.mktemp("browser"))
    port = _free_port()
    env = {**os.environ, **env_paths.env(), "PYTHONPATH": str(REPO_ROOT)}
    log = (env_paths.root / "streamlit.log").open("w")
    proc = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", str(REPO_ROOT / "app.py"), "--server.headless", "true",
         "--server.port", str(port), "--server.address", "127.0.0.1", "--browser.gatherUsageStats", "false",
         "--server.fileWatcherType", "none"],
        cwd=REPO_ROOT, env=env, stdout=log, stderr=subprocess.STDOUT,
    )
    try:
        url = f"http://127.0.0.1:{port}"
        _wait_healthy(url, proc)
        yield url, env_paths.runs
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=20)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()
        text = (env_paths.root / "streamlit.log").read_text(encoding="utf-8", errors="replace")
        assert "SECRET123" not in text  # the fake key never reaches the server log
        ARTIFACTS.mkdir(exist_ok=True)
        shutil.copy(env_paths.root / "streamlit.log", ARTIFACTS / "streamlit.log")


@pytest.fixture(scope="module")
def browser() -> Iterator[object]:
    reason = _missing()
    if reason:
        pytest.skip(reason)
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-background-networking",
                "--disable-dev-shm-usage", "--window-size=1400,2000", "--lang=bn"):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    driver.set_page_load_timeout(60)
    try:
        yield driver
    finally:
        driver.quit()


def _wait(driver, css: str, timeout_s: float = 90):
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support import expected_conditions as ec
    from selenium.webdriver.support.ui import WebDriverWait

    return WebDriverWait(driver, timeout_s).until(ec.visibility_of_element_located((By.CSS_SELECTOR, css)))


def _settle(driver, timeout_s: float = 60) -> None:
    """Wait until Streamlit is no longer running the script (no 'running' status widget)."""
    from selenium.webdriver.common.by import By

    deadline = time.monotonic() + timeout_s
    time.sleep(1.0)
    while time.monotonic() < deadline:
        if not driver.find_elements(By.CSS_SELECTOR, "[data-testid='stStatusWidget']"):
            break
        time.sleep(0.3)
    time.sleep(1.5)  # let iframes (vis-network) and plotly finish drawing


def test_ask_a_bangla_question_and_screenshot_every_page(server, browser):
    from selenium.common.exceptions import TimeoutException
    from selenium.webdriver.common.by import By
    from selenium.webdriver.common.keys import Keys

    url, runs = server
    ARTIFACTS.mkdir(exist_ok=True)
    browser.get(url)
    area = _wait(browser, "textarea")
    _settle(browser)
    # First load: no Deploy button (client.toolbarMode = "minimal"), no second (English) page list.
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-testid='stAppDeployButton']")
    assert not [b for b in browser.find_elements(By.CSS_SELECTOR, "button") if b.text.strip() == "Deploy"]
    assert not browser.find_elements(By.CSS_SELECTOR, "[data-testid='stSidebarNav']")
    browser.save_screenshot(str(ARTIFACTS / "0_first_load.png"))
    area = _wait(browser, "textarea")
    area.click()
    area.send_keys(QUESTION)
    button = next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if "জিজ্ঞাসা করুন" in b.text)
    button.click()
    badge = _wait(browser, ".lc-badge .lc-badge-status", timeout_s=150)
    status = badge.text.strip()
    assert status in {"TGLO", "DEGRADED", "UNDECIDED"}
    try:  # the passages stream in after the badge
        _wait(browser, "mark.lc-span", timeout_s=30)
    except TimeoutException:
        browser.save_screenshot(str(ARTIFACTS / "1_ask.png"))
        pytest.fail(f"no highlighted span on the Ask page (status {status}); see test-artifacts/1_ask.png")
    _settle(browser)
    browser.save_screenshot(str(ARTIFACTS / "1_ask.png"))
    assert "Traceback" not in browser.page_source

    # Opinion layout on the casual-leave example: direct answer, the proviso, questions back.
    example = next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if "নৈমিত্তিক ছুটি" in b.text)
    assert "পান?" in example.text  # the example's full text is shown, not cut
    example.click()
    _wait(browser, ".lc-badge .lc-badge-status", timeout_s=150)
    _settle(browser)
    page = browser.page_source
    assert "প্রাসঙ্গিক কোনো বিধান পাওয়া যায়নি" not in page
    assert browser.find_elements(By.CSS_SELECTOR, "[data-testid='lc-direct-answer'], [data-testid='lc-closest']")
    progress = [e.text for e in browser.find_elements(By.CSS_SELECTOR, "[data-testid='stExpander'] summary, details summary")]
    browser.save_screenshot(str(ARTIFACTS / "1b_ask_layout.png"))
    assert any("মোট" in t for t in progress) or "মোট" in page  # real elapsed time in the progress box

    run_id = sorted(runs.glob("*.json"))[-1].stem.split("_", 1)[1]
    # Run inspector: the Hop Trace graph (in a tab) is drawn, not blank.
    browser.get(f"{url}/Run_inspector?run={run_id}")
    _wait(browser, "h1")
    _settle(browser)
    tab = browser.find_element(By.XPATH, "//*[@role='tab'][contains(., 'Hop Trace')] | //button[contains(., 'Hop Trace')]")
    tab.click()
    time.sleep(2.0)
    frames = [f for f in browser.find_elements(By.CSS_SELECTOR, "iframe") if f.is_displayed()]
    assert frames, "no Hop Trace iframe"
    browser.switch_to.frame(frames[0])
    width = browser.execute_script("var c=document.querySelector('#mynetwork canvas');return c?c.width:0;")
    browser.switch_to.default_content()
    browser.save_screenshot(str(ARTIFACTS / "2b_hop_trace.png"))
    assert width > 0, "the Hop Trace canvas is blank"
    for path, name in PAGES.items():
        target = f"{url}/{path}"
        if path == "StatuteGraph":
            target += "?node=2025:27(1)&run=" + run_id
        browser.get(target)
        _wait(browser, "h1")
        _settle(browser)
        if path == "Annotate":  # an annotator name opens the queue: question, claim, highlighted spans
            name_box = _wait(browser, "input[aria-label*='annotator']")
            name_box.send_keys("browser-test" + Keys.ENTER)
            _wait(browser, ".lc-annot-question")
            _wait(browser, "mark.lc-span", timeout_s=30)  # the cited span, highlighted in the unit text
            _settle(browser)
        browser.save_screenshot(str(ARTIFACTS / f"{name}.png"))
        assert "Traceback" not in browser.page_source, path
        assert "SECRET123" not in browser.page_source, path

    # Evaluation charts with Bangla category names (a small results file written for this check).
    results = runs / "eval" / "results.json"
    results.parent.mkdir(parents=True, exist_ok=True)
    results.write_text(json.dumps(SAMPLE_RESULTS, ensure_ascii=False), encoding="utf-8")
    browser.get(f"{url}/Evaluation")
    _wait(browser, ".js-plotly-plot")
    _settle(browser)
    browser.save_screenshot(str(ARTIFACTS / "7_evaluation_results.png"))

    # An UNDECIDED answer (its claims score under the fixture's τ): the closest provisions, a lead-in
    # («… মালিক-») listed with the clauses that complete it -- what most offline answers look like.
    browser.get(url)
    area = _wait(browser, "textarea")
    area.click()
    area.send_keys("ধারা ২৬ কী বলে?")
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if "জিজ্ঞাসা করুন" in b.text).click()
    badge = _wait(browser, ".lc-badge .lc-badge-status", timeout_s=150)
    _wait(browser, ".lc-closest ul.lc-clauses li", timeout_s=30)
    _settle(browser)
    browser.save_screenshot(str(ARTIFACTS / "1c_ask_undecided.png"))
    assert badge.text.strip() == "UNDECIDED"
    lead = next(e for e in browser.find_elements(By.CSS_SELECTOR, ".lc-closest") if "ধারা ২৬(১)" in e.text)
    assert "একশত বিশ দিনের" in lead.text and "লিখিত নোটিশ" in lead.text

    # A worker's complaint that no counsel could quote from: the nearest provisions, each marked a weak match.
    browser.get(url)
    area = _wait(browser, "textarea")
    area.click()
    area.send_keys("আমার মালিক ৩ মাসের বেতন দেয় নাই")
    next(b for b in browser.find_elements(By.CSS_SELECTOR, "button") if "জিজ্ঞাসা করুন" in b.text).click()
    _wait(browser, ".lc-closest", timeout_s=150)
    _settle(browser)
    browser.save_screenshot(str(ARTIFACTS / "1d_ask_weak_matches.png"))
    closest = browser.find_elements(By.CSS_SELECTOR, ".lc-closest")
    assert closest and all("দুর্বল মিল" in e.text for e in closest)
    assert "শ্রম আইন, ২০০৬ থেকে উত্তর খোঁজে" in browser.page_source
    assert len(list(ARTIFACTS.glob("*.png"))) >= 9


def test_annotate_keyboard_shortcut_labels_a_claim(server, browser):
    """Pressing "1" on the Annotate page labels the shown claim faithful (the name comes from the URL)."""
    from selenium.webdriver.common.by import By

    from labourcrew.gate.labels import LabelStore

    url, runs = server
    if not list(runs.glob("*.json")):  # a saved run whose claims are labelled (without the Ask test)
        from labourcrew.board.run import ask
        from labourcrew.graph.statute_graph import load_graph
        from labourcrew.retrieval.pipeline import Retriever
        from labourcrew.settings import load_settings
        from labourcrew.wiring import make_board

        settings, graph = load_settings(), load_graph()
        board = make_board(settings, graph=graph, retrieval=Retriever.lexical_only(settings, graph))
        ask(QUESTION, board=board, save=True, runs_dir=runs)
    browser.get(f"{url}/Annotate?annotator=browser-keys")
    _wait(browser, ".lc-annot-question")
    _wait(browser, ".lc-shortcuts")  # the cheat-sheet
    _settle(browser)
    assert browser.find_element(By.CSS_SELECTOR, "input[aria-label*='annotator']").get_attribute("value") == \
        "browser-keys"
    browser.find_element(By.TAG_NAME, "body").send_keys("1")
    _wait(browser, "[data-testid='stAlertContentSuccess']", timeout_s=30)
    _settle(browser)
    browser.save_screenshot(str(ARTIFACTS / "4b_annotate_shortcut.png"))
    assert "faithful" in browser.find_element(By.CSS_SELECTOR, "[data-testid='stAlertContentSuccess']").text
    store = LabelStore(runs.parent / "calibration" / "labels.sqlite")
    assert [lab.label for lab in store.list(annotator="browser-keys")] == ["faithful"]
