// The pieces of the _core module, one function per area, called from module.cpp (the layout of
// boost-histogram's register_*.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>

#include "engine/action.h"

namespace carc::py_bindings {

// Registers Config, Position (with Position.Tile and Position.Figure), Phase, PHASES,
// ACTION_KINDS and State.
void register_state(pybind11::module_& m);
// Registers GameResult, play_random_games, split_agent_list and play_game.
void register_play(pybind11::module_& m);
// Registers MctsConfig (and its enums), analyse, Mcts, SearchResult, ArenaConfig, run_arena and
// ArenaResult, and choose_action (one agent's move).
void register_search(pybind11::module_& m);
// Registers ObservationEncoder, ActionSpace, observation_window, OBSERVATION_VERSION,
// DEFAULT_WINDOW, and State's to_bytes / from_bytes / pickling (after register_state).
void register_rl(pybind11::module_& m);
// Registers Network, default_network_path and set_default_network_path (search/network.h).
void register_network(pybind11::module_& m);

// Returns the action with this code; throws IllegalActionError if the code is not a 32-bit
// unsigned value (Python ints are unbounded, action codes are not).
Action to_action(int64_t code);

}  // namespace carc::py_bindings
