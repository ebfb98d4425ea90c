"""The play page in real Chromium (Debian's chromium + chromium-driver, driven by Selenium): games
played through clicks against a server started as `python -m carcassonne serve`. Screenshots go
to build/screenshots/ (printed at the end of each test); look at them."""

from __future__ import annotations

import json
import random
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

webdriver = pytest.importorskip("selenium.webdriver")
from selenium.webdriver.chrome.service import Service  # noqa: E402
from selenium.webdriver.common.action_chains import ActionChains  # noqa: E402
from selenium.webdriver.common.actions.wheel_input import ScrollOrigin  # noqa: E402
from selenium.webdriver.common.by import By  # noqa: E402

from carcassonne import Game  # noqa: E402
from helpers import HANG_GUARD_S  # noqa: E402

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
CHROMEDRIVER = shutil.which("chromedriver")
pytestmark = [
    pytest.mark.skipif(not (CHROMIUM and CHROMEDRIVER), reason="needs Debian's chromium and chromium-driver"),
    pytest.mark.concurrency,
]
SCREENSHOTS = Path(__file__).resolve().parents[2] / "build" / "screenshots"


class Server:
    """`python -m carcassonne serve` on a free port, restartable on the same data folder."""

    def __init__(self, data: Path) -> None:
        self.data = data
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            self.port = s.getsockname()[1]
        self.url = f"http://127.0.0.1:{self.port}"
        self.process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        command = [
            sys.executable,
            "-m",
            "carcassonne",
            "serve",
            "--port",
            str(self.port),
            "--data",
            str(self.data),
        ]
        with open(self.data.parent / "server.log", "ab") as log:
            self.process = subprocess.Popen(command, stdout=log, stderr=log)
        deadline = time.monotonic() + HANG_GUARD_S
        while True:
            try:
                with urllib.request.urlopen(f"{self.url}/api/options", timeout=1):
                    return
            except OSError:
                assert self.process.poll() is None, (self.data.parent / "server.log").read_text()
                assert time.monotonic() < deadline, "the server did not start"
                time.sleep(0.1)

    def stop(self) -> None:
        if self.process is not None:
            self.process.kill()  # as a crash would: the games must survive it
            self.process.wait()
            self.process = None

    def get(self, path: str) -> Any:
        with urllib.request.urlopen(f"{self.url}{path}", timeout=HANG_GUARD_S) as response:
            return json.load(response)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Server]:
    server = Server(tmp_path / "data")
    server.start()
    yield server
    server.stop()


@pytest.fixture
def browser() -> Iterator[Any]:
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,900"):
        options.add_argument(argument)
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def shot(request: pytest.FixtureRequest, browser: Any) -> Callable[[str], None]:
    folder = SCREENSHOTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    for old in folder.glob("*.png"):
        old.unlink()

    def take(name: str) -> None:
        browser.save_screenshot(str(folder / f"{name}.png"))

    yield take
    print(f"\nscreenshots: {folder}")


def sent_whole(state: dict[str, Any]) -> dict[str, Any]:
    """A state without what says how it was sent (whole, or the changes since a version)."""
    return {k: v for k, v in state.items() if k not in ("since", "appended")}


def page_game(browser: Any) -> dict[str, Any]:
    """The game state the page shows now."""
    return browser.execute_script("return page.game")


def wait_until(condition: Callable[[], Any], timeout: float = HANG_GUARD_S, what: str = "the page") -> Any:
    deadline = time.monotonic() + timeout
    while True:
        value = condition()
        if value:
            return value
        assert time.monotonic() < deadline, f"timed out waiting for {what}"
        time.sleep(0.05)


def wait_for_turn(browser: Any) -> dict[str, Any]:
    """Waits until the page shows a human decision or the end (bots answer in the background)."""

    def ready() -> dict[str, Any] | None:
        game = page_game(browser)
        busy = browser.execute_script("return page.busy")
        return game if game and not busy and (game["human_to_move"] or game["terminal"]) else None

    return wait_until(ready, what="a human turn")


