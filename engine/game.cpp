// The game's set-up, turn flow and legal actions (game.h). Positions are in position.cpp, the
// action text in action_text.cpp, whole-state copies and checks in consistency.cpp, scoring in
// scoring.cpp, and each expansion's rules in its rules_*.cpp.
#include "game.h"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cstring>

#include "game_internal.h"

namespace carc {

using namespace internal;

const Catalogue& internal::g_catalogue = Catalogue::builtin();

const char* figure_kind_name(FigureKind f) {
  static constexpr const char* kNames[] = {"meeple", "mayor", "wagon", "barn"};
  return int(f) < kNumFigureKinds ? kNames[int(f)] : "figure?";
}

const char* phase_name(Phase p) {
  // Identifiers (Python's Game.phase and PHASES use them too), in Phase order.
  static constexpr const char* kNames[] = {"draw",         "abbey_choice", "place_tile", "arrow_choice",
                                           "place_figure", "city_move",    "wagon_move", "city_place",
                                           "count_move",   "market_move",  "game_over"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(Phase::GameOver) + 1);
  return kNames[int(p)];
}

const char* action_kind_name(ActionKind k) {
  // The first word of the action's text where it has one ("take-tile"), else the kind's name.
  static constexpr const char* kNames[] = {"draw",      "place", "figure",  "pass", "abbey",
                                           "take-tile", "arrow", "quarter", "count"};
  static_assert(sizeof(kNames) / sizeof(kNames[0]) == size_t(ActionKind::Count) + 1);
  return int(k) <= int(ActionKind::Count) ? kNames[int(k)] : "unknown";
}

// ---- Set-up ---------------------------------------------------------------------------------

namespace {
// Two configs set up the same game but for its seed.
bool same_rules(const Config& a, const Config& b) {
  return a.players == b.players && a.expansions == b.expansions && a.variants == b.variants &&
         a.draw_order == b.draw_order;
}
}  // namespace

// Setting up a game (validating the config, filling the bag, laying the start) costs as much as
// a tenth of a random game, and a new game of the same rules differs from the last only in its
// seed: each thread keeps the last few set-ups and copies them.
const State& State::set_up(const Config& raw) {
  struct Entry {
    Config config;
    State state;
  };
  constexpr size_t kEntries = 4;
  thread_local std::vector<Entry> recent;  // the oldest first
  for (const Entry& e : recent)
    if (same_rules(e.config, raw)) return e.state;
  Config key = raw;
  key.seed = 0;
  State state(validate(key), SetUpTag{});
  if (recent.size() == kEntries) recent.erase(recent.begin());
  recent.push_back(Entry{std::move(key), state});
  return recent.back().state;
}

State::State(const Config& config) {
  copy_from(set_up(config));  // the used parts: the rest of the arrays is never read unset
  seed_ = config.seed;
  rng_.reseed(config.seed);
}

State::State(const Config& config, SetUpTag) {
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
  scoring_.pending.clear();
  if (!fixed_order_) {
    std::vector<bool> enabled;
    for (const std::string& set : cat.sets()) enabled.push_back(enabled_set(config, set));
    for (const TileKind& k : cat.kinds()) {
      if (!enabled[k.set_index]) continue;
      if (k.river_sides && rules_.river && k.id != start) {
        for (int i = 0; i < k.count; ++i) river_.stack.push_back(k.id);
        bag_count_[k.id] = uint8_t(k.count);
      }
      if (!bag_tile(config, k)) continue;
      // The start tile goes back to the box when River II starts the game (CK-0).
      int copies = k.copies(rules_.custom) - (k.is_start ? 1 : 0);
      for (int i = 0; i < copies; ++i) bag_.push_back(k.id);
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
  rules_.custom = has_expansion(config, kCustomSet);
  rules_.river = has_expansion(config, "river2");
  rules_.city_block = has_expansion(config, "city");
  rules_.count = rules_.city_block && config.variants.at("start") == "city";
  const std::string& count_move = config.variants.at("count_move");
  rules_.count_move = count_move == "clockwise" ? Rules::CountMove::Clockwise
                      : count_move == "follow"  ? Rules::CountMove::Follow
                                                : Rules::CountMove::Free;
  std::vector<int> points = starting_points(config);
  for (int p = 0; p < rules_.players; ++p) {
    rules_.start_points[p] = int16_t(points[p]);
    scores_[p] = int16_t(points[p]);
  }
  city_.count = uint8_t(Quarter::Castle);
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
    bag_.push_back(k);
    ++bag_count_[k];
  }
}

// ---- Placing tiles and figures ---------------------------------------------------------------

void State::add_pending(uint16_t root) {
  if (!scoring_.pending.contains(root)) scoring_.pending.push_back(root);
}

void State::put_tile(Cell c, KindId kind_id, int rotation) {
  const TileKind& kind = catalogue().kind(kind_id);
  const RotatedTile& rt = kind.rotations[rotation];
  int slot = board_.num_tiles();
  uint16_t first = features_.add_tile(slot, kind);
  TileNeighbours neighbours;
  board_.place(c, kind_id, rotation, first, rt, &neighbours);
  turn_.last_slot = int16_t(slot);

  for (unsigned sides = neighbours.sides; sides; sides &= sides - 1) {
    const int s = __builtin_ctz(sides);
    const PlacedTile& nt = board_.tile(neighbours.slot[s]);
    // Point k of side s touches point 2 - k of the neighbour's facing side (types.h).
    const int8_t* mine = &rt.segment_at[side_point(Side(s), 0)];
    const int8_t* theirs = &rotated(nt).segment_at[side_point(opposite(Side(s)), 0)];
    const int a0 = mine[0], b0 = theirs[2], a1 = mine[1], b1 = theirs[1], a2 = mine[2], b2 = theirs[0];
    if (a0 >= 0 && b0 >= 0) features_.merge(uint16_t(first + a0), uint16_t(nt.first_segment + b0));
    if (a1 >= 0 && b1 >= 0) features_.merge(uint16_t(first + a1), uint16_t(nt.first_segment + b1));
    // The second field half of a side mostly joins the same two fields as the first: skipped.
    if (a2 >= 0 && b2 >= 0 && (a2 != a0 || b2 != b0))
      features_.merge(uint16_t(first + a2), uint16_t(nt.first_segment + b2));
    // The sides meet: each road/city end there is closed (an abbey closes without joining).
    // A road or city is complete when the last of its open ends closes, here (no merge adds
    // an end: a side of the new tile stays open until its turn in this loop).
    int a = mine[1], b = theirs[1];
    if (a >= 0) {  // the new tile's feature, closed here by an abbey if b < 0
      uint16_t root = features_.root(first + a);
      if (--features_[root].open == 0 && features_[root].type != FeatureType::River) add_pending(root);
    }
    if (b >= 0) {  // the neighbour's feature may be closed by an abbey, which has no segment there
      uint16_t root = features_.root(nt.first_segment + b);
      if (--features_[root].open == 0 && features_[root].type != FeatureType::River) add_pending(root);
    }
  }

  // Cloister-like features around the new tile gain a neighbour. A pointer walk and c's
  // north-west neighbour precomputed: a few instructions a cloister, on every tile. Both
  // coordinates are tested before one branch, which is rarely taken and so well predicted.
  const int west = c.x - 1, north = c.y - 1;
  for (OpenCloister *o = open_cloisters_.begin(), *end = open_cloisters_.end(); o != end;) {
    if (std::max(unsigned(o->cell.x - west), unsigned(o->cell.y - north)) <= 2 && --features_[o->segment].open == 0) {
      add_pending(o->segment);
      open_cloisters_.swap_remove(int(o - open_cloisters_.begin()));
      end = open_cloisters_.end();
    } else {
      ++o;
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
      open_cloisters_.push_back(OpenCloister{seg, c});
    }
  }
  // AM-B-5: this tile joined a field with farmers to a field with a barn.
  for (int i = 0; rules_.abbey_mayor && i < kind.num_segments; ++i) {
    uint16_t root = features_.root(first + i);
    const Segment& f = features_[root];
    if (f.type == FeatureType::Field && f.barns && f.occupants) {
      auto& fields = scoring_.barn_fields;
      if (std::none_of(fields.begin(), fields.end(), [&](const BarnField& b) { return b.root == root; }))
        fields.push_back({root, 1});
    }
  }
}

void State::enter_figure_phase() {
  turn_.phase = Phase::PlaceFigure;
  // Every figure option takes a figure from the supply: without one, no need to list them.
  // The player's counts of each figure kind, one byte each, read as one word.
  static_assert(sizeof(supply_[0]) == sizeof(uint32_t));
  uint32_t counts;
  std::memcpy(&counts, supply_[turn_.player].data(), sizeof counts);
  if (counts == 0) return after_figure();
  // Meeples only (no Abbey & Mayor: no other figure in the supply, no barn) and no arrow's
  // figure: the options are meeples on the tile's features that have no figure.
  if (!rules_.abbey_mayor && arrows_.active != ArrowKind::MeepleBeside && arrows_.active != ArrowKind::PlaceAnywhere) {
    if (!tile_has_free_feature()) after_figure();
    return;
  }
  if (!any_figure_option()) after_figure();
}

bool State::tile_has_free_feature() const {
  // A free feature's first segment on the tile is an option (first_on_its_tile): any of its
  // segments tells.
  const PlacedTile& t = board_.tile(turn_.last_slot);
  for (unsigned segments = catalogue().kind(t.kind).figure_segments; segments; segments &= segments - 1)
    if (features_.feature(t.first_segment + std::countr_zero(segments)).occupants == 0) return true;
  return false;
}

bool State::any_figure_option() const {
  Action buffer[kMaxActions];
  return figure_options(buffer, 1) > 0;
}

inline bool State::placeable(KindId kind_id) const {  // inline: its one caller is draw_tile
  const TileKind& kind = catalogue().kind(kind_id);
  if (kind.river_sides) return river_placeable(kind);  // out of line, with its buffer
  const bool limited = rules_.shrines && kind.cloister_segment >= 0;
  for (int i = 0; i < kind.num_distinct_rotations; ++i) {
    if (!limited) {
      if (board_.fits_anywhere(kind.distinct_signatures[i])) return true;
      continue;
    }
    bool found = false;
    board_.for_each_fit(kind.distinct_signatures[i],
                        [&](int f) { found |= cult_limit_ok(board_.frontier_cell(f), kind); });
    if (found) return true;
  }
  return false;
}

void State::add_figure(int player, FigureKind kind, uint16_t segment, bool from_supply) {
  figures_.push_back(PlacedFigure{segment, uint8_t(player), kind});
  if (from_supply) {
    assert(supply_[player][int(kind)] > 0);
    --supply_[player][int(kind)];
  }
  Segment& f = features_.feature(segment);
  count_figure(f, player, kind);
  if (rules_.shrines && is_cloister_like(f.type)) start_challenges(segment);
}

// Inline in its three callers, all here: any_figure_option's test (limit 1), the test after a
// tile of games with more figures than meeples, is then a few instructions instead of a call.
[[gnu::always_inline]] inline int State::figure_options(Action* out, int limit, bool fields) const {
  int n = 0;
  const int p = turn_.player;
  const auto& supply = supply_[p];
  const PlacedTile& t = board_.tile(turn_.last_slot);
  const TileKind& tile_kind = catalogue().kind(t.kind);
  unsigned segments = tile_kind.figure_segments & (fields ? ~0u : ~unsigned(tile_kind.field_segments));
  for (; segments; segments &= segments - 1) {  // in the tile's order
    const int i = std::countr_zero(segments);
    const uint16_t s = uint16_t(t.first_segment + i);
    const Segment& f = features_.feature(s);
    if (f.occupants || !first_on_its_tile(s)) continue;
    if (!rules_.abbey_mayor) {  // meeples only, and no barn keeps them out (may_stand_on: anywhere)
      if (supply[int(FigureKind::Meeple)]) out[n++] = Action::figure(FigureKind::Meeple, i);
    } else {
      const FeatureType type = features_[s].type;
      for (FigureKind kind : {FigureKind::Meeple, FigureKind::Mayor, FigureKind::Wagon})
        if (supply[int(kind)] && may_stand_on(kind, type) && !barn_keeps_out(kind, f))
          out[n++] = Action::figure(kind, i);
    }
    if (n >= limit) return n;
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
  if (arrows_.active == ArrowKind::MeepleBeside || arrows_.active == ArrowKind::PlaceAnywhere)
    n += arrow_figure_options(out + n);
  return n;
}

// ---- Turn flow -------------------------------------------------------------------------------

void State::after_figure() {
  // Phase 3: completed features (cities, roads, cloister-like), then barn-triggered fields.
  scoring_.start_scores = scores_;
  scoring_.scored = false;
  scoring_.moved_out = 0;
  if (!scoring_.pending.empty() || !scoring_.barn_fields.empty()) return score_completed();
  // Most turns: nothing to score.
  scoring_.next = 0;
  scoring_.city_step = 0;
  if (rules_.count) return end_of_phase3();  // CK-3 may follow
  finish_turn();
}

void State::start_turn() {
  const int players = rules_.players;
  if (bag_.size() + river_.stack.size() > 0) {
    turn_.phase = rules_.abbey_mayor && abbeys_[turn_.player] && has_hole() ? Phase::AbbeyChoice : Phase::Draw;
    return;
  }
  // The bag is empty: the abbey endgame (AM-A-5), then the end.
  if (rules_.abbey_mayor && has_hole()) {
    if (rules_.abbey_endgame == AbbeyEndgame::Mandatory) {
      for (int i = 0; i < players; ++i) {
        int p = (turn_.player + i) % players;
        if (abbeys_[p]) {
          turn_.player = uint8_t(p);
          turn_.phase = Phase::AbbeyChoice;
          return;
        }
      }
    } else if (rules_.abbey_endgame == AbbeyEndgame::FinalRound) {
      // Each player once, from the one left of the last tile's placer (not always the player on
      // turn: an unplaceable last tile is drawn and discarded by the next, B-4).
      if (turn_.endgame == 0) {
        turn_.endgame = uint8_t(players + 1);
        if (turn_.last_placer >= 0) turn_.player = uint8_t((turn_.last_placer + 1) % players);
      }
      while (--turn_.endgame > 0) {
        if (abbeys_[turn_.player]) {
          turn_.phase = Phase::AbbeyChoice;
          return;
        }
        turn_.player = uint8_t((turn_.player + 1) % players);
      }
    }
  }
  begin_game_end();
}

void State::finish_turn() {
  // XX-6 and RV-6: one more full turn, never a third in a row (the volcano lake's extra turn
  // counts too, RULES 5.5); an arrow gives none once the bag is empty.
  bool again = !turn_.in_extra_turn && (turn_.volcano || (turn_.extra_turn && bag_.size() + river_.stack.size() > 0));
  turn_.in_extra_turn = again;
  turn_.extra_turn = false;
  turn_.volcano = false;
  arrows_.active = ArrowKind::None;
  if (!again) turn_.player = uint8_t((turn_.player + 1) % rules_.players);
  ++turn_.number;
  start_turn();
}

inline void State::remove_from_bag(KindId kind) {  // inline: its one caller is draw_tile
  assert(bag_count_[kind] > 0);
  auto& river = river_.stack;  // RV-3: river tiles come from their own stack
  if (!river.empty()) {
    if (auto it = std::find(river.begin(), river.end(), kind); it != river.end()) {
      river.swap_remove(int(it - river.begin()));
      --bag_count_[kind];
      return;
    }
  }
  // The last copy of the kind (a fixed order draws from the end); glibc's memrchr scans many
  // bytes at a time.
  static_assert(sizeof(KindId) == 1);
#ifdef __GLIBC__
  const auto* last = static_cast<const KindId*>(::memrchr(bag_.begin(), kind, size_t(bag_.size())));
#else
  const KindId* last = bag_.end() - 1;
  while (*last != kind) --last;
#endif
  assert(last && *last == kind);
  bag_.swap_remove(int(last - bag_.begin()));
  --bag_count_[kind];
}

void State::apply_unchecked(Action a) {
  // The base game's phases here; each expansion's in its rules_*.cpp. Each case is a call in
  // tail position: the dispatch itself saves no registers.
  switch (turn_.phase) {
    case Phase::Draw: return draw_tile(KindId(a.tile_kind()));
    case Phase::AbbeyChoice: return choose_abbey(a);
    case Phase::PlaceTile: return place_drawn_tile(a.cell(), a.rotation());
    case Phase::ArrowChoice: return choose_arrow(a.cell());
    case Phase::PlaceFigure: return place_figure(a);
    case Phase::WagonMove: return move_wagon(a);
    case Phase::CityMove: return move_from_city(a);
    case Phase::CityPlace: return place_in_city(a);
    case Phase::CountMove: city_.count = uint8_t(a.quarter()); return finish_turn();
    case Phase::MarketMove: return move_from_market(a);
    case Phase::GameOver: assert(false); return;
  }
}

void State::draw_tile(KindId kind) {
  remove_from_bag(kind);
  if (!placeable(kind)) {  // B-4: out of the game, draw again
    ++turn_.discarded;
    if (bag_.size() + river_.stack.size() == 0) start_turn();
    return;
  }
  turn_.drawn = kind;
  turn_.phase = Phase::PlaceTile;
}

void State::place_drawn_tile(Cell c, int rotation) {
  put_tile(c, turn_.drawn, rotation);
  turn_.last_placer = int8_t(turn_.player);
  const TileKind& kind = catalogue().kind(turn_.drawn);
  if (kind.river_sides && !after_river_tile(c, kind, rotation)) return;
  if (rules_.anniv20) {
    after_placement(c);  // arrows, then the figure decision
  } else {
    enter_figure_phase();
  }
}

void State::place_figure(Action a) {
  if (a.kind() == ActionKind::Figure && a.elsewhere()) {
    place_figure_elsewhere(a.figure_cell(), a.feature());
  } else if (a.kind() == ActionKind::Figure && a.figure_kind() == FigureKind::Barn) {
    place_barn(a.feature());
  } else if (a.kind() == ActionKind::Figure) {
    add_figure(turn_.player, a.figure_kind(), uint16_t(board_.tile(turn_.last_slot).first_segment + a.feature()), true);
  }
  after_figure();
}

Action State::sample_chance() {
  if (turn_.phase != Phase::Draw) throw IllegalActionError("sample_chance: this node is not a draw");
  if (river_.stack.size() > 0) {  // RV-3: the fork first, the volcano lake last, the others shuffled
    Action options[16];
    int n = legal_actions(options);
    return options[n == 1 ? 0 : rng_.below(uint32_t(n))];
  }
  KindId kind = fixed_order_ ? bag_.back() : bag_[rng_.below(uint32_t(bag_.size()))];
  return Action::draw(kind);
}

Action State::sample_legal_action(Rng& rng) const {
  if (turn_.phase == Phase::PlaceTile) {
    const TileKind& kind = catalogue().kind(turn_.drawn);
    if (!kind.river_sides) return sample_placement(kind, rng);
  }
  Action buffer[kMaxActions];
  int n = legal_actions(buffer);
  return buffer[rng.below(uint32_t(n))];
}

Action State::sample_placement(const TileKind& kind, Rng& rng) const {
  // Rejection sampling over (frontier cell, distinct rotation) pairs: a pair drawn uniformly is
  // kept if it is legal, so the result is uniform over the legal placements. A few tries a turn
  // (most cells take some rotation) cost less than listing them; after kTries misses (a tile
  // that fits almost nowhere) the list takes over, which keeps the result uniform.
  constexpr int kTries = 24;
  const bool limited = rules_.shrines && kind.cloister_segment >= 0;  // SH-2 limits cloisters
  const uint64_t rotations = kind.num_distinct_rotations, cells = uint64_t(board_.frontier_size());
  Rng local = rng;  // a local copy stays in registers across the tries
  for (int t = 0; t < kTries; ++t) {
    uint64_t bits = local.next();  // two uniform draws (Lemire's multiply-shift, bias below 2^-32)
    const int f = int(((bits >> 32) * cells) >> 32), i = int(((bits & 0xFFFFFFFFu) * rotations) >> 32);
    if (board_.fits(f, kind.distinct_signatures[i]) && (!limited || cult_limit_ok(board_.frontier_cell(f), kind))) {
      rng = local;
      return Action::place_at_key(board_.frontier_key(f), kind.distinct_rotations[i]);
    }
  }
  rng = local;
  Action buffer[kMaxActions];
  int n = legal_actions(buffer);
  return buffer[rng.below(uint32_t(n))];
}

// ---- Legal actions ---------------------------------------------------------------------------

int State::legal_actions_without_farmers(Action* out) const {
  assert(turn_.phase == Phase::PlaceFigure);
  out[0] = Action::pass();
  return 1 + figure_options(out + 1, kMaxActions, false);
}

int State::current_player() const {
  switch (turn_.phase) {
    case Phase::Draw: return kChancePlayer;
    case Phase::GameOver: return kTerminalPlayer;
    case Phase::WagonMove: return wagons_[0].owner;
    case Phase::CityMove: return (turn_.player + 1 + scoring_.city_step) % rules_.players;
    case Phase::MarketMove: return city_.market_player;
    default: return turn_.player;
  }
}

int State::legal_actions(Action* out) const {
  int n = 0;
  switch (turn_.phase) {
    case Phase::Draw:
      if (!river_.stack.empty()) {
        n = river_draws(out);
      } else if (fixed_order_) {
        out[n++] = Action::draw(bag_.back());
      } else {
        for (int k = 0; k < catalogue().size(); ++k)
          if (bag_count_[k]) out[n++] = Action::draw(k);
      }
      break;
    case Phase::AbbeyChoice:
      n = abbey_options(out);
      if (bag_.size() > 0) out[n++] = Action::take_tile();
      else if (rules_.abbey_endgame == AbbeyEndgame::FinalRound) out[n++] = Action::pass();
      break;
    case Phase::PlaceTile: {
      const TileKind& kind = catalogue().kind(turn_.drawn);
      if (kind.river_sides) {
        n = river_placements(kind, out);
        break;
      }
      const bool limited = rules_.shrines && kind.cloister_segment >= 0;
      // SH-2's limit depends on the cell only: asked once per cell (0 not yet, 1 ok, 2 not ok).
      uint8_t cult_ok[kMaxFrontier];
      if (limited) std::fill_n(cult_ok, board_.frontier_size(), uint8_t(0));
      for (int i = 0; i < kind.num_distinct_rotations; ++i) {
        int r = kind.distinct_rotations[i];
        board_.for_each_fit(kind.rotations[r].signature, [&](int f) {
          if (limited && !cult_ok[f]) cult_ok[f] = cult_limit_ok(board_.frontier_cell(f), kind) ? 1 : 2;
          if (!limited || cult_ok[f] == 1) out[n++] = Action::place_at_key(board_.frontier_key(f), r);
        });
      }
      break;
    }
    case Phase::ArrowChoice:
      for (int i = 0; i < arrows_.candidates.size(); ++i)
        out[n++] = Action::arrow(board_.tile(arrows_.candidates[i]).cell);
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
    case Phase::MarketMove: n = market_options(out); break;
    case Phase::GameOver: break;
  }
  return n;
}

std::vector<Action> State::legal_actions() const {
  Action buffer[kMaxActions];  // uninitialized: a sized vector would zero all kMaxActions
  std::vector<Action> out(buffer, buffer + legal_actions(buffer));
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<std::pair<Action, double>> State::chance_outcomes() const {
  std::vector<std::pair<Action, double>> out;
  if (turn_.phase != Phase::Draw) return out;
  std::vector<Action> draws = legal_actions();
  int total = 0;
  for (Action a : draws) total += bag_count_[a.tile_kind()];
  for (Action a : draws)
    out.emplace_back(a, fixed_order_ && !river_.stack.size() ? 1.0 : double(bag_count_[a.tile_kind()]) / total);
  return out;
}

bool State::is_legal(Action a) const { return why_illegal(a).empty(); }

std::string State::why_illegal(Action a) const {
  auto listed = [&] {
    Action buffer[kMaxActions];
    int n = legal_actions(buffer);
    return std::find(buffer, buffer + n, a) != buffer + n;
  };
  switch (turn_.phase) {
    case Phase::GameOver: return "the game is over";
    case Phase::Draw:
      if (a.kind() != ActionKind::Draw) return "a tile must be drawn first";
      if (!a.well_formed() || a.tile_kind() >= catalogue().size() || bag_count_[a.tile_kind()] == 0)
        return "that tile is not in the bag";
      if (river_.stack.size() > 0)
        return listed() ? "" : "the river tiles come first: the fork, then the others, the volcano lake last (RV-3)";
      if (fixed_order_ && bag_.back() != a.tile_kind())
        return "the draw order is fixed: the next tile is " + catalogue().kind(bag_.back()).name;
      return "";
    case Phase::AbbeyChoice:
      if (listed()) return "";
      if (a.kind() == ActionKind::Abbey) return "an abbey goes into a hole: an empty cell with 4 neighbours (AM-A-1)";
      if (bag_.size() == 0 && rules_.abbey_endgame == AbbeyEndgame::Mandatory)
        return "the bag is empty: the abbey must be placed (AM-A-5 mandatory)";
      return bag_.size() > 0 ? "place the abbey or take a tile" : "place the abbey or pass";
    case Phase::PlaceTile: {
      if (a.kind() != ActionKind::Place) return "the drawn tile must be placed first";
      if (!a.well_formed()) return "malformed action code";
      Cell c = a.cell();
      if (board_.occupied(c)) return "the cell already holds a tile";
      int f = board_.frontier_index(c);
      if (f < 0) return "the cell touches no tile (B-3)";
      const TileKind& kind = catalogue().kind(turn_.drawn);
      if (kind.river_sides && !listed())
        return "a river tile continues exactly one open river end, with no U-turn and without touching the other "
               "branch (RV-1, RV-2)";
      bool distinct =
          std::find(kind.distinct_rotations.begin(), kind.distinct_rotations.begin() + kind.num_distinct_rotations,
                    a.rotation()) != kind.distinct_rotations.begin() + kind.num_distinct_rotations;
      if (!board_.fits(f, kind.rotations[a.rotation()].signature))
        return "the tile's sides do not match its neighbours (B-3)";
      if (!distinct) return "that rotation shows the same tile as a lower one: use the lowest";
      if (!cult_limit_ok(c, kind))
        return "a shrine and a monastery may not have two of the other kind around them (SH-2)";
      return "";
    }
    case Phase::ArrowChoice:
      return listed() ? "" : "choose which arrow activates (XX-3): arrow <x>,<y> of one of the candidates";
    case Phase::PlaceFigure: {
      if (listed()) return "";
      if (a.kind() == ActionKind::Pass) return "malformed action code";
      if (a.kind() != ActionKind::Figure) return "a figure (or pass) is to be chosen now";
      if (a.elsewhere()) {
        if (arrows_.active == ArrowKind::PlaceAnywhere && a.figure_cell() == board_.tile(turn_.last_slot).cell)
          return "on the tile just placed a meeple goes without '@': the ordinary placement (B-5)";
        if (arrows_.active == ArrowKind::MeepleBeside)
          return "a meeple goes beside an unpaired figure of yours on an unfinished feature (XX-4)";
        if (arrows_.active == ArrowKind::PlaceAnywhere)
          return "a meeple goes on an unoccupied, unfinished feature (XX-5)";
        return "a figure goes on the tile just placed unless an arrow says otherwise (B-5)";
      }
      if (!a.well_formed() || int(a.figure_kind()) >= kNumFigureKinds) return "malformed figure action";
      FigureKind kind = a.figure_kind();
      std::string name = figure_kind_name(kind);
      if (!figure_in_play(kind)) return "the " + name + " is not in play";
      if (supply_[turn_.player][int(kind)] == 0) return "no " + name + " left in supply";
      const PlacedTile& t = board_.tile(turn_.last_slot);
      if (kind == FigureKind::Barn) {
        if (a.feature() > 3) return "a barn goes on a corner 0-3";
        uint16_t field;
        if (!barn_corner_ok(t.cell, a.feature(), &field))
          return "a barn needs 4 tiles whose fields meet at that corner (AM-B-1)";
        if (features_.feature(field).barns) return "that field has a barn already (AM-B-2)";
        return "a lower corner of this tile is on the same field: the barn is offered there";
      }
      if (a.feature() >= catalogue().kind(t.kind).num_segments) return "the tile has no such feature";
      FeatureType type = features_[t.first_segment + a.feature()].type;
      const Segment& f = features_.feature(t.first_segment + a.feature());
      if (!can_hold_figure(type)) return "no figure may stand on that feature";
      if (!may_stand_on(kind, type)) return where_it_stands(kind);
      if (f.occupants) return "that feature is already occupied (B-5)";
      if (barn_keeps_out(kind, f)) return "no farmer may join a field with a barn (AM-B-4)";
      if (!first_on_its_tile(uint16_t(t.first_segment + a.feature())))
        return "a lower feature number of this tile is the same feature: the figure is offered there";
      return "not a legal figure choice here";
    }
    case Phase::WagonMove:
      return listed()
                 ? ""
                 : "the wagon moves to an unfinished, unoccupied feature next to it (AM-W-2, AM-W-4) or returns (pass)";
    case Phase::CityMove:
      return listed() ? ""
                      : "move a figure from the matching quarter (not the Count's) onto the feature being scored, or "
                        "pass (CK-4, CK-5)";
    case Phase::CityPlace:
      return listed() ? ""
                      : "put a meeple into a quarter (a mayor into the castle, a wagon anywhere but the market), or "
                        "pass (CK-3)";
    case Phase::CountMove: return listed() ? "" : "move the Count to a quarter (CK-3)";
    case Phase::MarketMove: return listed() ? "" : "move one meeple from the market onto a field (CK-6)";
  }
  return "unknown phase";
}

Action State::checked(Action a) const {
  std::string why = why_illegal(a);
  if (!why.empty()) throw IllegalActionError("illegal action '" + action_to_string(a) + "': " + why);
  return a;
}

void State::apply(Action a) { apply_unchecked(checked(a)); }

}  // namespace carc
