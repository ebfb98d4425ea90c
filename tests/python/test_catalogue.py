"""The engine's tile catalogue (engine/data/tiles.txt, the source of truth for tiles) as compiled in.

tools/make_catalogue.py, which first wrote that file, is tested in test_make_catalogue.py.
"""

import carcassonne


def test_every_set_is_in_the_compiled_catalogue() -> None:
    counts: dict[str, int] = {}
    for name, tile_set, count in carcassonne.tile_kinds():
        assert name.startswith(tile_set + ".")
        counts[tile_set] = counts.get(tile_set, 0) + count
    assert counts == {
        "base": 72,
        "abbey-mayor": 18,
        "river2": 12,
        "shrines": 5,
        "king-robber": 5,
        "count-city": 12,
        "anniv20": 15,
    }
