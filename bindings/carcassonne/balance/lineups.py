"""The agents of a balance sweep: its line-ups (LINEUPS; lineup_agents gives a line-up's arena
entrants) and the full options of an agent spec (agent_options, options_text), which the spec
record keeps so that a changed default shows.
"""

from __future__ import annotations

from collections.abc import Sequence

from .. import SearchError, _core
from ..agents import REFERENCE_PREFIX, reference_record

# Line-ups: every seat greedy, every seat MCTS, one MCTS among greedy bots (the skill gradient);
# "mcts@N": every seat the sweep's MCTS at N iterations a move (a ladder of budgets tells a rules
# imbalance, which stays as the bots get stronger, from a bot's artefact, which fades); "rollout"
# and "rollout@N": the same search valued by rollouts alone, no network (beside mcts@N it tells the
# learned player from the search it plays, in the cells where a network ships); "A+B": one bot A
# among bots B, each greedy, mcts, mcts@N, rollout or rollout@N (a skill gap: mcts@400+greedy,
# mcts@400+rollout@400); a Python agent named by reference (agents.load_agent),
# "py:module:Agent" in every seat or "py:module:Agent+greedy" among greedy bots.
LINEUPS = (
    "greedy",
    "mcts",
    "mcts@N",
    "rollout",
    "rollout@N",
    "A+B",
    "py:module:Agent",
    "py:module:Agent+greedy",
)
# The built-in searching bots of the line-ups: the sweep's MCTS agent as given, and without networks.
SEARCHES = ("mcts", "rollout")
# The options that name a network file: a search without networks reads none.
NETWORK_FILES = ("net", "value", "values")


def with_budget(mcts: str, iterations: int) -> str:
    """The MCTS agent spec `mcts` with its iteration budget replaced by `iterations`."""
    name, _, options = mcts.partition(":")
    kept = [o.strip() for o in options.split(",") if o.strip() and not o.strip().startswith("iters=")]
    return f"{name}:" + ",".join([f"iters={iterations}", *kept])


def rollouts_instead(options: dict[str, str], networks: Sequence[str]) -> dict[str, str]:
    """Full `options` (agent_options) with the networks `networks` ("value": the value network,
    "net": the policy network) replaced by what a search without them plays: leaves valued by
    the hand-made guess at a rollout's cutoff (eval=greedy; random rollouts where eval played
    none) and greedy priors."""
    changed = dict(options)
    if changed.get("eval") in networks:
        changed["eval"] = "greedy"
        if changed.get("rollout") == "none":
            changed["rollout"] = "random"
    if changed.get("prior") in networks:
        changed["prior"] = "greedy"
    return changed


def rollout_agent(mcts: str) -> str:
    """The MCTS agent `mcts` valued by rollouts alone: its value and policy networks (eval= and
    prior= value or net) replaced by the rollouts and greedy priors a search without them plays,
    its network files (net=, value=, values=) left out; the other options as given."""
    full = agent_options(mcts)
    changed = rollouts_instead(full, ("value", "net"))
    name, _, options = mcts.partition(":")
    replaced = {k for k in changed if changed[k] != full[k]} | set(NETWORK_FILES)
    kept = [o.strip() for o in options.split(",") if o.strip() and o.split("=")[0].strip() not in replaced]
    return f"{name}:" + ",".join(kept + [f"{k}={v}" for k, v in changed.items() if v != full[k]])


def lineup_budget(lineup: str) -> int | None:
    """N of an "mcts@N" or "rollout@N" line-up, None for the others; SearchError for a malformed
    one."""
    search, at, n = lineup.partition("@")
    if search not in SEARCHES or not at:
        return None
    if not n.isdigit() or int(n) < 1:
        raise SearchError(
            f"line-up '{lineup}': {search}@N takes an iteration budget N >= 1, e.g. {search}@400"
        )
    return int(n)


def _built_in(name: str, mcts: str) -> str | None:
    """The agent of a built-in bot's name (greedy, mcts, mcts@N, rollout, rollout@N), None for
    any other name."""
    if name == "greedy":
        return "greedy"
    search = name.partition("@")[0]
    if search not in SEARCHES:
        return None
    budget = lineup_budget(name)
    agent = mcts if budget is None else with_budget(mcts, budget)
    return rollout_agent(agent) if search == "rollout" else agent


def lineup_agents(lineup: str, players: int, mcts: str) -> list[str]:
    """The arena's entrants of a line-up (the arena rotates them over the seats)."""
    lone, plus, others = lineup.partition("+")
    if not plus:
        built_in = _built_in(lineup, mcts)
        if built_in is not None:
            return [built_in] * players
    elif not lineup.startswith(REFERENCE_PREFIX):
        agents = _built_in(lone, mcts), _built_in(others, mcts)
        if agents[0] is None or agents[1] is None or agents[0] == agents[1]:
            same = f" ({lone} and {others} both play {agents[0]})" if agents[0] and lone != others else ""
            raise SearchError(
                f"line-up '{lineup}': one bot among others takes two different bots of greedy, mcts, "
                f"mcts@N, rollout and rollout@N, e.g. mcts@400+greedy{same}"
            )
        return [agents[0]] + [agents[1]] * (players - 1)
    if lineup.startswith(REFERENCE_PREFIX):
        if plus and others != "greedy":
            raise SearchError(
                f"line-up '{lineup}': a Python agent plays every seat, or among greedy bots (+greedy)"
            )
        return [lone] + [others or lone] * (players - 1)
    raise SearchError(f"unknown line-up '{lineup}' (known: {', '.join(LINEUPS)})")


def agent_options(agent: str) -> dict[str, str]:
    """An agent spec's options with the defaults filled in; SearchError for a bad spec."""
    name, _, options = agent.partition(":")
    if name == "greedy" and not options:
        return {}
    if agent.startswith(REFERENCE_PREFIX):
        return reference_record(agent)  # SearchError if it does not load
    if name != "mcts":
        raise SearchError(f"a sweep plays greedy and an 'mcts:...' agent, not '{agent}'")
    _core.parse_mcts_options(options)  # raises SearchError naming a bad option or value
    given = dict(item.strip().split("=", 1) for item in options.split(",") if item.strip())
    full = {**{o["key"]: str(o["default"]) for o in _core.mcts_options()}, **given}
    # The engine's defaults that depend on other options (parse_mcts_options).
    if full["select"] == "uct" and "c" not in given:
        full["c"] = f"{_core.parse_mcts_options('select=uct').exploration:g}"
    if full["eval"] == "net" and "prior" not in given:
        full["prior"] = "net"
    if "time" in given and "iters" not in given:
        del full["iters"]  # a time budget alone: no iteration limit, which no iters= value gives
    return full


def options_text(options: dict[str, str]) -> str:
    """The "mcts:..." spec of every option in `options` (agent_options), which plays as the spec
    they were read from: time=0 (no time limit) cannot be given, so it is left out."""
    return "mcts:" + ",".join(f"{k}={v}" for k, v in options.items() if not (k == "time" and v == "0"))


def _options_of(text: str) -> dict[str, str]:
    """The options of an options_text."""
    return dict(item.split("=", 1) for item in text.partition(":")[2].split(",") if item)
