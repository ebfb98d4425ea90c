"""The names the play server answers to: a request's Host header must name one of them.

A page of another site can reach a server on 127.0.0.1 by DNS rebinding: its own name, once the
page has loaded, made to resolve to 127.0.0.1. The browser then sends that name as Host (and as
Origin, so the Origin check alone lets it through); refusing names the server was not told of
stops it. Such a page always sends a name, never an IP address. Standard library only: the
command line checks `--allowed-host` with it before the server's packages are imported.
"""

from __future__ import annotations

import ipaddress
import re
from collections.abc import Iterable

LOCAL_HOSTS = ("127.0.0.1", "localhost", "::1")
EVERY_INTERFACE = ("0.0.0.0", "::", "")  # listening addresses that mean every interface
# A Host header: a name or an IPv4 address, or an IPv6 address in brackets; then maybe a port.
HOST_HEADER = re.compile(r"(?P<name>[a-z0-9_.-]+|\[(?P<ipv6>[0-9a-f:.]+)\])(?::[0-9]{1,5})?")


def host_name(host: str) -> str | None:
    """The name in a Host header ("LocalHost:8000" -> "localhost", "[::1]:8000" -> "::1"),
    lower-cased; None if the header is malformed."""
    match = HOST_HEADER.fullmatch(host.lower())
    if match is None:
        return None
    return match["ipv6"] or match["name"]


def is_ip_address(name: str) -> bool:
    try:
        ipaddress.ip_address(name)
    except ValueError:
        return False
    return True


def allowed_name(text: str) -> str:
    """A name or address given to allow, as a Host header would carry it but without a port (an
    IPv6 address with or without brackets); a ValueError that says why if it is not one."""
    name = host_name(text) if not is_ip_address(text) else text.lower()
    if name is None or text.lower() not in (name, f"[{name}]"):
        raise ValueError(f"{text!r} is not a host name or IP address (give it without a port)")
    return name


class AllowedHosts:
    """The names a request's Host header may give (any port): the local ones, the address the
    server listens on and `names`; listening on every interface, any IP address too (friends
    open the page by the machine's address)."""

    def __init__(self, listen: str, names: Iterable[str] = ()) -> None:
        self.names = {name.strip("[]").lower() for name in (*LOCAL_HOSTS, listen, *names)}
        self.any_address = listen in EVERY_INTERFACE

    def refusal(self, host: str | None) -> str | None:
        """Why a request with this Host header is refused; None if it is allowed."""
        if host is None:
            return "a request without a Host header is refused"
        name = host_name(host)
        if name is None:
            return f"the Host header {host!r} is malformed"
        if name in self.names or (self.any_address and is_ip_address(name)):
            return None
        return (
            f"this server does not answer to the name {name!r} (a page of another site may use it):"
            f" start it with --allowed-host {name} to open the page by that name"
        )
