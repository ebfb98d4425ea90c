"""Agents: whatever chooses a move. Built-in agents are named by specs ("random", "greedy",
"mcts:time=0.5,threads=2", "ref-2026-12"); your own agent is a callable `(game) -> action` or an
object with `act(game) -> action` (the `Agent` protocol), optionally `reset(seed)` (called at the
start of every game with a seed of its own) and `name` (reports and csv files). An action is an
`Action`, its code or its text. Either kind goes wherever an agent goes: `arena`, `play_game`,
the balance sweeps' line-ups, the Gymnasium environment's opponents.

    from carcassonne import BuiltinAgent, arena, choose_action
    choose_action(game, "mcts:time=0.1")               # one move of a built-in agent
    def first(game): return game.legal_actions()[0]
    arena([first, "greedy"], deals=20).report()         # paired decks, intervals, Elo, SPRT

The arena plays a run with a Python agent one game at a time, on one thread: the agent takes
the GIL for its move and the built-in agents of the same game think without it.

`MctsAgent(evaluator=fn, iterations=...)` is the C++ search with your model valuing its leaves
(`carcassonne.Mcts(config, evaluator=fn)`; docs/research.md): an agent like any other.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from typing import Any, Protocol, TypeAlias, runtime_checkable

from . import _core
from ._common import _agents, _int, _mcts_config
from ._core import IllegalActionError, SearchError
from .game import Action, Game

ActionLike: TypeAlias = Action | int | str


@runtime_checkable
class Agent(Protocol):
    """A player written in Python: `act(game)` returns a legal action of `game` (an Action, its
    code or its text) at a decision node; the game is the agent's own copy, so it may look ahead
    by applying moves to it. Optional: `reset(seed)`, called at the start of every game, and a
    `name` attribute."""

    def act(self, game: Game) -> ActionLike: ...


AgentLike: TypeAlias = "str | Agent | Callable[[Game], ActionLike]"


class BuiltinAgent:
    """A built-in agent from its spec, one move at a time (`act`), with its own seeded PRNG; an
    MCTS agent keeps its tree between moves. Raises SearchError for a bad spec."""

    def __init__(self, spec: str = "greedy", seed: int = 0) -> None:
        if not isinstance(spec, str):
            raise TypeError(f"spec must be a string, not {type(spec).__name__}")
        self._agent = _core.BuiltinAgent(spec, _int("seed", seed, 0, 2**64 - 1, SearchError))
        self.name = spec

    def act(self, game: Game | _core.State) -> Action:
        """The agent's move at a decision node (SearchError at a draw or the end)."""
        state = game._state if isinstance(game, Game) else game
        if not isinstance(state, _core.State):
            raise TypeError(f"act needs a Game or a State, not {type(game).__name__}")
        code = self._agent.choose(state)
        return Action(code, state.action_to_string(code))

    def move(self, game: Game) -> int:
        """act() as a code (the protocol PythonPlayer shares; the state is copied in C++)."""
        return int(self._agent.choose(game._state))

    def reset(self, seed: int = 0) -> None:
        """A fresh agent (an MCTS agent forgets its tree) with its PRNG seeded by `seed`."""
        self._agent.reset(_int("seed", seed, 0, 2**64 - 1, SearchError))

    def __repr__(self) -> str:
        return f"BuiltinAgent({self.name!r})"


