"""SVG of tiles and boards, shared by the play page (which receives the tile drawings from the
server) and notebooks (`Game._repr_svg_`)."""

from .board import board_svg
from .tiles import PLAYER_COLOURS, figure_svg, tile_catalogue

__all__ = ["PLAYER_COLOURS", "board_svg", "figure_svg", "tile_catalogue"]