def click(browser: Any, selector: str) -> None:
    browser.find_element(By.CSS_SELECTOR, selector).click()


def start_game(
    browser: Any,
    server: Server,
    seats: list[str],
    expansions: list[str] = (),
    seed: int = 1,
    speed: str = "off",
) -> None:
    """A new game through the dialog; `speed`: how the page plays moves back ("off": at once)."""
    browser.get(server.url)
    wait_until(lambda: browser.find_element(By.ID, "new-game-dialog").get_attribute("open") is not None)
    # The header's setting, behind the dialog: set as a change of the select would.
    browser.execute_script(
        "const s = document.getElementById('speed'); s.value = arguments[0];"
        "s.dispatchEvent(new Event('change'));",
        speed,
    )
    count = browser.find_element(By.ID, "player-count")
    count.find_element(By.CSS_SELECTOR, f"option[value='{len(seats)}']").click()
    for seat, kind in enumerate(seats):
        browser.find_element(By.CSS_SELECTOR, f"select[data-seat='{seat}'] option[value='{kind}']").click()
    for expansion in expansions:
        browser.find_element(By.CSS_SELECTOR, f"input[name=expansion][value='{expansion}']").click()
    seed_input = browser.find_element(By.ID, "seed")
    seed_input.clear()
    seed_input.send_keys(str(seed))
    click(browser, "#start-button")
    wait_for_turn(browser)


def take_turn_by_clicks(browser: Any, figure: bool) -> None:
    """One human decision through the page: a placement (select a cell, turn with R, click it
    again), a figure spot or "No figure", or the first other choice."""
    game = wait_for_turn(browser)
    moves = game["moves"]
    # A click during the playback of the bot's moves only ends the playback (as it should).
    playing = "return document.getElementById('board').classList.contains('playing-back')"
    wait_until(lambda: not browser.execute_script(playing), what="the end of the playback")
    if game["phase"] == "place_tile":
        # A legal cell in the board's view (on a phone the board may be larger than the view).
        target = browser.execute_script(
            "const view = document.getElementById('board').getBoundingClientRect();"
            "return [...document.querySelectorAll('.target')].find(t => {"
            " const r = t.getBoundingClientRect();"
            " return r.left >= view.left && r.right <= view.right && r.top >= view.top"
            " && r.bottom <= view.bottom; });"
        )
        assert target is not None, "a legal cell is in view"
        target.click()
        browser.find_element(By.TAG_NAME, "body").send_keys("r")
        chosen = browser.execute_script("return page.selected.rotations[page.selected.rotation]")
        click(browser, ".target.selected")  # the targets were drawn again around the selection
        wait_until(lambda: page_game(browser)["moves"] > moves, what="the placement")
        assert chosen in [entry["action"] for entry in page_game(browser)["log"]]
        return
    spots = browser.find_elements(By.CSS_SELECTOR, ".spot")
    if figure and spots:
        spots[0].click()
    else:
        browser.find_elements(By.CSS_SELECTOR, "#choices button")[0].click()
    wait_until(lambda: page_game(browser)["moves"] > moves, what="the move")


