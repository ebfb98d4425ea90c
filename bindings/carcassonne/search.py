"""MCTS analysis of a position, whole games between agents and the arena, run in C++ with the GIL
released.

`analyse(game, ...)` (also `Game.analyse`) returns every candidate action of a decision node
with its visits, mean value and every player's estimated win probability, as plain Python
data (the web page's hints, notebooks). `arena(...)` plays many games between agents and
returns an `ArenaResult` (win rates with 95% CIs, score margins, Elo, `report()`, `csv()`).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import _core
from ._common import _analyse, _int, _mcts_config
from ._core import SearchError
from .agents import AgentLike, _ArenaEntrant, as_player, split_agents
from .game import Game, make_config


def mcts_config(
    time: float | None = None, iterations: int | None = None, threads: int = 1, **options: Any
) -> _core.MctsConfig:
    """An MctsConfig from a budget (`time` seconds, `iterations`, `threads`) and the "mcts:..."
    agent options as keywords, e.g. mcts_config(iterations=500, c=1.2, rollout="greedy"). With
    neither budget given: 1000 iterations. Raises SearchError (a ValueError) for unknown options
    and bad values; TypeError for values that are not numbers or strings.

    The options (from the C++ table, search/mcts_options.cpp; time, iters and threads are given as the
    parameters above):
    """
    return _mcts_config(time, iterations, threads, options)


def _options_doc() -> str:
    """One line per "mcts:..." option of the C++ table: key, help, accepted values, default."""
    return "\n".join(
        f"    {o['key']}: {o['help']}; {o['values']} (default {o['default']})" for o in _core.mcts_options()
    )


mcts_config.__doc__ = (mcts_config.__doc__ or "") + _options_doc()


def analyse(
    game: Game | _core.State,
    time: float | None = None,
    iterations: int | None = None,
    threads: int = 1,
    seed: int = 0,
    **options: Any,
) -> list[dict[str, Any]]:
    """Searches the current decision node of a Game (or of a State, e.g. game.core_state()) and
    returns one dict per legal action, most visited first: {"action": text, "code", "visits",
    "value" (mean reward of the player to move), "prior", "win": [estimated win probability of
    every player]}.

    Budget: `time` seconds and/or `iterations` (default 1000 iterations). One thread with an
    iteration budget is deterministic for a given seed. `evaluator=fn` (with `batch_size=16`)
    lets a Python function value the leaves instead of rollouts, as `Mcts(config, evaluator=fn)`
    does (one thread). Raises SearchError (a ValueError) at a
    chance node, at the end of the game, and for bad options; TypeError for anything but a Game
    or a State."""
    if isinstance(game, Game):
        state = game.core_state()
    elif isinstance(game, _core.State):
        state = game
    else:
        raise TypeError(f"analyse needs a Game or a State, not {type(game).__name__}")
    return _analyse(state, time, iterations, threads, seed, options)


def arena(
    agents: str | Sequence[AgentLike] = ("mcts:iters=2000", "greedy"),
    deals: int = 10,
    players: int | None = None,
    expansions: Iterable[str] = (),
    variants: Mapping[str, str] | None = None,
    seed: int = 0,
    threads: int = 0,
    paired: bool = True,
    rotation: int | None = None,
    agent_seed: int = 1,
    csv: str | os.PathLike[str] | None = None,
    resume: bool = False,
    first_deal: int = 0,
    record_actions: bool = False,
    sprt: str | None = None,
) -> _core.ArenaResult:
    """Plays `deals` decks between the agents (one per seat; players defaults to their number),
    each deck once per seat rotation if `paired` (or only from seating `rotation`: seat s holds
    agent (s + rotation) mod players), over `threads` games at once (0: all cores),
    with the GIL released. `seed` picks the decks. Returns an ArenaResult: `entrants` (win_rate
    with win_low/win_high, margin, elo, ... per agent), `games`, `report()` and `csv()`.
    With `csv` (a path) each game is appended to that file as it finishes, so Ctrl-C loses only
    the games in play; `resume=True` then counts the games the file holds and plays the others
    (a file that does not exist yet holds none: the run starts it).
    A file of another run (e.g. other seeds or agents), one that cannot be read or written (a
    folder that does not exist: at once) raise SearchError, as do bad agents or counts (both
    ValueErrors); bad rules raise ConfigError.
    `agents` is a list of specs, or one string listing them ("greedy,mcts:iters=50,c=1"); an
    entry may also be a Python agent (a callable (game) -> action, or an object with act(game),
    optionally reset(seed) and name; carcassonne.agents). A run with a Python agent plays its
    games one at a time on one thread (`threads` is then ignored): the agent takes the GIL for
    its moves, the built-in agents of the game think without it. Its exceptions stop the run and
    are raised here; an illegal move raises IllegalActionError naming the agent.
    The decks are numbers first_deal .. first_deal + deals - 1 (a long run played in chunks).
    Each game's record has per seat the points by cause, figures placed by kind, tiles placed
    and rank; with `record_actions` also every action code and the MCTS agents' root visits.
    With `sprt` ("elo0=0,elo1=20[,alpha=0.05,beta=0.05]", 2 players) a sequential test of
    agent 0 against agent 1 stops the run as soon as it decides (`deals` is then the most it may
    play; the games in play are dropped); its state is the result's `sprt` (llr, decision 'H1',
    'H0' or 'continue'), and a resumed run starts from the file's games."""
    names, python = split_agents(agents)
    config = _core.ArenaConfig()
    config.game = make_config(len(names) if players is None else players, expansions, variants, seed)
    config.agents = names
    entrants = [None if a is None else _ArenaEntrant(a, config.game) for a in python]
    config.deals = _int("deals", deals, 1, 2**31 - 1, SearchError)
    config.first_deal = _int("first_deal", first_deal, 0, 2**31 - 1, SearchError)
    config.record_actions = bool(record_actions)
    config.threads = _int("threads", threads, 0, 2**31 - 1, SearchError)
    config.paired = bool(paired)
    if rotation is not None:
        config.rotation = _int("rotation", rotation, 0, 2**31 - 1, SearchError)  # < players: C++
    config.agent_seed = _int("agent_seed", agent_seed, 0, 2**64 - 1, SearchError)
    if sprt is not None:
        config.sprt = _core.SprtConfig(sprt)
    if resume and csv is None:
        raise SearchError("arena: resume needs a csv file")
    return _core.run_arena(
        config,
        "" if csv is None else os.fspath(csv),
        bool(resume),
        entrants if any(e is not None for e in entrants) else (),
    )