class MctsAgent:
    """The C++ search as a Python agent, usually with a Python evaluator valuing its leaves:

        agent = MctsAgent(evaluator=fn, iterations=400, batch_size=16)
        arena([agent, "greedy"], deals=20)

    `evaluator`: fn(batch: LeafBatch) -> values or (values, priors), as for
    `carcassonne.Mcts(config, evaluator=fn)`; None searches with the built-in rollouts. `time`,
    `iterations` and the "mcts:..." options as keywords (search.mcts_config) set the search; it
    runs on one thread, `batch_size` iterations per evaluator call, and keeps its tree between
    moves (reuse). A forced move is played without search. `last_result` holds the last search's
    SearchResult (None after a forced move), which the arena reads after each move for its
    iterations column and the recorded root visits; `searches` and `total_iterations` count them
    all. SearchError for bad options or batch sizes."""

    def __init__(
        self,
        evaluator: Callable[[_core.LeafBatch], Any] | None = None,
        time: float | None = None,
        iterations: int | None = None,
        batch_size: int = 16,
        window: int = _core.DEFAULT_WINDOW,
        name: str | None = None,
        seed: int = 0,
        **options: Any,
    ) -> None:
        config = _mcts_config(time, iterations, 1, options)
        batch_size = _int("batch_size", batch_size, 1, 65536, SearchError)
        self._mcts = _core.Mcts(config, evaluator=evaluator, batch_size=batch_size, window=window)
        if name is None:
            name = (
                "mcts"
                if evaluator is None
                else "mcts+" + str(getattr(evaluator, "__name__", type(evaluator).__name__))
            )
        self.name = name
        self._rng = random.Random(_int("seed", seed, 0, 2**64 - 1, SearchError))
        self.last_result: _core.SearchResult | None = None
        self.searches = 0
        self.total_iterations = 0

    @property
    def config(self) -> _core.MctsConfig:
        """A copy of the search's config."""
        return self._mcts.config

    def reset(self, seed: int = 0) -> None:
        """A new game: the tree is forgotten and the searches' seeds restart from `seed`."""
        self._mcts.clear()
        self._rng = random.Random(_int("seed", seed, 0, 2**64 - 1, SearchError))
        self.last_result = None

    def act(self, game: Game | _core.State) -> Action:
        """The most visited action of a search from the game's decision node."""
        state = game._state if isinstance(game, Game) else game
        if not isinstance(state, _core.State):
            raise TypeError(f"act needs a Game or a State, not {type(game).__name__}")
        legal = state.legal_actions()
        if len(legal) == 1 and not state.is_chance():
            self.last_result = None
            code = int(legal[0])
        else:
            self.last_result = self._mcts.search(state, self._rng.getrandbits(64))
            self.searches += 1
            self.total_iterations += self.last_result.iterations
            code = self.last_result.best
        return Action(code, state.action_to_string(code))

    def __repr__(self) -> str:
        return f"MctsAgent({self.name!r})"


def choose_action(game: Game | _core.State, agent: str = "greedy", seed: int = 0) -> Action:
    """The move a built-in agent ("random", "greedy", "mcts:time=0.1", ...) makes at the game's
    decision node, searched in C++ with the GIL released. SearchError for a bad spec or a node
    that is not a decision."""
    return BuiltinAgent(agent, seed).act(game)


def agent_name(agent: Any) -> str:
    """The name reports use: a spec itself, else the agent's `name`, else the function's or the
    class's name."""
    if isinstance(agent, str):
        return agent
    name = getattr(agent, "name", None)
    if name is None:
        name = getattr(agent, "__name__", None) or type(agent).__name__
    if not isinstance(name, str) or not name or any(c in name for c in '"\n\r'):
        raise SearchError(f"agent name {name!r}: expected a non-empty string without quotes or line breaks")
    return name


def _act_function(agent: Any) -> Callable[[Game], ActionLike]:
    if isinstance(agent, Agent):
        return agent.act
    if callable(agent):
        return agent  # type: ignore[no-any-return]
    raise TypeError(
        f"an agent is a spec string, a callable (game) -> action or an object with act(game); "
        f"not {type(agent).__name__}"
    )


class PythonPlayer:
    """One Python agent in a game: `reset(seed)` if it has one, `move(game)` its action checked
    against the game (IllegalActionError naming the agent for an illegal or malformed one)."""

    def __init__(self, agent: Any) -> None:
        self.agent = agent
        self.name = agent_name(agent)
        self._act = _act_function(agent)

    def reset(self, seed: int) -> None:
        reset = getattr(self.agent, "reset", None)
        if callable(reset):
            reset(seed)

    def move(self, game: Game) -> int:
        """The agent's move at `game` as a legal action code (the agent gets its own copy)."""
        action = self._act(game.clone())
        try:
            code = game._code(action)
        except (IllegalActionError, TypeError) as e:
            raise IllegalActionError(f"agent {self.name!r} returned {action!r}: {e}") from None
        if not game._state.is_legal(code):
            raise IllegalActionError(f"agent {self.name!r} chose an illegal action: {action!r}")
        return code


class _ArenaEntrant(PythonPlayer):
    """A Python agent as the C++ arena calls it (bindings/register_agents.cpp): reset(seed) at
    the start of a game, choose(state) -> code at each of its decisions."""

    def __init__(self, agent: Any, config: _core.Config) -> None:
        super().__init__(agent)
        self._config = config

    def choose(self, state: _core.State) -> int:
        return self.move(Game._at_state(state, self._config))


