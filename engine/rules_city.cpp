// The City of Carcassonne and the Count (RULES CK).
#include <algorithm>
#include <bitset>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

void State::lay_city_block() {
  // CK-1: the 12 squares in their 4 x 3 grid, CO1 at the origin; their roads and small cities
  // are open features like any other.
  std::vector<KindId> squares = catalogue().set_kinds("count-city");
  for (size_t i = 0; i < squares.size(); ++i) {
    put_tile(Cell{int16_t(i % 4), int16_t(i / 4)}, squares[i], 0);
    for (int p = 0; p < num_pending_; ++p) features_[pending_[p]].done = 1;
    num_pending_ = 0;
  }
}

void State::begin_game_end() {
  // CK-6: market meeples go to fields, one per player in turn, from the left of the last placer.
  if (rules_.count && count_ != uint8_t(Quarter::Market)) {
    next_market_player(last_placer_ + 1);
    if (phase_ == Phase::MarketMove) return;
  }
  final_scoring();
  phase_ = Phase::GameOver;  // figures left in the City score nothing
}

void State::next_market_player(int from) {
  for (int i = 0; i < rules_.players; ++i) {
    int p = (from + i) % rules_.players;
    if (quarters_[p][int(Quarter::Market)][0]) {
      market_player_ = uint8_t(p);
      phase_ = Phase::MarketMove;
      return;
    }
  }
  phase_ = Phase::GameOver;  // the caller scores
}

int State::market_options(Action* out) const {
  // One choice per field (where on it the farmer stands changes nothing), at its oldest segment.
  std::bitset<kMaxSegments> seen;
  int n = 0;
  for (int s = 0; s < features_.size(); ++s) {
    if (features_[s].type != FeatureType::Field || seen.test(features_[s].root)) continue;
    seen.set(features_[s].root);
    out[n++] = Action::figure_at(FigureKind::Meeple, features_[s].local, board_.tile(features_[s].tile).cell);
  }
  return n;
}

void State::enter_quarter(int player, FigureKind kind, Quarter q) {
  --supply_[player][int(kind)];
  ++quarters_[player][int(q)][int(kind)];
}

uint16_t State::item_root() const {
  return features_.root(scoring_next_ < num_pending_ ? pending_[scoring_next_]
                                                     : barn_fields_[scoring_next_ - num_pending_]);
}

Quarter State::item_quarter() const {
  FeatureType t = features_[item_root()].type;
  return t == FeatureType::City    ? Quarter::Castle
         : t == FeatureType::Road  ? Quarter::Blacksmith
         : t == FeatureType::Field ? Quarter::Market
                                   : Quarter::Cathedral;
}

bool State::start_city_round() {
  Quarter q = item_quarter();
  if (uint8_t(q) == count_) return false;  // the Count blocks his quarter
  // CK-5: a barn scoring is an occasion only if the field holds a farmer before any move.
  if (city_step_ == 0 && scoring_next_ >= num_pending_ && !features_[item_root()].occupants) return false;
  // CK-4: clockwise from the player after the active one, ending with the active one.
  for (; city_step_ < rules_.players; ++city_step_) {
    int p = (turn_player_ + 1 + city_step_) % rules_.players;
    const auto& figures = quarters_[p][int(q)];
    if (figures[0] + figures[1] + figures[2]) {
      phase_ = Phase::CityMove;
      return true;
    }
  }
  return false;
}

int State::city_move_options(Action* out) const {
  // A meeple or mayor moved onto the feature returns after its scoring wherever it stood: one
  // choice, at the feature's oldest segment. A wagon then moves on from its tile (AM-W-2): one
  // choice per tile.
  int n = 0;
  int p = current_player();
  Quarter q = item_quarter();
  const uint16_t root = item_root();
  int oldest = root;
  features_.for_each_member(root, [&](int m) { oldest = std::min(oldest, m); });
  for (int k = 0; k < 3; ++k) {
    if (!quarters_[p][int(q)][k]) continue;
    features_.for_each_member(root, [&](int m) {
      if (FigureKind(k) == FigureKind::Wagon ? !first_on_its_tile(uint16_t(m)) : m != oldest) return;
      out[n++] = Action::figure_at(FigureKind(k), features_[m].local, board_.tile(features_[m].tile).cell);
    });
  }
  return n;
}

int State::city_place_options(Action* out) const {
  // CK-3: a scoring this phase, someone else gained, the active player gained nothing and took
  // nothing out of the City.
  const int p = turn_player_;
  if (!rules_.count || !phase3_scored_ || (moved_out_ >> p & 1) || scores_[p] != phase3_start_[p]) return 0;
  bool other_gained = false;
  for (int q = 0; q < rules_.players; ++q) other_gained |= q != p && scores_[q] > phase3_start_[q];
  if (!other_gained) return 0;
  int n = 0;
  for (int q = 0; q < kNumQuarters; ++q)
    for (FigureKind kind : {FigureKind::Meeple, FigureKind::Mayor, FigureKind::Wagon})
      if (supply_[p][int(kind)] && may_enter(kind, Quarter(q))) out[n++] = Action::enter_city(kind, Quarter(q));
  return n;
}

void State::end_of_phase3() {
  Action buffer[kMaxActions];
  if (city_place_options(buffer) > 0) {
    phase_ = Phase::CityPlace;
    return;
  }
  finish_turn();
}

}  // namespace carc
