"""Trajectories for training: a written file replays through carcassonne.Game with legal actions
to the recorded final scores, and the MCTS decisions carry their root visit counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np

from carcassonne import CAUSES, Game
from carcassonne.rl.trajectories import game_actions, load_trajectories, write_trajectories


def test_a_written_trajectory_replays_to_its_scores(tmp_path: Path) -> None:
    path = write_trajectories(
        tmp_path / "t.npz",
        ["mcts:iters=30,memory=16", "greedy"],
        deals=1,
        expansions=["abbey-mayor"],
        seed=3,
        progress=False,
    )
    data = load_trajectories(path)
    config = data["config"]
    assert config["agents"] == ["mcts:iters=30,memory=16", "greedy"] and config["expansions"] == [
        "abbey-mayor"
    ]
    assert len(data["deal"]) == 2  # one deal from both seatings
    for g in range(2):
        game = Game(players=2, expansions=config["expansions"], seed=12345)  # draws are in the record
        searched = 0
        for code, decider, visits in game_actions(data, g):
            assert decider == (-1 if game.is_chance else game.current_player)
            assert code in {int(a) for a in game.legal_actions()}, (g, code)
            if visits:
                searched += 1
                assert data["entrant"][g][decider] == 0  # only the MCTS agent searches
                assert code in {a for a, _ in visits} and sum(n for _, n in visits) >= 30
                assert all(game.is_legal(a) for a, _ in visits)
            game.apply(code)
        assert game.is_terminal
        assert game.scores == data["scores"][g].tolist()
        assert [[game.score(p, c) for c in CAUSES] for p in range(2)] == data["points"][g].tolist()
        assert searched > 20
    # The searches' estimates at the root: a row per action, NaN exactly where nothing was searched.
    searched_rows = data["visit_start"][1:] > data["visit_start"][:-1]
    for key in ("search_win", "search_reward"):
        assert data[key].shape == (len(data["actions"]), 2)
        assert (np.isnan(data[key]).all(axis=1) == ~searched_rows).all()
        assert ((data[key][searched_rows] >= 0) & (data[key][searched_rows] <= 1)).all()
    assert np.allclose(data["search_win"][searched_rows].sum(axis=1), 1.0, atol=1e-3)
