// The pieces of the _core module, one function per area, called from module.cpp (the layout of
// boost-histogram's register_*.cpp).
#pragma once

#include <pybind11/pybind11.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include "engine/action.h"
#include "search/agents.h"
#include "search/evaluator.h"

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
// Registers BuiltinAgent (a built-in agent kept between moves) and game_result.
void register_agents(pybind11::module_& m);
// Registers VectorEnv (many games stepped in one call, register_vector.cpp).
void register_vector(pybind11::module_& m);
// Registers LeafBatch, what a Python evaluator of the search gets (register_evaluator.cpp).
void register_evaluator(pybind11::module_& m);
// Registers Network, default_network_path and set_default_network_path (search/network.h).
void register_network(pybind11::module_& m);

// Returns the action with this code; throws IllegalActionError if the code is not a 32-bit
// unsigned value (Python ints are unbounded, action codes are not).
Action to_action(int64_t code);

// ArenaConfig::custom_agents for entrants given from Python: per entrant None (a spec agent) or
// an object with name, reset(seed) and choose(state) -> code (carcassonne.agents). Empty if all
// are None. The objects are borrowed: keep the sequence alive while the arena runs.
std::vector<std::function<std::unique_ptr<Agent>(uint64_t)>> python_agent_factories(const pybind11::sequence& entrants);

// The search's evaluator for a Python callable fn(LeafBatch) -> values or (values, priors),
// batch_size leaves a call from each of `searches` searches (search/batched.h, search_many);
// TypeError for what is not callable, SearchError for a bad batch size or window. `config`:
// terminal rewards and the fallback priors.
std::shared_ptr<const Evaluator> python_evaluator(const pybind11::object& fn, int batch_size, int window,
                                                  const RolloutConfig& config, int searches = 1);

}  // namespace carc::py_bindings
