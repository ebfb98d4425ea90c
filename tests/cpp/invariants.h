// Invariants of the engine that hold at every node of every game, checked from outside the
// state (the random-game tests and the fuzzers in tests/fuzz use them). Each throws
// std::logic_error naming what broke; State::check_consistency (the aggregates) is the first.
#pragma once

#include <vector>

#include "engine/game.h"

namespace carc::invariants {

// Everything at one node: the state's own consistency; the legal actions (never none before
// the end, sorted, no two alike, their text parses back and no two print alike); no two of them
// with the same effect (check_distinct_successors); at a placement, the legal placements equal
// a direct scan of the board (B-3, RV-1, SH-2).
void check_step(const State& s);

// No two legal actions have the same effect: their successor states are pairwise different
// positions (a duplicate inflates the search's branching and the action space), apart from
// documented coincidences (see invariants.cpp).
void check_distinct_successors(const State& s, const std::vector<Action>& legal);

// At a turn start: the state set up from s.to_position() offers the same actions and, given the
// same draws and choices (random, from rng), plays the same rest of the game with the same
// scores by cause (for at most max_moves actions if max_moves >= 0).
void check_position_round_trip(const State& s, Rng& rng, int max_moves = -1);

// At the end of a game: every tile placed or discarded, every point with its cause (B-11), every
// meeple on the board, in the City or in supply.
void check_game_end(const State& s);

}  // namespace carc::invariants
