"""The learned evaluator: the C++ network (search/network.h) against PyTorch, the
CARCNET file's validation, the eval=net agent, and the training loop end to end at a tiny size."""

from __future__ import annotations

import csv
import json
from pathlib import Path

import numpy as np
import pytest
import torch  # the `learn` extra (tools/deps.sh installs it for CI)

from carcassonne import Game, SearchError, _core, arena, rl
from carcassonne.learn.net import PolicyValueNet, export

SHIPPED = Path(_core.default_network_path())


def _random_net(players: int = 2, seed: int = 0) -> PolicyValueNet:
    torch.manual_seed(seed)
    net = PolicyValueNet(players, channels=(8, 8, 16), hidden=16)
    with torch.no_grad():  # larger than the initial weights: every unit active somewhere
        for p in net.parameters():
            p.add_(torch.randn_like(p) * 0.2)
        net.global_scale.uniform_(0.01, 0.5)
    return net


def _positions(
    players: int, expansions: tuple[str, ...] = (), count: int = 24, seed: int = 5, every: int = 1
) -> list[Game]:
    """Every `every`-th decision node of a game played with varied choices (figures, passes and
    placements)."""
    game = Game(players, expansions, seed=seed)
    out: list[Game] = []
    i = 0
    while len(out) < count and not game.is_terminal:
        if game.is_chance:
            game.apply_random_chance()
            continue
        if i % every == 0:
            out.append(game.clone())
        legal = game.legal_actions()
        game.apply(legal[(i * 7) % len(legal)])
        i += 1
    return out


@pytest.mark.parametrize(("players", "expansions"), [(2, ()), (3, ("abbey-mayor", "anniv20"))])
def test_cpp_forward_matches_pytorch(tmp_path: Path, players: int, expansions: tuple[str, ...]) -> None:
    net = _random_net(players)
    path = export(net, tmp_path / "random.carcnet")
    cpp = _core.Network(str(path))
    # Openings and a whole game's later boards: the C++ pass computes the convolutions only where
    # the board reaches, so small and large boards take different paths.
    games = _positions(players, expansions) + _positions(players, expansions, count=20, every=9)
    planes, globals_ = rl.encode_batch(games)
    indices = np.array(
        sorted({i for g in games for i in rl.legal_indices(g, layout="window")}), dtype=np.int64
    )
    win, margin, logits = cpp.forward(planes, globals_, indices)  # batch of all
    with torch.no_grad():
        t_win, t_margin, t_logits = net(
            torch.as_tensor(planes, dtype=torch.float32), torch.as_tensor(globals_)
        )
    np.testing.assert_allclose(win, torch.softmax(t_win, 1).numpy(), atol=1e-5)
    np.testing.assert_allclose(margin, t_margin.numpy(), atol=1e-5)
    np.testing.assert_allclose(logits, t_logits.numpy()[:, indices], atol=1e-4, rtol=1e-4)
    assert np.ptp(logits) > 1  # the check compared something that varies
    one = cpp.forward(planes[:1], globals_[:1], indices)  # batch 1 gives the batch's first row
    np.testing.assert_allclose(one[2][0], logits[0], atol=1e-5)


def test_bad_files_raise_search_error(tmp_path: Path) -> None:
    good = export(_random_net(), tmp_path / "good.carcnet").read_bytes()
    cases = {
        "missing": None,
        "empty": b"",
        "magic": b"NOTANET\0" + good[8:],
        "version": good[:8] + (99).to_bytes(4, "little") + good[12:],
        "short": good[:-4],
        "long": good + b"\0\0\0\0",
        "header": good.replace(b"hidden 16", b"hidden 17"),
        "nan": good[:-4] + np.array([np.nan], "<f4").tobytes(),
    }
    for name, data in cases.items():
        path = tmp_path / f"{name}.carcnet"
        if data is not None:
            path.write_bytes(data)
        with pytest.raises(SearchError, match="network file"):
            _core.Network(str(path))
    three = export(_random_net(players=3), tmp_path / "three.carcnet")
    game = Game(2, seed=1)
    game.apply_random_chance()
    with pytest.raises(SearchError, match="for 3 players"):  # a search over a 2-player game
        _core.choose_action(game.core_state(), f"mcts:eval=net,net={three},iters=10")


