"""The learned value of the search (search/value.h, docs/value.md): samples from trajectory files,
the PyTorch model, training, and the VALUE file the C++ search reads.

The model is one small MLP applied to every seat of a position with the same weights. Its inputs
are the engine's summaries of that seat (`_core.value_inputs`: score, supply, the features it
leads, shares or trails by type, tiles still to place...) and the closing inputs (which of those
features the tiles left in the bag can still close). A network made for every mix also reads the
game's rule switches and player count (`_core.value_context`), so one file serves every table. It
has two outputs per seat: the points that seat will still score (divided by POINTS_SCALE), and a
win logit. A softmax over the seats turns the logits into win shares. So one network serves any
player count, and an evaluation is a few thousand multiply-adds per seat.
"""

from __future__ import annotations

import contextlib
import math
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch import nn

from .. import Game, SearchError, _core
from ..rl.trajectories import load_trajectories
from .value_file import (
    EVERY_CODE,
    EVERY_MIX,
    EVERY_MIX_BIT,
    header,
    mix_code,
    players_mask,
    read_weights,
    serves_mask,
    write_checked,
)
from .value_file import mix_name as mix_name  # the samples' mix; callers import it from here

POINTS_SCALE = 50.0  # the first output times this is points still to come
INPUTS = _core.VALUE_INPUTS
SUMMARY_INPUTS = _core.SUMMARY_VALUE_INPUTS
EVERY_MIX_INPUTS = _core.EVERY_MIX_INPUTS  # INPUTS, then the context (rule switches, player count)
MIN_STD = 0.25  # the input normalisation divides by at least this


@dataclass
class ValueSamples:
    """Positions with targets, grouped by player count: inputs [n, players, EVERY_MIX_INPUTS]
    (value_inputs, then value_context), points still to come [n, players] (points / POINTS_SCALE),
    final win shares [n, players], and the game each position comes from (hold-outs split by
    game). `mix` is the games' mix, or EVERY_MIX when they come from several."""

    inputs: dict[int, np.ndarray]
    gain: dict[int, np.ndarray]
    win: dict[int, np.ndarray]
    game: dict[int, np.ndarray]
    mix: str

    def __len__(self) -> int:
        return sum(len(v) for v in self.inputs.values())


def search_targets(
    data: dict[str, Any], start: int, end: int, margin_scale: float
) -> tuple[np.ndarray, np.ndarray]:
    """One game's search estimates as targets, per action from `start` to `end`: the margin each
    seat's search expected (the inverse of the margin reward 0.5 + 0.5 tanh(margin / scale)) and
    its win estimates. A position with no search of its own (a draw, a forced move) takes the
    estimates of the next searched one; NaN after the last."""
    reward = np.asarray(data["search_reward"][start:end], np.float64)
    win = np.asarray(data["search_win"][start:end], np.float64)
    margin = margin_scale * np.arctanh(np.clip(2 * reward - 1, -0.999, 0.999))
    for i in range(len(margin) - 2, -1, -1):  # back-fill from the next searched position
        if np.isnan(margin[i]).any():
            margin[i], win[i] = margin[i + 1], win[i + 1]
    return margin, win


