#include "game.h"

#include <algorithm>
#include <charconv>
#include <set>
#include <sstream>

namespace carc {

namespace {

const Catalogue& catalogue() { return Catalogue::builtin(); }

const RotatedTile& rotated(const PlacedTile& t) { return catalogue().kind(t.kind).rotations[t.rotation]; }

bool can_hold_figure(FeatureType t) { return t != FeatureType::River && t != FeatureType::Quarter; }

// Scoring order within one phase 3 (RULES 5.4b): cities, roads, cloister-like.
int scoring_rank(FeatureType t) { return t == FeatureType::City ? 0 : t == FeatureType::Road ? 1 : 2; }

std::string cell_text(Cell c) { return std::to_string(c.x) + "," + std::to_string(c.y); }

// Returns true if the tile set is in play under this config ("count-city" is expansion "city").
bool enabled_set(const Config& config, const std::string& set) {
  if (set == "base") return true;
  const std::string& expansion = set == "count-city" ? std::string("city") : set;
  return std::find(config.expansions.begin(), config.expansions.end(), expansion) != config.expansions.end();
}

// Returns true for the tiles that go into the bag: land tiles of enabled sets, not the start.
bool bag_tile(const Config& config, const TileKind& kind) {
  return enabled_set(config, kind.set) && kind.name != "abbey-mayor.A" && kind.set != "count-city" &&
         kind.set != "river2";
}

}  // namespace

std::string draw_to_string(int kind) { return "draw " + catalogue().kind(KindId(kind)).name; }

std::string place_to_string(Action a) { return "place " + cell_text(a.cell()) + " r" + std::to_string(a.rotation()); }

const char* figure_kind_name(FigureKind f) {
  switch (f) {
    case FigureKind::Meeple: return "meeple";
  }
  return "?";
}

// ---- Set-up ---------------------------------------------------------------------------------

State::State(const Config& raw) {
  Config config = validate(raw);
  init(config);
  const Catalogue& cat = catalogue();
  KindId start = 0;
  for (const TileKind& k : cat.kinds())
    if (k.is_start) start = k.id;
  put_tile(Cell{0, 0}, start, 0);
  num_pending_ = 0;
  if (!fixed_order_) {
    for (const TileKind& k : cat.kinds()) {
      if (!bag_tile(config, k)) continue;
      for (int i = k.is_start ? 1 : 0; i < k.count; ++i) bag_[bag_size_++] = k.id;
      bag_count_[k.id] = uint8_t(k.count - (k.is_start ? 1 : 0));
    }
  }
  start_turn();
}

void State::init(const Config& raw) {
  Config config = validate(raw);
  num_players_ = uint8_t(config.players);
  seed_ = config.seed;
  rng_.reseed(config.seed);
  board_.clear();
  features_.clear();
  for (int p = 0; p < kMaxPlayers; ++p) supply_[p] = p < num_players_ ? kMeeplesPerPlayer : 0;
  fixed_order_ = !config.draw_order.empty();
  const Catalogue& cat = catalogue();
  for (auto it = config.draw_order.rbegin(); it != config.draw_order.rend(); ++it) {
    KindId k = cat.find(*it);
    bag_[bag_size_++] = k;
    ++bag_count_[k];
  }
}

State State::from_position(const Position& position) {
  State st;
  st.init(position.config);
  const Catalogue& cat = catalogue();
  Config config = validate(position.config);
  if (position.tiles.empty()) throw PositionError("a position needs at least one tile");
  std::vector<int> used(cat.size(), 0);
  for (size_t i = 0; i < position.tiles.size(); ++i) {
    const Position::Tile& t = position.tiles[i];
    std::string where = "tile #" + std::to_string(i) + " (" + t.kind + " at " + cell_text(t.cell) + ")";
    if (!cat.contains(t.kind)) throw PositionError(where + ": unknown tile");
    const TileKind& kind = cat.kind(cat.find(t.kind));
    if (!enabled_set(config, kind.set)) throw PositionError(where + ": set '" + kind.set + "' is not enabled");
    if (++used[kind.id] > kind.count) throw PositionError(where + ": more copies than the set has");
    if (t.rotation < 0 || t.rotation > 3) throw PositionError(where + ": rotation must be 0-3");
    if (std::abs(t.cell.x) > 200 || std::abs(t.cell.y) > 200) throw PositionError(where + ": cell out of range");
    if (st.board_.occupied(t.cell)) throw PositionError(where + ": cell already holds a tile");
    if (i > 0) {
      int f = st.board_.frontier_index(t.cell);
      if (f < 0) throw PositionError(where + ": does not touch an earlier tile");
      if (!st.board_.fits(f, kind.rotations[t.rotation].signature))
        throw PositionError(where + ": sides do not match its neighbours (B-3)");
    }
    st.put_tile(t.cell, kind.id, t.rotation);
    for (int p = 0; p < st.num_pending_; ++p) st.features_[st.pending_[p]].done = 1;
    st.num_pending_ = 0;
  }
  for (size_t i = 0; i < position.figures.size(); ++i) {
    const Position::Figure& f = position.figures[i];
    std::string where = "figure #" + std::to_string(i) + " (" + f.kind + " at " + cell_text(f.cell) + ")";
    if (f.player < 0 || f.player >= st.num_players_) throw PositionError(where + ": no such player");
    if (f.kind != "meeple") throw PositionError(where + ": unknown or unsupported figure kind");
    int slot = st.board_.slot_at(f.cell);
    if (slot < 0) throw PositionError(where + ": no tile there");
    const PlacedTile& tile = st.board_.tile(slot);
    const TileKind& kind = cat.kind(tile.kind);
    if (f.feature < 0 || f.feature >= kind.num_segments) throw PositionError(where + ": no feature #" + std::to_string(f.feature) + " on " + kind.name);
    uint16_t seg = uint16_t(tile.first_segment + f.feature);
    if (!can_hold_figure(st.features_[seg].type)) throw PositionError(where + ": no figure may stand there");
    if (st.features_.feature(seg).done) throw PositionError(where + ": the feature is completed, so it would have been scored");
    if (st.supply_[f.player] == 0) throw PositionError(where + ": player has no meeple left");
    st.add_figure(f.player, FigureKind::Meeple, seg);
  }
  if (!position.scores.empty()) {
    if (int(position.scores.size()) != st.num_players_) throw PositionError("scores: one per player expected");
    for (int p = 0; p < st.num_players_; ++p) {
      if (position.scores[p] < 0 || position.scores[p] > 30000) throw PositionError("scores: out of range");
      st.scores_[p] = int16_t(position.scores[p]);
    }
  }
  if (!st.fixed_order_) {
    std::vector<int> left(cat.size(), 0);
    if (position.bag) {
      for (const std::string& name : *position.bag) {
        if (!cat.contains(name)) throw PositionError("bag: unknown tile '" + name + "'");
        const TileKind& kind = cat.kind(cat.find(name));
        if (!enabled_set(config, kind.set)) throw PositionError("bag: set '" + kind.set + "' is not enabled");
        if (++left[kind.id] + used[kind.id] > kind.count) throw PositionError("bag: more copies of '" + name + "' than the set has");
      }
    } else {
      for (const TileKind& k : cat.kinds())
        if (bag_tile(config, k)) left[k.id] = std::max(0, k.count - used[k.id]);
    }
    for (const TileKind& k : cat.kinds())
      for (int i = 0; i < left[k.id]; ++i) {
        if (st.bag_size_ == kMaxTiles) throw PositionError("bag: too many tiles");
        st.bag_[st.bag_size_++] = k.id;
        ++st.bag_count_[k.id];
      }
  }
  if (position.current_player < 0 || position.current_player >= st.num_players_)
    throw PositionError("current_player: no such player");
  st.turn_player_ = uint8_t(position.current_player);
  st.start_turn();
  return st;
}

// ---- Placing tiles ---------------------------------------------------------------------------

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
    if (b >= 0) --features_.feature(nt.first_segment + b).open;
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
    const Segment& f = features_.feature(first + i);
    if ((f.type == FeatureType::Road || f.type == FeatureType::City) && f.open == 0) add_pending(features_.root(first + i));
  }
}

