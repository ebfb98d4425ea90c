#include "agents.h"

#include <algorithm>
#include <stdexcept>
#include <vector>

namespace carc {

Action RandomAgent::choose(const State& state, Rng& rng) {
  Action buffer[kMaxActions];
  int n = state.legal_actions(buffer);
  return buffer[rng.below(uint32_t(n))];
}

double GreedyAgent::evaluate(const State& state, int p) {
  // Unfinished features count with the value they would score now, for the leaders.
  std::array<double, kMaxPlayers> potential{};
  const Features& f = state.features();
  for (int s = 0; s < f.size(); ++s) {
    const Segment& seg = f[s];
    if (seg.root != s || seg.occupants == 0 || seg.done || seg.type == FeatureType::Field) continue;
    int best = *std::max_element(seg.meeples.begin(), seg.meeples.end());
    double value = seg.type == FeatureType::City   ? 2.0 * (seg.tiles + seg.pennants)
                   : seg.type == FeatureType::Road ? double(seg.tiles)
                                                   : 9.0 - seg.open;
    for (int q = 0; q < state.num_players(); ++q)
      if (seg.meeples[q] == best) potential[q] += value;
  }
  double mine = state.score(p) + 0.5 * potential[p] - 1.5 * (kMeeplesPerPlayer - state.supply(p));
  double other = -1e9;
  for (int q = 0; q < state.num_players(); ++q)
    if (q != p) other = std::max(other, state.score(q) + 0.5 * potential[q]);
  return mine - other;
}

Action GreedyAgent::choose(const State& state, Rng& rng) {
  Action buffer[kMaxActions];
  int n = state.legal_actions(buffer);
  int me = state.current_player();
  double best = -1e18;
  std::vector<Action> ties;
  for (int i = 0; i < n; ++i) {
    State next = state;
    next.apply_unchecked(buffer[i]);
    double value;
    if (next.current_player() == me && next.phase() == Phase::PlaceFigure) {
      // Look through the figure decision this placement leads to.
      Action figures[kMaxActions];
      int m = next.legal_actions(figures);
      value = -1e18;
      for (int j = 0; j < m; ++j) {
        State after = next;
        after.apply_unchecked(figures[j]);
        value = std::max(value, evaluate(after, me));
      }
    } else {
      value = evaluate(next, me);
    }
    if (value > best + 1e-9) {
      best = value;
      ties.assign(1, buffer[i]);
    } else if (value > best - 1e-9) {
      ties.push_back(buffer[i]);
    }
  }
  return ties[rng.below(uint32_t(ties.size()))];
}

std::unique_ptr<Agent> make_agent(const std::string& name) {
  if (name == "random") return std::make_unique<RandomAgent>();
  if (name == "greedy") return std::make_unique<GreedyAgent>();
  throw std::invalid_argument("unknown agent '" + name + "' (known: random, greedy)");
}

}  // namespace carc
