"""Carcassonne: a fast C++20 rules engine with a Python API.

    from carcassonne import Game
    game = Game(players=2, seed=7)
    game.apply_random_chance()           # draw a tile with the game's own PRNG
    game.apply(game.legal_actions()[0])  # or an int code, or a string like "place 1,0 r2"

Whole games and searches run in C++ with the GIL released: play_random_games, play_game,
analyse (or Game.analyse: MCTS statistics of every candidate move) and arena (many games
between agents with win rates, confidence intervals and Elo). Agents are specs ("greedy",
"mcts:time=0.5") or your own Python agents (carcassonne.agents); choose_action is one move of a
built-in agent; Mcts(config, evaluator=fn) lets your model (fn: a LeafBatch -> values) value the
search's leaves, in batches, and search_many(states, config, fn) the leaves of many searches (a
self-play batch's games) in one call. Ctrl-C stops each of them
(KeyboardInterrupt). Errors are ValueError subclasses: ConfigError, IllegalActionError,
PositionError, RecordError, SearchError (all carcassonne.Error).
"""

from pathlib import Path as _Path

from . import _core
from ._core import (
    ACTION_KINDS,
    CAUSES,
    CHANCE_PLAYER,
    MAX_PLAYERS,
    MEEPLES_PER_PLAYER,
    PHASES,
    TERMINAL_PLAYER,
    ActionStats,
    ArenaConfig,
    ArenaResult,
    Config,
    ConfigError,
    EntrantStats,
    Error,
    GameRecord,
    GameResult,
    IllegalActionError,
    LeafBatch,
    Mcts,
    MctsConfig,
    Phase,
    Position,
    PositionError,
    SearchError,
    SearchResult,
    State,
    known_expansions,
    known_variants,
    parse_mcts_options,
    run_arena,
    search_many,
    tile_file,
    tile_kinds,
)
from .agents import Agent, BuiltinAgent, choose_action
from .game import RECORD_FORMAT, Action, Game, RecordError, make_config, play_random_games
from .search import analyse, arena, arena_summary, mcts_config, play_game

# eval=net / prior=net without net= read the network shipped in this package (docs/network.md).
_core.set_default_network_path(str(_Path(__file__).parent / "data" / "network-base-2p.carcnet"))
_core.set_value_net_dir(str(_Path(__file__).parent / "data"))

__version__ = "0.1.0"

# The errors are defined in _core and game; show them where users import them from.
for _error in (Error, ConfigError, IllegalActionError, PositionError, RecordError, SearchError):
    _error.__module__ = __name__
del _error

# ActionStats (C++) calls its action's code `action`; Action and analyse's dicts call it `code`.
ActionStats.code = property(  # type: ignore[assignment]
    lambda stats: stats.action, doc="The action's code (the same as `action`)."
)

__all__ = [
    "ACTION_KINDS",
    "CAUSES",
    "CHANCE_PLAYER",
    "MAX_PLAYERS",
    "MEEPLES_PER_PLAYER",
    "PHASES",
    "RECORD_FORMAT",
    "TERMINAL_PLAYER",
    "Action",
    "ActionStats",
    "Agent",
    "ArenaConfig",
    "ArenaResult",
    "BuiltinAgent",
    "Config",
    "ConfigError",
    "EntrantStats",
    "Error",
    "Game",
    "GameRecord",
    "GameResult",
    "IllegalActionError",
    "LeafBatch",
    "Mcts",
    "MctsConfig",
    "Phase",
    "Position",
    "PositionError",
    "RecordError",
    "SearchError",
    "SearchResult",
    "State",
    "__version__",
    "analyse",
    "arena",
    "arena_summary",
    "choose_action",
    "known_expansions",
    "known_variants",
    "make_config",
    "mcts_config",
    "parse_mcts_options",
    "play_game",
    "play_random_games",
    "run_arena",
    "search_many",
    "tile_file",
    "tile_kinds",
]
