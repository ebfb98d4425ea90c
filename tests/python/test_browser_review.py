"""The post-game review and following a game in Chromium. A finished game (two easy bots, made
through the API) opened on the page, reviewed from the end dialog: the progress, the graph of win
chances, the costliest moves, and the board of a chosen move; its final scoring stepped through.
A game with a friend's seat, moves made through the API: the friend's move played back, the last
tile framed in its player's colour, the log in words; an invite link pasted into the open tab.
Screenshots go to build/screenshots/; look at them."""

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
from selenium.webdriver.common.keys import Keys

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


def post(server: Server, path: str, body: Any, token: str | None = None) -> Any:
    headers = {"Content-Type": "application/json"} | ({"X-Seat-Token": token} if token else {})
    request = urllib.request.Request(f"{server.url}{path}", json.dumps(body).encode(), headers)
    with urllib.request.urlopen(request, timeout=HANG_GUARD_S) as response:
        return json.load(response)


def finished_game(server: Server, players: int = 2) -> str:
    game_id: str = post(server, "/api/games", {"seats": [EASY] * players, "seed": 5})["id"]
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
    # A game of bots, watched: the first seat's moves are marked; the other's a choice away.
    first, second = review["players"]
    marks = browser.find_elements(By.CSS_SELECTOR, "#review-graph .costly")
    items = browser.find_elements(By.CSS_SELECTOR, "#review-marked li")
    assert len(marks) == len(items) == len(first["marked"]) > 0
    worst = max(first["marked"], key=lambda k: review["points"][k]["cost"])
    point = review["points"][worst]
    item = browser.find_element(By.CSS_SELECTOR, f"#review-marked li[data-point='{worst}']")
    # Both whole moves in words, with the points each gave.
    assert point["why"]["played"] in item.text and point["why"]["better"] in item.text
    assert f"{round(100 * point['cost'])}%" in item.text and "points now" in item.text
    # The small slips below the mark, summed up.
    slips = browser.find_element(By.ID, "review-slips").text
    assert f"{first['slips']} smaller slips" in slips
    assert f"{round(100 * first['slips_cost'])} points" in slips
    assert "averaged over the 2 moves either side" in browser.find_element(By.ID, "review-text").text
    shot("02-graph")
    select = browser.find_element(By.ID, "review-whose")
    select.find_element(By.CSS_SELECTOR, "option[value='1']").click()
    wait_until(
        lambda: (
            len(browser.find_elements(By.CSS_SELECTOR, "#review-marked li")) == len(second["marked"])
            and browser.find_element(By.CSS_SELECTOR, "#review-marked li").get_attribute("data-point")
            == str(second["marked"][0])
        ),
        what="the other player's moves",
    )
    select.find_element(By.CSS_SELECTOR, "option[value='0']").click()
    item = wait_until(
        lambda: browser.find_element(By.CSS_SELECTOR, f"#review-marked li[data-point='{worst}']"),
        what="the first player's moves again",
    )

    # A marked move, chosen with the keyboard: the board after it (a replay), the cursor on the
    # graph, what was played.
    assert item.get_attribute("tabindex") == "0" and item.get_attribute("role") == "button"
    item.send_keys(Keys.ENTER)
    wait_until(
        lambda: browser.execute_script("return page.replay && page.replay.moves") == point["index"] + 1,
        what="the board of that move",
    )
    assert browser.find_elements(By.CSS_SELECTOR, "#review-graph .cursor")
    text = browser.find_element(By.ID, "review-text").text
    assert f"Turn {point['turn']}" in text and point["why"]["better"] in text
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


def first_action(state: dict[str, Any]) -> str:
    legal = state["legal"]
    if legal["placements"]:
        return str(next(iter(legal["placements"][0]["rotations"].values())))
    return str(legal["every"][0]["action"])


def test_a_friends_move_is_played_back_framed_in_their_colour_and_logged_in_words(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    made = post(server, "/api/games", {"seats": [{"kind": "human"}, {"kind": "remote"}], "seed": 4})
    game_id, friend, host = made["id"], made["invites"][0]["token"], made["host_token"]
    browser.get(server.url)
    browser.execute_script(
        "localStorage.setItem('carcassonne-speed', 'slow');"
        "localStorage.setItem('carcassonne-tokens', JSON.stringify({[arguments[0]]: arguments[1]}))",
        game_id,
        host,
    )
    browser.get(f"{server.url}/?#game={game_id}")  # this page: the creator's, seat 0
    wait_until(lambda: page_game(browser) and page_game(browser)["you"] == [0], what="the game")
    state = made
    while state["current_player"] == 0:  # seat 0's whole turn, made through the API
        state = post(server, f"/api/games/{game_id}/actions", {"action": first_action(state)}, host)
    landed = browser.execute_script("return page.playedBack.land || 0")
    state = post(server, f"/api/games/{game_id}/actions", {"action": first_action(state)}, friend)
    assert state["log"][-1]["action"].startswith("place ")
    # The friend's tile lands on this page as a bot's would, while the status says so.
    wait_until(lambda: browser.execute_script("return page.playedBack.land || 0") > landed, what="playback")
    assert "Showing the last moves" in browser.find_element(By.ID, "status").text
    shot("03-last-round-again")
    shot("01-friends-move-played-back")
    # A state that comes during the playback (the same one, again) waits for its end: then the
    # status tells whose turn it is, not the playback.
    ended = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "const modules = [import('/static/js/actions.js'), import('/static/js/animate.js')];"
        "Promise.all(modules).then(([{ actions }, anim]) => {"
        " if (!anim.playing()) { done(null); return; }"
        " actions.setGame(page.game); anim.finish();"
        " done(document.getElementById('status').textContent); });"
    )
    assert ended is not None, "the playback was still running"
    assert "Showing the last moves" not in ended and "Waiting for" in ended
    # The tile placed last is framed in the colour of the friend who placed it.
    colours = browser.execute_script(
        "const frame = document.querySelector('#layer-tiles .last-tile');"
        "const probe = document.createElementNS('http://www.w3.org/2000/svg', 'rect');"
        "probe.setAttribute('stroke', page.options.colours[1]); frame.parentNode.appendChild(probe);"
        "const want = getComputedStyle(probe).stroke; probe.remove();"
        "return [getComputedStyle(frame).stroke, want];"
    )
    assert colours[0] == colours[1] and colours[0] != "rgb(255, 255, 255)"
    # The log: every move, in words.
    lines = browser.find_elements(By.CSS_SELECTOR, "#log li")
    assert len(lines) == page_game(browser)["moves"]
    text = browser.find_element(By.ID, "log").text
    assert "placed a" in text and "of the start tile" in text and "Drawn: a" in text
    assert "base." not in text and "Place the tile" not in text
    shot("02-after-the-playback")
    # "Last round" plays the friend's move back again, on demand.
    button = browser.find_element(By.ID, "round-button")
    assert button.is_displayed()
    landed = browser.execute_script("return page.playedBack.land || 0")
    button.click()
    assert browser.execute_script("return page.playedBack.land || 0") == landed + 1
    assert "Showing the last moves" in browser.find_element(By.ID, "status").text


