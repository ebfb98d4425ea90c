// River II (RULES RV-1 … RV-7): the river stack, its placement rules, the pig herd, the volcano.
#include <gtest/gtest.h>

#include <algorithm>

#include "position_builder.h"

namespace carc {
namespace {

using testing::legal_texts;
using testing::play;

State river_game(std::vector<std::string> draws = {}, int players = 2) {
  Config c;
  c.players = players;
  c.expansions = {"river2"};
  c.draw_order = std::move(draws);
  return State(c);
}

TEST(River, RV1_RV3_SpringStartsForkFirstVolcanoLakeLast) {
  State s = river_game();
  const Catalogue& cat = Catalogue::builtin();
  EXPECT_EQ(cat.kind(s.board().tile(0).kind).name, "river2.A");
  EXPECT_EQ(s.bag_size(), 71 + 11);  // the start tile went back to the box (CK-0)
  EXPECT_EQ(s.river_left(), 11);
  auto first = s.chance_outcomes();
  ASSERT_EQ(first.size(), 1u);
  EXPECT_EQ(s.action_to_string(first[0].first), "draw river2.I");
  play(s, {"draw river2.I"});
  EXPECT_EQ(legal_texts(s), (std::vector<std::string>{"place 1,0 r0", "place 1,0 r2", "place 1,0 r3"}));
  play(s, {"place 1,0 r0", "pass"});
  auto middle = s.chance_outcomes();
  EXPECT_EQ(middle.size(), 9u);  // B … K shuffled; the volcano lake L waits
  for (auto& [a, p] : middle) {
    EXPECT_NE(s.action_to_string(a), "draw river2.L");
    EXPECT_DOUBLE_EQ(p, 1.0 / 9);
  }
  EXPECT_THROW(s.apply(s.parse_action("draw river2.L")), IllegalActionError);
  EXPECT_THROW(s.apply(s.parse_action("draw base.C")), IllegalActionError);  // land tiles wait
}

TEST(River, RV2_NoUTurn) {
  State s = river_game({"river2.I", "river2.B", "river2.F", "base.U"});
  play(s, {"draw river2.I", "place 1,0 r0", "pass"});  // ends north (1,-1) and east (2,0)
  play(s, {"draw river2.B", "place 2,0 r0", "pass"});  // the east branch turns right, south
  play(s, {"draw river2.F"});
  // Turning right again at (2,1) would be a U-turn; left is fine, and so is the north branch.
  EXPECT_EQ(legal_texts(s), (std::vector<std::string>{"place 1,-1 r2", "place 1,-1 r3", "place 2,1 r1"}));
  try {
    s.apply(s.parse_action("place 2,1 r0"));
    FAIL() << "a U-turn was accepted";
  } catch (const IllegalActionError& e) {
    EXPECT_NE(std::string(e.what()).find("RV-2"), std::string::npos) << e.what();
  }
}

TEST(River, RV2_BranchesNeverShareASide) {
  State s = river_game({"river2.I", "river2.F", "river2.B", "river2.J", "base.U"});
  play(s, {"draw river2.I", "place 1,0 r0", "pass"});
  play(s, {"draw river2.F", "place 1,-1 r3", "pass"});  // north branch turns west
  play(s, {"draw river2.B", "place 2,0 r1", "pass"});   // east branch turns north, towards (2,-1)
  play(s, {"draw river2.J"});
  // (2,-1) would touch the north branch's tile at (1,-1).
  EXPECT_EQ(legal_texts(s), (std::vector<std::string>{"place 0,-1 r0"}));
}

TEST(River, RV1_LandTilesNeverTouchTheRiverWithALandSide) {
  State s = river_game({"base.C"});
  play(s, {"draw base.C"});  // a city crossroads: no river side, nothing else fits the spring
  EXPECT_EQ(s.discarded(), 1);
}

TEST(River, RV6_VolcanoLakeGivesAnotherTurnAndNoFigure) {
  State s = river_game({"river2.I", "river2.L", "base.U", "base.U"});
  play(s, {"draw river2.I", "place 1,0 r0", "pass"});
  play(s, {"draw river2.L"});
  EXPECT_EQ(s.current_player(), 1);
  play(s, {"place 2,0 r0"});   // the lake closes the east branch
  EXPECT_TRUE(s.is_chance());  // no figure decision
  play(s, {"draw base.U"});
  EXPECT_EQ(s.current_player(), 1);  // the same player again
}

TEST(River, RV4_PigHerdAddsOnePerCityForTheFarmers) {
  State s = river_game({"river2.I", "river2.F", "base.E", "base.E"});
  play(s, {"draw river2.I", "place 1,0 r0", "pass"});
  play(s, {"draw river2.F", "place 2,0 r0", "meeple field#1"});  // player 1's farmer by the pigs
  play(s, {"draw base.E", "place 3,0 r1", "pass"});
  play(s, {"draw base.E", "place 4,0 r3", "pass"});  // the city next to the pig field is complete
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(1, Cause::Field), 4);  // 3 + 1 for the pig herd
}

TEST(River, RV7_TheRiverSeparatesTheFieldsOnItsBanks) {
  // river2.J runs east-west: its north bank and its south bank are two fields. Player 1 farms the
  // north bank; player 0 can still farm the south bank (through base.E's field next to it), and
  // only the south bank touches the city closed below it.
  State s = river_game({"river2.I", "river2.J", "base.E", "base.E"});
  play(s, {"draw river2.I", "place 1,0 r0", "pass"});
  play(s, {"draw river2.J", "place 2,0 r0", "meeple field#1"});  // player 1: the north bank
  play(s, {"draw base.E", "place 2,1 r2"});
  std::vector<std::string> options = legal_texts(s);
  EXPECT_NE(std::find(options.begin(), options.end(), "meeple field#1"), options.end())
      << "the south bank must be a field of its own, free to take";
  play(s, {"meeple field#1"});                       // player 0: base.E's field, the south bank
  play(s, {"draw base.E", "place 2,2 r0", "pass"});  // closes the 2-tile city south of the bank
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::Field), 3);
  EXPECT_EQ(s.score(1, Cause::Field), 0);
}

TEST(River, CK0_RiverIsAStartOption) {
  Config by_variant;
  by_variant.variants = {{"start", "river2"}};
  EXPECT_EQ(State(by_variant).river_left(), 11);
  Config clash;
  clash.expansions = {"river2"};
  clash.variants = {{"start", "tile"}};
  EXPECT_THROW(State{clash}, ConfigError);
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

TEST(River, RV5_TheInnHasNoEffect) {
  // A road crossing the river on the inn tile (river2.D) scores 1 per tile like any road.
  State s = river_game({"river2.I", "river2.D", "base.A", "base.A"});
  play(s, {"draw river2.I", "place 1,0 r0", "pass"});
  play(s, {"draw river2.D", "place 2,0 r1", "meeple road#0"});
  play(s, {"draw base.A", "place 2,-1 r0", "pass"});
  play(s, {"draw base.A", "place 2,1 r2", "pass"});
  EXPECT_EQ(s.score(1, Cause::Road), 3);
  EXPECT_EQ(s.score(1), 3);
}

}  // namespace
}  // namespace carc
