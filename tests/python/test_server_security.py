"""The play server as `carcassonne serve` starts it, against pages and clients that pretend: a page
of another name reaching it by DNS rebinding (refused by its Host header), a client forging
X-Forwarded-For to escape its limits (ignored unless the server is told to trust a proxy).
The servers run as `python -m carcassonne serve` in a subprocess. Seconds in all."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
httpx = pytest.importorskip("httpx")
pytest.importorskip("uvicorn")

from carcassonne.__main__ import _parser  # noqa: E402
from carcassonne.play.hosts import AllowedHosts  # noqa: E402

HUMAN = {"kind": "human"}
NEW_GAME = {"seats": [HUMAN, HUMAN], "seed": 3}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@contextlib.contextmanager
def serve(data: Path, *options: str) -> Iterator[tuple[httpx.Client, int]]:
    """`python -m carcassonne serve OPTIONS` on 127.0.0.1, a free port: a client of it, and the port."""
    port = free_port()
    command = [sys.executable, "-m", "carcassonne", "serve", "--port", str(port), "--data", str(data)]
    process = subprocess.Popen([*command, *options], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    try:
        with httpx.Client(base_url=f"http://127.0.0.1:{port}", timeout=10) as client:
            deadline = time.monotonic() + 60  # a hang guard: a loaded machine starts it slowly
            while True:
                assert process.poll() is None, process.stderr.read().decode()  # type: ignore[union-attr]
                try:
                    client.get("/api/options")
                    break
                except httpx.TransportError:
                    assert time.monotonic() < deadline, "the server did not start"
                    time.sleep(0.1)
            yield client, port
    finally:
        process.kill()
        process.communicate()  # waits, and closes the pipe


def games(client: httpx.Client) -> list[str]:
    return [game["id"] for game in client.get("/api/games").json()]


def test_a_dns_rebinding_page_is_refused_by_its_host_header_and_changes_nothing(tmp_path: Path) -> None:
    """The page of evil.example, its name now resolving to 127.0.0.1, sends its own name as Host
    and as Origin: the Origin check alone lets it through."""
    with serve(tmp_path) as (client, port):
        game = client.post("/api/games", json=NEW_GAME).json()["id"]
        before = client.get(f"/api/games/{game}").json()
        for host in ("evil.example", f"evil.example:{port}"):
            rebound = {"Host": host, "Origin": f"http://{host}"}
            refused = client.post("/api/games", json=NEW_GAME, headers=rebound)
            assert refused.status_code == 400, refused.text
            assert "--allowed-host" in refused.json()["detail"]
            assert client.delete(f"/api/games/{game}", headers=rebound).status_code == 400
            # Reading is refused too: the page would read the games and their states.
            assert client.get(f"/api/games/{game}", headers=rebound).status_code == 400
            assert client.get("/", headers=rebound).status_code == 400
        assert games(client) == [game]
        assert client.get(f"/api/games/{game}").json()["version"] == before["version"]


def test_the_local_names_are_allowed_with_or_without_a_port(tmp_path: Path) -> None:
    with serve(tmp_path) as (client, port):
        for name in ("127.0.0.1", "localhost", "LocalHost", "[::1]"):
            for host in (name, f"{name}:{port}"):
                page = {"Host": host, "Origin": f"http://{host}"}
                assert client.post("/api/games", json=NEW_GAME, headers=page).status_code == 201, host
        malformed = ("127.0.0.1:", "127.0.0.1:80:80", "[::1", "::1", "evil.example@127.0.0.1")
        for host in (*malformed, "127.0.0.1.evil.example", "localhost.evil.example"):
            assert client.get("/api/options", headers={"Host": host}).status_code == 400, host
        assert len(games(client)) == 8


def test_names_given_with_allowed_host_are_allowed_and_no_others(tmp_path: Path) -> None:
    with serve(tmp_path, "--allowed-host", "play.example", "--allowed-host", "Box.Local") as (client, _):
        for host in ("play.example", "play.example:8443", "box.local"):
            page = {"Host": host, "Origin": f"https://{host}"}
            assert client.post("/api/games", json=NEW_GAME, headers=page).status_code == 201, host
        assert client.get("/api/options", headers={"Host": "evil.example"}).status_code == 400
        assert client.get("/api/options", headers={"Host": "localhost:1"}).status_code == 200


def test_on_every_address_any_ip_address_is_allowed_as_host_but_no_other_name(tmp_path: Path) -> None:
    """With --host 0.0.0.0 friends open the page by the machine's address; a rebinding page
    always sends a name, never an address."""
    with serve(tmp_path, "--host", "0.0.0.0") as (client, port):
        for host in (f"192.168.1.5:{port}", "10.0.0.7", "[fe80::1]:8000"):
            page = {"Host": host, "Origin": f"http://{host}"}
            assert client.post("/api/games", json=NEW_GAME, headers=page).status_code == 201, host
        assert client.get("/api/options", headers={"Host": "evil.example"}).status_code == 400


def test_a_forged_x_forwarded_for_does_not_escape_the_per_client_limits(tmp_path: Path) -> None:
    """Each request claims another address: without --forwarded-allow-ips the server counts the
    connection's address (127.0.0.1), so the second event stream is over the limit of 1."""
    with serve(tmp_path, "--client-streams", "1") as (client, _):
        game = client.post("/api/games", json=NEW_GAME).json()["id"]
        path = f"/api/games/{game}/events"
        with client.stream("GET", path, headers={"X-Forwarded-For": "10.0.0.1"}) as first:
            assert first.status_code == 200
            with client.stream("GET", path, headers={"X-Forwarded-For": "10.0.0.2"}) as second:
                assert second.status_code == 429


def test_behind_a_trusted_proxy_each_forwarded_address_has_its_own_limits(tmp_path: Path) -> None:
    options = ("--client-streams", "1", "--forwarded-allow-ips", "127.0.0.1")
    with serve(tmp_path, *options) as (client, _):
        game = client.post("/api/games", json=NEW_GAME).json()["id"]
        path = f"/api/games/{game}/events"
        one, two = {"X-Forwarded-For": "10.0.0.1"}, {"X-Forwarded-For": "10.0.0.2"}
        with client.stream("GET", path, headers=one) as first:
            assert first.status_code == 200
            with client.stream("GET", path, headers=two) as second:
                assert second.status_code == 200
            with client.stream("GET", path, headers=one) as third:
                assert third.status_code == 429


def test_the_servers_help_lists_the_host_and_proxy_options(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", "--help"])
    text = capsys.readouterr().out
    assert "--allowed-host" in text and "--forwarded-allow-ips" in text


@pytest.mark.parametrize(
    ("option", "value"),
    [("--allowed-host", "box.local:8443"), ("--allowed-host", "a/b"), ("--forwarded-allow-ips", "10.0.0.x")],
)
def test_a_malformed_host_or_proxy_address_is_an_error_at_start(
    option: str, value: str, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["serve", option, value])
    assert value in capsys.readouterr().err


def test_the_address_given_with_host_is_allowed() -> None:
    """(A server cannot listen on another machine's address here: the allowlist alone.)"""
    hosts = AllowedHosts("192.168.1.5", ["box.local"])
    for host in ("192.168.1.5", "192.168.1.5:8000", "box.local:80", "localhost", "[::1]:8000"):
        assert hosts.refusal(host) is None, host
    for host in ("10.0.0.7", "evil.example", "", None):
        assert hosts.refusal(host) is not None, host
    assert AllowedHosts("::").refusal("[fe80::1]:8000") is None  # every interface, IPv6 too
