"""The training loop (`python -m carcassonne train`): self-play, training, gating, repeated.

Generation 0 learns from games of the rollout MCTS (a random network's self-play would teach
nothing in the time a run has); every later generation from self-play of the best network so
far (`mcts:eval=net`). Each generation:
  1. self-play: `games` deals (each from every seat rotation) in the arena's C++ threads, or
     on the actors of a Ray cluster (`address`), with the root's visit counts recorded
     (carcassonne.rl.trajectories), into games-G.npz;
  2. training: the best network's weights (or fresh ones) trained `epochs` passes over the
     replay window (the last `replay` generations' games), 10% of the games held out for the
     log's held-out loss, value accuracy and policy top-1; the candidate is the epoch of the
     lowest held-out loss (later epochs may overfit: they are trained, logged and dropped);
     candidate-G.pt and .carcnet;
  3. gating: the candidate against the best network in paired arena games at equal iterations;
     it is promoted if the arena's 95% interval of its win rate lies above 1/2 (generation 0
     is promoted at once: there is no network to beat).
Every step's output is a file in the run directory and run.json records what is done, so after
Ctrl-C (or a crash) rerunning the same command continues where it stopped. log.csv holds one
row per epoch (loss, held-out loss, value accuracy, policy top-1); training.png plots it.
"""

from __future__ import annotations

import copy
import csv
import json
import os
import random
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
from torch.nn import functional as F  # noqa: N812

from .. import SearchError, arena
from ..rl.trajectories import write_trajectories
from .data import Batches, Samples, load_samples
from .net import PolicyValueNet, export

LOG_FIELDS = [
    "generation",
    "epoch",
    "samples",
    "loss",
    "policy_loss",
    "value_loss",
    "held_loss",
    "value_accuracy",
    "policy_top1",
]


@dataclass
class TrainConfig:
    players: int = 2
    expansions: tuple[str, ...] = ()
    variants: dict[str, str] = field(default_factory=dict)  # e.g. {"start": "city"}
    generations: int = 3
    games: int = 100  # deals per generation (each played from every seat rotation)
    iterations: int = 200  # MCTS iterations per move in self-play and gating
    bootstrap: str = "mcts:iters={iterations},memory=64"  # generation 0's players
    epochs: int = 4
    batch: int = 128
    lr: float = 2e-3
    replay: int = 3  # generations of games in the training window
    gate_games: int = 20  # deals of the gating match
    channels: tuple[int, int, int] = (16, 16, 32)
    hidden: int = 64
    seed: int = 0
    threads: int = 1  # arena threads (games at once)
    search_weight: float = 0.0  # share of the root search's estimates in the value targets (data.py)


class Run:
    """A run directory: run.json (the config and what is done), the generations' files."""

    def __init__(self, directory: str | os.PathLike[str], config: Any) -> None:  # a config dataclass
        self.dir = Path(directory)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.path = self.dir / "run.json"
        if self.path.exists():
            saved = json.loads(self.path.read_text())
            _rename_old_settings(saved["config"])
            mine = json.loads(json.dumps(asdict(config)))
            # The shape of the run must stay; its length (generations) may grow on a rerun.
            # Runs from before these settings had their defaults.
            for key, default in (("variants", {}), ("search_weight", 0.0), ("mixes", []), ("start", "")):
                if key in mine:
                    saved["config"].setdefault(key, default)
            fixed = {k: v for k, v in saved["config"].items() if k != "generations"}
            if fixed != {k: v for k, v in mine.items() if k != "generations"}:
                raise SearchError(f"{self.dir} holds a run with other settings: {saved['config']}")
            self.state: dict[str, Any] = saved
            self.state["config"] = mine
        else:
            self.state = {"config": asdict(config), "done": {}, "best": None, "gates": []}
            self.save()

    def save(self) -> None:
        tmp = self.path.with_name("run.json.tmp")
        tmp.write_text(json.dumps(self.state, indent=1))
        os.replace(tmp, self.path)

    def done(self, step: str) -> bool:
        return step in self.state["done"]

    def mark(self, step: str, value: Any = True) -> None:
        self.state["done"][step] = value
        self.save()


