"""Two friends play one game in two browsers (two Chromium sessions: nothing shared), each by the
page's own controls, to the end. The game's first and last turns are clicked; the many turns in
between are made through the API with each seat's token (as the page sends it), which keeps this
test to about a minute: the engine has no shorter game than the base game's 72 tiles. Moves reach
the other page by the server's event stream; a server restart in the middle shows "reconnecting…"
and the pages catch up by themselves. Screenshots go to build/screenshots/; look at them."""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from helpers import HANG_GUARD_S  # noqa: E402
from test_browser import (  # noqa: E402
    CHROMEDRIVER,
    CHROMIUM,
    SCREENSHOTS,
    Server,
    click,
    page_game,
    take_turn_by_clicks,
    wait_until,
)

pytestmark = [
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs Debian's chromium and chromium-driver"),
    pytest.mark.concurrency,
]
CLICKED_TURNS = 3  # each page's own turns clicked at the start, and again at the end


def chromium() -> Any:
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1300,850"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    return webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)


@pytest.fixture
def two_browsers() -> Iterator[tuple[Any, Any]]:
    first = chromium()
    try:
        second = chromium()
    except Exception:
        first.quit()
        raise
    yield first, second
    first.quit()
    second.quit()


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "data")
    server.start()
    yield server
    server.stop()


def wait_for_my_turn(browser: Any) -> dict[str, Any]:
    """Until the page may act (its seat is to move) or the game is over."""

    def ready() -> dict[str, Any] | None:
        game = page_game(browser)
        busy = browser.execute_script("return page.busy || page.pending !== null")
        return game if game and not busy and (game["your_turn"] or game["terminal"]) else None

    return wait_until(ready, what="this seat's turn")


def token_of(browser: Any, game_id: str) -> str:
    return browser.execute_script(
        "return JSON.parse(localStorage.getItem('carcassonne-tokens'))[arguments[0]]", game_id
    )


def api(server: Server, path: str, token: str, body: Any = None) -> Any:
    data = None if body is None else json.dumps(body).encode()
    headers = {"X-Seat-Token": token, "Content-Type": "application/json"}
    with urllib.request.urlopen(
        urllib.request.Request(server.url + path, data, headers), timeout=HANG_GUARD_S
    ) as r:
        return json.load(r)


def first_action(state: dict[str, Any]) -> str:
    legal = state["legal"]
    if legal["placements"]:
        return next(iter(legal["placements"][0]["rotations"].values()))
    return (legal["choices"] or legal["figures"] or legal["every"])[0]["action"]


def fresh_screenshot_folder(request: Any) -> Path:
    """build/screenshots/<test name>/, emptied of an earlier run's pictures."""
    folder = SCREENSHOTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()
    return folder


