// Search and the arena for Python: MctsConfig, analyse, Mcts and run_arena (search/mcts.h,
// search/arena.h). Every search and arena run releases the GIL; each does so only after copying
// its arguments into C++ values, so no Python-owned object is read while the GIL is released.
// Results are converted to Python objects after the GIL is taken back.
#include <pybind11/native_enum.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <numeric>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/game.h"
#include "engine/observation.h"
#include "interrupt.h"
#include "register.h"
#include "search/agents.h"
#include "search/arena.h"
#include "search/evaluator.h"
#include "search/mcts.h"
#include "search/sprt.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

namespace {

// Mcts is not thread-safe itself (one search at a time). Python threads could call search()
// or clear() on the same object at once while the GIL is released, so the binding refuses a
// second call instead of racing.
struct PyMcts {
  explicit PyMcts(const MctsConfig& config) : mcts(config) {}
  Mcts mcts;
  std::atomic<bool> busy{false};
  std::atomic<bool> stop{false};  // set by stop() from any thread; cleared when a search ends
};

class BusyGuard {
 public:
  explicit BusyGuard(PyMcts& m) : m_(m) {
    if (m_.busy.exchange(true))
      throw std::runtime_error("Mcts: another thread is using this search (one call at a time)");
  }
  ~BusyGuard() { m_.busy.store(false); }
  BusyGuard(const BusyGuard&) = delete;
  BusyGuard& operator=(const BusyGuard&) = delete;

 private:
  PyMcts& m_;
};

std::string mcts_config_repr(const MctsConfig& c) {
  return "MctsConfig(seconds=" + std::to_string(c.seconds) + ", iterations=" + std::to_string(c.iterations) +
         ", threads=" + std::to_string(c.threads) + ", exploration=" + std::to_string(c.exploration) +
         ", memory_mb=" + std::to_string(c.memory_mb) + ", seed=" + std::to_string(c.seed) + ")";
}

}  // namespace