def test_shipped_network_plays_as_an_agent() -> None:
    assert SHIPPED.exists(), "the shipped network is missing"
    net = _core.Network(str(SHIPPED))
    assert (net.players, net.window) == (2, rl.DEFAULT_WINDOW)
    assert SHIPPED.stat().st_size < 1_000_000
    result = arena(["mcts:eval=net,iters=30", "mcts:prior=net,iters=30,vmix=0"], deals=1, threads=1)
    assert len(result.games) == 2 and all(sum(g.scores) > 0 for g in result.games)
    with pytest.raises(SearchError, match="vmix"):
        _core.parse_mcts_options("eval=net,vmix=2")


def test_value_targets_mix_in_the_search_estimates(tmp_path: Path) -> None:
    from carcassonne.learn.data import load_samples
    from carcassonne.rl.trajectories import load_trajectories, write_trajectories

    path = write_trajectories(tmp_path / "t.npz", ["mcts:iters=40,memory=16"] * 3, deals=1, progress=False)
    final, mixed = load_samples(path), load_samples(path, search_weight=0.25)
    assert len(final) == len(mixed) > 50
    data = load_trajectories(path)
    searched = np.flatnonzero(data["visit_start"][1:] > data["visit_start"][:-1])
    assert len(searched) == len(final)
    moved = 0
    for k, i in enumerate(searched):  # 40 visits per search: no decision dropped off the window
        seats = [(mixed.observers[k] + r) % 3 for r in range(3)]
        assert np.allclose(mixed.win[k], 0.75 * final.win[k] + 0.25 * data["search_win"][i][seats], atol=1e-6)
        assert np.allclose(mixed.margin[k], 0.75 * final.margin[k] + 0.25 * data["search_reward"][i][seats])
        assert np.array_equal(mixed.result[k], final.win[k])  # accuracy is still against the final result
        moved += not np.allclose(mixed.win[k], final.win[k])
    assert moved > len(mixed) // 2  # late in a game the search may already know the result
    with pytest.raises(SearchError, match="search_weight"):
        load_samples(path, search_weight=1.5)
    old = tmp_path / "old.npz"  # a file from before the estimates were recorded
    np.savez(old, **{k: v for k, v in np.load(path).items() if not k.startswith("search_")})
    assert len(load_samples(old)) == len(final)
    with pytest.raises(SearchError, match="no search estimates"):
        load_samples(old, search_weight=0.5)


def test_training_keeps_the_epoch_of_the_lowest_held_out_loss(tmp_path: Path) -> None:
    import random

    from carcassonne.learn import loop
    from carcassonne.learn.data import Batches, load_samples
    from carcassonne.rl.trajectories import write_trajectories

    # The rollout search's games (eval=greedy): the data this seeded case was chosen on.
    path = write_trajectories(
        tmp_path / "t.npz", ["mcts:iters=20,memory=16,eval=greedy"] * 2, deals=3, progress=False
    )
    samples = load_samples(path, progress=False)
    torch.manual_seed(1)
    net = PolicyValueNet(2, channels=(4, 4, 8), hidden=8)
    held: list[float] = []
    # A large step on six games: the held-out loss goes up and down, the last epoch is not the best.
    kept = loop.train_epochs(net, samples, 6, 16, 0.05, 3, lambda e, t, h: held.append(h["loss"]), False)
    assert len(held) == 6 and kept == 1 + int(np.argmin(held)) and kept < 6
    _, valid = loop.split_games(samples, random.Random(3))  # the split train_epochs made
    again = loop.evaluate(net, Batches(samples, 2, net.window), valid, 16)["loss"]
    assert again == pytest.approx(min(held), rel=1e-5)


def _log(run: Path) -> list[dict[str, str]]:
    with open(run / "log.csv", newline="") as f:
        return list(csv.DictReader(f))


