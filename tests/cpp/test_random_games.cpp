// Random games with invariant checks after every action (DESIGN "Quality bars"): aggregates
// equal a recomputation, meeples are conserved, scores never drop, legal placements equal a
// direct scan of the board, action strings round-trip, and replaying the actions reproduces the
// game. CARC_FUZZ_MOVES sets how many actions to play in all (the sanitizer run raises it).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <set>
#include <stdexcept>
#include <tuple>

#include "engine/game.h"
#include "invariants.h"
#include "search/playout.h"

namespace carc {
namespace {

long fuzz_moves() {
  const char* env = std::getenv("CARC_FUZZ_MOVES");
  return env ? std::atol(env) : 20000;
}

// Runs an invariant check; a broken invariant is a test failure with its message.
template <class Check>
bool holds(Check check) {
  try {
    check();
    return true;
  } catch (const std::logic_error& e) {
    ADD_FAILURE() << e.what();
    return false;
  }
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
      if (!holds([&] { invariants::check_step(s); })) return games;
      if ((s.phase() == Phase::Draw || s.phase() == Phase::AbbeyChoice) && s.turn_number() == round_trip_turn &&
          !holds([&] { invariants::check_position_round_trip(s, rng); }))
        return games;
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
    if (!holds([&] { invariants::check_game_end(s); })) return games;
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
