// Count, King & Robber (RULES section 3): King & Robber (KR) and cult places (SH).
#include <gtest/gtest.h>

#include <algorithm>

#include "position_builder.h"

namespace carc {
namespace {

using testing::legal_texts;
using testing::offers;
using testing::play;

// ---- King & Robber ----------------------------------------------------------------------------

TEST(KingRobber, KR1_KingGoesToWhoCompletesAStrictlyLargerCity) {
  // Three open one-tile cities side by side, facing north.
  State s =
      testing::position_in({"king-robber"}, {{"base.D-start", {0, 0}, 0}, {"base.K", {1, 0}, 0}, {"base.E", {2, 0}, 0}},
                           {}, {"base.E", "base.E", "base.F", "base.E"});
  EXPECT_EQ(s.king(), -1);
  play(s, {"draw base.E", "place 0,-1 r2", "pass"});  // player 0 completes a 2-tile city, unoccupied
  EXPECT_EQ(s.king(), 0);                             // completing, not scoring, is what counts
  play(s, {"draw base.E", "place 1,-1 r2", "pass"});  // player 1: 2 tiles again, not larger
  EXPECT_EQ(s.king(), 0);
  play(s, {"draw base.F", "place 2,-1 r1", "pass"});
  play(s, {"draw base.E", "place 2,-2 r2", "pass"});  // player 1: 3 tiles
  EXPECT_EQ(s.king(), 1);
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(1, Cause::King), 3);  // KR-2: 1 per completed city on the board
  EXPECT_EQ(s.score(0), 0);
}

TEST(KingRobber, KR1_KR2_RobberForRoads) {
  State s = testing::position_in({"king-robber"}, {{"base.D-start", {0, 0}, 0}, {"base.A", {1, 0}, 1}}, {},
                                 {"base.A", "base.U"});
  play(s, {"draw base.A", "place -1,0 r3", "pass"});  // completes a 3-tile road
  EXPECT_EQ(s.robber(), 0);
  EXPECT_EQ(s.king(), -1);
  play(s, {"draw base.U", "place 0,1 r0", "pass"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::Robber), 1);  // one completed road
}

TEST(KingRobber, CKT1_FiveNewLandTilesJoinTheBag) {
  Config config;
  config.expansions = {"king-robber"};
  State s(config);
  EXPECT_EQ(s.bag_size(), 71 + 5);
  const Catalogue& cat = Catalogue::builtin();
  EXPECT_EQ(s.bag_count(cat.find("king-robber.C")), 1);  // the bridge: two crossing cities
  EXPECT_EQ(cat.kind(cat.find("king-robber.C")).num_segments, 4);
}

// ---- Cult places ------------------------------------------------------------------------------

TEST(Shrines, SH2_AShrineNeverHasTwoMonasteriesAround) {
  State s = testing::position_in({"shrines"}, {{"base.B", {0, 0}, 0}, {"base.U", {1, 0}, 1}, {"base.B", {2, 0}, 0}}, {},
                                 {"shrines.E", "base.U"});
  play(s, {"draw shrines.E"});
  for (const char* cell : {"1,-1", "1,1"}) EXPECT_FALSE(offers(s, std::string("place ") + cell + " r0")) << cell;
  EXPECT_TRUE(offers(s, "place -1,0 r0"));
  EXPECT_TRUE(offers(s, "place 3,0 r0"));
  EXPECT_THROW(s.apply(s.parse_action("place 1,-1 r0")), IllegalActionError);
}

TEST(Shrines, SH2_NoMonasteryMayGiveAShrineASecondMonastery) {
  State s =
      testing::position_in({"shrines"}, {{"shrines.E", {0, 0}, 0}, {"base.B", {1, 0}, 0}}, {}, {"base.B", "base.U"});
  play(s, {"draw base.B"});
  EXPECT_FALSE(offers(s, "place -1,0 r0"));
  EXPECT_FALSE(offers(s, "place 0,1 r0"));
  EXPECT_TRUE(offers(s, "place 2,0 r0"));  // two away from the shrine
  Position p;
  p.config.expansions = {"shrines"};
  p.tiles = {{"shrines.E", {0, 0}, 0}, {"base.B", {1, 0}, 0}, {"base.B", {-1, 0}, 0}};
  EXPECT_THROW(State::from_position(p), PositionError);
}

// A shrine at (0,0) (heretic: player 0) beside a monastery at (1,0) (player 1's figure); the
// shrine's 8 neighbours are filled but (1,1).
std::vector<Position::Tile> cult_ring() {
  return {{"shrines.E", {0, 0}, 0}, {"base.B", {1, 0}, 0},   {"base.E", {0, -1}, 0}, {"base.E", {-1, 0}, 3},
          {"base.E", {0, 1}, 2},    {"base.V", {-1, -1}, 1}, {"base.V", {1, -1}, 2}, {"base.V", {-1, 1}, 0}};
}

TEST(Shrines, E8_SH5_CompletedShrineWinsTheChallengeTheMonkReturnsEmptyHanded) {
  State s = testing::position_in({"shrines"}, cult_ring(), {{0, "meeple", {0, 0}, 1}, {1, "meeple", {1, 0}, 1}},
                                 {"base.V", "base.U"}, 1);
  play(s, {"draw base.V", "place 1,1 r3", "pass"});
  EXPECT_EQ(s.score(0), 9);
  EXPECT_EQ(s.score(0, Cause::Shrine), 9);
  EXPECT_EQ(s.score(1), 0);
  EXPECT_EQ(s.supply(1), 7);  // the monk came back with nothing
  // The monastery is an ordinary unoccupied feature again: a meeple may go there later.
  const PlacedTile& b = s.board().tile(s.board().slot_at(Cell{1, 0}));
  EXPECT_EQ(s.features().feature(b.first_segment + 1).occupants, 0);
}

TEST(Shrines, SH5_BothCompletedInOnePhaseBothScoreNine) {
  std::vector<Position::Tile> tiles = cult_ring();
  tiles.push_back({"base.E", {2, 0}, 1});
  tiles.push_back({"base.V", {2, -1}, 1});
  tiles.push_back({"base.V", {2, 1}, 0});
  State s = testing::position_in({"shrines"}, tiles, {{0, "meeple", {0, 0}, 1}, {1, "meeple", {1, 0}, 1}},
                                 {"base.V", "base.U"});
  play(s, {"draw base.V", "place 1,1 r3", "pass"});
  EXPECT_EQ(s.score(0, Cause::Shrine), 9);
  EXPECT_EQ(s.score(1, Cause::Cloister), 9);
}

TEST(Shrines, AM_W5_ALosingWagonReturnsWithoutMoving) {
  State s = testing::position_in({"shrines", "abbey-mayor"}, cult_ring(),
                                 {{0, "meeple", {0, 0}, 1}, {1, "wagon", {1, 0}, 1}}, {"base.V", "base.U"}, 1);
  play(s, {"draw base.V", "place 1,1 r3", "pass"});
  EXPECT_EQ(s.score(0), 9);
  EXPECT_EQ(s.phase(), Phase::Draw);  // no wagon decision
  EXPECT_EQ(s.supply(1, FigureKind::Wagon), 1);
}

TEST(Shrines, SH5_ChallengesOpenAtTheEndAreIgnored) {
  State s = testing::position_in({"shrines"}, cult_ring(), {{0, "meeple", {0, 0}, 1}, {1, "meeple", {1, 0}, 1}}, {});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::Shrine), 8);    // SH-3: 1 + 7 neighbours
  EXPECT_EQ(s.score(1, Cause::Cloister), 5);  // 1 + 4 neighbours
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

