"""Answers per bot strength: each answer for every line-up of identical bots and every skill gap
agrees with a direct computation from the rows, an answer whose sign reverses with strength is
flagged, the mix's luck is claimed only when it holds across gaps, and the report writes a CSV of
every table it shows."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from carcassonne.balance import Mix, SweepSpec, by_strength, read_sweep, run_sweep
from carcassonne.balance import report as report_module
from carcassonne.balance.stats import Estimate

DEALS = 30


def _equal_cell(
    mix: str, lineup: str, seat0_wins: float, rng: np.random.Generator
) -> list[dict[str, object]]:
    """2-player games of identical bots, seat 0 winning with probability `seat0_wins`."""
    rows = []
    for deal in range(DEALS):
        for rotation in range(2):
            won = rng.random() < seat0_wins
            scores = (60, 50) if won else (50, 60)
            for seat in range(2):
                rows.append(
                    {"mix": mix, "players": 2, "lineup": lineup, "deal": deal, "rotation": rotation}
                    | {"seat": seat, "entrant": seat, "score": scores[seat], "turns": 71}
                    | {"win_share": float(scores[seat] > scores[1 - seat]), "agent": "x"}
                )
    return rows


def _gap_cell(mix: str, lineup: str, upset: float, rng: np.random.Generator) -> list[dict[str, object]]:
    """2-player games of one bot among others (entrant 0 the lone bot, at seat `rotation`), the
    lone bot losing with probability `upset`."""
    rows = []
    for deal in range(DEALS):
        for rotation in range(2):
            lone_wins = rng.random() >= upset
            for seat in range(2):
                entrant = 0 if seat == rotation else 1
                score = 60 if (entrant == 0) == lone_wins else 50
                rows.append(
                    {"mix": mix, "players": 2, "lineup": lineup, "deal": deal, "rotation": rotation}
                    | {"seat": seat, "entrant": entrant, "score": score, "turns": 71}
                    | {"win_share": float(score == 60), "agent": "x"}
                )
    return rows


@pytest.fixture(scope="module")
def rows() -> pd.DataFrame:
    """base: fair seats; flips: seat 0 favoured by greedy bots, seat 1 by MCTS at 50 iterations;
    luck at two gaps: 'lucky' has more upsets than base at both, 'fickle' at one only."""
    rng = np.random.default_rng(5)
    cells = [
        _equal_cell("base", "greedy", 0.5, rng),
        _equal_cell("base", "mcts@50", 0.5, rng),
        _equal_cell("flips", "greedy", 0.9, rng),
        _equal_cell("flips", "mcts@50", 0.1, rng),
    ]
    for mix, upsets in (("base", (0.1, 0.1)), ("lucky", (0.35, 0.35)), ("fickle", (0.35, 0.1))):
        for gap, upset in zip(("mcts@50+greedy", "mcts@200+greedy"), upsets, strict=True):
            cells.append(_gap_cell(mix, gap, upset, rng))
    return pd.DataFrame([r for cell in cells for r in cell])


def test_each_answer_per_strength_is_the_direct_computation(rows: pd.DataFrame) -> None:
    long = by_strength.answers_by_strength(rows)
    got = {(r.mix, r.answer, r.strength): r.estimate.value for r in long.itertuples()}
    seat0 = rows[(rows["seat"] == 0) & ~rows["lineup"].str.contains("+", regex=False)]
    win = seat0.groupby(["mix", "lineup"])["win_share"].mean()
    for (mix, lineup), w in win.items():
        assert got[(mix, by_strength.EDGE, lineup)] == pytest.approx(w - 0.5)
    for lineup in ("greedy", "mcts@50"):
        effect = abs(win["flips", lineup] - 0.5) - abs(win["base", lineup] - 0.5)
        assert got[("flips", by_strength.EFFECT, lineup)] == pytest.approx(effect)
    assert by_strength.strengths(rows) == ["greedy", "mcts@50"]


def test_the_upsets_per_gap_are_the_direct_computation(rows: pd.DataFrame) -> None:
    luck = by_strength.luck_by_gap(rows)
    gap_rows = rows[rows["lineup"].str.contains("+", regex=False)]
    lone = gap_rows[gap_rows["entrant"] == 0].set_index(["mix", "lineup", "deal", "rotation"])["score"]
    other = gap_rows[gap_rows["entrant"] == 1].set_index(["mix", "lineup", "deal", "rotation"])["score"]
    upset = (lone < other).astype(float).groupby(["mix", "lineup"]).mean()  # the lone bot is stronger
    for r in luck.itertuples():
        assert r.upset.value == pytest.approx(upset[r.mix, r.gap])
        if r.mix != "base":
            assert r.upset_less_base.value == pytest.approx(upset[r.mix, r.gap] - upset["base", r.gap])
    assert by_strength.gaps(rows) == ["mcts@200+greedy", "mcts@50+greedy"]


def test_an_edge_that_reverses_with_strength_is_flagged(rows: pd.DataFrame) -> None:
    long = by_strength.answers_by_strength(rows)
    wide = by_strength.strength_table(rows, long)
    luck = by_strength.luck_table(rows, by_strength.luck_by_gap(rows))
    front = by_strength.front_page(rows, long, wide, luck).set_index("mix")
    verdict = wide.set_index(["mix", "answer"])["across strengths"]
    assert verdict["flips", by_strength.EDGE] == by_strength.FLIPS
    assert verdict["base", by_strength.EDGE] == by_strength.HOLDS
    assert "edge" in front.loc["flips", "flips with strength"].split("; ")
    assert front.loc["base", "flips with strength"] == ""
    # The favoured seat per strength is the one that wins more.
    assert list(front.columns[1:3]) == [f"greedy ({DEALS} deals)", f"mcts@50 ({DEALS} deals)"]
    assert "\nseat 0 favoured;" in front.loc["flips", f"greedy ({DEALS} deals)"]
    assert "\nseat 1 favoured;" in front.loc["flips", f"mcts@50 ({DEALS} deals)"]
    claims = luck.set_index("mix")["the mix's luck"]
    assert claims["lucky"] == "more luck than base (holds across gaps)"
    assert claims["fickle"].startswith("not claimed")


def test_the_front_page_states_each_answer_per_strength(rows: pd.DataFrame) -> None:
    long = by_strength.answers_by_strength(rows)
    wide = by_strength.strength_table(rows, long)
    luck = by_strength.luck_table(rows, by_strength.luck_by_gap(rows))
    front = by_strength.front_page(rows, long, wide, luck)
    answer = wide.set_index(["mix", "players", "answer"])
    for _, r in front.iterrows():
        for strength in by_strength.strengths(rows):
            lines = str(r[by_strength.strength_label(rows, strength)]).split("\n")
            assert lines[0] == f"edge {answer.loc[(r.mix, r.players, by_strength.EDGE), strength]}"
            favoured = 0 if lines[1].startswith("seat 0 favoured") else 1
            other = 1 - favoured
            compensation = answer.loc[(r.mix, r.players, f"compensation, seat {other} (points)"), strength]
            assert lines[1] == f"seat {favoured} favoured; seat {other} starts at {compensation}"
            if r.mix == "base":
                assert len(lines) == 2
            else:
                assert lines[2] == f"vs base {answer.loc[(r.mix, r.players, by_strength.EFFECT), strength]}"


def _e(value: float, low: float, high: float, deals: int = 30) -> Estimate:
    return Estimate(value, low, high, np.array([value]), (), deals, deals)


def test_the_rule_of_holding_across_strengths() -> None:
    holds = by_strength.holds_across
    assert holds([_e(0.2, 0.1, 0.3), _e(0.15, 0.05, 0.25)]) == by_strength.HOLDS
    assert holds([_e(0.2, 0.1, 0.3), _e(-0.2, -0.3, -0.1)]) == by_strength.FLIPS
    assert holds([_e(0.2, 0.1, 0.3), _e(-0.02, -0.1, 0.06)]) == by_strength.DIFFERS  # sign, not clearly
    assert holds([_e(0.4, 0.35, 0.45), _e(0.1, 0.05, 0.15)]) == by_strength.DIFFERS  # size
    assert holds([_e(0.2, 0.1, 0.3), _e(-0.2, -0.3, -0.1, deals=3)]) == by_strength.ONE_ONLY


def test_a_sweep_at_several_strengths_and_gaps_reports_each_and_writes_its_tables(tmp_path: Path) -> None:
    spec = SweepSpec(
        mixes=(Mix("base"), Mix("abbey-mayor", ("abbey-mayor",))),
        players=(2,),
        deals=(("greedy", 2), ("mcts@4", 2), ("mcts", 1), ("mcts@4+greedy", 1), ("mcts@8+mcts@4", 1)),
        mcts="mcts:iters=8,memory=16",
        chunk_deals=2,
        seed=3,
    )
    folder = run_sweep(tmp_path / "s", spec, progress=False)
    df = read_sweep(folder)
    lone = df[(df["lineup"] == "mcts@8+mcts@4") & (df["entrant"] == 0)]
    assert set(lone["agent"]) == {"mcts:iters=8,memory=16"}
    assert set(df[(df["lineup"] == "mcts@8+mcts@4") & (df["entrant"] == 1)]["agent"]) == {
        "mcts:iters=4,memory=16"
    }
    page = report_module.write_report(folder, tmp_path / "r")
    text = page.read_text()
    assert text.index("Answers at a glance") < text.index("<details>")  # the front page comes first
    written = sorted(p.stem for p in page.parent.glob("*.csv"))
    assert "front_page" in written and "answers_by_strength" in written and "luck_by_gap" in written
    for name in written:
        shown = pd.read_csv(page.parent / f"{name}.csv", dtype=str, keep_default_na=False)
        assert report_module.table_html(shown) in text, name
    front = pd.read_csv(page.parent / "front_page.csv", dtype=str, keep_default_na=False)
    named = {"greedy (2 deals)", "mcts@4 (2 deals)", "mcts (8 iterations a move, 1 deal)"}
    assert named <= set(front.columns)  # budgets and deals named
    luck = pd.read_csv(page.parent / "luck_by_gap.csv", dtype=str, keep_default_na=False)
    assert {"upset, mcts@4+greedy", "upset, mcts@8+mcts@4"} <= set(luck.columns)
