// Positions (game.h): a game described at the start of a turn, read (from_position, which checks
// that the position could have come about) and written (to_position).
#include <algorithm>
#include <cstdlib>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

namespace {

// The index of `name` in names[0..n), or -1.
int find_name(const std::string& name, const char* const* names, int n) {
  for (int i = 0; i < n; ++i)
    if (name == names[i]) return i;
  return -1;
}

int figure_kind_index(const std::string& name) {
  for (int k = 0; k < kNumFigureKinds; ++k)
    if (name == figure_kind_name(FigureKind(k))) return k;
  return -1;
}

std::string player_text(int p) { return "player " + std::to_string(p); }

}  // namespace

State State::from_position(const Position& position) {
  State st;
  Config config = validate(position.config);
  st.init(config);
  const Catalogue& cat = catalogue();
  const int players = st.rules_.players;
  if (st.fixed_order_ && position.bag) throw PositionError("bag: a position has a draw_order or a bag, not both");
  if (st.rules_.city_block) st.lay_city_block();
  if (position.tiles.empty() && !st.rules_.city_block) throw PositionError("a position needs at least one tile");

  // ---- Tiles, in placement order, each checked as its placement was.
  std::vector<int> used(cat.size(), 0);
  bool land_placed = false;  // RV-3: the river comes first
  for (size_t i = 0; i < position.tiles.size(); ++i) {
    const Position::Tile& t = position.tiles[i];
    std::string where = "tile #" + std::to_string(i) + " (" + t.kind + " at " + cell_text(t.cell) + ")";
    if (!cat.contains(t.kind)) throw PositionError(where + ": unknown tile");
    const TileKind& kind = cat.kind(cat.find(t.kind));
    if (!enabled_set(config, kind.set)) throw PositionError(where + ": set '" + kind.set + "' is not enabled");
    if (++used[kind.id] > kind.copies(st.rules_.custom)) throw PositionError(where + ": more copies than the set has");
    if (t.rotation < 0 || t.rotation > 3) throw PositionError(where + ": rotation must be 0-3");
    if (std::abs(t.cell.x) > 200 || std::abs(t.cell.y) > 200) throw PositionError(where + ": cell out of range");
    if (st.board_.occupied(t.cell)) throw PositionError(where + ": cell already holds a tile");
    if (st.board_.num_tiles() == kMaxTiles) throw PositionError(where + ": too many tiles");
    if (kind.city_square) throw PositionError(where + ": the City's squares are laid by the engine");
    if (st.rules_.river && (i == 0) != has_mark(kind, "spring"))
      throw PositionError(where + (i == 0 ? ": River II starts with the spring, river2.A (RV-1)"
                                          : ": the spring is the first tile (RV-1)"));
    if (kind.river_sides && land_placed) throw PositionError(where + ": river tiles come before land tiles (RV-3)");
    if (st.board_.num_tiles() > 0) {
      int f = st.board_.frontier_index(t.cell);
      if (f < 0) throw PositionError(where + ": does not touch an earlier tile");
      if (is_abbey(kind) && st.board_.frontier_neighbours(f) != 0xF)
        throw PositionError(where + ": an abbey goes into a hole, 4 neighbours (AM-A-1)");
      if (!is_abbey(kind) && !st.board_.fits(f, kind.rotations[t.rotation].signature))  // any side fits an abbey
        throw PositionError(where + ": sides do not match its neighbours (B-3)");
      if (!st.cult_limit_ok(t.cell, kind))
        throw PositionError(where + ": a shrine and a monastery may not have two of the other kind around them (SH-2)");
      if (kind.river_sides) {  // one of the river's legal placements (in any rotation showing the same sides)
        Action options[kMaxActions];
        int n = st.river_placements(kind, options);
        auto same = [&](Action a) {
          return a.cell() == t.cell && kind.rotations[a.rotation()].signature == kind.rotations[t.rotation].signature;
        };
        if (std::none_of(options, options + n, same))
          throw PositionError(where +
                              ": a river tile continues one open river end, with no U-turn and without touching the "
                              "other branch (RV-1, RV-2)");
      }
    }
    land_placed |= !kind.river_sides && !is_abbey(kind);
    st.put_tile(t.cell, kind.id, t.rotation);
    if (kind.river_sides) st.extend_river(t.cell, kind, t.rotation);
    for (int p = 0; p < st.scoring_.pending.size(); ++p) st.features_[st.scoring_.pending[p]].done = 1;
    st.scoring_.pending.clear();
    st.scoring_.barn_fields.clear();
  }
  // An arrow that points at a tile was activated (or lost, XX-3) while the position came about.
  for (int slot = 0; slot < st.board_.num_tiles(); ++slot) {
    const PlacedTile& t = st.board_.tile(slot);
    if (cat.kind(t.kind).arrow != ArrowKind::None)
      st.set_arrow_armed(slot, !st.board_.occupied(neighbour(t.cell, rotated(t).arrow_points)));
  }

  // ---- Figures on the board.
  std::vector<std::pair<int, int>> barn_points;  // where 4 tiles meet: a corner named from any of them
  for (size_t i = 0; i < position.figures.size(); ++i) {
    const Position::Figure& f = position.figures[i];
    std::string where = "figure #" + std::to_string(i) + " (" + f.kind + " at " + cell_text(f.cell) + ")";
    if (f.player < 0 || f.player >= players) throw PositionError(where + ": no such player");
    int kind = figure_kind_index(f.kind);
    if (kind < 0) throw PositionError(where + ": unknown figure kind (meeple, mayor, wagon, barn)");
    FigureKind fk = FigureKind(kind);
    if (!st.figure_in_play(fk)) throw PositionError(where + ": that figure is not in play");
    if (st.supply_[f.player][kind] == 0) throw PositionError(where + ": player has no " + f.kind + " left");
    int slot = st.board_.slot_at(f.cell);
    if (slot < 0) throw PositionError(where + ": no tile there");
    const PlacedTile& tile = st.board_.tile(slot);
    const TileKind& tk = cat.kind(tile.kind);
    uint16_t seg;
    if (fk == FigureKind::Barn) {
      if (f.feature < 0 || f.feature > 3) throw PositionError(where + ": a barn names a corner 0-3");
      if (!st.barn_corner_ok(f.cell, f.feature, &seg))
        throw PositionError(where + ": no four tiles whose fields meet at that corner (AM-B-1)");
      // One barn a corner; but a field may hold two (AM-B-2 holds when a barn is placed: two
      // barned fields may since have been joined into one).
      std::pair<int, int> point{f.cell.x + (f.feature <= 1), f.cell.y + (f.feature == 1 || f.feature == 2)};
      if (std::find(barn_points.begin(), barn_points.end(), point) != barn_points.end())
        throw PositionError(where + ": that corner has a barn already (AM-B-2)");
      barn_points.push_back(point);
    } else {
      if (f.feature < 0 || f.feature >= tk.num_segments)
        throw PositionError(where + ": no feature #" + std::to_string(f.feature) + " on " + tk.name);
      seg = uint16_t(tile.first_segment + f.feature);
      FeatureType type = st.features_[seg].type;
      if (!can_hold_figure(type)) throw PositionError(where + ": no figure may stand there");
      if (!may_stand_on(fk, type)) throw PositionError(where + ": " + where_it_stands(fk));
      if (st.features_.feature(seg).done)
        throw PositionError(where + ": the feature is completed, so it would have been scored");
      // A segment holds one figure, or an XX-4 pair: a normal meeple beside a figure of its owner.
      int partner = -1, on_segment = 0;
      for (int j = 0; j < st.figures_.size(); ++j) {
        if (st.figures_[j].segment != seg) continue;
        partner = j;
        ++on_segment;
      }
      if (on_segment > 0) {
        const PlacedFigure& other = st.figures_[partner];
        if (!st.rules_.anniv20 || on_segment > 1 || other.owner != f.player ||
            (fk != FigureKind::Meeple && other.kind != FigureKind::Meeple))
          throw PositionError(where +
                              ": that segment holds a figure already; only an XX-4 pair (one player's, one of "
                              "them a normal meeple) shares a segment");
        st.figures_[partner].paired = true;
      }
      st.add_figure(f.player, fk, seg, true);
      st.figures_.back().paired = on_segment > 0;
      continue;
    }
    st.add_figure(f.player, fk, seg, true);
  }
  for (int s = 0; s < st.features_.size(); ++s) {
    const Segment& f = st.features_[s];
    if (f.root == s && f.barns && f.occupants) throw PositionError("a field holds both a barn and farmers (AM-B-4)");
  }

  // ---- The City of Carcassonne: figures in its quarters, the Count.
  if (!position.city.empty() && !st.rules_.count) throw PositionError("city: figures in the City need start = city");
  for (size_t i = 0; i < position.city.size(); ++i) {
    const Position::CityFigure& f = position.city[i];
    std::string where = "city figure #" + std::to_string(i) + " (" + f.kind + " in the " + f.quarter + ")";
    if (f.player < 0 || f.player >= players) throw PositionError(where + ": no such player");
    int q = find_name(f.quarter, kQuarterNames, kNumQuarters), kind = figure_kind_index(f.kind);
    if (q < 0) throw PositionError(where + ": unknown quarter (castle, market, blacksmith, cathedral)");
    if (kind < 0 || !st.figure_in_play(FigureKind(kind))) throw PositionError(where + ": unknown figure kind");
    if (st.supply_[f.player][kind] == 0) throw PositionError(where + ": player has none left");
    FigureKind fk = FigureKind(kind);
    if (!may_enter(fk, Quarter(q))) throw PositionError(where + ": that figure may not enter that quarter (CK-3)");
    st.enter_quarter(f.player, fk, Quarter(q));
  }
  if (!position.count.empty()) {
    if (!st.rules_.count) throw PositionError("count: the Count needs start = city");
    int q = find_name(position.count, kQuarterNames, kNumQuarters);
    if (q < 0) throw PositionError("count: unknown quarter '" + position.count + "'");
    st.city_.count = uint8_t(q);
  }

  // ---- Scores, abbeys, the King and the Robber.
  if (!position.breakdown.empty()) {
    if (int(position.breakdown.size()) != players) throw PositionError("breakdown: one per player expected");
    for (int p = 0; p < players; ++p) {
      if (int(position.breakdown[p].size()) != kNumCauses)
        throw PositionError("breakdown: " + std::to_string(kNumCauses) + " causes per player expected");
      int sum = 0;
      for (int c = 0; c < kNumCauses; ++c) {
        if (position.breakdown[p][c] < 0 || position.breakdown[p][c] > 30000)
          throw PositionError("breakdown: out of range");
        st.breakdown_[p][c] = int16_t(position.breakdown[p][c]);
        sum += position.breakdown[p][c];
      }
      if (sum > 30000) throw PositionError("breakdown: out of range");
      sum += st.rules_.start_points[p];  // VAR-POINTS: the score is the starting points and the breakdown
      st.scores_[p] = int16_t(sum);
      if (!position.scores.empty() && int(position.scores.size()) == players && position.scores[p] != sum)
        throw PositionError("scores: " + player_text(p) +
                            "'s score is not the sum of their breakdown (and starting points, VAR-POINTS)");
    }
  }
  if (!position.scores.empty()) {
    if (int(position.scores.size()) != players) throw PositionError("scores: one per player expected");
    for (int p = 0; p < players; ++p) {
      if (position.scores[p] < 0 || position.scores[p] > 30000) throw PositionError("scores: out of range");
      st.scores_[p] = int16_t(position.scores[p]);
    }
  }
  if (!position.abbeys.empty()) {
    if (int(position.abbeys.size()) != players) throw PositionError("abbeys: one per player expected");
    for (int p = 0; p < players; ++p) {
      if (position.abbeys[p] < 0 || position.abbeys[p] > st.abbeys_[p])
        throw PositionError("abbeys: player " + std::to_string(p) + " can hold 0" + (st.abbeys_[p] ? " or 1" : ""));
      st.abbeys_[p] = uint8_t(position.abbeys[p]);
    }
  }
  // KR-1: the sizes are those of the largest completed city and road; someone took each.
  for (int s = 0; s < st.features_.size(); ++s) {
    const Segment& f = st.features_[s];
    if (f.root != s || f.open != 0) continue;
    if (f.type == FeatureType::City) st.king_robber_.king_size = std::max(st.king_robber_.king_size, f.tiles);
    if (f.type == FeatureType::Road) st.king_robber_.robber_size = std::max(st.king_robber_.robber_size, f.tiles);
  }
  auto holder = [&](const char* name, int who, uint16_t size, const char* feature) -> int8_t {
    if (who < -1 || who >= players) throw PositionError(std::string(name) + ": no such player");
    if (!st.rules_.king_robber) {
      if (who != -1) throw PositionError(std::string(name) + ": needs King & Robber");
      return -1;
    }
    if (who == -1 && size > 0)
      throw PositionError(std::string(name) + ": a " + feature + " is completed, so somebody holds the " + name +
                          " (KR-1)");
    if (who >= 0 && size == 0) throw PositionError(std::string(name) + ": no " + feature + " is completed yet (KR-1)");
    return int8_t(who);
  };
  st.king_robber_.king = holder("king", position.king, st.king_robber_.king_size, "city");
  st.king_robber_.robber = holder("robber", position.robber, st.king_robber_.robber_size, "road");
  if (!st.rules_.king_robber) st.king_robber_.king_size = st.king_robber_.robber_size = 0;

  // ---- The bag (and River II's stack).
  auto in_bag = [&](const TileKind& k) {
    return bag_tile(config, k) || (st.rules_.river && k.river_sides && !has_mark(k, "spring"));
  };
  if (!st.fixed_order_) {
    std::vector<int> left(cat.size(), 0);
    if (position.bag) {
      for (const std::string& name : *position.bag) {
        if (!cat.contains(name)) throw PositionError("bag: unknown tile '" + name + "'");
        const TileKind& kind = cat.kind(cat.find(name));
        if (!in_bag(kind) || kind.is_start)
          throw PositionError("bag: '" + name + "' is not a tile of the bag in this game");
        if (++left[kind.id] + used[kind.id] > kind.copies(st.rules_.custom))
          throw PositionError("bag: more copies of '" + name + "' than the set has");
      }
    } else {
      for (const TileKind& k : cat.kinds())
        if (in_bag(k) && !k.is_start) left[k.id] = std::max(0, k.copies(st.rules_.custom) - used[k.id]);
    }
    for (const TileKind& k : cat.kinds())
      for (int i = 0; i < left[k.id]; ++i) {
        if (k.river_sides) {
          st.river_.stack.push_back(k.id);
        } else {
          if (st.bag_.size() == kMaxTiles) throw PositionError("bag: too many tiles");
          st.bag_.push_back(k.id);
        }
        ++st.bag_count_[k.id];
      }
  }

  // ---- The turns played and the tiles discarded (B-4): those of the bag neither placed nor left.
  if (position.turn_number < 0 || position.turn_number > 30000) throw PositionError("turn_number: 0 to 30000 expected");
  st.turn_.number = int16_t(position.turn_number);
  int missing = 0;
  for (const TileKind& k : cat.kinds())
    if (in_bag(k) && !k.is_start) missing += std::max(0, k.copies(st.rules_.custom) - used[k.id] - st.bag_count_[k.id]);
  if (position.discarded < 0) throw PositionError("discarded: 0 or more expected");
  if (position.discarded > missing)
    throw PositionError("discarded: at most " + std::to_string(missing) +
                        ", the tiles of the bag neither placed nor left in it (B-4)");
  st.turn_.discarded = int16_t(position.discarded);

  // ---- Whose turn, and what kind of turn.
  if (position.current_player < 0 || position.current_player >= players)
    throw PositionError("current_player: no such player");
  st.turn_.player = uint8_t(position.current_player);
  if (position.extra_turn && !st.rules_.anniv20 && !st.rules_.river)
    throw PositionError("extra_turn: extra turns come from arrows (XX-6) or the volcano lake (RV-6)");
  st.turn_.in_extra_turn = position.extra_turn;
  if (position.last_placer < -1 || position.last_placer >= players) throw PositionError("last_placer: no such player");
  st.turn_.last_placer = int8_t(position.last_placer >= 0 ? position.last_placer
                                : position.extra_turn     ? position.current_player
                                                          : (position.current_player + players - 1) % players);
  if (position.final_round_left != 0) {
    if (st.rules_.abbey_endgame != AbbeyEndgame::FinalRound || !st.rules_.abbey_mayor)
      throw PositionError("final_round_left: needs Abbey & Mayor with abbey_endgame = final_round");
    if (position.final_round_left < 0 || position.final_round_left > players)
      throw PositionError("final_round_left: 0 to " + std::to_string(players) + " players");
    if (st.bag_.size() + st.river_.stack.size() > 0)
      throw PositionError("final_round_left: the final round begins once the bag is empty");
    st.turn_.endgame = uint8_t(position.final_round_left + 1);  // start_turn counts this player
  }
  st.start_turn();
  if (position.tile_taken) {
    // take-tile is legal only at an abbey choice with tiles in the bag (AM-A-1).
    if (st.turn_.phase != Phase::AbbeyChoice || st.bag_.size() == 0)
      throw PositionError(
          "tile_taken: only when the turn player holds an abbey, a hole is open and the bag is not empty (AM-A-1)");
    st.choose_abbey(Action::take_tile());
  }
  return st;
}