bool State::placeable(KindId kind_id) const {
  const TileKind& kind = catalogue().kind(kind_id);
  for (int i = 0; i < kind.num_distinct_rotations; ++i)
    if (board_.fits_anywhere(kind.rotations[kind.distinct_rotations[i]].signature)) return true;
  return false;
}

void State::add_figure(int player, FigureKind kind, uint16_t segment) {
  assert(supply_[player] > 0 && num_figures_ < kMaxPlacedFigures);
  figures_[num_figures_++] = PlacedFigure{segment, uint8_t(player), kind};
  --supply_[player];
  Segment& f = features_.feature(segment);
  ++f.occupants;
  ++f.meeples[player];
}

// ---- Turn flow -------------------------------------------------------------------------------

void State::start_turn() {
  if (bag_size_ == 0) {
    final_scoring();
    phase_ = Phase::GameOver;
    return;
  }
  phase_ = Phase::Draw;
}

void State::finish_turn() {
  turn_player_ = uint8_t((turn_player_ + 1) % num_players_);
  ++turn_number_;
  start_turn();
}

void State::remove_from_bag(KindId kind) {
  assert(bag_count_[kind] > 0);
  int i = bag_size_ - 1;
  if (!fixed_order_)
    while (bag_[i] != kind) --i;
  assert(bag_[i] == kind);
  bag_[i] = bag_[bag_size_ - 1];
  --bag_size_;
  --bag_count_[kind];
}

