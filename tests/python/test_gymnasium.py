"""carcassonne.rl.gymnasium (one seat against opponents) and carcassonne.rl.vector (N games
stepped in C++)."""

from __future__ import annotations

import numpy as np
import pytest
from gymnasium.utils.env_checker import check_env

import carcassonne as c
from carcassonne.mixes import DEFAULT_MIXES, Mix
from carcassonne.rl.gymnasium import CarcassonneEnv
from carcassonne.rl.vector import CarcassonneVectorEnv


def play_out(env: CarcassonneEnv, seed: int) -> tuple[list[int], float, dict]:
    """Plays random legal moves; returns the actions, the last reward, the info."""
    obs, info = env.reset(seed=seed)
    rng = np.random.default_rng(seed)
    actions = []
    while True:
        action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
        actions.append(action)
        obs, reward, terminated, truncated, info = env.step(action)
        assert not truncated
        if terminated:
            return actions, reward, info


@pytest.mark.parametrize("opponents", [["greedy"], ["random", "greedy"]])
def test_check_env_passes(opponents: list[str]) -> None:
    check_env(CarcassonneEnv(opponents=opponents), skip_render_check=True)


def test_an_episode_ends_with_the_learners_win_share_and_a_seed_fixes_it() -> None:
    env = CarcassonneEnv(opponents=["greedy"], seat=1)
    actions, reward, info = play_out(env, seed=5)
    assert info["seat"] == 1
    assert env.game is not None and env.game.is_terminal
    assert reward == env.game.returns()[1]
    assert info["scores"] == env.game.scores
    assert play_out(CarcassonneEnv(opponents=["greedy"], seat=1), seed=5)[0] == actions
    # A reset without a seed continues the seeded stream: another game, the same for two envs.
    again = CarcassonneEnv(opponents=["greedy"], seat=1)
    again.reset(seed=5)
    env.reset(seed=5)
    assert env.reset()[0]["globals"].tolist() == again.reset()[0]["globals"].tolist()


def test_a_python_opponent_plays_its_seat() -> None:
    moves = []

    def opponent(game: c.Game) -> c.Action:
        moves.append(game.current_player)
        return game.legal_actions()[0]

    env = CarcassonneEnv(opponents=[opponent], seat=0)
    play_out(env, seed=2)
    assert moves and set(moves) == {1}


def test_an_illegal_action_ends_the_episode_or_raises() -> None:
    env = CarcassonneEnv(opponents=["random"], seat=0)
    obs, _ = env.reset(seed=1)
    illegal = int(np.flatnonzero(obs["action_mask"] == 0)[0])
    _, reward, terminated, _, info = env.step(illegal)
    assert (reward, terminated, info["illegal_action"]) == (-1.0, True, True)
    strict = CarcassonneEnv(opponents=["random"], seat=0, illegal_reward=None)
    strict.reset(seed=1)
    before = strict.game.history if strict.game else None
    with pytest.raises(c.IllegalActionError, match="not legal"):
        strict.step(illegal)
    assert strict.game is not None and strict.game.history == before


RNG = np.random.default_rng(0)


def random_legal(mask: np.ndarray) -> np.ndarray:
    """A random legal index per game (the board stays within the window, unlike always-first)."""
    return np.array([RNG.choice(np.flatnonzero(row)) for row in mask])


def test_the_vector_env_writes_each_games_observation_and_mask() -> None:
    envs = CarcassonneVectorEnv(8, opponents=["greedy"], window=24)
    obs, info = envs.reset(seed=3)
    for _ in range(30):
        obs, _, _, _, info = envs.step(random_legal(obs["action_mask"]))
    encoder = c.rl.encoder(2, 24)
    for i in range(8):
        state = envs.state(i)
        assert info["player"][i] == state.current_player()
        planes, globals_ = encoder.encode(state, state.current_player())
        assert np.array_equal(obs["planes"][i], planes)
        assert np.array_equal(obs["globals"][i], globals_)
        indices, outside = c.rl.action_space(
            24 if envs.layout == "window" else None, envs.layout
        ).legal_indices(state)
        assert np.flatnonzero(obs["action_mask"][i]).tolist() == indices
        assert info["outside"][i] == outside


