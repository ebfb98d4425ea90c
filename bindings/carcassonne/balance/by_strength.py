"""The designer's answers per bot strength: the first-seat edge, the compensation and a mix's
effect against base, each for every line-up of identical bots (a strength: greedy, rollout@N, mcts@N),
and the upsets for every skill gap (a line-up "A+B" of one bot among others), with a verdict
whether the answer holds across strengths (or gaps). An answer found with one bot may be that
bot's: greedy bots hand the last tile's points to one seat, which stronger bots answer.

The rule (holds_across): of the estimates from at least MIN_DEALS deals, an answer
- "flips" when one interval lies wholly above 0 and another wholly below 0;
- "holds" when no two values have opposite signs and every interval shares a point;
- "differs" otherwise (its sign or its size changes, but no clear reversal);
- "one only" when fewer than two estimates are from enough deals.
The mix's luck (more or fewer upsets than base) is claimed only when it holds across gaps and
every gap's interval excludes 0.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import numpy as np
import pandas as pd

from . import answers
from .lineups import SEARCHES
from .stats import MIN_DEALS, Estimate, _cell, _equal, _frame, cells, effects, win_rate

HOLDS, FLIPS, DIFFERS, ONE_ONLY = "holds", "flips", "differs", "one only"
EDGE = "first-seat edge (points of win share)"
EFFECT = "mix less base: seat 0's distance from a fair share (points)"


def strengths(df: pd.DataFrame) -> list[str]:
    """The sweep's line-ups of identical bots, weakest first: greedy, MCTS by iteration budget
    (at one budget the search on rollouts alone before the one with a network where it ships),
    then Python agents (no budget to rank) by name."""

    return sorted(
        {str(x) for x in df["lineup"] if _equal(str(x))}, key=lambda lineup: answers.strength_rank(df, lineup)
    )


def gaps(df: pd.DataFrame) -> list[str]:
    """The sweep's skill gaps: its line-ups of one bot among others, in name order."""
    return sorted({str(x) for x in df["lineup"] if not _equal(str(x))})


def holds_across(estimates: list[Estimate]) -> str:
    """Whether an answer holds across strengths or gaps (the rule in the module's text)."""
    usable = [e for e in estimates if e.deals >= MIN_DEALS and not np.isnan(e.value)]
    if len(usable) < 2:
        return ONE_ONLY
    if any(e.low > 0 for e in usable) and any(e.high < 0 for e in usable):
        return FLIPS
    signs = {np.sign(e.value) for e in usable} - {0.0}
    if len(signs) <= 1 and max(e.low for e in usable) <= min(e.high for e in usable):
        return HOLDS
    return DIFFERS


def _shifted(e: Estimate, by: float) -> Estimate:
    return replace(e, value=e.value - by, low=e.low - by, high=e.high - by, replicates=e.replicates - by)


def answers_by_strength(df: pd.DataFrame, compensation: pd.DataFrame | None = None) -> pd.DataFrame:
    """Long table: per mix, player count, answer and strength, the estimate. Answers: the
    first-seat edge (seat 0's win rate less a fair share), each seat's compensation (starting
    points, answers.compensation; pass it if already computed) and, for a mix other than base,
    the change of seat 0's distance from a fair share against base (paired by deal)."""
    rows: list[dict[str, object]] = []
    equal = set(strengths(df))
    for mix, players, lineup in cells(df):
        if lineup in equal:
            c = _cell(df, mix, players, lineup)
            edge = _shifted(win_rate(c[c["seat"] == 0]), 1.0 / players)
            rows.append(
                {"mix": mix, "players": players, "answer": EDGE, "strength": lineup, "estimate": edge}
            )
    comp = answers.compensation(df) if compensation is None else compensation
    for r in comp.itertuples():
        answer = f"compensation, seat {r.seat} (points)"
        rows.append(
            {
                "mix": r.mix,
                "players": r.players,
                "answer": answer,
                "strength": r.lineup,
                "estimate": r.start_points,
            }
        )
    eff = effects(df)
    for r in eff[(eff["measure"] == "seat0_unfair") & eff["lineup"].isin(equal)].itertuples():
        rows.append(
            {"mix": r.mix, "players": r.players, "answer": EFFECT, "strength": r.lineup, "estimate": r.effect}
        )
    return _frame(rows, ["mix", "players", "answer", "strength", "estimate"])


def _order(frame: pd.DataFrame, df: pd.DataFrame, by: list[str]) -> pd.DataFrame:
    """Rows by player count, then the sweep's mix order, then `by`."""
    order = {m: i for i, m in enumerate(dict.fromkeys(df["mix"]))}
    keys = ["players", "mix", *by]
    return frame.sort_values(keys, key=lambda s: s.map(order) if s.name == "mix" else s, kind="stable")


