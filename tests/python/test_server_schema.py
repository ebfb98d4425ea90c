"""Property-based tests of the play server from its own OpenAPI schema (Schemathesis), in process
through the ASGI app: requests generated from the schema, valid and invalid, must never get a
5xx, and every response must be one the schema documents, in the shape it documents.

SCHEMA_EXAMPLES (an environment variable) sets the examples per operation and mode for a longer
run; the default keeps this test to a few seconds."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")
pytest.importorskip("schemathesis")

import schemathesis
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from hypothesis.errors import Unsatisfiable
from schemathesis import GenerationMode
from schemathesis.checks import (
    content_type_conformance,
    not_a_server_error,
    response_headers_conformance,
    response_schema_conformance,
    status_code_conformance,
)

from carcassonne import Game
from carcassonne import game as game_module
from carcassonne.play import session as session_module
from carcassonne.play.server import create_app

CHECKS = [
    not_a_server_error,
    status_code_conformance,
    content_type_conformance,
    response_headers_conformance,
    response_schema_conformance,
]
HUMAN, EASY = {"kind": "human"}, {"kind": "bot", "level": "easy"}
EXAMPLES = int(os.environ.get("SCHEMA_EXAMPLES", "20"))


@pytest.fixture
def app(tmp_path: Path) -> Iterator[Any]:
    """The app, its searches cut short: generated requests ask for 10 s hints and 60 s bots,
    which would only make the test slow, and the API's answers do not depend on it."""
    analyse, mcts_config = game_module.Game.analyse, session_module.mcts_config

    def short_analyse(self: game_module.Game, *args: Any, **kwargs: Any) -> Any:
        return analyse(self, iterations=50, threads=1)

    def short_mcts_config(**kwargs: Any) -> Any:
        return mcts_config(iterations=50)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(game_module.Game, "analyse", short_analyse)
        patch.setattr(session_module, "mcts_config", short_mcts_config)
        app = create_app(tmp_path)
        yield app
        for game_id, _ in app.state.games.store.list():
            app.state.games.remove(game_id)  # stops the bots of the games made by the test


def test_every_operation_answers_as_its_schema_says_to_valid_and_invalid_requests(app: Any) -> None:
    schema = schemathesis.openapi.from_asgi("/openapi.json", app)
    games = app.state.games
    calls = 0
    failures: list[str] = []
    for result in schema.get_all_operations():
        operation = result.ok()
        for mode in (GenerationMode.POSITIVE, GenerationMode.NEGATIVE):

            @settings(
                max_examples=EXAMPLES,
                derandomize=True,  # the same requests every run
                deadline=None,
                database=None,
                suppress_health_check=list(HealthCheck),
            )
            @given(case=operation.as_strategy(generation_mode=mode), real_game=st.booleans())
            def check(case: Any, real_game: bool) -> None:
                nonlocal calls
                calls += 1
                # Half the requests to a game's endpoints go to a game that exists (a random id
                # is only a 404): a new one each time, as a DELETE may have removed the last.
                if real_game and "game_id" in (case.path_parameters or {}):
                    game = Game(players=2, seed=calls)
                    case.path_parameters["game_id"] = games.add([HUMAN, EASY], game.to_record()).id
                case.call_and_validate(checks=CHECKS)

            try:
                check()
            except Unsatisfiable:
                # No invalid request exists for an operation without parameters or a body.
                assert mode == GenerationMode.NEGATIVE and not operation.body
            except (KeyboardInterrupt, SystemExit):
                raise
            except (
                BaseException
            ) as e:  # every operation's failures (a BaseExceptionGroup), not the first only
                failures.append(f"{operation.label} ({mode.value} requests): {e}")
    print(f"{calls} requests, {len(failures)} operations failed")
    assert not failures, "\n\n".join(failures)
    assert calls >= 12 * EXAMPLES  # every operation was called
