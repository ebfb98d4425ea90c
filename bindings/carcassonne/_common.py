"""Argument checks and the analysis call shared by game.py and search.py (search.py imports
game.py; game.py imports only this, so neither module imports the other)."""

from __future__ import annotations

import math
import operator
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from . import _core
from ._core import ConfigError, SearchError


def _int(name: str, value: Any, lo: int, hi: int, error: type[Exception]) -> int:
    """Returns value if it is an int in [lo, hi]; raises TypeError or `error` otherwise."""
    if isinstance(value, bool):
        raise TypeError(f"{name} must be an int, not bool")
    try:
        number = operator.index(value)  # ints, and int-likes such as numpy integers
    except TypeError:
        raise TypeError(f"{name} must be an int, not {type(value).__name__}") from None
    if not lo <= number <= hi:
        raise error(f"{name} out of range: {number}")
    return number


def _whole_number(what: str, value: Any) -> int:
    """`value` as an int: an int or a numpy integer, a 0-d or one-element array of one, or a float
    without a fractional part. TypeError for anything else, ValueError for a fraction: an index
    is never rounded silently."""
    if getattr(value, "shape", None) is not None:  # a numpy array or scalar (numpy is optional)
        if value.size != 1:
            raise TypeError(
                f"{what} must be one integer, not an array of shape {tuple(value.shape)} "
                "(pass an int, or a one-element array)"
            )
        value = value.item()
    if isinstance(value, bool):
        raise TypeError(f"{what} must be an integer, not a bool")
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError(f"{what} must be a whole number, not {value!r} (it is not rounded)")
        return int(value)
    try:
        return operator.index(value)
    except TypeError:
        raise TypeError(f"{what} must be an integer, not {type(value).__name__}") from None


def _names(name: str, value: Any) -> list[str]:
    """Returns value as a list of strings; a single string is a TypeError (not its letters)."""
    if value is None:
        return []
    if isinstance(value, (str, bytes)) or not isinstance(value, Iterable):
        raise TypeError(f"{name} must be a list of strings, not {type(value).__name__}")
    items = list(value)
    for item in items:
        if not isinstance(item, str):
            raise TypeError(f"{name} must hold strings, not {type(item).__name__}")
    return items


def variant_options(items: Sequence[str] | None) -> dict[str, str]:
    """The command lines' `--variant KEY=VALUE` items (repeatable) as a variants dict; an item
    without `=` or a key given twice is a ConfigError (the game checks the names and values)."""
    variants: dict[str, str] = {}
    for item in items or ():
        key, eq, value = item.partition("=")
        if not eq or not key or not value:
            raise ConfigError(f"--variant '{item}': expected KEY=VALUE, e.g. start=city")
        if key in variants:
            raise ConfigError(f"--variant {key} is given twice")
        variants[key] = value
    return variants


def _agents(agents: str | Sequence[str]) -> list[str]:
    """Agent specs from a list of specs, or from one string listing them: "greedy,mcts:iters=50,c=1"
    (an item key=value continues the agent before it; split in C++, search/agents.h)."""
    if isinstance(agents, str):
        return _core.split_agent_list(agents)
    return _names("agents", agents)


def _mcts_config(
    time: float | None, iterations: int | None, threads: int, options: Mapping[str, Any]
) -> _core.MctsConfig:
    """search.mcts_config: the options as the "mcts:..." agent spec's text, parsed in C++."""
    threads = _int("threads", threads, -(2**63), 2**63 - 1, SearchError)  # the range is checked in C++
    if iterations is not None:
        iterations = _int("iterations", iterations, -(2**63), 2**63 - 1, SearchError)
    items: dict[str, Any] = dict(options)
    for key, alias in (("time", "time"), ("iters", "iterations"), ("threads", "threads")):
        if key in items:
            raise SearchError(f"pass the {alias} option as {alias}=, not {key}=")
    if time is not None:
        items["time"] = time
    if iterations is not None:
        items["iters"] = iterations
    items["threads"] = threads
    parts = []
    for key, value in items.items():
        if isinstance(value, bool):
            text = "1" if value else "0"
        elif isinstance(value, float):
            if not math.isfinite(value):
                raise SearchError(f"mcts option {key}={value}: expected a finite number")
            text = repr(value)
        elif isinstance(value, (int, str)):
            text = str(value)
        else:
            raise TypeError(f"mcts option {key} must be a number or a string, not {type(value).__name__}")
        if "," in text or "=" in text:
            raise SearchError(f"mcts option {key}={text!r}: commas and '=' are not allowed")
        parts.append(f"{key}={text}")
    return _core.parse_mcts_options(",".join(parts))


def _analyse(
    state: _core.State,
    time: float | None,
    iterations: int | None,
    threads: int,
    seed: int,
    options: Mapping[str, Any],
) -> list[dict[str, Any]]:
    """search.analyse of a State (a copy the caller does not change during the search)."""
    if state.is_terminal():
        raise SearchError("analyse: the game is over; there is no move to analyse")
    if state.is_chance():
        raise SearchError("analyse: the game is at a chance node (draw a tile first); decisions only")
    options = dict(options)
    evaluator = options.pop("evaluator", None)  # a Python evaluator (Mcts(config, evaluator=fn))
    batch_size = _int("batch_size", options.pop("batch_size", 16), 1, 65536, SearchError)
    config = _mcts_config(time, iterations, threads, options)
    seed = _int("seed", seed, 0, 2**64 - 1, SearchError)
    if evaluator is None:
        result = _core.analyse(state, config, seed)
    else:
        config.reuse = False
        result = _core.Mcts(config, evaluator=evaluator, batch_size=batch_size).search(state, seed)
    return [
        {
            "text": a.text,
            "code": a.code,
            "action": a.text,  # the same text: the name the play server and older code read
            "visits": a.visits,
            "value": a.value,
            "prior": a.prior,
            "win": list(a.win),
        }
        for a in result.actions
    ]
