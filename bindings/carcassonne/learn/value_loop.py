"""Generations of self-play for the learned value (`python -m carcassonne value-train`).

Each generation:
  1. self-play: `deals` deals per player count (every seat rotation), played by the best player
     so far — the rollout search for generation 1, then `mcts:eval=value` with the best network —
     in the arena's C++ threads or on a Ray cluster (`address`), into games-G-Np.npz; and as many
     played by the last candidate if it was not promoted (explore-G-Np.npz). A network learns
     from the best player's games what good play leads to, but the search it guides reaches
     positions those games never show (an early farmer it overvalues, say); its own games put
     those positions into the data, with the results they really lead to;
  2. training: the best network's weights (fresh ones at first) trained on the last `replay`
     generations' positions, a tenth of the games held out; the epoch with the lowest held-out
     error in points is the candidate, candidate-G.value;
  3. gating: the candidate in one seat against the best player in the others, at equal time per
     move, in paired arena games on the first player count n; it becomes the best if it wins
     more than its fair share 1/n (`gate` = "mean") or if its 95% interval lies above it
     (`gate` = "interval"); with `gate` = "none" every candidate becomes the best unplayed (the
     next generation is its own self-play, as in the runs that made the networks of several
     mixes);
  4. the ladder: the candidate against each fixed reference (ref-2026-12, greedy) in the other
     seats at the same time per move, Elo with its interval, one row per generation in
     ladder.csv (the learning curve; ladder.png plots it).
Every step's output is a file in the run folder and run.json records what is done, so rerunning
the same command after Ctrl-C (or a crash) continues where it stopped.

With `mixes` (names of carcassonne.mixes) the self-play covers a grid, every mix at every player
count, and the network is made for every mix: it reads the rules and the player count
(value_context), so one file serves every table. The gate and the ladder play the first mix.
"""

from __future__ import annotations

import csv
import math
import os
import shutil
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from .. import SearchError, arena
from ..mixes import DEFAULT_MIXES, find_mix
from ..rl.trajectories import write_trajectories
from .loop import Run
from .value import (
    EVERY_MIX,
    EVERY_MIX_INPUTS,
    ValueMLP,
    ValueSamples,
    export,
    fit,
    load_value_samples,
    mix_name,
)

LADDER_FIELDS = [
    "generation",
    "promoted",
    "gate_win_rate",
    "gate_low",
    "gate_high",
    "opponent",
    "win_rate",
    "win_low",
    "win_high",
    "elo",
    "elo_low",
    "elo_high",
    "games",
    "held_points_rmse",
    "held_winner_accuracy",
    "samples",
]