def play_game(
    agents: str | Sequence[Any] = ("greedy", "random"),
    players: int = 2,
    seed: int = 0,
    agent_seed: int | None = None,
    expansions: Iterable[str] = (),
    variants: Mapping[str, str] | None = None,
) -> _core.GameResult:
    """Plays one game in C++ between agents ("random", "greedy", "mcts:iters=500,c=1"; a list,
    or one string listing them: "greedy,mcts:iters=50,c=1"); seat i plays agents[i % len(agents)].
    The agents' own PRNG is seeded with agent_seed (default: seed). Bad agents raise SearchError;
    Ctrl-C stops the game at its next move (KeyboardInterrupt).

    An agent may also be a Python agent (a callable (game) -> action or an object with
    act(game), optionally reset(seed); carcassonne.agents): the game is then played from Python,
    each agent i reset with agent_seed + i and each built-in agent a BuiltinAgent seeded so."""
    config = make_config(players, expansions, variants, seed)
    if agent_seed is None:
        agent_seed = seed
    agent_seed = _int("agent_seed", agent_seed, 0, 2**64 - 1, _core.SearchError)
    names, python = split_agents(agents)
    if not names:
        raise _core.SearchError("play_game needs at least one agent")
    if all(a is None for a in python):
        return _core.play_game(config, names, agent_seed)
    entrants = [as_player(names[i] if a is None else a) for i, a in enumerate(python)]
    for i, entrant in enumerate(entrants):
        entrant.reset((agent_seed + i) % 2**64)
    game = Game(players, expansions, variants, seed)
    decisions = 0
    while not game.is_terminal:
        if game.is_chance:
            game.apply_random_chance()
            continue
        code = entrants[game.current_player % len(entrants)].move(game)
        game._apply_code(code, sampled=False)
        decisions += 1
    return _core.game_result(game._state, decisions)


def arena_summary(result: _core.ArenaResult) -> dict[str, Any]:
    """An ArenaResult as plain data: {"games", "seconds", "report", "entrants": [{agent, games,
    win_rate, win_ci, score, margin, margin_ci, elo, elo_ci, seconds_per_move,
    iterations_per_move}], "sides": [{agent, entrants, games, win_rate, win_ci, margin, margin_ci}],
    "sprt": None or {llr, decision, units}}."""
    return {
        "games": len(result.games),
        "seconds": result.seconds,
        "report": result.report(),
        "entrants": [
            {
                "agent": e.agent,
                "games": e.games,
                "win_rate": e.win_rate,
                "win_ci": (e.win_low, e.win_high),
                "score": e.score,
                "margin": e.margin,
                "margin_ci": (e.margin_low, e.margin_high),
                "elo": e.elo,
                "elo_ci": (e.elo_low, e.elo_high),
                "seconds_per_move": e.seconds_per_move,
                "iterations_per_move": e.iterations_per_move,
            }
            for e in result.entrants
        ],
        "sides": [
            {
                "agent": s.agent,
                "entrants": list(s.entrants),
                "games": s.games,
                "win_rate": s.win_rate,
                "win_ci": (s.win_low, s.win_high),
                "margin": s.margin,
                "margin_ci": (s.margin_low, s.margin_high),
            }
            for s in result.sides
        ],
        "sprt": None
        if result.sprt is None
        else {"llr": result.sprt.llr, "decision": result.sprt.decision, "units": result.sprt.units},
    }
