// Whole games from Python: batches of random games and games between agents, run with the GIL
// released so other Python threads keep going while C++ plays.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/types.h"
#include "interrupt.h"
#include "register.h"
#include "search/agents.h"
#include "search/playout.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

void register_play(py::module_& m) {
  py::class_<GameResult>(m, "GameResult", "The outcome of one finished game.")
      .def_readonly("scores", &GameResult::scores)
      .def_property_readonly(
          "breakdown",
          [](const GameResult& r) {
            py::list out;
            for (const std::vector<int>& causes : r.breakdown) {
              py::dict d;
              for (int c = 0; c < kNumCauses && c < int(causes.size()); ++c)
                d[cause_name(Cause(c))] = causes[size_t(c)];
              out.append(d);
            }
            return out;
          },
          "Per player, {cause: points} (B-11).")
      .def_readonly("decisions", &GameResult::decisions)
      .def_readonly("tiles_placed", &GameResult::tiles_placed)
      .def("__repr__", [](const GameResult& r) {
        std::string s = "GameResult(scores=[";
        for (size_t i = 0; i < r.scores.size(); ++i) s += (i ? ", " : "") + std::to_string(r.scores[i]);
        return s + "], decisions=" + std::to_string(r.decisions) + ", tiles_placed=" + std::to_string(r.tiles_placed) +
               ")";
      });

  m.def(
      "play_random_games",
      [](const Config& config, int games, int threads) {
        if (games < 0) throw py::value_error("games must be >= 0");
        if (threads < 0) throw py::value_error("threads must be >= 0 (0: all cores)");
        // Copy the config while we hold the GIL: another Python thread may change the Python
        // Config object while we run. After the copy no Python object is touched until the
        // work ends (results are converted afterwards), so releasing the GIL is safe.
        Config copy = config;
        return run_interruptible(
            [&](const std::atomic<bool>* cancel) { return play_random_games(copy, games, threads, cancel); });
      },
      "config"_a, "games"_a, "threads"_a = 0,
      "Plays `games` random games (game i with seed config.seed + i) over `threads` threads (0: all\n"
      "cores), with the GIL released. The results do not depend on the thread count. Ctrl-C stops\n"
      "it between games (KeyboardInterrupt; the games played are dropped).");
  m.def("split_agent_list", &split_agent_list, "agents"_a,
        "Splits \"greedy,mcts:iters=50,c=1\" into agent specs: an item key=value continues the options\n"
        "of the agent before it (search/agents.h). Raises SearchError for empty items and options\n"
        "that follow no agent options.");
  m.def(
      "play_game",
      [](const Config& config, const std::vector<std::string>& agents, uint64_t agent_seed) {
        if (agents.empty()) throw SearchError("play_game needs at least one agent");
        // As above: the arguments are C++ copies (the agent names were converted by pybind11), so
        // nothing Python-owned is read while the GIL is released.
        Config copy = config;
        std::vector<std::string> names = agents;
        return run_interruptible(
            [&](const std::atomic<bool>* cancel) { return play_game(copy, names, agent_seed, cancel); });
      },
      "config"_a, "agents"_a, "agent_seed"_a = 0,
      "Plays one game between named agents (seat i plays agents[i % len(agents)]), with the GIL\n"
      "released. Bad agent specs raise SearchError. Ctrl-C stops it at the next move.");
}

}  // namespace carc::py_bindings