def test_training_loop_end_to_end_and_resume(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from carcassonne.__main__ import main
    from carcassonne.learn import loop

    run = tmp_path / "run"
    args = [
        "train",
        "--dir",
        str(run),
        "--generations",
        "1",
        "--games",
        "1",
        "--iterations",
        "20",
        "--epochs",
        "1",
    ]
    args += ["--gate-games", "1", "--channels", "4", "4", "8", "--hidden", "8", "--quiet"]

    def interrupted(*_: object, **__: object) -> None:
        raise KeyboardInterrupt  # Ctrl-C during training

    with monkeypatch.context() as patch:
        patch.setattr(loop, "train_epochs", interrupted)
        assert main(args) == 130
    state = json.loads((run / "run.json").read_text())
    assert list(state["done"]) == ["selfplay-0"] and state["best"] is None
    games_written = (run / "games-0.npz").stat().st_mtime_ns
    assert main(args) == 0  # continues: trains and gates, without playing the games again
    assert (run / "games-0.npz").stat().st_mtime_ns == games_written
    state = json.loads((run / "run.json").read_text())
    assert state["best"] == "candidate-0.carcnet" and _core.Network(str(run / "best.carcnet")).players == 2
    rows = _log(run)
    assert len(rows) == 1 and 0 <= float(rows[0]["policy_top1"]) <= 1 and float(rows[0]["loss"]) > 0
    assert float(rows[0]["held_loss"]) > 0 and state["done"]["train-0"] == {"epoch": 1}
    assert (run / "training.png").stat().st_size > 0
    # A second generation continues the run (network self-play, training, a gate against the best).
    assert main([*args[:4], "2", *args[5:]]) == 0
    state = json.loads((run / "run.json").read_text())
    assert [g["generation"] for g in state["gates"]] == [0, 1] and "gate-1" in state["done"]
    assert len(_log(run)) == 2
    assert main([*args[:2], str(run), "--generations", "2", "--games", "3", "--quiet"]) == 2  # other settings


def test_training_loop_runs_on_other_rule_mixes(tmp_path: Path) -> None:
    from carcassonne.__main__ import main

    run = tmp_path / "mix"
    args = ["train", "--dir", str(run), "--players", "3", "--expansions", "abbey-mayor,anniv20,king-robber"]
    args += ["--variant", "start=city", "--search-value", "0.5", "--generations", "1", "--games", "1"]
    args += ["--iters", "10"]  # the older name of --iterations
    args += ["--epochs", "1", "--gate-games", "1", "--channels", "4", "4", "8", "--hidden", "8", "--quiet"]
    assert main(args) == 0
    assert _core.Network(str(run / "best.carcnet")).players == 3
    # The variant reached the games: they start from the City (CK-0), the games file says so.
    with np.load(run / "games-0.npz") as games:
        assert json.loads(str(games["config"]))["variants"] == {"start": "city"}
    config = json.loads((run / "run.json").read_text())["config"]
    assert config["variants"] == {"start": "city"} and config["search_weight"] == 0.5
    assert config["iterations"] == 10


def test_a_run_written_with_the_older_iters_setting_continues(tmp_path: Path) -> None:
    """TrainConfig's `iters` is `iterations` now, as in the rest of the API: a run.json written
    under the old name is the same run, not one "with other settings"."""
    from dataclasses import asdict

    from carcassonne.learn.loop import Run, TrainConfig

    config = TrainConfig(iterations=30)
    old = asdict(config)
    old["iters"] = old.pop("iterations")
    old["bootstrap"] = "mcts:iters={iters},memory=64"
    (tmp_path / "run.json").write_text(
        json.dumps({"config": old, "done": {"selfplay-0": True}, "best": None})
    )
    run = Run(tmp_path, config)
    assert run.done("selfplay-0") and run.state["config"]["iterations"] == 30
    with pytest.raises(SearchError, match="other settings"):
        Run(tmp_path, TrainConfig(iterations=40))
