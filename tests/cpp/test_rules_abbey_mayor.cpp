// Abbey & Mayor (RULES section 2) and its worked examples (RULES 6), on real positions.
#include <gtest/gtest.h>

#include <algorithm>

#include "position_builder.h"

namespace carc {
namespace {

using testing::legal_texts;
using testing::play;
using testing::sorted;

Config am_config(int players = 2, std::map<std::string, std::string> variants = {}) {
  Config c;
  c.players = players;
  c.expansions = {"abbey-mayor"};
  c.variants = std::move(variants);
  return c;
}

State am_position(std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures,
                  std::vector<std::string> draws, Config config = am_config()) {
  return testing::position_in(config.expansions, std::move(tiles), std::move(figures), std::move(draws), 0,
                              config.variants, config.players);
}

// ---- Mayor ------------------------------------------------------------------------------------

// A W-E city of 7 tiles with 3 pennants, open at its east end (5,0).
std::vector<Position::Tile> long_city() {
  return {{"base.E", {-1, 0}, 1},       {"base.F", {0, 0}, 0}, {"base.F", {1, 0}, 0},
          {"abbey-mayor.L", {2, 0}, 0}, {"base.G", {3, 0}, 0}, {"abbey-mayor.C", {4, 0}, 0}};
}

TEST(AbbeyMayor, E1_AM_M2_MayorWithThreePennantsBeatsTwoKnights) {
  State s = am_position(long_city(), {{1, "meeple", {0, 0}, 0}, {1, "meeple", {1, 0}, 0}, {0, "mayor", {2, 0}, 0}},
                        {"base.E", "base.U"});
  play(s, {"draw base.E", "place 5,0 r3", "pass"});
  EXPECT_EQ(s.score(0), 20);  // 2 x (7 tiles + 3 pennants), as in seed 000
  EXPECT_EQ(s.score(0, Cause::CityMayor), 20);
  EXPECT_EQ(s.score(1), 0);
  EXPECT_EQ(s.supply(0, FigureKind::Mayor), 1);  // AM-M-3: back to supply
  EXPECT_EQ(s.supply(1), 7);
}

TEST(AbbeyMayor, E2_AM_M2_MayorAloneInACityWithoutPennantsScoresNothing) {
  State s = am_position({{"base.E", {0, 0}, 2}}, {{0, "mayor", {0, 0}, 0}}, {"base.E", "base.U"});
  play(s, {"draw base.E", "place 0,1 r0", "pass"});
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.score(1), 0);
  EXPECT_EQ(s.supply(0, FigureKind::Mayor), 1);
}

TEST(AbbeyMayor, AM_M2_ZeroPennantMayorLosesToAKnight) {
  State s = am_position({{"base.E", {0, 0}, 2}, {"base.N", {0, 1}, 0}},
                        {{0, "mayor", {0, 0}, 0}, {1, "meeple", {0, 1}, 0}}, {"base.E", "base.U"});
  play(s, {"draw base.E", "place -1,1 r1", "pass"});
  EXPECT_EQ(s.score(1), 6);  // 3 tiles, no pennant; strength 1 beats 0
  EXPECT_EQ(s.score(0), 0);
}

TEST(AbbeyMayor, AM_M1_MayorOnlyInAnUnoccupiedCityOfTheNewTile) {
  State s = am_position({{"base.D-start", {0, 0}, 0}}, {}, {"base.K", "base.K"});
  play(s, {"draw base.K", "place 0,-1 r2"});  // city S meets the start's city; roads W-N
  std::vector<std::string> options = legal_texts(s);
  EXPECT_TRUE(std::count(options.begin(), options.end(), "mayor city#0"));
  EXPECT_FALSE(std::count(options.begin(), options.end(), "mayor road#1"));
  EXPECT_THROW(s.apply(s.parse_action("mayor road#1")), IllegalActionError);
  play(s, {"meeple city#0", "draw base.K", "place 1,0 r0"});  // base.K r0: city N, road S-W
  std::vector<std::string> next = legal_texts(s);
  EXPECT_TRUE(std::count(next.begin(), next.end(), "mayor city#0"));  // a new, separate city
}

TEST(AbbeyMayor, AM_M3_UnfinishedCityAtTheEndUsesMayorStrength) {
  // A 2-tile city with 1 pennant, open: mayor (strength 1) ties a knight: both score 3.
  State s = am_position({{"base.M", {0, 0}, 2}, {"base.E", {0, 1}, 0}},
                        {{0, "mayor", {0, 0}, 0}, {1, "meeple", {0, 1}, 0}}, {});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 3);
  EXPECT_EQ(s.score(0, Cause::CityMayor), 3);
  EXPECT_EQ(s.score(1), 3);
  EXPECT_EQ(s.score(1, Cause::City), 3);
}

