// Monte Carlo Tree Search over the engine's decision/chance tree, for 2-6 players.
//
// The tree follows the game's nodes exactly as the engine gives them (State::current_player):
// a decision node belongs to whoever decides there (the turn player, or another player for the
// decisions of non-active players that expansions add), a chance node to the bag. Nothing here
// knows what a turn looks like.
//   * Decision nodes select by PUCT (by default, with priors from GreedyAgent's one-ply values)
//     or UCT on the mover's own mean reward; rewards are vectors (one value per player) averaged
//     on the way back: multi-player "max^n" (each mover maximises its own component), which
//     reduces to negamax-style search for two players.
//   * Chance nodes hold every outcome with its probability (the bag's counts, never the game's
//     own PRNG, which would leak the real future draws) and either sample one per iteration
//     with the search's rng, or visit them in proportion to their probabilities (stratified).
//   * Leaves are evaluated by an Evaluator (rollouts by default; search/evaluator.h).
//   * Threads share one tree (tree parallelism: lock-free statistics, virtual loss) or each
//     grow their own and the root statistics are summed (root parallelism).
//   * One thread with an iteration budget is deterministic: the same seed gives the same tree.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "agents.h"
#include "engine/game.h"
#include "evaluator.h"

namespace carc {

enum class SelectionRule : uint8_t { Uct, Puct };
enum class ChanceMode : uint8_t { Sample, Stratified };
enum class Parallelism : uint8_t { Tree, Root };

// The UCT exploration constant measured best (search/RESULTS.md); PUCT's default is MctsConfig's.
inline constexpr double kUctExploration = 0.7;

struct MctsConfig {
  // ---- Budget: the search stops at the first limit reached; 0 disables a limit (not both).
  double seconds = 0.0;        // wall time per search
  uint64_t iterations = 1000;  // iterations per search, all threads together
  // ---- Threads.
  int threads = 1;  // 1 with an iteration budget: deterministic for a given seed
  Parallelism parallelism = Parallelism::Tree;
  float virtual_loss = 1.0f;  // tree parallelism: an in-flight iteration counts as this many
                              // visits with reward 0 for the mover
  // ---- Tree policy.
  SelectionRule selection = SelectionRule::Puct;  // with greedy priors (rollout.prior)
  double exploration = 2.0;    // PUCT: c in Q + c P sqrt(N) / (1 + n); UCT: c in Q + c sqrt(ln N / n),
                               // tuned at kUctExploration (parse_mcts_options uses it for select=uct)
  double fpu_reduction = 0.1;  // PUCT: an unvisited child is valued at the parent's mean - this
  ChanceMode chance = ChanceMode::Stratified;
  uint32_t expand_after = 1;  // a leaf is expanded once it has this many visits (root: always);
                              // 0: at its first visit, and that node is evaluated (AlphaZero)
  // ---- Leaf evaluation.
  RolloutConfig rollout;                       // the default evaluator's settings
  std::shared_ptr<const Evaluator> evaluator;  // if set, used instead of rollouts (a network)
  // ---- Memory and reuse.
  double memory_mb = 1024;  // node pool cap (32-byte nodes, 48 with more than 2 players; about
                            // 4 nodes an iteration, so millions of iterations); a full pool
                            // stops growth, not the search
  bool reuse = true;        // keep the subtree of the new position between searches
  uint64_t seed = 0;        // mixed into every search's random streams
};

// Throws SearchError (search/agents.h) naming the first bad field.
void validate(const MctsConfig& config);

// Parses agent options "key=value,key=value" (make_agent's "mcts:..." spec) into a config;
// mcts_options() lists the keys with their ranges and defaults. select=uct without c takes
// kUctExploration; time without iters is the only limit. Unknown keys (the error names the known
// ones), a key given twice and bad values (the error names the range or the choices) throw
// SearchError. The empty string gives the defaults.
MctsConfig parse_mcts_options(const std::string& options);

// One option of parse_mcts_options, for documentation (Python: carcassonne._core.mcts_options).
struct MctsOptionInfo {
  std::string key;
  std::string help;           // what it sets
  std::string values;         // what it accepts: "a number in [lo, hi]", "one of a, b", ...
  std::string default_value;  // its value in a default MctsConfig
};

// Every option parse_mcts_options takes, in the order of its table (mcts_options.cpp).
std::vector<MctsOptionInfo> mcts_options();

// One candidate action at the root, after a search.
struct ActionStats {
  Action action;
  std::string text;  // State::action_to_string
  uint32_t visits = 0;
  double value = 0;         // mean reward of the deciding player after this action
  double prior = 0;         // PUCT prior (uniform under UCT)
  std::vector<double> win;  // estimated win share of every player after this action
};

struct SearchResult {
  Action best;                 // the most visited action (ties: higher value)
  int player = 0;              // the deciding player
  std::string evaluator;       // what valued the leaves (Evaluator::describe)
  uint64_t iterations = 0;     // run by this search
  double seconds = 0;          // wall time of this search
  uint64_t nodes = 0;          // nodes in the pool(s) at the end
  uint64_t reused_visits = 0;  // root visits carried over from the previous search
  // With a BatchEvaluator (search/batched.h): the evaluator calls that valued this search's
  // leaves, and the leaves those calls held (in search_many, every search's leaves together).
  uint64_t evaluator_calls = 0;
  uint64_t evaluator_leaves = 0;
  // Time the threads spent in the evaluator's priors (PUCT), summed over threads: their share of
  // the search is prior_seconds / (seconds x threads). Zero under UCT, tiny with uniform priors.
  double prior_seconds = 0;
  std::vector<double> win;           // estimated win share of every player at the root
  std::vector<double> reward;        // mean reward of every player at the root (what the search maximises)
  std::vector<ActionStats> actions;  // every legal action, most visited first
};

struct MctsImpl;  // mcts.cpp: the trees and the per-thread scratch
class Mcts;

// Searches every state (decision nodes) at once, a fresh tree each (no reuse), with one config
// whose evaluator is a BatchEvaluator (search/batched.h): each search runs its iterations in
// groups of batch_size() as a single search would, and one evaluate_batch() call values the
// leaves of a group of every search together (up to states.size() * batch_size() leaves). On
// the calling thread; config.threads must be 1. Search i is seeded with seeds[i] and gives the
// same tree as Mcts(config).search(states[i], seeds[i]) with an evaluator whose values do not
// depend on the other leaves of its call. Setting `*cancel` ends every search early. Throws
// SearchError for no states, a seed count other than the state count, a chance or terminal
// state, a config without a BatchEvaluator or a bad config, before any search starts; an
// evaluator's exception stops every search and is thrown again.
std::vector<SearchResult> search_many(const std::vector<State>& states, const MctsConfig& config,
                                      const std::vector<uint64_t>& seeds, const std::atomic<bool>* cancel = nullptr);

// A search engine that keeps its tree between searches (for reuse). Not thread-safe itself:
// one search at a time; each search uses config.threads threads.
class Mcts {
 public:
  explicit Mcts(const MctsConfig& config);  // throws SearchError
  ~Mcts();
  Mcts(const Mcts&) = delete;
  Mcts& operator=(const Mcts&) = delete;

