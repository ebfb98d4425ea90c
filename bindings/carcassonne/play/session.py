"""One game being played: the engine's Game, who sits at each seat, the move log, and the bots.

Draws are made at once with the game's own PRNG. When a bot is to decide, a thread asks the C++
agent for its move with the GIL released (other games and requests go on meanwhile), then
applies it, unless the game changed in the meantime (an undo or a deletion), in which case the
answer is dropped. Every change is written to the store before the lock is released; a change the
store cannot save is undone, so a move is only ever accepted once it is on disk.

Undo among people: in a game of more than one person, an undo never takes back a move once
another player's tile has been drawn after it; with friends' seats (each person with their own
key) it is a request that waits for every other person's consent and lapses at the next move.
"""

from __future__ import annotations

import hashlib
import json
import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .. import _core
from ..game import Game, IllegalActionError, RecordError
from ..search import mcts_config
from .actions import grouped_actions, label, log_text, prompt
from .features import figure_changes, final_scoring, move_events
from .friends import public_seats
from .slots import BOT_SLOTS
from .store import Store, StoreError

QUARTERS = ("castle", "market", "blacksmith", "cathedral")
FIGURE_KINDS = ("meeple", "mayor", "wagon", "barn")
MEDIUM_ITERATIONS = 3000
DEFAULT_HARD_TIME = 2.0
THINKING_STEPS = 20  # a bot searches its budget in this many steps, and may stop after any
# A decision is settled once the runner-up could not catch the most visited action even with
# this share of the iterations left (1: with all of them, which never changes the move). With a
# quarter, every one of the decisions measured (docs/play.md) kept the whole budget's move.
SETTLED_SHARE = 0.25
# A state answer may hold only what changed since a state the page has (see GameSession.changes).
ALWAYS_SENT = ("id", "epoch", "version", "present")  # `present` changes without a new version
# Lists that only grow between undos: an answer sends their new items. Each is told apart by
# what of its items it digests: a log entry by its action alone (the session wrote the rest from
# the actions up to it), which is most of the digesting saved.
GROWING: dict[str, Callable[[Any], Any]] = {"tiles": lambda tile: tile, "log": lambda entry: entry["action"]}
DESCRIBED_VERSIONS = 16  # the last versions described, that a page may name to get the changes


def _digest(value: Any) -> str:
    return hashlib.sha256(json.dumps(value, separators=(",", ":")).encode()).hexdigest()[:16]


def _list_digest(key: str, items: list[Any]) -> str:
    return _digest([GROWING[key](item) for item in items])


def fingerprints(state: dict[str, Any]) -> dict[str, Any]:
    """What tells two states apart key by key: each value's digest, and a growing list's length
    with it (ALWAYS_SENT keys have none: they are always sent)."""
    return {
        key: (len(value), _list_digest(key, value)) if key in GROWING else _digest(value)
        for key, value in state.items()
        if key not in ALWAYS_SENT
    }


def delta(state: dict[str, Any], now: dict[str, Any], known: dict[str, Any]) -> dict[str, Any]:
    """`state` (whose fingerprints are `now`) as its changes from the state whose fingerprints are
    `known`: the keys whose values differ, any key without a fingerprint, and a growing list that
    only grew as its new items, with the index they start at in `appended`."""
    changes: dict[str, Any] = {}
    appended: dict[str, int] = {}
    for key, value in state.items():
        if key in now and key in known and now[key] == known[key]:
            continue
        if key in GROWING and key in known:
            length, digest = known[key]
            if length < len(value) and _list_digest(key, value[:length]) == digest:
                changes[key], appended[key] = value[length:], length
                continue
        changes[key] = value
    return changes | {"appended": appended}


def merge_state(base: dict[str, Any], answer: dict[str, Any]) -> dict[str, Any]:
    """The whole state from a state answer and `base`, the state of the version it counts its
    changes from (`since`; None: the answer is whole). What the page does, for tools and tests."""
    if answer["since"] is None:
        return answer
    state = base | answer
    for key, start in answer["appended"].items():
        state[key] = base[key][:start] + answer[key]
    return state


class NotYourTurnError(Exception):
    """A human move while the game waits for a bot, a draw, or nobody (the end)."""


class NotYourSeatError(Exception):
    """A move or undo for a seat the request has no token for (a remote game)."""


class UndoRequestError(Exception):
    """An undo request that cannot be made or answered now (one waits already, none waits)."""


