"""The balance sweep: its rows account for every game and point, a stopped sweep resumes without
replaying finished chunks and gives the same rows, the intervals are over deals (not games), and
the report is written with its plots."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from carcassonne import CAUSES, SearchError, arena
from carcassonne.__main__ import main
from carcassonne.balance import Mix, SweepSpec, chunks, read_sweep, run_sweep, stats
from carcassonne.balance.sweep import TIMING_COLUMNS

SPEC = SweepSpec(
    mixes=(Mix("base"), Mix("abbey-mayor", ("abbey-mayor",))),
    players=(2, 3),
    deals=(("greedy", 3), ("mcts", 1), ("mcts+greedy", 2)),
    mcts="mcts:iters=20,memory=16",
    chunk_deals=2,
    seed=4,
)


@pytest.fixture(scope="module")
def sweep(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_sweep(tmp_path_factory.mktemp("balance") / "sweep.parquet", SPEC, progress=False)


def _games(df: pd.DataFrame) -> pd.DataFrame:
    return df.sort_values(["mix", "players", "lineup", "deal", "rotation", "seat"]).reset_index(drop=True)


def test_rows_account_for_every_game_seat_and_point(sweep: Path) -> None:
    df = read_sweep(sweep)
    deals = dict(SPEC.deals)
    for (mix, players, lineup), cell in df.groupby(["mix", "players", "lineup"]):
        assert len(cell) == deals[lineup] * players * players, (mix, players, lineup)  # every seat rotation
        assert sorted(cell["deal"].unique()) == list(range(deals[lineup]))
    assert len(df) == sum(c.games * c.players for c in chunks(SPEC))
    points = df[[f"points_{c}" for c in CAUSES]].sum(axis=1)
    assert (points == df["score"]).all()
    games = df.groupby(["mix", "players", "lineup", "deal", "rotation"])
    assert (games["win_share"].sum().round(9) == 1).all()
    best = games["score"].transform("max")
    assert ((df["rank"] == 1) == (df["score"] == best)).all()
    assert ((df["rank"] == 1) == (df["margin"] >= 0)).all()
    # Abbey & Mayor's figures appear only in its mix; meeples everywhere.
    am = df["mix"] == "abbey-mayor"
    assert df.loc[~am, ["figures_mayor", "figures_wagon", "figures_barn"]].to_numpy().sum() == 0
    assert df.loc[am, "figures_mayor"].sum() > 0 and df["figures_meeple"].min() > 0
    # A seat's tiles by kind add up to its tiles, and every seat placed some.
    assert all(
        sum(n for _, n in kinds) == t for kinds, t in zip(df["tiles_by_kind"], df["tiles"], strict=True)
    )
    assert df["tiles"].min() > 0
    # The MCTS seats searched, the greedy ones did not.
    mcts = df["agent"].str.startswith("mcts")
    assert (df.loc[mcts, "iterations"] > 0).all() and (df.loc[~mcts, "iterations"] == 0).all()


def test_a_stopped_sweep_resumes_only_missing_chunks_with_the_same_rows(sweep: Path, tmp_path: Path) -> None:
    copy = tmp_path / "copy.parquet"
    copy.mkdir()
    parts = sorted(sweep.glob("*.parquet"))
    for p in [*parts[::2], sweep / "spec.json"]:  # half the chunks "finished" before the stop
        (copy / p.name).write_bytes(p.read_bytes())
    (copy / ".x.parquet.tmp").write_bytes(b"cut off")  # a write that was killed
    with pytest.raises(SearchError, match="already holds a sweep"):
        run_sweep(copy, SPEC, progress=False)
    with pytest.raises(SearchError, match="another spec"):
        run_sweep(copy, SweepSpec(seed=5), resume=True, progress=False)
    kept = {p.name: p.stat().st_mtime_ns for p in copy.glob("*.parquet")}
    run_sweep(copy, SPEC, resume=True, progress=False)
    assert {p.name: p.stat().st_mtime_ns for p in copy.glob("*.parquet") if p.name in kept} == kept
    a = _games(read_sweep(sweep)).drop(columns=list(TIMING_COLUMNS))
    b = _games(read_sweep(copy)).drop(columns=list(TIMING_COLUMNS))
    pd.testing.assert_frame_equal(a, b)


def test_intervals_resample_deals_not_games() -> None:
    # 30 deals of 4 games that always go the same way within a deal: the interval must be as
    # wide as for 30 independent games, about twice as wide as for 120.
    values = np.tile(np.repeat([0.0, 1.0], 4), 15)
    paired = pd.DataFrame({"deal": np.repeat(np.arange(30), 4), "x": values})
    independent = paired.assign(deal=np.arange(120))
    wide, narrow = stats.mean(paired, "x"), stats.mean(independent, "x")
    assert wide.value == narrow.value == 0.5
    assert wide.low <= 0.5 <= wide.high
    assert (wide.high - wide.low) > 1.6 * (narrow.high - narrow.low)


def test_a_win_rate_of_every_deal_won_still_has_an_interval() -> None:
    rows = pd.DataFrame({"deal": np.repeat(np.arange(15), 2), "win_share": 1.0})
    e = stats.win_rate(rows)
    assert e.value == 1 and e.high == 1
    assert e.low == pytest.approx(0.796, abs=0.001)  # Wilson for 15 deals, as the arena's
    assert stats.mean(rows, "win_share").low == 1  # the bootstrap alone has no spread


def test_statistics_of_the_sweep(sweep: Path) -> None:
    df = read_sweep(sweep)
    edge = stats.first_player_edge(df)
    assert len(edge) == 2 * 2 * 2  # mixes x players x the two line-ups of identical agents
    for e in edge["seat0_win"]:
        assert 0 <= e.low <= e.value <= e.high <= 1
    skill = stats.skill_table(df)
    assert set(skill["players"]) == {2, 3} and len(skill) == 4
    shares = stats.cause_shares(df)
    for _, cell in shares.groupby(["mix", "players", "lineup"]):
        assert sum(e.value for e in cell["share"]) == pytest.approx(1.0)
    figures = stats.figure_table(df)
    assert set(figures["mix"]) == {"abbey-mayor"} and "mayor" in set(figures["figure"])
    effects = stats.effects(df)
    assert set(effects["mix"]) == {"abbey-mayor"}
    row = effects[
        (effects["measure"] == "score") & (effects["players"] == 2) & (effects["lineup"] == "greedy")
    ]
    e = row["effect"].iloc[0]
    assert e.value == pytest.approx(row["mix_value"].iloc[0].value - row["base"].iloc[0].value)
    assert e.low <= e.value <= e.high


def test_the_command_line_runs_a_sweep_and_writes_its_report(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s.parquet"
    args = [
        "balance",
        "run",
        str(out),
        "--mixes",
        "base,shrines",
        "--players",
        "2",
        "--deals",
        "greedy=2,mcts+greedy=1",
    ]
    assert main([*args, "--mcts", "mcts:iters=10,memory=16", "--chunk-deals", "1"]) == 0
    assert len(list(out.glob("*.parquet"))) == 2 * (2 + 1)
    assert main(["balance", "report", str(out)]) == 0
    page = tmp_path / "s.parquet-report" / "index.html"
    text = page.read_text()
    for heading in (
        "Headline",
        "First-player advantage",
        "Skill gradient",
        "Points by cause",
        "Each mix against base",
    ):
        assert f"<h2>{heading}</h2>" in text
    for image in ("first_player.png", "skill.png", "causes.png", "scores.png", "length.png", "effects.png"):
        assert f'src="{image}"' in text
        assert (page.parent / image).read_bytes()[:4] == b"\x89PNG"
    assert main(["balance", "merge", str(out), str(tmp_path / "all.parquet")]) == 0
    assert main(["balance", "report", str(tmp_path / "all.parquet"), "--out", str(tmp_path / "r2")]) == 0
    assert (tmp_path / "r2" / "index.html").read_text() == text.replace(
        str(out), str(tmp_path / "all.parquet")
    )
    assert main(["balance", "run", str(out), "--deals", "greedy=x"]) == 2
    assert "lineup=count" in capsys.readouterr().err
    assert main(["balance", "run", str(tmp_path / "t"), "--mixes", "base,nope"]) == 2
    assert "unknown mix" in capsys.readouterr().err


def test_an_arena_csv_of_before_the_balance_columns_is_refused_with_a_reason(tmp_path: Path) -> None:
    path = tmp_path / "old.csv"
    path.write_text(
        "game,deal,rotation,seat,entrant,agent,score,win_share,decisions,think_seconds,iterations,seed,agent_seed\n"
        '0,0,0,0,0,"greedy",80,1.0000,40,0.1,0,0,1\n'
    )
    with pytest.raises(SearchError, match="of an older arena"):
        arena("greedy,random", deals=1, threads=1, csv=path, resume=True)
    assert path.read_text().startswith("game,deal,rotation,seat,entrant,agent,score,win_share,decisions,")
    new = arena("greedy,random", deals=1, threads=1, csv=path)
    assert path.read_text() == new.csv() and "points_city" in new.csv().splitlines()[0]
    resumed = arena("greedy,random", deals=1, threads=1, csv=path, resume=True)
    assert resumed.games[1].points == new.games[1].points and resumed.games[1].figures == new.games[1].figures
