// Leaf evaluation in batches, for evaluators whose cost is per call rather than per position (a
// model in Python, on a CPU or a GPU). With a BatchEvaluator the search (mcts.cpp) runs its
// iterations in groups of batch_size(): each descends with virtual loss, so the group spreads
// over different leaves; the group's leaves go to evaluate_batch() in one call; then every
// iteration of the group is backed up. The loop runs on one thread (MctsConfig::threads must be
// 1): the evaluator is the bottleneck, and a Python one holds the GIL while it runs anyway.
// search_many (search/mcts.h) runs many searches so, each in its own tree, and one call values a
// group of every search (the games of a self-play batch: batch_size() leaves from each).
//
// How the search treats leaves with such an evaluator:
//   * a decision leaf is expanded when it is evaluated (AlphaZero's way; MctsConfig::expand_after
//     does not apply): one call gives its value and the priors of its children;
//   * chance nodes are expanded at their first visit, so leaves are decision or terminal nodes;
//   * terminal leaves are valued exactly (terminal_evaluation with the config's reward), without
//     the evaluator;
//   * an iteration that reaches a leaf already in its group (a collision, most common while the
//     tree is small) is dropped: it counts neither as a visit nor against the budget; after
//     batch_size collisions the group is evaluated as it stands.
#pragma once

#include <memory>
#include <vector>

#include "engine/game.h"
#include "evaluator.h"

namespace carc {

// One leaf of a batch: a decision node, the legal actions the search lists there, and the
// outputs the evaluator writes.
struct LeafRequest {
  const State* state = nullptr;
  const Action* actions = nullptr;  // the legal actions, in the order of State::legal_actions
  int num_actions = 0;
  bool want_priors = false;  // the search expands this node: write priors[0 .. num_actions)
  float* priors = nullptr;   // non-negative, summing to 1
  Evaluation* value = nullptr;
  // Where the evaluator adds the seconds it spent on this leaf's priors when it computed them
  // itself (the greedy fallback), for SearchResult::prior_seconds; null: not counted.
  double* prior_seconds = nullptr;
};

class BatchEvaluator : public Evaluator {
 public:
  // `config`: the reward of terminal nodes (terminal_evaluation), and the priors the evaluator may
  // fall back to (its prior setting).
  BatchEvaluator(int batch_size, const RolloutConfig& config) : config_(config), batch_size_(batch_size) {}
  // Iterations per batch (>= 1).
  int batch_size() const { return batch_size_; }
  // Values every leaf (decision nodes only) and writes the priors of those that want them.
  // Throws (SearchError, or the evaluator's own exception) to stop the search; the search then
  // leaves its tree as it was before the batch.
  virtual void evaluate_batch(std::vector<LeafRequest>& leaves) const = 0;

  // The single-node interface, as a batch of one: a chance node is valued at one draw sampled
  // with `rng`, a terminal node exactly (the config's reward).
  void evaluate(State& state, Rng& rng, Evaluation& out) const override;
  void priors(const State& state, const Action* actions, int n, float* out) const override;
  // The same, adding the seconds the evaluator spends on priors it computes itself to
  // *prior_seconds (if not null).
  void priors(const State& state, const Action* actions, int n, float* out, double* prior_seconds) const;

 protected:
  RolloutConfig config_;

 private:
  int batch_size_;
};

}  // namespace carc
