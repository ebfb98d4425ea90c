// Whole-state operations (game.h): copy_from, same_position and check_consistency, which
// recomputes every aggregate from scratch (tests and fuzzing).
#include <algorithm>
#include <cstring>
#include <set>
#include <stdexcept>
#include <tuple>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

// ---- Copies and comparison --------------------------------------------------------------------

void State::copy_from(const State& o) {
  const char* base = reinterpret_cast<const char*>(&o);
  const size_t head = size_t(reinterpret_cast<const char*>(&o.board_) - base);
  assert(reinterpret_cast<const char*>(&o.features_) - base >= ptrdiff_t(head + sizeof(Board)) &&
         sizeof(State) - head - sizeof(Board) - sizeof(Features) < 2 * alignof(State));
  std::memcpy(static_cast<void*>(this), &o, head);  // trivially copyable: bytes are the value
  board_.copy_from(o.board_);
  features_.copy_from(o.features_);
}

bool State::same_position(const State& o) const {
  // Every member but rng_ and seed_ (the groups compare their lists up to their length), the
  // bag's order only when it is drawn in order, and of the board its tiles (its index and
  // frontier follow from them). Some derived data (the feature aggregates) is compared too: a
  // false "different" only costs a search its reuse, a false "same" would send it down actions
  // that are illegal here.
  if (std::tie(rules_, fixed_order_, abbey_kind_, turn_, figures_, supply_, abbeys_, wagons_, scoring_, arrows_, river_,
               city_, king_robber_, challenges_, scores_, breakdown_, bag_count_, open_cloisters_) !=
      std::tie(o.rules_, o.fixed_order_, o.abbey_kind_, o.turn_, o.figures_, o.supply_, o.abbeys_, o.wagons_,
               o.scoring_, o.arrows_, o.river_, o.city_, o.king_robber_, o.challenges_, o.scores_, o.breakdown_,
               o.bag_count_, o.open_cloisters_))
    return false;
  if (fixed_order_ ? !(bag_ == o.bag_) : bag_.size() != o.bag_.size()) return false;
  if (board_.num_tiles() != o.board_.num_tiles() || features_.size() != o.features_.size()) return false;
  for (int i = 0; i < board_.num_tiles(); ++i)
    if (board_.tile(i) != o.board_.tile(i)) return false;
  for (int i = 0; i < features_.size(); ++i)
    if (features_[i] != o.features_[i]) return false;
  return true;
}

// ---- Consistency -----------------------------------------------------------------------------

