#include "game.h"

#include <algorithm>
#include <cassert>
#include <charconv>
#include <cstring>
#include <set>
#include <sstream>
#include <tuple>

#include "game_internal.h"

namespace carc {

using namespace internal;

const Catalogue& internal::g_catalogue = Catalogue::builtin();

const char* figure_kind_name(FigureKind f) {
  static constexpr const char* kNames[] = {"meeple", "mayor", "wagon", "barn"};
  return int(f) < kNumFigureKinds ? kNames[int(f)] : "figure?";
}

const char* phase_name(Phase p) {
  static constexpr const char* kNames[] = {"draw",       "abbey or tile", "place tile",  "arrow choice",
                                           "place figure", "city move",  "wagon move",    "city place",
                                           "count move",   "market move", "game over"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(Phase::GameOver) + 1);
  return kNames[int(p)];
}

// ---- Set-up ---------------------------------------------------------------------------------

State::State(const Config& raw) {
  Config config = validate(raw);
  init(config);
  const Catalogue& cat = catalogue();
  KindId start = 0;
  for (const TileKind& k : cat.kinds())
    if (rules_.river ? has_mark(k, "spring") : k.is_start) start = k.id;
  if (rules_.city_block) {
    lay_city_block();
  } else {
    put_tile(Cell{0, 0}, start, 0);
  }
  if (rules_.river) extend_river(Cell{0, 0}, cat.kind(start), 0);
  num_pending_ = 0;
  if (!fixed_order_) {
    std::vector<bool> enabled;
    for (const std::string& set : cat.sets()) enabled.push_back(enabled_set(config, set));
    for (const TileKind& k : cat.kinds()) {
      if (!enabled[k.set_index]) continue;
      if (k.river_sides && rules_.river && k.id != start) {
        for (int i = 0; i < k.count; ++i) river_[river_size_++] = k.id;
        bag_count_[k.id] = uint8_t(k.count);
      }
      if (!bag_tile(config, k)) continue;
      // The start tile goes back to the box when River II starts the game (CK-0).
      int copies = k.count - (k.is_start ? 1 : 0);
      for (int i = 0; i < copies; ++i) bag_[bag_size_++] = k.id;
      bag_count_[k.id] = uint8_t(copies);
    }
  }
  start_turn();
}

void State::init(const Config& config) {
  rules_.players = uint8_t(config.players);
  rules_.abbey_mayor = has_expansion(config, "abbey-mayor");
  const std::string& endgame = config.variants.at("abbey_endgame");
  rules_.abbey_endgame = endgame == "final_round" ? AbbeyEndgame::FinalRound
                         : endgame == "none"      ? AbbeyEndgame::None
                                                  : AbbeyEndgame::Mandatory;
  rules_.wagon_move = config.variants.at("wagon_move") == "c1" ? WagonRule::C1 : WagonRule::C2;
  rules_.anniv20 = has_expansion(config, "anniv20");
  rules_.king_robber = has_expansion(config, "king-robber");
  rules_.shrines = has_expansion(config, "shrines");
  rules_.river = has_expansion(config, "river2");
  rules_.city_block = has_expansion(config, "city");
  rules_.count = rules_.city_block && config.variants.at("start") == "city";
  const std::string& count_move = config.variants.at("count_move");
  rules_.count_move = count_move == "clockwise" ? Rules::CountMove::Clockwise
                      : count_move == "follow"  ? Rules::CountMove::Follow
                                                : Rules::CountMove::Free;
  count_ = uint8_t(Quarter::Castle);
  seed_ = config.seed;
  rng_.reseed(config.seed);
  board_.clear();
  features_.clear();
  const Catalogue& cat = catalogue();
  for (const TileKind& k : cat.kinds())
    if (is_abbey(k)) abbey_kind_ = k.id;
  uint8_t extra = rules_.abbey_mayor ? 1 : 0;
  for (int p = 0; p < rules_.players; ++p) {
    supply_[p] = {kMeeplesPerPlayer, extra, extra, extra};
    abbeys_[p] = extra;
  }
  fixed_order_ = !config.draw_order.empty();
  for (auto it = config.draw_order.rbegin(); it != config.draw_order.rend(); ++it) {
    KindId k = cat.find(*it);
    bag_[bag_size_++] = k;
    ++bag_count_[k];
  }
}

// ---- Placing tiles and figures ---------------------------------------------------------------

void State::add_pending(uint16_t root) {
  for (int i = 0; i < num_pending_; ++i)
    if (pending_[i] == root) return;
  assert(num_pending_ < int(pending_.size()));
  pending_[num_pending_++] = root;
}

void State::put_tile(Cell c, KindId kind_id, int rotation) {
  const TileKind& kind = catalogue().kind(kind_id);
  const RotatedTile& rt = kind.rotations[rotation];
  int slot = board_.num_tiles();
  uint16_t first = features_.add_tile(slot, kind, rt);
  board_.place(c, kind_id, rotation, first, rt);
  last_slot_ = int16_t(slot);

  for (int s = 0; s < kNumSides; ++s) {
    int ns = board_.slot_at(neighbour(c, Side(s)));
    if (ns < 0) continue;
    const PlacedTile& nt = board_.tile(ns);
    const RotatedTile& nr = rotated(nt);
    for (int k = 0; k < 3; ++k) {
      int p = side_point(Side(s), k);
      int a = rt.segment_at[p], b = nr.segment_at[facing_point(p)];
      if (a >= 0 && b >= 0) features_.merge(uint16_t(first + a), uint16_t(nt.first_segment + b));
    }
    // The sides meet: each road/city end there is closed (an abbey closes without joining).
    int mid = side_point(Side(s), 1);
    int a = rt.segment_at[mid], b = nr.segment_at[facing_point(mid)];
    if (a >= 0) --features_.feature(first + a).open;
    if (b >= 0) {  // the neighbour's feature may be closed by an abbey, which has no segment there
      uint16_t root = features_.root(nt.first_segment + b);
      if (--features_[root].open == 0 && features_[root].type != FeatureType::River) add_pending(root);
    }
  }

  // Cloister-like features around the new tile gain a neighbour.
  for (int i = 0; i < num_open_cloisters_;) {
    uint16_t seg = open_cloisters_[i];
    Cell at = board_.tile(features_[seg].tile).cell;
    if (std::abs(at.x - c.x) <= 1 && std::abs(at.y - c.y) <= 1 && --features_[seg].open == 0) {
      add_pending(seg);
      open_cloisters_[i] = open_cloisters_[--num_open_cloisters_];
    } else {
      ++i;
    }
  }
  if (kind.cloister_segment >= 0) {
    uint16_t seg = uint16_t(first + kind.cloister_segment);
    int empty = 0;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx)
        if ((dx || dy) && !board_.occupied(Cell{int16_t(c.x + dx), int16_t(c.y + dy)})) ++empty;
    features_[seg].open = uint16_t(empty);
    if (empty == 0) {
      add_pending(seg);
    } else {
      assert(num_open_cloisters_ < open_cloisters_.size());
      open_cloisters_[num_open_cloisters_++] = seg;
    }
  }
  for (int i = 0; i < kind.num_segments; ++i) {
    uint16_t root = features_.root(first + i);
    const Segment& f = features_[root];
    if ((f.type == FeatureType::Road || f.type == FeatureType::City) && f.open == 0) add_pending(root);
    // AM-B-5: this tile joined a field with farmers to a field with a barn.
    if (f.type == FeatureType::Field && f.barns && f.occupants) {
      bool listed = false;
      for (int j = 0; j < num_barn_fields_; ++j) listed |= barn_fields_[j] == root;
      if (!listed) {
        barn_fields_[num_barn_fields_] = root;
        barn_field_points_[num_barn_fields_++] = 1;
      }
    }
  }
}