def load_value_samples(
    paths: Sequence[str | os.PathLike[str]],
    every: int = 1,
    progress: bool = False,
    search_weight: float = 0.0,
    margin_scale: float = 40.0,
) -> ValueSamples:
    """Replays every game of the trajectory files and keeps every `every`-th position (decision and
    chance nodes alike: the search evaluates both), with its final result as targets. All files
    must hold one mix.

    With `search_weight` w > 0 the targets lean on the search that played the game: a game's
    result, 70 tiles ahead, is a noisy verdict on a position, while the search's estimate at
    its root averages hundreds of futures. Each seat's target margin over the best other seat
    becomes (1 - w) * the final margin + w * the margin its search expected (inverted from its
    mean margin reward at `margin_scale`): the final scores move a share w of the way to the
    scores that have the searched margins and the game's total (`scores_with_margins`). The win
    target mixes the final shares with the search's win estimates the same way.

    Files of several mixes give samples of EVERY_MIX, for a network made for every mix."""
    from tqdm import tqdm

    if not 0.0 <= search_weight <= 1.0:
        raise SearchError(f"search_weight must lie in [0, 1], got {search_weight}")

    inputs: dict[int, list[np.ndarray]] = {}
    gain: dict[int, list[np.ndarray]] = {}
    win: dict[int, list[np.ndarray]] = {}
    game: dict[int, list[np.ndarray]] = {}
    mixes: set[str] = set()
    game_id = 0
    for path in paths:
        data = load_trajectories(path)
        config = data["config"]
        mixes.add(mix_name(config["expansions"], config["variants"]))
        n = int(config["players"])
        starts = data["game_start"]
        if search_weight > 0 and "search_reward" not in data:
            raise SearchError(f"{path} has no search estimates: use search_weight=0")
        for g in tqdm(
            range(len(starts) - 1), desc=f"replaying {Path(path).name}", unit="game", disable=not progress
        ):
            state = Game(n, config["expansions"], config["variants"])._state
            start, end = int(starts[g]), int(starts[g + 1])
            # Every `every`-th position before an action (decision and chance nodes alike).
            x, now = _core.value_replay(state, data["actions"][start:end], every)
            context = np.broadcast_to(_core.value_context(state), (len(x), n, _core.CONTEXT_INPUTS))
            final = np.asarray(data["scores"][g], np.float32)
            share = np.broadcast_to(np.asarray(data["win_share"][g], np.float32), (len(x), n))
            points = final - now.astype(np.float32)
            if search_weight > 0:
                searched_margin, searched_win = search_targets(data, start, end, margin_scale)
                margin, estimate = searched_margin[::every], searched_win[::every]
                known = ~np.isnan(margin).any(axis=1)  # none after the game's last search
                searched = scores_with_margins(margin[known], float(final.sum()))
                points[known] += search_weight * (searched - final)
                share = share.copy()
                share[known] = (1 - search_weight) * share[known] + search_weight * estimate[known]
            inputs.setdefault(n, []).append(np.concatenate([x, context], axis=2))
            gain.setdefault(n, []).append((points / POINTS_SCALE).astype(np.float32))
            win.setdefault(n, []).append(share.astype(np.float32))
            game.setdefault(n, []).append(np.full(len(x), game_id))
            game_id += 1
    if not mixes:
        raise SearchError("no trajectory files given")
    return ValueSamples(
        {n: np.concatenate(v) for n, v in inputs.items()},
        {n: np.concatenate(v) for n, v in gain.items()},
        {n: np.concatenate(v) for n, v in win.items()},
        {n: np.concatenate(v) for n, v in game.items()},
        mixes.pop() if len(mixes) == 1 else EVERY_MIX,
    )


def scores_with_margins(margins: np.ndarray, total: float) -> np.ndarray:
    """Final scores whose margins over the best other seat are the searched `margins` and whose
    sum is `total` (the game's: a search estimates margins, not how many points all will score).

    The seats' estimates come from separate averages, so they need not fit together: the
    expected leader L's margin and the best other seat's should be opposite. Their mismatch is
    split evenly: every other seat j ends m_j - s behind L, with s = (m_L + max_j m_j) / 2, so
    consistent margins come back exactly. With 2 players this moves each final score by half
    the change of the margins. Moving each seat's score by half the change of its own margin
    with more players (as the first recipe did) gives scores whose margins are not the searched
    ones and whose sum drifts: by 10 points on average in 4-player base games, 38 with every
    expansion. Rows of margins [..., players] give rows of scores."""
    margins = np.asarray(margins, np.float64)
    top_two = np.sort(margins, axis=-1)[..., -2:]  # the leader's margin and the best other's
    behind = margins - top_two.sum(axis=-1, keepdims=True) / 2
    np.put_along_axis(behind, np.argmax(margins, axis=-1)[..., None], 0.0, axis=-1)
    return behind + (total - behind.sum(axis=-1, keepdims=True)) / margins.shape[-1]