Position State::to_position() const {
  if (turn_.phase != Phase::Draw && turn_.phase != Phase::AbbeyChoice)
    throw PositionError(
        std::string("a position is taken at the start of a turn (a draw or the abbey choice), not at ") +
        phase_name(turn_.phase));
  const Catalogue& cat = catalogue();
  Position p;
  Config& c = p.config;
  c.players = rules_.players;
  c.seed = seed_;
  if (rules_.abbey_mayor) {
    c.expansions.push_back("abbey-mayor");
    c.variants["abbey_endgame"] = rules_.abbey_endgame == AbbeyEndgame::FinalRound ? "final_round"
                                  : rules_.abbey_endgame == AbbeyEndgame::None     ? "none"
                                                                                   : "mandatory";
    c.variants["wagon_move"] = rules_.wagon_move == WagonRule::C1 ? "c1" : "c2";
  }
  if (rules_.river) c.expansions.push_back("river2");
  if (rules_.city_block) {
    c.expansions.push_back("city");
    c.variants["start"] = rules_.count ? "city" : "city_plain";
  }
  if (rules_.count)
    c.variants["count_move"] = rules_.count_move == Rules::CountMove::Clockwise ? "clockwise"
                               : rules_.count_move == Rules::CountMove::Follow  ? "follow"
                                                                                : "free";
  if (rules_.king_robber) c.expansions.push_back("king-robber");
  if (rules_.shrines) c.expansions.push_back("shrines");
  if (rules_.anniv20) c.expansions.push_back("anniv20");
  if (rules_.custom) c.expansions.push_back(kCustomSet);
  std::string points;
  for (int pl = 0; pl < rules_.players; ++pl) {
    if (pl) points += ',';
    points += std::to_string(rules_.start_points[pl]);
  }
  if (std::any_of(rules_.start_points.begin(), rules_.start_points.end(), [](int16_t v) { return v != 0; }))
    c.variants[kPointsVariant] = points;
  if (fixed_order_)
    for (int i = bag_.size() - 1; i >= 0; --i) c.draw_order.push_back(cat.kind(bag_[i]).name);

  for (int slot = 0; slot < board_.num_tiles(); ++slot) {
    const PlacedTile& t = board_.tile(slot);
    if (!cat.kind(t.kind).city_square) p.tiles.push_back({cat.kind(t.kind).name, t.cell, t.rotation});
  }
  for (int i = 0; i < figures_.size(); ++i) {
    const PlacedFigure& f = figures_[i];
    const Segment& seg = features_[f.segment];
    const PlacedTile& t = board_.tile(seg.tile);
    int feature = seg.local;
    if (f.kind == FigureKind::Barn) {  // the corner it was placed on: one whose field segment it is
      for (int corner = 0; corner < 4; ++corner) {
        uint16_t field;
        if (barn_corner_ok(t.cell, corner, &field) && field == f.segment) {
          feature = corner;
          break;
        }
      }
    }
    p.figures.push_back({f.owner, figure_kind_name(f.kind), t.cell, feature});
  }
  // A breakdown is written only if it accounts for every score: a position given scores without
  // one (the points' causes unknown) round-trips without inventing it.
  bool breakdown_known = true;
  for (int pl = 0; pl < rules_.players; ++pl) {
    int sum = rules_.start_points[pl];
    for (int16_t points : breakdown_[pl]) sum += points;
    breakdown_known = breakdown_known && sum == scores_[pl];
  }
  for (int pl = 0; pl < rules_.players; ++pl) {
    p.scores.push_back(scores_[pl]);
    if (breakdown_known) p.breakdown.emplace_back(breakdown_[pl].begin(), breakdown_[pl].end());
    p.abbeys.push_back(abbeys_[pl]);
    for (int q = 0; q < kNumQuarters; ++q)
      for (int k = 0; k < 3; ++k)
        for (int n = 0; n < city_.quarters[pl][q][k]; ++n)
          p.city.push_back({pl, figure_kind_name(FigureKind(k)), kQuarterNames[q]});
  }
  if (rules_.count) p.count = kQuarterNames[city_.count];
  if (!fixed_order_) {
    std::vector<std::string> bag;
    for (int k = 0; k < cat.size(); ++k)
      for (int n = 0; n < bag_count_[k]; ++n) bag.push_back(cat.kind(KindId(k)).name);
    p.bag = std::move(bag);
  }
  p.current_player = turn_.player;
  p.king = king_robber_.king;
  p.robber = king_robber_.robber;
  p.extra_turn = turn_.in_extra_turn;
  p.last_placer = turn_.last_placer;
  p.turn_number = turn_.number;
  p.discarded = turn_.discarded;
  // turn_.endgame counts the players still to have their endgame turn, this one included.
  p.final_round_left = turn_.phase == Phase::AbbeyChoice && turn_.endgame > 0 ? turn_.endgame : 0;
  // A draw where the turn would have begun with the abbey choice: "take-tile" was chosen.
  p.tile_taken = turn_.phase == Phase::Draw && rules_.abbey_mayor && abbeys_[turn_.player] && has_hole();
  return p;
}

}  // namespace carc