def as_player(agent: Any, seed: int = 0) -> PythonPlayer | BuiltinAgent:
    """An agent ready to play from Python: a BuiltinAgent for a spec, else a PythonPlayer."""
    if isinstance(agent, str):
        return BuiltinAgent(agent, seed)
    return PythonPlayer(agent)


def split_agents(agents: Any) -> tuple[list[str], list[Any]]:
    """(names, Python agents): the names are the specs and the Python agents' names; the second
    list holds None for a spec. One string lists specs ("greedy,mcts:iters=50,c=1"). A spec
    "py:module:Agent" (see load_agent) is a Python agent, named by that reference."""
    if isinstance(agents, str):
        agents = _agents(agents)
    if not isinstance(agents, Sequence):
        raise TypeError(
            f"agents must be a list (specs, callables, Agent objects), not {type(agents).__name__}"
        )
    names: list[str] = []
    python: list[Any] = []
    for agent in agents:
        if isinstance(agent, str) and agent.startswith(REFERENCE_PREFIX):
            names.append(agent)
            python.append(load_agent(agent))
        elif isinstance(agent, str):
            names.append(agent)
            python.append(None)
        else:
            _act_function(agent)  # TypeError for what is not an agent
            names.append(agent_name(agent))
            python.append(agent)
    return names, python


# A Python agent named by where it lives, for what records agents by name (balance sweeps).
REFERENCE_PREFIX = "py:"


def _split_reference(reference: str) -> tuple[str, str, bool]:
    """(module, attribute, called): "py:pkg.mod:attr" or "py:pkg.mod:factory()"."""
    body = reference[len(REFERENCE_PREFIX) :] if reference.startswith(REFERENCE_PREFIX) else ""
    module, _, attribute = body.partition(":")
    called = attribute.endswith("()")
    attribute = attribute.removesuffix("()")
    names = [*module.split("."), *attribute.split(".")]
    if not module or not attribute or not all(n.isidentifier() for n in names):
        raise SearchError(
            f"a Python agent is named py:module:attribute (an Agent class, an agent object, a "
            f"callable (game) -> action) or py:module:factory() (called for each agent), e.g. "
            f"py:my_agents:FirstLegal; not '{reference}'"
        )
    return module, attribute, called


def _import_attribute(reference: str) -> tuple[Any, Any, bool]:
    """(module, the named object, called) of a reference; SearchError if it cannot be found."""
    import importlib

    module_name, attribute, called = _split_reference(reference)
    try:
        module = importlib.import_module(module_name)
    except Exception as e:  # ImportError, or whatever the module raises as it loads
        raise SearchError(f"{reference}: cannot import {module_name} ({type(e).__name__}: {e})") from e
    found: Any = module
    for part in attribute.split("."):
        if not hasattr(found, part):
            raise SearchError(f"{reference}: {module_name} has no attribute {attribute}")
        found = getattr(found, part)
    return module, found, called


def load_agent(reference: str) -> Any:
    """A new agent from its reference: "py:package.module:Class" makes Class() (an Agent class),
    "py:package.module:factory()" calls factory() for it, any other name is the object itself
    (an agent object or a callable (game) -> action, shared wherever it plays). SearchError for
    a name that cannot be imported or that is no agent."""
    _, found, called = _import_attribute(reference)
    try:
        agent = found() if called or isinstance(found, type) else found
    except Exception as e:
        raise SearchError(f"{reference}: making the agent raised {type(e).__name__}: {e}") from e
    if isinstance(agent, type) or not (isinstance(agent, Agent) or callable(agent)):
        raise SearchError(
            f"{reference} is {'a class' if isinstance(agent, type) else type(agent).__name__ + ' object'}, "
            "not an agent: an Agent class (with act(game)), an object with act(game), a callable "
            "(game) -> action, or a factory named with '()'"
        )
    return agent


def reference_record(reference: str) -> dict[str, str]:
    """What identifies a referenced agent's code, checking that it loads: the reference, a hash
    of its module's file (the module itself, not what it imports) and the `__version__` of its
    top-level package ("" when it has none)."""
    import hashlib
    import sys
    from pathlib import Path

    load_agent(reference)
    module, _, _ = _import_attribute(reference)
    path = getattr(module, "__file__", None)
    digest = hashlib.sha256(Path(path).read_bytes()).hexdigest()[:16] if path else "no file"
    version = getattr(sys.modules.get(module.__name__.partition(".")[0]), "__version__", "")
    return {"reference": reference, "module_sha256": digest, "version": str(version)}
