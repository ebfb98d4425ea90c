"""experiments/ppo.py, the maintained PPO example, runs at a tiny size: its losses are finite, its
masked policy never picks an illegal action, and its evaluation gives win shares in [0, 1]."""

from __future__ import annotations

import importlib.util
import math
import sys
from pathlib import Path
from types import ModuleType

import numpy as np
import pytest

torch = pytest.importorskip("torch")
pytest.importorskip("gymnasium")

SCRIPT = Path(__file__).resolve().parents[2] / "experiments" / "ppo.py"


def load_script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("ppo_example", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up
    spec.loader.exec_module(module)
    return module


TINY = ["--updates", "2", "--num-envs", "4", "--num-steps", "16", "--window", "8"]
TINY += ["--channels", "8", "--hidden", "16", "--eval-deals", "2", "--eval-every", "0"]
TINY += ["--opponents", "random,initial"]  # initial: the untrained policy as a Python opponent


def test_two_updates_train_and_evaluate(tmp_path: Path) -> None:
    ppo = load_script()
    summary = ppo.main([*TINY, "--out", str(tmp_path / "curve.json"), "--plot", str(tmp_path / "curve.png")])
    assert len(summary["updates"]) == 2
    for stats in summary["updates"]:
        assert all(math.isfinite(stats[k]) for k in ("policy_loss", "value_loss", "entropy"))
    curve = summary["curve"]
    assert [p["update"] for p in curve] == [0, 2]  # before training and at the end
    assert curve[-1]["decisions"] == 2 * 4 * 16
    assert curve[0]["results"]["initial"][0] == 0.5  # itself, on paired deals: each deal's two games split
    for point in curve:
        assert set(point["results"]) == {"random", "initial"}
        for share, half in point["results"].values():
            assert 0.0 <= share <= 1.0 and half >= 0.0
    assert (tmp_path / "curve.json").stat().st_size > 0 and (tmp_path / "curve.png").stat().st_size > 0


def test_the_masked_policy_never_picks_an_illegal_action() -> None:
    """Sampled and greedy choices of an untrained network (whose raw logits favour no legal
    action) fall inside the mask at every node of a few games."""
    ppo = load_script()
    torch.manual_seed(0)
    envs = ppo.CarcassonneVectorEnv(4, opponents=["random"], window=8, layout=ppo.LAYOUT)
    obs, _ = envs.reset(seed=4)
    agent = ppo.Agent(envs.plane_shape[0], obs["globals"].shape[1], envs.num_actions, 8, 8, 16)
    with torch.no_grad():
        agent.policy.bias.fill_(0.0)
        agent.policy.bias[np.flatnonzero(obs["action_mask"].sum(0) == 0)[:50]] = 1e6  # huge on illegal ones
    for _ in range(60):
        with torch.no_grad():
            logits, _ = agent.masked(ppo.as_tensors(obs))
        sampled = torch.distributions.Categorical(logits=logits).sample((20,)).numpy()
        rows = np.arange(4)
        assert (obs["action_mask"][rows, sampled] == 1).all()
        best = ppo.best_actions(agent, obs)
        assert (obs["action_mask"][rows, best] == 1).all()
        obs = envs.step(best)[0]