def test_packed_observations_unpack_to_the_plain_ones() -> None:
    plain = CarcassonneVectorEnv(4, opponents=["random"], window=16)
    packed = CarcassonneVectorEnv(4, opponents=["random"], window=16, packed=True)
    a, _ = plain.reset(seed=9)
    b, _ = packed.reset(seed=9)
    for _ in range(20):
        unpacked = packed.unpack(b)
        assert np.array_equal(unpacked["planes"], np.minimum(a["planes"], 1))
        assert np.array_equal(unpacked["action_mask"], a["action_mask"])
        actions = random_legal(a["action_mask"])
        a = plain.step(actions)[0]
        b = packed.step(actions)[0]
    assert b["planes"].nbytes * 8 < a["planes"].nbytes + 8 * 4 * 16


def test_ended_games_report_their_reward_and_restart() -> None:
    envs = CarcassonneVectorEnv(4, opponents=["random"], seat=0)
    obs, _ = envs.reset(seed=1)
    ended = 0
    for _ in range(200):
        obs, reward, terminated, _, info = envs.step(random_legal(obs["action_mask"]))
        for i in np.flatnonzero(terminated):
            ended += 1
            assert reward[i] == info["returns"][i][0]
            assert info["returns"][i].sum() == pytest.approx(1.0)
            assert envs.state(int(i)).turn_number() <= 2  # the next game has begun
        assert not reward[~terminated].any()
    assert ended >= 4


def test_self_play_asks_every_seat_and_a_bad_action_moves_no_game() -> None:
    envs = CarcassonneVectorEnv(3, opponents=None, players=3)
    obs, info = envs.reset(seed=2)
    seats = set()
    for _ in range(12):
        seats.update(info["player"].tolist())
        obs, _, _, _, info = envs.step(random_legal(obs["action_mask"]))
    assert seats == {0, 1, 2}
    turns = [envs.state(i).turn_number() for i in range(3)]
    actions = random_legal(obs["action_mask"])
    actions[2] = int(np.flatnonzero(obs["action_mask"][2] == 0)[0])
    with pytest.raises(c.IllegalActionError, match="game 2"):
        envs.step(actions)
    assert [envs.state(i).turn_number() for i in range(3)] == turns
    with pytest.raises(c.SearchError, match="one opponent per other seat"):
        CarcassonneVectorEnv(2, opponents=["random", "random"], players=2)


@pytest.mark.parametrize(
    ("players", "expansions", "opponents", "window", "layout"),
    [
        (2, [], ["random"], 16, "frontier"),
        (3, ["abbey-mayor", "king-robber"], None, 24, "window"),
        (2, ["city", "shrines"], ["greedy"], 32, "frontier"),
        (4, ["river2", "anniv20", "abbey-mayor"], None, 20, "window"),
    ],
)
def test_updated_observations_equal_whole_encodings_at_every_step(
    players: int, expansions: list[str], opponents: list[str] | None, window: int, layout: str
) -> None:
    """The environment writes only what changed on the board (the byte planes and masks of the
    last node are cleared where they were set); at every step, also after a game ended and the
    next began in its slot, each game's planes, globals and mask are those the encoder writes
    whole, bit-packed too."""
    kwargs = {
        "players": players,
        "expansions": expansions,
        "opponents": opponents,
        "window": window,
        "layout": layout,
    }
    plain = CarcassonneVectorEnv(3, **kwargs)  # type: ignore[arg-type]
    packed = CarcassonneVectorEnv(3, packed=True, **kwargs)  # type: ignore[arg-type]
    a, info = plain.reset(seed=5)
    b, _ = packed.reset(seed=5)
    encoder, space = (
        c.rl.encoder(players, window),
        c.rl.action_space(window if layout == "window" else None, layout),
    )
    restarted = 0
    for _ in range(400):
        for i in range(3):
            state = plain.state(i)
            planes, globals_ = encoder.encode(state, int(info["player"][i]))
            assert np.array_equal(a["planes"][i], planes)
            assert np.array_equal(a["globals"][i], globals_)
            mask = np.zeros(space.size, np.uint8)
            mask[space.legal_indices(state)[0]] = 1
            assert np.array_equal(a["action_mask"][i], mask)
            assert np.array_equal(b["planes"][i], np.packbits(planes.reshape(-1) > 0, bitorder="little"))
            assert np.array_equal(b["globals"][i], globals_)
            assert np.array_equal(b["action_mask"][i], np.packbits(mask, bitorder="little"))
        actions = random_legal(a["action_mask"])
        a, _, terminated, _, info = plain.step(actions)
        b = packed.step(actions)[0]
        restarted += int(terminated.sum())
        if restarted >= 2:
            break
    assert restarted >= 2  # the comparison covered games that began by autoreset


