"""Masked PPO on the C++ vector environment, in one file (CleanRL style).

The learner plays 2-player base Carcassonne against the built-in `random` agent in
`carcassonne.rl.vector.CarcassonneVectorEnv` (frontier action layout: every legal action has an
index), with illegal actions masked out of the policy. Every `--eval-every` updates it plays
paired games (each deal once from each seat) against `random` and `greedy` and prints its win
share with a 95% interval over the deals.

    python experiments/ppo.py                                  # the default run (docs/research.md)
    python experiments/ppo.py --updates 2 --num-envs 4 --num-steps 16 --eval-deals 4   # a smoke run
    python experiments/ppo.py --plot docs/images/ppo-curve.png --out curve.json
    python -c "import json, ppo; ppo.plot(json.load(open('curve.json')), 'curve.png')"   # redraw

The network: a small convolution over the planes; a placement's four rotations are scored from
the convolution's features at its frontier cell (the observation's "frontier" entry says where
that cell is), every other index by a linear head over pooled features and the globals.
"""

from __future__ import annotations

import argparse
import copy
import json
import math
import time
from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
from torch import nn

from carcassonne import rl
from carcassonne.rl.vector import CarcassonneVectorEnv

LAYOUT = "frontier"
PLACE_START, PLACE_SIZE = next(
    (start, size) for name, start, size in rl.action_space(layout=LAYOUT).blocks if name == "place"
)
ILLEGAL_LOGIT = -1.0e9


