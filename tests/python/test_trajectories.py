"""Trajectories for training: a written file replays through carcassonne.Game with legal actions
to the recorded final scores, and the MCTS decisions carry their root visit counts."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from carcassonne import CAUSES, Game
from carcassonne.rl import action_index, encode, trajectories
from carcassonne.rl.trajectories import (
    TrajectoryDataset,
    game_actions,
    load_trajectories,
    policy_targets,
    write_trajectories,
)
from helpers import StoppedError


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


def test_a_stopped_write_plays_only_the_chunks_it_lacks_and_writes_the_same_file(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop (Ctrl-C, here an exception of the test's own) in the second of three chunks: the
    first is kept beside the file, the same call again plays the two others only, and the file
    equals one written without the stop."""
    args = {"agents": ["mcts:iters=10,memory=16", "greedy"], "deals": 3, "seed": 4, "progress": False}
    whole = load_trajectories(write_trajectories(tmp_path / "whole.npz", **args))
    real = trajectories.play_chunk
    calls: list[int] = []
    stop_at = [1]

    def stopping(names, first, deals, options):  # type: ignore[no-untyped-def]
        calls.append(first)
        if first in stop_at:
            stop_at.clear()
            raise StoppedError
        return real(names, first, deals, options)

    monkeypatch.setattr(trajectories, "play_chunk", stopping)
    with pytest.raises(StoppedError):
        write_trajectories(tmp_path / "t.npz", **args)
    assert not (tmp_path / "t.npz").exists() and (tmp_path / "t.npz.chunks" / "0.pickle").exists()
    path = write_trajectories(tmp_path / "t.npz", **args)
    assert calls == [0, 1, 1, 2]  # chunk 0 was not played again
    resumed = load_trajectories(path)
    assert set(resumed) == set(whole)
    assert resumed["config"] == whole["config"]
    for key in set(whole) - {"config"}:
        assert np.array_equal(resumed[key], whole[key], equal_nan=True), key  # NaN: a move not searched
    assert not (tmp_path / "t.npz.chunks").exists()
    # Chunks of a call with other settings are not mixed in.
    stop_at.append(1)
    with pytest.raises(StoppedError):
        write_trajectories(tmp_path / "u.npz", **args)
    other = load_trajectories(write_trajectories(tmp_path / "u.npz", **{**args, "seed": 5}))
    fresh = load_trajectories(write_trajectories(tmp_path / "v.npz", **{**args, "seed": 5}))
    assert np.array_equal(other["actions"], fresh["actions"])
    assert not np.array_equal(other["actions"], whole["actions"])


def test_every_decision_has_a_policy_label_and_every_game_its_result(tmp_path: Path) -> None:
    path = write_trajectories(
        tmp_path / "t.npz", ["mcts:iters=20,memory=16", "random"], deals=1, progress=False
    )
    data = load_trajectories(path)
    for g in range(2):
        scores = data["scores"][g]
        assert data["win_share"][g].tolist() == [1.0 if s == max(scores) else 0.0 for s in scores] or (
            scores[0] == scores[1] and data["win_share"][g].tolist() == [0.5, 0.5]
        )
        labels = policy_targets(data, g)
        decisions = [i for i, (_, decider, _) in enumerate(game_actions(data, g)) if decider >= 0]
        assert len(labels) == len(decisions)
        start = int(data["game_start"][g])
        for index, decider, codes, probs in labels:
            assert abs(sum(probs) - 1) < 1e-9
            if data["entrant"][g][decider] == 1:  # random: the chosen action, one-hot
                assert (codes, probs) == ([int(data["actions"][index])], [1.0])
            else:
                assert int(data["actions"][index]) in codes
            assert index >= start


def test_the_dataset_gives_every_decision_with_its_labels(tmp_path: Path) -> None:
    import torch

    path = write_trajectories(
        tmp_path / "t.npz", ["mcts:iters=20,memory=16", "random"], deals=1, progress=False
    )
    data = load_trajectories(path)
    dataset = TrajectoryDataset(path, window=24)
    labels = policy_targets(data, 0) + policy_targets(data, 1)
    assert len(dataset) == len(labels)
    # Example k: the node before its action, replayed here, from the decider's seat.
    k = len(policy_targets(data, 0)) // 2
    index, decider, _, _ = labels[k]
    game = Game(players=2, seed=0)
    for code in data["actions"][:index]:
        game.apply(int(code))
    example = dataset[k]
    planes, globals_ = encode(game, observer=decider, window=24)
    assert torch.equal(example["planes"], torch.from_numpy(planes.astype(np.float32)))
    assert torch.equal(example["globals"], torch.from_numpy(globals_))
    assert example["policy"].sum().item() == pytest.approx(1.0)
    chosen = action_index(game, int(data["actions"][index]))  # the dataset's layout, the default
    assert example["policy"][chosen] > 0
    if data["entrant"][0][decider] == 1:  # random: one-hot
        assert example["policy"][chosen] == 1.0
    scores = data["scores"][0]
    assert example["margin"].item() == scores[decider] - scores[1 - decider]
    batch = next(iter(torch.utils.data.DataLoader(dataset, batch_size=4)))
    assert batch["planes"].shape == (4, planes.shape[0], 24, 24) and batch["value"].shape == (4,)