void State::enter_figure_phase() {
  phase_ = Phase::PlaceFigure;
  Action buffer[kMaxActions];
  if (figure_options(buffer) == 0) after_figure();
}

bool State::placeable(KindId kind_id) const {
  const TileKind& kind = catalogue().kind(kind_id);
  if (kind.river_sides) {
    Action buffer[kMaxActions];
    return river_placements(kind, buffer) > 0;
  }
  const bool limited = rules_.shrines && kind.cloister_segment >= 0;
  for (int i = 0; i < kind.num_distinct_rotations; ++i) {
    int r = kind.distinct_rotations[i];
    if (!limited) {
      if (board_.fits_anywhere(kind.rotations[r].signature)) return true;
      continue;
    }
    bool found = false;
    board_.for_each_fit(kind.rotations[r].signature, [&](int f) { found |= cult_limit_ok(board_.frontier_cell(f), kind); });
    if (found) return true;
  }
  return false;
}

void State::add_figure(int player, FigureKind kind, uint16_t segment, bool from_supply) {
  assert(num_figures_ < kMaxPlacedFigures);
  figures_[num_figures_++] = PlacedFigure{segment, uint8_t(player), kind};
  if (from_supply) {
    assert(supply_[player][int(kind)] > 0);
    --supply_[player][int(kind)];
  }
  Segment& f = features_.feature(segment);
  switch (kind) {
    case FigureKind::Meeple:
    case FigureKind::Wagon:
      ++f.occupants;
      ++f.meeples[player];
      break;
    case FigureKind::Mayor:
      ++f.occupants;
      f.mayors |= uint8_t(1u << player);
      break;
    case FigureKind::Barn:
      ++f.barns;
      break;
  }
  if (rules_.shrines && is_cloister_like(f.type)) start_challenges(segment);
}

bool State::first_on_its_tile(uint16_t s) const {
  const Segment& seg = features_[s];
  for (int o = s - seg.local; o < s; ++o)  // the tile's segments are consecutive
    if (features_[o].root == seg.root) return false;
  return true;
}

int State::figure_options(Action* out) const {
  int n = 0;
  const int p = turn_player_;
  const auto& supply = supply_[p];
  const PlacedTile& t = board_.tile(last_slot_);
  const int segments = catalogue().kind(t.kind).num_segments;
  for (int i = 0; i < segments; ++i) {
    FeatureType type = features_[t.first_segment + i].type;
    if (!can_hold_figure(type)) continue;
    const Segment& f = features_.feature(t.first_segment + i);
    if (f.occupants || !first_on_its_tile(uint16_t(t.first_segment + i))) continue;
    if (supply[int(FigureKind::Meeple)] && !(type == FeatureType::Field && f.barns)) out[n++] = Action::figure(FigureKind::Meeple, i);
    if (supply[int(FigureKind::Mayor)] && type == FeatureType::City) out[n++] = Action::figure(FigureKind::Mayor, i);
    if (supply[int(FigureKind::Wagon)] && type != FeatureType::Field) out[n++] = Action::figure(FigureKind::Wagon, i);
  }
  if (supply[int(FigureKind::Barn)]) {
    // A barn stands on the field at its corner; two corners on one field are one choice (the
    // barn scores its field, AM-B-6), offered at the first of them.
    uint16_t offered[4];
    int num_offered = 0;
    for (int corner = 0; corner < 4; ++corner) {
      uint16_t field;
      if (!barn_corner_ok(t.cell, corner, &field) || features_.feature(field).barns) continue;
      field = features_.root(field);
      if (std::find(offered, offered + num_offered, field) != offered + num_offered) continue;
      offered[num_offered++] = field;
      out[n++] = Action::figure(FigureKind::Barn, corner);
    }
  }
  if (active_arrow_ == ArrowKind::MeepleBeside || active_arrow_ == ArrowKind::PlaceAnywhere) n += arrow_figure_options(out + n);
  return n;
}

// ---- Turn flow -------------------------------------------------------------------------------

void State::start_turn() {
  const int players = rules_.players;
  if (bag_size_ + river_size_ > 0) {
    phase_ = rules_.abbey_mayor && abbeys_[turn_player_] && has_hole() ? Phase::AbbeyChoice : Phase::Draw;
    return;
  }
  // The bag is empty: the abbey endgame (AM-A-5), then the end.
  if (rules_.abbey_mayor && has_hole()) {
    if (rules_.abbey_endgame == AbbeyEndgame::Mandatory) {
      for (int i = 0; i < players; ++i) {
        int p = (turn_player_ + i) % players;
        if (abbeys_[p]) {
          turn_player_ = uint8_t(p);
          phase_ = Phase::AbbeyChoice;
          return;
        }
      }
    } else if (rules_.abbey_endgame == AbbeyEndgame::FinalRound) {
      // Each player once, from the one left of the last tile's placer (not always the player on
      // turn: an unplaceable last tile is drawn and discarded by the next, B-4).
      if (endgame_ == 0) {
        endgame_ = uint8_t(players + 1);
        if (last_placer_ >= 0) turn_player_ = uint8_t((last_placer_ + 1) % players);
      }
      while (--endgame_ > 0) {
        if (abbeys_[turn_player_]) {
          phase_ = Phase::AbbeyChoice;
          return;
        }
        turn_player_ = uint8_t((turn_player_ + 1) % players);
      }
    }
  }
  begin_game_end();
}