def test_two_friends_play_a_game_to_the_end_in_two_browsers(
    two_browsers: tuple[Any, Any], server: Server, request: Any
) -> None:
    folder = fresh_screenshot_folder(request)
    host, friend = two_browsers
    pages = {0: host, 1: friend}

    # The host: Red at this screen, Blue a friend by invite link.
    host.get(server.url)
    wait_until(lambda: host.find_element(By.ID, "new-game-dialog").get_attribute("open") is not None)
    host.execute_script("localStorage.setItem('carcassonne-speed', 'fast'); page.speed = 'fast'")
    host.find_element(By.CSS_SELECTOR, "select[data-seat='1'] option[value='remote']").click()
    click(host, "#start-button")
    wait_until(lambda: host.find_element(By.ID, "invite-dialog").get_attribute("open") is not None)
    links = host.find_elements(By.CSS_SELECTOR, ".invite-link")
    assert len(links) == 1 and links[0].get_attribute("data-seat") == "1"
    link = links[0].get_attribute("value")
    watch = host.find_element(By.CSS_SELECTOR, ".watch-link").get_attribute("value")
    assert watch.endswith(f"#game={page_game(host)['id']}")  # to watch: no key
    assert "#game=" in link and "&seat=" in link and "?" not in link  # the token is in the fragment
    host.save_screenshot(str(folder / "01-host-invites.png"))
    host.find_element(By.CSS_SELECTOR, "#invite-dialog form button").click()
    game_id = page_game(host)["id"]

    # The friend opens the link: the token leaves the address bar, the page knows its seat.
    friend.get(link)
    wait_until(lambda: page_game(friend), what="the friend's page")
    friend.execute_script("localStorage.setItem('carcassonne-speed', 'fast'); page.speed = 'fast'")
    # The page asks for a name for the seat; the friend may give none (the seat keeps its colour).
    wait_until(lambda: friend.find_element(By.ID, "name-dialog").get_attribute("open") is not None)
    click(friend, "#name-dialog button[value='later']")
    assert "seat=" not in friend.current_url
    assert page_game(friend)["you"] == [1] and page_game(host)["you"] == [0]
    assert not page_game(friend)["host"] and friend.find_element(By.ID, "invite-button").get_attribute(
        "hidden"
    )
    friend_token, host_token = token_of(friend, game_id), token_of(host, game_id)
    assert friend_token and host_token and friend_token != host_token
    assert host_token not in json.dumps(page_game(friend))  # (the host's page made the invites)
    # Not its turn: no legal cells to click, Hint off, and it says whom it waits for.
    assert not friend.find_elements(By.CSS_SELECTOR, ".target")
    assert friend.find_element(By.ID, "hint-button").get_attribute("disabled")
    assert "Waiting for Red" in friend.find_element(By.ID, "status").text

    def play_by_clicks(decisions: int, figures: bool) -> None:
        """`decisions` decisions clicked on the page whose turn it is (`figures`: a figure where
        one may go); the other page is told of each move by the event stream."""
        for _ in range(decisions):
            state = page_game(host)
            if state["terminal"]:
                return
            page = pages[state["current_player"]]
            wait_for_my_turn(page)
            take_turn_by_clicks(page, figure=figures)
            moves = page_game(page)["moves"]
            other = pages[1 - state["current_player"]]
            wait_until(lambda: page_game(other)["moves"] == moves, what="the push")  # noqa: B023
            assert other.execute_script("return page.events.readyState") == 1  # open

    play_by_clicks(2 * CLICKED_TURNS, figures=True)
    host.save_screenshot(str(folder / "02-host-early.png"))
    friend.save_screenshot(str(folder / "03-friend-early.png"))

    # The server restarts (killed): both pages say so, reconnect by themselves, and show the
    # moves made while they were away.
    server.stop()
    for page in pages.values():
        wait_until(lambda: page.find_element(By.ID, "connection").is_displayed(), what="reconnecting")  # noqa: B023
    friend.save_screenshot(str(folder / "04-friend-reconnecting.png"))
    server.start()
    tokens = {0: host_token, 1: friend_token}
    state = api(server, f"/api/games/{game_id}", host_token)
    while state["bag_size"] > CLICKED_TURNS:  # most of the game, through the API
        seat = state["current_player"]
        state = api(server, f"/api/games/{game_id}/actions", tokens[seat], {"action": first_action(state)})
    for page in pages.values():
        wait_until(lambda: page_game(page)["moves"] == state["moves"], what="the catch-up")  # noqa: B023
        wait_until(lambda: not page.find_element(By.ID, "connection").is_displayed(), what="reconnected")  # noqa: B023

    # The last turns by clicks again, to the end.
    play_by_clicks(10 * CLICKED_TURNS, figures=False)  # late spots on a fitted board overlap
    for page in pages.values():
        wait_until(lambda: page_game(page)["terminal"], what="the end")  # noqa: B023
        wait_until(lambda: page.find_element(By.ID, "end-dialog").get_attribute("open") is not None)  # noqa: B023
    final = api(server, f"/api/games/{game_id}", host_token)
    assert final["terminal"] and final["bag_size"] == 0
    for page in pages.values():
        assert page_game(page)["scores"] == final["scores"]
        summary = page.find_element(By.ID, "end-summary").text
        assert all(str(score) in summary for score in final["scores"])
    host.save_screenshot(str(folder / "05-host-end.png"))
    friend.save_screenshot(str(folder / "06-friend-end.png"))

    # A rematch: the host starts it from the end dialog, the friend's page offers to go there.
    click(host, "#end-dialog .rematch-button")
    wait_until(lambda: page_game(host)["id"] != game_id, what="the host's rematch")
    rematch = page_game(host)["id"]
    button = "#end-dialog .rematch-button"
    offered = "Go to the rematch"
    wait_until(lambda: friend.find_element(By.CSS_SELECTOR, button).text == offered, what="the offer")
    friend.save_screenshot(str(folder / "07-friend-offered-the-rematch.png"))
    click(friend, button)
    wait_until(lambda: page_game(friend)["id"] == rematch, what="the friend in the rematch")
    assert page_game(friend)["you"] == [1] and page_game(host)["you"] == [0]
    print(f"\nscreenshots: {folder}")


TRICKY_NAME = "<script>\"Eve's</script>"
YOUR_TURN_TITLE = "● Your turn — Carcassonne"