@dataclass
class ValueLoopConfig:
    players: tuple[int, ...] = (2,)
    expansions: tuple[str, ...] = ()
    variants: dict[str, str] = field(default_factory=dict)
    mixes: tuple[str, ...] = ()  # a grid of named mixes (carcassonne.mixes): a network of every mix
    generations: int = 3
    deals: int = 100  # per mix, player count and generation
    later_deals: int = 0  # the same from generation 2 on (0: `deals`)
    iterations: int = 300  # self-play search iterations per move
    replay: int = 2  # generations of games in the training window
    epochs: int = 20
    every: int = 2  # keep every this-many-th position of a game
    search_weight: float = 0.0  # targets: this share from the self-play search's root estimates
    gate_deals: int = 40
    gate: str = "mean"  # "mean", "interval" or "none" (every candidate is promoted unplayed)
    time: float = 0.05  # seconds per move of the gate and the ladder
    ladder: tuple[str, ...] = ("ref-2026-12", "greedy")
    ladder_deals: int = 20
    rollout: str = "cutoff"  # how the value is used: "cutoff" (eval=value) or "none" (rollout=none)
    seed: int = 0
    threads: int = 2
    # A VALUE file (with its .pt weights beside it, optionally) that starts as the best player:
    # generation 1 is then its own self-play, and training starts from its weights (the .pt's,
    # else the file's own).
    start: str = ""

    def check(self) -> None:
        if not self.players or any(not 2 <= n <= 6 for n in self.players):
            raise SearchError(f"players must be counts from 2 to 6, got {self.players}")
        if self.gate not in GATES:
            raise SearchError(f"gate must be one of {', '.join(GATES)}, got {self.gate!r}")
        if self.rollout not in ("cutoff", "none"):
            raise SearchError(f"rollout must be 'cutoff' or 'none', got {self.rollout!r}")
        for name in (
            "generations",
            "deals",
            "iterations",
            "replay",
            "epochs",
            "every",
            "gate_deals",
            "threads",
        ):
            if getattr(self, name) < 1:
                raise SearchError(f"{name} must be at least 1, got {getattr(self, name)}")
        if self.later_deals < 0:
            raise SearchError(f"later_deals must be at least 0, got {self.later_deals}")
        if not self.time > 0:
            raise SearchError(f"time must be > 0, got {self.time}")
        if not 0.0 <= self.search_weight <= 1.0:
            raise SearchError(f"search_weight must lie in [0, 1], got {self.search_weight}")
        mix_name(self.expansions, self.variants)
        if self.mixes and (self.expansions or self.variants):
            raise SearchError("give either mixes (a grid) or expansions and variants (one mix), not both")
        if len(set(self.mixes)) != len(self.mixes):
            raise SearchError(f"a mix is given twice: {list(self.mixes)}")
        for name in self.mixes:
            find_mix(name)
        if self.start:
            self.check_network("start", self.start)

    def check_network(self, what: str, path: str) -> None:
        """A network the run can play and train on: a VALUE file, for every mix if the run is."""
        from .. import _core

        try:
            net = _core.ValueNet(path)
        except Exception as e:
            raise SearchError(f"{what}: {path} is not a value network: {e}") from e
        if net.every_mix != bool(self.mixes):
            kind = "for every mix" if net.every_mix else "not for every mix"
            raise SearchError(f"{what}: {net.describe()} is {kind}, unlike the run")

    def deals_of(self, generation: int) -> int:
        """Self-play deals per mix and player count in this generation."""
        return self.later_deals if generation > 1 and self.later_deals else self.deals

    def cells(self) -> list[tuple[str, tuple[str, ...], dict[str, str]]]:
        """The mixes self-play covers: (name for file names, expansions, variants). One mix
        without a grid, named ''."""
        if not self.mixes:
            return [("", self.expansions, dict(self.variants))]
        return [(m.name, m.expansions, dict(m.variants)) for m in map(find_mix, self.mixes)]


ALL_MIXES = tuple(m.name for m in DEFAULT_MIXES)  # `mixes` of the grid of every table
GATES = ("mean", "interval", "none")


def value_agent(network: Path | None, budget: str, rollout: str = "cutoff") -> str:
    """The agent spec of the search with this value network (None: the rollout search)."""
    if network is None:
        return f"mcts:{budget},eval=greedy"
    none = ",rollout=none" if rollout == "none" else ""
    return f"mcts:{budget},eval=value{none},value={network}"


def _match(
    agents: list[str],
    config: ValueLoopConfig,
    cell: tuple[str, tuple[str, ...], dict[str, str]],
    players: int,
    deals: int,
    seed: int,
    path: Path,
    progress: bool,
) -> Any:
    """Paired arena games, one deal more per call (for the bar), each game kept in `path` as it
    ends (Ctrl-C loses only the games in play)."""
    from tqdm import tqdm

    result = None
    with tqdm(total=deals, unit="deal", desc=path.stem, disable=not progress) as bar:
        for n in range(1, deals + 1):
            result = arena(
                agents,
                deals=n,
                players=players,
                expansions=cell[1],
                variants=cell[2],
                seed=seed,
                threads=config.threads,
                csv=path,
                resume=path.exists(),
            )
            bar.update(1)
    return result


