// Random games with invariant checks after every action (DESIGN "Quality bars"): aggregates
// equal a recomputation, meeples are conserved, scores never drop, legal placements equal a
// direct scan of the board, action strings round-trip, and replaying the actions reproduces the
// game. CARC_FUZZ_MOVES sets how many actions to play in all (the sanitizer run raises it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <tuple>

#include "engine/game.h"
#include "search/playout.h"

namespace carc {
namespace {

long fuzz_moves() {
  const char* env = std::getenv("CARC_FUZZ_MOVES");
  return env ? std::atol(env) : 20000;
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

// Returns true if the figure action puts a figure where it scores and returns at once (a wagon
// moves on, if it can): on a feature the new tile completed, from the City onto the feature
// about to score, or a market meeple on a barn's field.
bool scores_at_once(const State& s, Action a) {
  if (s.phase() == Phase::CityMove) return a.kind() == ActionKind::Figure;  // CK-4: onto the feature scored next
  if (s.phase() == Phase::MarketMove) {                                     // CK-6: onto a field with a barn
    const PlacedTile& t = s.board().tile(s.board().slot_at(a.figure_cell()));
    return s.features().feature(t.first_segment + a.feature()).barns > 0;
  }
  if (a.kind() != ActionKind::Figure || a.elsewhere() || a.figure_kind() == FigureKind::Barn) return false;
  const Segment& f = s.features().feature(s.board().tile(s.last_slot()).first_segment + a.feature());
  return f.open == 0 && (f.type == FeatureType::Road || f.type == FeatureType::City || is_cloister_like(f.type));
}

// No two legal actions have the same effect: their successor states are pairwise different
// positions (a duplicate inflates the search's branching and the action space). Two kinds of
// coincidence are no duplicates: figures that score at once and return may score the same (a
// meeple or a wagon with nowhere to go, two roads of one length, a mayor without pennants and
// no figure at all), and arrows of different kinds do the same, nothing, when the player has no
// figure to deploy.
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
      auto passes_or_scores = [&](Action a) { return a == Action::pass() || scores_at_once(s, a); };
      if (passes_or_scores(x) && passes_or_scores(y)) continue;
      if (x.kind() == ActionKind::Arrow && next.phase() != Phase::PlaceFigure) continue;
      ASSERT_FALSE(next.same_position(other))
          << "'" << s.action_to_string(x) << "' and '" << s.action_to_string(y) << "' have the same effect";
    }
}

void check_step(const State& s) {
  s.check_consistency();
  std::vector<Action> legal = s.legal_actions();
  ASSERT_FALSE(legal.empty());
  ASSERT_TRUE(std::adjacent_find(legal.begin(), legal.end()) == legal.end()) << "duplicate legal actions";
  std::set<std::string> texts;
  for (Action a : legal) {
    std::string text = s.action_to_string(a);
    ASSERT_EQ(s.parse_action(text), a) << text;
    ASSERT_TRUE(texts.insert(text).second) << "two actions print as " << text;
  }
  check_distinct_successors(s, legal);
  if (::testing::Test::HasFatalFailure()) return;
  if (s.phase() == Phase::PlaceTile) {
    std::set<std::tuple<int, int, int>> listed;
    for (Action a : legal) listed.insert({a.cell().x, a.cell().y, a.rotation()});
    std::set<std::tuple<int, int, int>> scanned = scanned_placements(s);
    if (Catalogue::builtin().kind(s.drawn_tile()).river_sides) {
      // RV-2's U-turn and branch rules need the river's history: the scan checks RV-1 only.
      ASSERT_TRUE(std::includes(scanned.begin(), scanned.end(), listed.begin(), listed.end()));
    } else {
      ASSERT_EQ(listed, scanned);
    }
  }
}

// The position round trip (issue 15): the state set up from s.to_position() offers the same
// actions and, given the same draws and choices, plays the same rest of the game.
void check_position_round_trip(const State& s, Rng& rng) {
  State copy = State::from_position(s.to_position());
  State original = s;
  if (original.phase() == Phase::Draw && copy.phase() == Phase::AbbeyChoice) copy.apply(Action::take_tile());
  while (!original.is_terminal()) {
    std::vector<Action> legal = original.legal_actions();
    ASSERT_EQ(legal, copy.legal_actions()) << original.to_string();
    ASSERT_EQ(original.current_player(), copy.current_player());
    if (original.is_chance()) {
      ASSERT_EQ(original.chance_outcomes(), copy.chance_outcomes());
    }
    Action a = original.is_chance() ? original.sample_chance() : legal[rng.below(uint32_t(legal.size()))];
    original.apply(a);
    copy.apply(a);
    for (int p = 0; p < s.num_players(); ++p)
      for (int c = 0; c < kNumCauses; ++c) ASSERT_EQ(original.score(p, Cause(c)), copy.score(p, Cause(c)));
  }
  ASSERT_TRUE(copy.is_terminal());
}

// Plays random games of this config until `moves` actions have been made; returns the number
// of games.
int fuzz(const Config& base, long moves) {
  const int players = base.players;
  int games = 0;
  Rng rng(base.seed);
  for (long made = 0; made < moves; ++games) {
    Config config = base;
    config.seed = base.seed + uint64_t(games);
    State s(config);
    std::vector<Action> history;
    std::vector<int> last(players, 0);
    const int round_trip_turn = int(rng.below(80));  // one position round trip a game
    while (!s.is_terminal()) {
      check_step(s);
      if ((s.phase() == Phase::Draw || s.phase() == Phase::AbbeyChoice) && s.turn_number() == round_trip_turn) {
        check_position_round_trip(s, rng);
        if (::testing::Test::HasFatalFailure()) return games;
      }
      if (::testing::Test::HasFatalFailure()) return games;
      std::vector<Action> legal = s.legal_actions();
      Action a = s.is_chance() ? s.sample_chance() : legal[rng.below(uint32_t(legal.size()))];
      s.apply(a);
      history.push_back(a);
      ++made;
      for (int p = 0; p < players; ++p) {
        EXPECT_GE(s.score(p), last[p]) << "score dropped";
        last[p] = s.score(p);
      }
    }
    s.check_consistency();
    bool abbeys = s.rules().abbey_mayor;
    int abbeys_placed = 0;
    for (int p = 0; p < players; ++p) abbeys_placed += abbeys && !s.abbeys(p);
    int land = 72 + (s.rules().river ? 11 : 0) + (s.rules().city_block ? 12 - 1 : 0) + (abbeys ? 12 : 0) +
               (s.rules().anniv20 ? 15 : 0) + (s.rules().king_robber ? 5 : 0) + (s.rules().shrines ? 5 : 0);
    EXPECT_EQ(s.board().num_tiles() + s.discarded(), land + abbeys_placed);
    for (int p = 0; p < players; ++p) {
      int sum = 0;
      for (int c = 0; c < kNumCauses; ++c) sum += s.score(p, Cause(c));
      EXPECT_EQ(sum, s.score(p)) << "B-11: a point without a cause";
      EXPECT_EQ(
          s.supply(p) +
              [&] {
                int n = 0;
                for (int i = 0; i < s.num_placed_figures(); ++i)
                  n += s.placed_figure(i).owner == p && s.placed_figure(i).kind == FigureKind::Meeple;
                for (int q = 0; q < kNumQuarters; ++q) n += s.in_quarter(p, Quarter(q));  // left in the City
                return n;
              }(),
          kMeeplesPerPlayer);
    }
    // Replaying the same actions from the same seed gives the same game.
    State replay(config);
    for (Action a : history) replay.apply(a);
    for (int p = 0; p < players; ++p) EXPECT_EQ(replay.score(p), s.score(p));
    EXPECT_TRUE(replay.is_terminal());
  }
  return games;
}

TEST(RandomGames, InvariantsHoldForEveryPlayerCount) {
  long per_count = std::max(1000L, fuzz_moves() / 10);
  for (int players = 2; players <= 6; ++players) {
    Config config;
    config.players = players;
    config.seed = 1000u * uint64_t(players);
    EXPECT_GT(fuzz(config, per_count), 0);
  }
}

TEST(RandomGames, InvariantsHoldWithAbbeyAndMayorInEveryVariant) {
  long per_variant = std::max(1000L, fuzz_moves() / 12);
  int players = 2;
  for (const char* endgame : {"mandatory", "final_round", "none"})
    for (const char* wagon : {"c2", "c1"}) {
      Config config;
      config.players = players;
      config.expansions = {"abbey-mayor"};
      config.variants = {{"abbey_endgame", endgame}, {"wagon_move", wagon}};
      config.seed = 77u * uint64_t(players);
      EXPECT_GT(fuzz(config, per_variant), 0) << endgame << " " << wagon;
      players = players % 6 + 1 + (players == 6);
    }
}

TEST(RandomGames, InvariantsHoldWithTheAnniversaryArrows) {
  long moves = std::max(1000L, fuzz_moves() / 10);
  for (int players : {2, 5}) {
    Config config;
    config.players = players;
    config.expansions = {"anniv20"};
    config.seed = 2021u + uint64_t(players);
    EXPECT_GT(fuzz(config, moves), 0);
  }
}

TEST(RandomGames, InvariantsHoldWithKingRobberAndShrines) {
  long moves = std::max(1000L, fuzz_moves() / 10);
  for (int players : {2, 4}) {
    Config config;
    config.players = players;
    config.expansions = {"king-robber", "shrines"};
    config.seed = 606u + uint64_t(players);
    EXPECT_GT(fuzz(config, moves), 0);
  }
}

TEST(RandomGames, InvariantsHoldWithRiverII) {
  long moves = std::max(1000L, fuzz_moves() / 10);
  for (int players : {2, 3}) {
    Config config;
    config.players = players;
    config.expansions = {"river2"};
    config.seed = 1212u + uint64_t(players);
    EXPECT_GT(fuzz(config, moves), 0);
  }
}

TEST(RandomGames, InvariantsHoldWithTheCityAndTheCount) {
  long moves = std::max(1000L, fuzz_moves() / 10);
  int players = 2;
  for (const char* count_move : {"free", "clockwise", "follow"}) {
    Config config;
    config.players = players++;
    config.expansions = {"city", "abbey-mayor"};
    config.variants = {{"count_move", count_move}};
    config.seed = 4242u + uint64_t(players);
    EXPECT_GT(fuzz(config, moves / 2), 0) << count_move;
  }
  Config plain;
  plain.variants = {{"start", "city_plain"}};
  EXPECT_GT(fuzz(plain, moves / 2), 0);
}

TEST(RandomGames, InvariantsHoldWithEverythingSupported) {
  long moves = std::max(1000L, fuzz_moves() / 10);
  for (int players : {3, 6}) {
    Config config;
    config.players = players;
    config.expansions = {"abbey-mayor", "anniv20", "king-robber", "shrines", players == 3 ? "river2" : "city"};
    config.seed = 99u + uint64_t(players);
    EXPECT_GT(fuzz(config, moves), 0);
  }
}

TEST(RandomGames, FastPlayoutMatchesTheCheckedApi) {
  // random_playout uses apply_unchecked; it must end in a consistent, finished state.
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Config config;
    config.seed = seed;
    State s(config);
    Rng rng(seed);
    random_playout(s, rng);
    EXPECT_TRUE(s.is_terminal());
    s.check_consistency();
  }
}