  // Searches from `state`, a decision node, and returns the root statistics. If reuse is on
  // and `state` lies in the previous search's tree (within a few plies of its root), that
  // subtree is kept. `seed` is mixed with config.seed (an agent passes a value from its rng).
  // Setting `*cancel` (from any thread) ends the search early, as its budget would.
  SearchResult search(const State& state, uint64_t seed = 0, const std::atomic<bool>* cancel = nullptr);
  // Forgets the tree.
  void clear();
  const MctsConfig& config() const { return config_; }

 private:
  friend std::vector<SearchResult> search_many(const std::vector<State>&, const MctsConfig&,
                                               const std::vector<uint64_t>&, const std::atomic<bool>*);
  MctsConfig config_;
  std::unique_ptr<MctsImpl> impl_;
};

// A fresh search (no reuse) for the analysis output: every candidate with its visits, mean
// value and every player's estimated win share (the web page's hints, notebooks).
SearchResult analyse(const State& state, const MctsConfig& config, uint64_t seed = 0,
                     const std::atomic<bool>* cancel = nullptr);

class MctsAgent final : public Agent {
 public:
  explicit MctsAgent(const MctsConfig& config) : mcts_(config) {}
  // Searches and returns the most visited action; a forced move is returned without search.
  Action choose(const State& state, Rng& rng) override;
  std::string name() const override { return "mcts"; }
  const MctsConfig& config() const { return mcts_.config(); }
  // The statistics of the last search (empty after a forced move).
  const SearchResult& last_result() const { return last_; }
  // Totals over every search this agent made.
  uint64_t total_iterations() const { return total_iterations_; }
  uint64_t searches() const { return searches_; }

 private:
  Mcts mcts_;
  SearchResult last_;
  uint64_t total_iterations_ = 0;
  uint64_t searches_ = 0;
};

}  // namespace carc
