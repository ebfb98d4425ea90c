// 20th Anniversary expansion (RULES section 4, XX-1 … XX-8) and examples E-10, E-14.
#include <gtest/gtest.h>

#include <algorithm>

#include "position_builder.h"

namespace carc {
namespace {

using testing::legal_texts;
using testing::offers;
using testing::play;

State xx_position(std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures,
                  std::vector<std::string> draws, std::vector<std::string> expansions = {"anniv20"}) {
  return testing::position_in(std::move(expansions), std::move(tiles), std::move(figures), std::move(draws));
}

int remote_options(const State& s) {
  std::vector<std::string> all = legal_texts(s);
  return int(
      std::count_if(all.begin(), all.end(), [](const std::string& t) { return t.find('@') != std::string::npos; }));
}

TEST(Anniversary, E10_XX2_ArrowPointingAtAnEmptyCellScoresTwoAtOnce) {
  State s = xx_position({{"base.D-start", {0, 0}, 0}}, {}, {"anniv20.F", "base.U"});
  play(s, {"draw anniv20.F", "place 1,0 r0"});  // the arrow points north, at (1,-1): empty
  ASSERT_EQ(s.phase(), Phase::PlaceFigure);
  EXPECT_EQ(s.score(0), 2);
  EXPECT_EQ(s.score(0, Cause::Arrow), 2);
  EXPECT_EQ(s.active_arrow(), ArrowKind::None);
  EXPECT_TRUE(s.arrow_armed(s.board().slot_at(Cell{1, 0})));
  EXPECT_EQ(remote_options(s), 0);
}

TEST(Anniversary, XX1_XX5_ArrowPointingAtATileActivatesPlaceAnywhere) {
  State s = xx_position({{"base.D-start", {0, 0}, 0}}, {}, {"anniv20.F", "base.U"});
  play(s, {"draw anniv20.F", "place 0,1 r0"});  // the arrow points north, at the start tile
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);
  EXPECT_FALSE(s.arrow_armed(s.board().slot_at(Cell{0, 1})));
  EXPECT_TRUE(offers(s, "meeple city#0 @0,0"));
  EXPECT_TRUE(offers(s, "meeple road#1 @0,0"));
  EXPECT_TRUE(offers(s, "meeple field#2 @0,0"));  // fields too
  play(s, {"meeple city#0 @0,0"});
  EXPECT_EQ(s.supply(0), 6);
  EXPECT_EQ(s.features().feature(s.board().tile(0).first_segment).meeples[0], 1);
}

TEST(Anniversary, XX1_ArrowActivatedByALaterTile) {
  State s = xx_position({{"base.D-start", {0, 0}, 0}}, {}, {"anniv20.F", "base.E", "base.U"});
  play(s, {"draw anniv20.F", "place 1,0 r0", "pass"});  // +2, armed, pointing at (1,-1)
  EXPECT_EQ(s.score(0), 2);
  play(s, {"draw base.E", "place 1,-1 r0"});  // player 1 fills the cell the arrow points at
  EXPECT_EQ(s.current_player(), 1);
  EXPECT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);
  EXPECT_FALSE(s.arrow_armed(s.board().slot_at(Cell{1, 0})));
  EXPECT_GT(remote_options(s), 0);
  EXPECT_EQ(s.score(1), 0);  // activating someone else's arrow scores nothing
}

// An armed place-anywhere arrow at (1,0) points south at (1,1); anniv20.K (extra turn) goes there.
State two_arrows() {
  return xx_position({{"base.D-start", {0, 0}, 0}, {"anniv20.F", {1, 0}, 2}}, {}, {"anniv20.K", "base.U", "base.U"});
}

TEST(Anniversary, XX3_TwoArrowsAtOncePlayerChoosesOneTheOtherIsLost) {
  State s = two_arrows();
  play(s, {"draw anniv20.K", "place 1,1 r3"});  // K's arrow points north at (1,0): both activate
  ASSERT_EQ(s.phase(), Phase::ArrowChoice);
  EXPECT_EQ(legal_texts(s), (std::vector<std::string>{"arrow 1,0", "arrow 1,1"}));
  EXPECT_EQ(s.score(0), 0);
  play(s, {"arrow 1,0"});
  EXPECT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);
  EXPECT_FALSE(s.arrow_armed(s.board().slot_at(Cell{1, 1})));  // lost
  play(s, {"pass", "draw base.U"});
  EXPECT_EQ(s.current_player(), 1);  // no extra turn
}

