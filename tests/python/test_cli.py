"""The command line: python -m carcassonne selfplay / bench."""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

import pytest

from carcassonne.__main__ import main


def test_selfplay_prints_every_game_and_a_summary(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--games", "4", "--agents", "greedy,random"]) == 0
    out = capsys.readouterr().out
    games = re.findall(r"^game (\d) \(seed \d\): (\w+) (\d+), (\w+) (\d+); winner: ", out, re.MULTILINE)
    assert [g[0] for g in games] == ["0", "1", "2", "3"]
    # Seats rotate: greedy moves first in games 0 and 2, random in 1 and 3.
    assert [g[1] for g in games] == ["greedy", "random", "greedy", "random"]
    assert re.search(r"^greedy\s+4\s+\d+\.\d\s+\d\.\d{3}$", out, re.MULTILINE)
    assert re.search(r"^random\s+4\s+\d+\.\d\s+\d\.\d{3}$", out, re.MULTILINE)


def test_selfplay_and_arena_take_agent_options_after_commas(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["selfplay", "--games", "1", "--agents", "mcts:iters=30,c=1,greedy"]) == 0
    out = capsys.readouterr().out
    assert re.match(r"game 0 \(seed 0\): mcts:iters=30,c=1 \d+, greedy \d+; winner: ", out)
    assert main(["arena", "--deals", "1", "--threads", "1", "greedy,mcts:iters=30,c=1"]) == 0
    out = capsys.readouterr().out
    assert re.search(r"^0\s+greedy\s+2 ", out, re.MULTILINE)
    assert re.search(r"^1\s+mcts:iters=30,c=1\s+2 ", out, re.MULTILINE)


def test_arena_takes_rule_variants(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    from carcassonne import arena

    def scores(csv: Path) -> list[str]:
        return [line.split(",")[6] for line in csv.read_text().splitlines()[1:]]

    base = ["arena", "--deals", "2", "--threads", "1", "--expansions", "king-robber", "greedy", "greedy"]
    assert main([*base, "--csv", str(tmp_path / "tile.csv")]) == 0
    assert main([*base, "--variant", "start=city", "--csv", str(tmp_path / "city.csv")]) == 0
    capsys.readouterr()
    city = arena(
        ["greedy", "greedy"], deals=2, threads=1, expansions=["king-robber"], variants={"start": "city"}
    )
    assert scores(tmp_path / "city.csv") == [str(g.scores[s]) for g in city.games for s in range(2)]
    assert scores(tmp_path / "city.csv") != scores(tmp_path / "tile.csv")


def test_bench_prints_games_per_second(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["bench", "--games", "200", "--threads", "1"]) == 0
    out = capsys.readouterr().out
    expected = r"200 random games \(2 players, threads: 1\) in [\d.]+ s: [\d.]+ games/s, \d+ decisions/s\n"
    assert re.fullmatch(expected, out)


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["selfplay", "--games", "1", "--agents", "greedy,wizard"], "unknown agent 'wizard'"),
        (["selfplay", "--games", "1", "--players", "7"], "players must be 2 to 6"),
        (["selfplay", "--agents", ","], "agent list ',': an empty agent name"),
        (["selfplay", "--agents", "c=1,greedy"], "option 'c=1' follows no agent"),
        (["arena", "--deals", "1", "greedy,mcts:iters=5,iters=6"], "mcts option 'iters' is given twice"),
        (["bench", "--games", "-5"], "out of range"),
        (["arena", "--variant", "start", "greedy", "greedy"], "--variant 'start': expected KEY=VALUE"),
        (["arena", "--variant", "start=city", "--variant", "start=tile", "greedy"], "start is given twice"),
        (["arena", "--deals", "1", "--variant", "start=moon", "greedy", "greedy"], "no value 'moon'"),
    ],
)
def test_bad_options_print_an_error(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(argv) == 2
    assert message in capsys.readouterr().err


def test_module_runs_as_a_program() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "carcassonne", "selfplay", "--games", "1"],
        capture_output=True,
        text=True,
        check=True,
        timeout=120,
    )
    assert done.stdout.startswith("game 0 (seed 0): greedy ")


def test_serve_listens_on_localhost_8000_by_default() -> None:
    from carcassonne.__main__ import _parser

    args = _parser().parse_args(["serve"])
    assert (args.host, args.port, args.data) == ("127.0.0.1", 8000, "carcassonne-data")
    args = _parser().parse_args(["serve", "--host", "0.0.0.0", "--port", "9000", "--data", "games"])
    assert (args.host, args.port, args.data) == ("0.0.0.0", 9000, "games")
