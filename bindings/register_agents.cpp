// Agents between Python and C++: the built-in agents one move at a time (BuiltinAgent, the
// engine of carcassonne.Agent), Python agents inside the C++ arena (python_agent_factories) and
// the result of a game played from Python (game_result).
//
// A Python agent runs on whichever thread the arena plays its game on: it takes the GIL for its
// move and gives it back afterwards, so C++ agents of the same game think without it. The arena
// plays a run with Python agents one game at a time (search/arena.h), so an agent object never
// sees two games at once.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/game.h"
#include "register.h"
#include "search/agents.h"
#include "search/arena.h"
#include "search/mcts.h"
#include "search/playout.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

namespace {

// A Python entrant (carcassonne.agents._ArenaEntrant): reset(seed) at the start of each game,
// choose(state) -> action code at each decision. The handle is borrowed: the caller of run_arena
// keeps the entrant alive for the whole run, and no reference count changes without the GIL.
// An agent that searches (carcassonne.agents.MctsAgent) shows its search to the arena: after
// each move, its `last_result` attribute (a SearchResult, None for a move without search).
class PythonAgent final : public SearchingAgent {
 public:
  PythonAgent(py::handle entrant, uint64_t seed) : entrant_(entrant) {
    py::gil_scoped_acquire gil;
    name_ = py::str(entrant_.attr("name")).cast<std::string>();
    entrant_.attr("reset")(seed);
  }
  // A Python exception (the agent's own, or IllegalActionError for a bad move) propagates as
  // py::error_already_set and is raised again in the caller once the run has stopped.
  Action choose(const State& state, Rng&) override {
    py::gil_scoped_acquire gil;
    py::object code = entrant_.attr("choose")(py::cast(state, py::return_value_policy::copy));
    const py::object result = py::getattr(entrant_.attr("agent"), "last_result", py::none());
    searched_ = py::isinstance<SearchResult>(result);
    if (searched_) {
      last_ = result.cast<SearchResult>();
      total_iterations_ += last_.iterations;
    }
    return to_action(code.cast<int64_t>());
  }
  std::string name() const override { return name_; }
  const SearchResult* last_search() const override { return searched_ ? &last_ : nullptr; }
  uint64_t total_iterations() const override { return total_iterations_; }

 private:
  py::handle entrant_;
  std::string name_;
  bool searched_ = false;
  SearchResult last_;
  uint64_t total_iterations_ = 0;
};

// A built-in agent (make_agent) kept between moves, so that an MCTS agent reuses its tree.
struct BuiltinAgent {
  BuiltinAgent(const std::string& spec, uint64_t seed) : spec(spec), agent(make_agent(spec)), rng(seed) {}
  std::string spec;
  std::unique_ptr<Agent> agent;
  Rng rng;
  std::atomic<bool> busy{false};
};

// One call at a time on a BuiltinAgent (Python threads may share it while the GIL is released).
class Busy {
 public:
  explicit Busy(BuiltinAgent& a) : a_(a) {
    if (a_.busy.exchange(true))
      throw std::runtime_error("Agent: another thread is using this agent (one call at a time)");
  }
  ~Busy() { a_.busy.store(false); }
  Busy(const Busy&) = delete;
  Busy& operator=(const Busy&) = delete;

 private:
  BuiltinAgent& a_;
};

}  // namespace

std::vector<std::function<std::unique_ptr<Agent>(uint64_t)>> python_agent_factories(const py::sequence& entrants) {
  std::vector<std::function<std::unique_ptr<Agent>(uint64_t)>> out;
  bool any = false;
  for (py::handle entrant : entrants) {
    if (entrant.is_none()) {
      out.emplace_back();
      continue;
    }
    any = true;
    out.emplace_back([entrant](uint64_t seed) { return std::make_unique<PythonAgent>(entrant, seed); });
  }
  if (!any) out.clear();
  return out;
}

void register_agents(py::module_& m) {
  py::class_<BuiltinAgent>(m, "BuiltinAgent",
                           "A built-in agent from its spec (\"greedy\", \"mcts:time=0.1\", ...), kept between\n"
                           "moves (an MCTS agent reuses its tree), with its own seeded PRNG.")
      .def(py::init<const std::string&, uint64_t>(), "spec"_a, "seed"_a = 0, "Raises SearchError for a bad spec.")
      .def_readonly("spec", &BuiltinAgent::spec)
      .def(
          "choose",
          [](BuiltinAgent& self, const State& state) {
            if (state.is_chance() || state.is_terminal())
              throw SearchError("Agent: the node is not a decision (a draw or the end of the game)");
            Busy busy(self);
            State copy = state;  // with the GIL held: nothing Python-owned is read after the release
            // One move, released directly: a thread per call (run_interruptible) would cost more
            // than a greedy move, and a choice cannot be stopped early anyway (give a time budget).
            py::gil_scoped_release release;
            return self.agent->choose(copy, self.rng).code;
          },
          "state"_a,
          "The action code the agent chooses at a decision node, with the GIL released (SearchError\n"
          "at a draw or the end).")
      .def(
          "reset",
          [](BuiltinAgent& self, uint64_t seed) {
            Busy busy(self);
            self.agent = make_agent(self.spec);
            self.rng = Rng(seed);
          },
          "seed"_a, "A fresh agent (an MCTS agent forgets its tree) with its PRNG seeded anew.");

  m.def(
      "game_result",
      [](const State& state, int decisions) {
        if (!state.is_terminal()) throw py::value_error("game_result: the game is not over");
        GameResult r;
        r.decisions = decisions;
        r.tiles_placed = state.board().num_tiles();
        for (int p = 0; p < state.num_players(); ++p) {
          r.scores.push_back(state.score(p));
          std::vector<int>& causes = r.breakdown.emplace_back();
          for (int c = 0; c < kNumCauses; ++c) causes.push_back(state.score(p, Cause(c)));
        }
        return r;
      },
      "state"_a, "decisions"_a, "The GameResult of a finished game (play_game's, for games played from Python).");
}

}  // namespace carc::py_bindings