TEST(Anniversary, XX3_XX6_ChoosingTheExtraTurnArrow) {
  State s = two_arrows();
  play(s, {"draw anniv20.K", "place 1,1 r3", "arrow 1,1"});
  EXPECT_EQ(s.active_arrow(), ArrowKind::ExtraTurn);
  EXPECT_EQ(remote_options(s), 0);
  EXPECT_FALSE(s.arrow_armed(s.board().slot_at(Cell{1, 0})));  // the place-anywhere arrow is lost
  play(s, {"pass", "draw base.U"});
  EXPECT_EQ(s.current_player(), 0);  // the extra turn
  EXPECT_TRUE(s.in_extra_turn());
}

TEST(Anniversary, E14_XX2_XX3_ArrowToAnEmptyCellScoresAndAnotherArrowActivates) {
  State s = two_arrows();
  play(s, {"draw anniv20.K", "place 1,1 r0"});  // K's arrow points east at (2,1): empty
  ASSERT_EQ(s.phase(), Phase::PlaceFigure);
  EXPECT_EQ(s.score(0, Cause::Arrow), 2);
  EXPECT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);  // the arrow at (1,0) pointed here
  EXPECT_TRUE(s.arrow_armed(s.board().slot_at(Cell{1, 1})));
}

TEST(Anniversary, XX6_ExtraTurnTakenAndASecondOneIgnored) {
  State s = xx_position({{"base.D-start", {0, 0}, 0}}, {}, {"anniv20.K", "anniv20.L", "base.U", "base.U"});
  play(s, {"draw anniv20.K", "place 0,1 r3", "pass"});  // arrow north at the start: extra turn
  play(s, {"draw anniv20.L"});
  EXPECT_EQ(s.current_player(), 0);
  EXPECT_TRUE(s.in_extra_turn());
  play(s, {"place 0,2 r1"});  // L's arrow points north at K: activates, but no third turn
  EXPECT_EQ(s.active_arrow(), ArrowKind::ExtraTurn);
  if (s.phase() == Phase::PlaceFigure) play(s, {"pass"});
  play(s, {"draw base.U"});
  EXPECT_EQ(s.current_player(), 1);
  EXPECT_FALSE(s.in_extra_turn());
}

// base.D-start, a road west to east over anniv20.A's future cell (-1,0) and base.U at (1,0);
// base.B tiles south of the start and of (-1,0) for anniv20.A's arrow to point at.
TEST(Anniversary, XX4_MeepleBesideMakesAPairThatNeverGrowsToThree) {
  State s =
      xx_position({{"base.D-start", {0, 0}, 0}, {"base.U", {1, 0}, 0}, {"base.B", {0, 1}, 0}, {"base.B", {-1, 1}, 0}},
                  {{0, "meeple", {0, 0}, 1}, {1, "meeple", {1, 0}, 0}}, {"anniv20.A", "base.B", "anniv20.E"});
  play(s, {"draw anniv20.A", "place -1,0 r0"});  // arrow south at (-1,1): meeple beside
  EXPECT_EQ(s.active_arrow(), ArrowKind::MeepleBeside);
  EXPECT_TRUE(offers(s, "meeple road#1 @0,0"));   // beside player 0's thief
  EXPECT_FALSE(offers(s, "meeple road#0 @1,0"));  // never beside someone else's figure
  play(s, {"meeple road#1 @0,0"});
  EXPECT_EQ(s.supply(0), 5);
  s.check_consistency();
  play(s, {"draw base.B", "place 1,1 r0", "pass"});
  play(s, {"draw anniv20.E", "place 1,-1 r0"});  // arrow south at (1,0): meeple beside again
  EXPECT_EQ(s.active_arrow(), ArrowKind::MeepleBeside);
  EXPECT_EQ(remote_options(s), 0);  // both of player 0's road meeples are a pair already
  play(s, {"pass"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::Road), 3);  // the pair (strength 2) beats one thief
  EXPECT_EQ(s.score(1, Cause::Road), 0);
}

TEST(Anniversary, XX5_XX7_PlaceAnywhereRefusesAFeatureThisTileCompletedAndDeploysMeeplesOnly) {
  State s = xx_position({{"base.D-start", {0, 0}, 0}, {"base.J", {-1, 0}, 0}, {"anniv20.J", {-1, -1}, 2}}, {},
                        {"base.E", "base.U"}, {"anniv20", "abbey-mayor"});
  play(s, {"draw base.E", "place 0,-1 r2"});  // completes the start's city; the arrow at (-1,-1) points here
  EXPECT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);
  EXPECT_FALSE(offers(s, "meeple city#0 @0,0"));
  EXPECT_THROW(s.apply(s.parse_action("meeple city#0 @0,0")), IllegalActionError);
  EXPECT_TRUE(offers(s, "meeple road#1 @0,0"));
  for (const std::string& t : legal_texts(s)) {
    if (t.find('@') != std::string::npos) {
      EXPECT_EQ(t.rfind("meeple ", 0), 0u) << t;  // XX-7
    }
  }
}