class ValueMLP(nn.Module):
    """inputs [..., inputs] -> [..., 2]: points still to come / POINTS_SCALE, win logit. It reads
    the first `inputs` columns of a sample: value_inputs and the context (EVERY_MIX_INPUTS, a
    network for every mix), value_inputs alone (INPUTS), or the summaries alone (SUMMARY_INPUTS,
    as the first networks did). The input normalisation (mean, std of the training inputs) is
    part of the model and folded into the first layer on export."""

    mean: torch.Tensor
    std: torch.Tensor

    def __init__(self, hidden1: int = 32, hidden2: int = 32, inputs: int = INPUTS) -> None:
        super().__init__()
        if inputs not in (SUMMARY_INPUTS, INPUTS, EVERY_MIX_INPUTS):
            raise SearchError(
                f"a value network reads {SUMMARY_INPUTS}, {INPUTS} or {EVERY_MIX_INPUTS} inputs, not {inputs}"
            )
        self.register_buffer("mean", torch.zeros(inputs))
        self.register_buffer("std", torch.ones(inputs))
        self.layers = nn.Sequential(
            nn.Linear(inputs, hidden1),
            nn.ReLU(),
            nn.Linear(hidden1, hidden2),
            nn.ReLU(),
            nn.Linear(hidden2, 2),
        )

    @property
    def inputs(self) -> int:
        return self.mean.numel()

    @classmethod
    def from_state_dict(cls, state: dict[str, torch.Tensor]) -> ValueMLP:
        """A model shaped as the saved weights are (hidden sizes and inputs), with them loaded."""
        model = cls(
            state["layers.0.weight"].shape[0], state["layers.2.weight"].shape[0], state["mean"].numel()
        )
        model.load_state_dict(state)
        return model

    @classmethod
    def from_value_file(cls, path: str | os.PathLike[str], samples: ValueSamples) -> ValueMLP:
        """The network of a VALUE file (a shipped one, say, which has no PyTorch weights beside
        it), to train further on `samples`: normalised by their inputs as fit() normalises a fresh
        model, its first layer unfolded to match, so it computes what the file computes."""
        scale, (w1, b1, w2, b2, w3, b3) = read_weights(path)
        if scale != POINTS_SCALE:
            raise SearchError(f"{path}: points scale {scale}, this trainer's is {POINTS_SCALE}")
        model = cls(w1.shape[0], w2.shape[0], w1.shape[1])
        columns = [x[..., : model.inputs].reshape(-1, model.inputs) for x in samples.inputs.values()]
        flat = torch.from_numpy(np.concatenate(columns))
        mean, std = flat.mean(0).double(), flat.std(0).clamp_min(MIN_STD).double()
        folded = torch.from_numpy(w1).double()
        first, second, out = (m for m in model.layers if isinstance(m, nn.Linear))
        with torch.no_grad():
            model.mean.copy_(mean)
            model.std.copy_(std)
            # w1 x + b1 = (w1 std) (x - mean) / std + (b1 + w1 mean)
            first.weight.copy_(folded * std)
            first.bias.copy_(torch.from_numpy(b1).double() + folded @ mean)
            for layer, w, b in ((second, w2, b2), (out, w3, b3)):
                layer.weight.copy_(torch.from_numpy(w))
                layer.bias.copy_(torch.from_numpy(b))
        return model

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return self.layers((x[..., : self.inputs] - self.mean) / self.std)


def losses(
    model: ValueMLP, x: torch.Tensor, gain: torch.Tensor, win: torch.Tensor
) -> tuple[torch.Tensor, torch.Tensor]:
    """Mean squared error of the points still to come (in POINTS_SCALE units) and the cross-entropy
    of the seats' win shares, for a batch of positions [b, players, INPUTS]."""
    y = model(x)
    mse = ((y[..., 0] - gain) ** 2).mean()
    ce = -(win * torch.log_softmax(y[..., 1], dim=-1)).sum(-1).mean()
    return mse, ce


@dataclass
class FitReport:
    epochs: int
    train_mse: float
    held_mse: float  # in POINTS_SCALE units squared
    held_points_rmse: float  # points
    held_ce: float
    # The seat with the top win estimate has the top win target: it won (ties: any winner), or,
    # with targets from the search, the search rated it highest.
    held_winner_accuracy: float


@contextlib.contextmanager
def _torch_threads(threads: int) -> Iterator[None]:
    """PyTorch's intra-op threads set to `threads` for a block, then restored."""
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


