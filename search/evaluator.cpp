#include "evaluator.h"

#include <algorithm>
#include <bit>
#include <climits>
#include <cmath>
#include <cstring>

#include "agents.h"
#include "value.h"

namespace carc {

namespace {
// heuristic_values' guesses. Completion chances are "early" values (a bag of kLateBagTiles or
// more, search/agents.h), scaled down as the bag empties below that.
// A meeple in supply is worth this many points early in the game (it can still be used).
constexpr double kSupplyMeepleValue = 1.0;
// An open city completes with chance (this / its open ends); a completed one doubles its points.
constexpr double kCityCompletion = 0.6;
// A complete cloister (itself and 8 neighbours) scores this.
constexpr double kCloisterPoints = 9.0;
// The share of a cloister's empty neighbours expected to fill.
constexpr double kCloisterFill = 0.6;
}  // namespace

void Evaluator::priors(const State&, const Action*, int n, float* out) const {
  std::fill(out, out + n, n > 0 ? 1.0f / float(n) : 0.0f);
}

void Evaluator::check(const State&) const {}

std::string Evaluator::describe(const State&) const { return "rollouts"; }

RolloutEvaluator::RolloutEvaluator(const RolloutConfig& config) : config_(config) {
  if (config_.heuristic != Heuristic::Value && config_.prior != PriorKind::Value) return;
  if (!config_.value_net.empty()) value_nets_.push_back(load_value_net(config_.value_net));
  else if (!config_.value_dir.empty()) value_nets_ = value_nets_in(resolve_value_dir(config_.value_dir));
  else value_nets_ = shipped_value_nets();
  RolloutConfig fallback = config_;
  if (fallback.heuristic == Heuristic::Value) fallback.heuristic = Heuristic::Greedy;
  if (fallback.prior == PriorKind::Value) fallback.prior = PriorKind::Greedy;
  if (fallback.policy == RolloutPolicy::None) fallback.policy = RolloutConfig{}.policy;
  fallback_ = std::make_unique<RolloutEvaluator>(fallback);
}

RolloutEvaluator::~RolloutEvaluator() = default;

const ValueNet* RolloutEvaluator::value_net(const State& state) const {
  if (!config_.value_net.empty()) {  // a file given: any player count of a mix it serves (check() tells)
    const ValueNet& net = *value_nets_[0];
    return net.serves_mix(ValueMix::of(state.rules())) ? &net : nullptr;
  }
  for (const auto& net : value_nets_)
    if (net->fits(state)) return net.get();
  return nullptr;
}

void RolloutEvaluator::check(const State& state) const {
  const bool uses_value = config_.heuristic == Heuristic::Value || config_.prior == PriorKind::Value;
  if (!uses_value || config_.value_net.empty() || value_net(state)) return;
  throw SearchError("the value network " + config_.value_net + " serves " + mix_list(value_nets_[0]->serves()) +
                    " games, not " + ValueMix::of(state.rules()).name());
}

std::string RolloutEvaluator::describe(const State& state) const {
  const bool values = config_.heuristic == Heuristic::Value, priors = config_.prior == PriorKind::Value;
  if (!values && !priors) return "rollouts";
  if (const ValueNet* net = value_net(state))
    return std::string(!values                                 ? "rollouts, priors from "
                       : config_.policy == RolloutPolicy::None ? ""
                                                               : "rollouts to a cutoff, then ") +
           "the value network " + net->describe() + (values && priors ? ", priors too" : "");
  return "rollouts: no value network for " + ValueMix::of(state.rules()).name() + " with " +
         std::to_string(state.num_players()) + " players";
}

void RolloutEvaluator::priors(const State& state, const Action* actions, int n, float* out) const {
  if (config_.prior == PriorKind::Uniform || n <= 1) return Evaluator::priors(state, actions, n, out);
  double values[kMaxActions];
  const ValueNet* net = config_.prior == PriorKind::Value ? value_net(state) : nullptr;
  if (net) {
    one_ply_values(state, actions, n, values, [net](const State& after, int me) {
      std::array<double, kMaxPlayers> finals;
      std::array<float, kMaxPlayers> win;
      net->evaluate(after, finals, win);
      double other = -1e18;
      for (int q = 0; q < after.num_players(); ++q)
        if (q != me) other = std::max(other, finals[size_t(q)]);
      return finals[size_t(me)] - other;
    });
  } else {
    greedy_values(state, actions, n, values, config_.prior_field_weight);
  }
  const double top = *std::max_element(values, values + n);
  double sum = 0;
  for (int i = 0; i < n; ++i) sum += values[i] = std::exp((values[i] - top) / config_.prior_temperature);
  for (int i = 0; i < n; ++i) out[i] = float(values[i] / sum);
}

Action sample_draw(const State& state, Rng& rng) {
  // Walk the bag's counts with our own rng: O(kinds), no allocation. A fixed draw order (tests,
  // puzzles) makes only one draw legal, which the walk may miss; then take the legal one.
  int size = state.bag_size();
  if (size > 0) {
    int r = int(rng.below(uint32_t(size)));
    // Eight kinds a step first: their counts (bytes) summed as lanes of a word, each lane at
    // most 2 * 255 and the total at most 8 * 255, so no lane carries into the next.
    const uint8_t* counts = state.bag_counts().data();
    static_assert(kMaxKinds % 8 == 0);
    int k = 0, sum = 0;
    uint64_t word = 0;
    for (; k < kMaxKinds; k += 8) {
      std::memcpy(&word, counts + k, sizeof word);
      constexpr uint64_t kEven = 0x00FF00FF00FF00FFull;
      const uint64_t pairs = (word & kEven) + ((word >> 8) & kEven);
      sum = int((pairs * 0x0001000100010001ull) >> 48);
      if (r < sum) break;
      r -= sum;
    }
    int kind = -1;
    if (k < kMaxKinds && sum < 128) {
      // The tile is in this word. With fewer than 128 tiles in it, byte i of `prefix` is the
      // count of its kinds 0..i (no carry), and bit 7 of byte i of (0x80 + r) - prefix is set
      // where prefix <= r: the kinds before the tile's (the prefixes rise, so those come first).
      constexpr uint64_t kOnes = 0x0101010101010101ull, kHigh = 0x8080808080808080ull;
      const uint64_t prefix = word * kOnes;
      const uint64_t before = ((kHigh | uint64_t(r) * kOnes) - prefix) & kHigh;
      kind = k + std::countr_zero(~before & kHigh) / 8;
    } else {
      for (; k < kMaxKinds && kind < 0; ++k)
        if ((r -= counts[k]) < 0) kind = k;
    }
    if (kind >= 0) {
      Action a = Action::draw(kind);
      if (state.draws_any_tile() || state.is_legal(a)) return a;
    }
  }
  Action actions[kMaxActions];
  float probabilities[kMaxActions];
  int n = chance_outcomes(state, actions, probabilities);
  float x = float(rng.below(1u << 24)) / float(1u << 24);
  for (int i = 0; i < n - 1; ++i) {
    x -= probabilities[i];
    if (x < 0) return actions[i];
  }
  return actions[n - 1];
}

Action figure_without_farmer(const State& state, Rng& rng) {
  Action actions[kMaxActions];
  return actions[rng.below(uint32_t(state.legal_actions_without_farmers(actions)))];
}

int chance_outcomes(const State& state, Action* actions, float* probabilities) {
  int n = state.legal_actions(actions);
  if (n == 1) {
    probabilities[0] = 1.0f;
    return n;
  }
  bool draws = state.bag_size() > 0;
  int total = 0;
  for (int i = 0; i < n && draws; ++i) {
    draws = actions[i].kind() == ActionKind::Draw;
    if (draws) total += state.bag_count(KindId(actions[i].tile_kind()));
  }
  if (draws && total == state.bag_size()) {
    for (int i = 0; i < n; ++i)
      probabilities[i] = float(state.bag_count(KindId(actions[i].tile_kind()))) / float(total);
    return n;
  }
  // Some other kind of chance event: ask the engine (allocates; not reached in the base game).
  auto outcomes = state.chance_outcomes();
  n = int(outcomes.size());
  for (int i = 0; i < n; ++i) {
    actions[i] = outcomes[size_t(i)].first;
    probabilities[i] = float(outcomes[size_t(i)].second);
  }
  return n;
}

double expected_worth(const State& state, int root, double late) {
  const Segment& seg = state.features()[root];
  if (seg.type == FeatureType::City) {
    double complete = seg.open == 0 ? 1.0 : late * kCityCompletion / seg.open;
    return (seg.tiles + seg.pennants) * (1.0 + complete);
  }
  if (seg.type == FeatureType::Road) return seg.tiles;
  if (is_cloister_like(seg.type)) return kCloisterPoints - seg.open * (1.0 - kCloisterFill * late);
  if (seg.type == FeatureType::Field) return field_value(state, root, late);
  return 0;
}

std::array<double, kMaxPlayers> heuristic_values(const State& state) {
  // Expected final value of each unfinished feature for its leaders. Completion chances are
  // rough guesses that shrink with the open ends and vanish as the bag empties.
  const Features& f = state.features();
  const int players = state.num_players();
  const double late = std::min(1.0, state.bag_size() / kLateBagTiles);  // 1 early, 0 at the end
  std::array<double, kMaxPlayers> out{};
  for (int p = 0; p < players; ++p) out[size_t(p)] = state.score(p) + kSupplyMeepleValue * late * state.supply(p);
  for (int s = 0; s < f.size(); ++s) {
    const Segment& seg = f[s];
    if (seg.root != s || seg.occupants == 0 || seg.done) continue;
    const double value = expected_worth(state, s, late);
    int best = *std::max_element(seg.meeples.begin(), seg.meeples.begin() + players);
    if (best == 0 || value == 0) continue;
    for (int q = 0; q < players; ++q)
      if (seg.meeples[size_t(q)] == best) out[size_t(q)] += value;
  }
  return out;
}

namespace {

// Returns 0.5 + 0.5 tanh(margin / scale): 0.5 for a tie, towards 1 for a large lead.
float margin_reward(double margin, double scale) { return float(0.5 + 0.5 * std::tanh(margin / scale)); }

// Fills out.reward from out.win and per-player values (scores or heuristic values).
void set_rewards(const State& state, const RolloutConfig& config, const std::array<double, kMaxPlayers>& values,
                 Evaluation& out) {
  int n = state.num_players();
  for (int p = 0; p < n; ++p) {
    double other = -1e18;
    for (int q = 0; q < n; ++q)
      if (q != p) other = std::max(other, values[size_t(q)]);
    float margin = margin_reward(values[size_t(p)] - other, config.margin_scale);
    float win = out.win[size_t(p)];
    switch (config.reward) {
      case RewardKind::Win: out.reward[size_t(p)] = win; break;
      case RewardKind::Margin: out.reward[size_t(p)] = margin; break;
      case RewardKind::Mixed:
        out.reward[size_t(p)] = float((1.0 - config.margin_weight) * win + config.margin_weight * margin);
        break;
    }
  }
}

// The hand-made guess at a cutoff: each player's score plus what the position promises them,
// barns counted at `barn_weight` (the search's barns=, or a value network's own).
std::array<double, kMaxPlayers> guess_values(const State& state, const RolloutConfig& config, Heuristic kind,
                                             double barn_weight) {
  std::array<double, kMaxPlayers> values{};
  if (kind == Heuristic::Expected) return heuristic_values(state);
  if (kind == Heuristic::Final) {
    std::array<int, kMaxPlayers> scores = state.scores_if_ended();
    for (int p = 0; p < state.num_players(); ++p) values[size_t(p)] = scores[size_t(p)];
    return values;
  }
  std::array<double, kMaxPlayers> potential = feature_potential(state);
  std::array<double, kMaxPlayers> fields{};
  if (config.field_weight > 0) fields = field_potential(state);
  for (int p = 0; p < state.num_players(); ++p)
    values[size_t(p)] = state.score(p) + kGreedyPotentialWeight * potential[size_t(p)] +
                        config.field_weight * fields[size_t(p)] + config.supply_value * state.supply(p);
  if (barn_weight > 0 && state.rules().abbey_mayor) {  // off by default: no cost then
    const std::array<double, kMaxPlayers> barns = barn_potential(state);
    for (int p = 0; p < state.num_players(); ++p) values[size_t(p)] += barn_weight * barns[size_t(p)];
  }
  return values;
}

// Win estimates from values: a softmax, so they sum to 1 and a lead of `temperature` points
// counts e:1.
void softmax_win(const std::array<double, kMaxPlayers>& values, int n, double temperature,
                 std::array<float, kMaxPlayers>& win) {
  double top = *std::max_element(values.begin(), values.begin() + n);
  double sum = 0;
  std::array<double, kMaxPlayers> e{};
  for (int p = 0; p < n; ++p) sum += e[size_t(p)] = std::exp((values[size_t(p)] - top) / temperature);
  for (int p = 0; p < n; ++p) win[size_t(p)] = float(e[size_t(p)] / sum);
}

// The hand-made guess as an evaluation: values, and win estimates from their softmax.
void guess_evaluation(const State& state, const RolloutConfig& config, Heuristic kind, double barn_weight,
                      std::array<double, kMaxPlayers>& values, std::array<float, kMaxPlayers>& win) {
  values = guess_values(state, config, kind, barn_weight);
  softmax_win(values, state.num_players(), config.cutoff_temperature, win);
}

// The evaluation of an unfinished game at a rollout cutoff: the learned value (its own win
// estimates), the hand-made guess, or a blend of the two (`value_blend`: the guess's share), as
// their weighted mean or one of the two drawn with those weights (`blend_by`).
void cutoff_evaluation(const State& state, const RolloutConfig& config, const ValueNet* net, Rng& rng,
                       Evaluation& out) {
  const int n = state.num_players();
  std::array<double, kMaxPlayers> values;
  if (net) {
    // The network's own share of the guess, and the search's blend= on what remains.
    const double b = config.value_blend + double(net->guess_share()) * (1 - config.value_blend);
    // The barns as the search's barns= counts them, else as the network was measured with.
    const double barns = config.barn_weight > 0 ? config.barn_weight : double(net->guess_barns());
    const bool drawn = config.blend_by == BlendBy::Sample || (config.blend_by == BlendBy::File && net->guess_drawn());
    if (b > 0 && drawn) {
      // The mean's win estimates, and nearly its rewards (the margin's tanh is near linear), at
      // the cost of the network at a share 1 - b of the cutoffs only.
      if (double(rng.next() >> 11) * 0x1.0p-53 < b) {
        guess_evaluation(state, config, Heuristic::Greedy, barns, values, out.win);
      } else {
        net->evaluate(state, values, out.win);
      }
    } else {
      net->evaluate(state, values, out.win);
      if (b > 0) {
        // Two estimates with errors of their own: their mean errs less than either.
        std::array<double, kMaxPlayers> guess;
        std::array<float, kMaxPlayers> guess_win{};
        guess_evaluation(state, config, Heuristic::Greedy, barns, guess, guess_win);
        for (int p = 0; p < n; ++p) {
          values[size_t(p)] = (1 - b) * values[size_t(p)] + b * guess[size_t(p)];
          out.win[size_t(p)] = float((1 - b) * out.win[size_t(p)] + b * guess_win[size_t(p)]);
        }
      }
    }
  } else {
    guess_evaluation(state, config, config.heuristic, config.barn_weight, values, out.win);
  }
  set_rewards(state, config, values, out);
}

// The figure step of the greedy rollout policy, reading feature aggregates only (no copies):
// a figure on a feature that the tile just completed scores at once and comes back, so take the
// most valuable such grab; otherwise keep the meeple half the time (uniformly random play spends
// meeples far faster than real players do), else a random option.
Action greedy_figure(const State& state, const Action* actions, int n, Rng& rng) {
  const Features& f = state.features();
  const PlacedTile& tile = state.board().tile(state.last_slot());
  int best = -1, best_value = 0, passes = 0;
  for (int i = 0; i < n; ++i) {
    Action a = actions[i];
    if (a.kind() == ActionKind::Pass) ++passes;
    if (a.kind() != ActionKind::Figure || a.figure_kind() != FigureKind::Meeple) continue;
    int segment = tile.first_segment + a.feature();
    if (segment >= f.size()) continue;
    const Segment& s = f.feature(segment);
    if (s.open != 0 || s.occupants != 0) continue;
    int value = s.type == FeatureType::City   ? 2 * (s.tiles + s.pennants)
                : s.type == FeatureType::Road ? s.tiles
                : is_cloister_like(s.type)    ? 9
                                              : 0;
    if (value > best_value) best_value = value, best = i;
  }
  if (best >= 0) return actions[best];
  if (passes && (rng.next() & 1)) return Action::pass();
  return actions[rng.below(uint32_t(n))];
}

// One rollout move of the greedy-biased policy.
Action greedy_rollout_action(const State& state, const RolloutConfig& config, Rng& rng) {
  if (config.greedy_eps > 0 && double(rng.below(1u << 24)) < config.greedy_eps * double(1u << 24))
    return greedy_action(state, rng);
  if (state.phase() != Phase::PlaceFigure) return state.sample_legal_action(rng);
  Action actions[kMaxActions];
  int n = state.legal_actions(actions);
  return greedy_figure(state, actions, n, rng);
}

// The endgame rule of rollouts: the figure (or pass) that pays the mover most if the game ended
// right after it (State::scores_if_ended), so rollouts show the farmer a last mover can grab.
Action endgame_figure(const State& state, Rng& rng) {
  Action actions[kMaxActions];
  int n = state.legal_actions(actions);
  const int me = state.current_player();
  Action best = actions[0];
  int best_margin = INT_MIN, ties = 0;
  State next = state;
  for (int i = 0; i < n; ++i) {
    if (i > 0) next.copy_from(state);
    next.apply_unchecked(actions[i]);
    int margin = score_lead(next.scores_if_ended(), state.num_players(), me);
    if (margin > best_margin) {
      best_margin = margin, best = actions[i], ties = 1;
    } else if (margin == best_margin && rng.below(uint32_t(++ties)) == 0) {
      best = actions[i];  // uniform among the ties
    }
  }
  return best;
}

}  // namespace

void terminal_evaluation(const State& state, const RolloutConfig& config, Evaluation& out) {
  int n = state.num_players();
  std::array<double, kMaxPlayers> scores{};
  int best = 0;
  for (int p = 0; p < n; ++p) best = std::max(best, state.score(p));
  int winners = 0;
  for (int p = 0; p < n; ++p) {
    scores[size_t(p)] = state.score(p);
    winners += state.score(p) == best;
  }
  for (int p = 0; p < n; ++p) out.win[size_t(p)] = state.score(p) == best ? 1.0f / float(winners) : 0.0f;
  set_rewards(state, config, scores, out);
}

void RolloutEvaluator::evaluate(State& state, Rng& rng, Evaluation& out) const {
  const ValueNet* net = nullptr;
  if (config_.heuristic == Heuristic::Value) {
    net = value_net(state);
    if (!net) return fallback_->evaluate(state, rng, out);
    if (config_.policy == RolloutPolicy::None && !state.is_terminal() && state.bag_size() > config_.finish_tiles)
      return cutoff_evaluation(state, config_, net, rng, out);
  }
  const int start = state.turn_number();
  const bool cutoff = config_.cutoff_turns > 0 && state.bag_size() > config_.finish_tiles;
  while (!state.is_terminal()) {
    if (state.is_chance()) {
      state.apply_unchecked(sample_draw(state, rng));
      continue;
    }
    if (cutoff && state.turn_number() - start >= config_.cutoff_turns) {
      cutoff_evaluation(state, config_, net, rng, out);
      return;
    }
    const bool endgame = state.bag_size() < config_.endgame_tiles && state.phase() == Phase::PlaceFigure;
    const bool no_farmer = cutoff && !config_.rollout_farmers && state.phase() == Phase::PlaceFigure;
    Action a = endgame                                   ? endgame_figure(state, rng)
               : no_farmer                               ? figure_without_farmer(state, rng)
               : config_.policy != RolloutPolicy::Greedy ? state.sample_legal_action(rng)
                                                         : greedy_rollout_action(state, config_, rng);
    state.apply_unchecked(a);
  }
  terminal_evaluation(state, config_, out);
}

}  // namespace carc