void register_search(py::module_& m) {
  // ---- Enums (native Python enums, as Phase) ---------------------------------------------------
  py::native_enum<SelectionRule>(m, "SelectionRule", "enum.Enum", "Tree policy at decision nodes.")
      .value("UCT", SelectionRule::Uct)
      .value("PUCT", SelectionRule::Puct)
      .finalize();
  py::native_enum<ChanceMode>(m, "ChanceMode", "enum.Enum", "How chance nodes pick an outcome.")
      .value("SAMPLE", ChanceMode::Sample)
      .value("STRATIFIED", ChanceMode::Stratified)
      .finalize();
  py::native_enum<Parallelism>(m, "Parallelism", "enum.Enum", "Shared tree or a tree per thread.")
      .value("TREE", Parallelism::Tree)
      .value("ROOT", Parallelism::Root)
      .finalize();
  py::native_enum<RolloutPolicy>(m, "RolloutPolicy", "enum.Enum", "The move policy of rollouts.")
      .value("RANDOM", RolloutPolicy::Random)
      .value("GREEDY", RolloutPolicy::Greedy)
      .value("NONE", RolloutPolicy::None)
      .finalize();
  py::native_enum<Heuristic>(m, "Heuristic", "enum.Enum", "How a position is valued at a rollout cutoff.")
      .value("GREEDY", Heuristic::Greedy)
      .value("FINAL", Heuristic::Final)
      .value("EXPECTED", Heuristic::Expected)
      .value("NET", Heuristic::Net)
      .value("VALUE", Heuristic::Value)
      .finalize();
  py::native_enum<RewardKind>(m, "RewardKind", "enum.Enum", "What the search maximises.")
      .value("WIN", RewardKind::Win)
      .value("MARGIN", RewardKind::Margin)
      .value("MIXED", RewardKind::Mixed)
      .finalize();
  py::native_enum<PriorKind>(m, "PriorKind", "enum.Enum", "PUCT priors of the rollout evaluator.")
      .value("UNIFORM", PriorKind::Uniform)
      .value("GREEDY", PriorKind::Greedy)
      .value("NET", PriorKind::Net)
      .value("VALUE", PriorKind::Value)
      .finalize();

  // ---- Configs ---------------------------------------------------------------------------------
  py::class_<RolloutConfig>(m, "RolloutConfig", "Leaf evaluation by rollouts (search/evaluator.h).")
      .def(py::init<>())
      .def_readwrite("policy", &RolloutConfig::policy)
      .def_readwrite("greedy_eps", &RolloutConfig::greedy_eps)
      .def_readwrite("cutoff_turns", &RolloutConfig::cutoff_turns)
      .def_readwrite("finish_tiles", &RolloutConfig::finish_tiles)
      .def_readwrite("heuristic", &RolloutConfig::heuristic)
      .def_readwrite("reward", &RolloutConfig::reward)
      .def_readwrite("margin_scale", &RolloutConfig::margin_scale)
      .def_readwrite("margin_weight", &RolloutConfig::margin_weight)
      .def_readwrite("supply_value", &RolloutConfig::supply_value)
      .def_readwrite("endgame_tiles", &RolloutConfig::endgame_tiles)
      .def_readwrite("cutoff_temperature", &RolloutConfig::cutoff_temperature)
      .def_readwrite("prior", &RolloutConfig::prior)
      .def_readwrite("prior_temperature", &RolloutConfig::prior_temperature)
      .def_readwrite("network", &RolloutConfig::network)
      .def_readwrite("network_mix", &RolloutConfig::network_mix)
      .def_readwrite("value_net", &RolloutConfig::value_net);

  py::class_<MctsConfig>(m, "MctsConfig",
                         "MCTS settings (search/mcts.h). Checked when a search starts: bad values raise SearchError.")
      .def(py::init<>())
      .def_readwrite("seconds", &MctsConfig::seconds)
      .def_readwrite("iterations", &MctsConfig::iterations)
      .def_readwrite("threads", &MctsConfig::threads)
      .def_readwrite("parallelism", &MctsConfig::parallelism)
      .def_readwrite("virtual_loss", &MctsConfig::virtual_loss)
      .def_readwrite("selection", &MctsConfig::selection)
      .def_readwrite("exploration", &MctsConfig::exploration)
      .def_readwrite("fpu_reduction", &MctsConfig::fpu_reduction)
      .def_readwrite("chance", &MctsConfig::chance)
      .def_readwrite("expand_after", &MctsConfig::expand_after)
      .def_readwrite("rollout", &MctsConfig::rollout)
      .def_readwrite("memory_mb", &MctsConfig::memory_mb)
      .def_readwrite("reuse", &MctsConfig::reuse)
      .def_readwrite("seed", &MctsConfig::seed)
      .def(
          "validate", [](const MctsConfig& c) { validate(c); }, "Raises SearchError naming the first bad field.")
      .def("__repr__", &mcts_config_repr);

  m.def("parse_mcts_options", &parse_mcts_options, "options"_a,
        "Parses \"key=value,...\" (the options of the \"mcts:...\" agent spec) into an MctsConfig;\n"
        "unknown keys, keys given twice and bad values raise SearchError.");
  m.def(
      "mcts_options",
      [] {
        py::list out;
        for (const MctsOptionInfo& o : mcts_options())
          out.append(
              py::dict("key"_a = o.key, "help"_a = o.help, "values"_a = o.values, "default"_a = o.default_value));
        return out;
      },
      "Every option parse_mcts_options takes, in its table's order: dicts {key, help, values (the range\n"
      "or the choices), default}.");

  // ---- Results ---------------------------------------------------------------------------------
  py::class_<ActionStats>(m, "ActionStats", "One candidate action at the root, after a search.")
      .def_property_readonly(
          "action", [](const ActionStats& a) { return a.action.code; }, "The action code.")
      .def_readonly("text", &ActionStats::text)
      .def_readonly("visits", &ActionStats::visits)
      .def_readonly("value", &ActionStats::value, "Mean reward of the deciding player after this action.")
      .def_readonly("prior", &ActionStats::prior)
      .def_readonly("win", &ActionStats::win, "Estimated win share of every player after this action.")
      .def("__repr__", [](const ActionStats& a) {
        return "ActionStats('" + a.text + "', visits=" + std::to_string(a.visits) +
               ", value=" + std::to_string(a.value) + ")";
      });

  py::class_<SearchResult>(m, "SearchResult", "The root statistics of one search.")
      .def_property_readonly(
          "best", [](const SearchResult& r) { return r.best.code; }, "The most visited action's code.")
      .def_readonly("player", &SearchResult::player)
      .def_readonly("evaluator", &SearchResult::evaluator,
                    "What valued the leaves, in words: rollouts, or which value network (docs/value.md).")
      .def_readonly("iterations", &SearchResult::iterations)
      .def_readonly("seconds", &SearchResult::seconds)
      .def_readonly("nodes", &SearchResult::nodes)
      .def_readonly("reused_visits", &SearchResult::reused_visits)
      .def_readonly("evaluator_calls", &SearchResult::evaluator_calls,
                    "With a Python evaluator: the calls that valued this search's leaves (a new root's\n"
                    "priors aside).")
      .def_readonly("evaluator_leaves", &SearchResult::evaluator_leaves,
                    "The leaves those calls held (search_many: every search's leaves together);\n"
                    "evaluator_leaves / evaluator_calls is the leaves per call.")
      .def_readonly("prior_seconds", &SearchResult::prior_seconds,
                    "Time the threads spent computing the PUCT priors, summed over threads; their share\n"
                    "of the search is prior_seconds / (seconds * threads); about 0 with prior=uniform.")
      .def_readonly("win", &SearchResult::win, "Estimated win share of every player at the root.")
      .def_readonly("reward", &SearchResult::reward,
                    "Mean reward of every player at the root (what the search maximises).")
      .def_readonly("actions", &SearchResult::actions, "Every legal action, most visited first.")
      .def("__repr__", [](const SearchResult& r) {
        return "SearchResult(player=" + std::to_string(r.player) + ", iterations=" + std::to_string(r.iterations) +
               ", actions=" + std::to_string(r.actions.size()) + ")";
      });

  // ---- Searches --------------------------------------------------------------------------------
  m.def(
      "analyse",
      [](const State& state, const MctsConfig& config, uint64_t seed) {
        // Copies taken with the GIL held: another Python thread may apply actions to the State
        // or change the config while we search. After the copies nothing Python-owned is read
        // until the release ends, so releasing the GIL is safe.
        State state_copy = state;
        MctsConfig config_copy = config;
        return run_interruptible(
            [&](const std::atomic<bool>* cancel) { return analyse(state_copy, config_copy, seed, cancel); });
      },
      "state"_a, "config"_a, "seed"_a = 0,
      "A fresh search (no reuse) from a decision node, with the GIL released; raises SearchError for\n"
      "a chance or terminal node or a bad config. Ctrl-C stops it (KeyboardInterrupt).");

  py::class_<PyMcts>(m, "Mcts", "A search engine that keeps its tree between searches (tree reuse).")
      .def(py::init([](const MctsConfig& config, const py::object& evaluator, int batch_size, int window) {
             if (evaluator.is_none()) return std::make_unique<PyMcts>(config);
             MctsConfig with = config;
             with.evaluator = python_evaluator(evaluator, batch_size, window, config.rollout);
             return std::make_unique<PyMcts>(with);
           }),
           "config"_a, "evaluator"_a = py::none(), "batch_size"_a = 16, "window"_a = kDefaultWindow,
           "A search with `config`. `evaluator`: a Python callable fn(batch: LeafBatch) that values the\n"
           "leaves instead of rollouts and returns values [n, players] (relative seats: column 0 is the\n"
           "player to move; in [0, 1]) or [n] (the player to move's), or a tuple (values, priors) with\n"
           "priors the logits [n, batch.num_actions] over the action space or [n, batch.legal width];\n"
           "the search runs `batch_size` iterations per call, on one thread (config.threads must be 1),\n"
           "and observes leaves through a `window`-cell window (carcassonne.rl). SearchError for bad\n"
           "settings, TypeError for an evaluator that is not callable.")
      .def(
          "search",
          [](PyMcts& self, const State& state, uint64_t seed) {
            BusyGuard guard(self);  // one call at a time on this object (see PyMcts)
            // The state is copied with the GIL held (as in analyse); self.mcts is guarded above.
            State state_copy = state;
            auto result = run_interruptible(
                [&](const std::atomic<bool>* cancel) { return self.mcts.search(state_copy, seed, cancel); },
                &self.stop);
            self.stop.store(false);
            return result;
          },
          "state"_a, "seed"_a = 0,
          "Searches from a decision node with the GIL released, keeping the subtree of the previous\n"
          "search if the state lies in it (config.reuse). Ctrl-C stops it (KeyboardInterrupt); the\n"
          "tree stays usable.")
      .def(
          "stop", [](PyMcts& self) { self.stop.store(true); },
          "Ends the search running in another thread early (it returns what it found so far), or\n"
          "the next search to start if none is running. Safe from any thread.")
      .def(
          "clear",
          [](PyMcts& self) {
            BusyGuard guard(self);
            self.mcts.clear();
          },
          "Forgets the tree.")
      .def_property_readonly(
          "config", [](const PyMcts& self) { return self.mcts.config(); }, "A copy of the config.");

  m.def(
      "search_many",
      [](const std::vector<State>& states, const MctsConfig& config, const py::object& evaluator, int batch_size,
         int window, const std::optional<std::vector<uint64_t>>& seeds) {
        // The states and the config are copies taken with the GIL held (as in analyse).
        if (states.empty()) throw SearchError("search_many: no states to search");
        for (size_t i = 1; i < states.size(); ++i)
          if (states[i].num_players() != states[0].num_players())
            throw SearchError(
                "search_many: every state needs as many players (one call's arrays have one shape): "
                "state 0 has " +
                std::to_string(states[0].num_players()) + ", state " + std::to_string(i) + " has " +
                std::to_string(states[i].num_players()));
        std::vector<uint64_t> seed_list(states.size());
        if (seeds) seed_list = *seeds;
        else std::iota(seed_list.begin(), seed_list.end(), uint64_t(0));
        MctsConfig with = config;
        with.evaluator = python_evaluator(evaluator, batch_size, window, config.rollout, int(states.size()));
        return run_interruptible(
            [&](const std::atomic<bool>* cancel) { return search_many(states, with, seed_list, cancel); });
      },
      "states"_a, "config"_a, "evaluator"_a, "batch_size"_a = 16, "window"_a = kDefaultWindow, "seeds"_a = py::none(),
      "Searches every state (decision nodes of games with one player count) at once with the GIL\n"
      "released, a fresh tree each, and returns their SearchResults in order. Each search runs\n"
      "`batch_size` iterations a round, as Mcts(config, evaluator, batch_size).search would; one call\n"
      "of `evaluator` values the leaves of a round of every search (up to len(states) * batch_size).\n"
      "Search i is seeded with seeds[i] (default: i). SearchError for no states, mixed player counts,\n"
      "a seed count other than the state count, a chance or terminal state or a bad config\n"
      "(config.threads must be 1), before any call; the evaluator's exception stops every search\n"
      "and is raised here. Ctrl-C stops it (KeyboardInterrupt).");

  // ---- Arena -----------------------------------------------------------------------------------
  py::class_<GameRecord>(m, "GameRecord", "One arena game (per-seat lists).")
      .def_readonly("index", &GameRecord::index)
      .def_readonly("deal", &GameRecord::deal)
      .def_readonly("rotation", &GameRecord::rotation)
      .def_readonly("entrant", &GameRecord::entrant)
      .def_readonly("scores", &GameRecord::scores)
      .def_readonly("win_share", &GameRecord::win_share)
      .def_readonly("think_seconds", &GameRecord::think_seconds)
      .def_readonly("decisions", &GameRecord::decisions)
      .def_readonly("iterations", &GameRecord::iterations)
      .def_readonly("draws", &GameRecord::draws)
      .def_readonly("seconds", &GameRecord::seconds)
      .def_readonly("seed", &GameRecord::seed, "The run's game seed (it picks the decks).")
      .def_readonly("agent_seed", &GameRecord::agent_seed)
      .def_readonly("rank", &GameRecord::rank, "Per seat: 1 + the number of seats with a higher score.")
      .def_readonly("points", &GameRecord::points, "Per seat: points per cause (CAUSES order, B-11).")
      .def_readonly("figures", &GameRecord::figures,
                    "Per seat: figures placed from the supply per kind (meeple, mayor, wagon, barn).")
      .def_readonly("tiles", &GameRecord::tiles, "Per seat: tiles placed (abbeys included).")
      .def_readonly("tiles_by_kind", &GameRecord::tiles_by_kind,
                    "Per seat: tiles placed per kind name (empty for games read from a csv).")
      .def_readonly("turns", &GameRecord::turns)
      .def_readonly("actions", &GameRecord::actions,
                    "With ArenaConfig.record_actions: every action code in order, draws included.")
      .def_readonly("deciders", &GameRecord::deciders,
                    "With ArenaConfig.record_actions, per action: the seat that chose it (-1 for draws).")
      .def_readonly("visits", &GameRecord::visits,
                    "With ArenaConfig.record_actions, per action: an MCTS agent's root (action code, visits)\n"
                    "pairs, most visited first; empty for draws, forced moves and agents without search.")
      .def_readonly("search_win", &GameRecord::search_win,
                    "Alongside visits, per action: that search's estimated win share of every seat at the\n"
                    "root (SearchResult.win); empty where visits is.")
      .def_readonly("search_reward", &GameRecord::search_reward,
                    "Alongside visits, per action: that search's mean reward of every seat at the root\n"
                    "(SearchResult.reward); empty where visits is.");

  py::class_<EntrantStats>(m, "EntrantStats", "One entrant's statistics; intervals are 95% CIs.")
      .def_readonly("agent", &EntrantStats::agent)
      .def_readonly("games", &EntrantStats::games)
      .def_readonly("win_rate", &EntrantStats::win_rate)
      .def_readonly("win_low", &EntrantStats::win_low)
      .def_readonly("win_high", &EntrantStats::win_high)
      .def_readonly("score", &EntrantStats::score)
      .def_readonly("margin", &EntrantStats::margin)
      .def_readonly("margin_low", &EntrantStats::margin_low)
      .def_readonly("margin_high", &EntrantStats::margin_high)
      .def_readonly("elo", &EntrantStats::elo)
      .def_readonly("elo_low", &EntrantStats::elo_low)
      .def_readonly("elo_high", &EntrantStats::elo_high)
      .def_readonly("seconds_per_move", &EntrantStats::seconds_per_move)
      .def_readonly("iterations_per_move", &EntrantStats::iterations_per_move)
      .def_readonly("evaluator", &EntrantStats::evaluator,
                    "What valued its searches' leaves, with the network file and its SHA-256 (as\n"
                    "SearchResult.evaluator); '' for agents without search and games read from a csv.")
      .def("__repr__", [](const EntrantStats& s) {
        return "EntrantStats('" + s.agent + "', games=" + std::to_string(s.games) +
               ", win_rate=" + std::to_string(s.win_rate) + ")";
      });

  py::class_<SideStats>(m, "SideStats",
                        "An agent given for several seats, its seats together: win share of the games (the "
                        "sides' rates add up to 1), margin of its best seat over the others' best; 95% CIs.")
      .def_readonly("agent", &SideStats::agent)
      .def_readonly("entrants", &SideStats::entrants)
      .def_readonly("games", &SideStats::games)
      .def_readonly("win_rate", &SideStats::win_rate)
      .def_readonly("win_low", &SideStats::win_low)
      .def_readonly("win_high", &SideStats::win_high)
      .def_readonly("margin", &SideStats::margin)
      .def_readonly("margin_low", &SideStats::margin_low)
      .def_readonly("margin_high", &SideStats::margin_high)
      .def("__repr__", [](const SideStats& s) {
        return "SideStats('" + s.agent + "', games=" + std::to_string(s.games) +
               ", win_rate=" + std::to_string(s.win_rate) + ")";
      });

  py::class_<SprtConfig>(m, "SprtConfig", "A sequential probability ratio test's settings (search/sprt.h).")
      .def(py::init(&parse_sprt), "text"_a,
           "From 'elo0=0,elo1=20[,alpha=0.05,beta=0.05]'; SearchError for a bad key, number or bound.")
      .def_readonly("elo0", &SprtConfig::elo0)
      .def_readonly("elo1", &SprtConfig::elo1)
      .def_readonly("alpha", &SprtConfig::alpha)
      .def_readonly("beta", &SprtConfig::beta);

  py::class_<SprtStatus>(m, "SprtStatus", "A sequential test's state over the games so far.")
      .def_readonly("llr", &SprtStatus::llr, "The log-likelihood ratio of H1 (elo1) against H0 (elo0).")
      .def_readonly("lower", &SprtStatus::lower, "H0 is accepted at or below this.")
      .def_readonly("upper", &SprtStatus::upper, "H1 is accepted at or above this.")
      .def_property_readonly(
          "decision",
          [](const SprtStatus& s) {
            return s.decision == SprtDecision::AcceptH1   ? "H1"
                   : s.decision == SprtDecision::AcceptH0 ? "H0"
                                                          : "continue";
          },
          "'H1' (entrant 0 is stronger by elo1), 'H0' (not stronger than elo0) or 'continue'.")
      .def_readonly("counts", &SprtStatus::counts, "Units per outcome: 5 (game pairs scored 0 .. 1) or 3 (games).")
      .def_readonly("units", &SprtStatus::units, "Game pairs (paired decks) or games.")
      .def("text", &SprtStatus::text)
      .def("__repr__", [](const SprtStatus& s) { return "SprtStatus('" + s.text() + "')"; });

  py::class_<ArenaConfig>(m, "ArenaConfig", "An arena run (search/arena.h); on_game is not available from Python.")
      .def(py::init<>())
      .def_readwrite("game", &ArenaConfig::game)
      .def_readwrite("agents", &ArenaConfig::agents)
      .def_readwrite("deals", &ArenaConfig::deals)
      .def_readwrite("first_deal", &ArenaConfig::first_deal)
      .def_readwrite("record_actions", &ArenaConfig::record_actions)
      .def_readwrite("paired", &ArenaConfig::paired)
      .def_readwrite("rotation", &ArenaConfig::rotation)
      .def_readwrite("threads", &ArenaConfig::threads)
      .def_readwrite("agent_seed", &ArenaConfig::agent_seed)
      .def_readwrite("sprt", &ArenaConfig::sprt, "A SprtConfig (2 players): the run stops once it decides.");

  py::class_<ArenaResult>(m, "ArenaResult", "The games of an arena run and their statistics.")
      .def_readonly("players", &ArenaResult::players)
      .def_readonly("deals", &ArenaResult::deals)
      .def_readonly("paired", &ArenaResult::paired)
      .def_readonly("agents", &ArenaResult::agents)
      .def_readonly("games", &ArenaResult::games, "In (deal, rotation) order.")
      .def_readonly("entrants", &ArenaResult::entrants)
      .def_readonly("sides", &ArenaResult::sides,
                    "One per agent given for several seats but not all (a 2-against-2 match).")
      .def_readonly("seconds", &ArenaResult::seconds)
      .def_readonly("sprt", &ArenaResult::sprt, "With ArenaConfig.sprt: the test after the last game.")
      .def("report", &ArenaResult::report, "A table of the entrant statistics.")
      .def("csv", &ArenaResult::csv, "One line per game and seat.");

  m.def(
      "run_arena",
      [](const ArenaConfig& config, const std::string& csv, bool resume, const py::sequence& python_agents) {
        // Copy with the GIL held; the copy's on_game stays empty (it would call back into
        // Python without the GIL). Nothing Python-owned is read after this, so the release is safe.
        ArenaConfig copy;
        copy.game = config.game;
        copy.agents = config.agents;
        copy.deals = config.deals;
        copy.first_deal = config.first_deal;
        copy.record_actions = config.record_actions;
        copy.paired = config.paired;
        copy.rotation = config.rotation;
        copy.threads = config.threads;
        copy.agent_seed = config.agent_seed;
        copy.sprt = config.sprt;
        // Python agents take the GIL for each of their moves (register_agents.cpp); the
        // caller's sequence keeps them alive until the run ends.
        copy.custom_agents = python_agent_factories(python_agents);
        if (resume && csv.empty()) throw SearchError("run_arena: resume needs a csv file");
        return run_interruptible([&](const std::atomic<bool>* cancel) {
          copy.cancel = cancel;
          return csv.empty() ? run_arena(copy) : run_arena_csv(copy, csv, resume);
        });
      },
      "config"_a, "csv"_a = "", "resume"_a = false, "python_agents"_a = py::tuple(),
      "Plays the arena's games with the GIL released and summarises them; bad agents, counts or\n"
      "rules raise SearchError (ConfigError for rules) before any game starts. Ctrl-C stops every\n"
      "game at its next move (KeyboardInterrupt). With `csv`, each game is appended to that file as\n"
      "it finishes; with `resume`, the games the file holds count and are not played again (a file\n"
      "of another run, an unreadable one or one that cannot be written raises SearchError).\n"
      "`python_agents`: empty, or per entrant None (its spec in config.agents plays) or an object with\n"
      "name, reset(seed) and choose(state) -> code; a run with any plays one game at a time, and a\n"
      "Python agent's exception stops it and is raised here.");

  m.def(
      "choose_action",
      [](const State& state, const std::string& agent, uint64_t seed) {
        if (state.is_chance() || state.is_terminal())
          throw std::invalid_argument("choose_action: the node is not a decision (a draw or the end)");
        // As in analyse: copies taken with the GIL held; the agent is built before the release so
        // a bad spec raises at once.
        State state_copy = state;
        std::shared_ptr<Agent> chooser = make_agent(agent);
        return run_interruptible([&](const std::atomic<bool>*) {
          Rng rng(seed);
          return chooser->choose(state_copy, rng).code;
        });
      },
      "state"_a, "agent"_a, "seed"_a = 0,
      "The action code one agent (\"random\", \"greedy\", \"mcts:time=0.5\", ...) chooses at a decision\n"
      "node, with the GIL released (a play server's bots). Bad specs raise SearchError. An agent's\n"
      "choice cannot be stopped early: give it a time budget.");
}

}  // namespace carc::py_bindings