void State::check_consistency() const {
  auto fail = [](const std::string& what) { throw std::logic_error("inconsistent state: " + what); };
  const Catalogue& cat = catalogue();
  const bool mid_turn =
      turn_.phase == Phase::PlaceFigure || turn_.phase == Phase::ArrowChoice || turn_.phase == Phase::CityMove;
  // Indexes first, so that the checks below never read out of range (a damaged state is
  // reported, not dereferenced): the board's index and tiles, segments, figures, players.
  if (rules_.players < 2 || rules_.players > kMaxPlayers) fail("number of players");
  if (!board_.well_formed()) fail("board index");
  auto fits = [](const auto& list) { return list.size() >= 0 && list.size() <= list.capacity(); };
  if (!fits(figures_) || !fits(wagons_) || !fits(challenges_) || !fits(bag_) || !fits(river_.stack) ||
      !fits(scoring_.pending) || !fits(scoring_.barn_fields))
    fail("a list longer than its capacity");
  for (int i = 0; i < board_.num_tiles(); ++i)
    if (board_.tile(i).kind >= cat.size() || board_.tile(i).rotation > 3) fail("kind of tile " + std::to_string(i));
  if (features_.size() < 0 || features_.size() > kMaxSegments) fail("number of segments");
  for (int s = 0; s < features_.size(); ++s) {
    const Segment& seg = features_[s];
    if (seg.root >= features_.size() || seg.next >= features_.size() || seg.tile >= board_.num_tiles() ||
        seg.local >= cat.kind(board_.tile(seg.tile).kind).num_segments || int(seg.type) > int(FeatureType::Quarter))
      fail("segment " + std::to_string(s) + " out of range");
  }
  for (int i = 0; i < figures_.size(); ++i)
    if (figures_[i].segment >= features_.size() || figures_[i].owner >= rules_.players ||
        int(figures_[i].kind) >= kNumFigureKinds)
      fail("figure " + std::to_string(i) + " out of range");
  for (int i = 0; i < wagons_.size(); ++i)
    if (wagons_[i].owner >= rules_.players) fail("wagon owner out of range");
  for (int i = 0; i < challenges_.size(); ++i)
    if (challenges_[i].shrine >= features_.size() || challenges_[i].cloister >= features_.size())
      fail("challenge out of range");
  // Figures: supply + board (+ wagons waiting to move) = what each player owns.
  std::vector<std::array<int, kNumFigureKinds>> owned(kMaxPlayers);
  for (auto& o : owned) o.fill(0);
  std::vector<std::array<int, kMaxPlayers>> meeples(features_.size());
  std::vector<int> occupants(features_.size(), 0), barns(features_.size(), 0), mayors(features_.size(), 0);
  for (auto& m : meeples) m.fill(0);
  for (int i = 0; i < figures_.size(); ++i) {
    const PlacedFigure& f = figures_[i];
    ++owned[f.owner][int(f.kind)];
    int r = features_.root(f.segment);
    if (!may_stand_on(f.kind, features_[r].type))
      fail(std::string("a figure where it may not stand: ") + where_it_stands(f.kind));
    if (f.kind == FigureKind::Barn) {
      ++barns[r];
    } else if (f.kind == FigureKind::Mayor) {
      mayors[r] |= 1 << f.owner;
      ++occupants[r];
    } else {
      ++meeples[r][f.owner];
      ++occupants[r];
    }
  }
  for (int i = 0; i < wagons_.size(); ++i) ++owned[wagons_[i].owner][int(FigureKind::Wagon)];
  for (int p = 0; p < rules_.players; ++p)
    for (int q = 0; q < kNumQuarters; ++q)
      for (int k = 0; k < 3; ++k) owned[p][k] += city_.quarters[p][q][k];
  for (int i = 0; i < figures_.size(); ++i) {  // XX-4 pairs: exactly two, one owner, one segment
    if (!figures_[i].paired) continue;
    int together = 0;
    for (int j = 0; j < figures_.size(); ++j)
      together +=
          figures_[j].paired && figures_[j].segment == figures_[i].segment && figures_[j].owner == figures_[i].owner;
    if (together != 2) fail("a pair of " + std::to_string(together) + " figures");
  }
  for (int p = 0; p < rules_.players; ++p)
    for (int k = 0; k < kNumFigureKinds; ++k) {
      int expected = k == 0 ? kMeeplesPerPlayer : rules_.abbey_mayor ? 1 : 0;
      if (owned[p][k] + supply_[p][k] != expected)
        fail(std::string(figure_kind_name(FigureKind(k))) + "s of player " + std::to_string(p) + " not conserved");
    }
  // Phase 3 under way: the features it is to score (by root) are the only ones that may be
  // completed but not scored yet, or scored with their figures still on them; the fields it is
  // to score for a barn (AM-B-3, AM-B-5) the only ones with a barn and farmers.
  std::vector<bool> to_score(features_.size(), false), barn_to_score(features_.size(), false);
  for (uint16_t s : scoring_.pending)
    if (s < features_.size()) to_score[features_.root(s)] = true;
  for (const BarnField& b : scoring_.barn_fields)
    if (b.root < features_.size()) barn_to_score[features_.root(b.root)] = true;
  std::vector<int> tiles;  // of one feature; reused: the fuzzers call this at every node
  for (int s = 0; s < features_.size(); ++s) {
    const Segment& seg = features_[s];
    if (features_[seg.root].root != seg.root) fail("root of segment " + std::to_string(s) + " is not a root");
    if (seg.root != s) continue;
    tiles.clear();
    int size = 0, pennants = 0, open = 0;
    features_.for_each_member(s, [&](int m) {
      const Segment& member = features_[m];
      if (member.root != s) fail("member list of " + std::to_string(s) + " reaches another feature");
      if (size >= features_.size()) fail("member list of " + std::to_string(s) + " does not close");
      if (member.type != seg.type) fail("feature mixes segment types");
      ++size;
      tiles.push_back(member.tile);
      const PlacedTile& t = board_.tile(member.tile);
      const SegmentSpec& spec = rotated(t).segments[member.local];
      pennants += spec.pennants;
      if (member.cities != spec.cities) fail("cities beside segment " + std::to_string(m));
      for (int side = 0; side < kNumSides; ++side)
        if ((spec.points >> side_point(Side(side), 1) & 1) && !board_.occupied(neighbour(t.cell, Side(side)))) ++open;
    });
    std::sort(tiles.begin(), tiles.end());
    const int distinct_tiles = int(std::unique(tiles.begin(), tiles.end()) - tiles.begin());
    const std::string name = std::string(feature_type_name(seg.type)) + " " + std::to_string(s);
    if (meeples[s] != std::array<int, kMaxPlayers>{seg.meeples[0], seg.meeples[1], seg.meeples[2], seg.meeples[3],
                                                   seg.meeples[4], seg.meeples[5]})
      fail("meeple count of " + name);
    if (occupants[s] != seg.occupants) fail("occupant count of " + name);
    if (mayors[s] != seg.mayors) fail("mayors of " + name);
    if (barns[s] != seg.barns) fail("barns of " + name);
    if (size != seg.size) fail("size of " + name);
    if (pennants != seg.pennants) fail("pennants of " + name);
    if (seg.type == FeatureType::Road || seg.type == FeatureType::City) {
      if (distinct_tiles != seg.tiles) fail("tile count of " + name);
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
    if (closable && seg.open && seg.done) fail("scored " + name + " is not completed");
    if (seg.done && can_hold_figure(seg.type) && !closable)
      fail(name + " marked scored: fields score at the game end only");
    if (closable && !seg.open && !seg.done && !to_score[s]) fail("completed " + name + " not scored");
    if (seg.done && seg.occupants && !to_score[s]) fail("figures left on scored " + name);
    if (seg.barns && seg.occupants && !barn_to_score[s]) fail("farmers beside a barn on " + name + " (AM-B-4)");
  }
  // SH-4: the stored challenges pair a shrine with a monastery or abbey around it, both occupied;
  // between turns, exactly the unfinished occupied pairs are challenges (a challenge can only
  // begin between unfinished features, and it ends when either completes).
  std::set<std::pair<int, int>> challenges;
  for (int i = 0; i < challenges_.size(); ++i) {
    const Challenge& c = challenges_[i];
    const Segment &shrine = features_[c.shrine], &cloister = features_[c.cloister];
    Cell a = board_.tile(shrine.tile).cell, b = board_.tile(cloister.tile).cell;
    if (shrine.type != FeatureType::Shrine ||
        (cloister.type != FeatureType::Monastery && cloister.type != FeatureType::Abbey) ||
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
          fail("challenge between " + cell_text(t.cell) + " and " + cell_text(u.cell) +
               (under_way ? " not stored" : " stored but over"));
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
  std::vector<std::pair<int, int>> empty_neighbours;
  for (int i = 0; i < board_.num_tiles(); ++i) {
    const PlacedTile& t = board_.tile(i);
    if (board_.slot_at(t.cell) != i) fail("cell index of tile " + std::to_string(i));
    for (int s = 0; s < kNumSides; ++s) {
      Cell n = neighbour(t.cell, Side(s));
      int ns = board_.slot_at(n);
      if (ns < 0) {
        empty_neighbours.push_back({n.x, n.y});
        continue;
      }
      Edge mine = rotated(t).edges[s], theirs = rotated(board_.tile(ns)).edges[opposite(Side(s))];
      if (mine != theirs && mine != Edge::Abbey && theirs != Edge::Abbey)
        fail("mismatched sides at " + cell_text(t.cell));
    }
  }
  std::sort(empty_neighbours.begin(), empty_neighbours.end());
  const auto frontier = std::unique(empty_neighbours.begin(), empty_neighbours.end()) - empty_neighbours.begin();
  if (frontier != board_.frontier_size()) fail("frontier size");
  int bag = 0;
  for (int k = 0; k < cat.size(); ++k) bag += bag_count_[k];
  if (bag != bag_.size() + river_.stack.size()) fail("bag counts");
}

}  // namespace carc