void State::finish_turn() {
  // XX-6 and RV-6: one more full turn, never a third in a row (the volcano lake's extra turn
  // counts too, RULES 5.5); an arrow gives none once the bag is empty.
  bool again = !in_extra_turn_ && (volcano_turn_ || (extra_turn_ && bag_size_ + river_size_ > 0));
  in_extra_turn_ = again;
  extra_turn_ = false;
  volcano_turn_ = false;
  active_arrow_ = ArrowKind::None;
  if (!again) turn_player_ = uint8_t((turn_player_ + 1) % rules_.players);
  ++turn_number_;
  start_turn();
}

void State::remove_from_bag(KindId kind) {
  assert(bag_count_[kind] > 0);
  for (int i = 0; i < river_size_; ++i)
    if (river_[i] == kind) {
      river_[i] = river_[--river_size_];
      --bag_count_[kind];
      return;
    }
  int i = bag_size_ - 1;
  if (!fixed_order_)
    while (bag_[i] != kind) --i;
  assert(bag_[i] == kind);
  bag_[i] = bag_[bag_size_ - 1];
  --bag_size_;
  --bag_count_[kind];
}

void State::apply_unchecked(Action a) {
  switch (phase_) {
    case Phase::Draw: {
      KindId kind = KindId(a.tile_kind());
      remove_from_bag(kind);
      if (!placeable(kind)) {  // B-4: out of the game, draw again
        ++discarded_;
        if (bag_size_ + river_size_ == 0) start_turn();
        return;
      }
      drawn_ = kind;
      phase_ = Phase::PlaceTile;
      return;
    }
    case Phase::AbbeyChoice:
      if (a.kind() == ActionKind::TakeTile) {
        phase_ = Phase::Draw;
        return;
      }
      if (a.kind() == ActionKind::Pass) {  // declined in the final round
        finish_turn();
        return;
      }
      put_tile(a.cell(), abbey_kind_, 0);
      last_placer_ = int8_t(turn_player_);
      --abbeys_[turn_player_];
      drawn_ = abbey_kind_;
      after_placement(a.cell());
      return;
    case Phase::PlaceTile: {
      put_tile(a.cell(), drawn_, a.rotation());
      last_placer_ = int8_t(turn_player_);
      const TileKind& kind = catalogue().kind(drawn_);
      if (kind.river_sides) {
        extend_river(a.cell(), kind, a.rotation());
        if (has_mark(kind, "volcano")) {  // RV-6: no figure, and another turn at once
          volcano_turn_ = true;
          phase_ = Phase::PlaceFigure;
          after_figure();
          return;
        }
      }
      after_placement(a.cell());
      return;
    }
    case Phase::ArrowChoice: {
      int chosen = board_.slot_at(a.cell());
      for (int i = 0; i < num_arrow_candidates_; ++i) set_arrow_armed(arrow_candidates_[i], false);  // the others are lost
      num_arrow_candidates_ = 0;
      activate_arrow(chosen);
      enter_figure_phase();
      return;
    }
    case Phase::PlaceFigure:
      if (a.kind() == ActionKind::Figure && a.elsewhere()) {  // XX-4 or XX-5: a normal meeple
        const PlacedTile& t = board_.tile(board_.slot_at(a.figure_cell()));
        uint16_t seg = uint16_t(t.first_segment + a.feature());
        if (active_arrow_ == ArrowKind::MeepleBeside) {
          for (int i = 0; i < num_figures_; ++i) {
            PlacedFigure& partner = figures_[i];
            if (partner.segment == seg && partner.owner == turn_player_ && !partner.paired && partner.kind != FigureKind::Barn) {
              partner.paired = true;
              break;
            }
          }
        }
        add_figure(turn_player_, FigureKind::Meeple, seg, true);
        if (active_arrow_ == ArrowKind::MeepleBeside) figures_[num_figures_ - 1].paired = true;
      } else if (a.kind() == ActionKind::Figure) {
        const PlacedTile& t = board_.tile(last_slot_);
        FigureKind kind = a.figure_kind();
        uint16_t seg = uint16_t(t.first_segment + a.feature());
        if (kind == FigureKind::Barn) {
          barn_corner_ok(t.cell, a.feature(), &seg);
          if (features_.feature(seg).occupants) {  // AM-B-3: the farmers score now
            barn_fields_[num_barn_fields_] = features_.root(seg);
            barn_field_points_[num_barn_fields_++] = 3;
          }
        }
        add_figure(turn_player_, kind, seg, true);
      }
      after_figure();
      return;
    case Phase::WagonMove: {
      WagonToMove wagon = wagons_[0];
      std::copy(wagons_.begin() + 1, wagons_.begin() + num_wagons_, wagons_.begin());
      --num_wagons_;
      if (a.kind() == ActionKind::Figure) {
        const PlacedTile& t = board_.tile(board_.slot_at(a.figure_cell()));
        add_figure(wagon.owner, FigureKind::Wagon, uint16_t(t.first_segment + a.feature()), false);
      } else {
        ++supply_[wagon.owner][int(FigureKind::Wagon)];
      }
      next_wagon();
      return;
    }
    case Phase::CityMove: {
      int p = current_player();
      if (a.kind() == ActionKind::Figure) {
        Quarter q = item_quarter();
        const PlacedTile& t = board_.tile(board_.slot_at(a.figure_cell()));
        --quarters_[p][int(q)][int(a.figure_kind())];
        add_figure(p, a.figure_kind(), uint16_t(t.first_segment + a.feature()), false);
        moved_out_ |= uint8_t(1u << p);
        const auto& left = quarters_[p][int(q)];
        if (left[0] + left[1] + left[2] == 0) ++city_step_;
      } else {
        ++city_step_;
      }
      continue_scoring();
      return;
    }
    case Phase::CityPlace:
      if (a.kind() == ActionKind::Quarter) {
        enter_quarter(turn_player_, a.figure_kind(), a.quarter());
        switch (rules_.count_move) {  // CK-7
          case Rules::CountMove::Free:
            phase_ = Phase::CountMove;
            return;
          case Rules::CountMove::Clockwise:
            count_ = uint8_t((count_ + 1) % kNumQuarters);
            break;
          case Rules::CountMove::Follow:
            count_ = uint8_t(a.quarter());
            break;
        }
      }
      finish_turn();
      return;
    case Phase::CountMove:
      count_ = uint8_t(a.quarter());
      finish_turn();
      return;
    case Phase::MarketMove: {
      int p = market_player_;
      const PlacedTile& t = board_.tile(board_.slot_at(a.figure_cell()));
      uint16_t seg = uint16_t(t.first_segment + a.feature());
      --quarters_[p][int(Quarter::Market)][0];
      add_figure(p, FigureKind::Meeple, seg, false);
      uint16_t root = features_.root(seg);
      if (features_[root].barns) {  // scored at once and alone: 1 per completed city (+ pigs)
        std::array<int, kMaxPlayers> strength{};
        strength[p] = 1;
        award(strength, (1 + features_[root].pig) * completed_cities_touching(root), Cause::FieldBarn);
        return_figures(root);
      }
      next_market_player(p + 1);
      if (phase_ == Phase::GameOver) final_scoring();
      return;
    }
    case Phase::GameOver:
      assert(false);
      return;
  }
}

