"""The learned value (search/value.h, learn/value.py): the C++ forward pass against PyTorch's, the
VALUE file written by export, samples replayed from trajectories, and the generation loop end to
end at a tiny size, resumed."""

from __future__ import annotations

import csv
import json
import math
import shutil
from pathlib import Path

import numpy as np
import pytest
import torch  # the `learn` extra (tools/deps.sh installs it for CI)

import carcassonne
from carcassonne import Game, IllegalActionError, Mcts, SearchError, _core, mcts_config
from carcassonne.__main__ import main
from carcassonne.learn.value import (
    EVERY_MIX,
    EVERY_MIX_INPUTS,
    INPUTS,
    SUMMARY_INPUTS,
    ValueMLP,
    ValueSamples,
    evaluate_held,
    export,
    fit,
    load_value_samples,
    mix_name,
    scores_with_margins,
)
from carcassonne.learn.value_file import restamp
from carcassonne.learn.value_loop import ValueLoopConfig, gate_passed, run, seat_elo
from carcassonne.rl.trajectories import write_trajectories


def _random_model(seed: int = 0, inputs: int = INPUTS) -> ValueMLP:
    torch.manual_seed(seed)
    model = ValueMLP(hidden1=16, hidden2=8, inputs=inputs)
    with torch.no_grad():
        for p in model.layers.parameters():
            p.add_(torch.randn_like(p) * 0.3)
        model.mean.uniform_(-0.5, 0.5)
        model.std.uniform_(0.2, 2.0)
    return model


