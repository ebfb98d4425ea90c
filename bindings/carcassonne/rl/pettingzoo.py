"""Carcassonne as a PettingZoo AEC environment.

    from carcassonne.rl.pettingzoo import env
    e = env(players=2, expansions=["abbey-mayor"])
    e.reset(seed=7)
    for agent in e.agent_iter():
        obs, reward, terminated, truncated, info = e.last()
        action = None if terminated else e.action_space(agent).sample(obs["action_mask"])
        e.step(action)

Agents are "player_0" ... in seat order; the agent to act is the engine's player to decide (a
player may decide out of turn: City moves, wagon moves, market moves). Observations are dicts:
"observation" (float32, the planes then the globals of carcassonne.rl, flattened, from the
agent's seat) and "action_mask" (int8 over the fixed action space); in the default action
layout, `layout="frontier"` (every legal action has an index), also "frontier" and "tiles"
(int16 [MAX_FRONTIER, 2] and [MAX_TILES, 2]: the (row, column) in the planes of the cells the
indexes name, carcassonne.rl.NO_CELL past the board's counts; docs/observation.md).
`layout="window"` numbers the window's cells instead. Chance nodes (tile draws)
are resolved inside the environment with the game's own PRNG, seeded by reset(seed=...), so a
seed and the actions fix the game. Rewards are 0 until the end, then each player's win share
(1/k for each of the k players with the top score, B-10). An illegal action raises
IllegalActionError.

The creators are named as in PettingZoo's own turn-based games (chess, go): `env(**kwargs)` (behind
PettingZoo's order-enforcing wrapper) and `raw_env(**kwargs)`. There is no `parallel_env`: one
player decides at a time, sometimes out of turn, so the game has no simultaneous steps.
Importing this module registers "carcassonne/carcassonne_v0" with PettingZoo's registry
(PettingZoo 1.27 and later): `pettingzoo.make("aec", "carcassonne/carcassonne_v0", players=3)`.
Needs `pettingzoo` and `gymnasium` (pip install ".[research]").
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, ClassVar

import numpy as np
from gymnasium import spaces
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers

from .. import _core
from .._common import _whole_number
from ..game import make_config
from . import DEFAULT_WINDOW, ENV_LAYOUT, WindowError, _layout_space, _register_pettingzoo, encoder
from .gymnasium import _cell_spaces

# An upper bound on any observation value (scores, counts), so the Box is finite.
_OBSERVATION_HIGH = 1.0e6


def env(**kwargs: Any) -> AECEnv:
    """The environment (raw_env's arguments) behind PettingZoo's order-enforcing wrapper."""
    return wrappers.OrderEnforcingWrapper(raw_env(**kwargs))


class raw_env(AECEnv):  # noqa: N801 (PettingZoo's naming convention)
    metadata: ClassVar[dict[str, Any]] = {
        "render_modes": ["ansi"],
        "name": "carcassonne_v0",
        "is_parallelizable": False,
    }

    def __init__(
        self,
        players: int = 2,
        expansions: Iterable[str] = (),
        variants: Mapping[str, str] | None = None,
        window: int = DEFAULT_WINDOW,
        render_mode: str | None = None,
        layout: str = ENV_LAYOUT,
    ) -> None:
        super().__init__()
        self._config = make_config(players, expansions, variants, 0).validated()
        self._window = window
        self._encoder = encoder(players, window)
        self._actions = _layout_space(layout, window)
        self.layout = layout
        self._planes = np.zeros(self._encoder.num_planes * window * window, np.uint8)
        self.render_mode = render_mode
        self.possible_agents = [f"player_{i}" for i in range(players)]
        size = self._encoder.num_planes * window * window + self._encoder.num_globals
        self._observation_size = size
        self.observation_spaces = {
            agent: spaces.Dict(
                {
                    "observation": spaces.Box(0.0, _OBSERVATION_HIGH, (size,), np.float32),
                    "action_mask": spaces.Box(0, 1, (self._actions.size,), np.int8),
                    **_cell_spaces(layout),
                }
            )
            for agent in self.possible_agents
        }
        self.action_spaces = {agent: spaces.Discrete(self._actions.size) for agent in self.possible_agents}
        self.core: _core.State | None = None
        self._seeds: np.random.Generator | None = None  # the stream reset(seed=...) starts

    def observation_space(self, agent: str) -> spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space:
        return self.action_spaces[agent]

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        # Gymnasium's convention: a seed starts a stream of games, and a reset without one plays
        # the stream's next game (OS entropy only before any seed was given).
        if seed is not None:
            self._seeds = np.random.default_rng(int(seed) % 2**64)
        elif self._seeds is not None:
            seed = int(self._seeds.integers(2**63))
        else:
            seed = int(np.random.SeedSequence().generate_state(1, np.uint64)[0])
        config = _core.Config(
            players=self._config.players,
            expansions=self._config.expansions,
            variants=self._config.variants,
            seed=int(seed) % 2**64,
        )
        self.core = _core.State(config)
        self._resolve_chance()
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {agent: {} for agent in self.agents}
        self.agent_selection = self.possible_agents[self.core.current_player()]

    def _resolve_chance(self) -> None:
        assert self.core is not None
        while self.core.is_chance():
            self.core.apply(self.core.sample_chance())

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        assert self.core is not None
        seat = self.possible_agents.index(agent)
        observation = np.empty(self._observation_size, np.float32)
        planes = self._encoder.num_planes * self._window * self._window
        self._encoder.encode_into(self.core, seat, self._planes, observation[planes:])
        observation[:planes] = self._planes.ravel()  # one float vector: planes, then globals
        mask = np.zeros(self._actions.size, np.int8)
        if self.core.current_player() == seat:
            indices, outside = self._actions.legal_indices(self.core)
            if outside:
                raise WindowError(f"{outside} legal action(s) lie outside the {self._window}-cell window")
            mask[indices] = 1
        obs: dict[str, np.ndarray] = {"observation": observation, "action_mask": mask}
        if self.layout == "frontier":
            obs["frontier"], obs["tiles"] = self._actions.cells(self.core, self._window)
        return obs

    def step(self, action: int | None) -> None:
        if self.terminations[self.agent_selection] or self.truncations[self.agent_selection]:
            self._was_dead_step(action)
            return
        assert self.core is not None
        if action is None:
            raise _core.IllegalActionError(f"{self.agent_selection} must act: None is for finished agents")
        index = _whole_number("step's action (one action index)", action)
        if not 0 <= index < self._actions.size:
            raise _core.IllegalActionError(
                f"action index {index} is outside the action space [0, {self._actions.size})"
            )
        self.core.apply(self._actions.action(self.core, index))
        self._resolve_chance()
        self._cumulative_rewards[self.agent_selection] = 0.0
        if self.core.is_terminal():
            for agent, share in zip(self.agents, self.core.returns(), strict=True):
                self.rewards[agent] = float(share)
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.agent_selection = self.possible_agents[self.core.current_player()]
        self._accumulate_rewards()

    def render(self) -> str | None:
        if self.render_mode == "ansi" and self.core is not None:
            return self.core.to_string()
        return None

    def close(self) -> None:
        pass


_register_pettingzoo()  # pettingzoo.make("aec", "carcassonne/carcassonne_v0")
