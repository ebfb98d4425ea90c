#include "agents.h"

#include <algorithm>
#include <climits>
#include <cstdlib>
#include <optional>
#include <stdexcept>
#include <vector>

#include "mcts.h"

namespace carc {

namespace {
// feature_potential's values: a completed city scores this per tile and pennant, a complete
// cloister (itself and 8 neighbours) this in all.
constexpr double kCityPointsPerTile = 2.0;
constexpr double kCloisterPoints = 9.0;
// field_value's guesses: a field scores this per completed city next to it...
constexpr double kFieldPointsPerCity = 3.0;
// ...and an open city next to it counts (this / its open ends) of a completed one, early in the
// game; the share falls to 0 as the bag empties.
constexpr double kFieldOpenCityShare = 0.4;
}  // namespace

Action RandomAgent::choose(const State& state, Rng& rng) {
  Action buffer[kMaxActions];
  int n = state.legal_actions(buffer);
  return buffer[rng.below(uint32_t(n))];
}

namespace {
// feature_potential's term of one occupied, unfinished feature other than a field (its root
// segment): its value, to each player who leads it.
void add_led_feature(const Segment& seg, int players, std::array<double, kMaxPlayers>& potential) {
  int best = *std::max_element(seg.meeples.begin(), seg.meeples.end());
  double value = seg.type == FeatureType::City   ? kCityPointsPerTile * (seg.tiles + seg.pennants)
                 : seg.type == FeatureType::Road ? double(seg.tiles)
                                                 : kCloisterPoints - seg.open;
  for (int q = 0; q < players; ++q)
    if (seg.meeples[size_t(q)] == best) potential[size_t(q)] += value;
}
}  // namespace

std::array<double, kMaxPlayers> feature_potential(const State& state) {
  // Occupied features are those the placed figures stand on: walking the figures (tens) instead
  // of every segment (hundreds) makes this cheap enough for priors at every expansion.
  std::array<double, kMaxPlayers> potential{};
  std::array<uint64_t, kMaxSegments / 64> seen{};  // bit per root segment
  const Features& f = state.features();
  for (int i = 0; i < state.num_placed_figures(); ++i) {
    const uint16_t root = f.root(state.placed_figure(i).segment);
    const Segment& seg = f[root];
    if (seg.occupants == 0 || seg.done || seg.type == FeatureType::Field) continue;  // barns, farmers
    const uint64_t bit = uint64_t(1) << (root % 64);
    if (seen[root / 64] & bit) continue;
    seen[root / 64] |= bit;
    add_led_feature(seg, state.num_players(), potential);
  }
  return potential;
}

double field_value(const State& state, int field, double late) {
  const Features& f = state.features();
  std::array<uint16_t, 48> seen;
  int n = 0;
  double value = 0;
  f.for_each_member(field, [&](int m) {
    const Segment& member = f[m];
    const int first = m - member.local;  // the tile's first segment: a tile's segments are consecutive
    for (uint16_t cities = member.cities; cities; cities &= uint16_t(cities - 1)) {
      uint16_t city = f.root(first + __builtin_ctz(cities));
      if (std::find(seen.begin(), seen.begin() + n, city) != seen.begin() + n || n == int(seen.size())) continue;
      seen[size_t(n++)] = city;
      value +=
          f[city].open == 0 ? kFieldPointsPerCity : kFieldPointsPerCity * late * kFieldOpenCityShare / f[city].open;
    }
  });
  return value;
}

namespace {
double late_in_game(const State& state) { return std::min(1.0, state.bag_size() / kLateBagTiles); }

// field_potential's term of one field with figures (`seg`, its root segment `root`): its
// field_value, to each player who leads it with farmers.
void add_led_field(const State& state, uint16_t root, const Segment& seg, double late,
                   std::array<double, kMaxPlayers>& potential) {
  int best = *std::max_element(seg.meeples.begin(), seg.meeples.end());
  if (best == 0) return;  // a barn alone
  double value = field_value(state, root, late);
  for (int q = 0; q < state.num_players(); ++q)
    if (seg.meeples[size_t(q)] == best) potential[size_t(q)] += value;
}
}  // namespace

std::array<double, kMaxPlayers> field_potential(const State& state) {
  // As feature_potential: the fields with farmers are those the placed figures stand on.
  std::array<double, kMaxPlayers> potential{};
  std::array<uint16_t, kMaxPlacedFigures> seen;
  int num_seen = 0;
  const Features& f = state.features();
  const double late = late_in_game(state);
  for (int i = 0; i < state.num_placed_figures(); ++i) {
    const uint16_t root = f.root(state.placed_figure(i).segment);
    const Segment& seg = f[root];
    if (seg.type != FeatureType::Field || seg.occupants == 0) continue;
    if (std::find(seen.begin(), seen.begin() + num_seen, root) != seen.begin() + num_seen) continue;
    seen[size_t(num_seen++)] = root;
    add_led_field(state, root, seg, late, potential);
  }
  return potential;
}

std::array<double, kMaxPlayers> barn_potential(const State& state) {
  std::array<double, kMaxPlayers> potential{};
  const Features& f = state.features();
  const double late = late_in_game(state);
  for (int i = 0; i < state.num_placed_figures(); ++i) {
    const PlacedFigure& figure = state.placed_figure(i);
    if (figure.kind != FigureKind::Barn) continue;
    potential[size_t(figure.owner)] += field_value(state, f.root(figure.segment), late) * (4.0 / 3.0);
  }
  return potential;
}

int score_lead(const std::array<int, kMaxPlayers>& scores, int players, int p) {
  int other = INT_MIN;
  for (int q = 0; q < players; ++q)
    if (q != p) other = std::max(other, scores[size_t(q)]);
  return scores[size_t(p)] - other;
}

namespace {
// GreedyAgent::evaluate of a state not at the end, from its led features' and fields'
// potential (fields: read only when field_weight > 0) and p's meeples in supply.
double greedy_valuation(const State& state, int p, std::array<double, kMaxPlayers> potential,
                        const std::array<double, kMaxPlayers>& fields, double field_weight, int supply) {
  if (field_weight > 0) {
    // potential is weighted by kGreedyPotentialWeight below.
    for (int q = 0; q < state.num_players(); ++q)
      potential[size_t(q)] += field_weight / kGreedyPotentialWeight * fields[size_t(q)];
  }
  double mine =
      state.score(p) + kGreedyPotentialWeight * potential[size_t(p)] - kGreedyMeepleCost * (kMeeplesPerPlayer - supply);
  double other = -1e9;
  for (int q = 0; q < state.num_players(); ++q)
    if (q != p) other = std::max(other, state.score(q) + kGreedyPotentialWeight * potential[size_t(q)]);
  return mine - other;
}
}  // namespace

double GreedyAgent::evaluate(const State& state, int p, double field_weight) {
  // At the end final scoring is in the scores: figures and potential are moot.
  if (state.is_terminal()) return score_lead(state.scores_if_ended(), state.num_players(), p);
  std::array<double, kMaxPlayers> fields{};
  if (field_weight > 0) fields = field_potential(state);
  return greedy_valuation(state, p, feature_potential(state), fields, field_weight, state.supply(p));
}

namespace {
// True if the greedy valuation after figure option `a` of `placed` (a PlaceFigure node) is the
// valuation after passing with `a`'s figure added to its feature and taken from the supply:
// `a` puts a meeple, mayor or wagon onto a feature of the new tile that this tile does not
// complete, so the figure neither scores nor returns this turn, and no other rule of the turn
// looks at it (a cult place's challenge it starts has both sides unfinished: none ends this
// turn, SH-4). With tiles left in the bag the game goes on after the turn; what else may differ
// (a scored wagon finds this feature taken, an empty supply puts nothing into the City, so the
// turn may stop at another decision or none) is nothing the valuation reads.
bool valued_as_pass_with_figure(const State& placed, Action a) {
  if (a.kind() != ActionKind::Figure || a.elsewhere() || a.figure_kind() == FigureKind::Barn) return false;
  if (placed.bag_size() == 0) return false;
  const Segment& f = placed.features().feature(placed.board().tile(placed.last_slot()).first_segment + a.feature());
  if (f.type == FeatureType::Field) return f.barns == 0;  // fields score at the end (or with a barn)
  return f.open != 0;
}

// The greedy valuation (for the mover) after each figure option figures[j] of `placed`, a
// PlaceFigure node, into out[j]. The options that valued_as_pass_with_figure are valued from
// the state after "pass" without being played: the valuation differs only in their figure's
// feature and the supply. Uses `placed` as scratch: it holds another state afterwards.
void figure_values(State& placed, const Action* figures, int m, double* out, double field_weight) {
  thread_local std::optional<State> scratch;
  if (!scratch) scratch.emplace(placed);
  const int me = placed.current_player();
  bool from_pass[kMaxActions];
  int played = 0;  // options valued by playing them
  for (int j = 0; j < m; ++j) {
    from_pass[j] = figures[j].kind() == ActionKind::Pass || valued_as_pass_with_figure(placed, figures[j]);
    played += !from_pass[j];
  }
  // The state after "pass"; on `placed` itself if no option is played. With field_weight > 0
  // the options may still have to be played (same_order below).
  const bool keep_placed = played > 0 || field_weight > 0;
  State& passed = keep_placed ? *scratch : placed;
  if (keep_placed) passed.copy_from(placed);
  passed.apply_unchecked(Action::pass());
  std::array<double, kMaxPlayers> features{}, fields{};
  double pass_value;
  if (passed.is_terminal()) {
    pass_value = GreedyAgent::evaluate(passed, me, field_weight);
  } else {
    features = feature_potential(passed);
    if (field_weight > 0) fields = field_potential(passed);
    pass_value = greedy_valuation(passed, me, features, fields, field_weight, passed.supply(me));
  }
  // field_potential sums its fields in the figures' order, which a figure returned this turn
  // changes (figures swap-remove): then the options are played, for the same sums bit for bit.
  const bool same_order = field_weight == 0 || passed.num_placed_figures() == placed.num_placed_figures();
  const Features& f = passed.features();
  for (int j = 0; j < m; ++j) {
    if (!from_pass[j]) continue;
    if (figures[j].kind() == ActionKind::Pass) {
      out[j] = pass_value;
      continue;
    }
    if (!same_order) {
      from_pass[j] = false;
      ++played;
      continue;
    }
    const FigureKind kind = figures[j].figure_kind();
    const uint16_t root = f.root(passed.board().tile(passed.last_slot()).first_segment + figures[j].feature());
    Segment feature = f[root];
    count_figure(feature, me, kind);
    std::array<double, kMaxPlayers> with_features = features, with_fields = fields;
    if (feature.type != FeatureType::Field) add_led_feature(feature, passed.num_players(), with_features);
    else if (field_weight > 0) add_led_field(passed, root, feature, late_in_game(passed), with_fields);
    out[j] = greedy_valuation(passed, me, with_features, with_fields, field_weight,
                              passed.supply(me) - (kind == FigureKind::Meeple ? 1 : 0));
  }
  // The others: each played on a copy, the last on `placed` itself.
  for (int j = 0; j < m && played > 0; ++j) {
    if (from_pass[j]) continue;
    State* figured = &placed;
    if (--played > 0) {
      scratch->copy_from(placed);
      figured = &*scratch;
    }
    figured->apply_unchecked(figures[j]);
    out[j] = GreedyAgent::evaluate(*figured, me, field_weight);
  }
}

// The placements of a PlaceTile node that touch no feature with a figure but a field's farmers
// and none with a barn (join or close none), with no cloister-like that holds a figure around
// them. Such a placement scores nothing (what it completes has no figure), returns no figure,
// and leaves the features feature_potential values as they are.
class FigureFreePlacements {
 public:
  explicit FigureFreePlacements(const State& state) : state_(state) {
    const Features& f = state.features();
    for (int i = 0; i < state.num_placed_figures(); ++i) {
      const Segment& figure_on = f[state.placed_figure(i).segment];
      if (is_cloister_like(figure_on.type))
        cloisters_[size_t(num_cloisters_++)] = state.board().tile(figure_on.tile).cell;
    }
  }

