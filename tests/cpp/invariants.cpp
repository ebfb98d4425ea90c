// The engine's invariants (invariants.h), as the random-game tests and the fuzzers check them.
#include "invariants.h"

#include <algorithm>
#include <set>
#include <sstream>
#include <stdexcept>
#include <string>
#include <tuple>

namespace carc::invariants {
namespace {

template <class... Parts>
[[noreturn]] void fail(const Parts&... parts) {
  std::ostringstream what;
  what << "invariant broken: ";
  (what << ... << parts);
  throw std::logic_error(what.str());
}

// The cult-place class of the tile at c: 1 shrine, 2 monastery or abbey, 0 other or empty.
int cult(const State& s, int x, int y) {
  const Catalogue& cat = Catalogue::builtin();
  int slot = s.board().slot_at(Cell{int16_t(x), int16_t(y)});
  if (slot < 0) return 0;
  const TileKind& k = cat.kind(s.board().tile(slot).kind);
  if (k.cloister_segment < 0) return 0;
  return k.rotations[0].segments[k.cloister_segment].type == FeatureType::Shrine ? 1 : 2;
}

// SH-2 by counting: at most one of the other kind around the new tile, and none of those may
// then have two of the new tile's kind around it.
bool scanned_cult_limit(const State& s, int x, int y, const TileKind& kind) {
  if (!s.rules().shrines || kind.cloister_segment < 0) return true;
  int mine = kind.rotations[0].segments[kind.cloister_segment].type == FeatureType::Shrine ? 1 : 2;
  int others = 0;
  for (int nx = x - 1; nx <= x + 1; ++nx)
    for (int ny = y - 1; ny <= y + 1; ++ny) {
      if (cult(s, nx, ny) != 3 - mine) continue;
      ++others;
      int same = 1;  // the new tile
      for (int mx = nx - 1; mx <= nx + 1; ++mx)
        for (int my = ny - 1; my <= ny + 1; ++my) same += cult(s, mx, my) == mine;
      if (same > 1) return false;
    }
  return others <= 1;
}

// Legal placements by scanning every empty cell next to a tile, every rotation and every side.
std::set<std::tuple<int, int, int>> scanned_placements(const State& s) {
  const Catalogue& cat = Catalogue::builtin();
  const TileKind& kind = cat.kind(s.drawn_tile());
  const Board& b = s.board();
  std::set<std::tuple<int, int, int>> out;
  std::set<std::pair<int, int>> candidates;
  for (int i = 0; i < b.num_tiles(); ++i)
    for (int d = 0; d < 4; ++d) {
      Cell n = neighbour(b.tile(i).cell, Side(d));
      if (!b.occupied(n)) candidates.insert({n.x, n.y});
    }
  for (auto [x, y] : candidates) {
    Cell c{int16_t(x), int16_t(y)};
    for (int i = 0; i < kind.num_distinct_rotations; ++i) {
      int r = kind.distinct_rotations[i];
      bool ok = true;
      for (int d = 0; d < 4 && ok; ++d) {
        int slot = b.slot_at(neighbour(c, Side(d)));
        if (slot < 0) continue;
        const PlacedTile& t = b.tile(slot);
        Edge theirs = cat.kind(t.kind).rotations[t.rotation].edges[opposite(Side(d))];
        ok = theirs == Edge::Abbey || theirs == kind.rotations[r].edges[d];
      }
      if (kind.river_sides) {  // RV-1: a river tile continues exactly one river end
        int joins = 0;
        for (int d = 0; d < 4; ++d) {
          int slot = b.slot_at(neighbour(c, Side(d)));
          joins += slot >= 0 && kind.rotations[r].edges[d] == Edge::River;
        }
        ok &= joins == 1;
      }
      if (ok && scanned_cult_limit(s, x, y, kind)) out.insert({x, y, r});
    }
  }
  return out;
}

// A hash of what a player sees of a position: equal positions have equal views (the converse
// need not hold), so only actions with equal views need the full comparison.
uint64_t view(const State& s) {
  uint64_t h = 0xcbf29ce484222325ull;
  auto mix = [&](int v) { h = (h ^ uint64_t(uint32_t(v))) * 0x100000001b3ull; };
  for (int v : {int(s.phase()), s.current_player(), s.turn_player(), s.board().num_tiles(), s.bag_size(),
                int(s.active_arrow()), s.num_challenges(), s.num_placed_figures()})
    mix(v);
  const PlacedTile& last = s.board().tile(s.board().num_tiles() - 1);
  mix(last.cell.x), mix(last.cell.y), mix(last.rotation);
  for (int p = 0; p < s.num_players(); ++p) {
    mix(s.score(p));
    for (int k = 0; k < kNumFigureKinds; ++k) mix(s.supply(p, FigureKind(k)));
    for (int q = 0; q < kNumQuarters; ++q) mix(s.in_quarter(p, Quarter(q)));
  }
  for (int i = 0; i < s.num_placed_figures(); ++i) {
    const PlacedFigure& f = s.placed_figure(i);
    mix(f.segment), mix(f.owner), mix(int(f.kind)), mix(f.paired);
  }
  return h;
}

// Returns true if `segment` (cloister-like) is in a challenge (SH-4) that this turn's tile
// decides against it: the other side is complete, it is not, so its figures go back with nothing
// in this turn's scoring (SH-5).
bool loses_its_challenge(const State& s, int segment) {
  for (int i = 0; i < s.num_challenges(); ++i) {
    auto [shrine, cloister] = s.challenge(i);
    int other = segment == shrine ? cloister : segment == cloister ? shrine : -1;
    if (other >= 0 && s.features().feature(other).open == 0 && s.features().feature(segment).open != 0) return true;
  }
  return false;
}

// Returns true if the figure action puts a figure where it scores and returns at once (a wagon
// moves on, if it can): on a feature the new tile completed, from the City onto the feature
// about to score, or a market meeple on a barn's field; or where it returns at once with
// nothing: beside one's own figure (XX-4) on a cult place that loses its challenge this turn.
bool returns_at_once(const State& s, Action a) {
  if (s.phase() == Phase::CityMove) return a.kind() == ActionKind::Figure;  // CK-4: onto the feature scored next
  if (s.phase() == Phase::MarketMove) {                                     // CK-6: onto a field with a barn
    const PlacedTile& t = s.board().tile(s.board().slot_at(a.figure_cell()));
    return s.features().feature(t.first_segment + a.feature()).barns > 0;
  }
  if (a.kind() == ActionKind::Figure && a.elsewhere() && s.phase() == Phase::PlaceFigure) {  // XX-4, XX-5
    const PlacedTile& t = s.board().tile(s.board().slot_at(a.figure_cell()));
    return loses_its_challenge(s, t.first_segment + a.feature());
  }
  if (a.kind() != ActionKind::Figure || a.elsewhere() || a.figure_kind() == FigureKind::Barn) return false;
  const Segment& f = s.features().feature(s.board().tile(s.last_slot()).first_segment + a.feature());
  return f.open == 0 && (f.type == FeatureType::Road || f.type == FeatureType::City || is_cloister_like(f.type));
}

// No two legal actions have the same effect: their successor states are pairwise different
// positions (a duplicate inflates the search's branching and the action space). Two kinds of
// coincidence are no duplicates: figures that score at once and return may score the same (a
// meeple or a wagon with nowhere to go, two roads of one length, a mayor without pennants and
// no figure at all, a meeple beside one's own on a shrine that loses its challenge this turn),
// and arrows of different kinds do the same, nothing, when the player has no figure to deploy.
}  // namespace

void check_distinct_successors(const State& s, const std::vector<Action>& legal) {
  if (s.is_chance()) return;
  std::vector<std::pair<uint64_t, Action>> by_view;
  State next = s;
  for (Action a : legal) {
    next.copy_from(s);
    next.apply_unchecked(a);
    by_view.emplace_back(view(next), a);
  }
  std::sort(by_view.begin(), by_view.end());
  State other = s;
  for (size_t i = 0; i < by_view.size(); ++i)
    for (size_t j = i + 1; j < by_view.size() && by_view[j].first == by_view[i].first; ++j) {
      Action x = by_view[i].second, y = by_view[j].second;
      next.copy_from(s);
      next.apply_unchecked(x);
      other.copy_from(s);
      other.apply_unchecked(y);
      auto passes_or_returns = [&](Action a) { return a == Action::pass() || returns_at_once(s, a); };
      if (passes_or_returns(x) && passes_or_returns(y)) continue;
      if (x.kind() == ActionKind::Arrow && next.phase() != Phase::PlaceFigure) continue;
      if (next.same_position(other))
        fail("'", s.action_to_string(x), "' and '", s.action_to_string(y), "' have the same effect");
    }
}

void check_step(const State& s) {
  s.check_consistency();
  std::vector<Action> legal = s.legal_actions();
  if (legal.empty() != s.is_terminal()) fail("no legal action before the end");
  if (std::adjacent_find(legal.begin(), legal.end()) != legal.end()) fail("duplicate legal actions");
  std::set<std::string> texts;
  for (Action a : legal) {
    std::string text = s.action_to_string(a);
    if (s.parse_action(text) != a) fail("'", text, "' parses to another action");
    if (!texts.insert(text).second) fail("two actions print as '", text, "'");
  }
  check_distinct_successors(s, legal);
  if (s.phase() == Phase::PlaceTile) {
    std::set<std::tuple<int, int, int>> listed;
    for (Action a : legal) listed.insert({a.cell().x, a.cell().y, a.rotation()});
    std::set<std::tuple<int, int, int>> scanned = scanned_placements(s);
    if (Catalogue::builtin().kind(s.drawn_tile()).river_sides) {
      // RV-2's U-turn and branch rules need the river's history: the scan checks RV-1 only.
      if (!std::includes(scanned.begin(), scanned.end(), listed.begin(), listed.end()))
        fail("a legal river placement breaks RV-1");
    } else if (listed != scanned) {
      fail("the legal placements differ from a scan of the board");
    }
  }
}

// The position round trip (issue 15): the state set up from s.to_position() offers the same
// actions and, given the same draws and choices, plays the same rest of the game.
void check_position_round_trip(const State& s, Rng& rng, int max_moves) {
  State copy = State::from_position(s.to_position());
  State original = s;
  if (original.phase() != copy.phase()) fail("round trip: another phase");
  for (int moves = 0; !original.is_terminal(); ++moves) {
    if (moves == max_moves) return;
    std::vector<Action> legal = original.legal_actions();
    if (legal != copy.legal_actions()) fail("round trip: other legal actions at\n", original.to_string());
    if (original.current_player() != copy.current_player()) fail("round trip: another player to move");
    if (original.turn_number() != copy.turn_number()) fail("round trip: another turn number");
    if (original.discarded() != copy.discarded()) fail("round trip: another count of discarded tiles");
    if (original.is_chance() && original.chance_outcomes() != copy.chance_outcomes())
      fail("round trip: other chance outcomes");
    Action a = original.is_chance() ? original.sample_chance() : legal[rng.below(uint32_t(legal.size()))];
    original.apply(a);
    copy.apply(a);
    for (int p = 0; p < s.num_players(); ++p)
      for (int c = 0; c < kNumCauses; ++c)
        if (original.score(p, Cause(c)) != copy.score(p, Cause(c))) fail("round trip: other scores");
  }
  if (!copy.is_terminal()) fail("round trip: the copy's game goes on");
}

void check_game_end(const State& s) {
  s.check_consistency();
  const int players = s.num_players();
  bool abbeys = s.rules().abbey_mayor;
  int abbeys_placed = 0;
  for (int p = 0; p < players; ++p) abbeys_placed += abbeys && !s.abbeys(p);
  int land = 72 + (s.rules().river ? 11 : 0) + (s.rules().city_block ? 12 - 1 : 0) + (abbeys ? 12 : 0) +
             (s.rules().anniv20 ? 15 : 0) + (s.rules().king_robber ? 5 : 0) + (s.rules().shrines ? 5 : 0);
  if (s.board().num_tiles() + s.discarded() != land + abbeys_placed)
    fail("tiles placed + discarded != the sets' tiles");
  for (int p = 0; p < players; ++p) {
    int sum = 0;
    for (int c = 0; c < kNumCauses; ++c) sum += s.score(p, Cause(c));
    if (sum != s.score(p)) fail("B-11: a point without a cause");
    int meeples = s.supply(p);
    for (int i = 0; i < s.num_placed_figures(); ++i)
      meeples += s.placed_figure(i).owner == p && s.placed_figure(i).kind == FigureKind::Meeple;
    for (int q = 0; q < kNumQuarters; ++q) meeples += s.in_quarter(p, Quarter(q));  // left in the City
    if (meeples != kMeeplesPerPlayer) fail("a meeple lost or made");
  }
}

}  // namespace carc::invariants