def parse_args(argv: Sequence[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--updates", type=int, default=60, help="PPO updates (each one rollout)")
    p.add_argument("--num-envs", type=int, default=16, help="games stepped together")
    p.add_argument("--num-steps", type=int, default=128, help="learner decisions per game per rollout")
    p.add_argument(
        "--window",
        type=int,
        default=16,
        help="observation window side (frontier cells outside it score from the pooled head)",
    )
    p.add_argument("--channels", type=int, default=32)
    p.add_argument("--hidden", type=int, default=128)
    p.add_argument("--lr", type=float, default=3e-4)
    p.add_argument("--gamma", type=float, default=1.0, help="the only reward is the final win share")
    p.add_argument("--gae-lambda", type=float, default=0.95)
    p.add_argument("--epochs", type=int, default=4)
    p.add_argument("--minibatches", type=int, default=4)
    p.add_argument("--clip", type=float, default=0.2)
    p.add_argument("--ent-coef", type=float, default=0.01)
    p.add_argument("--vf-coef", type=float, default=0.5)
    p.add_argument("--max-grad-norm", type=float, default=0.5)
    p.add_argument(
        "--eval-every", type=int, default=10, help="updates between evaluations (0: only at the end)"
    )
    p.add_argument(
        "--eval-deals", type=int, default=100, help="deals per evaluation and opponent (2 games each)"
    )
    p.add_argument(
        "--opponents",
        default="random,greedy",
        help='agent specs to evaluate against; "initial": the untrained policy, frozen (a Python opponent)',
    )
    p.add_argument("--seed", type=int, default=1)
    p.add_argument("--threads", type=int, default=1, help="torch threads (the machine is shared)")
    p.add_argument("--out", help="write the curve and the arguments here (JSON)")
    p.add_argument("--plot", help="draw the curve into this PNG")
    return p.parse_args(argv)


def symlog(x: torch.Tensor) -> torch.Tensor:
    """Globals range from flags to scores in the hundreds: squash them, keeping the sign."""
    return torch.sign(x) * torch.log1p(x.abs())


class Agent(nn.Module):
    def __init__(
        self, planes: int, globals_: int, actions: int, window: int, channels: int, hidden: int
    ) -> None:
        super().__init__()
        self.window = window
        self.trunk = nn.Sequential(
            nn.Conv2d(planes, channels, 1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
            nn.Conv2d(channels, channels, 3, padding=1),
            nn.ReLU(),
        )
        self.body = nn.Sequential(
            nn.Linear(2 * channels + globals_, hidden), nn.ReLU(), nn.Linear(hidden, hidden), nn.ReLU()
        )
        self.policy = nn.Linear(hidden, actions)
        self.place = nn.Linear(channels, 4)  # a frontier cell's features -> its four rotations
        self.value = nn.Linear(hidden, 1)
        nn.init.zeros_(self.policy.weight)  # start near uniform over the legal actions
        nn.init.zeros_(self.policy.bias)

    def forward(
        self, planes: torch.Tensor, globals_: torch.Tensor, frontier: torch.Tensor
    ) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits [B, actions], value [B]) without the mask."""
        features = self.trunk(planes.float())  # [B, C, W, W]
        pooled = torch.cat([features.mean((2, 3)), features.amax((2, 3))], 1)
        h = self.body(torch.cat([pooled, symlog(globals_)], 1))
        logits = self.policy(h)
        w = self.window
        rows, cols = frontier[..., 0].long(), frontier[..., 1].long()  # [B, cells]; NO_CELL past the count
        inside = (rows >= 0) & (rows < w) & (cols >= 0) & (cols < w)
        flat = rows.clamp(0, w - 1) * w + cols.clamp(0, w - 1)
        at_cells = features.flatten(2).gather(2, flat.unsqueeze(1).expand(-1, features.shape[1], -1))
        place = self.place(at_cells.transpose(1, 2) * inside.unsqueeze(-1)).flatten(
            1
        )  # [B, 4 * cells]: c * 4 + r
        end = PLACE_START + PLACE_SIZE
        logits = torch.cat([logits[:, :PLACE_START], logits[:, PLACE_START:end] + place, logits[:, end:]], 1)
        return logits, self.value(h).squeeze(-1)

    def masked(self, obs: dict[str, torch.Tensor]) -> tuple[torch.Tensor, torch.Tensor]:
        """(logits with every illegal index at ILLEGAL_LOGIT, value)."""
        logits, value = self(obs["planes"], obs["globals"], obs["frontier"])
        return logits.masked_fill(obs["action_mask"] == 0, ILLEGAL_LOGIT), value


def as_tensors(obs: dict[str, np.ndarray]) -> dict[str, torch.Tensor]:
    return {k: torch.from_numpy(obs[k]) for k in ("planes", "globals", "action_mask", "frontier")}


@torch.no_grad()
def best_actions(agent: Agent, obs: dict[str, np.ndarray]) -> np.ndarray:
    """The most likely legal action of each game (evaluation plays greedily)."""
    logits, _ = agent.masked(as_tensors(obs))
    return logits.argmax(1).numpy()


def frozen_opponent(agent: Agent) -> Callable[[dict[str, np.ndarray], np.ndarray], np.ndarray]:
    """A copy of the agent as it is now, as the vector environment's Python opponent: one call
    chooses for every game where an opponent is to move."""
    frozen = copy.deepcopy(agent)
    return lambda observations, masks: best_actions(frozen, observations)


def evaluate(
    agent: Agent, opponent: str | Callable[..., Any], deals: int, seed: int, window: int
) -> tuple[float, float]:
    """(win share, 95% half-width) over `deals` deals, each played once from each seat: the two
    environments share their seed, so slot i's first game has the same tiles in both."""
    shares = np.zeros((deals, 2))
    for seat in (0, 1):
        env = CarcassonneVectorEnv(deals, opponents=opponent, seat=seat, window=window, layout=LAYOUT)
        obs, _ = env.reset(seed=seed)
        finished = np.zeros(deals, bool)
        while not finished.all():
            obs, reward, terminated, _, _ = env.step(best_actions(agent, obs))
            first = terminated & ~finished
            shares[first, seat] = reward[first]
            finished |= terminated
    per_deal = shares.mean(1)
    half = 1.96 * per_deal.std(ddof=1) / math.sqrt(deals) if deals > 1 else float("nan")
    return float(per_deal.mean()), float(half)


@dataclass
class Point:
    update: int
    decisions: int  # learner decisions trained on so far
    games: int  # training games finished so far
    cpu_seconds: float
    results: dict[str, tuple[float, float]]  # opponent -> (win share, 95% half-width)


@dataclass
class Stats:
    policy_loss: float
    value_loss: float
    entropy: float
    train_win_share: float  # of the games that ended during the rollout


def train(args: argparse.Namespace) -> tuple[list[Point], list[Stats]]:
    torch.set_num_threads(args.threads)
    torch.manual_seed(args.seed)
    np.random.seed(args.seed)
    env = CarcassonneVectorEnv(args.num_envs, opponents=["random"], window=args.window, layout=LAYOUT)
    obs, _ = env.reset(seed=args.seed)
    agent = Agent(
        env.plane_shape[0], obs["globals"].shape[1], env.num_actions, args.window, args.channels, args.hidden
    )
    optimizer = torch.optim.Adam(agent.parameters(), lr=args.lr, eps=1e-5)
    initial = frozen_opponent(agent)
    opponents = {o: initial if o == "initial" else o for o in args.opponents.split(",") if o}
    eval_seed = args.seed + 1_000_003  # the same deals at every evaluation

    n, t_max = args.num_envs, args.num_steps
    buffers = {k: np.zeros((t_max, *v.shape), v.dtype) for k, v in obs.items() if k != "tiles"}
    actions = torch.zeros((t_max, n), dtype=torch.long)
    logprobs, rewards, dones, values = (torch.zeros((t_max, n)) for _ in range(4))
    next_done = torch.zeros(n)
    points: list[Point] = []
    history: list[Stats] = []
    decisions = games = 0
    cpu_start = time.process_time()

    def checkpoint(update: int) -> None:
        results = {
            name: evaluate(agent, o, args.eval_deals, eval_seed, args.window) for name, o in opponents.items()
        }
        points.append(Point(update, decisions, games, time.process_time() - cpu_start, results))
        shown = "  ".join(f"vs {o} {s:.3f} ± {h:.3f}" for o, (s, h) in results.items())
        print(
            f"eval update {update:4d}  decisions {decisions:8d}  games {games:6d}  "
            f"cpu {points[-1].cpu_seconds:7.1f}s  {shown}",
            flush=True,
        )

    checkpoint(0)
    for update in range(1, args.updates + 1):
        ended: list[float] = []
        for t in range(t_max):
            for k in buffers:
                buffers[k][t] = obs[k]
            dones[t] = next_done
            with torch.no_grad():
                logits, value = agent.masked(as_tensors(obs))
            dist = torch.distributions.Categorical(logits=logits)
            action = dist.sample()
            actions[t], logprobs[t], values[t] = action, dist.log_prob(action), value
            obs, reward, terminated, _, _ = env.step(action.numpy())
            rewards[t] = torch.from_numpy(reward)
            next_done = torch.from_numpy(terminated.astype(np.float32))
            ended.extend(reward[terminated].tolist())
        decisions += n * t_max
        games += len(ended)

        with torch.no_grad():  # generalised advantage estimation (same-step autoreset: done marks a new game)
            _, next_value = agent.masked(as_tensors(obs))
            advantages = torch.zeros((t_max, n))
            last = torch.zeros(n)
            for t in reversed(range(t_max)):
                nonterminal = 1.0 - (next_done if t == t_max - 1 else dones[t + 1])
                following = next_value if t == t_max - 1 else values[t + 1]
                delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                last = delta + args.gamma * args.gae_lambda * nonterminal * last
                advantages[t] = last
            returns = advantages + values

        flat = {k: torch.from_numpy(v.reshape(t_max * n, *v.shape[2:])) for k, v in buffers.items()}
        b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
        b_advantages, b_returns = advantages.reshape(-1), returns.reshape(-1)
        batch = t_max * n
        size = batch // args.minibatches
        for _ in range(args.epochs):
            order = torch.randperm(batch)
            for start in range(0, batch - size + 1, size):
                idx = order[start : start + size]
                logits, value = agent.masked({k: v[idx] for k, v in flat.items()})
                dist = torch.distributions.Categorical(logits=logits)
                ratio = (dist.log_prob(b_actions[idx]) - b_logprobs[idx]).exp()
                adv = b_advantages[idx]
                adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                policy_loss = torch.max(-adv * ratio, -adv * ratio.clamp(1 - args.clip, 1 + args.clip)).mean()
                value_loss = 0.5 * (value - b_returns[idx]).pow(2).mean()
                entropy = dist.entropy().mean()
                loss = policy_loss + args.vf_coef * value_loss - args.ent_coef * entropy
                optimizer.zero_grad()
                loss.backward()
                nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                optimizer.step()
        win_share = float(np.mean(ended)) if ended else float("nan")
        history.append(Stats(policy_loss.item(), value_loss.item(), entropy.item(), win_share))
        print(
            f"update {update:4d}  policy {policy_loss.item():+.4f}  value {value_loss.item():.4f}  "
            f"entropy {entropy.item():.3f}  games {len(ended):3d}  "
            f"win share vs random (training) {win_share:.3f}",
            flush=True,
        )
        if update == args.updates or (args.eval_every and update % args.eval_every == 0):
            checkpoint(update)
    return points, history


def plot(summary: dict[str, Any], path: str) -> None:
    """The curve of a run's summary (main's result, or its --out file): the evaluations with
    their intervals, and the sampled policy's win share in training (5-update mean)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    curve, args = summary["curve"], summary["args"]
    fig, ax = plt.subplots(figsize=(7.5, 4.2))
    x = np.array([p["decisions"] for p in curve]) / 1000
    for opponent in curve[0]["results"]:
        share = np.array([p["results"][opponent][0] for p in curve])
        half = np.array([p["results"][opponent][1] for p in curve])
        ax.plot(
            x,
            share,
            marker="o",
            label=f"most likely action, against {opponent} ({2 * args['eval_deals']} games)",
        )
        ax.fill_between(x, share - half, share + half, alpha=0.2)
    training = np.array([s["train_win_share"] for s in summary["updates"]])
    if len(training) >= 5:
        smooth = np.convolve(training, np.ones(5) / 5, mode="valid")
        steps = args["num_envs"] * args["num_steps"] / 1000
        ax.plot(
            steps * np.arange(5, len(training) + 1),
            smooth,
            color="grey",
            label="sampled actions, against random (training, 5-update mean)",
        )
    ax.axhline(0.5, color="grey", linewidth=0.8, linestyle="--")
    ax.set_ylim(-0.02, 1.02)
    ax.set_xlabel("learner decisions trained on (thousands)")
    ax.set_ylabel("win share (95% interval over paired deals)")
    ax.set_title("Masked PPO, 2-player base game, trained against random")
    ax.legend(loc="center right", fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)


def main(argv: Sequence[str] | None = None) -> dict[str, Any]:
    args = parse_args(argv)
    points, history = train(args)
    summary = {
        "args": vars(args),
        "curve": [asdict(p) for p in points],
        "updates": [asdict(s) for s in history],
    }
    if args.out:
        with open(args.out, "w") as f:
            json.dump(summary, f, indent=1)
    if args.plot:
        plot(summary, args.plot)
    return summary


if __name__ == "__main__":
    main()