def test_outputs_shared_without_copies_are_read_only() -> None:
    """Without copies the arrays are the environment's own: a write from Python, which the next
    step would not clear, is refused."""
    envs = CarcassonneVectorEnv(2, opponents=["random"], window=16, copy=False)
    obs, _ = envs.reset(seed=1)
    with pytest.raises(ValueError, match="read-only"):
        obs["planes"][0, 0, 0, 0] = 1
    with pytest.raises(ValueError, match="read-only"):
        obs["action_mask"][:] = 0
    obs = envs.step(random_legal(obs["action_mask"]))[0]
    assert obs["action_mask"].any(axis=1).all()


def test_gymnasiums_masked_sample_takes_both_environments_masks() -> None:
    """Both environments' masks are int8, the dtype Gymnasium's Discrete.sample(mask=...) and
    MultiDiscrete.sample(mask=...) ask for."""
    env = CarcassonneEnv(opponents=["random"])
    obs, _ = env.reset(seed=3)
    assert obs["action_mask"].dtype == np.int8
    for _ in range(5):
        action = env.action_space.sample(mask=obs["action_mask"])
        assert obs["action_mask"][action] == 1
        obs = env.step(action)[0]
    for packed in (False, True):
        envs = CarcassonneVectorEnv(3, opponents=["random"], window=16, packed=packed)
        obs, _ = envs.reset(seed=3)
        masks = envs.unpack(obs)["action_mask"]
        assert masks.dtype == np.int8 and envs.single_observation_space["action_mask"].dtype == (
            np.uint8 if packed else np.int8
        )
        assert envs.observation_space.contains(obs)
        for _ in range(5):
            one = envs.single_action_space.sample(mask=masks[0])
            actions = envs.action_space.sample(mask=tuple(masks))
            assert masks[0][one] == 1 and all(masks[i][a] == 1 for i, a in enumerate(actions))
            masks = envs.unpack(envs.step(actions)[0])["action_mask"]


def test_a_step_takes_one_whole_index_and_says_what_else_it_wants() -> None:
    env = CarcassonneEnv(opponents=["random"], illegal_reward=None)
    obs, _ = env.reset(seed=4)
    index = int(np.flatnonzero(obs["action_mask"])[0])
    obs = env.step(np.array([index]))[0]  # a one-element array, as a policy may give
    obs = env.step(np.int64(np.flatnonzero(obs["action_mask"])[0]))[0]
    index = int(np.flatnonzero(obs["action_mask"])[0])
    history = env.game.history if env.game else None
    with pytest.raises(TypeError, match=r"one integer, not an array of shape \(2,\)"):
        env.step(np.array([index, index]))
    with pytest.raises(ValueError, match="whole number"):
        env.step(index + 0.5)
    assert env.game is not None and env.game.history == history
    envs = CarcassonneVectorEnv(2, opponents=["random"])
    obs, _ = envs.reset(seed=1)
    actions = random_legal(obs["action_mask"])
    turns = [envs.state(i).turn_number() for i in range(2)]
    with pytest.raises(ValueError, match="whole numbers"):
        envs.step(actions + 0.5)
    assert [envs.state(i).turn_number() for i in range(2)] == turns
    envs.step(actions.astype(np.float64))  # whole numbers as floats are fine


