"""Training samples from trajectory files (carcassonne.rl.trajectories): every decision an MCTS
agent searched, with the root's visit distribution as the policy target and the game's final
result as the value targets, seen from the decider's seat (docs/network.md); optionally mixed
with the search's own estimates at the root, a less noisy target than one game's end.

Samples keep the engine state (a memcpy-sized copy), not its observation: 74 KB of planes per
sample would not fit a replay window in memory. Minibatches are encoded when drawn
(`rl.encode_batch`, tens of thousands of states a second)."""

from __future__ import annotations

import math
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .. import Game, SearchError, _core, rl
from ..rl.trajectories import load_trajectories

MARGIN_SCALE = 40.0  # points: the margin reward 0.5 + 0.5 tanh(margin / 40), the search's default


@dataclass
class Samples:
    """Decisions with targets. Per sample: the state, the deciding seat, the policy target as
    (action index, visit share) pairs over the root's actions, and per relative seat (0 = the
    decider) the value targets (win share, margin reward) and the game's final win share
    (`result`: what the held-out value accuracy is measured against)."""

    states: list[_core.State] = field(default_factory=list)
    observers: list[int] = field(default_factory=list)
    policy: list[tuple[np.ndarray, np.ndarray]] = field(default_factory=list)
    win: list[np.ndarray] = field(default_factory=list)
    margin: list[np.ndarray] = field(default_factory=list)
    result: list[np.ndarray] = field(default_factory=list)
    game: list[int] = field(default_factory=list)  # which game (a running number): validation splits by game

    def __len__(self) -> int:
        return len(self.states)

    def extend(self, other: Samples) -> None:
        offset = max(self.game, default=-1) + 1
        self.states += other.states
        self.observers += other.observers
        self.policy += other.policy
        self.win += other.win
        self.margin += other.margin
        self.result += other.result
        self.game += [g + offset for g in other.game]


def _targets(scores: Sequence[int], observer: int) -> tuple[np.ndarray, np.ndarray]:
    """Per relative seat: win share (ties split) and margin reward over the best other score."""
    n = len(scores)
    seats = [(observer + r) % n for r in range(n)]
    best = max(scores)
    winners = sum(1 for s in scores if s == best)
    win = np.array([1.0 / winners if scores[p] == best else 0.0 for p in seats], np.float32)
    margin = np.array(
        [
            0.5 + 0.5 * math.tanh((scores[p] - max(scores[q] for q in range(n) if q != p)) / MARGIN_SCALE)
            for p in seats
        ],
        np.float32,
    )
    return win, margin


def load_samples(
    path: str | os.PathLike[str],
    window: int = rl.DEFAULT_WINDOW,
    progress: bool = False,
    search_weight: float = 0.0,
) -> Samples:
    """Replays every game of a trajectory file and keeps its searched decisions. A decision whose
    best actions lie outside the window (docs/observation.md: very rare) is dropped. The value
    targets are (1 - search_weight) x the final result + search_weight x the search's estimates
    at the root (win share; mean reward for the margin head)."""
    from tqdm import tqdm

    if not 0.0 <= search_weight <= 1.0:
        raise SearchError(f"search_weight must lie in [0, 1], got {search_weight}")
    data = load_trajectories(path)
    if search_weight > 0 and "search_win" not in data:
        raise SearchError(
            f"{path} has no search estimates (written before they were recorded): use search_weight=0"
        )
    config = data["config"]
    space = rl.action_space(window, "window")  # the network's policy lines up with the planes
    out = Samples()
    starts, visit_starts = data["game_start"], data["visit_start"]
    for g in tqdm(
        range(len(starts) - 1), desc=f"replaying {Path(path).name}", unit="game", disable=not progress
    ):
        state = Game(config["players"], config["expansions"], config["variants"])._state
        scores = [int(s) for s in data["scores"][g]]
        for i in range(int(starts[g]), int(starts[g + 1])):
            lo, hi = int(visit_starts[i]), int(visit_starts[i + 1])
            code = int(data["actions"][i])
            if hi > lo:
                visits = data["visit_count"][lo:hi].astype(np.float32)
                indices = np.array(
                    [space.index(state, int(a)) for a in data["visit_action"][lo:hi]], np.int64
                )
                inside = indices >= 0
                if visits.sum() > 0 and inside.all():
                    observer = int(data["player"][i])
                    win, margin = _targets(scores, observer)
                    out.result.append(win)
                    if search_weight > 0:
                        seats = [(observer + r) % len(scores) for r in range(len(scores))]
                        w = search_weight
                        win = (1 - w) * win + w * data["search_win"][i][seats]
                        margin = (1 - w) * margin + w * data["search_reward"][i][seats]
                    out.states.append(state.clone())
                    out.observers.append(observer)
                    out.policy.append((indices, visits / visits.sum()))
                    out.win.append(win.astype(np.float32))
                    out.margin.append(margin.astype(np.float32))
                    out.game.append(g)
            state.apply(code)
    return out


class Batches:
    """Encodes minibatches of samples into reused buffers (rl.encode_batch's `out=`)."""

    def __init__(self, samples: Samples, players: int, window: int = rl.DEFAULT_WINDOW) -> None:
        self.samples = samples
        self.window = window
        self.encoder = rl.encoder(players, window)
        self.actions = rl.action_space(window, "window").size
        self._buffers: dict[int, tuple[Any, Any]] = {}

    def batch(self, indices: Sequence[int]) -> dict[str, np.ndarray]:
        """planes uint8, globals, legal (bool [n, actions]: the root's actions), policy target
        [n, actions], win and margin targets and the final result [n, players]."""
        n = len(indices)
        if n not in self._buffers:
            self._buffers[n] = (
                np.empty((n, self.encoder.num_planes, self.window, self.window), np.uint8),
                np.empty((n, self.encoder.num_globals), np.float32),
            )
        s = self.samples
        planes, globals_ = rl.encode_batch(
            [s.states[i] for i in indices], [s.observers[i] for i in indices], self.window, self._buffers[n]
        )
        legal = np.zeros((n, self.actions), bool)
        policy = np.zeros((n, self.actions), np.float32)
        for row, i in enumerate(indices):
            actions, share = s.policy[i]
            legal[row, actions] = True
            policy[row, actions] = share
        return {
            "planes": planes,
            "globals": globals_,
            "legal": legal,
            "policy": policy,
            "win": np.stack([s.win[i] for i in indices]),
            "margin": np.stack([s.margin[i] for i in indices]),
            "result": np.stack([s.result[i] for i in indices]),
        }