def test_friends_see_names_who_is_here_their_turn_in_the_tab_title_and_agree_to_an_undo(
    two_browsers: tuple[Any, Any], server: Server, request: Any
) -> None:
    folder = fresh_screenshot_folder(request)
    host, friend = two_browsers

    # The host names their own seat when creating the game; Blue is a friend's.
    host.get(server.url)
    wait_until(lambda: host.find_element(By.ID, "new-game-dialog").get_attribute("open") is not None)
    host.find_element(By.CSS_SELECTOR, ".seat-name").send_keys("Ann")
    host.find_element(By.CSS_SELECTOR, "select[data-seat='1'] option[value='remote']").click()
    click(host, "#start-button")
    wait_until(lambda: host.find_element(By.ID, "invite-dialog").get_attribute("open") is not None)
    link = host.find_element(By.CSS_SELECTOR, ".invite-link").get_attribute("value")
    host.find_element(By.CSS_SELECTOR, "#invite-dialog form button").click()
    blue = "#scores tr[data-player='1']"
    wait_until(lambda: host.find_elements(By.CSS_SELECTOR, f"{blue} .presence.away"), what="Blue away")
    assert "Ann (you)" in host.find_element(By.ID, "scores").text
    assert host.title == YOUR_TURN_TITLE  # Ann is to play, and a friend waits

    # The friend opens the link and names their seat (a name that looks like markup).
    friend.get(link)
    wait_until(lambda: friend.find_element(By.ID, "name-dialog").get_attribute("open") is not None)
    friend.find_element(By.CSS_SELECTOR, "#name-list input[data-seat='1']").send_keys(TRICKY_NAME)
    click(friend, "#name-save")
    wait_until(lambda: friend.find_element(By.ID, "name-dialog").get_attribute("open") is None, what="saved")
    friend.execute_script("localStorage.setItem('carcassonne-speed', 'fast'); page.speed = 'fast'")
    assert friend.title == "Carcassonne"  # not the friend's turn
    assert "Waiting for Ann (friend)" in friend.find_element(By.ID, "status").text
    wait_until(
        lambda: host.find_elements(By.CSS_SELECTOR, f"{blue}[data-present] .presence.here"), what="here"
    )
    wait_until(lambda: f"{TRICKY_NAME} (friend)" in host.find_element(By.ID, "scores").text, what="the name")
    for page in (host, friend):  # shown as text: no element made of it
        assert page.execute_script("return document.querySelectorAll('body script').length") == 1
    host.save_screenshot(str(folder / "01-host-sees-the-friends-name.png"))

    # Ann's tile and no figure: the friend's turn, their title says so, Ann's is plain again.
    take_turn_by_clicks(host, figure=False)
    take_turn_by_clicks(host, figure=False)
    wait_for_my_turn(friend)
    wait_until(lambda: friend.title == YOUR_TURN_TITLE, what="the friend's title")
    wait_until(lambda: host.title == "Carcassonne", what="the host's title back")
    assert TRICKY_NAME in friend.find_element(By.ID, "prompt").text
    assert f"Waiting for {TRICKY_NAME} (friend)" in host.find_element(By.ID, "status").text
    assert host.find_element(By.ID, "undo-button").get_attribute("disabled")  # Blue's tile is seen
    assert "drawn" in host.find_element(By.ID, "undo-button").get_attribute("title")

    # The friend places a tile and asks to take it back: Ann allows it on her page.
    take_turn_by_clicks(friend, figure=False)
    placed = page_game(friend)["moves"]
    assert TRICKY_NAME in friend.find_element(By.ID, "log").text
    click(friend, "#undo-button")
    wait_until(lambda: host.find_element(By.ID, "undo-allow").is_displayed(), what="the request")
    assert TRICKY_NAME in host.find_element(By.ID, "undo-request").text
    assert "waiting for Ann" in friend.find_element(By.ID, "undo-request").text
    host.save_screenshot(str(folder / "02-host-asked-to-allow-an-undo.png"))
    friend.save_screenshot(str(folder / "03-friend-waits-for-the-answer.png"))
    click(host, "#undo-allow")
    wait_until(lambda: page_game(friend)["moves"] == placed - 1, what="the undo")
    wait_until(lambda: not friend.find_element(By.ID, "undo-request").is_displayed(), what="no request")

    # The friend closes the game: Ann's page shows them gone.
    friend.get("about:blank")
    wait_until(lambda: host.find_elements(By.CSS_SELECTOR, f"{blue} .presence.away"), what="the friend gone")
    wait_until(lambda: "not connected" in host.find_element(By.ID, "status").text, what="the status")
    host.save_screenshot(str(folder / "04-host-friend-gone.png"))
    print(f"\nscreenshots: {folder}")
