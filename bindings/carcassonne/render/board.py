"""A whole board as one SVG document: every placed tile, turned, with the figures on it."""

from __future__ import annotations

from typing import Any, Protocol

from .tiles import figure_svg, tile_catalogue

TILE = 100


class Board(Protocol):
    """What a board drawing reads: a carcassonne.Game has both (this module never imports game.py,
    which imports it for Jupyter's SVG)."""

    @property
    def tiles(self) -> list[dict[str, Any]]: ...

    @property
    def figures(self) -> list[dict[str, Any]]: ...


def rotate_point(x: float, y: float, rotation: int) -> tuple[float, float]:
    """A point of a tile turned `rotation` quarter turns clockwise about its centre."""
    for _ in range(rotation % 4):
        x, y = TILE - y, x
    return x, y


def board_svg(game: Board, scale: float = 0.5) -> str:
    """The board of `game` (a Game, or anything with its `tiles` and `figures`) as an SVG
    document, `scale` pixels per tile unit (100 per tile)."""
    catalogue = tile_catalogue()
    tiles = game.tiles
    xs = [t["x"] for t in tiles] or [0]
    ys = [t["y"] for t in tiles] or [0]
    left, top = min(xs) * TILE, min(ys) * TILE
    width, height = (max(xs) - min(xs) + 1) * TILE, (max(ys) - min(ys) + 1) * TILE
    where = {(t["x"], t["y"]): t for t in tiles}
    parts = [
        f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{left} {top} {width} {height}" '
        f'width="{width * scale:g}" height="{height * scale:g}">'
    ]
    for t in tiles:
        parts.append(
            f'<g transform="translate({t["x"] * TILE},{t["y"] * TILE}) rotate({90 * t["rotation"]} 50 50)">'
            f'{catalogue[t["tile"]]["svg"]}<rect width="100" height="100" fill="none" stroke="#0003"/></g>'
        )
    for f in game.figures:
        tile = where[(f["x"], f["y"])]
        anchor = catalogue[tile["tile"]]["anchors"][f["feature"]] or [50, 50]
        x, y = rotate_point(anchor[0], anchor[1], tile["rotation"])
        parts.append(figure_svg(f["kind"], f["player"], f["x"] * TILE + x, f["y"] * TILE + y))
    parts.append("</svg>")
    return "".join(parts)
