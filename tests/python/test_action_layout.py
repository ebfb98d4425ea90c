"""The frontier action layout, the environments' default: every legal action of every node has an
index, indexes and actions convert both ways, the cell lists line up with the planes, and the
vector environment's legal-index lists and C++ sampling."""

from __future__ import annotations

import numpy as np
import pytest

import carcassonne as c
from carcassonne import rl
from carcassonne.mixes import DEFAULT_MIXES
from carcassonne.rl.gymnasium import CarcassonneEnv
from carcassonne.rl.pettingzoo import raw_env
from carcassonne.rl.vector import CarcassonneVectorEnv

GAMES = 1000


def run_until(envs: CarcassonneVectorEnv, games: int) -> int:
    """Plays uniformly random legal moves (sampled in C++) until `games` games have ended;
    returns the nodes seen. Fails at the first node with a legal action that has no index."""
    _, info = envs.reset(seed=11)
    ended = nodes = 0
    while ended < games:
        nodes += envs.num_envs
        assert not info["outside"].any(), f"a legal action without an index ({envs.layout} layout)"
        _, _, terminated, _, info = envs.step(envs.sample_legal())
        ended += int(terminated.sum())
    return nodes


@pytest.mark.parametrize("mix", DEFAULT_MIXES, ids=lambda m: m.name)
def test_the_default_layout_indexes_every_legal_action_of_1000_random_games(mix: c.mixes.Mix) -> None:
    """Every decision of 1,000 self-play games of each mix (2 to 6 players, random legal moves):
    no legal action lies outside the layout. The window layout at 16 cells fails this in every
    mix (wide boards)."""
    players = 2 + DEFAULT_MIXES.index(mix) % 5
    envs = CarcassonneVectorEnv(
        250,
        opponents=None,
        players=players,
        expansions=mix.expansions,
        variants=dict(mix.variants),
        window=8,  # the planes do not matter here: the smallest are the fastest
        packed=True,
        copy=False,
    )
    assert envs.layout == rl.ENV_LAYOUT == "frontier"
    assert run_until(envs, GAMES) > 50 * GAMES  # every game has dozens of decisions


def random_nodes(players: int, expansions: list[str], games: int) -> list[c.Game]:
    """Copies of every decision node of random games."""
    out = []
    rng = np.random.default_rng(games)
    for seed in range(games):
        game = c.Game(players=players, expansions=expansions, seed=seed)
        while not game.is_terminal:
            if game.is_chance:
                game.apply_random_chance()
                continue
            out.append(game.clone())
            legal = game.legal_actions()
            game.apply(legal[int(rng.integers(len(legal)))])
    return out


@pytest.mark.parametrize(
    ("players", "expansions"),
    [
        (2, []),
        (3, ["abbey-mayor", "anniv20", "king-robber", "shrines", "city"]),
        (4, ["river2", "abbey-mayor"]),
    ],
)
def test_indexes_and_actions_round_trip_and_the_cells_line_up_with_the_planes(
    players: int, expansions: list[str]
) -> None:
    window = 48
    for game in random_nodes(players, expansions, 2):
        legal = game.legal_actions()
        indexes = [rl.action_index(game, a, layout="frontier") for a in legal]
        assert sorted(set(indexes)) == rl.legal_indices(game, layout="frontier")
        for action, index in zip(legal, indexes, strict=True):
            assert rl.index_to_action(game, index, layout="frontier") == action
        mask = rl.legal_actions_mask(game, layout="frontier")
        assert mask.dtype == np.int8 and np.flatnonzero(mask).tolist() == sorted(set(indexes))
        # The cells, in the planes of the same window (every board of these games lies inside):
        # the frontier rows are the empty cells next to a tile, row-major, the tile rows the tiles.
        frontier, tiles = rl.action_cells(game, window)
        planes, _ = rl.encode(game, window=window)
        tile = np.pad(planes[rl.encoder(players, window).plane_names.index("tile")], 1)
        near = tile[:-2, 1:-1] | tile[2:, 1:-1] | tile[1:-1, :-2] | tile[1:-1, 2:]
        expected = np.argwhere((tile[1:-1, 1:-1] == 0) & (near == 1))  # row-major
        count = len(expected)
        assert np.array_equal(frontier[:count], expected) and (frontier[count:] == rl.NO_CELL).all()
        placed = len(game.core_state().placed_tiles())
        assert all(tile[row + 1, column + 1] == 1 for row, column in tiles[:placed])
        assert (tiles[placed:] == rl.NO_CELL).all()