def test_a_spectators_last_round_plays_back_each_seats_last_turn(browser: Any, server: Server) -> None:
    game_id = finished_game(server, players=3)
    browser.get(f"{server.url}/#game={game_id}")
    wait_until(lambda: page_game(browser) and page_game(browser)["id"] == game_id, what="the game")
    browser.execute_script("for (const dialog of document.querySelectorAll('dialog[open]')) dialog.close()")
    game = page_game(browser)
    assert game["you"] == [] and game["terminal"]  # a game of bots: this page has no seat
    # The last three turns, one a seat: their tiles are the ones that land again.
    moves = [entry for entry in game["log"] if entry["player"] >= 0]
    last_turns = sorted({entry["turn"] for entry in moves})[-3:]
    placed = [e["action"] for e in moves if e["turn"] in last_turns and e["action"].startswith("place ")]
    assert len(placed) == 3 and {e["player"] for e in moves if e["turn"] in last_turns} == {0, 1, 2}
    button = browser.find_element(By.ID, "round-button")
    assert button.is_displayed()
    button.click()
    landed = browser.execute_script(
        "return [...document.querySelectorAll('#layer-anim .landing')].map((rect) => {"
        " const [x, y] = rect.parentNode.getAttribute('transform').match(/-?[0-9.]+/g).map(Number);"
        " return `place ${(x - 50) / 100},${(y - 50) / 100}`; })"
    )
    assert sorted(landed) == sorted(a.rsplit(" ", 1)[0] for a in placed)
    assert "each player's last turn" in button.get_attribute("title")


def test_an_invite_link_pasted_into_an_open_page_takes_the_seat(browser: Any, server: Server) -> None:
    watched = finished_game(server)
    made = post(server, "/api/games", {"seats": [{"kind": "remote"}, EASY], "seed": 4})
    game_id, token = made["id"], made["invites"][0]["token"]
    browser.get(f"{server.url}/#game={watched}")
    wait_until(lambda: page_game(browser) and page_game(browser)["id"] == watched, what="the first game")
    # As a link pasted into the address bar of this tab: only the fragment changes.
    browser.execute_script("location.hash = arguments[0]", f"game={game_id}&seat={token}")
    wait_until(lambda: page_game(browser)["id"] == game_id, what="the invited game")
    assert page_game(browser)["you"] == [0]
    assert browser.execute_script("return location.hash") == f"#game={game_id}"  # the key is gone
    wait_until(lambda: browser.find_element(By.ID, "name-dialog").get_attribute("open") is not None)
    # The game's own address again: nothing changes.
    browser.execute_script("location.hash = arguments[0]", f"game={watched}")
    wait_until(lambda: page_game(browser)["id"] == watched, what="the watched game again")
    assert page_game(browser)["you"] == []


def test_the_final_scoring_brings_each_item_into_view_below_its_panel(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    game_id = finished_game(server)
    browser.get(f"{server.url}/#game={game_id}")
    wait_until(lambda: browser.find_element(By.ID, "end-dialog").get_attribute("open") is not None)
    click(browser, "#final-steps-button")
    items = page_game(browser)["final_scoring"]
    for k, item in enumerate(items):
        text = browser.find_element(By.ID, "final-text").text
        assert ("pennant" in text) == bool(item["pennants"]), text
        if item["parts"]:
            place = browser.execute_script(
                "const r = (e) => e.getBoundingClientRect();"
                "const o = r(document.querySelector('#layer-focus .feature-outline:last-child'));"
                "const p = r(document.getElementById('final-panel'));"
                "const b = r(document.getElementById('board'));"
                "return [o.top - p.bottom, b.bottom - o.bottom, o.left - b.left, b.right - o.right];"
            )
            assert min(place) >= -1, (k, place)  # below the panel, inside the board
        if k == 0:
            shot("04-final-item")
        if k + 1 < len(items):
            click(browser, "#final-forward")
    click(browser, "#final-close")
    # A long catch-up (here the whole game, as if every move were new) plays back its last
    # twelve moves only, not 140 tiles one after another.
    landed = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "import('/static/js/animate.js').then((anim) => {"
        " const before = page.playedBack.land || 0;"
        " anim.playBack(page.game.log, () => {});"
        " const landed = (page.playedBack.land || 0) - before; anim.finish(); done(landed); });"
    )
    assert 0 < landed <= 12