// ---- Barn -------------------------------------------------------------------------------------

// base.H between two completed cities; its field runs over base.B tiles east of it.
std::vector<Position::Tile> farm() {
  return {{"base.H", {0, 0}, 0}, {"base.E", {0, -1}, 2}, {"base.E", {0, 1}, 0},
          {"base.B", {1, 0}, 0}, {"base.B", {1, -1}, 0}, {"base.B", {2, -1}, 0}};
}

TEST(AbbeyMayor, E3_AM_B3_BarnOnAFieldWithAFarmerScoresTheFarmerAtOnce) {
  State s = am_position(farm(), {{1, "meeple", {1, 0}, 0}}, {"base.B", "base.U"});
  play(s, {"draw base.B", "place 2,0 r0"});
  EXPECT_EQ(legal_texts(s), sorted({"pass", "meeple monastery#1", "wagon monastery#1", "barn NW"}));
  play(s, {"barn NW"});
  EXPECT_EQ(s.score(1), 6);  // 3 x 2 completed cities
  EXPECT_EQ(s.score(1, Cause::FieldBarn), 6);
  EXPECT_EQ(s.score(0), 0);  // the barn's owner scores nothing now
  EXPECT_EQ(s.supply(1), 7);
  EXPECT_EQ(s.supply(0, FigureKind::Barn), 0);  // the barn stays
  // E-5 style: at the end the barn scores 4 per completed city of its field.
  play(s, {"draw base.U", "place -1,0 r1", "pass"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::Barn), 8);
}

TEST(AbbeyMayor, AM_B3_BarnOnAFieldWithoutFarmersScoresNobody) {
  // A barn on a field with no farmer scores nobody and returns nothing.
  State s = am_position(farm(), {}, {"base.B", "base.U"});
  play(s, {"draw base.B", "place 2,0 r0", "barn NW"});
  EXPECT_EQ(s.score(0) + s.score(1), 0);
  EXPECT_TRUE(s.is_chance());
}

TEST(AbbeyMayor, AM_B1_NoBarnWhereACityWallSplitsTheCorner) {
  // Next to base.H's field the corners touch city walls of the base.E tiles.
  State s = am_position(farm(), {}, {"base.B", "base.U"});
  play(s, {"draw base.B", "place 2,0 r0"});
  EXPECT_THROW(s.apply(s.parse_action("barn NE")), IllegalActionError);  // only 2 tiles there
  Position p;
  p.config = am_config();
  p.tiles = farm();
  p.figures = {{0, "barn", {0, 0}, 0}};  // NE of base.H: the city wall of (0,-1) reaches it
  EXPECT_THROW(State::from_position(p), PositionError);
}

