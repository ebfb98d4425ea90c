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
    for (int p = 0; p < scoring_.pending.size(); ++p) features_[scoring_.pending[p]].done = 1;
    scoring_.pending.clear();
  }
}

void State::begin_game_end() {
  // CK-6: market meeples go to fields, one per player in turn, from the left of the last placer.
  if (rules_.count && city_.count != uint8_t(Quarter::Market)) {
    next_market_player(turn_.last_placer + 1);
    if (turn_.phase == Phase::MarketMove) return;
  }
  final_scoring();
  turn_.phase = Phase::GameOver;  // figures left in the City score nothing
}

void State::next_market_player(int from) {
  for (int i = 0; i < rules_.players; ++i) {
    int p = (from + i) % rules_.players;
    if (city_.quarters[p][int(Quarter::Market)][0]) {
      city_.market_player = uint8_t(p);
      turn_.phase = Phase::MarketMove;
      return;
    }
  }
  turn_.phase = Phase::GameOver;  // the caller scores
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
  ++city_.quarters[player][int(q)][int(kind)];
}

uint16_t State::item_root() const {
  return features_.root(scoring_.next < scoring_.pending.size()
                            ? scoring_.pending[scoring_.next]
                            : scoring_.barn_fields[scoring_.next - scoring_.pending.size()].root);
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
  if (uint8_t(q) == city_.count) return false;  // the Count blocks his quarter
  // CK-5: a barn scoring is an occasion only if the field holds a farmer before any move.
  if (scoring_.city_step == 0 && scoring_.next >= scoring_.pending.size() && !features_[item_root()].occupants)
    return false;
  // CK-4: clockwise from the player after the active one, ending with the active one.
  for (; scoring_.city_step < rules_.players; ++scoring_.city_step) {
    int p = (turn_.player + 1 + scoring_.city_step) % rules_.players;
    const auto& figures = city_.quarters[p][int(q)];
    if (figures[0] + figures[1] + figures[2]) {
      turn_.phase = Phase::CityMove;
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
    if (!city_.quarters[p][int(q)][k]) continue;
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
  const int p = turn_.player;
  if (!rules_.count || !scoring_.scored || (scoring_.moved_out >> p & 1) || scores_[p] != scoring_.start_scores[p])
    return 0;
  bool other_gained = false;
  for (int q = 0; q < rules_.players; ++q) other_gained |= q != p && scores_[q] > scoring_.start_scores[q];
  if (!other_gained) return 0;
  int n = 0;
  for (int q = 0; q < kNumQuarters; ++q)
    for (FigureKind kind : {FigureKind::Meeple, FigureKind::Mayor, FigureKind::Wagon})
      if (supply_[p][int(kind)] && may_enter(kind, Quarter(q))) out[n++] = Action::enter_city(kind, Quarter(q));
  return n;
}

void State::end_of_phase3() {
  Action buffer[kMaxActions];
  if (rules_.count && city_place_options(buffer) > 0) {
    turn_.phase = Phase::CityPlace;
    return;
  }
  finish_turn();
}

void State::move_from_city(Action a) {
  int p = current_player();
  if (a.kind() == ActionKind::Figure) {
    Quarter q = item_quarter();
    const PlacedTile& t = board_.tile(board_.slot_at(a.figure_cell()));
    --city_.quarters[p][int(q)][int(a.figure_kind())];
    add_figure(p, a.figure_kind(), uint16_t(t.first_segment + a.feature()), false);
    scoring_.moved_out |= uint8_t(1u << p);
    const auto& left = city_.quarters[p][int(q)];
    if (left[0] + left[1] + left[2] == 0) ++scoring_.city_step;  // nothing more to move
  } else {
    ++scoring_.city_step;
  }
  continue_scoring();
}

void State::place_in_city(Action a) {
  if (a.kind() == ActionKind::Quarter) {
    enter_quarter(turn_.player, a.figure_kind(), a.quarter());
    switch (rules_.count_move) {  // CK-7
      case Rules::CountMove::Free: turn_.phase = Phase::CountMove; return;
      case Rules::CountMove::Clockwise: city_.count = uint8_t((city_.count + 1) % kNumQuarters); break;
      case Rules::CountMove::Follow: city_.count = uint8_t(a.quarter()); break;
    }
  }
  finish_turn();
}

void State::move_from_market(Action a) {
  int p = city_.market_player;
  const PlacedTile& t = board_.tile(board_.slot_at(a.figure_cell()));
  uint16_t seg = uint16_t(t.first_segment + a.feature());
  --city_.quarters[p][int(Quarter::Market)][0];
  add_figure(p, FigureKind::Meeple, seg, false);
  uint16_t root = features_.root(seg);
  if (features_[root].barns) {  // scored at once and alone: 1 per completed city (+ pigs)
    std::array<int, kMaxPlayers> strength{};
    strength[p] = 1;
    tallied(ScoringKind::BarnField, root, false, [&](auto& tally) {
      count_fed_cities(root, 1, features_[root].pig, tally);
      award(strength, tally, Cause::FieldBarn);
    });
    return_figures(root);
  }
  next_market_player(p + 1);
  if (turn_.phase == Phase::GameOver) final_scoring();
}

}  // namespace carc
