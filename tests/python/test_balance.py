"""The balance sweep: its rows account for every game and point, a stopped sweep resumes without
replaying finished chunks and gives the same rows, the intervals are over deals (not games), and
the report is written with its plots."""

from __future__ import annotations

import ast
import json
import re
import shutil
import socket
import warnings
from pathlib import Path

import numpy as np
import pandas as pd
import pytest

import carcassonne
from carcassonne import CAUSES, SearchError, arena
from carcassonne.__main__ import main
from carcassonne.balance import Mix, SweepSpec, answers, chunks, read_sweep, report_answers, run_sweep, stats
from carcassonne.balance import report as report_module
from carcassonne.balance import sweep as sweep_module
from carcassonne.balance.cli import parse_mix
from carcassonne.balance.replay import replay_deal
from carcassonne.balance.sweep import TIMING_COLUMNS, sweep_records

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


@pytest.fixture(scope="module")
def page(sweep: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The report of the module's sweep (one rendering for the tests that read it)."""
    return report_module.write_report(sweep, tmp_path_factory.mktemp("report")).read_text()


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
    for p in [*parts[::2], sweep / "_spec.json"]:  # half the chunks "finished" before the stop
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


# --- a report of any sweep: every section shows or says why it is empty

SECTIONS = (
    "Headline",
    "First-player advantage",
    "Fairness",
    "Every seat",
    "Skill gradient",
    "Points by cause",
    "Scores and game length",
    "Game length",
    "Figure usage and its value",
    "Each mix against base",
    "Compensation",
    "Bot strength and the first-player edge",
    "Luck and skill",
    "Game flow",
    "Tile value",
    "Score and margin spread",
    "Points by cause and seat",
)
TINY = {"players": (2,), "mcts": "mcts:iters=8,memory=16", "chunk_deals": 2, "seed": 3}
SHRINES = Mix("shrines", ("shrines",))


@pytest.mark.parametrize(
    ("mixes", "deals"),
    [
        ((Mix("base"), SHRINES), (("greedy", 2),)),  # greedy only: the cheapest first sweep
        ((Mix("base"), SHRINES), (("mcts", 1),)),  # MCTS only
        ((Mix("base"), SHRINES), (("mcts+greedy", 1),)),  # only the skill line-up
        ((SHRINES, Mix("river2", (), (("start", "river2"),))), (("greedy", 2),)),  # without base
        ((Mix("base"), Mix("my-mix", ("abbey-mayor", "shrines"))), (("greedy", 2), ("mcts+greedy", 1))),
    ],
    ids=["greedy-only", "mcts-only", "mcts+greedy-only", "no-base", "custom-mix"],
)
def test_the_report_renders_for_any_sweep(
    mixes: tuple[Mix, ...], deals: tuple[tuple[str, int], ...], tmp_path: Path
) -> None:
    spec = SweepSpec(mixes=mixes, deals=deals, **TINY)  # type: ignore[arg-type]
    folder = run_sweep(tmp_path / "s", spec, progress=False)
    page = report_module.write_report(folder, tmp_path / "r")
    text = page.read_text()
    for title in SECTIONS:
        assert f"<h2>{title}</h2>" in text, title
        section = text.split(f"<h2>{title}</h2>", 1)[1].split("<h2>", 1)[0]
        assert "<img" in section or "<table" in section or "<p>" in section, title  # shows, or says why
    for image in report_module.PLOTS:
        if f'src="{image}"' in text:
            assert (page.parent / image).read_bytes()[:4] == b"\x89PNG"
    if all(m.name != "base" for m in mixes):
        assert "Needs the mix &#x27;base&#x27;" in text
    if not any(lineup == "mcts+greedy" for lineup, _ in deals):
        assert "Needs the mcts+greedy line-up" in text
    assert "no per-turn standings" not in text  # game flow and tile value have their data


def test_the_report_names_the_network_behind_the_bots(page: str) -> None:
    sha = carcassonne._core.ValueNet(str(Path(carcassonne._core.value_net_dir()) / "value-base.value")).sha256
    assert f"valued by the value network value-base.value (sha256 {sha[:16]}) in base 2 players" in page
    assert "rollouts elsewhere" in page


def test_group_sizes_stand_beside_the_figures(page: str) -> None:
    assert "(3 deals)" in page  # the headline's greedy win rates: 3 deals
    for title in ("First-player advantage", "Every seat", "Skill gradient", "Points by cause"):
        section = page.split(f"<h2>{title}</h2>", 1)[1].split("<h2>", 1)[0]
        assert "<th>deals</th>" in section, title
    assert "close to repeats" not in page  # an unmeasured claim about a deal's rotations


# --- intervals: paired differences, no zero width


def test_a_tiny_group_gets_no_zero_width_interval() -> None:
    # 30 deals; a mayor placed in only 2 seat-games (both won): a bootstrap of them has no width.
    rows = pd.DataFrame(
        {
            "mix": "m",
            "players": 2,
            "lineup": "greedy",
            "deal": np.repeat(np.arange(30), 2),
            "rotation": 0,
            "seat": np.tile([0, 1], 30),
            "win_share": np.tile([1.0, 0.0], 30),
            **{f"figures_{k}": 0 for k in ("meeple", "mayor", "wagon", "barn")},
        }
    )
    rows.loc[[0, 2], "figures_mayor"] = 1
    figures = stats.figure_table(rows)
    for col in ("used", "win_used", "win_unused", "difference"):
        for e in figures[col]:
            text = e.text(percent=True)
            assert e.high > e.low or "too small" in text or "no spread" in text, (col, text)
    used = figures["win_used"].iloc[0]
    assert used.n == 2 and used.deals == 2 and "n too small" in used.text()


def test_a_win_rate_fixed_by_construction_shows_no_interval() -> None:
    # Every seat of every game placed a wagon: the win rate of the seat-games that did is the
    # mean win share of whole games, 50% with 2 players whatever happened. The mayor: both
    # seats of half the games, so both groups are whole games.
    rng = np.random.default_rng(4)
    won = (rng.random(40) < 0.7).astype(float)
    rows = pd.DataFrame(
        {
            "mix": "m",
            "players": 2,
            "lineup": "greedy",
            "deal": np.repeat(np.arange(20), 4),
            "rotation": np.tile([0, 0, 1, 1], 20),
            "seat": np.tile([0, 1], 40),
            "win_share": np.stack([won, 1 - won], axis=1).ravel(),
            "figures_meeple": 1,
            "figures_mayor": np.repeat(np.tile([1, 0], 20), 2),
            "figures_wagon": 1,
            "figures_barn": 0,
        }
    )
    figures = stats.figure_table(rows).set_index("figure")
    wagon = figures.loc["wagon"]
    assert wagon["win_used"].value == 0.5 and not wagon["win_used"].has_interval
    assert wagon["win_used"].text(percent=True) == "50.0% (by construction)"
    assert wagon["win_unused"].text() == "n/a" and wagon["difference"].text() == "n/a"
    mayor = figures.loc["mayor"]
    for col, value in (("win_used", 0.5), ("win_unused", 0.5), ("difference", 0.0)):
        assert mayor[col].value == value and "by construction" in mayor[col].text(), col
    assert mayor["used"].has_interval  # how often a figure is placed is measured, not fixed


def test_differences_are_resampled_paired_by_deal() -> None:
    # Every deal has its own luck, shared by the seat-games that used a figure and those that
    # did not: paired, the difference is far narrower than either rate.
    rng = np.random.default_rng(1)
    luck = np.repeat(rng.uniform(0.1, 0.8, 40), 4)
    used = np.tile([1, 1, 0, 0], 40)
    rows = pd.DataFrame(
        {
            "mix": "m",
            "players": 4,
            "lineup": "greedy",
            "deal": np.repeat(np.arange(40), 4),
            "rotation": 0,
            "seat": np.tile([0, 1, 2, 3], 40),
            "win_share": np.clip(luck + 0.1 * used + rng.normal(0, 0.01, 160), 0, 1),
            "figures_meeple": 1,
            "figures_mayor": used,
            "figures_wagon": 0,
            "figures_barn": 0,
        }
    )
    row = stats.figure_table(rows).iloc[0]
    width = row["difference"].high - row["difference"].low
    assert width < 0.25 * (row["win_used"].high - row["win_used"].low)
    assert row["difference"].low > 0.05


def test_the_effect_against_base_measures_the_distance_from_a_fair_share() -> None:
    def cell(mix: str, seat0_wins: float) -> pd.DataFrame:
        deals = np.repeat(np.arange(20), 4)  # 2 rotations x 2 seats
        first = np.tile([1.0, 0.0, 1.0, 0.0], 20)
        share = np.where(first == 1, seat0_wins, 1 - seat0_wins)
        return pd.DataFrame(
            {
                "mix": mix,
                "players": 2,
                "lineup": "greedy",
                "deal": deals,
                "seat": np.tile([0, 1], 40),
                "rotation": np.tile([0, 0, 1, 1], 20),
                "entrant": 0,
                "win_share": share,
                "score": 50,
                "turns": 70,
            }
        )

    df = pd.concat([cell("base", 0.8), cell("fairer", 0.4)], ignore_index=True)
    effects = stats.effects(df)
    unfair = effects[effects["measure"] == "seat0_unfair"]["effect"].iloc[0]
    assert unfair.value == pytest.approx(-0.2)  # |0.4 - 0.5| - |0.8 - 0.5|: fairer than base
    win = effects[effects["measure"] == "seat0_win"]["effect"].iloc[0]
    assert win.value == pytest.approx(-0.4)


# --- the report's plots and tables


def test_a_cause_keeps_its_colour_and_the_points_table_has_no_empty_column(
    sweep: Path, page: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import matplotlib.axes

    seen: list[dict[str, object]] = []
    barh = matplotlib.axes.Axes.barh

    def spy(self: matplotlib.axes.Axes, *args: object, **kwargs: object) -> object:
        seen.append({"label": kwargs.get("label"), "color": kwargs.get("color")})
        return barh(self, *args, **kwargs)  # type: ignore[arg-type]

    monkeypatch.setattr(matplotlib.axes.Axes, "barh", spy)
    df = read_sweep(sweep)
    shares = stats.cause_shares(df)
    report_module._plot_causes(shares, tmp_path)
    colours = {s["label"]: s["color"] for s in seen}
    seen.clear()
    first = shares["cause"].iloc[0]
    report_module._plot_causes(shares[shares["cause"] != first], tmp_path)  # one cause fewer
    assert {s["label"]: s["color"] for s in seen} == {k: v for k, v in colours.items() if k != first}
    causes = page.split("<h2>Points by cause</h2>", 1)[1].split("<h2>", 1)[0]
    assert "<th>cause</th>" not in causes and "<th></th>" not in causes


def test_sweep_and_ray_runner_do_not_import_each_other() -> None:
    for module, other in (("sweep", "ray_runner"), ("ray_runner", "sweep")):
        path = Path(sweep_module.__file__).parent / f"{module}.py"
        imported = {
            node.module for node in ast.walk(ast.parse(path.read_text())) if isinstance(node, ast.ImportFrom)
        }
        if module == "sweep":  # run_sweep loads ray_runner when asked for a cluster, not at import
            top = ast.parse(path.read_text()).body
            imported = {n.module for n in top if isinstance(n, ast.ImportFrom)}
        assert other not in imported, (module, imported)


# --- reproducible sweep folders


TINY_SPEC = SweepSpec(mixes=(Mix("base"),), deals=(("greedy", 2), ("mcts+greedy", 1)), **TINY)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def tiny(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return run_sweep(tmp_path_factory.mktemp("tiny") / "s", TINY_SPEC, progress=False)


def _copy(folder: Path, to: Path) -> Path:
    shutil.copytree(folder, to)
    return to


def _files(folder: Path) -> dict[str, bytes]:
    """Every file of a folder, its networks' copies too."""
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_the_spec_file_records_the_code_and_every_agent_option(tiny: Path) -> None:
    record = json.loads((tiny / "_spec.json").read_text())
    assert record["code"]["version"] == carcassonne.__version__
    assert record["code"]["commit"] and record["code"]["engine"]
    options = record["agents"]["mcts:iters=8,memory=16"]
    assert options["iters"] == "8" and options["memory"] == "16"
    assert set(options) == {o["key"] for o in carcassonne._core.mcts_options()}  # defaults too
    assert record["agents"]["greedy"] == {}
    assert not (tiny / "spec.json").exists()
    # A parquet reader reads the folder: the spec file's name starts with "_".
    assert len(pd.read_parquet(tiny)) == len(read_sweep(tiny))


def test_a_resume_with_other_code_or_foreign_parts_is_refused(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = _copy(tiny, tmp_path / "c")
    before = _files(copy)
    real = sweep_module.code_version
    monkeypatch.setattr(sweep_module, "code_version", lambda: {**real(), "version": "9.9"})
    with pytest.raises(SearchError, match="other code"):
        run_sweep(copy, TINY_SPEC, resume=True, progress=False)
    monkeypatch.setattr(sweep_module, "code_version", real)
    assert _files(copy) == before
    # A part of a run of another strength under the same chunk name.
    stronger = SweepSpec(mixes=TINY_SPEC.mixes, deals=TINY_SPEC.deals, **{**TINY, "mcts": "mcts:iters=9"})  # type: ignore[arg-type]
    other = run_sweep(tmp_path / "o", stronger, progress=False)
    name = next(p.name for p in other.glob("*mcts+greedy*.parquet"))
    (copy / name).write_bytes((other / name).read_bytes())
    with pytest.raises(SearchError, match="not played by this sweep"):
        run_sweep(copy, TINY_SPEC, resume=True, progress=False)
    (copy / name).write_bytes(before[name])
    (copy / "stranger.parquet").write_bytes(before[name])
    with pytest.raises(SearchError, match="not of its spec"):
        run_sweep(copy, TINY_SPEC, resume=True, progress=False)


def test_a_resume_plays_a_damaged_part_again(tiny: Path, tmp_path: Path) -> None:
    copy = _copy(tiny, tmp_path / "c")
    part = sorted(copy.glob("*.parquet"))[0]
    part.write_bytes(part.read_bytes()[: part.stat().st_size // 2])  # a copy cut off
    with pytest.warns(UserWarning, match="damaged"):
        run_sweep(copy, TINY_SPEC, resume=True, progress=False)
    a = _games(read_sweep(tiny)).drop(columns=list(TIMING_COLUMNS))
    b = _games(read_sweep(copy)).drop(columns=list(TIMING_COLUMNS))
    pd.testing.assert_frame_equal(a, b)


def test_folders_and_files_of_older_versions_are_still_read(tiny: Path, tmp_path: Path) -> None:
    copy = _copy(tiny, tmp_path / "c")
    (copy / "_spec.json").rename(copy / "spec.json")
    assert len(read_sweep(copy)) == len(read_sweep(tiny))
    committed = Path(__file__).parents[2] / "experiments" / "balance" / "sweep.parquet"
    if committed.exists():
        assert {"mix", "players", "lineup", "deal", "win_share"} <= set(read_sweep(committed).columns)


# --- the command line: bad input changes nothing


@pytest.mark.parametrize(
    ("option", "message"),
    [
        (["--deals", "mcts+greedy=1", "--mcts", "mcts:bogus=1"], "bogus"),
        (["--players", "9"], "player"),
        (["--deals", "greedy=0"], "plays no games"),
        (["--players", "2,2"], "listed twice"),
        (["--deals", "random=1"], "unknown line-up"),
        (["--deals", "greedy+greedy=1"], "two different bots"),
        (["--deals", "mcts@8+random=1"], "two different bots"),
        (["--deals", "mcts@0=1"], "iteration budget"),
        (["--deals", "mcts@x=1"], "iteration budget"),
        (["--threads", "-1"], "threads must be a count >= 0"),
        (["--deals", "mcts+greedy=1", "--mcts", "greedy"], "must be an 'mcts:...' agent"),
        (["--deals", "mcts=1", "--mcts", "mcts:iters=10,time=0.1"], "--allow-nondeterministic"),
        (["--deals", "mcts@8=1", "--mcts", "mcts:iters=10,threads=2"], "--allow-nondeterministic"),
        (["--mix", "x=river2+city"], "'river2' sets start:river2 and 'city' sets start:city"),
        (["--mix", "x=shrines+bogus"], "unknown part 'bogus'"),
        (["--mix", "x=start:nowhere"], "unknown part 'start:nowhere'"),
        (["--seed", "-1"], "seed must be an integer"),
    ],
)
def test_a_rejected_option_creates_nothing(
    option: list[str], message: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    base = ["balance", "run", str(out), "--mixes", "base", "--players", "2", "--deals", "greedy=1"]
    assert main([*base, *option]) == 2
    assert message in capsys.readouterr().err
    assert not out.exists()


def test_a_refused_mix_lists_the_known_mixes_and_parts_and_help_lists_the_mixes(
    capsys: pytest.CaptureFixture[str],
) -> None:
    with pytest.raises(SearchError) as refused:
        parse_mix("x=river2+city")
    for name in ("everything", "abbey-mayor", "start:tile|river2|city|city_plain"):
        assert name in str(refused.value)
    assert parse_mix("x=river2+start:river2").variants == (("start", "river2"),)  # the same value twice
    with pytest.raises(SystemExit):
        main(["balance", "run", "--help"])
    shown = " ".join(capsys.readouterr().out.split())
    assert "base, abbey-mayor, city, king-robber, shrines, river2, anniv20, everything" in shown


def test_an_mcts_agent_that_does_not_replay_needs_the_users_consent(tmp_path: Path) -> None:
    timed = SweepSpec(
        mixes=(Mix("base"),), deals=(("mcts", 1),), **{**TINY, "mcts": "mcts:time=0.01,iters=8"}
    )  # type: ignore[arg-type]
    with pytest.raises(SearchError, match="allow-nondeterministic"):
        run_sweep(tmp_path / "s", timed, progress=False)
    assert not (tmp_path / "s").exists()
    allowed = SweepSpec(**{**timed.__dict__, "allow_nondeterministic": True})
    folder = run_sweep(tmp_path / "s", allowed, progress=False)
    assert json.loads((folder / "_spec.json").read_text())["allow_nondeterministic"] is True
    assert SweepSpec.from_json((folder / "_spec.json").read_text()) == allowed


def test_a_resume_refused_for_other_code_says_what_differs(
    tiny: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    copy = _copy(tiny, tmp_path / "c")
    real = sweep_module.code_version
    monkeypatch.setattr(sweep_module, "code_version", lambda: {**real(), "engine": "0123"})
    with pytest.raises(SearchError) as refused:
        run_sweep(copy, TINY_SPEC, resume=True, progress=False)
    assert f"code.engine: '{real()['engine']}' -> '0123'" in str(refused.value)
    assert "version" not in str(refused.value)  # only what differs


def test_the_report_refuses_a_part_that_is_not_its_chunk(tiny: Path, tmp_path: Path) -> None:
    copy = _copy(tiny, tmp_path / "c")
    greedy = sorted(copy.glob("base_p2_greedy_*.parquet"))
    mcts = sorted(copy.glob("base_p2_mcts+greedy_*.parquet"))
    saved = mcts[0].read_bytes()
    mcts[0].write_bytes(greedy[0].read_bytes())  # a chunk copied under another chunk's name
    with pytest.raises(SearchError, match="does not hold the games its name says"):
        report_module.write_report(copy, tmp_path / "r")
    assert not (tmp_path / "r").exists()
    # A part of another sweep under this sweep's chunk name.
    stronger = SweepSpec(mixes=TINY_SPEC.mixes, deals=TINY_SPEC.deals, **{**TINY, "mcts": "mcts:iters=9"})  # type: ignore[arg-type]
    other = run_sweep(tmp_path / "o", stronger, progress=False)
    mcts[0].write_bytes((other / mcts[0].name).read_bytes())
    with pytest.raises(SearchError, match="was not played by the sweep"):
        read_sweep(copy)
    mcts[0].write_bytes(saved)
    assert len(read_sweep(copy)) == len(read_sweep(tiny))
    # A folder without a spec file, or a merged file: no game and seat twice.
    (copy / "_spec.json").unlink()
    (copy / "zz-copy.parquet").write_bytes(greedy[0].read_bytes())
    with pytest.raises(SearchError, match="rows twice"):
        read_sweep(copy)
    with pytest.raises(SearchError, match="rows twice"):
        sweep_module.merge_sweep(copy, tmp_path / "all.parquet")


def test_an_unreachable_cluster_is_an_error_not_a_hang(tmp_path: Path) -> None:
    pytest.importorskip("ray")
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    with pytest.raises(SearchError, match="no Ray cluster answers"):
        run_sweep(tmp_path / "s", TINY_SPEC, address=f"127.0.0.1:{port}", progress=False)
    assert not (tmp_path / "s").exists()


def test_merge_asks_before_overwriting_takes_several_sweeps_and_skips_its_own_output(
    tiny: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    copy = _copy(tiny, tmp_path / "c")
    inside = copy / "all.parquet"
    assert main(["balance", "merge", str(copy), str(inside)]) == 0
    rows = len(pd.read_parquet(inside))
    assert rows == len(read_sweep(tiny))
    assert main(["balance", "merge", str(copy), str(inside)]) == 2
    assert "--force" in capsys.readouterr().err
    assert main(["balance", "merge", str(copy), str(inside), "--force"]) == 0
    assert len(pd.read_parquet(inside)) == rows  # not its own output read back
    assert len(read_sweep(copy)) == rows  # the folder's rows are its parts only
    # Two sweeps of other cells merge into one file; sweeps sharing deals are refused.
    three = SweepSpec(mixes=(Mix("base"),), deals=(("greedy", 1),), **{**TINY, "players": (3,)})  # type: ignore[arg-type]
    other = run_sweep(tmp_path / "p3", three, progress=False)
    both = tmp_path / "both.parquet"
    assert main(["balance", "merge", str(copy), str(other), str(both)]) == 0
    assert set(pd.read_parquet(both)["players"]) == {2, 3}
    assert main(["balance", "merge", str(copy), str(tiny), str(tmp_path / "x.parquet")]) == 2
    assert "same cells" in capsys.readouterr().err
    assert not (tmp_path / "x.parquet").exists()


def test_a_folder_holding_only_a_spec_can_be_run_afresh(tmp_path: Path) -> None:
    out = tmp_path / "s"
    out.mkdir()
    (out / "_spec.json").write_text("{}")  # a run stopped before its first chunk
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        run_sweep(out, TINY_SPEC, progress=False)
    assert len(read_sweep(out)) > 0


def test_fairness_names_the_farthest_seat_and_tests_equal_seats() -> None:
    rng = np.random.default_rng(2)

    def cell(mix: str, seat1_wins: float) -> pd.DataFrame:
        won = (rng.random(60) < seat1_wins).astype(float)  # 30 deals x 2 rotations
        share = np.stack([1 - won, won], axis=1).ravel()
        return pd.DataFrame(
            {
                "mix": mix,
                "players": 2,
                "lineup": "greedy",
                "deal": np.repeat(np.arange(30), 4),
                "rotation": np.tile([0, 0, 1, 1], 30),
                "seat": np.tile([0, 1], 60),
                "win_share": share,
            }
        )

    fair = stats.fairness(pd.concat([cell("unfair", 0.85), cell("fair", 0.5)], ignore_index=True))
    unfair, even = fair.iloc[0], fair.iloc[1]
    assert unfair["largest_gap"].low > 0.2 and unfair["p_equal_seats"] < 0.01
    assert even["p_equal_seats"] > 0.05 and even["largest_gap"].value < unfair["largest_gap"].value
    # With 2 players both seats are as far from a fair share: the favoured one is named, signed.
    assert unfair["farthest_seat"] == 1 and unfair["seat_gap"] == pytest.approx(unfair["largest_gap"].value)
    assert unfair["seat_gap"] > 0.2


def test_two_players_name_the_favoured_seat_whatever_the_rounding() -> None:
    # Seat 0 wins 2 of 3 games in every deal: 0.5 + 1/6 and 0.5 - 1/6 are as far from 1/2, up
    # to rounding (which once picked the losing seat and showed no sign).
    share0 = np.tile([1.0, 1.0, 0.0], 20)
    for favoured in (0, 1):
        share = share0 if favoured == 0 else 1 - share0
        rows = pd.DataFrame(
            {
                "mix": "m",
                "players": 2,
                "lineup": "greedy",
                "deal": np.repeat(np.arange(30), 4),
                "rotation": np.tile([0, 0, 1, 1], 30),
                "seat": np.tile([0, 1], 60),
                "win_share": np.stack([share, 1 - share], axis=1).ravel(),
            }
        )
        row = stats.fairness(rows).iloc[0]
        assert row["farthest_seat"] == favoured
        assert row["seat_gap"] == pytest.approx(1 / 6)


def _correlated_cell(
    rng: np.random.Generator, players: int, deals: int, concentration: float
) -> pd.DataFrame:
    """A cell of identical agents with equal seats whose games are correlated within a deal, as
    a deck's luck is shared by its rotations: per deal, the seats' chances to win are drawn
    around a fair share (a Dirichlet of concentration `concentration`: seat-win indicators of
    two rotations correlate 1 / (concentration + 1)) and each rotation's winner from them."""
    chances = rng.dirichlet(np.full(players, concentration / players), size=deals)
    draw = rng.random((deals, players))  # one game per rotation
    winner = (draw[..., None] > np.cumsum(chances, axis=1)[:, None, :]).sum(axis=-1)
    share = (winner[..., None] == np.arange(players)).astype(float)  # deals x rotations x seats
    return pd.DataFrame(
        {
            "players": players,
            "deal": np.repeat(np.arange(deals), players * players),
            "rotation": np.tile(np.repeat(np.arange(players), players), deals),
            "seat": np.tile(np.arange(players), deals * players),
            "win_share": share.ravel(),
        }
    )


# Simulated sweeps per check: a rate near 5% (or 95%) from 1000 of them has a binomial standard
# deviation of sqrt(0.05 * 0.95 / 1000) = 0.69 points, so 3-7% (93-97%) is +-2.9 of them; the
# seeded generator makes each check the same every run.
SIMULATED = 1000


def test_the_equal_seats_test_holds_its_level_when_a_deals_rotations_are_correlated() -> None:
    # Equal seats, 3 players, 20 deals, rotations correlated 0.3: a test at 5% must reject about
    # 5% of such sweeps. Shuffling each game's seats alone rejected 14% here.
    rng = np.random.default_rng(7)
    p = [stats.equal_seats_p(_correlated_cell(rng, 3, 20, 2.33), permutations=199) for _ in range(SIMULATED)]
    assert 0.03 <= np.mean(np.array(p) <= 0.05) <= 0.07


def test_the_largest_gap_interval_covers_the_true_gap() -> None:
    # Equal seats (a true largest gap of 0), 4 players, 30 deals, rotations correlated 0.25: the
    # 95% interval must hold 0 in about 95% of sweeps. A basic bootstrap of the largest gap
    # itself held it in 86%.
    rng = np.random.default_rng(8)
    held = [stats._largest_gap(_correlated_cell(rng, 4, 30, 3.0))[0].low <= 0 for _ in range(SIMULATED)]
    assert 0.93 <= np.mean(held) <= 0.97


def test_no_p_value_or_interval_from_too_few_deals(tmp_path: Path) -> None:
    rows = _correlated_cell(np.random.default_rng(1), 2, stats.MIN_DEALS - 1, 3.0)
    rows = rows.assign(mix="m", lineup="greedy")
    row = stats.fairness(rows).iloc[0]
    assert np.isnan(row["p_equal_seats"]) and not row["largest_gap"].has_interval
    assert "n too small" in row["largest_gap"].text()
    enough = rows.assign(deal=rows["deal"] + 100)
    enough = stats.fairness(pd.concat([rows, enough, enough.assign(deal=enough["deal"] + 100)]))
    assert 0 < enough["p_equal_seats"].iloc[0] <= 1


def _column(page: str, section: str, column: str) -> list[str]:
    """The cells of a column of a section's table in the report."""
    part = page.split(f"<h2>{section}</h2>", 1)[1].split("<h2>", 1)[0]
    header = re.findall(r"<th>(.*?)</th>", part)
    rows = re.findall(r"<tr>(.*?)</tr>", part.split("<tbody>", 1)[1], flags=re.S)
    return [re.findall(r"<td>(.*?)</td>", row, flags=re.S)[header.index(column)] for row in rows]


def test_the_report_shows_no_p_value_from_three_deals(page: str) -> None:
    p_values = _column(page, "Fairness", "p_equal_seats")  # the module's sweep: 3 deals or fewer
    assert p_values and set(p_values) == {"n too small"}
    assert all(
        s.startswith("seat ") and (" +" in s or " -" in s) for s in _column(page, "Fairness", "farthest_seat")
    )


def test_a_plot_takes_an_estimate_outside_its_percentile_interval(tmp_path: Path) -> None:
    # The largest of several gaps is biased: its percentile interval may lie above it.
    import matplotlib.pyplot as plt

    e = stats.Estimate(0.01, 0.02, 0.05, np.array([0.03]), (0,), 20, 40)
    frame = pd.DataFrame({"mix": ["m"], "players": [2], "deals": [20], "gap": [e]})
    fig, ax = plt.subplots()
    report_module._errorbar_by_mix(ax, frame, "gap", "players")
    plt.close(fig)


# --- per-turn standings and the designer's answers


def test_the_per_turn_columns_replay_each_game(sweep: Path) -> None:
    df = read_sweep(sweep)
    for row in df.itertuples():
        assert len(row.turn_seat) == len(row.turn_tile) == len(row.standing) == row.turns
        assert row.standing[-1] == row.score  # the last turn's standing is the final score
    # The tiles a seat placed, counted from the turns, are its tiles by kind.
    for row in df.sample(40, random_state=1).itertuples():
        mine = [
            t for s, t in zip(row.turn_seat, row.turn_tile, strict=True) if s == row.seat and t
        ]  # abbeys too
        assert sorted(mine) == sorted(k for k, n in row.tiles_by_kind for _ in range(n))


def test_compensation_finds_the_points_that_equalise_the_seats() -> None:
    rng = np.random.default_rng(3)
    games = 400
    scores = np.stack([rng.normal(80, 15, games) + 12, rng.normal(80, 15, games)], axis=1).round()
    bonus = answers.solve_compensation(scores, np.ones((1, games)))[0]
    assert bonus[0] == 0 and 6 < bonus[1] < 18  # seat 0 is 12 points better on average
    assert answers.shares_with(scores, bonus) == pytest.approx([0.5, 0.5], abs=0.01)
    three = np.stack([rng.normal(60, 10, games) + d for d in (0, 8, 3)], axis=1).round()
    bonus = answers.solve_compensation(three, np.ones((1, games)))[0]
    assert bonus[1] == 0 and bonus[0] > bonus[2] > 0
    assert answers.shares_with(three, bonus) == pytest.approx([1 / 3] * 3, abs=0.02)


def test_compensation_of_a_sweep_has_an_interval_per_seat(sweep: Path) -> None:
    table = answers.compensation(read_sweep(sweep))
    for _, cell in table.groupby(["mix", "players", "lineup"]):
        assert min(e.value for e in cell["start_points"]) == 0  # the favoured seat starts at 0
        for e in cell["start_points"]:
            assert e.deals >= 1 and e.low <= e.high


def _pair_rows(mcts_scores: list[int], greedy_scores: list[int]) -> pd.DataFrame:
    rows = []
    for deal, (m, g) in enumerate(zip(mcts_scores, greedy_scores, strict=True)):
        for entrant, score in ((0, m), (1, g)):
            rows.append(
                {"mix": "m", "players": 2, "lineup": "mcts+greedy", "deal": deal, "rotation": 0}
                | {"seat": entrant, "entrant": entrant, "score": score}
            )
    return pd.DataFrame(rows)


def test_luck_and_skill_counts_the_weaker_bots_wins_and_the_elo_gap() -> None:
    # 40 deals: MCTS wins 30 pairs, loses 8, ties 2 -> 31 / 40 = 0.775.
    mcts = [50] * 30 + [40] * 8 + [45] * 2
    row = answers.luck_and_skill(_pair_rows(mcts, [45] * 40)).iloc[0]
    assert row["pair_win"].value == pytest.approx(0.775)
    assert row["stronger"] == "mcts" and row["upset"].value == pytest.approx(0.225)
    assert row["elo_gap"].value == pytest.approx(400 * np.log10(0.775 / 0.225))
    assert row["elo_gap"].low < row["elo_gap"].value < row["elo_gap"].high
    weaker = answers.luck_and_skill(_pair_rows([40] * 30 + [50] * 10, [45] * 40)).iloc[0]
    assert weaker["stronger"] == "greedy" and weaker["upset"].value == pytest.approx(0.25)


def test_game_flow_of_one_game() -> None:
    # Seat 1 leads turns 1-2, seat 0 turns 3-5, seat 1 from turn 6 to the end.
    standing = np.array([[0, 1, 5, 6, 7, 7, 7, 8], [2, 3, 4, 4, 6, 9, 12, 20]], float)
    game = answers.PlayedGame(0, standing[:, -1], standing, None, None)
    flow = answers.game_flow_of(game)
    assert flow["lead_changes"] == 2  # 1 -> 0 -> 1
    assert flow["decided_at"] == pytest.approx(5 / 8)  # the winner leads alone from turn 6 of 8
    assert flow["comeback"] == 1.0  # at half time (turn 5 of 8) the winner was behind
    tied = standing.copy()
    tied[1, 4] = 7  # a tie at half time is not a comeback, nor a lead change
    flow = answers.game_flow_of(answers.PlayedGame(0, tied[:, -1], tied, None, None))
    assert flow["comeback"] == 0.0 and flow["lead_changes"] == 2
    assert flow["deficit"] == 2.0  # turn 4: 4 against 6


def test_tile_value_adds_up_to_the_drawers_gains(sweep: Path) -> None:
    df = read_sweep(sweep)
    cell = df[(df["mix"] == "base") & (df["players"] == 2) & (df["lineup"] == "greedy")]
    values = answers.tile_value(cell)
    total = sum(e.value * n for e, n in zip(values["gain"], values["turns"], strict=True))
    expected = 0.0
    for g in answers.played_games(cell):
        assert g.standing is not None and g.turn_seat is not None
        gains = np.diff(np.hstack([np.zeros((2, 1)), g.standing]), axis=1)
        expected += sum(gains[s, t] for t, s in enumerate(g.turn_seat))
    assert total == pytest.approx(expected)
    assert values["turns"].sum() == cell[cell["seat"] == 0]["turns"].sum()  # base: every turn places


def test_strength_vs_edge_orders_the_bots_and_pairs_the_change(tmp_path: Path) -> None:
    spec = SweepSpec(
        mixes=(Mix("base"),),
        deals=(("greedy", 3), ("mcts@4", 2), ("mcts", 2)),
        **TINY,  # type: ignore[arg-type]
    )
    table = answers.strength_vs_edge(read_sweep(run_sweep(tmp_path / "s", spec, progress=False)))
    assert list(table["lineup"]) == ["greedy", "mcts@4", "mcts"] and list(table["budget"]) == [0, 4, 8]
    greedy = table["seat0_win"].iloc[0]
    for _, row in table.iloc[1:].iterrows():
        assert row["change_from_greedy"].value == pytest.approx(row["seat0_win"].value - greedy.value)
    assert table["change_from_greedy"].iloc[0] is None


def test_spread_of_scores_and_leads() -> None:
    rows = _pair_rows([50, 60, 40, 70] * 5, [45] * 20).assign(lineup="greedy")
    rows["rank"] = rows.groupby(["deal", "rotation"])["score"].rank(ascending=False, method="min")
    best_other = rows.groupby(["deal", "rotation"])["score"].transform(lambda s: s[::-1].to_numpy())
    rows["margin"] = rows["score"] - best_other
    row = answers.spread(rows).iloc[0]
    assert row["score_sd"].value == pytest.approx(rows["score"].std(ddof=0))
    assert row["winning_lead"].value == pytest.approx(np.mean([5, 15, 5, 25]))
    assert row["close_games"].value == pytest.approx(0.5)


def test_a_sweep_without_per_turn_columns_says_what_its_report_lacks(sweep: Path, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    parts = [pq.read_table(p) for p in sorted(sweep.glob("*.parquet"))]
    pq.write_table(pa.concat_tables(parts).drop(list(answers.TURN_COLUMNS)), tmp_path / "old.parquet")
    old = read_sweep(tmp_path / "old.parquet")
    for section in (report_answers.game_flow, report_answers.tile_value):
        title, text, image, table = section(old, tmp_path)
        assert "no per-turn standings" in text and image is None and table == [], title
    assert report_answers.compensation(old, tmp_path)[2] == "compensation.png"  # the others work


# --- mixes of one's own from the command line


def test_a_mix_from_the_command_line() -> None:
    mix = parse_mix("mine=abbey-mayor+river2")
    assert mix == Mix("mine", ("abbey-mayor",), (("start", "river2"),))
    mix = parse_mix("big=everything+shrines")  # a default mix's parts, each once
    assert mix.expansions == ("abbey-mayor", "king-robber", "shrines", "anniv20")
    assert mix.variants == (("start", "city"),)
    assert parse_mix("x=shrines+start:river2").variants == (("start", "river2"),)
    for bad in ("noname", "=shrines", "x=", "x=shrines++river2"):
        with pytest.raises(SearchError, match="--mix"):
            parse_mix(bad)


def test_custom_mixes_run_against_base_and_bad_ones_create_nothing(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "s"
    args = ["balance", "run", str(out), "--players", "2", "--deals", "greedy=2", "--chunk-deals", "2"]
    assert main([*args, "--mix", "mine=abbey-mayor+river2", "--mix", "odd=nonsense"]) == 2
    assert "nonsense" in capsys.readouterr().err and not out.exists()
    assert main([*args, "--mix", "mine=abbey-mayor+river2", "--mix", "base=shrines"]) == 2
    assert "listed twice" in capsys.readouterr().err and not out.exists()
    assert main([*args, "--mix", "mine=abbey-mayor+river2"]) == 0
    df = read_sweep(out)
    assert list(dict.fromkeys(df["mix"])) == ["base", "mine"]
    assert set(df.loc[df["mix"] == "mine", "variants"]) == {"start=river2"}
    effects = stats.effects(df)
    assert set(effects["mix"]) == {"mine"}  # compared with base


# --- the committed sweep replays


def test_a_deal_played_again_gives_the_stored_rows(sweep: Path) -> None:
    stored = _games(read_sweep(sweep))
    for mix, lineup, deal in (("abbey-mayor", "mcts+greedy", 1), ("base", "greedy", 2)):
        again = _games(replay_deal(SPEC, mix, 3, lineup, deal)).drop(columns=list(TIMING_COLUMNS))
        cell = stored[(stored["mix"] == mix) & (stored["players"] == 3) & (stored["lineup"] == lineup)]
        cell = cell[cell["deal"] == deal].reset_index(drop=True).drop(columns=list(TIMING_COLUMNS))
        pd.testing.assert_frame_equal(again, cell)


COMMITTED = Path(__file__).parents[2] / "experiments" / "balance" / "sweep.parquet"
REGENERATE = "docs/balance.md, 'Regenerating the committed sweep'"


def _check_replays(path: Path, every_cell: bool = False) -> None:
    """Plays the last deal of cells of a merged sweep again, with the bots its spec records, and
    compares the rows with the stored ones: every cell, or two (the last mix's last line-up at the
    fewest players: the most sensitive to any change; the first mix's first line-up at the most
    players)."""
    records = sweep_records(path)
    assert records, f"{path} keeps no spec (a file of an older version); regenerate it ({REGENERATE})"
    spec = SweepSpec.from_json(json.dumps(records[0]))
    df = _games(read_sweep(path))
    played = f"played by {records[0]['code']}, now {sweep_module.code_version()}"
    lineups = [lineup for lineup, _ in spec.deals]
    picks = [
        (spec.mixes[-1].name, spec.players[0], lineups[-1]),
        (spec.mixes[0].name, spec.players[-1], lineups[0]),
    ]
    if every_cell:
        picks = [(m.name, p, lineup) for m in spec.mixes for p in spec.players for lineup in lineups]
    for mix, players, lineup in picks:
        cell = df[(df["mix"] == mix) & (df["players"] == players) & (df["lineup"] == lineup)]
        deal = int(cell["deal"].max())
        stored = cell[cell["deal"] == deal].reset_index(drop=True).drop(columns=list(TIMING_COLUMNS))
        with warnings.catch_warnings():  # an older spec replays its recorded options: said elsewhere
            warnings.filterwarnings("ignore", message="the bots of this sweep are not pinned")
            again = _games(replay_deal(path, mix, players, lineup, deal)).drop(columns=list(TIMING_COLUMNS))
        try:
            pd.testing.assert_frame_equal(again, stored)
        except AssertionError as e:
            raise AssertionError(
                f"deal {deal} of ({mix}, {players} players, {lineup}) plays otherwise than in {path} "
                f"({played}): regenerate it ({REGENERATE})\n{e}"
            ) from None


def test_a_merged_sweep_keeps_its_spec_and_replays(tiny: Path, tmp_path: Path) -> None:
    merged = sweep_module.merge_sweep(tiny, tmp_path / "all.parquet")
    assert sweep_records(merged) == sweep_records(tiny)
    _check_replays(merged)
    changed = read_sweep(merged)
    changed.loc[changed["deal"] == changed["deal"].max(), "score"] += 1  # a stored row that differs
    import pyarrow as pa
    import pyarrow.parquet as pq

    table = pa.Table.from_pandas(changed, schema=sweep_module.SCHEMA, preserve_index=False)
    pq.write_table(table.replace_schema_metadata(pq.read_schema(merged).metadata), tmp_path / "bad.parquet")
    with pytest.raises(AssertionError, match="plays otherwise"):
        _check_replays(tmp_path / "bad.parquet")


def test_sweeps_of_other_columns_are_not_merged(tiny: Path, tmp_path: Path) -> None:
    import pyarrow as pa
    import pyarrow.parquet as pq

    three = SweepSpec(mixes=(Mix("base"),), deals=(("greedy", 1),), **{**TINY, "players": (3,)})  # type: ignore[arg-type]
    other = run_sweep(tmp_path / "p3", three, progress=False)
    old = pa.concat_tables([pq.read_table(p) for p in other.glob("*.parquet")]).drop(["standing"])
    pq.write_table(old, tmp_path / "old.parquet")
    with pytest.raises(SearchError, match="other columns"):
        sweep_module.merge_sweep([tiny, tmp_path / "old.parquet"], tmp_path / "all.parquet")
    assert not (tmp_path / "all.parquet").exists()


def test_the_committed_sweep_replays() -> None:
    """A deal of every cell, the MCTS ones included: its spec (of before the bots were pinned)
    records the MCTS options of then (eval=greedy), which replay as they were played."""
    _check_replays(COMMITTED, every_cell=True)


STRENGTHS = Path(__file__).parents[2] / "experiments" / "balance-strength" / "sweep.parquet"


def test_the_sweep_across_strengths_replays() -> None:
    """A deal of every cell of the committed sweep across bot strengths (docs/balance.md): the
    learned player's 2-player base cell and the rollout search's cells beside it."""
    _check_replays(STRENGTHS, every_cell=True)