TEST(AbbeyMayor, E4_AM_B5_TileJoiningFarmersToABarnFieldScoresOnePerCity) {
  std::vector<Position::Tile> tiles = farm();
  tiles.push_back({"base.B", {2, 0}, 0});
  tiles.push_back({"base.E-garden", {-1, 1}, 0});
  State s =
      am_position(tiles, {{1, "barn", {1, 0}, 0}, {0, "meeple", {0, 1}, 1}, {1, "meeple", {-1, 1}, 1}}, {"base.E"});
  play(s, {"draw base.E", "place 1,1 r1"});
  std::vector<std::string> options = legal_texts(s);
  EXPECT_FALSE(std::count(options.begin(), options.end(), "meeple field#1"));  // AM-B-4
  play(s, {"pass"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::FieldBarn), 2);  // tie: both score 1 x 2 completed cities
  EXPECT_EQ(s.score(1, Cause::FieldBarn), 2);
  EXPECT_EQ(s.score(1, Cause::Barn), 8);  // then the barn at the end: 4 x 2
  EXPECT_EQ(s.score(0), 2);
  EXPECT_EQ(s.score(1), 10);
  EXPECT_EQ(s.supply(0), 7);
}

TEST(AbbeyMayor, E5_AM_B6_BarnScoresFourPerCompletedCityAtTheEnd) {
  std::vector<Position::Tile> tiles = farm();
  tiles.push_back({"base.B", {2, 0}, 0});
  tiles.push_back({"base.E", {1, -2}, 0});
  tiles.push_back({"base.E-garden", {1, -3}, 2});
  State s = am_position(tiles, {{0, "barn", {1, 0}, 0}}, {});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 12);
  EXPECT_EQ(s.score(0, Cause::Barn), 12);
}

TEST(AbbeyMayor, AM_B6_TwoBarnFieldsJoinedBothScoreInFull) {
  std::vector<Position::Tile> tiles = farm();
  tiles.push_back({"base.B", {2, 0}, 0});
  for (Cell c : {Cell{2, 1}, Cell{3, 1}, Cell{2, 2}, Cell{3, 2}}) tiles.push_back({"base.U", c, 0});
  State s = am_position(tiles, {{0, "barn", {1, 0}, 0}, {1, "barn", {2, 1}, 1}}, {"base.A"});
  play(s, {"draw base.A", "place 1,1 r3", "pass"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::Barn), 8);  // 4 x 2 completed cities, each barn in full
  EXPECT_EQ(s.score(1, Cause::Barn), 8);
}

TEST(AbbeyMayor, AM_B2_NoBarnOfferedOnAFieldThatHasOne) {
  // base.A at (3,0) completes the corner NW of it, on the same field as a barn NW of (2,0) (the
  // cloister roads point away, north and south).
  std::vector<Position::Tile> tiles = farm();
  tiles.push_back({"base.B", {2, 0}, 0});
  tiles.push_back({"base.A", {3, -1}, 2});
  for (bool barn : {false, true}) {
    std::vector<Position::Figure> figures;
    if (barn) figures.push_back({1, "barn", {2, 0}, 3});
    State s = am_position(tiles, figures, {"base.A", "base.U"});
    play(s, {"draw base.A", "place 3,0 r0"});
    std::vector<std::string> options = legal_texts(s);
    EXPECT_EQ(std::count(options.begin(), options.end(), "barn NW"), barn ? 0 : 1) << "barn on the field: " << barn;
    if (barn) {
      EXPECT_THROW(s.apply(s.parse_action("barn NW")), IllegalActionError);
    }
  }
}

// A position may hold two barns on one field (two barned fields joined later, AM-B-6), never
// two at one corner.
TEST(AbbeyMayor, AM_B2_NoTwoBarnsAtOneCorner) {
  std::vector<Position::Tile> tiles = farm();
  tiles.push_back({"base.B", {2, 0}, 0});
  Position p;
  p.config = am_config();
  p.tiles = tiles;
  p.figures = {{0, "barn", {1, 0}, 0}, {1, "barn", {1, 0}, 0}};
  EXPECT_THROW(State::from_position(p), PositionError);
  p.figures = {{0, "barn", {1, 0}, 0}, {1, "barn", {2, 0}, 3}};  // the same corner, named from its other tile
  EXPECT_THROW(State::from_position(p), PositionError);
}