def new_search(seat: dict[str, Any]) -> _core.Mcts:
    """The search of a medium (a fixed number of iterations) or hard (a time a move) bot, its
    budget cut into THINKING_STEPS steps (see think). It keeps its tree from move to move, as
    the arena's MCTS agent does."""
    if seat["level"] == "hard":
        seconds = float(seat.get("time", DEFAULT_HARD_TIME))
        return _core.Mcts(mcts_config(time=seconds / THINKING_STEPS))
    return _core.Mcts(mcts_config(iterations=MEDIUM_ITERATIONS // THINKING_STEPS))


@dataclass
class Thought:
    """A bot's answer: the action code, and the iterations and steps of search it took."""

    best: int
    iterations: int
    steps: int


def think(search: _core.Mcts, state: _core.State, seed: int, stopped: Callable[[], bool]) -> Thought:
    """The search's move at `state` (a decision node), searched one step of its budget at a time
    on one tree. It stops early once the decision is settled: when the most visited action leads
    the runner-up by more visits than SETTLED_SHARE of the iterations the steps left would run
    (at this search's pace so far). `stopped()` true (the game changed) ends the search after
    the current step."""
    iterations = 0
    for step in range(1, THINKING_STEPS + 1):
        result = search.search(state, seed * THINKING_STEPS + step)
        iterations += result.iterations
        visits = [a.visits for a in result.actions] + [0]
        lead = visits[0] - visits[1]
        left = iterations / step * (THINKING_STEPS - step)
        if lead > SETTLED_SHARE * left or stopped():
            break
    return Thought(result.best, iterations, step)


class GameSession:
    def __init__(
        self,
        game_id: str,
        seats: list[dict[str, Any]],
        record: dict[str, Any],
        store: Store,
        host: str | None = None,
    ) -> None:
        """Replays `record` (a game record as a dict); raises RecordError if it does not replay.
        `seats` may hold tokens, and `host` is the creator's token (see friends.py)."""
        # Constant after construction.
        self.id = game_id
        self.seats = seats
        self.store = store
        self.host = host
        # Everything below is read and written with `lock` held: request threads and the bot
        # thread share it. The bot thread releases it while it thinks on a copy of the state,
        # and rechecks `version` before applying its answer.
        self.lock = threading.RLock()
        self.version = 0  # bumped by every change (a bot's pending answer is then dropped)
        # When this session began (ms): with `version`, it orders the game's states across
        # server restarts, so a page can drop an answer older than the state it shows.
        self.epoch = int(time.time() * 1000)
        self.deleted = False
        self.bot_thread: threading.Thread | None = None
        self.bot_error: str | None = None
        # Counts every action applied (a replay's too): a bot's answer is for the position it saw
        # only while this stays put (a rename or an undo request does not change the position).
        self.applied = 0
        # A friends' game: an undo waiting for the other people's consent (see ask_undo).
        self.undo_request: dict[str, Any] | None = None
        # The open event streams by seat: who has the game open (a watcher's stream is no seat's).
        self.streams: dict[int, int] = {}
        self.rematch: str | None = None  # the id of the game started as this one's rematch
        # The fingerprints of the states described lately, by version (see changes).
        self.described: OrderedDict[int, dict[str, Any]] = OrderedDict()
        # Called with a summary after every change (the event streams of the pages showing it).
        self.listeners: list[Callable[[dict[str, Any]], None]] = []
        # The MCTS bots' searches by seat, used by the bot thread only (delete() may stop one).
        self.searches = {
            p: new_search(seat)
            for p, seat in enumerate(seats)
            if seat.get("level", "easy") != "easy" and seat["kind"] == "bot"
        }
        self.game: Game
        self.log: list[dict[str, Any]] = []
        self.actors: list[int] = []  # the player who chose each action of the record, -1 a draw
        self._replay(record)

    # ---- Record and replay ------------------------------------------------------------------

    def _replay(self, record: dict[str, Any]) -> None:
        """Plays the record's actions one by one, building the log as the game goes."""
        if "position" in record:
            raise RecordError("records set up from a position cannot be played here")
        self.game = Game(**record["config"])
        self.log, self.actors = [], []
        self.final: list[dict[str, Any]] = []  # the final scoring item by item, once the game ends
        sampled = set(record.get("sampled", []))
        for i, text in enumerate(record["actions"]):
            self._apply(text, sampled=i in sampled)

    def _apply(self, text: str | None, sampled: bool = False) -> None:
        """Applies one action and logs it with the points it scored. `text` None: a new draw
        with the game's PRNG; `sampled`: a recorded draw made with the PRNG, checked."""
        game = self.game
        self.applied += 1
        self.undo_request = None  # any move lapses an undo request
        player, phase, turn = game.current_player, game.phase, game.turn_number
        figures_before = game.figures
        tiles, drawn, count = game.tiles, game.drawn_tile, game.count
        if text is None or sampled:
            action = game.apply_random_chance(explain=True)
            if text is not None and action.text != text:
                raise RecordError(f"the game's PRNG draws {action.text!r} where the record has {text!r}")
        else:
            action = game.apply(text, explain=True)
        text = action.text  # the engine's text, whatever form it was parsed from
        scorings = action.scorings or []
        self.actors.append(player)
        # The move's own points; the final scoring's are its items (the move that ended the game
        # made it).
        points: dict[str, dict[int, int]] = {}
        for record in scorings:
            for award in record["awards"] if not record["final"] else []:
                if award["points"]:
                    gains = points.setdefault(award["cause"], {})
                    gains[award["player"]] = gains.get(award["player"], 0) + award["points"]
        returned, placed = figure_changes(figures_before, game.figures)
        if game.is_terminal:
            self.final = final_scoring(scorings, game.tiles, game.num_players)
        self.log.append(
            {
                "index": len(self.actors) - 1,
                "player": player,
                "action": text,
                "label": label(text, phase),
                "text": log_text(text, phase, tiles, drawn, count),
                "turn": turn + 1,  # the turn the move belongs to, counted from 1
                "scored": [
                    {"player": p, "cause": cause, "points": gain}
                    for cause, gains in points.items()
                    for p, gain in gains.items()
                ],
                "events": move_events(scorings, returned),
                "placed_figures": placed,
            }
        )

    def _draw(self) -> None:
        while self.game.is_chance:
            self._apply(None)

    def save(self) -> None:
        self.store.save(self.id, self.seats, self.game.to_record(), self.host)

    def _commit(self, before: dict[str, Any]) -> None:
        """Saves the game, or puts it back as it was at `before` (its record) and raises
        StoreError: a change the store cannot keep must not be shown or built on."""
        try:
            self.save()
        except StoreError:
            self._replay(before)
            raise

    # ---- Moves -------------------------------------------------------------------------------

    def is_bot(self, player: int) -> bool:
        return 0 <= player < len(self.seats) and self.seats[player]["kind"] == "bot"

    def start(self) -> None:
        """Makes any draws due and lets the bots move; call after creating or loading."""
        with self.lock:
            before = self.game.to_record()
            self._draw()
            self._commit(before)
            self._wake_bots()

    def apply_human(self, text: str, seats: list[int] | None = None) -> None:
        """Applies a human's move, made for one of `seats` (None: any). Raises NotYourTurnError,
        NotYourSeatError, IllegalActionError or StoreError (nothing changes)."""
        with self.lock:
            player = self.game.current_player
            if player < 0 or self.is_bot(player):
                raise NotYourTurnError(
                    "the game is over" if self.game.is_terminal else "it is not a human's turn"
                )
            if seats is not None and player not in seats:
                raise NotYourSeatError(f"only the player of seat {player + 1} may move now")
            # Only the engine's own text: a padded or re-spelt action would reach the log as sent.
            canonical = self.game.action(text).text
            if text != canonical:
                raise IllegalActionError(
                    f"the engine writes this action {canonical!r}, only that is accepted"
                )
            before = self.game.to_record()
            self._apply(text)
            self._draw()
            self._commit(before)
            self.version += 1
            self._changed()
            self._wake_bots()

    # ---- Undo ---------------------------------------------------------------------------------

    def people(self) -> list[int]:
        """The seats of people (not bots)."""
        return [p for p, seat in enumerate(self.seats) if seat["kind"] != "bot"]

    def needs_consent(self) -> bool:
        """Whether an undo waits for the others: a game with friends' seats (several keys)."""
        return self.host is not None

    def _undo_target(self, seats: list[int] | None) -> int:
        """The index of the action an undo for `seats` (None: any) goes back to: the last
        decision a human made. Raises IllegalActionError or NotYourSeatError (lock held)."""
        humans = [i for i, p in enumerate(self.actors) if p >= 0 and not self.is_bot(p)]
        if not humans:
            raise IllegalActionError("there is no human move to undo")
        keep = humans[-1]
        if seats is not None and self.actors[keep] not in seats:
            raise NotYourSeatError("the last move was another player's: only they may take it back")
        if len(self.people()) > 1 and self._reveals_another_turn(keep):
            raise IllegalActionError(
                "another player's tile has been drawn since the last move of yours: with other people"
                " at the table a move is taken back only before the next player's tile is seen"
            )
        return keep

    def _reveals_another_turn(self, keep: int) -> bool:
        """Whether a draw after action `keep` showed the tile of another player's turn (a draw
        belongs to the turn of the next player who decides after it)."""
        mover = self.actors[keep]
        for i in range(keep + 1, len(self.actors)):
            if self.actors[i] == -1:
                turn = next((p for p in self.actors[i + 1 :] if p >= 0), self.game.current_player)
                if turn != mover:
                    return True
        return False

    def undo_refusal(self, seats: list[int]) -> str | None:
        """Why the holder of `seats` may not undo (or ask to) now; None if they may."""
        with self.lock:
            if not seats:
                return "only the players may take a move back"
            try:
                self._undo_target(seats)
            except (IllegalActionError, NotYourSeatError) as e:
                return str(e)
            return self._waiting_request()

    def _waiting_request(self) -> str | None:
        """Why no new undo request may be made now: one waits, or one was refused (lock held)."""
        if self.undo_request is None:
            return None
        if self.undo_request["refused_by"] is not None:
            return "the undo was refused: ask again after the next move"
        return "an undo request waits for an answer already"

    def undo(self, seats: list[int] | None = None) -> bool:
        """Goes back to the last decision a human made (before the bots' replies to it), if it
        was made for one of `seats` (None: any) and no other player's tile was drawn since (in a
        game of several people): True. In a game with friends' seats, asks the other people
        instead: False (it happens when they all accept). Raises NotYourSeatError,
        IllegalActionError or UndoRequestError (nothing changes)."""
        with self.lock:
            keep = self._undo_target(seats)
            others = [p for p in self.people() if seats is not None and p not in seats]
            if not self.needs_consent() or not others:
                self._take_back(keep)
                return True
            conflict = self._waiting_request()
            if conflict is not None:
                raise UndoRequestError(conflict)
            self.undo_request = {
                "seat": self.actors[keep],
                "asked_by": sorted(set(seats or []) & set(self.people())),
                "waiting": others,
                "refused_by": None,
                "moves": keep,  # the move count the game goes back to
            }
            self.version += 1
            self._changed()
            return False

    def answer_undo(self, seats: list[int], accept: bool) -> None:
        """The answer of the holder of `seats` to the undo request; the undo is made when the
        last person asked accepts, and one refusal ends the request. Raises UndoRequestError
        (no request waits) or NotYourSeatError (not asked)."""
        with self.lock:
            request = self.undo_request
            if request is None or request["refused_by"] is not None:
                raise UndoRequestError("no undo request waits for an answer (a move ends one)")
            answering = [p for p in request["waiting"] if p in seats]
            if not answering:
                raise NotYourSeatError("only the other players answer an undo request")
            if not accept:
                request["refused_by"], request["waiting"] = answering[0], []
            else:
                request["waiting"] = [p for p in request["waiting"] if p not in answering]
                if not request["waiting"]:
                    # Nothing moved since the request (a move lapses it): its target still holds.
                    self._take_back(self._undo_target(request["asked_by"]))
                    return
            self.version += 1
            self._changed()

    def _take_back(self, keep: int) -> None:
        """Replays the record up to action `keep`, saved (lock held)."""
        before, record = self.game.to_record(), self.game.to_record()
        record["actions"] = record["actions"][:keep]
        record["sampled"] = [i for i in record["sampled"] if i < keep]
        self._replay(record)
        self._commit(before)
        self.version += 1
        self._changed()

    # ---- Names and presence -----------------------------------------------------------------

    def rename(self, seat: int, name: str, seats: list[int]) -> None:
        """Names `seat`, if it is one of `seats` (else NotYourSeatError; IndexError if there is
        no such seat); saved, or StoreError and the old name kept."""
        with self.lock:
            if not 0 <= seat < len(self.seats):
                raise IndexError(f"the game has no seat {seat}")
            if seat not in seats:
                raise NotYourSeatError("only a seat's own player names it")
            old = self.seats[seat].get("name")
            self.seats[seat]["name"] = name
            try:
                self.save()
            except StoreError:
                if old is None:
                    del self.seats[seat]["name"]
                else:
                    self.seats[seat]["name"] = old
                raise
            self.version += 1
            self._changed()

    def set_rematch(self, game_id: str) -> None:
        """Names the game started as this one's rematch (saved): every page showing this game
        learns of it."""
        with self.lock:
            self.store.set_rematch(self.id, game_id)
            self.rematch = game_id
            self.version += 1
            self._changed()

    def present(self) -> list[int]:
        """The seats whose player has the game open (an event stream), lock held."""
        return sorted(p for p, n in self.streams.items() if n)

    def delete(self) -> None:
        with self.lock:
            self.store.delete(self.id)  # first: a store that fails leaves the game as it was
            self.deleted = True
            self.version += 1
            self._changed()
        for search in self.searches.values():
            search.stop()  # a bot thinking now answers at once, and its answer is dropped

    def _wake_bots(self) -> None:
        """Starts the bot thread if a bot is to decide and none is thinking (lock held)."""
        if self.is_bot(self.game.current_player) and (
            self.bot_thread is None or not self.bot_thread.is_alive()
        ):
            self.bot_thread = threading.Thread(target=self._run_bots, name=f"bots-{self.id}", daemon=True)
            self.bot_thread.start()

    def _run_bots(self) -> None:
        while True:
            with self.lock:
                player = self.game.current_player
                if self.deleted or not self.is_bot(player):
                    self.bot_thread = None
                    return
                state, applied, seed = self.game.core_state(), self.applied, len(self.actors)
            # Games where a human waits for the bot's answer think first.
            priority = 0 if any(seat["kind"] == "human" for seat in self.seats) else 1
            try:
                with BOT_SLOTS.slot(priority):
                    with self.lock:
                        if self.deleted:  # while this bot waited for a slot
                            return
                    code = self._think(player, state, seed, applied)
            except Exception as e:  # a bot must never take the server down; show why it stopped
                with self.lock:
                    self.bot_error = f"{self.seats[player]['level']} bot: {e}"
                    self.bot_thread = None
                    self.version += 1
                    self._changed()
                return
            with self.lock:
                if applied != self.applied or self.deleted:
                    continue  # the game changed while the bot thought: think again
                before = self.game.to_record()
                self._apply(self.game.action(code).text)
                self._draw()
                try:
                    self._commit(before)
                except StoreError as e:  # the move is undone; the page shows why the bot stopped
                    self.bot_error = f"{self.seats[player]['level']} bot: {e}"
                    self.bot_thread = None
                    self.version += 1
                    self._changed()
                    return
                self.version += 1
                self._changed()

    def _think(self, player: int, state: _core.State, seed: int, applied: int) -> int:
        """The bot's action code at `state`, a copy of the game's position after `applied`
        actions: the game may change meanwhile, and a search then stops (its answer is dropped)."""
        legal = state.legal_actions()
        if len(legal) == 1:  # a forced move needs no thought
            return legal[0]
        search = self.searches.get(player)
        if search is None:  # easy: the one-ply greedy bot
            return _core.choose_action(state, "greedy", seed)
        return think(search, state, seed, lambda: self.deleted or self.applied != applied).best

    # ---- What the page shows -----------------------------------------------------------------

    def summary(self) -> dict[str, Any]:
        """What changed, in short (lock held): enough for a page to know it must read the state."""
        return {
            "epoch": self.epoch,
            "version": self.version,
            "moves": len(self.actors),
            "terminal": self.game.is_terminal,
            "bot_error": self.bot_error is not None,
            "deleted": self.deleted,
            "present": self.present(),
        }

    def _changed(self) -> None:
        summary = self.summary()
        for listener in list(self.listeners):
            listener(summary)

    def listen(
        self, listener: Callable[[dict[str, Any]], None], seats: list[int] | None = None
    ) -> dict[str, Any]:
        """Calls `listener` (from any thread, the lock held: it must not block) with the
        summary after every change from now on; returns the summary now. `seats`: the seats
        whose player opened this stream, now present (the other listeners are told)."""
        with self.lock:
            self._count_streams(seats or [], 1)
            self.listeners.append(listener)
            return self.summary()

    def unlisten(self, listener: Callable[[dict[str, Any]], None], seats: list[int] | None = None) -> None:
        with self.lock:
            if listener in self.listeners:
                self.listeners.remove(listener)
                self._count_streams(seats or [], -1)

    def _count_streams(self, seats: list[int], change: int) -> None:
        before = self.present()
        for p in seats:
            self.streams[p] = self.streams.get(p, 0) + change
        if self.present() != before:
            self._changed()  # not a new version: nothing of the game changed

    def snapshot(self, moves: int) -> dict[str, Any]:
        """The board after the first `moves` actions of the record (replaying a game step by
        step): tiles, figures, scores, the City, and the action that led there."""
        with self.lock:
            record = self.game.to_record()
            entry = self.log[moves - 1] if 0 < moves <= len(self.log) else None
        if not 0 <= moves <= len(record["actions"]):
            raise IndexError(f"move {moves} is out of range (0 to {len(record['actions'])})")
        record["actions"] = record["actions"][:moves]
        record["sampled"] = [i for i in record["sampled"] if i < moves]
        game = Game.from_json(json.dumps(record))
        return {
            "moves": moves,
            "total": len(self.actors),
            "action": record["actions"][-1] if moves else None,
            "player": entry["player"] if entry else -1,  # who made that move (-1: a draw)
            "text": entry["text"] if entry else None,  # the move in words, as the log has it
            "tiles": game.tiles,
            "figures": game.figures,
            "scores": game.scores,
            "phase": game.phase,
            "current_player": game.current_player,
        }

    def describe(self) -> dict[str, Any]:
        """The game as the page shows it; its fingerprints are kept under its version, so that
        a page which has it may later get only the changes (see changes)."""
        with self.lock:
            game = self.game
            players = range(game.num_players)
            player = game.current_player
            city = game.config["variants"].get("start") == "city"  # city_plain: no quarters, no Count
            legal = grouped_actions(game)
            state = {
                "id": self.id,
                "epoch": self.epoch,
                "version": self.version,
                "seats": public_seats(self.seats),
                "present": self.present(),
                "undo_request": self.undo_request and dict(self.undo_request),
                "rematch": self.rematch,
                "config": game.config,
                "phase": game.phase,
                "current_player": player,
                "turn_player": game.turn_player,
                "turn": game.turn_number,
                "terminal": game.is_terminal,
                "human_to_move": player >= 0 and not self.is_bot(player),
                "bot_thinking": self.is_bot(player),
                "bot_error": self.bot_error,
                "prompt": prompt(game, legal),
                "drawn_tile": game.drawn_tile,
                "tiles": game.tiles,
                "figures": game.figures,
                "scores": game.scores,
                "breakdown": [game.breakdown()[p] for p in players],
                "final_estimate": game.scores_if_ended(),
                "returns": game.returns(),
                "supply": [
                    {**{k: game.supply(p, k) for k in FIGURE_KINDS}, "abbeys": game.abbeys(p)}
                    for p in players
                ],
                "bag": game.bag(),
                "bag_size": game.bag_size,
                "king": game.king,
                "robber": game.robber,
                "city": {
                    "count": game.count,
                    "figures": [
                        {"player": p, "kind": k, "quarter": q, "number": n}
                        for p in players
                        for q in QUARTERS
                        for k in ("meeple", "mayor", "wagon")
                        if (n := game.in_quarter(p, q, k))
                    ],
                }
                if city
                else None,
                "legal": legal,
                "log": list(self.log),
                "final_scoring": self.final,
                "moves": len(self.actors),
            }
            self._keep_fingerprints(state)
            return state

    def _keep_fingerprints(self, state: dict[str, Any]) -> None:
        """Keeps the fingerprints of `state`, the one described now, under its version (lock held)."""
        prints = fingerprints(state)
        if self.described.get(self.version, prints) != prints:
            # Two states under one version (a move the store refused lapses an undo request): a
            # page that names this version gets the whole state.
            prints = {}
        self.described[self.version] = prints
        self.described.move_to_end(self.version)
        while len(self.described) > DESCRIBED_VERSIONS:
            self.described.popitem(last=False)

    def changes(self, state: dict[str, Any], epoch: int | None, version: int | None) -> dict[str, Any]:
        """`state`, described just now (keys added since are always sent), for a page that has the
        state of `epoch` and `version`: only what changed since (`since`: that version), or whole
        (`since` None) when that state is not one of the last DESCRIBED_VERSIONS described."""
        with self.lock:
            known = self.described.get(version) if epoch == self.epoch and version is not None else None
            now = self.described.get(state["version"])
        if known is None or now is None:
            return state | {"since": None, "appended": {}}
        return delta(state, now, known) | {"since": version}