Action State::sample_chance() {
  if (phase_ != Phase::Draw) throw IllegalActionError("sample_chance: this node is not a draw");
  if (river_size_ > 0) {  // RV-3: the fork first, the volcano lake last, the others shuffled
    Action options[16];
    int n = legal_actions(options);
    return options[n == 1 ? 0 : rng_.below(uint32_t(n))];
  }
  KindId kind = fixed_order_ ? bag_[bag_size_ - 1] : bag_[rng_.below(uint32_t(bag_size_))];
  return Action::draw(kind);
}

Action State::sample_legal_action(Rng& rng) const {
  const TileKind& drawn = catalogue().kind(drawn_);
  if (phase_ == Phase::PlaceTile && !(rules_.shrines && drawn.cloister_segment >= 0) && !drawn.river_sides) {
    const TileKind& kind = catalogue().kind(drawn_);
    std::array<int, 4> counts{};
    int total = 0;
    for (int i = 0; i < kind.num_distinct_rotations; ++i)
      total += counts[i] = board_.count_fits(kind.rotations[kind.distinct_rotations[i]].signature);
    assert(total > 0);
    int k = int(rng.below(uint32_t(total)));
    int i = 0;
    while (k >= counts[i]) k -= counts[i++];
    int r = kind.distinct_rotations[i];
    return Action::place_at_key(board_.frontier_key(board_.nth_fit(kind.rotations[r].signature, k)), r);
  }
  Action buffer[kMaxActions];
  int n = legal_actions(buffer);
  return buffer[rng.below(uint32_t(n))];
}

// ---- Scoring ---------------------------------------------------------------------------------

// ---- Legal actions ---------------------------------------------------------------------------

int State::current_player() const {
  switch (phase_) {
    case Phase::Draw: return kChancePlayer;
    case Phase::GameOver: return kTerminalPlayer;
    case Phase::WagonMove: return wagons_[0].owner;
    case Phase::CityMove: return (turn_player_ + 1 + city_step_) % rules_.players;
    case Phase::MarketMove: return market_player_;
    default: return turn_player_;
  }
}

int State::legal_actions(Action* out) const {
  int n = 0;
  switch (phase_) {
    case Phase::Draw:
      if (river_size_ > 0) {  // RV-3: the fork first, the volcano lake last
        const Catalogue& cat = catalogue();
        int stage = 2;  // 0 the fork, 1 the others, 2 the volcano lake
        for (int i = 0; i < river_size_; ++i) {
          const TileKind& k = cat.kind(river_[i]);
          stage = std::min(stage, k.river_sides == 3 ? 0 : has_mark(k, "volcano") ? 2 : 1);
        }
        for (int k = 0; k < cat.size(); ++k) {
          if (!bag_count_[k] || !cat.kind(KindId(k)).river_sides) continue;
          const TileKind& kind = cat.kind(KindId(k));
          int s = kind.river_sides == 3 ? 0 : has_mark(kind, "volcano") ? 2 : 1;
          if (s == stage) out[n++] = Action::draw(k);
        }
      } else if (fixed_order_) {
        out[n++] = Action::draw(bag_[bag_size_ - 1]);
      } else {
        for (int k = 0; k < catalogue().size(); ++k)
          if (bag_count_[k]) out[n++] = Action::draw(k);
      }
      break;
    case Phase::AbbeyChoice:
      n = abbey_options(out);
      if (bag_size_ > 0) out[n++] = Action::take_tile();
      else if (rules_.abbey_endgame == AbbeyEndgame::FinalRound) out[n++] = Action::pass();
      break;
    case Phase::PlaceTile: {
      const TileKind& kind = catalogue().kind(drawn_);
      if (kind.river_sides) {
        n = river_placements(kind, out);
        break;
      }
      const bool limited = rules_.shrines && kind.cloister_segment >= 0;
      for (int i = 0; i < kind.num_distinct_rotations; ++i) {
        int r = kind.distinct_rotations[i];
        board_.for_each_fit(kind.rotations[r].signature, [&](int f) {
          if (!limited || cult_limit_ok(board_.frontier_cell(f), kind)) out[n++] = Action::place_at_key(board_.frontier_key(f), r);
        });
      }
      break;
    }
    case Phase::ArrowChoice:
      for (int i = 0; i < num_arrow_candidates_; ++i) out[n++] = Action::arrow(board_.tile(arrow_candidates_[i]).cell);
      break;
    case Phase::PlaceFigure:
      out[n++] = Action::pass();
      n += figure_options(out + n);
      break;
    case Phase::WagonMove:
      out[n++] = Action::pass();
      n += wagon_targets(out + n);
      break;
    case Phase::CityMove:
      out[n++] = Action::pass();
      n += city_move_options(out + n);
      break;
    case Phase::CityPlace:
      out[n++] = Action::pass();
      n += city_place_options(out + n);
      break;
    case Phase::CountMove:
      for (int q = 0; q < kNumQuarters; ++q) out[n++] = Action::count_to(Quarter(q));
      break;
    case Phase::MarketMove:
      n = market_options(out);
      break;
    case Phase::GameOver:
      break;
  }
  return n;
}