// ---- Abbey ------------------------------------------------------------------------------------

// A hole at (-1,0) west of the start tile: its road ends there; base.E at (-1,1) shows its city
// to the hole.
std::vector<Position::Tile> holed() {
  return {{"base.D-start", {0, 0}, 0}, {"base.E", {0, -1}, 2}, {"base.B", {-1, -1}, 0}, {"base.B", {-2, -1}, 0},
          {"base.B", {-2, 0}, 0},      {"base.B", {0, 1}, 0},  {"base.E", {-1, 1}, 0}};
}

TEST(AbbeyMayor, E6_AM_A3_AbbeyClosesRoadAndCityAtOnceWithoutJoiningFields) {
  std::vector<Position::Tile> tiles = holed();
  tiles.push_back({"base.U", {1, 0}, 0});
  tiles.push_back({"base.A", {2, 0}, 1});
  State s =
      am_position(tiles, {{1, "meeple", {1, 0}, 0}, {1, "meeple", {-1, 1}, 0}, {0, "meeple", {-2, 0}, 0}}, {"base.U"});
  ASSERT_EQ(s.phase(), Phase::AbbeyChoice);
  EXPECT_EQ(legal_texts(s), sorted({"abbey -1,0", "take-tile"}));  // AM-A-1: optional while tiles remain
  play(s, {"abbey -1,0"});
  EXPECT_EQ(legal_texts(s), sorted({"pass", "meeple abbey#0", "wagon abbey#0"}));  // AM-A-2: a monk only
  play(s, {"pass"});
  EXPECT_EQ(s.score(1, Cause::Road), 3);  // 3 road tiles; the abbey is not one of them
  EXPECT_EQ(s.score(1, Cause::City), 2);  // a 1-tile city closed by the abbey
  EXPECT_EQ(s.abbeys(0), 0);
  play(s, {"draw base.U", "place 3,0 r1", "pass"});
  ASSERT_TRUE(s.is_terminal());
  // The farmer's field touches only the start's city: the city behind the abbey does not count.
  EXPECT_EQ(s.score(0, Cause::Field), 3);
}

TEST(AbbeyMayor, E12_AbbeyCompletesAOneTileRoad) {
  State s = am_position({{"base.W", {0, 0}, 0},
                         {"base.B", {0, -1}, 0},
                         {"base.B", {1, -1}, 0},
                         {"base.B", {2, -1}, 0},
                         {"base.B", {2, 0}, 0},
                         {"base.U", {0, 1}, 1},
                         {"base.E", {1, 1}, 2}},
                        {{0, "meeple", {0, 0}, 0}}, {"base.U"});
  play(s, {"abbey 1,0", "pass"});
  EXPECT_EQ(s.score(0), 1);
  EXPECT_EQ(s.score(0, Cause::Road), 1);
}

TEST(AbbeyMayor, AM_A6_AbbeySurroundedAtOnceScoresNine) {
  // The 3x3 block around (0,0) is full but for the centre: the abbey completes at once.
  State s = am_position({{"base.B", {-1, -1}, 0},
                         {"base.U", {0, -1}, 1},
                         {"base.B", {1, -1}, 0},
                         {"base.U", {1, 0}, 0},
                         {"base.B", {1, 1}, 0},
                         {"base.U", {0, 1}, 1},
                         {"base.B", {-1, 1}, 0},
                         {"base.U", {-1, 0}, 0}},
                        {}, {"base.U"});
  play(s, {"abbey 0,0", "meeple abbey#0"});
  EXPECT_EQ(s.score(0), 9);
  EXPECT_EQ(s.score(0, Cause::Cloister), 9);
}

