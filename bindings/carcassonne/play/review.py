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

from .. import _core
from ..game import Game
from ..search import mcts_config
from .actions import grouped_actions, label, log_text
from .slots import BOT_SLOTS
from .store import Store, StoreError

REVIEW_ITERATIONS = 1000
TRUSTED_VISITS = 30
SAVE_EVERY = 10
MARKED = 5  # the costliest moves of each player marked
MARKED_COST = 0.05  # a move that cost less win chance than this is never marked
SLIP_COST = 0.01  # a move that cost at least this much (and less than MARKED_COST) is a slip
NAMED_SLIPS = 3  # the biggest slips named in a player's summary


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


PARTICIPLES = {"drew ": "drawn ", "took ": "taken ", "chose ": "chosen "}


def _participle(words: str) -> str:
    """ "placed a tile" -> "placed a tile"; "took the wagon back" -> "taken the wagon back"."""
    for simple, participle in PARTICIPLES.items():
        if words.startswith(simple):
            return participle + words[len(simple) :]
    return words


def _whole_move(game: Game, action: str, follow: str | None) -> tuple[Game, str]:
    """The game after `action` and, where the same player decides next (the figure after a
    tile), after `follow` too (None, or not legal there: the greedy bot's choice); and the move
    in words."""
    after = game.clone()
    player = game.current_player
    words = [log_text(action, game.phase, game.tiles, game.drawn_tile, game.count)]
    after.apply(action)
    if not after.is_chance and not after.is_terminal and after.current_player == player:
        if follow is None or not after.is_legal(follow):
            follow = after.action(_core.choose_action(after.core_state(), "greedy", 0)).text
        words.append(log_text(follow, after.phase, after.tiles, after.drawn_tile, after.count))
        after.apply(follow)
    return after, " and ".join(words)


CAUSE_WORDS = {"city": "a city", "road": "a road", "cloister": "a monastery", "shrine": "a shrine",
               "field": "farmers", "barn": "a barn", "field_barn": "farmers with a barn",
               "city_mayor": "a mayor's city", "king": "the King", "robber": "the Robber",
               "arrow": "an arrow"}  # fmt: skip


def _gains(before: Game, after: Game, player: int) -> dict[str, Any]:
    """What a move gave `player`: points now (by cause), points if the game ended then, and
    their lead over the best other player if it ended then."""
    was, now = before.breakdown()[player], after.breakdown()[player]
    causes = {c: now[c] - was[c] for c in now if now[c] != was[c]}
    ended = after.scores_if_ended()
    others = [v for q, v in enumerate(ended) if q != player]
    return {
        "now": after.scores[player] - before.scores[player],
        "causes": causes,
        "end": ended[player] - before.scores_if_ended()[player],
        "lead": ended[player] - max(others) if others else 0,
    }


def _points_words(gains: dict[str, Any]) -> str:
    causes = ", ".join(f"{v:+d} for {CAUSE_WORDS.get(c, c)}" for c, v in gains["causes"].items())
    now = f"{gains['now']:+d} points now" + (f" ({causes})" if causes else "")
    return f"{now}, {gains['end']:+d} counted as if the game ended then"


def explain(record: dict[str, Any], point: dict[str, Any]) -> dict[str, str]:
    """Why the computer's move was better than the one played at `point`, in a player's words:
    {"played", "better": each whole move (the tile and its figure) with the points it gave now
    and counted as if the game ended then, "verdict": the difference}. The computer's figure
    after its tile is the greedy bot's choice (the review searched the tile only)."""
    n = point["index"]
    prefix = {"actions": record["actions"][:n], "sampled": [i for i in record["sampled"] if i < n]}
    before = Game.from_json(json.dumps(record | prefix))
    player = before.current_player
    follow = record["actions"][n + 1] if n + 1 < len(record["actions"]) else None
    played, played_words = _whole_move(before, point["action"], follow)
    better, better_words = _whole_move(before, point["best"]["action"], None)
    mine, best = _gains(before, played, player), _gains(before, better, player)
    more, ahead = best["end"] - mine["end"], best["lead"] - mine["lead"]
    if more > 0:
        verdict = f"Counted as if the game ended then, it was worth {more} more points to this player"
        verdict += f", {ahead} more over the best other player." if ahead != more else "."
    elif ahead > 0:
        verdict = (
            f"It gains no more points, but leaves this player {ahead} points further ahead of the best"
            " other player (it keeps points from them)."
        )
    else:
        verdict = (
            "Counted as if the game ended then, the computer's move gains no more points: it prefers"
            " it for what comes later (features easier to finish, fewer chances for the others)."
        )
    return {
        "played": f"{played_words}: {_points_words(mine)}",
        "better": f"{_participle(better_words)}: {_points_words(best)}",
        "verdict": verdict,
    }