def _rename_old_settings(config: dict[str, Any]) -> None:
    """A run.json written before `iters` became `iterations` (the name of every other Python
    API), read as it would be written now."""
    if "iters" in config:
        config["iterations"] = config.pop("iters")
    if isinstance(config.get("bootstrap"), str):
        config["bootstrap"] = config["bootstrap"].replace("{iters}", "{iterations}")


def _agent(network: Path | None, iterations: int, bootstrap: str) -> str:
    if network is None:
        return bootstrap.format(iterations=iterations)
    return f"mcts:eval=net,net={network},iters={iterations},memory=64"


def _log_rows(path: Path) -> list[dict[str, str]]:
    if not path.exists():
        return []
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def _append_log(path: Path, row: dict[str, Any]) -> None:
    new = not path.exists()
    with open(path, "a", newline="") as f:
        writer = csv.DictWriter(f, LOG_FIELDS)
        if new:
            writer.writeheader()
        writer.writerow({k: (f"{v:.4f}" if isinstance(v, float) else v) for k, v in row.items()})


def plot_log(log: Path, png: Path) -> None:
    """training.png: loss, value accuracy and policy top-1 (held-out games) per epoch."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import MaxNLocator

    rows = _log_rows(log)
    if not rows:
        return
    x = np.arange(1, len(rows) + 1)
    fig, (left, right) = plt.subplots(1, 2, figsize=(10, 4))
    for key in ("loss", "policy_loss", "value_loss"):
        left.plot(x, [float(r[key]) for r in rows], marker=".", label=key.replace("_", " ") + " (train)")
    held = [float(r["held_loss"]) if r.get("held_loss") else np.nan for r in rows]  # older logs lack it
    left.plot(x, held, marker=".", linestyle="--", color="C0", label="loss (held out)")
    left.set_xlabel("epoch (all generations)")
    left.set_title("training loss")
    left.legend()
    for key in ("value_accuracy", "policy_top1"):
        right.plot(x, [float(r[key]) for r in rows], marker=".", label=key.replace("_", " ") + " (held out)")
    right.set_ylim(0, 1)
    right.set_xlabel("epoch (all generations)")
    right.set_title("held-out games")
    right.legend()
    for ax in (left, right):
        ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    for gen_start in [i + 1 for i, r in enumerate(rows) if r["epoch"] == "1" and i > 0]:
        for ax in (left, right):
            ax.axvline(gen_start - 0.5, color="grey", linewidth=0.5)
    fig.tight_layout()
    fig.savefig(png, dpi=80)
    plt.close(fig)


def losses(net: PolicyValueNet, batch: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    """The losses and metrics of one minibatch: policy cross-entropy against the visit shares
    over the root's actions, value cross-entropy (win share) plus margin mean squared error."""
    win_logits, margin, logits = net(
        torch.as_tensor(batch["planes"], dtype=torch.float32), torch.as_tensor(batch["globals"])
    )
    legal = torch.as_tensor(batch["legal"])
    target = torch.as_tensor(batch["policy"])
    log_policy = torch.log_softmax(logits.masked_fill(~legal, -1e9), dim=1)
    policy_loss = -(target * log_policy).sum(1).mean()
    win = torch.as_tensor(batch["win"])
    value_loss = -(win * torch.log_softmax(win_logits, dim=1)).sum(1).mean() + 4 * F.mse_loss(
        margin, torch.as_tensor(batch["margin"])
    )
    return {
        "loss": policy_loss + value_loss,
        "policy_loss": policy_loss,
        "value_loss": value_loss,
        "value_accuracy": (win_logits.argmax(1) == torch.as_tensor(batch["result"]).argmax(1)).float().mean(),
        "policy_top1": (log_policy.argmax(1) == target.argmax(1)).float().mean(),
    }