bool State::has_figure_option() const {
  if (supply_[turn_player_] == 0) return false;
  const PlacedTile& t = board_.tile(last_slot_);
  int n = catalogue().kind(t.kind).num_segments;
  for (int i = 0; i < n; ++i) {
    const Segment& f = features_.feature(t.first_segment + i);
    if (can_hold_figure(features_[t.first_segment + i].type) && f.occupants == 0) return true;
  }
  return false;
}

void State::apply_unchecked(Action a) {
  switch (phase_) {
    case Phase::Draw: {
      KindId kind = KindId(a.tile_kind());
      remove_from_bag(kind);
      if (!placeable(kind)) {  // B-4: out of the game, draw again
        ++discarded_;
        start_turn();
        return;
      }
      drawn_ = kind;
      phase_ = Phase::PlaceTile;
      return;
    }
    case Phase::PlaceTile:
      put_tile(a.cell(), drawn_, a.rotation());
      phase_ = Phase::PlaceFigure;
      if (has_figure_option()) return;
      score_completed();
      finish_turn();
      return;
    case Phase::PlaceFigure:
      if (a.kind() == ActionKind::Figure) add_figure(turn_player_, a.figure_kind(), uint16_t(board_.tile(last_slot_).first_segment + a.feature()));
      score_completed();
      finish_turn();
      return;
    case Phase::GameOver:
      assert(false);
      return;
  }
}

Action State::sample_chance() {
  assert(phase_ == Phase::Draw && bag_size_ > 0);
  KindId kind = fixed_order_ ? bag_[bag_size_ - 1] : bag_[rng_.below(uint32_t(bag_size_))];
  return Action::draw(kind);
}