def test_a_base_game_against_the_easy_bot_played_to_the_end_by_clicks(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    start_game(browser, server, ["human", "easy"], speed="fast")
    shot("01-start")
    game = page_game(browser)
    assert game["phase"] == "place_tile" and browser.find_elements(By.CSS_SELECTOR, ".target")
    assert browser.execute_script("return localStorage.getItem('carcassonne-speed')") == "fast"

    # Hint: three moves, drawn on the board.
    click(browser, "#hint-button")
    wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "#hint-list button"), what="the hint")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#hint-list li")) == 3
    assert browser.find_elements(By.CSS_SELECTOR, ".hint-mark")
    shot("02-hint")

    # The wheel over a legal cell turns the tile; elsewhere it zooms.
    target = browser.find_elements(By.CSS_SELECTOR, ".target")[0]
    ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(target), 0, 120).perform()
    wait_until(lambda: browser.execute_script("return page.rotation") == 1, what="the wheel's turn")
    scale = browser.execute_script("return page.view.scale")
    board = browser.find_element(By.ID, "board")
    ActionChains(browser).scroll_from_origin(ScrollOrigin.from_element(board, 0, -300), 0, -120).perform()
    wait_until(lambda: browser.execute_script("return page.view.scale") > scale, what="the zoom")

    # A placement and a meeple, then undo back to the figure decision.
    take_turn_by_clicks(browser, figure=True)
    shot("03-figure-spots")
    # Zoomed out, the spots keep their size on screen (they are not shrunk with the board).
    while browser.execute_script("return page.view.scale") > 0.5:
        click(browser, "#zoom-out")
    size = smallest(browser, ".spot .spot-shape")
    click(browser, "#zoom-out")
    click(browser, "#zoom-out")
    assert size >= 17 and abs(smallest(browser, ".spot .spot-shape") - size) < 1
    click(browser, "#zoom-fit")
    take_turn_by_clicks(browser, figure=True)
    assert page_game(browser)["figures"], "the meeple is on the board"
    wait_for_turn(browser)
    click(browser, "#undo-button")
    wait_until(lambda: page_game(browser)["phase"] == "place_figure", what="the undo")
    assert not page_game(browser)["figures"]
    take_turn_by_clicks(browser, figure=True)

    # Save: the link gives the engine's record.
    game_id = page_game(browser)["id"]
    record = server.get(
        browser.find_element(By.ID, "save-link").get_attribute("href").replace(server.url, "")
    )
    assert record["format"] == "carcassonne-record/1" and record["actions"]

    # Play on; halfway, reload the page and restart the server (killed, as a crash would). The
    # bot's moves and every scoring are played back on the board.
    turns = 0
    scoring_shot = False
    while not page_game(browser)["terminal"]:
        take_turn_by_clicks(browser, figure=turns % 3 == 0)
        turns += 1
        if not scoring_shot:  # a playback with a scoring: points rising on the board
            deadline = time.monotonic() + 1.5
            while time.monotonic() < deadline and not scoring_shot:
                if browser.find_elements(By.CSS_SELECTOR, "#layer-anim .rising-points"):
                    time.sleep(0.6)  # at the fast speed, a scoring shows after the tile's step
                    shot("04-scoring")
                    scoring_shot = True
                time.sleep(0.05)
        if turns == 20:
            shot("04-midgame")
            before = wait_for_turn(browser)
            server.stop()
            server.start()
            browser.refresh()
            wait_for_turn(browser)
            after = page_game(browser)
            assert after["id"] == game_id and after["tiles"] == before["tiles"]
            assert after["figures"] == before["figures"] and after["phase"] == before["phase"]
        assert turns < 400
    # The bot's tiles landed and its figures arrived; features flashed, points rose, figures
    # went home (counted by the page's playback).
    played = browser.execute_script("return page.playedBack")
    assert {"arrive", "land", "flash", "rise", "go-home"} <= set(played), played
    wait_until(lambda: browser.find_element(By.ID, "end-dialog").get_attribute("open") is not None)
    shot("05-end")
    final = page_game(browser)
    assert final["bag_size"] == 0 and final["phase"] == "game_over"
    # Joined from the answers' changes since the restart, the page's state is the whole state.
    assert final["since"] is not None
    assert sent_whole(final) == sent_whole(server.get(f"/api/games/{game_id}"))
    summary = browser.find_element(By.ID, "end-summary").text
    for score in final["scores"]:
        assert str(score) in summary
    assert "+-" not in browser.find_element(By.TAG_NAME, "body").text

    # The final scoring, item by item: its log section, and the steps over the board.
    items = final["final_scoring"]
    assert len(browser.find_elements(By.CSS_SELECTOR, "#final-log li")) == len(items) > 0
    click(browser, "#final-steps-button")
    assert browser.find_element(By.ID, "final-panel").is_displayed()
    first = browser.find_element(By.ID, "final-text").text
    assert browser.find_elements(By.CSS_SELECTOR, "#layer-focus .feature-outline path")
    shot("07-final-first")
    farm = next((i for i, item in enumerate(items) if item["type"] == "field" and item["cities"]), None)
    if farm is not None:
        browser.find_element(By.CSS_SELECTOR, f"#final-log li[data-item='{farm}']").click()
        assert "Farm" in browser.find_element(By.ID, "final-text").text
        assert browser.find_elements(By.CSS_SELECTOR, "#layer-focus .fed path")
        shot("08-final-farm")
    click(browser, "#final-close")
    assert first

    # Replay: step through the record from the start.
    click(browser, "#replay-first")
    wait_until(lambda: browser.execute_script("return page.replay !== null && page.replay.moves === 0"))
    assert len(browser.find_elements(By.CSS_SELECTOR, "#layer-tiles use")) == 1
    for _ in range(6):  # quick clicks: each steps on from the last one
        click(browser, "#replay-forward")
    wait_until(
        lambda: browser.execute_script("return page.replay && page.replay.moves") == 6, what="the replay"
    )
    assert "Replay" in browser.find_element(By.ID, "status").text
    shot("06-replay")
    click(browser, "#replay-exit")
    wait_until(lambda: browser.execute_script("return page.replay") is None, what="the game again")
    assert len(browser.find_elements(By.CSS_SELECTOR, "#layer-tiles use")) == len(final["tiles"])