std::vector<Action> State::legal_actions() const {
  std::vector<Action> out(kMaxActions);
  out.resize(size_t(legal_actions(out.data())));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<Action, double>> State::chance_outcomes() const {
  std::vector<std::pair<Action, double>> out;
  if (phase_ != Phase::Draw) return out;
  std::vector<Action> draws = legal_actions();
  int total = 0;
  for (Action a : draws) total += bag_count_[a.tile_kind()];
  for (Action a : draws) out.emplace_back(a, fixed_order_ && !river_size_ ? 1.0 : double(bag_count_[a.tile_kind()]) / total);
  return out;
}

bool State::is_legal(Action a) const { return why_illegal(a).empty(); }

std::string State::why_illegal(Action a) const {
  auto listed = [&] {
    Action buffer[kMaxActions];
    int n = legal_actions(buffer);
    return std::find(buffer, buffer + n, a) != buffer + n;
  };
  switch (phase_) {
    case Phase::GameOver:
      return "the game is over";
    case Phase::Draw:
      if (a.kind() != ActionKind::Draw) return "a tile must be drawn first";
      if ((a.code >> 12) != 0 || a.tile_kind() >= catalogue().size() || bag_count_[a.tile_kind()] == 0) return "that tile is not in the bag";
      if (river_size_ > 0) return listed() ? "" : "the river tiles come first: the fork, then the others, the volcano lake last (RV-3)";
      if (fixed_order_ && bag_[bag_size_ - 1] != a.tile_kind()) return "the draw order is fixed: the next tile is " + catalogue().kind(bag_[bag_size_ - 1]).name;
      return "";
    case Phase::AbbeyChoice:
      if (listed()) return "";
      if (a.kind() == ActionKind::Abbey) return "an abbey goes into a hole: an empty cell with 4 neighbours (AM-A-1)";
      if (bag_size_ == 0 && rules_.abbey_endgame == AbbeyEndgame::Mandatory) return "the bag is empty: the abbey must be placed (AM-A-5 mandatory)";
      return bag_size_ > 0 ? "place the abbey or take a tile" : "place the abbey or pass";
    case Phase::PlaceTile: {
      if (a.kind() != ActionKind::Place) return "the drawn tile must be placed first";
      if ((a.code >> 24) != 0) return "malformed action code";
      Cell c = a.cell();
      if (board_.occupied(c)) return "the cell already holds a tile";
      int f = board_.frontier_index(c);
      if (f < 0) return "the cell touches no tile (B-3)";
      const TileKind& kind = catalogue().kind(drawn_);
      if (kind.river_sides && !listed())
        return "a river tile continues exactly one open river end, with no U-turn and without touching the other branch (RV-1, RV-2)";
      bool distinct = std::find(kind.distinct_rotations.begin(), kind.distinct_rotations.begin() + kind.num_distinct_rotations,
                                a.rotation()) != kind.distinct_rotations.begin() + kind.num_distinct_rotations;
      if (!board_.fits(f, kind.rotations[a.rotation()].signature)) return "the tile's sides do not match its neighbours (B-3)";
      if (!distinct) return "that rotation shows the same tile as a lower one: use the lowest";
      if (!cult_limit_ok(c, kind)) return "a shrine and a monastery may not have two of the other kind around them (SH-2)";
      return "";
    }
    case Phase::ArrowChoice:
      return listed() ? "" : "choose which arrow activates (XX-3): arrow <x>,<y> of one of the candidates";
    case Phase::PlaceFigure: {
      if (listed()) return "";
      if (a.kind() == ActionKind::Pass) return "malformed action code";
      if (a.kind() != ActionKind::Figure) return "a figure (or pass) is to be chosen now";
      if (a.elsewhere()) {
        if (active_arrow_ == ArrowKind::PlaceAnywhere && a.figure_cell() == board_.tile(last_slot_).cell)
          return "on the tile just placed a meeple goes without '@': the ordinary placement (B-5)";
        if (active_arrow_ == ArrowKind::MeepleBeside) return "a meeple goes beside an unpaired figure of yours on an unfinished feature (XX-4)";
        if (active_arrow_ == ArrowKind::PlaceAnywhere) return "a meeple goes on an unoccupied, unfinished feature (XX-5)";
        return "a figure goes on the tile just placed unless an arrow says otherwise (B-5)";
      }
      if ((a.code >> 12) != 0 || int(a.figure_kind()) >= kNumFigureKinds) return "malformed figure action";
      FigureKind kind = a.figure_kind();
      std::string name = figure_kind_name(kind);
      if (!figure_in_play(kind)) return "the " + name + " is not in play";
      if (supply_[turn_player_][int(kind)] == 0) return "no " + name + " left in supply";
      const PlacedTile& t = board_.tile(last_slot_);
      if (kind == FigureKind::Barn) {
        if (a.feature() > 3) return "a barn goes on a corner 0-3";
        uint16_t field;
        if (!barn_corner_ok(t.cell, a.feature(), &field)) return "a barn needs 4 tiles whose fields meet at that corner (AM-B-1)";
        if (features_.feature(field).barns) return "that field has a barn already (AM-B-2)";
        return "a lower corner of this tile is on the same field: the barn is offered there";
      }
      if (a.feature() >= catalogue().kind(t.kind).num_segments) return "the tile has no such feature";
      FeatureType type = features_[t.first_segment + a.feature()].type;
      const Segment& f = features_.feature(t.first_segment + a.feature());
      if (!can_hold_figure(type)) return "no figure may stand on that feature";
      if (kind == FigureKind::Mayor && type != FeatureType::City) return "a mayor goes into a city (AM-M-1)";
      if (kind == FigureKind::Wagon && type == FeatureType::Field) return "a wagon never goes on a field (AM-W-1)";
      if (f.occupants) return "that feature is already occupied (B-5)";
      if (type == FeatureType::Field && f.barns) return "no farmer may join a field with a barn (AM-B-4)";
      if (!first_on_its_tile(uint16_t(t.first_segment + a.feature())))
        return "a lower feature number of this tile is the same feature: the figure is offered there";
      return "not a legal figure choice here";
    }
    case Phase::WagonMove:
      return listed() ? "" : "the wagon moves to an unfinished, unoccupied feature next to it (AM-W-2, AM-W-4) or returns (pass)";
    case Phase::CityMove:
      return listed() ? "" : "move a figure from the matching quarter (not the Count's) onto the feature being scored, or pass (CK-4, CK-5)";
    case Phase::CityPlace:
      return listed() ? "" : "put a meeple into a quarter (a mayor into the castle, a wagon anywhere but the market), or pass (CK-3)";
    case Phase::CountMove:
      return listed() ? "" : "move the Count to a quarter (CK-3)";
    case Phase::MarketMove:
      return listed() ? "" : "move one meeple from the market onto a field (CK-6)";
  }
  return "unknown phase";
}

Action State::checked(Action a) const {
  std::string why = why_illegal(a);
  if (!why.empty()) throw IllegalActionError("illegal action '" + action_to_string(a) + "': " + why);
  return a;
}

void State::apply(Action a) { apply_unchecked(checked(a)); }

// ---- Strings ---------------------------------------------------------------------------------

std::string State::action_to_string(Action a) const {
  switch (a.kind()) {
    case ActionKind::Draw:
      return a.tile_kind() < catalogue().size() ? "draw " + catalogue().kind(KindId(a.tile_kind())).name
                                                : "draw #" + std::to_string(a.tile_kind());
    case ActionKind::Place:
      return "place " + cell_text(a.cell()) + " r" + std::to_string(a.rotation());
    case ActionKind::Pass:
      return "pass";
    case ActionKind::Abbey:
      return "abbey " + cell_text(a.cell());
    case ActionKind::TakeTile:
      return "take-tile";
    case ActionKind::Arrow:
      return "arrow " + cell_text(a.cell());
    case ActionKind::Quarter:
      return std::string(figure_kind_name(a.figure_kind())) + " @" + kQuarterNames[int(a.quarter())];
    case ActionKind::Count:
      return std::string("count ") + kQuarterNames[int(a.quarter())];
    case ActionKind::Figure: {
      std::string name = figure_kind_name(a.figure_kind());
      if (a.figure_kind() == FigureKind::Barn) return name + " " + kCornerNames[a.feature() & 3];
      std::string type = "feature";
      int slot = a.elsewhere() ? board_.slot_at(a.figure_cell()) : last_slot_;
      if (slot >= 0) {
        const PlacedTile& t = board_.tile(slot);
        if (a.feature() < catalogue().kind(t.kind).num_segments) type = feature_type_name(features_[t.first_segment + a.feature()].type);
      }
      std::string text = name + " " + type + "#" + std::to_string(a.feature());
      return a.elsewhere() ? text + " @" + cell_text(a.figure_cell()) : text;
    }
  }
  return "action #" + std::to_string(a.code);
}

Action State::parse_action(std::string_view text) const {
  auto bad = [&](const std::string& why) -> IllegalActionError {
    return IllegalActionError("cannot parse action '" + std::string(text) + "': " + why);
  };
  std::istringstream in{std::string(text)};
  std::vector<std::string> words;
  for (std::string w; in >> w;) words.push_back(w);
  const size_t count = words.size();
  words.resize(std::max<size_t>(count, 3));
  const std::string& verb = words[0];
  auto parse_int = [&](std::string_view s, int& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
  };
  auto parse_cell = [&](std::string_view s, Cell& c) {
    auto comma = s.find(',');
    int x = 0, y = 0;
    if (comma == std::string::npos || !parse_int(s.substr(0, comma), x) || !parse_int(s.substr(comma + 1), y)) return false;
    if (std::abs(x) >= kCoordLimit - 1 || std::abs(y) >= kCoordLimit - 1) throw bad("cell out of range");
    c = Cell{int16_t(x), int16_t(y)};
    return true;
  };
  auto expect_words = [&](size_t n) {
    if (count > n) throw bad("unexpected '" + words[n] + "'");
    if (count < n) throw bad("too few words");
  };
  Cell cell;
  if (verb == "pass" || verb == "take-tile") {
    expect_words(1);
    return verb == "pass" ? Action::pass() : Action::take_tile();
  }
  if (verb == "draw") {
    expect_words(2);
    if (!catalogue().contains(words[1])) throw bad("unknown tile '" + words[1] + "'");
    return Action::draw(catalogue().find(words[1]));
  }
  if (verb == "abbey" || verb == "arrow") {
    expect_words(2);
    if (!parse_cell(words[1], cell)) throw bad("expected '" + verb + " <x>,<y>'");
    return verb == "abbey" ? Action::abbey(cell) : Action::arrow(cell);
  }
  if (verb == "place") {
    int r = 0;
    if (count < 3 || !parse_cell(words[1], cell)) throw bad("expected 'place <x>,<y> r<rotation>'");
    if (words[2].size() != 2 || words[2][0] != 'r' || !parse_int(std::string_view(words[2]).substr(1), r) || r > 3)
      throw bad("rotation must be r0, r1, r2 or r3");
    expect_words(3);
    return Action::place(cell, r);
  }
  if (verb == "count") {
    expect_words(2);
    for (int q = 0; q < kNumQuarters; ++q)
      if (words[1] == kQuarterNames[q]) return Action::count_to(Quarter(q));
    throw bad("the Count goes to a quarter: castle, market, blacksmith or cathedral");
  }
  if (count == 2 && words[1].size() > 1 && words[1][0] == '@' && !std::isdigit(words[1][1]) && words[1][1] != '-') {
    for (int f = 0; f < kNumFigureKinds; ++f)
      for (int q = 0; q < kNumQuarters; ++q)
        if (verb == figure_kind_name(FigureKind(f)) && words[1].substr(1) == kQuarterNames[q])
          return Action::enter_city(FigureKind(f), Quarter(q));
    throw bad("expected '<figure> @<quarter>' with a quarter: castle, market, blacksmith or cathedral");
  }
  if (verb == "barn") {
    expect_words(2);
    for (int corner = 0; corner < 4; ++corner)
      if (words[1] == kCornerNames[corner]) return Action::figure(FigureKind::Barn, corner);
    throw bad("a barn goes on a corner: NE, SE, SW or NW");
  }
  for (int f = 0; f < kNumFigureKinds; ++f) {
    if (verb != figure_kind_name(FigureKind(f))) continue;
    const std::string& arg = words[1];
    auto hash = arg.find('#');
    int index = 0;
    if (hash == std::string::npos || !parse_int(std::string_view(arg).substr(hash + 1), index) || index < 0 || index >= kMaxSegmentsPerTile)
      throw bad("expected '" + verb + " <feature>#<index>'");
    bool elsewhere = count >= 3;
    if (elsewhere && (words[2][0] != '@' || !parse_cell(std::string_view(words[2]).substr(1), cell))) throw bad("expected '@<x>,<y>' after the feature");
    expect_words(elsewhere ? 3 : 2);
    int slot = elsewhere ? board_.slot_at(cell) : (phase_ == Phase::PlaceFigure ? last_slot_ : -1);
    if (elsewhere && slot < 0) throw bad("no tile at " + cell_text(cell));
    if (slot >= 0) {
      const PlacedTile& t = board_.tile(slot);
      if (index >= catalogue().kind(t.kind).num_segments) throw bad("the tile has no feature #" + std::to_string(index));
      std::string type = arg.substr(0, hash);
      std::string actual = feature_type_name(features_[t.first_segment + index].type);
      if (actual != type) throw bad("feature #" + std::to_string(index) + " of " + catalogue().kind(t.kind).name + " is a " + actual + ", not a " + type);
    }
    return elsewhere ? Action::figure_at(FigureKind(f), index, cell) : Action::figure(FigureKind(f), index);
  }
  throw bad("unknown verb '" + verb + "' (draw, place, pass, meeple, mayor, wagon, barn, abbey, take-tile, arrow, count)");
}

std::string State::to_string() const {
  std::ostringstream out;
  out << "turn " << turn_number_ << ", player " << int(turn_player_) << ", " << phase_name(phase_);
  if (phase_ == Phase::PlaceTile || phase_ == Phase::PlaceFigure) out << " (" << catalogue().kind(drawn_).name << ")";
  out << "\nscores:";
  for (int p = 0; p < rules_.players; ++p) out << ' ' << scores_[p];
  out << "\nmeeples in supply:";
  for (int p = 0; p < rules_.players; ++p) out << ' ' << int(supply_[p][0]);
  out << "\ntiles: " << board_.num_tiles() << " placed, " << bag_size_ << " in the bag, " << discarded_ << " discarded\n";
  return out.str();
}

// ---- Copies and comparison --------------------------------------------------------------------

namespace {

// The first n elements of a and b are equal (the rest of a fixed-size list is unused).
template <class List>
bool same_prefix(const List& a, const List& b, int n) {
  return std::equal(a.begin(), a.begin() + n, b.begin());
}

}  // namespace

void State::copy_from(const State& o) {
  const size_t head = size_t(reinterpret_cast<const char*>(&o.features_) - reinterpret_cast<const char*>(&o));
  assert(head + sizeof(Features) <= sizeof(State) && sizeof(State) - head - sizeof(Features) < alignof(State));
  std::memcpy(static_cast<void*>(this), &o, head);  // trivially copyable: bytes are the value
  features_.copy_from(o.features_);
}

bool State::same_position(const State& o) const {
  // Every member but rng_ and seed_, lists up to their length, and the board's index and
  // frontier (they follow from its tiles). Some derived data (the feature aggregates) is compared
  // too: a false "different" only costs a search its reuse, a false "same" would send it down
  // actions that are illegal here.
  if (std::tie(rules_, fixed_order_, abbey_kind_, phase_, turn_player_, drawn_, last_slot_, turn_number_,
               discarded_, num_figures_, supply_, abbeys_, num_wagons_, num_barn_fields_, endgame_) !=
      std::tie(o.rules_, o.fixed_order_, o.abbey_kind_, o.phase_, o.turn_player_, o.drawn_, o.last_slot_,
               o.turn_number_, o.discarded_, o.num_figures_, o.supply_, o.abbeys_, o.num_wagons_,
               o.num_barn_fields_, o.endgame_))
    return false;
  if (std::tie(arrow_armed_, num_arrow_candidates_, active_arrow_, river_size_, num_river_ends_, num_river_cells_,
               volcano_turn_, quarters_, count_, scoring_next_, city_step_, moved_out_, phase3_scored_,
               phase3_start_, last_placer_, market_player_) !=
      std::tie(o.arrow_armed_, o.num_arrow_candidates_, o.active_arrow_, o.river_size_, o.num_river_ends_,
               o.num_river_cells_, o.volcano_turn_, o.quarters_, o.count_, o.scoring_next_, o.city_step_,
               o.moved_out_, o.phase3_scored_, o.phase3_start_, o.last_placer_, o.market_player_))
    return false;
  if (std::tie(king_holder_, robber_holder_, king_size_, robber_size_, extra_turn_, in_extra_turn_, scores_,
               breakdown_, bag_size_, bag_count_, num_open_cloisters_, num_pending_, num_challenges_) !=
      std::tie(o.king_holder_, o.robber_holder_, o.king_size_, o.robber_size_, o.extra_turn_, o.in_extra_turn_,
               o.scores_, o.breakdown_, o.bag_size_, o.bag_count_, o.num_open_cloisters_, o.num_pending_,
               o.num_challenges_))
    return false;
  if (board_.num_tiles() != o.board_.num_tiles() || features_.size() != o.features_.size()) return false;
  for (int i = 0; i < board_.num_tiles(); ++i)
    if (board_.tile(i) != o.board_.tile(i)) return false;
  for (int i = 0; i < features_.size(); ++i)
    if (features_[i] != o.features_[i]) return false;
  return same_prefix(figures_, o.figures_, num_figures_) && same_prefix(wagons_, o.wagons_, num_wagons_) &&
         same_prefix(barn_fields_, o.barn_fields_, num_barn_fields_) &&
         same_prefix(barn_field_points_, o.barn_field_points_, num_barn_fields_) &&
         same_prefix(arrow_candidates_, o.arrow_candidates_, num_arrow_candidates_) &&
         same_prefix(river_, o.river_, river_size_) && same_prefix(river_ends_, o.river_ends_, num_river_ends_) &&
         same_prefix(river_cells_, o.river_cells_, num_river_cells_) &&
         same_prefix(river_branches_, o.river_branches_, num_river_cells_) &&
         same_prefix(open_cloisters_, o.open_cloisters_, num_open_cloisters_) &&
         same_prefix(pending_, o.pending_, num_pending_) && same_prefix(challenges_, o.challenges_, num_challenges_) &&
         (!fixed_order_ || same_prefix(bag_, o.bag_, bag_size_));  // else the bag's order is not used
}

// ---- Consistency -----------------------------------------------------------------------------

void State::check_consistency() const {
  auto fail = [](const std::string& what) { throw std::logic_error("inconsistent state: " + what); };
  const Catalogue& cat = catalogue();
  const bool mid_turn = phase_ == Phase::PlaceFigure || phase_ == Phase::ArrowChoice || phase_ == Phase::CityMove;
  // Figures: supply + board (+ wagons waiting to move) = what each player owns.
  std::vector<std::array<int, kNumFigureKinds>> owned(kMaxPlayers);
  for (auto& o : owned) o.fill(0);
  std::vector<std::array<int, kMaxPlayers>> meeples(features_.size());
  std::vector<int> occupants(features_.size(), 0), barns(features_.size(), 0), mayors(features_.size(), 0);
  for (auto& m : meeples) m.fill(0);
  for (int i = 0; i < num_figures_; ++i) {
    const PlacedFigure& f = figures_[i];
    ++owned[f.owner][int(f.kind)];
    int r = features_.root(f.segment);
    if (f.kind == FigureKind::Barn) {
      ++barns[r];
      if (features_[r].type != FeatureType::Field) fail("a barn off a field");
    } else if (f.kind == FigureKind::Mayor) {
      mayors[r] |= 1 << f.owner;
      ++occupants[r];
      if (features_[r].type != FeatureType::City) fail("a mayor outside a city");
    } else {
      ++meeples[r][f.owner];
      ++occupants[r];
      if (f.kind == FigureKind::Wagon && features_[r].type == FeatureType::Field) fail("a wagon on a field");
    }
  }
  for (int i = 0; i < num_wagons_; ++i) ++owned[wagons_[i].owner][int(FigureKind::Wagon)];
  for (int p = 0; p < rules_.players; ++p)
    for (int q = 0; q < kNumQuarters; ++q)
      for (int k = 0; k < 3; ++k) owned[p][k] += quarters_[p][q][k];
  for (int i = 0; i < num_figures_; ++i) {  // XX-4 pairs: exactly two, one owner, one segment
    if (!figures_[i].paired) continue;
    int together = 0;
    for (int j = 0; j < num_figures_; ++j)
      together += figures_[j].paired && figures_[j].segment == figures_[i].segment && figures_[j].owner == figures_[i].owner;
    if (together != 2) fail("a pair of " + std::to_string(together) + " figures");
  }
  for (int p = 0; p < rules_.players; ++p)
    for (int k = 0; k < kNumFigureKinds; ++k) {
      int expected = k == 0 ? kMeeplesPerPlayer : rules_.abbey_mayor ? 1 : 0;
      if (owned[p][k] + supply_[p][k] != expected)
        fail(std::string(figure_kind_name(FigureKind(k))) + "s of player " + std::to_string(p) + " not conserved");
    }
  for (int s = 0; s < features_.size(); ++s) {
    const Segment& seg = features_[s];
    if (features_[seg.root].root != seg.root) fail("root of segment " + std::to_string(s) + " is not a root");
    if (seg.root != s) continue;
    std::set<int> tiles;
    int size = 0, pennants = 0, open = 0;
    features_.for_each_member(s, [&](int m) {
      const Segment& member = features_[m];
      if (member.root != s) fail("member list of " + std::to_string(s) + " reaches another feature");
      if (member.type != seg.type) fail("feature mixes segment types");
      ++size;
      tiles.insert(member.tile);
      const PlacedTile& t = board_.tile(member.tile);
      const SegmentSpec& spec = rotated(t).segments[member.local];
      pennants += spec.pennants;
      for (int side = 0; side < kNumSides; ++side)
        if ((spec.points >> side_point(Side(side), 1) & 1) && !board_.occupied(neighbour(t.cell, Side(side)))) ++open;
    });
    std::string name = std::string(feature_type_name(seg.type)) + " " + std::to_string(s);
    if (meeples[s] != std::array<int, kMaxPlayers>{seg.meeples[0], seg.meeples[1], seg.meeples[2], seg.meeples[3], seg.meeples[4], seg.meeples[5]})
      fail("meeple count of " + name);
    if (occupants[s] != seg.occupants) fail("occupant count of " + name);
    if (mayors[s] != seg.mayors) fail("mayors of " + name);
    if (barns[s] != seg.barns) fail("barns of " + name);
    if (size != seg.size) fail("size of " + name);
    if (pennants != seg.pennants) fail("pennants of " + name);
    if (seg.type == FeatureType::Road || seg.type == FeatureType::City) {
      if (int(tiles.size()) != seg.tiles) fail("tile count of " + name);
      if (open != seg.open) fail("open ends of " + name);
    }
    if (is_cloister_like(seg.type)) {
      Cell c = board_.tile(seg.tile).cell;
      int empty = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if ((dx || dy) && !board_.occupied(Cell{int16_t(c.x + dx), int16_t(c.y + dy)})) ++empty;
      if (empty != seg.open) fail("empty neighbours of " + name);
    }
    bool closable = seg.type == FeatureType::Road || seg.type == FeatureType::City || is_cloister_like(seg.type);
    if (closable && !mid_turn && (seg.open == 0) != bool(seg.done)) fail("completed " + name + " not scored");
    if (seg.done && seg.occupants && !mid_turn) fail("figures left on scored " + name);
    if (seg.barns && seg.occupants && !mid_turn) fail("farmers beside a barn on " + name + " (AM-B-4)");
  }
  // SH-4: the stored challenges pair a shrine with a monastery or abbey around it, both occupied;
  // between turns, exactly the unfinished occupied pairs are challenges (a challenge can only
  // begin between unfinished features, and it ends when either completes).
  std::set<std::pair<int, int>> challenges;
  for (int i = 0; i < num_challenges_; ++i) {
    const Challenge& c = challenges_[i];
    const Segment &shrine = features_[c.shrine], &cloister = features_[c.cloister];
    Cell a = board_.tile(shrine.tile).cell, b = board_.tile(cloister.tile).cell;
    if (shrine.type != FeatureType::Shrine || (cloister.type != FeatureType::Monastery && cloister.type != FeatureType::Abbey) ||
        std::max(std::abs(a.x - b.x), std::abs(a.y - b.y)) != 1)
      fail("a challenge between " + cell_text(a) + " and " + cell_text(b) + " that are no neighbouring cult places");
    if (!shrine.occupants || !cloister.occupants) fail("a challenge with an unoccupied side at " + cell_text(a));
    if (!challenges.insert({c.shrine, c.cloister}).second) fail("a challenge stored twice");
  }
  if (rules_.shrines && !mid_turn) {
    for (int i = 0; i < board_.num_tiles(); ++i) {
      if (cult_class(i) != 1) continue;
      const PlacedTile& t = board_.tile(i);
      int shrine = t.first_segment + cat.kind(t.kind).cloister_segment;
      for (int j = 0; j < board_.num_tiles(); ++j) {
        const PlacedTile& u = board_.tile(j);
        if (cult_class(j) != 2 || std::max(std::abs(t.cell.x - u.cell.x), std::abs(t.cell.y - u.cell.y)) != 1) continue;
        int cloister = u.first_segment + cat.kind(u.kind).cloister_segment;
        bool under_way = features_[shrine].open && features_[cloister].open && features_[shrine].occupants &&
                         features_[cloister].occupants;
        if (under_way != bool(challenges.count({shrine, cloister})))
          fail("challenge between " + cell_text(t.cell) + " and " + cell_text(u.cell) + (under_way ? " not stored" : " stored but over"));
      }
    }
  }
  // Board: every frontier cell is empty, next to a tile, and knows its neighbours.
  for (int f = 0; f < board_.frontier_size(); ++f) {
    Cell c = board_.frontier_cell(f);
    if (board_.occupied(c)) fail("frontier cell holds a tile");
    uint8_t present = 0;
    for (int s = 0; s < kNumSides; ++s)
      if (board_.occupied(neighbour(c, Side(s)))) present |= uint8_t(1u << s);
    if (present == 0 || present != board_.frontier_neighbours(f)) fail("frontier neighbours at " + cell_text(c));
  }
  int frontier = 0;
  std::set<std::pair<int, int>> seen;
  for (int i = 0; i < board_.num_tiles(); ++i) {
    const PlacedTile& t = board_.tile(i);
    if (board_.slot_at(t.cell) != i) fail("cell index of tile " + std::to_string(i));
    for (int s = 0; s < kNumSides; ++s) {
      Cell n = neighbour(t.cell, Side(s));
      int ns = board_.slot_at(n);
      if (ns < 0) {
        if (seen.insert({n.x, n.y}).second) ++frontier;
        continue;
      }
      Edge mine = rotated(t).edges[s], theirs = rotated(board_.tile(ns)).edges[opposite(Side(s))];
      if (mine != theirs && mine != Edge::Abbey && theirs != Edge::Abbey) fail("mismatched sides at " + cell_text(t.cell));
    }
  }
  if (frontier != board_.frontier_size()) fail("frontier size");
  int bag = 0;
  for (int k = 0; k < cat.size(); ++k) bag += bag_count_[k];
  if (bag != bag_size_ + river_size_) fail("bag counts");
}

}  // namespace carc
