"""The play page for keyboards, screen readers and phones, in Chromium: a whole turn played with
the keyboard alone on the board, an accessibility audit (axe-core, as the selenium-axe-python
package bundles it, and the page's own rules: every control named, every picture with a role and
a name, Tab reaching every control), and a phone's details (its words for a finger, buttons big
enough to tap, the scores in view while placing). Also: the page's modules import no circle.
Screenshots go to build/screenshots/; look at them."""

from __future__ import annotations

import json
import re
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("selenium.webdriver")
from selenium.webdriver.common.action_chains import ActionChains
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

from helpers import HANG_GUARD_S
from test_browser import (
    CHROMEDRIVER,
    CHROMIUM,
    SCREENSHOTS,
    Server,
    browser,
    on_screen,
    page_game,
    phone,
    server,
    shot,
    start_game,
    wait_for_turn,
    wait_until,
)

__all__ = ["browser", "phone", "server", "shot"]  # fixtures of test_browser, used here
STATIC = Path(__file__).resolve().parents[2] / "bindings" / "carcassonne" / "play" / "static"


def in_chromium(test: Callable[..., None]) -> Callable[..., None]:
    """A test that drives Chromium (the import test below needs none)."""
    skip = pytest.mark.skipif(
        not (CHROMIUM and CHROMEDRIVER), reason="needs Debian's chromium and chromium-driver"
    )
    return skip(pytest.mark.concurrency(test))


# What Tab can reach, and what a control is: shown (not in a closed dialog, a hidden panel or
# a closed <details>), not disabled.
CONTROLS = "button, a[href], input, select, textarea, summary, [tabindex]:not([tabindex='-1'])"
SHOWN = (
    "const shown = (e) => e.checkVisibility({visibilityProperty: true}) && !e.disabled"
    " && !e.closest('dialog:not([open])');"
)


def describe(browser: Any, element: Any) -> str:
    """An element as a failure message names it: its tag, id, class and text."""
    return browser.execute_script(
        "const e = arguments[0]; return `${e.tagName}#${e.id}.${e.getAttribute('class')} "
        "'${(e.textContent || '').trim().slice(0, 30)}'`;",
        element,
    )


def tab_order(browser: Any, limit: int = 200) -> list[Any]:
    """The elements Tab visits from the top of the page, once round."""
    browser.execute_script("document.activeElement && document.activeElement.blur(); window.focus();")
    seen: list[Any] = []
    for _ in range(limit):
        ActionChains(browser).send_keys(Keys.TAB).perform()
        active = browser.switch_to.active_element
        if seen and active == seen[0]:
            break
        seen.append(active)
    return seen


def own_audit(browser: Any, scope: str = "body") -> list[str]:
    """The rules that matter most here, checked without axe: each shown control has an
    accessible name, each picture (an svg not inside another, not hidden from readers) has a
    role and a name, and Tab reaches every shown control of `scope`."""
    problems = browser.execute_script(
        SHOWN + "const scope = document.querySelector(arguments[1]);"
        "const name = (e) => (e.getAttribute('aria-label') || '').trim()"
        " || (e.getAttribute('aria-labelledby') || '').split(' ').filter(Boolean)"
        "    .map((id) => (document.getElementById(id) || {}).textContent || '').join(' ').trim()"
        " || (e.labels && [...e.labels].map((l) => l.textContent).join(' ').trim())"
        " || (['INPUT', 'SELECT'].includes(e.tagName) ? '' : e.textContent.trim())"
        " || (e.querySelector(':scope > title') || {}).textContent"
        " || (e.getAttribute('title') || '').trim();"
        "const problems = [];"
        "for (const e of scope.querySelectorAll(arguments[0])) {"
        "  if (shown(e) && !name(e)) problems.push(`no name: ${e.outerHTML.slice(0, 120)}`);"
        "}"
        "for (const svg of scope.querySelectorAll('svg')) {"
        "  if (svg.parentElement.closest('svg') || svg.closest('[aria-hidden=true]')) continue;"
        "  if (!svg.getAttribute('role') || !name(svg))"
        "    problems.push(`svg without role and name: ${svg.outerHTML.slice(0, 120)}`);"
        "}"
        "return problems;",
        CONTROLS,
        scope,
    )
    reached = tab_order(browser)
    controls = browser.execute_script(
        SHOWN
        + "return [...document.querySelector(arguments[1]).querySelectorAll(arguments[0])].filter(shown);",
        CONTROLS,
        scope,
    )
    # The board's candidates are one stop (the arrow keys move between them).
    board = browser.execute_script("return document.querySelectorAll('#board [tabindex]')")
    problems += [
        f"Tab does not reach {describe(browser, c)}" for c in controls if c not in reached and c not in board
    ]
    return problems