TEST(RandomGames, BatchIsDeterministicWhateverTheThreads) {
  Config config;
  config.seed = 7;
  auto one = play_random_games(config, 16, 1);
  auto two = play_random_games(config, 16, 2);
  ASSERT_EQ(one.size(), two.size());
  for (size_t i = 0; i < one.size(); ++i) EXPECT_EQ(one[i].scores, two[i].scores);
}

TEST(RandomGames, FarFlungGamesStayConsistent) {
  // Always place as far from the origin as possible: long snakes, far coordinates.
  for (uint64_t seed = 0; seed < 10; ++seed) {
    Config config;
    config.seed = seed;
    State s(config);
    int far = 0;
    while (!s.is_terminal()) {
      if (s.is_chance()) {
        s.apply(s.sample_chance());
        continue;
      }
      std::vector<Action> legal = s.legal_actions();
      Action best = legal.front();
      if (s.phase() == Phase::PlaceTile)
        for (Action a : legal)
          if (std::abs(a.cell().x) + std::abs(a.cell().y) > std::abs(best.cell().x) + std::abs(best.cell().y)) best = a;
      if (s.phase() == Phase::PlaceTile) far = std::max(far, std::abs(best.cell().x) + std::abs(best.cell().y));
      s.apply(best);
    }
    s.check_consistency();
    EXPECT_GT(far, 20);
  }
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

TEST(RandomGames, SampledActionsAreLegalAndCoverEveryPlacement) {
  Config config;
  config.seed = 5;
  State s(config);
  Rng rng(9);
  int checked = 0;
  while (!s.is_terminal()) {
    if (s.is_chance()) {
      s.apply(s.sample_chance());
      continue;
    }
    std::vector<Action> legal = s.legal_actions();
    std::set<uint32_t> seen;
    for (size_t i = 0; i < 60 * legal.size(); ++i) {
      Action a = s.sample_legal_action(rng);
      ASSERT_TRUE(std::binary_search(legal.begin(), legal.end(), a)) << s.action_to_string(a);
      seen.insert(a.code);
    }
    EXPECT_EQ(seen.size(), legal.size());  // each is missed with probability < e^-60
    ++checked;
    s.apply(legal[rng.below(uint32_t(legal.size()))]);
  }
  EXPECT_GT(checked, 71);
}

}  // namespace
}  // namespace carc