def text_of(e: object, percent: bool, signed: bool = True) -> str:
    """An estimate as text, "+25.4 [+20.6, +29.8]" (percent: in points of %; signed: with +)."""
    if not isinstance(e, Estimate):
        return ""
    if not percent:
        return e.text(digits=1)
    if np.isnan(e.value):
        return "n/a"
    sign = "+" if signed else ""
    v, lo, hi = 100 * e.value, 100 * e.low, 100 * e.high
    if e.deals < MIN_DEALS:
        return f"{v:{sign}.1f} (n too small)"
    return f"{v:{sign}.1f} [{lo:{sign}.1f}, {hi:{sign}.1f}]"


def strength_table(df: pd.DataFrame, long: pd.DataFrame) -> pd.DataFrame:
    """Wide: per mix, player count and answer, one column per strength (text) and the verdict
    across strengths."""
    columns = strengths(df)
    rows = []
    for (mix, players, answer), part in long.groupby(["mix", "players", "answer"], sort=False):
        by = dict(zip(part["strength"], part["estimate"], strict=True))
        percent = answer in (EDGE, EFFECT)
        rows.append(
            {"mix": mix, "players": players, "answer": answer}
            | {s: text_of(by.get(s), percent) for s in columns}
            | {"across strengths": holds_across([by[s] for s in columns if s in by])}
        )
    frame = _frame(rows, ["mix", "players", "answer", *columns, "across strengths"])
    return _order(frame, df, []).reset_index(drop=True)


def luck_by_gap(df: pd.DataFrame, base: str = "base") -> pd.DataFrame:
    """Per mix, player count and skill gap: how often the weaker bot wins its pair (upset) and,
    for a mix other than base, the mix's upsets less base's at that gap (paired by deal; the
    weaker bot is the one weaker in base, for both)."""
    rows = []
    for mix, players, lineup in cells(df):
        if _equal(lineup):
            continue
        c = _cell(df, mix, players, lineup)
        own = answers.pair_wins(c)
        reference = _cell(df, base, players, lineup)
        change: Estimate | None = None
        if mix != base and not reference.empty:
            deals = sorted(set(c["deal"]) | set(reference["deal"]))
            in_base = answers.pair_wins(reference, deals)
            lone_stronger = in_base.value >= 0.5
            change = answers.upset_of(answers.pair_wins(c, deals), lone_stronger).minus(
                answers.upset_of(in_base, lone_stronger)
            )
        rows.append(
            {
                "mix": mix,
                "players": players,
                "gap": lineup,
                "deals": int(c["deal"].nunique()),
                "upset": answers.upset_of(own, own.value >= 0.5),
                "upset_less_base": change,
            }
        )
    return _frame(rows, ["mix", "players", "gap", "deals", "upset", "upset_less_base"])


def mix_luck(changes: list[Estimate]) -> str:
    """The claim about a mix's luck from its upsets less base's at every gap."""
    verdict = holds_across(changes)
    if verdict == ONE_ONLY:
        usable = [e for e in changes if e.deals >= MIN_DEALS]
        shown = f": {text_of(usable[0], True)}" if usable else ""
        return f"not claimed: one gap only{shown}"
    if verdict != HOLDS:
        return f"not claimed: {verdict} across gaps"
    if all(e.low > 0 for e in changes if e.deals >= MIN_DEALS):
        return "more luck than base (holds across gaps)"
    if all(e.high < 0 for e in changes if e.deals >= MIN_DEALS):
        return "less luck than base (holds across gaps)"
    return "no clear difference from base"


def luck_table(df: pd.DataFrame, luck: pd.DataFrame) -> pd.DataFrame:
    """Wide: per mix and player count, the upsets at each gap (and less base's), the verdict
    across gaps and the mix's luck."""
    columns = gaps(df)
    rows = []
    for (mix, players), part in luck.groupby(["mix", "players"], sort=False):
        by = {r.gap: r for r in part.itertuples()}
        changes = [by[g].upset_less_base for g in columns if g in by and by[g].upset_less_base is not None]
        row: dict[str, object] = {"mix": mix, "players": players}
        for g in columns:
            r = by.get(g)
            row[f"upset, {g}"] = text_of(r.upset, True, signed=False) if r is not None else ""
            row[f"less base, {g}"] = text_of(r.upset_less_base, True) if r is not None else ""
        row["across gaps"] = holds_across(changes) if changes else ""
        row["the mix's luck"] = mix_luck(changes) if changes else ""
        rows.append(row)
    per_gap = [f"{k}, {g}" for g in columns for k in ("upset", "less base")]
    frame = _frame(rows, ["mix", "players", *per_gap, "across gaps", "the mix's luck"])
    return _order(frame, df, []).reset_index(drop=True)