def axe_violations(browser: Any) -> list[str]:
    """axe-core's violations on the page as it is, as 'rule: targets'."""
    axe = pytest.importorskip("selenium_axe_python")
    axe.Axe(browser).inject()
    found = browser.execute_async_script(
        "const done = arguments[arguments.length - 1];"
        "axe.run(document).then((r) => done(r.violations.map("
        "  (v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).slice(0, 6)}`)));"
    )
    return list(found)


def focused(browser: Any) -> dict[str, Any]:
    return browser.execute_script(
        "const e = document.activeElement;"
        "return {tag: e.tagName, id: e.id, cls: e.getAttribute('class') || '', cell: e.dataset.cell || null,"
        " action: e.dataset.action || null, label: e.getAttribute('aria-label')};"
    )


def press(browser: Any, *keys: str) -> None:
    ActionChains(browser).send_keys(*keys).perform()


def post_action(server: Server, game_id: str, action: str) -> None:
    """A move made through the API, as another tab would."""
    body = json.dumps({"action": action}).encode()
    request = urllib.request.Request(
        f"{server.url}/api/games/{game_id}/actions", body, {"Content-Type": "application/json"}
    )
    urllib.request.urlopen(request, timeout=HANG_GUARD_S).close()


@in_chromium
def test_the_page_passes_axe_and_its_own_audit_in_the_dialog_and_at_each_decision(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    browser.get(server.url)
    wait_until(lambda: browser.find_element(By.ID, "new-game-dialog").get_attribute("open") is not None)
    assert axe_violations(browser) == []  # the seats' selects and name fields have names
    assert own_audit(browser, "#new-game-dialog") == []
    start_game(browser, server, ["human", "easy"], seed=3)
    board = browser.find_element(By.ID, "board")
    assert board.get_attribute("role") and board.get_attribute("aria-label")
    assert axe_violations(browser) == []
    reached = tab_order(browser)
    assert browser.find_element(By.ID, "load-input") in reached
    assert own_audit(browser) == []
    shot("01-placing")
    # A figure to place: the spots are named buttons too.
    game = page_game(browser)
    post_action(server, game["id"], next(iter(game["legal"]["placements"][0]["rotations"].values())))
    wait_until(lambda: page_game(browser)["phase"] == "place_figure", what="the figure decision")
    assert browser.find_elements(By.CSS_SELECTOR, "#board .spot[role=button][aria-label]")
    assert axe_violations(browser) == []
    assert own_audit(browser) == []


@in_chromium
def test_a_whole_turn_is_played_on_the_board_with_the_keyboard_alone(
    browser: Any, server: Server, shot: Callable[[str], None]
) -> None:
    start_game(browser, server, ["human", "easy"], seed=3)
    game = page_game(browser)
    # Tab from the top of the page reaches the board: one stop on it, a legal cell named in words.
    browser.execute_script("document.activeElement.blur()")
    for _ in range(40):
        press(browser, Keys.TAB)
        if focused(browser)["cell"]:
            break
    where = focused(browser)
    assert where["cell"] and where["label"].startswith("Place the tile "), where
    # The arrow keys go from cell to cell, choosing the one they reach.
    cells = {f"{c['x']},{c['y']}" for c in game["legal"]["placements"]}
    visited = {where["cell"]}
    for key in (Keys.ARROW_RIGHT, Keys.ARROW_DOWN, Keys.ARROW_LEFT, Keys.ARROW_UP) * 2:
        press(browser, key)
        visited.add(focused(browser)["cell"])
    assert visited <= cells and len(visited) > 1, visited
    chosen = browser.execute_script("return page.selected && `${page.selected.x},${page.selected.y}`")
    assert chosen == focused(browser)["cell"]
    # R turns the tile on the chosen cell (through its legal turns); Enter places it.
    turns = browser.execute_script("return Object.keys(page.selected.rotations).map(Number)")
    before = browser.execute_script("return page.selected.rotation")
    press(browser, "r")
    after = browser.execute_script("return page.selected.rotation")
    assert after in turns and (after != before or len(turns) == 1)
    placement = browser.execute_script("return page.selected.rotations[page.selected.rotation]")
    shot("01-cell-chosen")
    press(browser, Keys.ENTER)
    state = wait_until(lambda: (g := page_game(browser))["moves"] > game["moves"] and g, what="the placement")
    assert state["log"][-1]["action"] == placement and state["phase"] == "place_figure"
    # The keyboard is on a figure spot now (not lost on the page): the arrows go from spot to
    # spot, each outlining its feature; Enter puts the figure there.
    spots = {f["action"] for f in state["legal"]["figures"]}
    assert spots and focused(browser)["action"] in spots, focused(browser)
    press(browser, Keys.ARROW_LEFT)
    figure = focused(browser)
    assert figure["action"] in spots and figure["label"]
    assert browser.find_elements(By.CSS_SELECTOR, "#layer-hover .feature-outline path")
    shot("02-spot")
    press(browser, Keys.ENTER)
    wait_until(
        lambda: figure["action"] in [e["action"] for e in page_game(browser)["log"]], what="the figure"
    )
    # After the bot's reply, the keyboard is on a legal cell of the next turn.
    wait_until(lambda: page_game(browser)["moves"] > state["moves"] + 1, what="the bot's move")
    wait_for_turn(browser)
    wait_until(lambda: focused(browser)["cell"], what="the focus on the board again")
    shot("03-next-turn")


@in_chromium
def test_a_phone_speaks_of_taps_has_buttons_big_enough_and_shows_the_scores_while_placing(
    phone: Any, server: Server, request: pytest.FixtureRequest
) -> None:
    folder = SCREENSHOTS / request.node.name
    folder.mkdir(parents=True, exist_ok=True)
    start_game(phone, server, ["human", "easy"], seed=5)
    game = page_game(phone)
    assert game["phase"] == "place_tile"
    prompt = phone.find_element(By.ID, "prompt").text
    assert "tap" in prompt and "wheel" not in prompt and "R," not in prompt and "click" not in prompt, prompt
    controls = "nav button, nav .button, nav select, #zoom-buttons button"
    for orientation, size in (("upright", (390, 844)), ("sideways", (844, 390))):
        phone.execute_cdp_cmd(
            "Emulation.setDeviceMetricsOverride",
            {"width": size[0], "height": size[1], "deviceScaleFactor": 2, "mobile": True},
        )
        wait_until(lambda: phone.execute_script("return innerWidth") == size[0], what=orientation)  # noqa: B023
        small = phone.execute_script(
            SHOWN + "return [...document.querySelectorAll(arguments[0])].filter(shown)"
            ".map((e) => [e.id || e.textContent.trim(), e.getBoundingClientRect()])"
            ".filter(([, r]) => r.width < 44 || r.height < 44)"
            ".map(([name, r]) => `${name} ${r.width}x${r.height}`);",
            controls,
        )
        assert small == [], f"{orientation}: {small}"
        # The scores stay in view while the tile is placed (the table is further down).
        on_screen(phone, "#score-strip")
        strip = phone.find_element(By.ID, "score-strip").text.split()
        assert strip == [str(score) for score in game["scores"]], strip
        phone.save_screenshot(str(folder / f"{orientation}.png"))
    print(f"\nscreenshots: {folder}")


def import_circles(folder: Path) -> list[list[str]]:
    """The import circles among the page's modules: each as the modules along it."""
    imports = {
        path.name: re.findall(r'^import .* from "\./([\w.]+)";$', path.read_text(), re.MULTILINE)
        for path in folder.glob("*.js")
    }
    circles = []

    def walk(module: str, path: list[str]) -> None:
        for imported in imports.get(module, []):
            if imported == path[0]:
                circles.append(path)
            elif imported not in path and imported > path[0]:  # each circle once, from its smallest
                walk(imported, path + [imported])

    for module in sorted(imports):
        walk(module, [module])
    return circles


def test_the_page_modules_import_no_circle() -> None:
    assert len(list((STATIC / "js").glob("*.js"))) >= 10
    assert import_circles(STATIC / "js") == []