def test_stored_observations_read_back_as_encoded_packed_or_not(tmp_path: Path) -> None:
    """Observations stored with the trajectories (bytes, or bit-packed with the bytes above 1
    kept apart) read back as exactly the arrays rl.encode_batch gives at each decision."""
    from carcassonne import SearchError
    from carcassonne.rl import encode_batch
    from carcassonne.rl.trajectories import load_observations

    options = {"deals": 1, "expansions": ["abbey-mayor"], "seed": 2, "progress": False, "window": 16}
    plain = load_trajectories(
        write_trajectories(tmp_path / "p.npz", ["greedy", "greedy"], observations="planes", **options)
    )  # type: ignore[arg-type]
    packed = load_trajectories(
        write_trajectories(tmp_path / "b.npz", ["greedy", "greedy"], observations="packed", **options)
    )  # type: ignore[arg-type]
    assert packed["obs_bits"].nbytes * 7 < plain["obs_planes"].nbytes
    assert packed["obs_count"].size > 0 and (packed["obs_count"] > 1).all()  # two figures on a tile
    a, b = load_observations(plain), load_observations(packed)
    assert np.array_equal(a["planes"], b["planes"]) and np.array_equal(a["globals"], b["globals"])
    assert np.array_equal(a["index"], b["index"]) and a["window"] == 16
    states, deciders, index = [], [], []
    for g in range(len(plain["deal"])):
        game = Game(players=2, expansions=["abbey-mayor"], seed=0)
        start = int(plain["game_start"][g])
        for offset, (code, decider, _) in enumerate(game_actions(plain, g)):
            if decider >= 0:
                states.append(game.core_state())
                deciders.append(decider)
                index.append(start + offset)
            game.apply(code)
    planes, globals_ = encode_batch(states, deciders, window=16)
    assert np.array_equal(b["planes"], planes) and np.array_equal(b["globals"], globals_)
    assert b["index"].tolist() == index
    with pytest.raises(SearchError, match="hold no observations"):
        load_observations(
            load_trajectories(
                write_trajectories(tmp_path / "n.npz", "greedy,greedy", deals=1, progress=False)
            )
        )
    with pytest.raises(SearchError, match="observations must be one of"):
        write_trajectories(tmp_path / "x.npz", "greedy,greedy", deals=1, progress=False, observations="zip")
    assert not (tmp_path / "x.npz").exists()