// A hole at (0,0) among straight roads; a shrine at its north-west corner.
State shrine_by_a_hole(bool monastery_by_the_shrine) {
  Position p;
  p.config.expansions = {"abbey-mayor", "shrines"};
  p.config.draw_order = {"base.U"};
  p.tiles = {{"base.U", {0, -1}, 1}, {"shrines.E", {-1, -1}, 0}, {"base.U", {-1, 0}, 0}, {"base.B", {-1, 1}, 0},
             {"base.U", {0, 1}, 1},  {"base.B", {1, 1}, 0},      {"base.U", {1, 0}, 0},  {"base.B", {1, -1}, 0}};
  if (monastery_by_the_shrine) p.tiles.push_back({"base.B", {-2, -1}, 0});
  return State::from_position(p);
}

TEST(Shrines, AM_A7_AbbeysObeyTheCultPlaceLimit) {
  EXPECT_EQ(shrine_by_a_hole(false).phase(), Phase::AbbeyChoice);  // one monastery-like by the shrine: fine
  EXPECT_EQ(shrine_by_a_hole(true).phase(), Phase::Draw);          // the abbey would be a second
}

TEST(Shrines, SH1_FiveShrinesJoinTheBag) {
  Config config;
  config.expansions = {"shrines"};
  State s(config);
  EXPECT_EQ(s.bag_size(), 71 + 5);
  const Catalogue& cat = Catalogue::builtin();
  for (KindId k : cat.set_kinds("shrines")) EXPECT_EQ(s.bag_count(k), 1);
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

using testing::play;

// ---- SH-4: when a challenge begins -----------------------------------------------------------

// Player 0's heretic on a shrine at (1,2); monasteries down the west side; a hole at (0,2) whose
// 8 neighbours are all tiles, so an abbey placed there is complete at once.
State heretic_by_a_full_hole() {
  return testing::position_in({"abbey-mayor", "shrines"},
                              {{"base.D-start", {0, 0}, 0},
                               {"base.E", {0, 1}, 2},
                               {"base.E", {1, 1}, 0},
                               {"base.B", {-1, 1}, 0},
                               {"base.B", {-1, 2}, 0},
                               {"base.B", {-1, 3}, 0},
                               {"shrines.E", {1, 2}, 0},
                               {"base.E", {0, 3}, 2},
                               {"base.E", {1, 3}, 2}},
                              {{0, "meeple", {1, 2}, 1}}, {"base.U"}, 1);
}

TEST(Shrines, SH4_AnAbbeyCompleteAtOnceNeverChallenges) {
  State s = heretic_by_a_full_hole();
  ASSERT_EQ(s.phase(), Phase::AbbeyChoice);
  play(s, {"abbey 0,2", "meeple abbey#0"});
  EXPECT_EQ(s.score(1, Cause::Cloister), 9);  // AM-A-6: scored at once
  EXPECT_EQ(s.supply(0), 6);                  // the heretic stays: there never was a challenge
  EXPECT_EQ(s.num_challenges(), 0);
  const PlacedTile& shrine = s.board().tile(s.board().slot_at(Cell{1, 2}));
  EXPECT_EQ(s.features().feature(shrine.first_segment + 1).occupants, 1);
}

// A monastery at (0,0) (player 1's monk) with 7 of its 8 neighbours; (1,1) is left for a shrine.
std::vector<Position::Tile> monastery_missing_its_south_east() {
  return {{"base.B", {0, 0}, 0}, {"base.E", {0, -1}, 0},  {"base.E", {-1, 0}, 3}, {"base.E", {0, 1}, 2},
          {"base.E", {1, 0}, 1}, {"base.V", {-1, -1}, 1}, {"base.V", {1, -1}, 2}, {"base.V", {-1, 1}, 0}};
}

TEST(Shrines, SH4_AHereticBesideAMonasteryItsTileCompletesIsNotChallenged) {
  State s = testing::position_in({"shrines"}, monastery_missing_its_south_east(), {{1, "meeple", {0, 0}, 1}},
                                 {"shrines.E", "base.U"});
  play(s, {"draw shrines.E", "place 1,1 r0", "meeple shrine#1"});
  EXPECT_EQ(s.score(1, Cause::Cloister), 9);
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.supply(0), 6);  // the heretic stays
  EXPECT_EQ(s.supply(1), 7);
  EXPECT_EQ(s.num_challenges(), 0);
}