// The abbey endgame variants (AM-A-5) on the same position: the last tile is placed by player 0,
// a hole remains, both players hold an abbey; the abbey would complete player 0's 1-tile city.
State endgame(const char* variant) {
  State s = am_position(holed(), {{0, "meeple", {-1, 1}, 0}}, {"base.U"}, am_config(2, {{"abbey_endgame", variant}}));
  play(s, {"take-tile", "draw base.U", "place 1,0 r0", "pass"});
  return s;
}

TEST(AbbeyMayor, AM_A5_NoneEndsWithTheLastTile) {
  State s = endgame("none");
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 1);  // the city stays unfinished: 1 point
  EXPECT_EQ(s.abbeys(1), 1);
}

TEST(AbbeyMayor, AM_A5_MandatoryMakesTheNextPlayerPlaceTheAbbey) {
  State s = endgame("mandatory");
  ASSERT_EQ(s.phase(), Phase::AbbeyChoice);
  EXPECT_EQ(s.current_player(), 1);
  EXPECT_EQ(legal_texts(s), std::vector<std::string>{"abbey -1,0"});  // no way out
  play(s, {"abbey -1,0", "meeple abbey#0"});
  ASSERT_TRUE(s.is_terminal());  // no hole left for player 0's abbey
  EXPECT_EQ(s.score(0), 2);      // the city completed by the abbey
  EXPECT_EQ(s.score(1), 8);      // the monk: 1 + 7 neighbours at the end
}

