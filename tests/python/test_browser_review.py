"""The post-game review in Chromium: a finished game (two easy bots, made through the API) opened
on the page, reviewed from the end dialog: the progress, the graph of win chances, the costliest
moves, and the board of a chosen move. Screenshots go to build/screenshots/; look at them."""

from __future__ import annotations

import json
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.by import By

from helpers import HANG_GUARD_S
from test_browser import (
    CHROMEDRIVER,
    CHROMIUM,
    Server,
    browser,
    click,
    page_game,
    shot,
    wait_until,
)

pytestmark = [
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs Debian's chromium and chromium-driver"),
    pytest.mark.concurrency,
]
__all__ = ["browser", "shot"]  # fixtures of test_browser, used here
EASY = {"kind": "bot", "level": "easy"}


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "data")
    server.start()
    yield server
    server.stop()


def finished_game(server: Server) -> str:
    body = json.dumps({"seats": [EASY, EASY], "seed": 5}).encode()
    request = urllib.request.Request(f"{server.url}/api/games", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=HANG_GUARD_S) as response:
        game_id: str = json.load(response)["id"]
    deadline = time.monotonic() + 60
    while not server.get(f"/api/games/{game_id}")["terminal"]:
        assert time.monotonic() < deadline, "the bots did not finish"
        time.sleep(0.1)
    return game_id


def test_a_finished_game_is_reviewed_with_win_chances_and_its_costliest_moves(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    game_id = finished_game(server)
    browser.get(f"{server.url}/#game={game_id}")
    wait_until(lambda: browser.find_element(By.ID, "end-dialog").get_attribute("open") is not None)
    click(browser, "#review-button")
    assert browser.find_element(By.ID, "review-panel").is_displayed()
    wait_until(
        lambda: "positions searched" in browser.find_element(By.ID, "review-text").text, what="progress"
    )
    shot("01-progress")
    wait_until(
        lambda: browser.find_elements(By.CSS_SELECTOR, "#review-graph polyline"),
        timeout=90,
        what="the review",
    )
    review = server.get(f"/api/games/{game_id}/review")
    lines = browser.find_elements(By.CSS_SELECTOR, "#review-graph .win-line")
    assert len(lines) == 2  # one per player, each a point per decision
    assert all(len(line.get_attribute("points").split()) == len(review["points"]) for line in lines)
    marks = browser.find_elements(By.CSS_SELECTOR, "#review-graph .costly")
    items = browser.find_elements(By.CSS_SELECTOR, "#review-marked li")
    assert len(marks) == len(items) == len(review["marked"]) > 0
    worst = max(review["marked"], key=lambda k: review["points"][k]["cost"])
    point = review["points"][worst]
    item = browser.find_element(By.CSS_SELECTOR, f"#review-marked li[data-point='{worst}']")
    assert point["label"] in item.text and point["best"]["label"] in item.text
    assert f"{round(100 * point['cost'])}%" in item.text
    shot("02-graph")

    # A marked move: the board after it (a replay), the cursor on the graph, what was played.
    item.click()
    wait_until(
        lambda: browser.execute_script("return page.replay && page.replay.moves") == point["index"] + 1,
        what="the board of that move",
    )
    assert browser.find_elements(By.CSS_SELECTOR, "#review-graph .cursor")
    text = browser.find_element(By.ID, "review-text").text
    assert f"Turn {point['turn']}" in text and point["best"]["label"] in text
    # The computer's move drawn on that board, where it has a place (a cell or a spot).
    marks = browser.find_elements(By.CSS_SELECTOR, "#layer-hints .review-best")
    assert len(marks) == (1 if point["best"]["where"] else 0)
    if point["best"]["where"] and "tile" in point["best"]["where"]:
        assert browser.find_elements(By.CSS_SELECTOR, "#layer-hints .review-ghost")
    shot("03-costly-move")
    # A click on the graph picks the nearest move.
    graph = browser.find_element(By.ID, "review-graph")
    browser.execute_script(
        "const box = arguments[0].getBoundingClientRect();"
        "arguments[0].dispatchEvent(new MouseEvent('click', {clientX: box.left + 0.1 * box.width,"
        " clientY: box.top + box.height / 2, bubbles: true}))",
        graph,
    )
    wait_until(
        lambda: browser.execute_script("return page.replay && page.replay.moves") < 60, what="early move"
    )
    assert page_game(browser)["terminal"]