def fit(
    samples: ValueSamples,
    model: ValueMLP | None = None,
    epochs: int = 30,
    batch: int = 256,
    lr: float = 2e-3,
    weight_decay: float = 1e-3,
    held_out: float = 0.1,
    seed: int = 0,
    progress: bool = False,
    threads: int = 1,
) -> tuple[ValueMLP, FitReport]:
    """Trains (a copy of `model`, or a fresh one) with AdamW on every player count's positions, a
    `held_out` share of the games kept aside; returns the epoch with the lowest held-out squared
    error of the points still to come.

    `threads`: PyTorch's threads while it trains. One by default: the network is small and its
    batches too, so more threads mostly wait on each other, and beside other work (self-play, an
    arena) threads beyond the free cores spin: an epoch of 100,000 positions took 0.8-1.4 s with
    one thread and 12.6-13.3 s with two while an arena kept one of two cores busy."""
    import copy

    from tqdm import tqdm

    with _torch_threads(threads):
        torch.manual_seed(seed)
        rng = np.random.default_rng(seed)
        model = copy.deepcopy(model) if model is not None else ValueMLP()
        games = np.unique(np.concatenate(list(samples.game.values())))
        held_games = set(rng.choice(games, size=max(1, int(len(games) * held_out)), replace=False).tolist())
        train: list[tuple[torch.Tensor, ...]] = []
        held: list[tuple[torch.Tensor, ...]] = []
        for n in samples.inputs:
            mask = np.isin(samples.game[n], list(held_games))
            for part, keep in ((train, ~mask), (held, mask)):
                if keep.any():
                    part.append(
                        tuple(
                            torch.from_numpy(a[keep])
                            for a in (samples.inputs[n], samples.gain[n], samples.win[n])
                        )
                    )
        if model.std.eq(1).all():  # a fresh model: normalise by the training inputs
            flat = torch.cat([x[..., : model.inputs].reshape(-1, model.inputs) for x, _, _ in train])
            model.mean.copy_(flat.mean(0))
            # The inputs are scaled to about 1 already. A floor on the divisor keeps an input that
            # rarely varies in the games (farmers early, say) from being magnified: the search
            # reaches positions the games never showed, and must not extrapolate wildly there.
            spread = flat.std(0)
            model.std.copy_(spread.clamp_min(MIN_STD))
            # An input the games never varied (the player count's bits in 2-player games, the
            # switches of a mix they do not hold) gets no gradient: its first-layer weights would
            # stay as initialised and turn into noise where it does vary. They start at zero, so
            # such an input is ignored until games that vary it are trained on.
            first = next(m for m in model.layers if isinstance(m, nn.Linear))
            with torch.no_grad():
                first.weight[:, spread == 0] = 0.0
        opt = torch.optim.AdamW(model.parameters(), lr=lr, weight_decay=weight_decay)
        sched = torch.optim.lr_scheduler.CosineAnnealingLR(opt, epochs)
        best_state, best_loss, report = None, math.inf, None
        for epoch in tqdm(
            range(epochs), desc="training the value network", unit="epoch", disable=not progress
        ):
            model.train()
            total, count = 0.0, 0
            for x, gain, win in train:
                order = torch.randperm(len(x))
                for i in range(0, len(x), batch):
                    idx = order[i : i + batch]
                    mse, ce = losses(model, x[idx], gain[idx], win[idx])
                    opt.zero_grad()
                    (mse + ce).backward()
                    opt.step()
                    total += float(mse.detach()) * len(idx)
                    count += len(idx)
            sched.step()
            held_report = evaluate_held(model, held)
            # The search reads the points head (its reward is the predicted margin), so it picks
            # the epoch; the win head's cross-entropy starts to overfit first.
            loss = held_report[0]
            if loss < best_loss:
                best_loss = loss
                best_state = copy.deepcopy(model.state_dict())
                report = FitReport(epoch + 1, total / max(count, 1), *held_report)
        assert best_state is not None and report is not None
        model.load_state_dict(best_state)
        return model, report


@torch.no_grad()
def evaluate_held(model: ValueMLP, held: list[tuple[torch.Tensor, ...]]) -> tuple[float, float, float, float]:
    model.eval()
    mse_sum = ce_sum = right = 0.0
    count = 0
    for x, gain, win in held:
        mse, ce = losses(model, x, gain, win)
        mse_sum += float(mse) * len(x)
        ce_sum += float(ce) * len(x)
        top = model(x)[..., 1].argmax(-1)
        best = win.max(-1, keepdim=True).values
        right += float((win.gather(-1, top[:, None]) >= best - 1e-6).sum())
        count += len(x)
    count = max(count, 1)
    return mse_sum / count, math.sqrt(mse_sum / count) * POINTS_SCALE, ce_sum / count, right / count


def export(
    model: ValueMLP,
    path: str | os.PathLike[str],
    mix: str,
    player_counts: Sequence[int],
    serves: Sequence[str] | None = None,
    guess_share: float = 0.0,
) -> Path:
    """Writes the VALUE file (docs/value.md): header, then float32 weights with the input
    normalisation folded into the first layer. A model reading the context (EVERY_MIX_INPUTS) is
    a network of every mix (`mix` EVERY_MIX); the others are made for one mix. The search uses it
    for games of `player_counts` and of the mixes `serves` names (value_file.mix_code): by
    default its own mix, or every mix for a network of every mix. At a cutoff it plays with
    `guess_share` of the hand-made guess in its values (ValueNet.guess_share)."""
    if (mix == EVERY_MIX) != (model.inputs == EVERY_MIX_INPUTS):
        raise SearchError(
            f"a network for every mix reads {EVERY_MIX_INPUTS} inputs (the context too); "
            f"this one reads {model.inputs} and was trained for {mix!r}"
        )
    bits = EVERY_MIX_BIT if mix == EVERY_MIX else mix_code(mix)
    own = EVERY_CODE if mix == EVERY_MIX else 1 << bits
    served = own if serves is None else serves_mask(serves)
    lin1, lin2, lin3 = (m for m in model.layers if isinstance(m, nn.Linear))
    with torch.no_grad():
        w1 = lin1.weight / model.std
        b1 = lin1.bias - w1 @ model.mean
    data = header(
        lin1.in_features,
        lin1.out_features,
        lin2.out_features,
        bits,
        players_mask(player_counts),
        served,
        POINTS_SCALE,
        guess_share,
    )
    for t in (w1, b1, lin2.weight, lin2.bias, lin3.weight, lin3.bias):
        data += t.detach().to(torch.float32).contiguous().numpy().astype("<f4").tobytes()
    return write_checked(path, data)