EVERY_EXPANSION = ["abbey-mayor", "city", "king-robber", "shrines", "anniv20"]  # River II excludes the City
OUT_OF_TURN = ("city_move", "wagon_move", "arrow_choice")


def chosen_move(game: Game, moves: int) -> str:
    """A seeded choice among the legal actions, mostly taking a figure when one may be placed
    or moved. With seed 12 and the City start, the game below reaches a City move, a wagon move
    and an arrow choice within 100 moves (found by playing this policy in Python)."""
    rng = random.Random(moves * 7919 + 17)
    actions = [a.text for a in game.legal_actions()]
    figures = [a for a in actions if a != "pass"]
    figure_phases = ("place_figure", "city_place", "wagon_move", "city_move", "market_move")
    if game.phase in figure_phases and figures and rng.random() < 0.85:
        return rng.choice(figures)
    return rng.choice(actions)


def click_action(browser: Any, action: str) -> None:
    """Makes one move through the page's own controls: a placement by its cell and R presses,
    a figure spot, a highlighted cell or a prompt button. Fails if the page offers no control."""
    placement = re.fullmatch(r"place (-?\d+),(-?\d+) r(\d)", action)
    if placement:
        x, y, rotation = placement.groups()
        click(browser, f".target[data-cell='{x},{y}']")
        for _ in range(4):
            if browser.execute_script("return page.selected.rotation") == int(rotation):
                break
            browser.find_element(By.TAG_NAME, "body").send_keys("r")
        assert browser.execute_script("return page.selected.rotations[page.selected.rotation]") == action
        click(browser, ".target.selected")
        return
    quoted = action.replace("'", "\\'")
    for selector in (f".spot[data-action='{quoted}']", f".cell-choice[data-action='{quoted}']"):
        found = browser.find_elements(By.CSS_SELECTOR, selector)
        if found:  # the spot's own click handler: spots of several figures may touch on the board
            browser.execute_script(
                "arguments[0].dispatchEvent(new MouseEvent('click', {bubbles: true}))", found[0]
            )
            return
    click(browser, f"#choices button[data-action='{quoted}']")