def strength_label(df: pd.DataFrame, lineup: str) -> str:
    """A strength's name on the front page: the line-up with its deals per cell, and its
    iteration budget where the name does not say it ("mcts (100 iterations a move, 48 deals)")."""
    rows = df[df["lineup"] == lineup]
    deals = rows.groupby(["mix", "players"])["deal"].nunique()
    low, high = int(deals.min()), int(deals.max())
    said = [f"{low}{'' if low == high else f'-{high}'} deal{'' if high == 1 else 's'}"]
    budget = answers.budget_of(rows) if lineup in SEARCHES else 0
    if budget:
        said.insert(0, f"{budget:,} iterations a move")
    return f"{lineup} ({', '.join(said)})"


def short_answer(answer: str) -> str:
    """An answer's name on the front page, as its cells say it: "edge", "compensation, seat 1",
    "vs base"."""
    return {EDGE: "edge", EFFECT: "vs base"}.get(answer, answer.removesuffix(" (points)"))


def strength_bots(df: pd.DataFrame, records: list[dict[str, Any]]) -> str:
    """One sentence for the front page: the bot of each strength, and for an MCTS one the cells
    where a value network valued its leaves (from the spec records' bots; without them, the
    agents alone)."""
    pinned = bool(records) and all("bots" in r for r in records)
    networks: dict[str, dict[str, list[str]]] = {}
    searched: dict[str, set[tuple[str, int]]] = {}
    for record in records if pinned else []:
        for bot in record["bots"]:
            searched.setdefault(bot["lineup"], set()).add((bot["mix"], bot["players"]))
            if bot["network"] is not None:
                cells = networks.setdefault(bot["lineup"], {}).setdefault(bot["network"]["file"], [])
                cells.append(f"{bot['mix']} {bot['players']} players")
    names = strengths(df)
    budget = {s: answers.budget_of(df[df["lineup"] == s]) for s in names}
    parts = []
    for s in names:
        agents = ", ".join(dict.fromkeys(df.loc[df["lineup"] == s, "agent"].astype(str)))
        said = s if agents == s else f"{s}: {agents}"
        if s in searched:
            played = networks.get(s, {})
            where = [f"the value network {file} in {', '.join(cells)}" for file, cells in played.items()]
            if sum(len(cells) for cells in played.values()) < len(searched[s]):
                twins = [t for t in names if t.startswith("rollout") and t != s and budget[t] == budget[s]]
                twin = f", where it plays as {twins[0]}" if twins and played else ""
                where.append(f"rollouts elsewhere{twin}" if played else "rollouts, no network")
            said += f" ({'; '.join(where)})"
        parts.append(said)
    return "The strengths: " + "; ".join(parts) + "."


def front_page(df: pd.DataFrame, long: pd.DataFrame, wide: pd.DataFrame, luck: pd.DataFrame) -> pd.DataFrame:
    """Per mix and player count: per strength, one line each, the first-seat edge, the favoured
    seat (the one that starts at 0) with the points the others start at, and for a mix other
    than base the change against base; the answers that flip with strength, those that differ,
    and the mix's luck."""
    columns = strengths(df)
    luck_of = {(r["mix"], r["players"]): r["the mix's luck"] for _, r in luck.iterrows()}
    rows = []
    for (mix, players), part in wide.groupby(["mix", "players"], sort=False):
        row: dict[str, object] = {"mix": mix, "players": players}
        cell = long[(long["mix"] == mix) & (long["players"] == players)]
        comp = cell[cell["answer"].str.startswith("compensation")]
        for s in columns:
            seats = comp[comp["strength"] == s]
            if seats.empty:
                row[s] = ""
                continue
            values = [e.value for e in seats["estimate"]]
            favoured = int(np.argmin(values))
            others = [
                f"seat {k} starts at {text_of(e, False)}"
                for k, e in enumerate(seats["estimate"])
                if k != favoured
            ]
            edge, effect = (
                cell[(cell["answer"] == a) & (cell["strength"] == s)]["estimate"] for a in (EDGE, EFFECT)
            )
            lines = [f"edge {text_of(e, True)}" for e in edge]
            lines.append(f"seat {favoured} favoured; " + ", ".join(others))
            lines += [f"vs base {text_of(e, True)}" for e in effect]
            row[s] = "\n".join(lines)  # one answer a line (the page's cells keep line breaks)
        for verdict in (FLIPS, DIFFERS):
            named = part.loc[part["across strengths"] == verdict, "answer"].map(short_answer)
            row[f"{verdict} with strength"] = "; ".join(named)
        row["the mix's luck"] = luck_of.get((mix, players), "")
        rows.append(row)
    luck_column = ["the mix's luck"] if not luck.empty else []  # a sweep without skill gaps: none
    columns_out = ["mix", "players", *columns, "flips with strength", "differs with strength", *luck_column]
    labels = {c: strength_label(df, c) for c in columns}
    return _order(_frame(rows, columns_out), df, []).reset_index(drop=True).rename(columns=labels)