TEST(Shrines, SH4_SH5_AHereticBesideAnUnfinishedMonkStartsAChallengeThatTheMonasteryWins) {
  std::vector<Position::Tile> tiles = monastery_missing_its_south_east();
  tiles.erase(tiles.begin() + 7);  // (-1,1) empty too: the monastery stays unfinished
  State s = testing::position_in({"shrines"}, tiles, {{1, "meeple", {0, 0}, 1}}, {"shrines.E", "base.V", "base.U"});
  play(s, {"draw shrines.E", "place 1,1 r0", "meeple shrine#1"});
  ASSERT_EQ(s.num_challenges(), 1);  // both unfinished and occupied: it begins
  const PlacedTile& shrine = s.board().tile(s.board().slot_at(Cell{1, 1}));
  const PlacedTile& monastery = s.board().tile(s.board().slot_at(Cell{0, 0}));
  EXPECT_EQ(s.challenge(0), std::make_pair(uint16_t(shrine.first_segment + 1), uint16_t(monastery.first_segment + 1)));
  play(s, {"draw base.V", "place -1,1 r0", "pass"});  // player 1 completes the monastery
  EXPECT_EQ(s.score(1, Cause::Cloister), 9);
  EXPECT_EQ(s.supply(0), 7);  // SH-5: the heretic returns with nothing
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.num_challenges(), 0);
}