def test_every_expansion_hot_seat_reaches_city_wagon_and_arrow_prompts(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    start_game(browser, server, ["human", "human", "human"], EVERY_EXPANSION, seed=12)
    shot("01-start-city")
    # Hot seat: three people at one screen, none of them "you".
    body = browser.find_element(By.TAG_NAME, "body").text
    assert "(you)" not in body and "Red (human)" in body
    game_id = page_game(browser)["id"]
    assert page_game(browser)["config"]["variants"]["start"] == "city"
    seen: set[str] = set()
    while not set(OUT_OF_TURN) <= seen:
        state = wait_for_turn(browser)
        assert not state["terminal"], f"the game ended before reaching {set(OUT_OF_TURN) - seen}"
        game = Game.from_json(json.dumps(server.get(f"/api/games/{game_id}/record")))
        phase = game.phase
        if phase in OUT_OF_TURN + ("city_place", "count_move") and phase not in seen:
            seen.add(phase)
            assert browser.find_element(By.ID, "prompt").text.strip(), phase
            shot(f"{len(seen) + 1:02d}-{phase}")
        click_action(browser, chosen_move(game, len(game.to_record()["actions"])))
        wait_until(lambda: page_game(browser)["moves"] > state["moves"], what="the move")  # noqa: B023
    shot("99-after")


def test_the_new_game_dialog_speaks_in_words_and_lists_saved_games_to_delete(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    browser.get(server.url)
    wait_until(lambda: browser.find_element(By.ID, "new-game-dialog").get_attribute("open") is not None)
    dialog = browser.find_element(By.ID, "new-game-dialog")
    for internal in ("anniv20", "abbey_endgame", "wagon_move", "c2", "king-robber", "city_plain"):
        assert internal not in dialog.text, internal
    seed = browser.find_element(By.ID, "seed").get_attribute("value")
    click(browser, "#new-seed")
    assert browser.find_element(By.ID, "seed").get_attribute("value") != seed  # random, 1 in 2^31
    start = "select[data-name='start']"
    value = lambda: browser.execute_script(f'return document.querySelector("{start}").value')  # noqa: E731
    assert value() == "tile"
    click(browser, "input[name=expansion][value='city']")
    assert value() == "city"  # the City is the start
    shot("01-dialog")
    click(browser, "input[name=expansion][value='city']")
    assert value() == "tile"

    start_game(browser, server, ["human", "easy"], seed=2)
    # A move made elsewhere (another tab) shows up here by itself.
    game = page_game(browser)
    placement = next(iter(game["legal"]["placements"][0]["rotations"].values()))
    request = urllib.request.Request(
        f"{server.url}/api/games/{game['id']}/actions",
        json.dumps({"action": placement}).encode(),
        {"Content-Type": "application/json"},
    )
    urllib.request.urlopen(request, timeout=HANG_GUARD_S).close()
    wait_until(lambda: page_game(browser)["moves"] > game["moves"], what="the refresh")
    assert page_game(browser)["phase"] == "place_figure"
    # The refresh brought only what changed since the page's state; joined, the page has the
    # whole state.
    shown = page_game(browser)
    assert shown["since"] == game["version"] and shown["appended"]["log"] == game["moves"]
    assert sent_whole(shown) == sent_whole(server.get(f"/api/games/{game['id']}"))

    click(browser, "#new-game-button")
    click(browser, "#saved-games summary")
    wait_until(lambda: browser.find_elements(By.CSS_SELECTOR, "#saved-game-list li"), what="the list")
    item = browser.find_element(By.CSS_SELECTOR, "#saved-game-list li")
    assert "easy bot" in item.text and "turn 1" in item.text and "base game" in item.text
    shot("02-saved-games")
    item.find_element(By.CSS_SELECTOR, "button.delete").click()
    browser.switch_to.alert.accept()
    wait_until(lambda: not browser.find_elements(By.CSS_SELECTOR, "#saved-game-list li"), what="the delete")
    assert server.get("/api/games") == []
    # The page that showed the deleted game says so (it checks its game now and then).
    wait_until(lambda: "deleted" in browser.find_element(By.ID, "status").text, what="the news")


def test_a_game_deleted_while_its_bot_thinks_shows_nobody_thinking(server: Server, browser: Any) -> None:
    slow = {"kind": "bot", "level": "hard", "time": 60}
    body = json.dumps({"seats": [slow, {"kind": "human"}], "seed": 1}).encode()
    made = urllib.request.Request(f"{server.url}/api/games", body, {"Content-Type": "application/json"})
    with urllib.request.urlopen(made, timeout=HANG_GUARD_S) as response:
        game = json.load(response)
    browser.get(f"{server.url}/#game={game['id']}")
    prompt = lambda: browser.find_element(By.ID, "prompt").text  # noqa: E731
    wait_until(lambda: "thinking" in prompt(), what="the bot thinking")
    name = browser.find_element(By.ID, "name-button")
    assert name.is_displayed()  # the person's seat can be named, until the game is gone
    delete = urllib.request.Request(f"{server.url}/api/games/{game['id']}", method="DELETE")
    urllib.request.urlopen(delete, timeout=HANG_GUARD_S).close()
    wait_until(lambda: "deleted" in browser.find_element(By.ID, "status").text, what="the news")
    assert browser.find_element(By.ID, "new-game-dialog").get_attribute("open") is not None
    assert "thinking" not in prompt() and "deleted" in prompt()
    assert browser.find_element(By.ID, "undo-button").get_attribute("disabled")
    assert not name.is_displayed()  # naming a seat of a deleted game could only fail


def phone_of(width: int, height: int) -> Iterator[Any]:
    """Chromium emulating a phone of `width` x `height` CSS pixels, touch, a coarse pointer."""
    options = webdriver.ChromeOptions()
    for argument in ("--headless=new", "--no-sandbox", "--disable-gpu"):
        options.add_argument(argument)
    metrics = {"width": width, "height": height, "pixelRatio": 2.0, "touch": True}
    options.add_experimental_option("mobileEmulation", {"deviceMetrics": metrics})
    options.binary_location = CHROMIUM
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=options)
    yield driver
    driver.quit()


@pytest.fixture
def phone() -> Iterator[Any]:
    """A phone held upright."""
    yield from phone_of(390, 844)


@pytest.fixture
def sideways_phone() -> Iterator[Any]:
    """A phone held sideways."""
    yield from phone_of(844, 390)


def on_screen(browser: Any, selector: str) -> dict[str, float]:
    """The element's box; fails unless all of it lies inside the window (nothing scrolled)."""
    box = browser.execute_script(
        "const r = document.querySelector(arguments[0]).getBoundingClientRect();"
        "return {left: r.left, top: r.top, right: r.right, bottom: r.bottom, width: r.width,"
        " height: r.height, innerWidth, innerHeight};",
        selector,
    )
    assert box["width"] > 0 and box["height"] > 0, f"{selector} is not shown"
    assert box["left"] >= 0 and box["top"] >= 0, f"{selector} is off screen: {box}"
    assert box["right"] <= box["innerWidth"] and box["bottom"] <= box["innerHeight"], f"{selector}: {box}"
    return box


def smallest(browser: Any, selector: str) -> float:
    """The smallest width or height on screen of the elements `selector` finds (0: none)."""
    return browser.execute_script(
        "const boxes = [...document.querySelectorAll(arguments[0])].map(e => e.getBoundingClientRect());"
        "return boxes.length ? Math.min(...boxes.map(b => Math.min(b.width, b.height))) : 0;",
        selector,
    )


def test_a_phone_plays_upright_and_sideways_by_taps(phone: Any, server: Server, request: Any) -> None:
    folder = SCREENSHOTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    phone.get(server.url)
    wait_until(lambda: phone.find_element(By.ID, "new-game-dialog").get_attribute("open") is not None)
    on_screen(phone, "#start-button")  # the dialog fits: Start is there without scrolling
    phone.save_screenshot(str(folder / "01-dialog.png"))
    start_game(phone, server, ["human", "easy"], seed=5)
    for control in (
        "#new-game-button",
        "#undo-button",
        "#hint-button",
        "#save-link",
        "label.button",
        "#board",
    ):
        on_screen(phone, control)
    assert smallest(phone, ".target") >= 32, "legal cells are big enough to tap"
    phone.save_screenshot(str(folder / "02-upright.png"))
    placed_figure = False
    for _ in range(6):
        game = wait_for_turn(phone)
        if game["phase"] == "place_figure" and game["legal"]["figures"]:
            assert smallest(phone, ".spot .spot-shape") >= 32, "figure spots are big enough to tap"
            if not placed_figure:
                phone.save_screenshot(str(folder / "03-figure-spots.png"))
        take_turn_by_clicks(phone, figure=not placed_figure)
        placed_figure = placed_figure or bool(page_game(phone)["figures"])
    assert placed_figure, "a figure was placed by a tap"

    # Sideways: the board and the panels side by side, everything still on screen.
    phone.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": 844, "height": 390, "deviceScaleFactor": 2, "mobile": True},
    )
    wait_until(lambda: phone.execute_script("return innerWidth") == 844, what="the turn sideways")
    game = wait_for_turn(phone)
    board = on_screen(phone, "#board")
    assert board["width"] >= 400 and board["height"] >= 300, board
    for control in ("#new-game-button", "#save-link", "label.button"):
        on_screen(phone, control)
    if game["phase"] == "place_tile":
        assert smallest(phone, ".target") >= 32
    phone.save_screenshot(str(folder / "04-sideways.png"))
    take_turn_by_clicks(phone, figure=False)
    print(f"\nscreenshots: {folder}")


