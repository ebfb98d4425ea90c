"""How often a legal action has no index, per rule mix and action layout (the window layout at
each window side, then the frontier layout): uniformly random games, every decision node
counted (docs/observation.md quotes this table).

    python tools/window_rate.py --games 200
"""

from __future__ import annotations

import argparse
import random
import sys

from carcassonne import _core, make_config, rl

EVERYTHING = ["abbey-mayor", "anniv20", "king-robber", "shrines"]
MIXES = {
    "base, 2 players": (2, []),
    "abbey-mayor, 4 players": (4, ["abbey-mayor"]),
    "anniv20, 2 players": (2, ["anniv20"]),
    "river2, 2 players": (2, ["river2"]),
    "everything + city, 2 players": (2, [*EVERYTHING, "city"]),
    "everything + river2, 6 players": (6, [*EVERYTHING, "river2"]),
}


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--games", type=int, default=200)
    parser.add_argument("--windows", default="16,20,24,28,32")
    args = parser.parse_args()
    windows = [int(w) for w in args.windows.split(",")]
    spaces = {f"window {w}": rl.action_space(w, "window") for w in windows}
    spaces["frontier"] = rl.action_space()
    print(
        "| mix | nodes | widest board (cells) | " + " | ".join(f"{n}: nodes missing" for n in spaces) + " |"
    )
    print("| --- | --- | --- | " + " | ".join("---" for _ in spaces) + " |")
    for name, (players, expansions) in MIXES.items():
        nodes, widest = 0, 0
        missing = dict.fromkeys(spaces, 0)
        for g in range(args.games):
            state = _core.State(make_config(players, expansions, None, g))
            rng = random.Random(g)
            while not state.is_terminal():
                if state.is_chance():
                    state.apply(state.sample_chance())
                    continue
                nodes += 1
                for layout, space in spaces.items():
                    missing[layout] += space.legal_indices(state)[1] > 0
                state.apply(rng.choice(state.legal_actions()))
            xs = [t[1] for t in state.placed_tiles()]
            ys = [t[2] for t in state.placed_tiles()]
            widest = max(widest, max(xs) - min(xs) + 1, max(ys) - min(ys) + 1)
            print(f"\r{name}: game {g + 1}/{args.games}", end="", file=sys.stderr, flush=True)
        print(file=sys.stderr)
        cells = " | ".join(f"{m} ({m / nodes:.2%})" for m in missing.values())
        print(f"| {name} | {nodes} | {widest} | {cells} |", flush=True)


if __name__ == "__main__":
    main()