def smoothed(points: list[dict[str, Any]], players: int) -> list[list[float]]:
    """Each point's win chances averaged over the moves of about a round around it (`players`
    decisions either side; fewer near either end, so the first and last points stay as they
    are): one search's estimate is rough, and with more players rougher still."""
    out = []
    for k in range(len(points)):
        reach = min(players, k, len(points) - 1 - k)
        window = points[k - reach : k + reach + 1]
        out.append([sum(p["win"][q] for p in window) / len(window) for q in range(players)])
    return out


def _player_summary(points: list[dict[str, Any]], player: int) -> dict[str, Any]:
    """One player's costliest moves (`marked`), and the small slips below the mark: how many,
    their cost together and the biggest few (indices into `points`)."""
    mine = [k for k, point in enumerate(points) if point["player"] == player]
    costly = sorted(mine, key=lambda k: -points[k]["cost"])
    marked = sorted(k for k in costly[:MARKED] if points[k]["cost"] >= MARKED_COST)
    slips = [k for k in costly if k not in marked and points[k]["cost"] >= SLIP_COST]
    return {
        "player": player,
        "marked": marked,
        "cost": sum(points[k]["cost"] for k in mine),
        "slips": len(slips),
        "slips_cost": sum(points[k]["cost"] for k in slips),
        "biggest_slips": sorted(slips[:NAMED_SLIPS]),
    }


def evaluator_of(game: Game) -> str:
    """What values the review's searches' leaves at this decision, as the search names it (the
    network file and its hash where one fits): a search of one iteration says."""
    return _core.Mcts(mcts_config(iterations=1)).search(game.core_state()).evaluator


def summarise(
    positions: list[dict[str, Any]], final: list[float], people: list[int], evaluator: str | None = None
) -> dict[str, Any]:
    """The review the page shows, from the searched positions and the game's result; `people`:
    the seats of people, whose costly moves come first (a game of bots: every seat's);
    `evaluator`: what valued the searches' leaves (None for a review saved before it was kept)."""
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
    players = len(final)
    for point, smooth in zip(points, smoothed(points, players), strict=True):
        point["smooth"] = smooth
    # How sure a single estimate is: the typical distance of the raw chances from the smooth line.
    spread = [(w - m) ** 2 for p in points for w, m in zip(p["win"], p["smooth"], strict=True)]
    summaries = [_player_summary(points, p) for p in range(players)]
    shown = [p for p in range(players) if p in people] or list(range(players))
    return {
        "status": "done",
        "iterations": REVIEW_ITERATIONS,
        "evaluator": evaluator,
        "final": final,
        "points": points,
        "marked": sorted(k for p in shown for k in summaries[p]["marked"]),
        "players": summaries,
        "smoothing": players,  # decisions either side averaged into `smooth`
        "jitter": (sum(spread) / len(spread)) ** 0.5 if spread else 0.0,
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
            review = summarise(saved["positions"], final, session.people(), saved.get("evaluator"))
            for summary in review["players"]:  # each player's marked moves, explained
                for k in summary["marked"]:
                    review["points"][k]["why"] = explain(record, review["points"][k])
            return review
        with self._lock:
            progress = self._running.get(session.id)
            answer = {"status": "running", **(progress or {})}
            if progress is None:
                done = len(saved["positions"]) if saved else 0
                progress = self._running[session.id] = {"done": done, "total": decisions}
                answer |= progress  # as it starts: the thread may count on before this returns
                positions = saved["positions"] if saved else []
                thread = threading.Thread(
                    target=self._run,
                    args=(session, record, positions),
                    name=f"review-{session.id}",
                    daemon=False,  # see the module's note on stopping
                )
                thread.start()
            return answer

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
        evaluator = None
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
                    evaluator = evaluator or evaluator_of(game)
                    positions.append(_search(game, i, action))
                progress["done"] = len(positions)
                if len(positions) % SAVE_EVERY == 0:
                    self._save(session, record, positions, evaluator)
            game.apply(action)
        self._save(session, record, positions, evaluator)

    def _save(
        self, session: Any, record: dict[str, Any], positions: list[dict[str, Any]], evaluator: str | None
    ) -> None:
        review = {"game": _digest(record), "positions": positions, "evaluator": evaluator}
        with session.lock:  # a deletion comes first or waits: no review outlives its game
            if not session.deleted:
                self.store.save_review(session.id, review)