def test_an_index_beyond_the_boards_cells_and_an_action_off_the_frontier_are_refused() -> None:
    game = c.Game(players=2, seed=1)
    game.apply_random_chance()
    space = rl.action_space(layout="frontier")
    place = dict((name, start) for name, start, _ in space.blocks)["place"]
    # The start tile has 4 frontier cells: 0 to 3.
    assert rl.index_to_action(game, place + 3 * 4, layout="frontier").text.startswith("place")
    with pytest.raises(c.IllegalActionError, match="frontier cell 4; the board has 4"):
        rl.index_to_action(game, place + 4 * 4, layout="frontier")
    with pytest.raises(c.IllegalActionError, match="frontier layout"):
        rl.action_index(game, "place 5,5 r0", layout="frontier")
    with pytest.raises(ValueError, match="unknown action layout 'grid'"):
        rl.action_space(layout="grid")
    with pytest.raises(ValueError, match="unknown action layout"):
        CarcassonneVectorEnv(2, layout="grid")


def test_the_vector_envs_legal_lists_and_samples_are_its_masks() -> None:
    envs = CarcassonneVectorEnv(16, opponents=["random"], players=2, expansions=["abbey-mayor", "anniv20"])
    obs, _ = envs.reset(seed=4)
    assert obs["action_mask"].dtype == np.int8
    for _ in range(40):
        offsets, indices = envs.legal()
        assert offsets.shape == (17,) and offsets[0] == 0 and offsets[-1] == len(indices)
        for i in range(16):
            assert (
                indices[offsets[i] : offsets[i + 1]].tolist()
                == np.flatnonzero(obs["action_mask"][i]).tolist()
            )
        actions = envs.sample_legal()
        assert actions.dtype == np.int64
        assert all(obs["action_mask"][i, a] == 1 for i, a in enumerate(actions))
        obs = envs.step(actions)[0]
    # Seeded: the same seed, the same draws; every legal index is drawn at a node with several.
    first = envs.sample_legal(seed=7)
    assert np.array_equal(envs.sample_legal(seed=7), first)
    offsets, indices = envs.legal()
    game = int(np.argmax(np.diff(offsets)))
    drawn = {int(envs.sample_legal()[game]) for _ in range(3000)}
    assert drawn == set(indices[offsets[game] : offsets[game + 1]].tolist())


def test_the_cell_lists_are_the_observations_in_both_environments() -> None:
    envs = CarcassonneVectorEnv(3, opponents=["random"], window=16)
    obs, _ = envs.reset(seed=2)
    for _ in range(30):
        obs = envs.step(envs.sample_legal())[0]
    for i in range(3):
        frontier, tiles = rl.action_cells(envs.state(i), 16)
        assert np.array_equal(obs["frontier"][i], frontier) and np.array_equal(obs["tiles"][i], tiles)
    assert envs.observation_space.contains(obs)
    window = CarcassonneVectorEnv(2, opponents=["random"], layout="window", window=16)
    obs, _ = window.reset(seed=2)
    assert "frontier" not in obs and window.num_actions == rl.num_distinct_actions(window=16, layout="window")


def test_an_index_from_the_environment_means_the_same_action_to_the_rl_functions_defaults() -> None:
    """The environments and the `rl` functions share one default layout: an index a vector
    environment takes, decoded by rl.index_to_action without arguments and applied to a copy of
    the game, gives the game the environment reached; the masks, the legal indexes and the
    size agree too, in the Gymnasium and PettingZoo environments as well."""
    envs = CarcassonneVectorEnv(4, opponents=None)  # self-play: no opponent moves after a step
    obs, _ = envs.reset(seed=5)
    assert rl.num_distinct_actions() == envs.num_actions == CarcassonneEnv().action_space.n
    assert raw_env().action_space("player_0").n == envs.num_actions
    for _ in range(60):
        actions = envs.sample_legal()
        expected = []
        for i, index in enumerate(actions):
            game = envs.state(i)
            np.testing.assert_array_equal(rl.legal_actions_mask(game), obs["action_mask"][i])
            assert rl.legal_indices(game) == np.flatnonzero(obs["action_mask"][i]).tolist()
            action = rl.index_to_action(game, int(index))
            assert rl.action_index(game, action) == index
            game.apply(action.code)
            while game.is_chance():  # the draw the environment made: the state's own PRNG
                game.apply(game.sample_chance())
            expected.append(game)
        obs, _, terminated, _, _ = envs.step(actions)
        for i, game in enumerate(expected):
            if not terminated[i]:
                assert envs.state(i) == game


def test_a_window_without_the_window_layout_is_refused() -> None:
    """A `window=` numbers nothing in the frontier layout: a call that gives one meant the
    window layout (the old default), so it is told to say so instead of silently changing."""
    game = c.Game(players=2, seed=1)
    game.apply_random_chance()
    calls = [
        lambda: rl.action_space(16),
        lambda: rl.num_distinct_actions(window=16),
        lambda: rl.legal_actions_mask(game, window=16),
        lambda: rl.legal_actions_masks([game], window=16),
        lambda: rl.legal_indices(game, 16),
        lambda: rl.action_index(game, game.legal_actions()[0], window=16),
        lambda: rl.index_to_action(game, 100, window=16),
    ]
    for call in calls:
        with pytest.raises(ValueError, match='layout="window"'):
            call()
    assert rl.num_distinct_actions(window=16, layout="window") == 9369
    assert rl.legal_indices(game, 16, "window") != rl.legal_indices(game)