def split_games(samples: Samples, rng: random.Random) -> tuple[list[int], list[int]]:
    """The samples' indices to train on and to hold out: 10% of the games (at least one) held
    out whole, so that no position of a held-out game is trained on."""
    games = sorted(set(samples.game))
    held = set(rng.sample(games, max(1, len(games) // 10))) if len(games) > 1 else set()
    train = [i for i, g in enumerate(samples.game) if g not in held] or list(range(len(samples)))
    valid = [i for i, g in enumerate(samples.game) if g in held] or train
    return train, valid


def evaluate(net: PolicyValueNet, batches: Batches, indices: list[int], batch_size: int) -> dict[str, float]:
    """The means of losses() over the samples at `indices`, in evaluation mode, no gradients."""
    net.eval()
    sums: dict[str, float] = {}
    with torch.no_grad():
        for i in range(0, len(indices), batch_size):
            chunk = indices[i : i + batch_size]
            for k, v in losses(net, batches.batch(chunk)).items():
                sums[k] = sums.get(k, 0.0) + float(v) * len(chunk)
    return {k: v / len(indices) for k, v in sums.items()}


def train_epochs(
    net: PolicyValueNet,
    samples: Samples,
    epochs: int,
    batch_size: int,
    lr: float,
    seed: int,
    on_epoch: Any = None,
    progress: bool = True,
) -> int:
    """Trains `net` in place; 10% of the games (at least one) are held out for the metrics
    passed to on_epoch(epoch, train means, held-out means). `net` ends with the weights of the
    epoch of the lowest held-out loss (early stopping), whose number is returned."""
    from tqdm import tqdm

    rng = random.Random(seed)
    train, valid = split_games(samples, rng)
    batches = Batches(samples, net.players, net.window)
    optimiser = torch.optim.AdamW(net.parameters(), lr=lr, weight_decay=1e-4)
    kept, kept_loss, kept_weights = 0, float("inf"), copy.deepcopy(net.state_dict())
    for epoch in range(1, epochs + 1):
        rng.shuffle(train)
        net.train()
        sums: dict[str, float] = {}
        chunks = [train[i : i + batch_size] for i in range(0, len(train), batch_size)]
        for chunk in tqdm(
            chunks, desc=f"epoch {epoch}/{epochs}", unit="batch", disable=not progress, leave=False
        ):
            out = losses(net, batches.batch(chunk))
            optimiser.zero_grad()
            out["loss"].backward()
            optimiser.step()
            for k, v in out.items():
                sums[k] = sums.get(k, 0.0) + float(v.detach()) * len(chunk)
        held_means = evaluate(net, batches, valid, batch_size)
        if held_means["loss"] < kept_loss:
            kept, kept_loss, kept_weights = epoch, held_means["loss"], copy.deepcopy(net.state_dict())
        if on_epoch is not None:
            on_epoch(epoch, {k: v / len(train) for k, v in sums.items()}, held_means)
    net.load_state_dict(kept_weights)
    return kept


def _global_scale(samples: Samples, net: PolicyValueNet) -> np.ndarray:
    """1 / the largest magnitude of each global in the first data (at least 1): inputs near [-1, 1]."""
    batches = Batches(samples, net.players, net.window)
    _, globals_ = batches.encoder.encode_batch(samples.states[:4096], samples.observers[:4096])
    return (1.0 / np.maximum(1.0, np.abs(globals_).max(axis=0))).astype(np.float32)


def _new_net(config: TrainConfig) -> PolicyValueNet:
    return PolicyValueNet(config.players, channels=config.channels, hidden=config.hidden)


def run(
    directory: str | os.PathLike[str],
    config: TrainConfig,
    progress: bool = True,
    address: str | None = None,
) -> dict[str, Any]:
    """Runs (or continues) the loop in `directory`; returns run.json's content. With `address`
    (a Ray cluster: "auto" or "host:port" of its head) self-play runs on the cluster's actors,
    one a CPU; training and gating run here. The address is no setting of the run: a rerun may
    give another one, or none."""
    torch.set_num_threads(1)
    r = Run(directory, config)
    d = r.dir
    for g in range(config.generations):
        best = d / r.state["best"] if r.state["best"] else None
        games = d / f"games-{g}.npz"
        if not r.done(f"selfplay-{g}"):
            agent = _agent(best, config.iterations, config.bootstrap)
            print(f"generation {g}: self-play, {config.games} deals of {agent}")
            write_trajectories(
                games,
                [agent] * config.players,
                deals=config.games,
                players=config.players,
                expansions=config.expansions,
                variants=config.variants,
                seed=config.seed * 1000 + g,
                agent_seed=config.seed * 1000 + g + 1,
                threads=config.threads,
                progress=progress,
                address=address,
            )
            r.mark(f"selfplay-{g}")
        candidate = d / f"candidate-{g}.carcnet"
        if not r.done(f"train-{g}"):
            samples = Samples()
            first = max(0, g - config.replay + 1)
            for h in range(first, g + 1):
                samples.extend(
                    load_samples(d / f"games-{h}.npz", progress=progress, search_weight=config.search_weight)
                )
            print(f"generation {g}: training on {len(samples)} decisions of generations {first}-{g}")
            torch.manual_seed(config.seed * 1000 + g)
            net = _new_net(config)
            if best is not None:
                net.load_state_dict(torch.load(best.with_suffix(".pt"), weights_only=True))
            else:
                net.global_scale.copy_(torch.as_tensor(_global_scale(samples, net)))

            def on_epoch(
                epoch: int, train: dict[str, float], held: dict[str, float], g: int = g, n: int = len(samples)
            ) -> None:
                row: dict[str, Any] = {"generation": g, "epoch": epoch, "samples": n}
                row.update({k: train[k] for k in ("loss", "policy_loss", "value_loss")})
                row.update({"held_loss": held["loss"]})
                row.update({k: held[k] for k in ("value_accuracy", "policy_top1")})
                _append_log(d / "log.csv", row)
                print(
                    f"  epoch {epoch}: loss {train['loss']:.3f} (policy {train['policy_loss']:.3f}, value "
                    f"{train['value_loss']:.3f}); held out: loss {held['loss']:.3f}, value accuracy "
                    f"{held['value_accuracy']:.3f}, policy top-1 {held['policy_top1']:.3f}"
                )

            _drop_log_rows(d / "log.csv", g)  # an interrupted training of this generation starts over
            kept = train_epochs(
                net, samples, config.epochs, config.batch, config.lr, config.seed + g, on_epoch, progress
            )
            print(f"generation {g}: the candidate is epoch {kept} (lowest held-out loss)")
            torch.save(net.state_dict(), candidate.with_suffix(".pt"))
            export(net, candidate)
            plot_log(d / "log.csv", d / "training.png")
            r.mark(f"train-{g}", {"epoch": kept})
        if not r.done(f"gate-{g}"):
            promoted, summary = True, "no network to beat yet"
            if best is not None:
                promoted, summary = _gate(candidate, best, config, g, progress)
            print(f"generation {g}: {summary}; {'promoted' if promoted else 'kept the best'}")
            r.state["gates"].append({"generation": g, "promoted": promoted, "summary": summary})
            if promoted:
                r.state["best"] = candidate.name
                shutil.copyfile(candidate, d / "best.carcnet")
            r.mark(f"gate-{g}")
    return r.state


def _drop_log_rows(log: Path, generation: int) -> None:
    # Rewriting also brings a log of an older version to today's columns (missing ones empty).
    rows = [row for row in _log_rows(log) if int(row["generation"]) != generation]
    if log.exists():
        log.unlink()
    for row in rows:
        _append_log(log, row)


def _gate(candidate: Path, best: Path, config: TrainConfig, g: int, progress: bool) -> tuple[bool, str]:
    """Paired arena games, candidate against best at equal iterations; promoted if the 95%
    interval of the candidate's win rate lies above 1/2."""
    agents = [_agent(candidate, config.iterations, config.bootstrap)] + [
        _agent(best, config.iterations, config.bootstrap)
    ] * (config.players - 1)
    from tqdm import tqdm

    games_csv = candidate.with_name(f"gate-{g}.csv")  # each game as it ends: Ctrl-C loses only those in play
    with tqdm(total=config.gate_games, unit="deal", desc="gate", disable=not progress) as bar:
        for deals in range(1, config.gate_games + 1):  # one deal more per call, for the bar
            result = arena(
                agents,
                deals=deals,
                players=config.players,
                expansions=config.expansions,
                variants=config.variants,
                seed=config.seed * 1000 + 500 + g,
                threads=config.threads,
                csv=games_csv,
                resume=games_csv.exists(),
            )
            bar.update(1)
    entrant = result.entrants[0]
    summary = (
        f"gate: candidate win rate {entrant.win_rate:.3f} [{entrant.win_low:.3f}, {entrant.win_high:.3f}] "
        f"over {entrant.games} games against the best"
    )
    return entrant.win_low > 0.5, summary
