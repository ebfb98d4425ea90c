"""Makes the documentation's pictures of the play page: a server on a free port, a 2-player game
of every expansion played by greedy bots to mid-game (docs/images/board.png), or to the end with
the final scoring's first item whose words hold a text (docs/images/final-scoring.png), loaded
into headless Chromium (Debian's chromium and chromium-driver, through Selenium).

    python tools/screenshot.py [--turns 60] [--out docs/images/board.png]
    python tools/screenshot.py --turns 999 --final-item "City of Carcassonne" \
        --out docs/images/final-scoring.png
    python tools/screenshot.py --review --players 4 --out docs/images/review-4p.png

With --review, a base game of greedy bots played to the end is loaded with the first seat as
yours, and the post-game review is shown once computed, the costliest of your moves selected.
"""

from __future__ import annotations

import argparse
import json
import shutil
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service
from selenium.webdriver.common.by import By

import carcassonne

EXPANSIONS = ["abbey-mayor", "anniv20", "king-robber", "shrines"]


def mid_game_record(turns: int, seed: int, players: int = 2, base: bool = False) -> dict:
    """A game of every expansion (City start; or a base game) after `turns` tiles, played by the
    greedy bot."""
    if base:
        game = carcassonne.Game(players=players, seed=seed)
    else:
        game = carcassonne.Game(players=players, expansions=EXPANSIONS, variants={"start": "city"}, seed=seed)
    placed = 0
    while not game.is_terminal and placed < turns:
        if game.is_chance:
            game.apply_random_chance()
            placed += 1
        else:
            game.apply(carcassonne._core.choose_action(game.core_state(), "greedy", seed))
    if game.is_chance:
        game.apply_random_chance()  # the picture shows a tile to place
    return game.to_record()


def show_final_item(browser: webdriver.Chrome, text: str) -> None:
    """Steps through the final scoring (from the end dialog) to the first item whose words hold
    `text`."""
    browser.find_element(By.ID, "final-steps-button").click()
    time.sleep(1)
    for _ in range(100):
        if text in browser.find_element(By.ID, "final-panel").text:
            time.sleep(1)
            return
        forward = browser.find_element(By.ID, "final-forward")
        if not forward.is_enabled():
            break
        forward.click()
        time.sleep(0.3)
    raise SystemExit(f"no item of the final scoring says {text!r}; try another --seed")


def show_review(browser: webdriver.Chrome) -> None:
    """Opens the review from the end dialog, waits for it, and selects your costliest move."""
    for _ in range(120):  # the dialog opens once the last moves are played back
        if browser.find_element(By.ID, "end-dialog").get_attribute("open") is not None:
            break
        time.sleep(0.5)
    browser.find_element(By.ID, "review-button").click()
    for _ in range(1200):  # the review searches every position: minutes on a busy machine
        if browser.find_elements(By.CSS_SELECTOR, "#review-marked li"):
            break
        time.sleep(0.5)
    else:
        raise SystemExit("the review did not finish in 10 minutes")
    browser.find_element(By.CSS_SELECTOR, "#review-marked li").click()
    time.sleep(1)


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    parser.add_argument("--turns", type=int, default=60)
    parser.add_argument("--seed", type=int, default=4)
    parser.add_argument("--out", default="docs/images/board.png")
    parser.add_argument("--players", type=int, default=2)
    parser.add_argument("--review", action="store_true", help="a finished base game's review")
    parser.add_argument("--final-item", metavar="TEXT", help="show the final scoring's item that says TEXT")
    args = parser.parse_args()

    with tempfile.TemporaryDirectory() as data, socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
        s.close()
        command = [sys.executable, "-m", "carcassonne", "serve", "--port", str(port), "--data", data]
        server = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        try:
            url = f"http://127.0.0.1:{port}"
            for _ in range(100):
                try:
                    urllib.request.urlopen(f"{url}/api/options", timeout=1)
                    break
                except OSError:
                    time.sleep(0.2)
            turns = 999 if args.review else args.turns
            body = {
                "record": mid_game_record(turns, args.seed, args.players, base=args.review),
                "seats": [{"kind": "human"}] + [{"kind": "bot"}] * (args.players - 1),
            }
            request = urllib.request.Request(
                f"{url}/api/games/load", json.dumps(body).encode(), {"Content-Type": "application/json"}
            )
            game = json.load(urllib.request.urlopen(request))

            options = webdriver.ChromeOptions()
            for argument in ("--headless=new", "--no-sandbox", "--disable-gpu", "--window-size=1400,860"):
                options.add_argument(argument)
            options.binary_location = shutil.which("chromium") or "chromium"
            browser = webdriver.Chrome(service=Service(shutil.which("chromedriver")), options=options)
            try:
                browser.get(f"{url}/#game={game['id']}")
                time.sleep(3)  # the board's drawings load and the page settles
                if args.final_item:
                    show_final_item(browser, args.final_item)
                if args.review:
                    show_review(browser)
                Path(args.out).parent.mkdir(parents=True, exist_ok=True)
                browser.save_screenshot(args.out)
            finally:
                browser.quit()
        finally:
            server.kill()
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