// Found by the moves fuzzer (a "duplicate" action): a meeple put beside one's own heretic (XX-4)
// on a shrine whose challenge this very tile decides against it returns with it, with nothing
// (SH-5): the choice ends exactly as passing does. Both stay legal (the rules allow both; the
// coincidence is documented in docs/rules.md, "One action per choice").
TEST(Shrines, SH5_XX4_AMeepleBesideAHereticWhoseShrineLosesThisTurnReturnsWithIt) {
  std::vector<Position::Tile> tiles = monastery_missing_its_south_east();
  tiles.erase(tiles.begin() + 7);  // (-1,1) empty: the monastery's last hole
  State s = testing::position_in({"shrines", "anniv20"}, tiles, {{1, "meeple", {0, 0}, 1}},
                                 {"shrines.E", "base.E", "anniv20.B", "base.U"});
  play(s, {"draw shrines.E", "place 1,1 r0", "meeple shrine#1"});  // player 0's heretic
  ASSERT_EQ(s.num_challenges(), 1);
  play(s, {"draw base.E", "place 0,-2 r2", "pass"});  // player 1, away from both
  play(s, {"draw anniv20.B", "place -1,1 r0"});       // completes the monastery; arrow north at a tile
  ASSERT_EQ(s.active_arrow(), ArrowKind::MeepleBeside);
  ASSERT_TRUE(offers(s, "meeple shrine#1 @1,1"));  // the shrine is unfinished: XX-4 allows it
  State passed = s;
  play(passed, {"pass"});
  play(s, {"meeple shrine#1 @1,1"});
  EXPECT_EQ(s.score(1, Cause::Cloister), 9);  // the monastery wins the challenge
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.supply(0), 7);  // the heretic and the meeple beside it are back, with nothing
  EXPECT_EQ(s.num_challenges(), 0);
  EXPECT_TRUE(s.same_position(passed));
}

// A shrine at (0,0) (player 0's heretic) with 7 of its 8 neighbours; (1,0) a hole beside it, and
// (2,-1) empty so that an abbey in the hole stays unfinished.
TEST(Shrines, SH4_AnAbbeyThatCompletesAShrineIsNotChallengedByIt) {
  State s = testing::position_in({"abbey-mayor", "shrines"},
                                 {{"shrines.E", {0, 0}, 0},
                                  {"base.E", {0, -1}, 0},
                                  {"base.E", {-1, 0}, 3},
                                  {"base.E", {0, 1}, 2},
                                  {"base.V", {-1, -1}, 1},
                                  {"base.V", {1, -1}, 2},
                                  {"base.V", {-1, 1}, 0},
                                  {"base.V", {1, 1}, 2},
                                  {"base.V", {2, 1}, 0},
                                  {"base.E", {2, 0}, 0}},
                                 {{0, "meeple", {0, 0}, 1}}, {"base.U"}, 1);
  ASSERT_EQ(s.phase(), Phase::AbbeyChoice);
  play(s, {"abbey 1,0", "meeple abbey#0"});
  EXPECT_EQ(s.score(0, Cause::Shrine), 9);  // the abbey completed the shrine
  EXPECT_EQ(s.supply(1), 6);                // the monk stays on the unfinished abbey
  EXPECT_EQ(s.num_challenges(), 0);
  play(s, {"draw base.U", "place 3,0 r1"});  // the last tile, by player 0
  if (s.phase() == Phase::PlaceFigure) play(s, {"pass"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(1, Cause::Cloister), 8);  // B-8: 1 + 7 neighbours
}

}  // namespace
}  // namespace carc
