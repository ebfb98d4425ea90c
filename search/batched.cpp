#include "batched.h"

#include <vector>

namespace carc {

void BatchEvaluator::evaluate(State& state, Rng& rng, Evaluation& out) const {
  while (state.is_chance()) state.apply_unchecked(sample_draw(state, rng));
  if (state.is_terminal()) return terminal_evaluation(state, config_, out);
  std::vector<Action> actions(kMaxActions);
  std::vector<LeafRequest> batch(1);
  batch[0].state = &state;
  batch[0].actions = actions.data();
  batch[0].num_actions = state.legal_actions(actions.data());
  batch[0].value = &out;
  evaluate_batch(batch);
}

void BatchEvaluator::priors(const State& state, const Action* actions, int n, float* out) const {
  priors(state, actions, n, out, nullptr);
}

void BatchEvaluator::priors(const State& state, const Action* actions, int n, float* out, double* prior_seconds) const {
  Evaluation ignored;
  std::vector<LeafRequest> batch(1);
  batch[0].state = &state;
  batch[0].actions = actions;
  batch[0].num_actions = n;
  batch[0].want_priors = true;
  batch[0].priors = out;
  batch[0].value = &ignored;
  batch[0].prior_seconds = prior_seconds;
  evaluate_batch(batch);
}

}  // namespace carc