TEST(AbbeyMayor, AM_A5_FinalRoundLetsEachPlayerPlaceOnceLastPlacerLast) {
  State s = endgame("final_round");
  ASSERT_EQ(s.phase(), Phase::AbbeyChoice);
  EXPECT_EQ(s.current_player(), 1);
  EXPECT_EQ(legal_texts(s), sorted({"abbey -1,0", "pass"}));
  play(s, {"pass"});
  EXPECT_EQ(s.current_player(), 0);
  play(s, {"abbey -1,0", "meeple abbey#0"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 2 + 8);
  EXPECT_EQ(s.score(1), 0);
}

// ---- Wagon ------------------------------------------------------------------------------------

TEST(AbbeyMayor, AM_W3_TwoWagonsDecideClockwiseFromTheActivePlayer) {
  State s = am_position({{"base.D-start", {0, 0}, 0}, {"base.U", {1, 0}, 0}, {"base.A", {1, -1}, 1}},
                        {{1, "wagon", {1, -1}, 0}, {2, "wagon", {0, 0}, 0}}, {"abbey-mayor.F", "base.E"}, am_config(3));
  play(s, {"draw abbey-mayor.F", "place 0,-1 r2", "pass"});
  EXPECT_EQ(s.score(2), 4);  // the city: 2 tiles
  EXPECT_EQ(s.score(1), 2);  // the road: 2 tiles
  ASSERT_EQ(s.phase(), Phase::WagonMove);
  EXPECT_EQ(s.current_player(), 1);  // the player after the active one decides first
  EXPECT_EQ(legal_texts(s), sorted({"pass", "wagon monastery#2 @1,-1", "wagon road#1 @0,0", "wagon road#0 @1,0"}));
  play(s, {"wagon monastery#2 @1,-1"});
  EXPECT_EQ(s.current_player(), 2);
  EXPECT_EQ(legal_texts(s), sorted({"pass", "wagon road#1 @0,0", "wagon road#0 @1,0"}));  // now occupied
  play(s, {"pass"});
  EXPECT_TRUE(s.is_chance());
  EXPECT_EQ(s.supply(2, FigureKind::Wagon), 1);
  EXPECT_EQ(s.supply(1, FigureKind::Wagon), 0);
  s.check_consistency();
}

TEST(AbbeyMayor, AM_W2_WagonWithNoTargetReturnsToSupply) {
  State s = am_position({{"base.E", {0, 0}, 2}}, {{0, "wagon", {0, 0}, 0}}, {"base.E", "base.U"});
  play(s, {"draw base.E", "place 0,1 r0", "pass"});
  EXPECT_EQ(s.score(0), 4);
  EXPECT_TRUE(s.is_chance());  // no decision: nothing unfinished and free around
  EXPECT_EQ(s.supply(0, FigureKind::Wagon), 1);
}

// E-13: a wagon on a 4-tile road whose far end enters a city gate 3 tiles away.
State wagon_road(const char* rule) {
  std::vector<Position::Tile> tiles = {{"base.A", {0, 0}, 3},       {"base.U", {1, 0}, 0}, {"base.B", {0, 1}, 0},
                                       {"base.B", {1, 1}, 0},       {"base.B", {2, 1}, 0}, {"base.B", {3, 1}, 0},
                                       {"abbey-mayor.F", {3, 0}, 0}};
  State s = am_position(tiles, {{0, "wagon", {0, 0}, 0}}, {"base.U", "base.U"}, am_config(2, {{"wagon_move", rule}}));
  play(s, {"draw base.U", "place 2,0 r0", "pass"});
  return s;
}

TEST(AbbeyMayor, E13_AM_W4_C2TargetsLieWithinTheEightAround) {
  State s = wagon_road("c2");
  EXPECT_EQ(s.score(0), 4);
  ASSERT_EQ(s.phase(), Phase::WagonMove);
  EXPECT_EQ(legal_texts(s),
            sorted({"pass", "wagon monastery#2 @0,0", "wagon monastery#1 @0,1", "wagon monastery#1 @1,1"}));
}

TEST(AbbeyMayor, E13_AM_W4_C1TargetsBorderTheScoredRoadThroughItsEnds) {
  State s = wagon_road("c1");
  EXPECT_EQ(s.score(0), 4);
  ASSERT_EQ(s.phase(), Phase::WagonMove);
  EXPECT_EQ(legal_texts(s), sorted({"pass", "wagon monastery#2 @0,0", "wagon city#0 @3,0"}));
  play(s, {"wagon city#0 @3,0"});
  EXPECT_EQ(s.supply(0, FigureKind::Wagon), 0);
  s.check_consistency();
}

TEST(AbbeyMayor, AM_W1_WagonNeverOnAField) {
  State s = am_position({{"base.D-start", {0, 0}, 0}}, {}, {"base.U", "base.U"});
  play(s, {"draw base.U", "place 1,0 r0"});
  EXPECT_THROW(s.apply(s.parse_action("wagon field#1")), IllegalActionError);
  std::vector<std::string> options = legal_texts(s);
  EXPECT_TRUE(std::count(options.begin(), options.end(), "wagon road#0"));
}

TEST(AbbeyMayor, ExpansionOffMeansNoExtraFigures) {
  State s = testing::game_with_draws({"base.U"});
  play(s, {"draw base.U", "place 1,0 r0"});
  EXPECT_THROW(s.apply(s.parse_action("wagon road#0")), IllegalActionError);
  EXPECT_EQ(s.supply(0, FigureKind::Barn), 0);
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

TEST(AbbeyMayor, AMB1_TwoCornersOnOneFieldAreOneBarnChoice) {
  // Straight roads: (1,1) closes a 4-tile corner at its NW and at its NE, both on its north field.
  State s = testing::position_in({"abbey-mayor"},
                                 {{"base.U", {0, 0}, 0},
                                  {"base.U", {1, 0}, 0},
                                  {"base.U", {2, 0}, 0},
                                  {"base.U", {0, 1}, 0},
                                  {"base.U", {2, 1}, 0}},
                                 {}, {"base.U", "base.U"});
  testing::play(s, {"draw base.U", "place 1,1 r0"});
  EXPECT_EQ(testing::legal_texts(s),
            testing::sorted({"pass", "meeple road#0", "meeple field#1", "meeple field#2", "wagon road#0", "barn NE"}));
  EXPECT_THROW(s.apply(s.parse_action("barn NW")), IllegalActionError);
}

}  // namespace
}  // namespace carc