Action State::sample_legal_action(Rng& rng) const {
  if (phase_ == Phase::PlaceTile) {
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

void State::award(const std::array<int, kMaxPlayers>& strength, int points, Cause cause) {
  int best = *std::max_element(strength.begin(), strength.end());
  if (best <= 0 || points <= 0) return;
  for (int p = 0; p < num_players_; ++p) {
    if (strength[p] != best) continue;
    scores_[p] = int16_t(scores_[p] + points);
    breakdown_[p][int(cause)] = int16_t(breakdown_[p][int(cause)] + points);
  }
}

void State::return_figures(uint16_t root) {
  for (int i = 0; i < num_figures_;) {
    if (features_.root(figures_[i].segment) == root) {
      ++supply_[figures_[i].owner];
      figures_[i] = figures_[--num_figures_];
    } else {
      ++i;
    }
  }
  Segment& f = features_[root];
  f.occupants = 0;
  f.mayors = 0;
  f.meeples.fill(0);
}

int State::completed_cities_touching(uint16_t field_root) const {
  std::array<uint16_t, 128> seen;
  int n = 0;
  features_.for_each_member(field_root, [&](int m) {
    const Segment& s = features_[m];
    const PlacedTile& t = board_.tile(s.tile);
    uint16_t cities = catalogue().kind(t.kind).rotations[0].segments[s.local].cities;
    for (; cities; cities &= uint16_t(cities - 1)) {
      uint16_t city = features_.root(t.first_segment + __builtin_ctz(cities));
      if (features_[city].open != 0) continue;
      if (std::find(seen.begin(), seen.begin() + n, city) == seen.begin() + n && n < int(seen.size())) seen[n++] = city;
    }
  });
  return n;
}

void State::score_feature(uint16_t root, bool final) {
  const Segment& f = features_[root];
  std::array<int, kMaxPlayers> strength{};
  for (int p = 0; p < num_players_; ++p) strength[p] = f.meeples[p];
  switch (f.type) {
    case FeatureType::Road:
      award(strength, f.tiles, Cause::Road);
      break;
    case FeatureType::City:
      award(strength, (final ? 1 : 2) * (f.tiles + f.pennants), Cause::City);
      break;
    case FeatureType::Monastery:
    case FeatureType::Abbey:
      award(strength, 9 - f.open, Cause::Cloister);
      break;
    case FeatureType::Shrine:
      award(strength, 9 - f.open, Cause::Shrine);
      break;
    case FeatureType::Field:
      award(strength, 3 * completed_cities_touching(root), Cause::Field);
      break;
    default:
      break;
  }
}

void State::score_completed() {
  std::sort(pending_.begin(), pending_.begin() + num_pending_, [&](uint16_t a, uint16_t b) {
    int ra = scoring_rank(features_[a].type), rb = scoring_rank(features_[b].type);
    return ra != rb ? ra < rb : a < b;
  });
  for (int i = 0; i < num_pending_; ++i) {
    uint16_t root = pending_[i];
    if (features_[root].occupants) {
      score_feature(root, false);
      return_figures(root);
    }
    features_[root].done = 1;
  }
  num_pending_ = 0;
}

void State::final_scoring() {
  for (int s = 0; s < features_.size(); ++s) {
    const Segment& f = features_[s];
    if (f.root != s || f.occupants == 0 || f.done) continue;
    score_feature(uint16_t(s), true);
  }
}

std::vector<double> State::returns() const {
  std::vector<double> out(num_players_, 0.0);
  if (!is_terminal()) return out;
  int best = *std::max_element(scores_.begin(), scores_.begin() + num_players_);
  int winners = int(std::count(scores_.begin(), scores_.begin() + num_players_, best));
  for (int p = 0; p < num_players_; ++p)
    if (scores_[p] == best) out[p] = 1.0 / winners;
  return out;
}

// ---- Legal actions ---------------------------------------------------------------------------

int State::current_player() const {
  switch (phase_) {
    case Phase::Draw: return kChancePlayer;
    case Phase::GameOver: return kTerminalPlayer;
    default: return turn_player_;
  }
}

int State::legal_actions(Action* out) const {
  int n = 0;
  switch (phase_) {
    case Phase::Draw:
      if (fixed_order_) {
        out[n++] = Action::draw(bag_[bag_size_ - 1]);
      } else {
        for (int k = 0; k < catalogue().size(); ++k)
          if (bag_count_[k]) out[n++] = Action::draw(k);
      }
      break;
    case Phase::PlaceTile: {
      const TileKind& kind = catalogue().kind(drawn_);
      for (int i = 0; i < kind.num_distinct_rotations; ++i) {
        int r = kind.distinct_rotations[i];
        board_.for_each_fit(kind.rotations[r].signature,
                            [&](int f) { out[n++] = Action::place_at_key(board_.frontier_key(f), r); });
      }
      break;
    }
    case Phase::PlaceFigure: {
      out[n++] = Action::pass();
      if (supply_[turn_player_] == 0) break;
      const PlacedTile& t = board_.tile(last_slot_);
      int segments = catalogue().kind(t.kind).num_segments;
      for (int i = 0; i < segments; ++i) {
        if (!can_hold_figure(features_[t.first_segment + i].type)) continue;
        if (features_.feature(t.first_segment + i).occupants == 0) out[n++] = Action::figure(FigureKind::Meeple, i);
      }
      break;
    }
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
  for (Action a : legal_actions())
    out.emplace_back(a, fixed_order_ ? 1.0 : double(bag_count_[a.tile_kind()]) / bag_size_);
  return out;
}

bool State::is_legal(Action a) const { return why_illegal(a).empty(); }

std::string State::why_illegal(Action a) const {
  switch (phase_) {
    case Phase::GameOver:
      return "the game is over";
    case Phase::Draw:
      if (a.kind() != ActionKind::Draw) return "a tile must be drawn first";
      if (a.tile_kind() >= catalogue().size() || bag_count_[a.tile_kind()] == 0) return "that tile is not in the bag";
      if (fixed_order_ && bag_[bag_size_ - 1] != a.tile_kind()) return "the draw order is fixed: the next tile is " + catalogue().kind(bag_[bag_size_ - 1]).name;
      return "";
    case Phase::PlaceTile: {
      if (a.kind() != ActionKind::Place) return "the drawn tile must be placed first";
      if ((a.code >> 24) != 0) return "malformed action code";
      Cell c = a.cell();
      if (board_.occupied(c)) return "the cell already holds a tile";
      int f = board_.frontier_index(c);
      if (f < 0) return "the cell touches no tile (B-3)";
      const TileKind& kind = catalogue().kind(drawn_);
      bool distinct = std::find(kind.distinct_rotations.begin(), kind.distinct_rotations.begin() + kind.num_distinct_rotations,
                                a.rotation()) != kind.distinct_rotations.begin() + kind.num_distinct_rotations;
      if (!board_.fits(f, kind.rotations[a.rotation()].signature)) return "the tile's sides do not match its neighbours (B-3)";
      if (!distinct) return "that rotation shows the same tile as a lower one: use the lowest";
      return "";
    }
    case Phase::PlaceFigure: {
      if (a.kind() == ActionKind::Pass) return a.code == uint32_t(ActionKind::Pass) ? "" : "malformed action code";
      if (a.kind() != ActionKind::Figure) return "a figure (or pass) is to be chosen now";
      if ((a.code >> 12) != 0 || int(a.figure_kind()) >= kNumFigureKinds) return "malformed or unsupported figure";
      if (supply_[turn_player_] == 0) return "no meeple left in supply";
      const PlacedTile& t = board_.tile(last_slot_);
      if (a.feature() >= catalogue().kind(t.kind).num_segments) return "the tile has no such feature";
      if (!can_hold_figure(features_[t.first_segment + a.feature()].type)) return "no figure may stand on that feature";
      if (features_.feature(t.first_segment + a.feature()).occupants) return "that feature is already occupied (B-5)";
      return "";
    }
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
      return a.tile_kind() < catalogue().size() ? draw_to_string(a.tile_kind()) : "draw #" + std::to_string(a.tile_kind());
    case ActionKind::Place:
      return place_to_string(a);
    case ActionKind::Pass:
      return "pass";
    case ActionKind::Figure: {
      std::string type = "feature";
      if (last_slot_ >= 0) {
        const PlacedTile& t = board_.tile(last_slot_);
        if (a.feature() < catalogue().kind(t.kind).num_segments) type = feature_type_name(features_[t.first_segment + a.feature()].type);
      }
      return std::string(int(a.figure_kind()) < kNumFigureKinds ? figure_kind_name(a.figure_kind()) : "figure?") + " " + type + "#" + std::to_string(a.feature());
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
  words.resize(std::max<size_t>(words.size(), 3));
  const std::string& verb = words[0];
  const std::string& arg = words[1];
  const std::string& extra = words[2];
  size_t expected = verb == "pass" ? 1 : verb == "place" ? 3 : 2;
  for (size_t i = expected; i < words.size(); ++i)
    if (!words[i].empty()) throw bad("unexpected '" + words[i] + "'");
  if (verb == "pass") {
    if (!arg.empty()) throw bad("'pass' takes no argument");
    return Action::pass();
  }
  if (verb == "draw") {
    if (!catalogue().contains(arg)) throw bad("unknown tile '" + arg + "'");
    return Action::draw(catalogue().find(arg));
  }
  auto parse_int = [&](std::string_view s, int& v) {
    auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), v);
    return ec == std::errc() && p == s.data() + s.size();
  };
  if (verb == "place") {
    auto comma = arg.find(',');
    int x = 0, y = 0, r = 0;
    if (comma == std::string::npos || !parse_int(std::string_view(arg).substr(0, comma), x) ||
        !parse_int(std::string_view(arg).substr(comma + 1), y))
      throw bad("expected 'place <x>,<y> r<rotation>'");
    if (extra.size() != 2 || extra[0] != 'r' || !parse_int(std::string_view(extra).substr(1), r) || r < 0 || r > 3)
      throw bad("rotation must be r0, r1, r2 or r3");
    if (std::abs(x) >= kCoordLimit - 1 || std::abs(y) >= kCoordLimit - 1) throw bad("cell out of range");
    return Action::place(Cell{int16_t(x), int16_t(y)}, r);
  }
  for (int f = 0; f < kNumFigureKinds; ++f) {
    if (verb != figure_kind_name(FigureKind(f))) continue;
    auto hash = arg.find('#');
    int index = 0;
    if (hash == std::string::npos || !parse_int(std::string_view(arg).substr(hash + 1), index) || index < 0 || index >= kMaxSegmentsPerTile)
      throw bad("expected '" + verb + " <feature>#<index>'");
    std::string type = arg.substr(0, hash);
    if (phase_ == Phase::PlaceFigure) {
      const PlacedTile& t = board_.tile(last_slot_);
      if (index >= catalogue().kind(t.kind).num_segments) throw bad("the tile has no feature #" + std::to_string(index));
      std::string actual = feature_type_name(features_[t.first_segment + index].type);
      if (actual != type) throw bad("feature #" + std::to_string(index) + " of " + catalogue().kind(t.kind).name + " is a " + actual + ", not a " + type);
    }
    return Action::figure(FigureKind(f), index);
  }
  throw bad("unknown verb '" + verb + "' (draw, place, pass, meeple)");
}

std::string State::to_string() const {
  std::ostringstream out;
  static constexpr const char* kPhase[] = {"draw", "place tile", "place figure", "game over"};
  out << "turn " << turn_number_ << ", player " << int(turn_player_) << ", " << kPhase[int(phase_)];
  if (phase_ == Phase::PlaceTile || phase_ == Phase::PlaceFigure) out << " (" << catalogue().kind(drawn_).name << ")";
  out << "\nscores:";
  for (int p = 0; p < num_players_; ++p) out << ' ' << scores_[p];
  out << "\nmeeples in supply:";
  for (int p = 0; p < num_players_; ++p) out << ' ' << int(supply_[p]);
  out << "\ntiles: " << board_.num_tiles() << " placed, " << bag_size_ << " in the bag, " << discarded_ << " discarded\n";
  return out.str();
}

// ---- Consistency -----------------------------------------------------------------------------

void State::check_consistency() const {
  auto fail = [](const std::string& what) { throw std::logic_error("inconsistent state: " + what); };
  const Catalogue& cat = catalogue();
  // Figures: supply + board = 7 per player; aggregates per feature recomputed.
  std::vector<int> on_board(kMaxPlayers, 0);
  std::vector<std::array<int, kMaxPlayers>> meeples(features_.size());
  for (auto& m : meeples) m.fill(0);
  for (int i = 0; i < num_figures_; ++i) {
    ++on_board[figures_[i].owner];
    ++meeples[features_.root(figures_[i].segment)][figures_[i].owner];
  }
  for (int p = 0; p < num_players_; ++p)
    if (on_board[p] + supply_[p] != kMeeplesPerPlayer) fail("meeples of player " + std::to_string(p) + " not conserved");
  for (int s = 0; s < features_.size(); ++s) {
    const Segment& seg = features_[s];
    if (features_[seg.root].root != seg.root) fail("root of segment " + std::to_string(s) + " is not a root");
    if (seg.root != s) continue;
    std::set<int> tiles;
    int size = 0, pennants = 0, open = 0, occupants = 0;
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
    for (int p = 0; p < kMaxPlayers; ++p) {
      if (meeples[s][p] != seg.meeples[p]) fail("meeple count of feature " + std::to_string(s));
      occupants += meeples[s][p];
    }
    if (occupants != seg.occupants) fail("occupant count of feature " + std::to_string(s));
    if (size != seg.size) fail("size of feature " + std::to_string(s));
    if (pennants != seg.pennants) fail("pennants of feature " + std::to_string(s));
    if (seg.type == FeatureType::Road || seg.type == FeatureType::City) {
      if (int(tiles.size()) != seg.tiles) fail("tile count of feature " + std::to_string(s));
      if (open != seg.open) fail("open ends of feature " + std::to_string(s));
    }
    if (is_cloister_like(seg.type)) {
      Cell c = board_.tile(seg.tile).cell;
      int empty = 0;
      for (int dy = -1; dy <= 1; ++dy)
        for (int dx = -1; dx <= 1; ++dx)
          if ((dx || dy) && !board_.occupied(Cell{int16_t(c.x + dx), int16_t(c.y + dy)})) ++empty;
      if (empty != seg.open) fail("empty neighbours of cloister " + std::to_string(s));
    }
    bool closable = seg.type == FeatureType::Road || seg.type == FeatureType::City || is_cloister_like(seg.type);
    if (closable && phase_ != Phase::PlaceFigure && (seg.open == 0) != bool(seg.done)) fail("completed feature not scored");
    if (seg.done && seg.occupants && phase_ != Phase::PlaceFigure) fail("figures left on a scored feature");
  }
  // Board: every frontier cell is empty, next to a tile, and demands what its neighbours show.
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
  if (bag != bag_size_) fail("bag counts");
}

}  // namespace carc