def test_a_phone_held_sideways_shows_the_spots_of_a_tile_apart_and_big_enough_to_tap(
    sideways_phone: Any, server: Server, request: Any
) -> None:
    """The board zooms onto the tile just placed until its figure spots lie apart: the crossing
    of four roads (eight spots) and a curve with its two fields, among the first turns of seed 5."""
    phone = sideways_phone
    folder = SCREENSHOTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    start_game(phone, server, ["human", "easy"], seed=5)
    crowded = 0
    for turn in range(30):
        game = wait_for_turn(phone)
        new_tile = game["tiles"][-1]
        spots = [f for f in game["legal"]["figures"] if (f["x"], f["y"]) == (new_tile["x"], new_tile["y"])]
        if game["phase"] == "place_figure" and len(spots) >= 3:
            boxes = phone.execute_script(
                "return [...document.querySelectorAll('.spot:not(.remote) .spot-shape')].map((shape) => {"
                " const r = shape.getBoundingClientRect();"
                " return [r.left, r.top, r.right, r.bottom]; })"
            )
            assert len(boxes) == len(spots)
            phone.save_screenshot(str(folder / f"{turn:02d}-spots.png"))
            for i, a in enumerate(boxes):
                assert min(a[2] - a[0], a[3] - a[1]) >= 32, f"a spot is too small to tap: {a}"
                assert a[0] >= 0 and a[1] >= 0 and a[2] <= 844 and a[3] <= 390, f"off screen: {a}"
                for b in boxes[i + 1 :]:
                    apart = a[2] <= b[0] or b[2] <= a[0] or a[3] <= b[1] or b[3] <= a[1]
                    assert apart, f"turn {turn}: spots overlap: {a} {b}"
            crowded += 1
            if crowded == 3:
                break
        take_turn_by_clicks(phone, figure=False)
    assert crowded == 3, "the game reached three tiles of three spots or more"
    print(f"\nscreenshots: {folder}")
