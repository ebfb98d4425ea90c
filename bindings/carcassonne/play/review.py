"""The post-game review: every player's win chance after each move of a finished game, the moves
that cost their player the most, and what the search would have played there.

Each decision of the record is searched once (MCTS, REVIEW_ITERATIONS iterations, seeded by its
index, so a review is reproducible) in a background thread that takes a bot's thinking slot
after any bot a person waits for. The win chance after a move is the search's estimate for the
move played, if it visited it at least TRUSTED_VISITS times, else the estimate of the position
reached (the next decision's search, or the final result). A move's cost is the win chance its
player's best move had minus that of the move played. The searched positions are saved to the
store every SAVE_EVERY positions: a server restarted mid-review goes on where it stopped, and a
finished review is computed only once. The server's shutdown stops the reviews after the position
each is searching (they are not daemon threads: a search cut off by the interpreter's exit aborts
the process).
"""

from __future__ import annotations

import hashlib
import json
import threading
from typing import Any

from ..game import Game
from .actions import grouped_actions, label
from .slots import BOT_SLOTS
from .store import Store, StoreError

REVIEW_ITERATIONS = 1000
TRUSTED_VISITS = 30
SAVE_EVERY = 10
MARKED = 5  # the costliest moves marked
MARKED_COST = 0.05  # a move that cost less win chance than this is never marked


class NotFinishedError(Exception):
    """A review was asked for a game still being played."""


def _digest(record: dict[str, Any]) -> str:
    """Tells one game's moves from another's: a review is only ever shown for its own game."""
    return hashlib.sha256(json.dumps(record["actions"]).encode()).hexdigest()


def _root_value(results: list[dict[str, Any]], players: int) -> list[float]:
    """The search's estimate of the position: its children's win chances weighted by visits."""
    visits = sum(r["visits"] for r in results)
    if not visits:
        return [1 / players] * players
    return [sum(r["win"][p] * r["visits"] for r in results) / visits for p in range(players)]


def where(game: Game, action: str) -> dict[str, Any] | None:
    """Where the page draws `action` of this decision on the board: a tile turned on a cell
    ({"tile", "x", "y", "rotation"}), a figure's spot ({"x", "y", "feature"}), a barn's corner
    ({"x", "y", "corner"}) or a chosen cell ({"x", "y"}); None for a choice that has no place
    (pass, the Count's quarter...)."""
    groups = grouped_actions(game)
    for cell in groups["placements"]:
        for rotation, text in cell["rotations"].items():
            if text == action:
                return {"tile": game.drawn_tile, "x": cell["x"], "y": cell["y"], "rotation": rotation}
    for figure in groups["figures"]:
        if figure["action"] == action:
            return {"x": figure["x"], "y": figure["y"], "feature": figure["feature"]}
    for barn in groups["barns"]:
        if barn["action"] == action:
            return {"x": barn["x"], "y": barn["y"], "corner": barn["corner"]}
    for cell in groups["cells"]:
        if cell["action"] == action:
            return {"x": cell["x"], "y": cell["y"]}
    return None


def _search(game: Game, index: int, action: str) -> dict[str, Any]:
    """One decision of the record searched: the position's value, the best move, the move played."""
    phase, count = game.phase, game.count
    results = game.analyse(iterations=REVIEW_ITERATIONS, seed=index)
    best = results[0]
    played = next((r for r in results if r["action"] == action), {"win": None, "visits": 0})
    return {
        "index": index,
        "player": game.current_player,
        "turn": game.turn_number + 1,
        "action": action,
        "label": label(action, phase, count),
        "choices": len(results),
        "value": _root_value(results, game.num_players),
        "best": {
            "action": best["action"],
            "label": label(best["action"], phase, count),
            "win": best["win"],
            "where": where(game, best["action"]),
        },
        "played": {"win": played["win"], "visits": played["visits"]},
    }