TEST(Anniversary, XX8_PlaceAnywhereNeverOnAFieldWithABarn) {
  // The start tile's south field gets a barn; the arrow at (-1,0) points at (-1,1).
  State s = xx_position({{"base.D-start", {0, 0}, 0},
                         {"base.B", {0, 1}, 0},
                         {"base.U", {1, 0}, 0},
                         {"base.B", {1, 1}, 0},
                         {"anniv20.F", {-1, 0}, 2}},
                        {{1, "barn", {0, 0}, 1}}, {"base.B", "base.U"}, {"anniv20", "abbey-mayor"});
  play(s, {"draw base.B", "place -1,1 r0"});
  EXPECT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);
  EXPECT_FALSE(offers(s, "meeple field#3 @0,0"));  // the barn's field
  EXPECT_TRUE(offers(s, "meeple field#2 @0,0"));   // the field north of the road
}

TEST(Anniversary, XX5_PlaceAnywhereIsOneChoicePerFeatureAwayFromTheNewTile) {
  State s = xx_position({{"base.D-start", {0, 0}, 0}}, {}, {"anniv20.F", "base.U"});
  play(s, {"draw anniv20.F", "place 0,1 r0"});  // the arrow points north, at the start tile
  ASSERT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);
  // Not the new tile's features (that is the ordinary B-5 choice), nor the start's south field,
  // which the new tile joined; one choice for each other feature.
  std::vector<std::string> remote;
  for (const std::string& t : legal_texts(s))
    if (t.find('@') != std::string::npos) remote.push_back(t);
  EXPECT_EQ(remote, testing::sorted({"meeple city#0 @0,0", "meeple road#1 @0,0", "meeple field#2 @0,0"}));
  EXPECT_TRUE(offers(s, "meeple road#0"));
  EXPECT_THROW(s.apply(s.parse_action("meeple road#0 @0,1")), IllegalActionError);
}

TEST(Anniversary, XX3_TwoArrowsOfOneKindAreNoChoice) {
  State s = xx_position({{"base.D-start", {0, 0}, 0}, {"anniv20.F", {1, 0}, 2}}, {}, {"anniv20.G", "base.U"});
  play(s, {"draw anniv20.G", "place 1,1 r0"});  // G points north at F, F south at G: both place anywhere
  EXPECT_EQ(s.phase(), Phase::PlaceFigure);     // either choice would do the same: none is asked
  EXPECT_EQ(s.active_arrow(), ArrowKind::PlaceAnywhere);
  EXPECT_FALSE(s.arrow_armed(s.board().slot_at(Cell{1, 0})));
  EXPECT_FALSE(s.arrow_armed(s.board().slot_at(Cell{1, 1})));
}

TEST(Anniversary, XX6_RV6_AnExtraTurnArrowInTheVolcanosExtraTurnGivesNoThird) {
  Config c;
  c.expansions = {"river2", "anniv20"};
  c.draw_order = {"river2.I", "river2.L", "anniv20.K", "base.U", "base.U"};
  State s(c);
  play(s, {"draw river2.I", "place 1,0 r0", "pass"});
  play(s, {"draw river2.L", "place 2,0 r0"});  // player 1: the volcano lake, and another turn (RV-6)
  play(s, {"draw anniv20.K"});
  ASSERT_EQ(s.current_player(), 1);
  EXPECT_TRUE(s.in_extra_turn());
  play(s, {"place 1,1 r3"});  // K's extra-turn arrow points north at the fork: activated
  EXPECT_EQ(s.active_arrow(), ArrowKind::ExtraTurn);
  if (s.phase() == Phase::PlaceFigure) play(s, {"pass"});
  play(s, {"draw base.U"});
  EXPECT_EQ(s.current_player(), 0);  // never three turns in a row (RULES 5.5)
  EXPECT_FALSE(s.in_extra_turn());
}

TEST(Anniversary, ProvisionalTilesAreMarkedAsData) {
  const Catalogue& cat = Catalogue::builtin();
  int provisional = 0;
  for (KindId k : cat.set_kinds("anniv20")) provisional += cat.kind(k).provisional;
  EXPECT_EQ(provisional, 15);  // 14 stand-ins and anniv20.D, read from a low-resolution picture
}

}  // namespace
}  // namespace carc