def seat_elo(p: float, players: int = 2) -> float:
    """The Elo difference of one seat winning a share p of the games against players - 1 equal
    opponents (a Bradley-Terry strength s with p = s / (s + players - 1)); 0 at p = 1/players."""
    p = min(max(p, 1e-3), 1 - 1e-3)
    return 400 * math.log10(p * (players - 1) / (1 - p))


def gate_passed(win_rate: float, win_low: float, players: int, gate: str) -> bool:
    """Whether a candidate in one seat of `players` beat the best player in the others: its win
    share (`gate` = "mean") or the low end of its 95% interval ("interval") above the fair share."""
    fair = 1 / players
    return win_low > fair if gate == "interval" else win_rate > fair


def run(
    directory: str | os.PathLike[str],
    config: ValueLoopConfig,
    progress: bool = True,
    address: str | None = None,
    best: str | os.PathLike[str] | None = None,
) -> dict[str, Any]:
    """Runs (or continues) the loop in `directory`; returns run.json's content. The best network
    is best.value in the folder (a copy of its candidate-G.value).

    `best`: a network that becomes the best player from the next step the run has not done (its
    next self-play, the start of its next training, the next gate's opponent), e.g. the last
    candidate re-stamped with a guess share by `value-serve`. It is copied into the folder as
    given-K.value (with its .pt, if beside it) and run.json lists it under "given"; a file given
    before (a rerun of the same command) or the best player itself changes nothing."""
    config.check()
    r = Run(directory, config)
    if best is not None:
        _give_best(r, config, Path(best))
    if config.start and r.state["best"] is None and not r.state["done"]:
        # The given network is the best player from the start (kept in the run's folder).
        given = Path(config.start)
        for suffix in (".value", ".pt"):
            if given.with_suffix(suffix).exists():
                shutil.copyfile(given.with_suffix(suffix), (r.dir / "start").with_suffix(suffix))
        r.state["best"] = str(r.dir / "start.value")
        r.save()
    mix = EVERY_MIX if config.mixes else mix_name(config.expansions, config.variants)
    cells = config.cells()
    first = config.players[0]

    def step_name(kind: str, g: int, cell: str, n: int) -> str:
        return f"{kind}-{g}-{cell}-{n}p" if cell else f"{kind}-{g}-{n}p"

    for g in range(1, config.generations + 1):
        best = Path(r.state["best"]) if r.state["best"] else None
        budget = f"iters={config.iterations}"
        # 1. Self-play by the best player so far, and by the last candidate if it was not promoted.
        last = r.dir / f"candidate-{g - 1}.value"
        players = [("games", best)]
        if g > 1 and not r.state["done"][f"gate-{g - 1}"]["promoted"]:
            players.append(("explore", last))
        for (kind, network), (c, (cell, expansions, variants)), n in (
            (p, c, n) for p in players for c in enumerate(cells) for n in config.players
        ):
            step = step_name(kind, g, cell, n)
            if not r.done(step):
                out = r.dir / f"{step}.npz"
                write_trajectories(
                    out,
                    agents=[value_agent(network, budget + ",memory=64", config.rollout)] * n,
                    deals=config.deals_of(g),
                    players=n,
                    expansions=expansions,
                    variants=variants,
                    seed=config.seed * 100_000 + g * 1000 + 10 * c + n,
                    agent_seed=config.seed * 100_000 + g * 1000 + 10 * c + n + 500,
                    threads=config.threads,
                    chunk_deals=max(1, config.deals_of(g) // 20),
                    progress=progress,
                    address=address,
                )
                r.mark(step, str(out))
        # 2. Training on the replay window.
        candidate = r.dir / f"candidate-{g}.value"
        if not r.done(f"train-{g}"):
            steps = [
                step_name(kind, h, cell, n)
                for h in range(max(1, g - config.replay + 1), g + 1)
                for kind in ("games", "explore")
                for cell, _, _ in cells
                for n in config.players
            ]
            files = [r.state["done"][step] for step in steps if step in r.state["done"]]
            samples: ValueSamples = load_value_samples(
                files, every=config.every, progress=progress, search_weight=config.search_weight
            )
            start = ValueMLP(inputs=EVERY_MIX_INPUTS) if config.mixes else None
            if best is not None and best.with_suffix(".pt").exists():
                start = ValueMLP.from_state_dict(torch.load(best.with_suffix(".pt")))
            elif best is not None:  # a start file without its PyTorch weights (a shipped one)
                start = ValueMLP.from_value_file(best, samples)
            model, report = fit(samples, start, epochs=config.epochs, seed=config.seed + g, progress=progress)
            export(model, candidate, mix, config.players)
            torch.save(model.state_dict(), candidate.with_suffix(".pt"))
            r.mark(f"train-{g}", {**asdict(report), "samples": len(samples)})
        # 3. Gate: candidate against the best player at equal time.
        timed = f"time={config.time}"
        if not r.done(f"gate-{g}") and config.gate == "none":
            r.mark(f"gate-{g}", {"win_rate": None, "low": None, "high": None, "games": 0, "promoted": True})
            _promote(r, candidate)
        if not r.done(f"gate-{g}"):
            agents = [value_agent(candidate, timed, config.rollout)] + [
                value_agent(best, timed, config.rollout)
            ] * (first - 1)
            result = _match(
                agents,
                config,
                cells[0],
                first,
                config.gate_deals,
                config.seed * 1000 + 500 + g,
                r.dir / f"gate-{g}.csv",
                progress,
            )
            e = result.entrants[0]
            promoted = gate_passed(e.win_rate, e.win_low, first, config.gate)
            r.mark(
                f"gate-{g}",
                {
                    "win_rate": e.win_rate,
                    "low": e.win_low,
                    "high": e.win_high,
                    "games": e.games,
                    "promoted": bool(promoted),
                },
            )
            if promoted:
                _promote(r, candidate)
        # 4. The ladder: the candidate against fixed references.
        for opponent in config.ladder:
            step = f"ladder-{g}-{opponent}"
            if r.done(step):
                continue
            spec = opponent if ":" in opponent or opponent in ("greedy", "random") else f"{opponent}:{timed}"
            agents = [value_agent(candidate, timed, config.rollout)] + [spec] * (first - 1)
            result = _match(
                agents,
                config,
                cells[0],
                first,
                config.ladder_deals,
                config.seed * 1000 + 700,
                r.dir / f"ladder-{g}-{opponent.split(':')[0]}.csv",
                progress,
            )
            e = result.entrants[0]
            r.mark(step, {"win_rate": e.win_rate, "low": e.win_low, "high": e.win_high, "games": e.games})
        _write_ladder(r)
    return r.state


def _give_best(r: Run, config: ValueLoopConfig, given: Path) -> None:
    config.check_network("best", str(given))
    # A rerun of the same command gives nothing again, even after later generations promoted
    # their candidates; nor does giving the best player itself.
    data = given.read_bytes()
    earlier = [Path(g["as"]) for g in r.state.setdefault("given", [])]
    if r.state["best"]:
        earlier.append(Path(r.state["best"]))
    if any(f.exists() and f.read_bytes() == data for f in earlier):
        return
    copy = r.dir / f"given-{len(r.state['given']) + 1}.value"
    shutil.copyfile(given, copy)
    if given.with_suffix(".pt").exists():
        shutil.copyfile(given.with_suffix(".pt"), copy.with_suffix(".pt"))
    r.state["given"].append({"file": str(given), "as": str(copy), "after": sorted(r.state["done"])})
    _promote(r, copy)


def _promote(r: Run, candidate: Path) -> None:
    """The candidate becomes the best player. Later games and gates name its own file, which
    nothing overwrites, so a games file's agents pin the network that played; best.value (and its
    weights) is a copy of it for the user."""
    for suffix in (".value", ".pt"):
        if candidate.with_suffix(suffix).exists():
            shutil.copyfile(candidate.with_suffix(suffix), (r.dir / "best").with_suffix(suffix))
        else:  # a given network without its weights: no stale copy of another's
            (r.dir / "best").with_suffix(suffix).unlink(missing_ok=True)
    r.state["best"] = str(candidate)
    r.save()


def _write_ladder(r: Run) -> None:
    """ladder.csv and ladder.png from run.json: one row per generation and reference."""
    done = r.state["done"]
    players = r.state["config"]["players"][0]  # the count the gate and the ladder play
    rows = []
    for g in range(1, r.state["config"]["generations"] + 1):
        gate, train = done.get(f"gate-{g}"), done.get(f"train-{g}")
        if not gate or not train:
            break
        for opponent in r.state["config"]["ladder"]:
            x = done.get(f"ladder-{g}-{opponent}")
            if not x:
                continue
            rows.append(
                {
                    "generation": g,
                    "promoted": gate["promoted"],
                    # Empty when no gate was played (gate "none").
                    **{
                        f"gate_{key}": "" if gate[key] is None else round(gate[key], 4)
                        for key in ("win_rate", "low", "high")
                    },
                    "opponent": opponent,
                    "win_rate": round(x["win_rate"], 4),
                    "win_low": round(x["low"], 4),
                    "win_high": round(x["high"], 4),
                    "elo": round(seat_elo(x["win_rate"], players), 1),
                    "elo_low": round(seat_elo(x["low"], players), 1),
                    "elo_high": round(seat_elo(x["high"], players), 1),
                    "games": x["games"],
                    "held_points_rmse": round(train["held_points_rmse"], 2),
                    "held_winner_accuracy": round(train["held_winner_accuracy"], 4),
                    "samples": train["samples"],
                }
            )
    with open(r.dir / "ladder.csv", "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=LADDER_FIELDS)
        w.writeheader()
        w.writerows(rows)
    if rows:
        plot_ladder(rows, r.dir / "ladder.png", players)


def plot_ladder(rows: list[dict[str, Any]], png: Path, players: int = 2) -> None:
    """Each generation's candidate: its win rate against each reference and against the best
    player in the gate, with 95% intervals (win rates, not Elo: a clean sweep has no finite Elo),
    and the fair share of its one seat among `players`."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7.5, 3.5))
    lines: dict[str, list[tuple[int, float, float, float]]] = {}
    for row in rows:
        g = row["generation"]
        lines.setdefault(f"against {row['opponent']}", []).append(
            (g, row["win_rate"], row["win_low"], row["win_high"])
        )
        if row["gate_win_rate"] == "":
            continue
        gate = lines.setdefault("against the best player (gate)", [])
        if not gate or gate[-1][0] != g:
            gate.append((g, row["gate_win_rate"], row["gate_low"], row["gate_high"]))
    for label, points in lines.items():
        gens, rate, low, high = (list(x) for x in zip(*points, strict=True))
        err = [
            [r - lo for r, lo in zip(rate, low, strict=True)],
            [hi - r for r, hi in zip(rate, high, strict=True)],
        ]
        ax.errorbar(gens, rate, yerr=err, marker="o", capsize=4, label=label)
    ax.axhline(1 / players, color="grey", lw=0.8, ls="--", label=f"fair share of one seat (1/{players})")
    ax.set_ylim(0, 1.02)
    ax.set_xlabel("generation")
    ax.set_ylabel("win rate (95% interval)")
    ax.set_xticks(sorted({row["generation"] for row in rows}))
    ax.legend(fontsize=8, loc="upper left", bbox_to_anchor=(1.01, 1))  # beside: never on a point
    fig.tight_layout()
    fig.savefig(png, dpi=110)
    plt.close(fig)