def summarise(positions: list[dict[str, Any]], final: list[float]) -> dict[str, Any]:
    """The review the page shows, from the searched positions and the game's result."""
    points = []
    for k, position in enumerate(positions):
        played = position["played"]
        after = final if k + 1 == len(positions) else positions[k + 1]["value"]
        if played["visits"] >= TRUSTED_VISITS:
            after = played["win"]
        player = position["player"]
        cost = 0.0
        if position["choices"] > 1 and position["best"]["action"] != position["action"]:
            cost = max(0.0, position["best"]["win"][player] - after[player])
        points.append(
            {k: position[k] for k in ("index", "player", "turn", "action", "label", "best")}
            | {"win": after, "cost": cost}
        )
    costly = sorted(range(len(points)), key=lambda i: -points[i]["cost"])
    marked = sorted(i for i in costly[:MARKED] if points[i]["cost"] >= MARKED_COST)
    return {
        "status": "done",
        "iterations": REVIEW_ITERATIONS,
        "final": final,
        "points": points,
        "marked": marked,
    }


class Reviews:
    """The reviews of the server's games: computed once each, in the background, kept in the store."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._lock = threading.Lock()
        self._running: dict[str, dict[str, Any]] = {}  # game id: {"done", "total"}
        self._stopping = threading.Event()

    def stop(self) -> None:
        """Stops every review after its current position, its progress saved (a server's end)."""
        self._stopping.set()

    def get(self, session: Any) -> dict[str, Any]:
        """The finished game's review, or how far its computation is (and starts it).
        Raises NotFinishedError for a game still being played."""
        with session.lock:
            if not session.game.is_terminal:
                raise NotFinishedError("a game is reviewed once it is over")
            record = session.game.to_record()
            final = session.game.returns()
        saved = self.store.load_review(session.id)
        if saved is not None and saved.get("game") != _digest(record):
            saved = None  # made before an undo: the game is another one now
        decisions = sum(1 for p in session.actors if p >= 0)
        if saved is not None and len(saved["positions"]) == decisions:
            return summarise(saved["positions"], final)
        with self._lock:
            progress = self._running.get(session.id)
            if progress is None:
                done = len(saved["positions"]) if saved else 0
                progress = self._running[session.id] = {"done": done, "total": decisions}
                positions = saved["positions"] if saved else []
                thread = threading.Thread(
                    target=self._run,
                    args=(session, record, positions),
                    name=f"review-{session.id}",
                    daemon=False,  # see the module's note on stopping
                )
                thread.start()
            return {"status": "running", **progress}

    def _run(self, session: Any, record: dict[str, Any], positions: list[dict[str, Any]]) -> None:
        try:
            self._review(session, record, positions)
        except StoreError:
            pass  # not kept: asked again, the review goes on from its last save
        finally:
            with self._lock:
                self._running.pop(session.id, None)

    def _review(self, session: Any, record: dict[str, Any], positions: list[dict[str, Any]]) -> None:
        game = Game(**record["config"])
        sampled = set(record["sampled"])
        searched = {p["index"] for p in positions}
        progress = self._running[session.id]
        for i, action in enumerate(record["actions"]):
            if game.is_chance:
                if i in sampled:
                    game.apply_random_chance()
                else:
                    game.apply(action)
                continue
            if i not in searched:
                if self._stopping.is_set():
                    break  # saved below: a restarted server goes on from here
                with BOT_SLOTS.slot(1):  # after the bots people wait for
                    if session.deleted:
                        return
                    positions.append(_search(game, i, action))
                progress["done"] = len(positions)
                if len(positions) % SAVE_EVERY == 0:
                    self._save(session, record, positions)
            game.apply(action)
        self._save(session, record, positions)

    def _save(self, session: Any, record: dict[str, Any], positions: list[dict[str, Any]]) -> None:
        with session.lock:  # a deletion comes first or waits: no review outlives its game
            if not session.deleted:
                self.store.save_review(session.id, {"game": _digest(record), "positions": positions})