  bool contains(Action a) const {
    const Cell c = a.cell();
    for (int i = 0; i < num_cloisters_; ++i)
      if (std::abs(cloisters_[size_t(i)].x - c.x) <= 1 && std::abs(cloisters_[size_t(i)].y - c.y) <= 1) return false;
    const Board& board = state_.board();
    const Features& f = state_.features();
    for (int s = 0; s < kNumSides; ++s) {
      const int slot = board.slot_at(neighbour(c, Side(s)));
      if (slot < 0) continue;
      const PlacedTile& t = board.tile(slot);
      const RotatedTile& rotated = catalogue_.kind(t.kind).rotations[t.rotation];
      for (int k = 0; k < 3; ++k) {
        const int local = rotated.segment_at[size_t(side_point(opposite(Side(s)), k))];
        if (local < 0) continue;
        const Segment& feature = f.feature(t.first_segment + local);
        if (feature.barns || (feature.occupants && feature.type != FeatureType::Field)) return false;
      }
    }
    return true;
  }

 private:
  const State& state_;
  const Catalogue& catalogue_ = Catalogue::builtin();
  std::array<Cell, kMaxPlacedFigures> cloisters_;  // the cells of cloister-likes with figures
  int num_cloisters_ = 0;
};

// True if at `state` (a decision node) every one of FigureFreePlacements leaves the
// greedy valuation without fields (field_weight 0) as it is at `state`: the mover has no figure
// to place (no figure decision follows), the tile has no arrow (XX-2 scores one), and tiles
// are left in the bag (the game goes on). Then such a placement changes only what the
// valuation does not read: the features without figures, the board, the turn.
bool placements_without_figures_keep_value(const State& state, double field_weight) {
  if (field_weight != 0 || state.phase() != Phase::PlaceTile || state.bag_size() == 0) return false;
  for (int kind = 0; kind < kNumFigureKinds; ++kind)
    if (state.supply(state.current_player(), FigureKind(kind))) return false;
  return Catalogue::builtin().kind(state.drawn_tile()).arrow == ArrowKind::None;
}
}  // namespace

void greedy_values(const State& state, const Action* actions, int n, double* values, double field_weight) {
  // As one_ply_values with GreedyAgent::evaluate, but a figure decision's options are valued by
  // figure_values (most without playing them), and placements that change nothing the valuation
  // reads are not played.
  thread_local std::optional<State> next_scratch;
  auto refilled = [&]() -> State& {
    if (next_scratch) next_scratch->copy_from(state);
    else next_scratch.emplace(state);
    return *next_scratch;
  };
  if (state.phase() == Phase::PlaceFigure) return figure_values(refilled(), actions, n, values, field_weight);
  const int me = state.current_player();
  std::optional<FigureFreePlacements> keep_value;
  if (placements_without_figures_keep_value(state, field_weight)) keep_value.emplace(state);
  std::optional<double> value_now;
  for (int i = 0; i < n; ++i) {
    if (keep_value && keep_value->contains(actions[i])) {
      if (!value_now) value_now = GreedyAgent::evaluate(state, me, field_weight);
      values[i] = *value_now;
      continue;
    }
    State& next = refilled();
    next.apply_unchecked(actions[i]);
    if (next.current_player() == me && next.phase() == Phase::PlaceFigure) {
      Action figures[kMaxActions];
      double figure_value[kMaxActions];
      int m = next.legal_actions(figures);
      figure_values(next, figures, m, figure_value, field_weight);
      values[i] = *std::max_element(figure_value, figure_value + m);
    } else {
      values[i] = GreedyAgent::evaluate(next, me, field_weight);
    }
  }
}

Action greedy_action(const State& state, Rng& rng) {
  Action buffer[kMaxActions];
  double values[kMaxActions];
  int n = state.legal_actions(buffer);
  greedy_values(state, buffer, n, values);
  double best = -1e18;
  Action choice = buffer[0];
  int ties = 0;
  for (int i = 0; i < n; ++i) {
    if (values[i] > best + 1e-9) {
      best = values[i];
      choice = buffer[i];
      ties = 1;
    } else if (values[i] > best - 1e-9 && rng.below(uint32_t(++ties)) == 0) {
      choice = buffer[i];  // reservoir sampling: uniform among the ties
    }
  }
  return choice;
}

Action GreedyAgent::choose(const State& state, Rng& rng) { return greedy_action(state, rng); }

namespace {
void no_options(const std::string& name, const std::string& options) {
  if (!options.empty()) throw SearchError("agent '" + name + "' takes no options (got '" + options + "')");
}

std::string trimmed(const std::string& s) {
  size_t first = s.find_first_not_of(" \t"), last = s.find_last_not_of(" \t");
  return first == std::string::npos ? "" : s.substr(first, last - first + 1);
}

// The keys of comma-separated key=value options, in order.
std::vector<std::string> option_keys_of(const std::string& options) {
  std::vector<std::string> keys;
  for (size_t pos = 0; pos < options.size();) {
    size_t comma = std::min(options.find(',', pos), options.size());
    std::string item = options.substr(pos, comma - pos);
    keys.push_back(item.substr(0, item.find('=')));
    pos = comma + 1;
  }
  return keys;
}

bool contains(const std::vector<std::string>& list, const std::string& s) {
  return std::find(list.begin(), list.end(), s) != list.end();
}
}  // namespace

const ReferencePlayer* find_reference_player(const std::string& name) {
  for (const ReferencePlayer& r : kReferencePlayers)
    if (name == r.name) return &r;
  return nullptr;
}

std::string reference_options(const std::string& name, const std::string& options) {
  const ReferencePlayer* reference = find_reference_player(name);
  if (!reference) throw SearchError("unknown reference player '" + name + "'");
  std::vector<std::string> given = option_keys_of(options);
  for (const std::string& key : given) {
    if (contains(kReferenceFreeOptions, key)) continue;
    std::string free;
    for (const std::string& k : kReferenceFreeOptions) free += (free.empty() ? "" : ", ") + k;
    throw SearchError("agent '" + name + "' pins its playing options; only the budget and resources may be set (" +
                      free + "), got '" + key + "'");
  }
  // The pinned options the caller does not set; a time or iteration budget replaces iters.
  const std::string pinned = reference->options;
  std::string merged;
  for (size_t pos = 0; pos < pinned.size();) {
    size_t comma = std::min(pinned.find(',', pos), pinned.size());
    std::string key_value = pinned.substr(pos, comma - pos);
    pos = comma + 1;
    std::string key = key_value.substr(0, key_value.find('='));
    bool replaced = contains(given, key) || (key == "iters" && contains(given, "time"));
    if (!replaced) merged += (merged.empty() ? "" : ",") + key_value;
  }
  return options.empty() ? merged : merged + "," + options;
}

std::unique_ptr<Agent> make_agent(const std::string& spec) {
  size_t colon = spec.find(':');
  std::string name = spec.substr(0, colon);
  std::string options = colon == std::string::npos ? "" : spec.substr(colon + 1);
  if (name == "random") return no_options(name, options), std::make_unique<RandomAgent>();
  if (name == "greedy") return no_options(name, options), std::make_unique<GreedyAgent>();
  if (name == "mcts") return std::make_unique<MctsAgent>(parse_mcts_options(options));
  if (find_reference_player(name))
    return std::make_unique<MctsAgent>(parse_mcts_options(reference_options(name, options)));
  std::string known = "random, greedy, mcts";
  for (const ReferencePlayer& r : kReferencePlayers) known += std::string(", ") + r.name;
  throw SearchError("unknown agent '" + name + "' (known: " + known + ")");
}

std::vector<std::string> split_agent_list(const std::string& list) {
  std::vector<std::string> agents;
  size_t pos = 0;
  do {
    size_t comma = std::min(list.find(',', pos), list.size());
    std::string item = trimmed(list.substr(pos, comma - pos));
    pos = comma + 1;
    if (item.empty()) throw SearchError("agent list '" + list + "': an empty agent name");
    bool option = item.find('=') != std::string::npos && item.find(':') == std::string::npos;
    if (!option) {
      agents.push_back(item);
    } else if (agents.empty() || agents.back().find(':') == std::string::npos) {
      throw SearchError("agent list '" + list + "': option '" + item + "' follows " +
                        (agents.empty() ? "no agent" : "'" + agents.back() + "', which has no options") +
                        " (options follow a colon: mcts:key=value,...)");
    } else {
      agents.back() += "," + item;
    }
  } while (pos <= list.size());
  return agents;
}

}  // namespace carc