def test_the_registered_id_makes_both_environments() -> None:
    """gymnasium.make and gymnasium.make_vec by name: the single environment and the C++ vector
    environment, each playing (registered when carcassonne.rl, or one of its environment
    modules, is imported)."""
    import gymnasium

    import carcassonne.rl

    env = gymnasium.make(carcassonne.rl.GYMNASIUM_ID, opponents=["greedy"])
    assert isinstance(env.unwrapped, CarcassonneEnv)
    obs, _ = env.reset(seed=2)
    obs, *_ = env.step(env.action_space.sample(mask=obs["action_mask"]))
    envs = gymnasium.make_vec("carcassonne/Carcassonne-v0", num_envs=4, window=16)
    assert isinstance(envs, CarcassonneVectorEnv) and envs.num_envs == 4
    obs, _ = envs.reset(seed=2)
    envs.step(envs.action_space.sample(mask=tuple(obs["action_mask"])))
    sync = gymnasium.make_vec("carcassonne/Carcassonne-v0", num_envs=2, vectorization_mode="sync")
    obs, _ = sync.reset(seed=2)
    sync.step(sync.action_space.sample(mask=tuple(obs["action_mask"])))


def test_importing_carcassonne_rl_after_gymnasium_registers_the_id() -> None:
    """In a fresh interpreter: `import gymnasium, carcassonne.rl` is enough for make_vec by name,
    and `rl.register_envs()` registers when gymnasium came second."""
    import subprocess
    import sys

    first = (
        "import gymnasium, carcassonne.rl; "
        "envs = gymnasium.make_vec('carcassonne/Carcassonne-v0', num_envs=2); print(type(envs).__name__)"
    )
    second = (
        "import carcassonne.rl, gymnasium; carcassonne.rl.register_envs(); "
        "print(type(gymnasium.make('carcassonne/Carcassonne-v0').unwrapped).__name__)"
    )
    for code, name in ((first, "CarcassonneVectorEnv"), (second, "CarcassonneEnv")):
        out = subprocess.run(
            [sys.executable, "-c", code], capture_output=True, text=True, check=True, timeout=120
        )
        assert out.stdout.strip() == name


@pytest.mark.parametrize(
    ("mix", "opponents"),
    [(mix, None if i % 2 else ["random"]) for i, mix in enumerate(DEFAULT_MIXES)],
    ids=[mix.name for mix in DEFAULT_MIXES],
)
def test_every_mix_observes_as_a_whole_encoding_at_every_step(mix: Mix, opponents: list[str] | None) -> None:
    """Each game's planes are updated from its last node (the tiles placed since, the tile flags
    that changed, all of it again when the window moves or the game is new): in random games of
    every rule mix, across autoresets and, in self-play, a new observer at every step, the planes,
    globals, masks and cells equal those of the state encoded whole, as bytes and bit-packed."""
    kwargs = {
        "expansions": mix.expansions,
        "variants": dict(mix.variants),
        "opponents": opponents,
        "window": 16,
    }
    plain = CarcassonneVectorEnv(2, **kwargs)  # type: ignore[arg-type]
    packed = CarcassonneVectorEnv(2, packed=True, **kwargs)  # type: ignore[arg-type]
    a, info = plain.reset(seed=11)
    b, _ = packed.reset(seed=11)
    encoder, space = c.rl.encoder(2, 16), c.rl.action_space()
    restarted = 0
    for _ in range(300):
        for i in range(2):
            state, player = plain.state(i), int(info["player"][i])
            planes, globals_ = encoder.encode(state, player)
            bits = np.packbits(planes.reshape(-1) > 0, bitorder="little")
            mask = np.zeros(space.size, np.uint8)
            mask[space.legal_indices(state)[0]] = 1
            frontier, tiles = space.cells(state, 16)
            for obs in (a, b):
                assert np.array_equal(obs["globals"][i], globals_)
                assert np.array_equal(obs["frontier"][i], frontier)
                assert np.array_equal(obs["tiles"][i], tiles)
            assert np.array_equal(a["planes"][i], planes)
            assert np.array_equal(a["action_mask"][i], mask)
            assert np.array_equal(b["planes"][i], bits)
            assert np.array_equal(b["action_mask"][i], np.packbits(mask, bitorder="little"))
        actions = plain.sample_legal()
        a, _, terminated, _, info = plain.step(actions)
        b = packed.step(actions)[0]
        restarted += int(terminated.sum())
        if restarted >= 2:
            break
    assert restarted >= 2  # games that began by autoreset were compared too
