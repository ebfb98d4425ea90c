"""balance compensate: a sweep cell played again with starting points per seat (RULES
VAR-POINTS), each seat's win rate against the fair share; checked against the arena's own games."""

from __future__ import annotations

from pathlib import Path

import pandas as pd
import pytest

from carcassonne import ConfigError, SearchError, arena
from carcassonne.__main__ import main
from carcassonne.balance import Mix, SweepSpec, answers, read_sweep, run_sweep, stats
from carcassonne.balance.compensate import check_compensation

SPEC = SweepSpec(mixes=(Mix("base"),), players=(3,), deals=(("greedy", 6),), chunk_deals=2, seed=4)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_sweep(tmp_path_factory.mktemp("compensate") / "s", SPEC, progress=False)


def _direct(points: str, deals: int) -> list[stats.Estimate]:
    """Each seat's win rate computed from the arena's games: the fresh deals after the cell's 6."""
    result = arena(
        ["greedy"] * 3,
        deals=deals,
        first_deal=6,
        players=3,
        variants={"points": points},
        seed=4,
        agent_seed=1,
    )
    start = [int(p) for p in points.split(",")]
    rows = []
    for g in result.games:
        for seat in range(3):
            assert g.scores[seat] >= start[seat]  # the scores include the starting points
            rows.append({"deal": g.deal, "seat": seat, "win_share": g.win_share[seat]})
    df = pd.DataFrame(rows)
    return [stats.win_rate(df[df["seat"] == s]) for s in range(3)]


def test_the_command_prints_each_seats_win_rate_as_computed_directly(
    sweep: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    args = ["balance", "compensate", str(sweep), "--mix", "base", "--players", "3", "--points", "0,0,200"]
    assert main([*args, "--deals", "5"]) == 0
    out = capsys.readouterr().out
    direct = _direct("0,0,200", 5)
    assert "base, 3 players, greedy (greedy, greedy, greedy)" in out
    assert "deals 6..10 (5 deals, every seat rotation: 15 games), seed 4" in out
    lines = out.splitlines()
    for seat, e in enumerate(direct):
        row = next(line for line in lines if line.split()[:2] == [str(seat), str([0, 0, 200][seat])])
        assert e.text(percent=True) in row
        within = e.low <= 1 / 3 <= e.high
        assert row.endswith(" yes" if within else " no"), row
    # 200 points ahead from the start wins every game: seat 2 is far from fair.
    assert direct[2].value == 1.0 and out.splitlines()[-1].endswith(" no")
    check = check_compensation(sweep, "base", 3, points="0,0,200", deals=5, progress=False)
    assert [e.value for e in check.wins] == [e.value for e in direct]


def test_without_points_it_plays_the_reports_suggestion_rounded(sweep: Path) -> None:
    suggested = answers.compensation(read_sweep(sweep)).sort_values("seat")["start_points"]
    points = tuple(int(e.value + 0.5) for e in suggested)
    check = check_compensation(sweep, "base", 3, deals=2, progress=False)
    assert check.points == points
    assert check.suggested == tuple(e.value for e in suggested)
    assert "the report's suggestion" in check.text()


def test_bad_input_is_refused_before_anything_is_played(
    sweep: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SearchError, match=r"no cell \(abbey-mayor, 3 players\)"):
        check_compensation(sweep, "abbey-mayor", 3, points="0,1,2", progress=False)
    with pytest.raises(SearchError, match=r"no cell \(base, 2 players\)"):
        check_compensation(sweep, "base", 2, points="0,1", progress=False)
    with pytest.raises(SearchError, match="gives 2 seats' points for 3 players"):
        check_compensation(sweep, "base", 3, points="0,1", progress=False)
    for bad in ("0,-1,2", "0,x,2", "0,,2", "0,1.5,2"):
        with pytest.raises(SearchError, match="whole numbers >= 0"):
            check_compensation(sweep, "base", 3, points=bad, progress=False)
    with pytest.raises(SearchError, match="count >= 1"):
        check_compensation(sweep, "base", 3, points="0,1,2", deals=0, progress=False)
    with pytest.raises(ConfigError, match="0 to 1000 points"):  # the engine's own limit
        check_compensation(sweep, "base", 3, points="0,1,5000", deals=1, progress=False)
    args = ["balance", "compensate", str(sweep), "--mix", "nope", "--players", "3", "--points", "0,1,2"]
    assert main(args) == 2
    assert "no cell (nope, 3 players)" in capsys.readouterr().err