def test_the_dataset_reads_stored_observations_as_it_encodes_them(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file with observations at the dataset's window gives the examples that encoding the
    replayed positions gives (the games are the same: greedy bots, the same seeds); at another
    window the dataset encodes."""
    torch = pytest.importorskip("torch")
    options = {"deals": 1, "expansions": ["abbey-mayor"], "seed": 4, "progress": False}
    bare = write_trajectories(tmp_path / "bare.npz", "greedy,greedy", **options)  # type: ignore[arg-type]
    files = [
        write_trajectories(
            tmp_path / f"{layout}.npz", "greedy,greedy", observations=layout, window=16, **options
        )  # type: ignore[arg-type]
        for layout in ("packed", "planes")
    ]
    for window in (16, 24):
        encoded = TrajectoryDataset(bare, window=window)
        for path in files:
            with monkeypatch.context() as m:
                if window == 16:  # read from the file: nothing is encoded
                    m.setattr(trajectories, "encode_batch", None)
                read = TrajectoryDataset(path, window=window)
            assert len(read) == len(encoded) > 0
            for i in range(0, len(read), 7):
                a, b = read[i], encoded[i]
                assert all(torch.equal(a[k], b[k]) for k in a), (path, window, i)


def test_the_dataset_keeps_plane_counts_above_one(tmp_path: Path) -> None:
    """A plane cell may hold 2 (two figures on a tile, a tile's two pennants): the examples hold
    the counts rl.encode gives, which a model sees later in play, whether the file stores the
    observations (either layout) or the dataset encodes them."""
    torch = pytest.importorskip("torch")
    from carcassonne.rl.trajectories import load_observations

    options = {"deals": 1, "expansions": ["abbey-mayor"], "seed": 2, "progress": False, "window": 16}
    paths = [
        write_trajectories(tmp_path / f"{layout}.npz", "greedy,greedy", observations=layout, **options)  # type: ignore[arg-type]
        for layout in ("packed", "planes")
    ]
    paths.append(write_trajectories(tmp_path / "bare.npz", "greedy,greedy", **options))  # type: ignore[arg-type]
    expected = load_observations(load_trajectories(paths[0]))["planes"]
    assert (expected > 1).any()
    for path in paths:
        dataset = TrajectoryDataset(path, window=16)
        assert len(dataset) == len(expected)
        for i in range(len(dataset)):
            assert torch.equal(dataset[i]["planes"], torch.from_numpy(expected[i].astype(np.float32))), (
                path,
                i,
            )


def test_the_parquet_export_gives_the_same_numbers_as_the_npz(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One row per decision: pandas.read_parquet reads back the file's actions, visit counts (as
    integers), results and stored observations exactly, and each decision's turn number."""
    import json

    import pandas as pd
    import pyarrow.parquet as pq

    from carcassonne.rl.trajectories import load_observations, trajectories_to_parquet

    npz = write_trajectories(
        tmp_path / "t.npz",
        ["mcts:iters=20,memory=16", "greedy"],
        deals=1,
        seed=4,
        progress=False,
        observations="packed",
        window=16,
    )
    data = load_trajectories(npz)
    monkeypatch.setattr(trajectories, "PARQUET_ROWS_PER_GROUP", 1)  # a row group per game
    out = trajectories_to_parquet(npz, tmp_path / "t.parquet")
    assert pq.ParquetFile(out).num_row_groups == 2
    metadata = json.loads(pq.read_schema(out).metadata[b"carcassonne"])
    assert metadata["agents"] == data["config"]["agents"] and metadata["plane_shape"][1:] == [16, 16]
    frame = pd.read_parquet(out)
    observed = load_observations(data)
    rows = 0
    for g in range(len(data["deal"])):
        game = Game(players=2, seed=0)  # the record holds the draws
        start = int(data["game_start"][g])
        for offset, (code, decider, visits) in enumerate(game_actions(data, g)):
            if decider >= 0:
                row = frame.iloc[rows]
                assert (row["game"], row["deal"], row["rotation"]) == (
                    g,
                    data["deal"][g],
                    data["rotation"][g],
                )
                assert (row["index"], row["seat"], row["entrant"]) == (
                    start + offset,
                    decider,
                    data["entrant"][g][decider],
                )
                assert (row["turn"], row["action"]) == (game.turn_number, code)
                assert list(zip(row["visit_action"], row["visit_count"], strict=True)) == visits
                assert row["visit_count"].dtype == np.uint32
                assert row["scores"].tolist() == data["scores"][g].tolist()
                assert row["win_share"].tolist() == data["win_share"][g].tolist()
                assert np.array_equal(row["search_win"], data["search_win"][start + offset], equal_nan=True)
                planes = np.frombuffer(row["obs_planes"], np.uint8).reshape(observed["planes"].shape[1:])
                assert np.array_equal(planes, observed["planes"][rows])
                assert np.array_equal(row["obs_globals"], observed["globals"][rows])
                rows += 1
            game.apply(code)
    assert rows == len(frame) == len(observed["index"])
    assert (frame["visit_count"].map(len) > 0).any()  # the MCTS seat's searches are there


def test_the_parquet_export_without_observations_and_of_a_bad_file(tmp_path: Path) -> None:
    import pandas as pd

    from carcassonne import SearchError
    from carcassonne.rl.trajectories import trajectories_to_parquet

    npz = write_trajectories(tmp_path / "t.npz", "greedy,greedy", deals=1, progress=False)
    frame = pd.read_parquet(trajectories_to_parquet(npz, tmp_path / "t.parquet"))
    assert len(frame) == int((load_trajectories(npz)["player"] >= 0).sum())
    assert "obs_planes" not in frame.columns
    (tmp_path / "bad.npz").write_bytes(b"not a trajectories file")
    np.savez(tmp_path / "other.npz", numbers=np.zeros(3))
    with pytest.raises(SearchError, match=r"other\.npz"):
        trajectories_to_parquet(tmp_path / "other.npz", tmp_path / "bad.parquet")
    with pytest.raises(SearchError, match=r"bad\.npz"):
        trajectories_to_parquet(tmp_path / "bad.npz", tmp_path / "bad.parquet")
    assert not (tmp_path / "bad.parquet").exists()