@pytest.fixture(scope="module")
def trajectories(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("value") / "games.npz"
    return write_trajectories(path, agents=("greedy", "random"), deals=2, seed=3, progress=False)


@pytest.mark.parametrize("inputs", [INPUTS, SUMMARY_INPUTS, EVERY_MIX_INPUTS])
def test_the_cpp_forward_pass_equals_pytorchs(tmp_path: Path, trajectories: Path, inputs: int) -> None:
    samples = load_value_samples([trajectories])
    x = samples.inputs[2].reshape(-1, EVERY_MIX_INPUTS)
    assert len(x) > 200 and np.isfinite(x).all()
    # Some positions have features that can no longer close (the closing inputs are read).
    assert (x[:, _core.value_input_names().index("own figures on features that cannot close / 7")] > 0).any()
    # The context: no expansion, 2 players (one-hot from 2 to 6).
    assert (x[:, INPUTS:] == [0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0]).all()
    model = _random_model(inputs=inputs)
    mix = EVERY_MIX if inputs == EVERY_MIX_INPUTS else "base"
    path = export(model, tmp_path / "m.value", mix, [2, 3])
    net = _core.ValueNet(str(path))
    assert (net.mix, net.player_counts, net.width) == (mix, [2, 3], inputs)
    assert net.every_mix == (mix == EVERY_MIX) and net.inputs == min(inputs, INPUTS)
    with pytest.raises(SearchError, match="expected inputs"):
        net.forward(x[:, : inputs - 1])
    x = x[:, :inputs]  # the C++ side reads the columns it was made for
    # Saved and loaded again, the model keeps its shape.
    again = ValueMLP.from_state_dict(model.state_dict())
    assert again.inputs == inputs
    with torch.no_grad():
        expected = model(torch.from_numpy(x)).numpy()
    assert np.abs(net.forward(x) - expected).max() < 1e-4
    # evaluate(): final score = score + 50 x the first output; win = softmax of the logits.
    game = Game(2, seed=4)
    game.apply_random_chance()
    finals, win = net.evaluate(game._state)
    seats = np.hstack([_core.value_inputs(game._state), np.tile(_core.value_context(game._state), (2, 1))])
    with torch.no_grad():
        y = model(torch.from_numpy(seats)).numpy()
    assert finals == pytest.approx(list(50 * y[:, 0]), abs=1e-3)
    assert win == pytest.approx(list(np.exp(y[:, 1]) / np.exp(y[:, 1]).sum()), abs=1e-5)


def test_one_network_for_every_mix(tmp_path: Path, trajectories: Path) -> None:
    # Games of two mixes train one network that reads the rules; it fits any mix of its counts,
    # the search uses it there and names it.
    other = write_trajectories(
        tmp_path / "abbey.npz",
        agents=("greedy", "random", "greedy"),
        deals=1,
        players=3,
        expansions=("abbey-mayor",),
        seed=4,
        progress=False,
    )
    samples = load_value_samples([trajectories, other])
    assert samples.mix == EVERY_MIX and sorted(samples.inputs) == [2, 3]
    context = samples.inputs[3][0, 0, INPUTS:]
    assert context.tolist() == [1, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0]  # abbey-mayor, 3 players
    model, _ = fit(samples, ValueMLP(hidden1=8, hidden2=8, inputs=EVERY_MIX_INPUTS), epochs=1)
    path = export(model, tmp_path / "every.value", EVERY_MIX, [2, 3, 4])
    net = _core.ValueNet(str(path))
    shrines = Game(4, ["shrines"], seed=1)
    assert net.fits(shrines._state) and not net.fits(Game(5, seed=1)._state)
    assert net.describe().startswith("every mix, 2-4 players (every.value, sha256 ")
    shrines.apply_random_chance()
    result = Mcts(mcts_config(iterations=50, eval="value", value=str(path))).search(shrines.core_state())
    assert "the value network every mix, 2-4 players" in result.evaluator
    # A network reads the context only if it is made for every mix, and the reverse.
    with pytest.raises(SearchError, match="every mix"):
        export(model, tmp_path / "x.value", "base", [2])
    with pytest.raises(SearchError, match="every mix"):
        export(ValueMLP(), tmp_path / "x.value", EVERY_MIX, [2])


EVERY_EXPANSION = "abbey-mayor+anniv20+city+king-robber+shrines"  # the mix `everything`
HEADER_V1 = 8 + 6 * 4  # magic and six fields, then the scale; version 2 has the serves field before it
# Version 5: the serves field, the scale, then the hand-made guess's share, its barns' weight and
# whether it is drawn before the weights.
SCALE_V5, WEIGHTS_V5 = HEADER_V1 + 8, HEADER_V1 + 24


def _as_version_one(path: Path, out: Path) -> Path:
    """The version 5 file at `path` (its guess share and barns' weight 0, not drawn) written as
    version 1: no serves field, no guess."""
    data = bytearray(path.read_bytes())
    assert data[SCALE_V5 + 4 : WEIGHTS_V5] == bytes(12)
    data[8:12] = (1).to_bytes(4, "little")
    del data[SCALE_V5 + 4 : WEIGHTS_V5]
    del data[HEADER_V1 : HEADER_V1 + 8]
    out.write_bytes(bytes(data))
    return out


def _games() -> dict[str, Game]:
    return {
        "base 2p": Game(2, seed=1),
        "river2 2p": Game(2, [], {"start": "river2"}, seed=1),
        "abbey-mayor 2p": Game(2, ["abbey-mayor"], seed=1),
        "base 3p": Game(3, seed=1),
    }


def test_version_one_files_serve_their_own_mix_or_every_mix(tmp_path: Path) -> None:
    shipped = Path(_core.value_net_dir())
    assert _core.ValueNet(str(shipped / "value-base.value")).serves == ["base"]
    assert _core.ValueNet(str(shipped / "value-all-city-4p.value")).serves == [EVERY_EXPANSION]
    every = export(_random_model(inputs=EVERY_MIX_INPUTS), tmp_path / "every.value", EVERY_MIX, [2])
    net = _core.ValueNet(str(_as_version_one(every, tmp_path / "every-v1.value")))
    assert len(net.serves) == 64 and net.serves[:3] == ["base", "abbey-mayor", "anniv20"]
    assert net.describe().startswith("every mix, 2 players (every-v1.value, sha256 ")


def test_a_file_serves_the_mixes_it_names(tmp_path: Path) -> None:
    model = _random_model()
    own = _core.ValueNet(str(export(model, tmp_path / "own.value", "base", [2])))
    assert own.serves == ["base"] and own.describe().startswith("base, 2 players (own.value, ")
    path = export(model, tmp_path / "served.value", "base", [2], serves=["base", "river2"])
    net = _core.ValueNet(str(path))
    assert net.mix == "base" and net.serves == ["base", "river2"]
    assert {name: net.fits(game._state) for name, game in _games().items()} == {
        "base 2p": True,
        "river2 2p": True,
        "abbey-mayor 2p": False,
        "base 3p": False,
    }
    assert net.describe().startswith("base, 2 players, also river2 (served.value, sha256 ")
    every = export(
        _random_model(inputs=EVERY_MIX_INPUTS), tmp_path / "e.value", EVERY_MIX, [4], ["city", "everything"]
    )
    assert (
        _core.ValueNet(str(every))
        .describe()
        .startswith(f"every mix (serving city, {EVERY_EXPANSION}), 4 players (")
    )
    for serves, message in (([], "at least one mix"), (["dragons"], "unknown mix 'dragons'")):
        with pytest.raises(SearchError, match=message):
            export(model, tmp_path / "bad.value", "base", [2], serves=serves)
    assert not (tmp_path / "bad.value").exists()


def test_bad_serves_fields_are_refused(tmp_path: Path) -> None:
    data = export(_random_model(), tmp_path / "m.value", "base", [2]).read_bytes()
    (tmp_path / "none.value").write_bytes(data[:HEADER_V1] + bytes(8) + data[HEADER_V1 + 8 :])
    with pytest.raises(SearchError, match=r"none\.value: serves no mix"):
        _core.ValueNet(str(tmp_path / "none.value"))
    (tmp_path / "cut.value").write_bytes(data[: HEADER_V1 + 4])
    with pytest.raises(SearchError, match="short"):
        _core.ValueNet(str(tmp_path / "cut.value"))


def test_a_given_file_plays_the_mixes_it_serves_only(tmp_path: Path) -> None:
    path = export(_random_model(), tmp_path / "given.value", "base", [2], serves=["base", "river2"])
    games = _games()
    for name in ("river2 2p", "abbey-mayor 2p"):
        games[name].apply_random_chance()
    search = Mcts(mcts_config(iterations=20, eval="value", value=str(path)))
    result = search.search(games["river2 2p"].core_state())
    assert "the value network base, 2 players, also river2 (given.value" in result.evaluator
    with pytest.raises(SearchError, match=r"given\.value serves base, river2 games, not abbey-mayor"):
        search.search(games["abbey-mayor 2p"].core_state())


def test_value_serve_restamps_a_file_with_its_weights_untouched(
    tmp_path: Path, trajectories: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    x = load_value_samples([trajectories]).inputs[2].reshape(-1, EVERY_MIX_INPUTS)[:, :INPUTS]
    source = _as_version_one(
        export(_random_model(), tmp_path / "m.value", "base", [2]), tmp_path / "v1.value"
    )
    before = _core.ValueNet(str(source))
    assert before.serves == ["base"]
    out = tmp_path / "out.value"
    assert (
        main(["value-serve", str(source), "--mixes", "base,river2", "--players", "2,3", "--out", str(out)])
        == 0
    )
    assert "out.value: base, 2-3 players, also river2 (out.value, sha256" in capsys.readouterr().out
    after = _core.ValueNet(str(out))
    assert (after.serves, after.player_counts, after.mix) == (["base", "river2"], [2, 3], "base")
    assert np.array_equal(after.forward(x), before.forward(x)) and after.sha256 != before.sha256
    written, read = out.read_bytes(), source.read_bytes()
    assert written[SCALE_V5 : SCALE_V5 + 4] == read[HEADER_V1 : HEADER_V1 + 4]  # the scale
    assert written[WEIGHTS_V5:] == read[HEADER_V1 + 4 :]  # the weights
    assert (after.guess_share, after.guess_barns, after.guess_drawn) == (0.0, 0.0, False)
    # In place, the player counts kept; a mix named as the search names it.
    restamp(out, out, ["everything", "abbey-mayor+city"])
    again = _core.ValueNet(str(out))
    assert (again.serves, again.player_counts) == (["abbey-mayor+city", EVERY_EXPANSION], [2, 3])
    assert np.array_equal(again.forward(x), before.forward(x))
    # The share of the hand-made guess it is to be played with, kept by a restamp that names none.
    assert main(["value-serve", str(out), "--mixes", "base", "--guess-share", "0.5", "--out", str(out)]) == 0
    assert "2-3 players, with 0.5 of the hand-made guess (out.value" in capsys.readouterr().out
    restamp(out, out, ["base", "river2"])
    shared = _core.ValueNet(str(out))
    assert (shared.guess_share, shared.serves) == (0.5, ["base", "river2"])
    assert np.array_equal(shared.forward(x), before.forward(x))
    # The barns' weight in that guess, kept the same way.
    barns_one = ["value-serve", str(out), "--mixes", "abbey-mayor", "--guess-barns", "1", "--out", str(out)]
    assert main(barns_one) == 0
    assert "with 0.5 of the hand-made guess, barns at 1 (out.value" in capsys.readouterr().out
    restamp(out, out, ["abbey-mayor", "everything"])
    barns = _core.ValueNet(str(out))
    assert (barns.guess_share, barns.guess_barns) == (0.5, 1.0)
    assert barns.serves == ["abbey-mayor", EVERY_EXPANSION]
    assert np.array_equal(barns.forward(x), before.forward(x))
    # Whether that share is drawn at each cutoff, kept the same way.
    assert main(["value-serve", str(out), "--mixes", "city", "--blendby", "sample", "--out", str(out)]) == 0
    assert "with 0.5 of the hand-made guess, barns at 1, drawn (out.value" in capsys.readouterr().out
    restamp(out, out, ["city", "abbey-mayor"])
    drawn = _core.ValueNet(str(out))
    assert (drawn.guess_share, drawn.guess_barns, drawn.guess_drawn) == (0.5, 1.0, True)
    assert np.array_equal(drawn.forward(x), before.forward(x))
    assert restamp(out, out, ["city"], guess_drawn=False) and not _core.ValueNet(str(out)).guess_drawn
    restamp(out, out, ["abbey-mayor", "everything"], guess_drawn=True)
    # Bad requests change nothing and leave no file behind.
    kept = out.read_bytes()
    for mixes, players, message in (
        ("dragons", "2", "unknown mix 'dragons'"),
        ("", "2", "at least one mix"),
        ("base", "7", "player count 7"),
    ):
        assert main(["value-serve", str(out), "--mixes", mixes, "--players", players, "--out", str(out)]) == 2
        assert message in capsys.readouterr().err
    assert main(["value-serve", str(out), "--mixes", "base", "--guess-share", "1", "--out", str(out)]) == 2
    assert "share must be in [0, 1), got 1.0" in capsys.readouterr().err
    assert main(["value-serve", str(out), "--mixes", "base", "--guess-barns", "11", "--out", str(out)]) == 2
    assert "barns' weight must be in [0, 10], got 11.0" in capsys.readouterr().err
    assert out.read_bytes() == kept and sorted(p.name for p in tmp_path.iterdir()) == [
        "m.value",
        "out.value",
        "v1.value",
    ]
    (tmp_path / "bad.value").write_bytes(b"CARCNET\0" + bytes(40))
    with pytest.raises(SearchError, match="bad magic"):
        restamp(tmp_path / "bad.value", tmp_path / "x.value", ["base"])
    assert not (tmp_path / "x.value").exists()


def test_samples_hold_the_final_result(trajectories: Path) -> None:
    samples = load_value_samples([trajectories], every=3)
    data = np.load(trajectories)
    games = len(data["game_start"]) - 1
    assert sorted(set(samples.game[2].tolist())) == list(range(games))
    first = samples.game[2] == 0
    # Points still to come at the first position: the whole final score (nothing scored yet).
    assert samples.gain[2][first][0] * 50 == pytest.approx(data["scores"][0].astype(float))
    assert samples.win[2][first][0] == pytest.approx(data["win_share"][0])
    assert (np.diff(samples.gain[2][first], axis=0) <= 1e-6).all()  # scores never drop (B-8)


def test_value_replay_gives_the_inputs_and_scores_of_a_step_by_step_replay(tmp_path: Path) -> None:
    """What training reads in one call per game equals replaying the game action by action."""
    path = write_trajectories(
        tmp_path / "all.npz",
        agents=("greedy",) * 3,
        players=3,
        expansions=("abbey-mayor", "king-robber", "shrines", "anniv20"),
        variants={"start": "city"},
        deals=1,
        seed=11,
        progress=False,
    )
    data = np.load(path)
    actions = data["actions"][: int(data["game_start"][1])]
    game = Game(3, ["abbey-mayor", "king-robber", "shrines", "anniv20"], {"start": "city"})
    before = game._state.to_bytes()
    x, scores = _core.value_replay(game._state, actions, every=4)
    assert game._state.to_bytes() == before  # replayed on a copy
    assert x.shape == (math.ceil(len(actions) / 4), 3, INPUTS) and scores.shape == (len(x), 3)
    summaries, _ = _core.value_replay(game._state, actions[:9], every=4, inputs=SUMMARY_INPUTS)
    assert np.array_equal(summaries, x[:3, :, :SUMMARY_INPUTS])
    state = game._state
    for i, code in enumerate(actions):
        if i % 4 == 0:
            assert np.array_equal(x[i // 4], _core.value_inputs(state))
            assert scores[i // 4].tolist() == state.scores()
        state.apply(int(code))
    assert scores[-1].max() > 0
    # Bad input: a clear error, and the caller's state untouched.
    fresh = Game(2)._state
    with pytest.raises(IllegalActionError):
        _core.value_replay(fresh, np.array([0, 0, 0]))
    with pytest.raises(SearchError, match="every must be at least 1"):
        _core.value_replay(fresh, actions[:2], every=0)
    with pytest.raises(SearchError, match="inputs must be"):
        _core.value_replay(fresh, actions[:2], inputs=3)
    assert fresh.to_bytes() == Game(2)._state.to_bytes()


def test_scores_with_margins_of_many_rows_are_those_of_each_row() -> None:
    rng = np.random.default_rng(4)
    rows = rng.normal(0, 20, (50, 4))
    rows[0, 1] = rows[0, 3] = rows[0].max() + 1  # a tie for the lead
    many = scores_with_margins(rows, 300.0)
    assert many == pytest.approx(np.stack([scores_with_margins(r, 300.0) for r in rows]))
    assert many.sum(axis=1) == pytest.approx(np.full(50, 300.0))


def test_search_targets_mix_the_result_with_the_searchs_root_estimates(tmp_path: Path) -> None:
    path = write_trajectories(
        tmp_path / "searched.npz", agents=("mcts:iters=40", "mcts:iters=40"), deals=1, seed=5, progress=False
    )
    data = np.load(path)
    final = data["scores"][0].astype(float)
    plain = load_value_samples([path])
    half = load_value_samples([path], search_weight=0.5)
    full = load_value_samples([path], search_weight=1.0)
    reward, win = data["search_reward"], data["search_win"]
    end = int(data["game_start"][1])
    searched = [i for i in range(end) if not np.isnan(reward[i]).any()]
    draws = [i for i in range(end) if data["player"][i] < 0]
    assert len(searched) > 20 and draws
    for i in searched[:10] + [d for d in draws if d < searched[-1]][:10]:
        nxt = next(j for j in searched if j >= i)  # a draw takes the next search's estimates
        expected = 40 * np.arctanh(2 * reward[nxt] - 1)
        points = full.gain[2][i] * 50  # points to come; the margin is what the search sets
        now = final - plain.gain[2][i] * 50
        assert (now + points)[0] - (now + points)[1] == pytest.approx(expected[0], abs=1e-3)
        assert full.win[2][i] == pytest.approx(win[nxt], abs=1e-6)
        # Half the weight: halfway between the result's margin and the search's, the total kept.
        margin = (now + half.gain[2][i] * 50)[0] - (now + half.gain[2][i] * 50)[1]
        assert margin == pytest.approx(0.5 * (final[0] - final[1]) + 0.5 * expected[0], abs=1e-3)
        assert half.gain[2][i].sum() == pytest.approx(plain.gain[2][i].sum(), abs=1e-5)
    # After the last search the result is all there is.
    after = range(searched[-1] + 1, end)
    assert all(full.gain[2][i] == pytest.approx(plain.gain[2][i]) for i in after)
    with pytest.raises(SearchError, match="search_weight"):
        load_value_samples([path], search_weight=1.5)


def final_margins(scores: np.ndarray) -> np.ndarray:
    """Each seat's score minus the best other seat's (the margin of the margin reward)."""
    top = np.sort(scores)[::-1]
    best_other = np.where(scores == top[0], top[1], top[0])
    return scores - best_other


def test_scores_with_margins_give_back_consistent_margins_and_keep_the_total() -> None:
    final = np.array([100.0, 80.0, 60.0, 55.0])
    consistent = np.array([12.0, -12.0, -30.0, -41.0])  # seat 0 leads seat 1 by 12
    scores = scores_with_margins(consistent, float(final.sum()))
    assert final_margins(scores) == pytest.approx(consistent)
    assert scores.sum() == pytest.approx(final.sum())
    # Estimates that do not fit: the leader's lead (+10) and the runner-up's gap (-14) split evenly.
    scores = scores_with_margins(np.array([10.0, -14.0, -30.0]), 240.0)
    assert final_margins(scores) == pytest.approx([12.0, -12.0, -28.0])
    assert scores.sum() == pytest.approx(240.0)
    # With 2 players: each score moves by half the change of the margins (the 2-player recipe).
    two = np.array([90.0, 70.0])
    searched = np.array([-6.0, 6.0])
    moved = two + (searched - final_margins(two)) / 2
    assert scores_with_margins(searched, 160.0) == pytest.approx(moved)


def test_search_targets_with_more_players_have_the_searched_margins_and_the_games_total(
    tmp_path: Path,
) -> None:
    path = write_trajectories(
        tmp_path / "three.npz", players=3, agents=("mcts:iters=40",) * 3, deals=1, seed=7, progress=False
    )
    data = np.load(path)
    plain = load_value_samples([path])
    full = load_value_samples([path], search_weight=1.0)
    reward = data["search_reward"]
    end = int(data["game_start"][1])
    final = data["scores"][0].astype(float)
    searched = [i for i in range(end) if not np.isnan(reward[i]).any()]
    assert len(searched) > 20
    for i in searched:
        now = final - plain.gain[3][i] * 50
        targets = now + full.gain[3][i] * 50
        expected = scores_with_margins(
            40 * np.arctanh(np.clip(2 * reward[i] - 1, -0.999, 0.999)), final.sum()
        )
        assert targets == pytest.approx(expected, abs=1e-3)
        assert targets.sum() == pytest.approx(final.sum(), abs=1e-3)  # no drift of the total


def test_fit_learns_something(trajectories: Path) -> None:
    samples = load_value_samples([trajectories])
    threads = torch.get_num_threads()
    _, report = fit(samples, epochs=15, seed=1)
    # A constant guess of 0 points to come would miss by the mean gain; training beats it.
    assert report.held_points_rmse < 50 * float(np.sqrt((samples.gain[2] ** 2).mean()))
    assert torch.get_num_threads() == threads  # trained with its own thread count, then restored


def test_inputs_the_games_never_varied_are_ignored_until_trained(trajectories: Path) -> None:
    """2-player base games never vary 1/players, the player count's bits or the mix switches: a
    fresh network of every mix starts their weights at zero and, with no gradient there, keeps
    them so; at 4 players, or in another mix, those inputs then change nothing."""
    samples = load_value_samples([trajectories])
    model, _ = fit(samples, ValueMLP(hidden1=8, hidden2=8, inputs=EVERY_MIX_INPUTS), epochs=3, seed=2)
    x = samples.inputs[2].reshape(-1, EVERY_MIX_INPUTS)
    constant = np.flatnonzero(x.std(0) == 0)
    names = _core.value_input_names()
    assert names.index("1 / players") in constant and set(range(INPUTS, EVERY_MIX_INPUTS)) <= set(constant)
    weights = model.layers[0].weight.detach()
    assert (weights[:, constant] == 0).all()
    assert (weights[:, names.index("tiles in the bag / 72")] != 0).any()  # a varied input is read
    # The same position read as a 4-player game of the cult places: the same outputs.
    seen = torch.from_numpy(x[:5].copy())
    other = seen.clone()
    other[:, names.index("1 / players")] = 0.25
    other[:, INPUTS:] = 0.0
    other[:, INPUTS + 5] = 1.0  # shrines
    other[:, INPUTS + 6 + 2] = 1.0  # 4 players
    with torch.no_grad():
        assert torch.equal(model(seen), model(other))


def test_winner_accuracy_counts_the_top_target_seat() -> None:
    # A model whose win logit is the sum of a seat's inputs: seat 0 (inputs 1) is its pick.
    model = ValueMLP(hidden1=1, hidden2=1)
    with torch.no_grad():
        for p in model.layers.parameters():
            p.zero_()
        model.layers[0].weight.fill_(1.0)
        model.layers[2].weight.fill_(1.0)
        model.layers[4].weight[1].fill_(1.0)
    x = torch.zeros(4, 2, INPUTS)
    x[:, 0] = 1.0
    gain = torch.zeros(4, 2)
    # Soft targets (from the search) and results: a tie counts for either seat.
    win = torch.tensor([[0.6, 0.4], [0.4, 0.6], [1.0, 0.0], [0.5, 0.5]])
    assert evaluate_held(model, [(x, gain, win)])[3] == pytest.approx(0.75)


def test_mix_names_and_bad_exports(tmp_path: Path) -> None:
    assert mix_name(()) == "base"
    assert mix_name(("shrines", "abbey-mayor"), {"start": "city"}) == "abbey-mayor+city+shrines"
    with pytest.raises(SearchError, match="unknown expansions"):
        mix_name(("dragons",))
    with pytest.raises(SearchError, match="player count 7"):
        export(ValueMLP(), tmp_path / "x.value", "base", [7])
    (tmp_path / "bad.value").write_bytes(b"CARCNET\0" + bytes(40))
    with pytest.raises(SearchError, match="bad magic"):
        _core.ValueNet(str(tmp_path / "bad.value"))


def test_the_loop_runs_end_to_end_and_resumes(tmp_path: Path) -> None:
    config = ValueLoopConfig(
        generations=1,
        deals=1,
        iterations=20,
        epochs=1,
        every=4,
        gate_deals=1,
        time=0.002,
        ladder=("greedy",),
        ladder_deals=1,
        threads=1,
    )
    state = run(tmp_path, config, progress=False)
    assert set(state["done"]) == {"games-1-2p", "train-1", "gate-1", "ladder-1-greedy"}
    assert (tmp_path / "candidate-1.value").exists()
    net = _core.ValueNet(str(tmp_path / "candidate-1.value"))
    assert net.mix == "base"
    with open(tmp_path / "ladder.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["generation"], r["opponent"]) for r in rows] == [("1", "greedy")]
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    # Rerun: nothing is played again; other settings are refused.
    before = (tmp_path / "run.json").read_text()
    run(tmp_path, config, progress=False)
    assert json.loads((tmp_path / "run.json").read_text())["done"] == json.loads(before)["done"]
    with pytest.raises(SearchError, match="other settings"):
        run(tmp_path, ValueLoopConfig(**{**config.__dict__, "iterations": 30}), progress=False)


def test_a_value_file_without_its_weights_trains_on_as_it_plays(tmp_path: Path) -> None:
    """A shipped file has no .pt beside it: its network, read back and normalised by new
    samples, computes what the file computes, so training on starts where it left off."""
    rng = np.random.default_rng(5)
    original = ValueMLP(inputs=EVERY_MIX_INPUTS)
    with torch.no_grad():
        original.mean.copy_(torch.from_numpy(rng.normal(0, 2, EVERY_MIX_INPUTS)))
        original.std.copy_(torch.from_numpy(rng.uniform(0.3, 3, EVERY_MIX_INPUTS)))
    path = export(original, tmp_path / "shipped.value", EVERY_MIX, [2, 4])
    inputs = {n: rng.normal(1, 3, (50, n, EVERY_MIX_INPUTS)).astype(np.float32) for n in (2, 4)}
    samples = ValueSamples(
        inputs,
        {n: np.zeros((50, n), np.float32) for n in inputs},
        {n: np.full((50, n), 1 / n, np.float32) for n in inputs},
        {n: np.arange(50) for n in inputs},
        EVERY_MIX,
    )
    loaded = ValueMLP.from_value_file(path, samples)
    assert not torch.allclose(loaded.mean, original.mean)  # normalised by the new samples
    with torch.no_grad():
        for x in inputs.values():
            t = torch.from_numpy(x)
            assert torch.allclose(loaded(t), original(t), rtol=1e-4, atol=1e-4)
    (tmp_path / "bad.value").write_bytes(b"CARCNET\0" + bytes(40))
    with pytest.raises(SearchError, match="bad magic"):
        ValueMLP.from_value_file(tmp_path / "bad.value", samples)


def test_a_loop_can_start_from_a_network_of_its_own(tmp_path: Path) -> None:
    """--start: the given network is the best player from generation 1 (its self-play, the
    gate's opponent) and the candidate's training starts from its weights."""
    config = ValueLoopConfig(
        generations=1, deals=1, iterations=20, epochs=1, every=4, gate_deals=1, time=0.002, ladder=()
    )
    run(tmp_path / "first", config, progress=False)
    first = tmp_path / "first" / "candidate-1.value"
    started = ValueLoopConfig(**{**config.__dict__, "start": str(first)})
    state = run(tmp_path / "second", started, progress=False)
    start = tmp_path / "second" / "start.value"
    assert start.read_bytes() == first.read_bytes() and start.with_suffix(".pt").exists()
    with open(tmp_path / "second" / "gate-1.csv") as f:
        agents = {row["agent"] for row in csv.DictReader(f)}
    assert any(f"value={start}" in agent for agent in agents), agents
    assert state["best"] in (str(start), str(tmp_path / "second" / "candidate-1.value"))
    with pytest.raises(SearchError, match="not a value network"):
        ValueLoopConfig(start=str(tmp_path / "first" / "run.json")).check()
    with pytest.raises(SearchError, match="for every mix"):
        ValueLoopConfig(start=str(first), mixes=("base",)).check()


def test_a_run_continues_with_a_given_best_player(tmp_path: Path) -> None:
    """best=: a network given to a run that has done its first generation becomes the player of
    the second generation's self-play and the start of its training; a rerun with the same file
    changes nothing, and a file the run cannot use is refused."""
    config = ValueLoopConfig(
        generations=1, deals=1, iterations=20, epochs=1, every=4, gate="none", time=0.002, ladder=()
    )
    run(tmp_path / "other", ValueLoopConfig(**{**config.__dict__, "seed": 1}), progress=False)
    other = tmp_path / "other" / "candidate-1.value"
    run(tmp_path / "run", config, progress=False)
    given = tmp_path / "restamped.value"
    shutil.copyfile(other, given)  # no .pt beside it, as a file value-serve wrote
    longer = ValueLoopConfig(**{**config.__dict__, "generations": 2})
    state = run(tmp_path / "run", longer, progress=False, best=given)
    copy = tmp_path / "run" / "given-1.value"
    assert copy.read_bytes() == given.read_bytes()
    assert state["given"] == [
        {"file": str(given), "as": str(copy), "after": ["games-1-2p", "gate-1", "train-1"]}
    ]
    played = json.loads(str(np.load(tmp_path / "run" / "games-2-2p.npz")["config"]))["agents"][0]
    assert f"value={copy}" in played
    assert state["best"] == str(tmp_path / "run" / "candidate-2.value")
    # The same command again, after generation 2 promoted its candidate: nothing is given again.
    again = run(tmp_path / "run", longer, progress=False, best=given)
    assert len(again["given"]) == 1 and again["done"] == state["done"]
    assert again["best"] == str(tmp_path / "run" / "candidate-2.value")
    again = run(tmp_path / "run", longer, progress=False, best=tmp_path / "run" / "candidate-2.value")
    assert len(again["given"]) == 1 and again["best"] == str(tmp_path / "run" / "candidate-2.value")
    with pytest.raises(SearchError, match=r"best: .* is not a value network"):
        run(tmp_path / "run", longer, progress=False, best=tmp_path / "run" / "run.json")


def test_the_loop_over_a_grid_of_mixes_makes_one_network_for_every_mix(tmp_path: Path) -> None:
    config = ValueLoopConfig(
        mixes=("base", "abbey-mayor"),
        players=(2,),
        generations=1,
        deals=1,
        iterations=10,
        epochs=1,
        every=4,
        gate_deals=1,
        time=0.002,
        ladder=(),
        threads=1,
    )
    state = run(tmp_path, config, progress=False)
    assert set(state["done"]) == {"games-1-base-2p", "games-1-abbey-mayor-2p", "train-1", "gate-1"}
    net = _core.ValueNet(str(tmp_path / "candidate-1.value"))
    assert net.every_mix and net.mix == "every" and net.player_counts == [2]
    # One mix or a grid, not both; names of carcassonne.mixes only.
    with pytest.raises(SearchError, match="not both"):
        ValueLoopConfig(mixes=("base",), expansions=("abbey-mayor",)).check()
    with pytest.raises(SearchError, match=r"unknown mix 'dragons' \(known: base, abbey-mayor"):
        ValueLoopConfig(mixes=("dragons",)).check()


def test_generations_without_a_gate_are_each_the_last_ones_self_play(tmp_path: Path) -> None:
    """gate="none" and later_deals: the recipe of the networks of several mixes (docs/value.md)
    as one resumable run. Every candidate is promoted unplayed, so generation 2's games are
    generation 1's network's, with fewer deals, and its training starts from those weights."""
    config = ValueLoopConfig(
        mixes=("base", "city"),
        generations=2,
        deals=2,
        later_deals=1,
        iterations=10,
        epochs=1,
        every=4,
        gate="none",
        time=0.002,
        ladder=("greedy",),
        ladder_deals=1,
        threads=1,
    )
    state = run(tmp_path, config, progress=False)
    unplayed = {"win_rate": None, "low": None, "high": None, "games": 0, "promoted": True}
    assert state["done"]["gate-1"] == unplayed
    assert state["done"]["gate-2"]["promoted"] and not list(tmp_path.glob("gate-*.csv"))
    # The best player is named by its own file (a games file's agents pin the network that
    # played); best.value is a copy of it.
    assert state["best"] == str(tmp_path / "candidate-2.value")
    assert (tmp_path / "best.value").read_bytes() == (tmp_path / "candidate-2.value").read_bytes()
    games = {
        f.stem: (len(np.load(f)["game_start"]) - 1, json.loads(str(np.load(f)["config"]))["agents"][0])
        for f in tmp_path.glob("games-*.npz")
    }
    assert {name: n for name, (n, _) in games.items()} == {
        "games-1-base-2p": 4,  # 2 deals, both seat orders
        "games-1-city-2p": 4,
        "games-2-base-2p": 2,
        "games-2-city-2p": 2,
    }
    assert "eval=greedy" in games["games-1-base-2p"][1]
    assert f"value={tmp_path / 'candidate-1.value'}" in games["games-2-city-2p"][1]
    with open(tmp_path / "ladder.csv") as f:
        rows = list(csv.DictReader(f))
    assert [(r["generation"], r["gate_win_rate"]) for r in rows] == [("1", ""), ("2", "")]
    assert (tmp_path / "ladder.png").stat().st_size > 1000
    with pytest.raises(SearchError, match="gate must be one of mean, interval, none"):
        ValueLoopConfig(gate="always").check()
    with pytest.raises(SearchError, match="later_deals"):
        ValueLoopConfig(later_deals=-1).check()


def test_the_gate_and_the_elo_measure_one_seat_against_its_fair_share() -> None:
    # One candidate seat against the best player in the others: 0.4 of 3-player games is more
    # than the fair third; of 2-player games it is less than half.
    assert gate_passed(0.4, 0.2, 3, "mean") and not gate_passed(0.4, 0.2, 2, "mean")
    assert gate_passed(0.45, 0.36, 3, "interval") and not gate_passed(0.45, 0.30, 3, "interval")
    assert gate_passed(0.3, 0.1, 4, "mean") and not gate_passed(0.24, 0.1, 4, "mean")
    for players in (2, 3, 4):
        assert abs(seat_elo(1 / players, players)) < 1e-9
    assert abs(seat_elo(0.75) - 400 * math.log10(3)) < 1e-9  # the usual two-player Elo
    assert seat_elo(0.5, 3) == pytest.approx(400 * math.log10(2))  # half of 3-player games: twice as strong


# The tables where a shipped network beat `ref-rollout` on fresh decks (docs/value.md, "Which
# tables have a learned player"): (mix, players) -> the file the default search reads there.
SHIPPED_TABLES = {
    ("base", 2): "value-base.value",
    ("base", 3): "value-base-more-players.value",
    ("base", 5): "value-base-5p.value",
    ("abbey-mayor", 2): "value-four-mixes.value",
    ("river2", 2): "value-base-other-mixes.value",
    ("shrines", 2): "value-base-other-mixes.value",
    ("anniv20", 2): "value-base-other-mixes.value",
    ("king-robber", 2): "value-four-mixes.value",
    ("city", 2): "value-four-mixes.value",
    ("abbey-mayor", 4): "value-abbey-mayor-4p.value",
    ("king-robber", 4): "value-king-robber-4p.value",
    ("shrines", 4): "value-shrines-4p.value",
    ("city", 4): "value-city-4p.value",
    ("anniv20", 4): "value-anniv20-4p.value",
    ("river2", 4): "value-river2-4p.value",
    ("everything", 2): "value-all-city-2p.value",
    ("everything", 3): "value-all-city-3p-barns.value",
    ("everything", 4): "value-all-city-4p.value",
    ("everything", 5): "value-all-city-5p.value",
}


def test_the_default_search_reads_a_network_exactly_at_the_tables_measured() -> None:
    from carcassonne.mixes import DEFAULT_MIXES

    shipped = sorted((Path(carcassonne.__file__).parent / "data").glob("*.value"))
    assert shipped
    for mix in DEFAULT_MIXES:
        for players in range(2, 6):
            game = Game(players, list(mix.expansions), dict(mix.variants), seed=3)
            game.apply_random_chance()
            evaluator = Mcts(mcts_config(iterations=1)).search(game.core_state()).evaluator
            expected = SHIPPED_TABLES.get((mix.name, players))
            if expected is None:
                assert evaluator.startswith("rollouts: no value network"), (mix.name, players, evaluator)
            else:
                assert f"({expected}, sha256 " in evaluator, (mix.name, players, evaluator)
            # One shipped file per table: which one plays never depends on the files' names.
            serving = [f.name for f in shipped if _core.ValueNet(str(f)).fits(game.core_state())]
            assert serving == ([] if expected is None else [expected]), (mix.name, players, serving)
