"""The vector environment with a Python opponent: one callable gets the batch of every game where
an opponent is to move, its moves are the ones played, and a wrong answer is a clear error."""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

import carcassonne as c
from carcassonne import rl
from carcassonne.rl.vector import CarcassonneVectorEnv

BLOCKS = {name: start for name, start, _ in rl.action_space().blocks}
PASS = BLOCKS["pass"]


class NeverAFigure:
    """A frozen policy: passes whenever it may (so never places a figure), else the first legal
    index. Records what it was given."""

    def __init__(self) -> None:
        self.batches: list[int] = []

    def __call__(self, observations: dict[str, np.ndarray], masks: np.ndarray) -> np.ndarray:
        assert masks.dtype == np.int8 and masks.shape[1] == rl.num_distinct_actions()
        assert (masks.sum(1) > 0).all()
        assert all(len(v) == len(masks) for v in observations.values())
        self.batches.append(len(masks))
        return np.where(masks[:, PASS] == 1, PASS, masks.argmax(1))


@pytest.mark.parametrize("packed", [False, True])
def test_the_python_opponents_moves_are_played_in_every_game(packed: bool) -> None:
    opponent = NeverAFigure()
    envs = CarcassonneVectorEnv(6, opponents=opponent, packed=packed)
    obs, info = envs.reset(seed=3)
    ended = 0
    learner_figures = 0
    for _ in range(300):
        for i in range(6):
            state = envs.state(i)
            seat = int(info["player"][i])
            assert state.current_player() == seat  # every game waits for the learner
            owners = {figure[0] for figure in state.placed_figures()}
            assert owners <= {seat}, "the opponent placed a figure: its moves were not the ones played"
            learner_figures += len(owners)
        obs, reward, terminated, _, info = envs.step(envs.sample_legal())
        for i in np.flatnonzero(terminated):
            returns = info["returns"][i]
            assert returns.sum() == pytest.approx(1.0)
            ended += 1
        # The ended games' seats: the learner's win share; a rotating seat alternates.
        assert np.array_equal(reward[terminated], info["returns"][terminated, info["player"][terminated] ^ 1])
    assert ended >= 6 and learner_figures > 0
    assert sum(opponent.batches) > 0 and max(opponent.batches) > 1  # batched, not one game a call
    assert set(info["player"].tolist()) == {0, 1}  # seat=None rotates over the slots
    offsets, indices = envs.legal()
    unpacked = envs.unpack(obs)["action_mask"]
    for i in range(6):
        assert indices[offsets[i] : offsets[i + 1]].tolist() == np.flatnonzero(unpacked[i]).tolist()


def test_a_seated_learner_against_a_python_opponent_is_seeded() -> None:
    def run() -> list[float]:
        envs = CarcassonneVectorEnv(4, opponents=NeverAFigure(), seat=1)
        _, info = envs.reset(seed=8)
        rewards = []
        for _ in range(120):
            assert (info["player"] == 1).all()
            _, reward, terminated, _, info = envs.step(envs.sample_legal())
            rewards += reward[terminated].tolist()
        return rewards

    first = run()
    assert first and run() == first


def steps_until_the_opponent_moves(envs: CarcassonneVectorEnv) -> None:
    """Steps until a step ends with the opponent to have moved in every game (the learner's
    figure decision follows its placement: no opponent move between)."""
    for _ in range(10):
        before = [envs.state(i).turn_number() for i in range(envs.num_envs)]
        envs.step(envs.sample_legal())
        if all(envs.state(i).turn_number() > before[i] for i in range(envs.num_envs)):
            return


def test_a_wrong_answer_from_the_opponent_is_a_clear_error_and_needs_a_reset() -> None:
    answers: list[Any] = []

    def scripted(observations: dict[str, np.ndarray], masks: np.ndarray) -> Any:
        return answers.pop(0)(masks) if answers else masks.argmax(1)

    envs = CarcassonneVectorEnv(3, opponents=scripted, seat=0)
    envs.reset(seed=1)
    bad = [
        (
            lambda m: m.argmax(1)[:-1],
            ValueError,
            r"shape \(\d,\) for \d game\(s\): one action index per game",
        ),
        (lambda m: np.zeros((len(m), 2), np.int64), ValueError, "one action index per game"),
        (lambda m: m.argmax(1).astype(float), TypeError, "must be integers, not float64"),
        (
            lambda m: np.full(len(m), rl.num_distinct_actions()),
            c.IllegalActionError,
            r"for game \d .*not legal",
        ),
        (lambda m: (m == 0).argmax(1), c.IllegalActionError, "not legal there"),
    ]
    for answer, error, message in bad:
        answers.append(answer)
        with pytest.raises(error, match=message):
            steps_until_the_opponent_moves(envs)
        with pytest.raises(ValueError, match=r"call reset\(\) first"):
            envs.step(envs.sample_legal())
        envs.reset(seed=1)
    envs.step(envs.sample_legal())  # after a reset, it plays again


def test_an_illegal_learner_action_moves_no_game() -> None:
    envs = CarcassonneVectorEnv(3, opponents=NeverAFigure())
    obs, _ = envs.reset(seed=2)
    before = [envs.state(i) for i in range(3)]
    actions = envs.sample_legal()
    actions[1] = int(np.flatnonzero(obs["action_mask"][1] == 0)[0])
    with pytest.raises(c.IllegalActionError, match="game 1: action index"):
        envs.step(actions)
    assert [envs.state(i) for i in range(3)] == before
    with pytest.raises(ValueError, match="3 action indexes"):
        envs.step(actions[:2])
    envs.step(envs.sample_legal())


def test_bad_opponent_arguments_are_refused() -> None:
    with pytest.raises(TypeError, match=r"agent specs .* or one callable"):
        CarcassonneVectorEnv(2, opponents=["random", NeverAFigure()], players=3)  # type: ignore[list-item]
    with pytest.raises(ValueError, match="seat must be"):
        CarcassonneVectorEnv(2, opponents=NeverAFigure(), seat=2)
    with pytest.raises(ValueError, match="num_envs"):
        CarcassonneVectorEnv(0, opponents=NeverAFigure())
    three = CarcassonneVectorEnv(
        2, opponents=NeverAFigure(), players=3
    )  # one callable plays both other seats
    _, info = three.reset(seed=1)
    for _ in range(50):
        _, _, _, _, info = three.step(three.sample_legal())
        assert all(three.state(i).current_player() == info["player"][i] for i in range(2))
