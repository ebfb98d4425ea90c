// The City of Carcassonne and the Count (RULES CK-0 … CK-7) and examples E-7, E-9, E-11, E-15.
// The City's 12 squares lie in a 4 x 3 block with CO1 at (0,0): its roads leave west from
// (0,0), north from (3,0) and south from (2,2); its small cities face south at (0,2) and east
// at (3,2).
#include <gtest/gtest.h>

#include <algorithm>

#include "position_builder.h"

namespace carc {
namespace {

using testing::legal_texts;
using testing::play;
using testing::sorted;

State city_position(std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures,
                    std::vector<Position::CityFigure> city, std::vector<std::string> draws,
                    std::vector<std::string> expansions = {"city"}, std::map<std::string, std::string> variants = {},
                    std::string count = "castle") {
  Position p = testing::described(std::move(expansions), std::move(tiles), std::move(figures), std::move(draws), 0,
                                  std::move(variants));
  p.city = std::move(city);
  p.count = std::move(count);
  return State::from_position(p);
}

TEST(City, CK0_CK1_TheCityStartsTheGameAndTheStartTileGoesBack) {
  Config c;
  c.expansions = {"city"};
  State s(c);
  EXPECT_EQ(s.board().num_tiles(), 12);
  EXPECT_EQ(s.bag_size(), 71);
  EXPECT_EQ(s.count(), Quarter::Castle);  // CK-2
  Config plain;
  plain.variants = {{"start", "city_plain"}};
  State p(plain);
  EXPECT_EQ(p.board().num_tiles(), 12);
  EXPECT_FALSE(p.rules().count);
  Config both;
  both.variants = {{"start", "city"}};
  both.expansions = {"river2"};
  EXPECT_THROW(State{both}, ConfigError);
}

TEST(City, E11_CK3_ActivePlayerWhoGainedNothingEntersTheCity) {
  State s = city_position({}, {{1, "meeple", {3, 2}, 0}}, {}, {"base.E", "base.U"});
  play(s, {"draw base.E", "place 4,2 r3", "pass"});  // closes the small city east of CO12
  EXPECT_EQ(s.score(1), 4);
  EXPECT_EQ(s.score(0), 0);
  ASSERT_EQ(s.phase(), Phase::CityPlace);
  EXPECT_EQ(s.current_player(), 0);
  EXPECT_EQ(legal_texts(s),
            sorted({"pass", "meeple @castle", "meeple @market", "meeple @blacksmith", "meeple @cathedral"}));
  play(s, {"meeple @cathedral"});
  ASSERT_EQ(s.phase(), Phase::CountMove);  // CK-7 free: the Count may move
  play(s, {"count market"});
  EXPECT_EQ(s.count(), Quarter::Market);
  EXPECT_EQ(s.in_quarter(0, Quarter::Cathedral), 1);
  EXPECT_EQ(s.supply(0), 6);
  EXPECT_TRUE(s.is_chance());
}

TEST(City, CK7_CountMovesClockwiseOrFollows) {
  State clockwise =
      city_position({}, {{1, "meeple", {3, 2}, 0}}, {}, {"base.E", "base.U"}, {"city"}, {{"count_move", "clockwise"}});
  play(clockwise, {"draw base.E", "place 4,2 r3", "pass", "meeple @cathedral"});
  EXPECT_EQ(clockwise.count(), Quarter::Market);  // castle -> market
  EXPECT_TRUE(clockwise.is_chance());
  State follow =
      city_position({}, {{1, "meeple", {3, 2}, 0}}, {}, {"base.E", "base.U"}, {"city"}, {{"count_move", "follow"}});
  play(follow, {"draw base.E", "place 4,2 r3", "pass", "meeple @blacksmith"});
  EXPECT_EQ(follow.count(), Quarter::Blacksmith);
}

// A 3-tile road west of the City: CO1, base.U at (-1,0) with player 1's thief, then base.A.
TEST(City, E7_CK4_MovesFromTheBlacksmithBeforeTheRoadScores) {
  State s = city_position({{"base.U", {-1, 0}, 0}}, {{1, "meeple", {-1, 0}, 0}},
                          {{0, "meeple", "blacksmith"}, {0, "meeple", "blacksmith"}, {1, "meeple", "blacksmith"}},
                          {"base.A", "base.U"});
  play(s, {"draw base.A", "place -2,0 r3", "pass"});
  ASSERT_EQ(s.phase(), Phase::CityMove);
  EXPECT_EQ(s.current_player(), 1);  // the player after the active one decides first
  play(s, {"pass"});
  EXPECT_EQ(s.current_player(), 0);
  // A meeple moved onto the road returns after its scoring wherever it stood: one choice, at the
  // road's oldest segment.
  EXPECT_EQ(legal_texts(s), sorted({"pass", "meeple road#0 @0,0"}));
  play(s, {"meeple road#0 @0,0", "meeple road#0 @0,0"});
  EXPECT_EQ(s.score(0), 3);  // strength 2 beats 1
  EXPECT_EQ(s.score(1), 0);
  EXPECT_EQ(s.supply(0), 7);   // all returned
  EXPECT_EQ(s.supply(1), 6);   // player 1's blacksmith meeple stays there
  EXPECT_TRUE(s.is_chance());  // CK-3 c and d: no entering the City
}

TEST(City, CK4_TheCountBlocksHisQuarter) {
  State s = city_position({{"base.U", {-1, 0}, 0}}, {{1, "meeple", {-1, 0}, 0}}, {{0, "meeple", "blacksmith"}},
                          {"base.A", "base.U"}, {"city"}, {}, "blacksmith");
  play(s, {"draw base.A", "place -2,0 r3", "pass"});
  EXPECT_EQ(s.score(1), 3);  // no City move was offered
  EXPECT_NE(s.phase(), Phase::CityMove);
}

TEST(City, CK3_ZeroStrengthMayorScoresNothingSoItsOwnerMayEnter) {
  State s = city_position({{"base.N", {4, 2}, 3}}, {{1, "meeple", {3, 2}, 0}, {0, "mayor", {4, 2}, 0}}, {},
                          {"base.E", "base.U"}, {"city", "abbey-mayor"});
  play(s, {"draw base.E", "place 4,3 r0", "pass"});
  EXPECT_EQ(s.score(1), 6);  // 3 tiles, no pennant: the knight (1) beats the mayor (0)
  EXPECT_EQ(s.score(0), 0);
  ASSERT_EQ(s.phase(), Phase::CityPlace);
  std::vector<std::string> options = legal_texts(s);
  EXPECT_TRUE(std::count(options.begin(), options.end(), "mayor @castle"));
  EXPECT_FALSE(std::count(options.begin(), options.end(), "mayor @market"));  // a mayor: castle only
  EXPECT_FALSE(std::count(options.begin(), options.end(), "wagon @market"));  // a wagon: not the market
  EXPECT_TRUE(std::count(options.begin(), options.end(), "wagon @cathedral"));
  EXPECT_THROW(s.apply(s.parse_action("barn @castle")), IllegalActionError);  // a barn never
}

// A monastery at (-2,1) and a shrine at (-3,1) west of the City; base.V at (-2,2) completes the
// monastery (and the one at (-1,1)).
std::vector<Position::Tile> monastery_and_shrine_west_of_the_city() {
  return {{"base.U", {-1, 0}, 0}, {"base.B", {-1, 1}, 0}, {"base.V", {-1, 2}, 0},    {"base.V", {-2, 0}, 2},
          {"base.B", {-2, 1}, 0}, {"base.E", {-3, 0}, 0}, {"shrines.E", {-3, 1}, 0}, {"base.V", {-4, 0}, 1},
          {"base.E", {-4, 1}, 3}, {"base.E", {-3, 2}, 2}};
}

// A monastery (player 1) and a shrine (player 0) west of the City; player 0's tile completes the
// monastery and the shrine loses the challenge.
TEST(City, E9_CK3_LosingAChallengeCountsAsGainingNothing) {
  State s =
      city_position(monastery_and_shrine_west_of_the_city(), {{0, "meeple", {-3, 1}, 1}, {1, "meeple", {-2, 1}, 1}}, {},
                    {"base.V", "base.U"}, {"city", "shrines"});
  play(s, {"draw base.V", "place -2,2 r3", "pass"});
  EXPECT_EQ(s.score(1), 9);
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.supply(0), 7);  // the heretic came back empty-handed
  EXPECT_EQ(s.phase(), Phase::CityPlace);
}

// E-3 north of the City: the farm's field does not reach the City's fields.
TEST(City, E15_CK3_BarnOwnerWhoScoredNothingMayEnter) {
  std::vector<Position::Tile> farm = {{"base.E", {0, -1}, 0}, {"base.H", {0, -2}, 0}, {"base.E", {0, -3}, 2},
                                      {"base.B", {1, -2}, 0}, {"base.B", {1, -3}, 0}, {"base.B", {2, -3}, 0}};
  State s = city_position(farm, {{1, "meeple", {1, -2}, 0}}, {}, {"base.B", "base.U"}, {"city", "abbey-mayor"});
  play(s, {"draw base.B", "place 2,-2 r0", "barn NW"});
  EXPECT_EQ(s.score(1, Cause::FieldBarn), 6);
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.phase(), Phase::CityPlace);
}

TEST(City, CK5_MarketMovesBeforeABarnScoring) {
  std::vector<Position::Tile> farm = {{"base.E", {0, -1}, 0}, {"base.H", {0, -2}, 0}, {"base.E", {0, -3}, 2},
                                      {"base.B", {1, -2}, 0}, {"base.B", {1, -3}, 0}, {"base.B", {2, -3}, 0}};
  State s = city_position(farm, {{1, "meeple", {1, -2}, 0}}, {{0, "meeple", "market"}, {0, "meeple", "market"}},
                          {"base.B", "base.U"}, {"city", "abbey-mayor"});
  play(s, {"draw base.B", "place 2,-2 r0", "barn NW"});
  ASSERT_EQ(s.phase(), Phase::CityMove);
  EXPECT_EQ(s.current_player(), 0);                                     // player 1 has nothing in the market
  EXPECT_EQ(legal_texts(s), sorted({"pass", "meeple field#2 @0,-2"}));  // the field's oldest segment
  play(s, {"meeple field#2 @0,-2", "meeple field#2 @0,-2"});
  EXPECT_EQ(s.score(0, Cause::FieldBarn), 6);  // 2 farmers beat 1: 3 x 2 cities
  EXPECT_EQ(s.score(1), 0);
  EXPECT_EQ(s.supply(0), 7);
  EXPECT_TRUE(s.is_chance());  // player 0 gained: no entering the City
}

TEST(City, CK6_MarketMeeplesGoToFieldsInTurnOrderAtTheEnd) {
  State s =
      city_position({}, {}, {{0, "meeple", "market"}, {0, "meeple", "market"}, {1, "meeple", "market"}}, {"base.U"});
  play(s, {"draw base.U", "place -1,0 r0", "pass"});  // player 0 places the last tile
  ASSERT_EQ(s.phase(), Phase::MarketMove);
  EXPECT_EQ(s.current_player(), 1);  // left of the last tile's placer
  std::vector<std::string> options = legal_texts(s);
  EXPECT_EQ(std::count(options.begin(), options.end(), "pass"), 0);  // exactly one must move
  // One choice per field, at its oldest segment: on the City's squares.
  EXPECT_EQ(options, sorted({"meeple field#1 @0,0", "meeple field#2 @0,0", "meeple field#2 @3,0"}));
  play(s, {"meeple field#1 @0,0"});  // the field ring north of the City
  EXPECT_EQ(s.current_player(), 0);
  play(s, {"meeple field#2 @0,0"});  // the field ring west and south
  EXPECT_EQ(s.current_player(), 0);  // player 1's market is empty
  play(s, {"meeple field#2 @3,0"});  // the field ring east
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(1, Cause::Field), 3);  // CK-1: the City is a completed city for fields
  EXPECT_EQ(s.score(0, Cause::Field), 6);
}

TEST(City, CK1_KR2_TheCityCountsForTheKingButNeverAsLargest) {
  State s = city_position({}, {}, {}, {"base.E", "base.U"}, {"city", "king-robber"});
  play(s, {"draw base.E", "place 4,2 r3", "pass"});  // completes a 2-tile city: the King
  EXPECT_EQ(s.king(), 0);
  play(s, {"draw base.U", "place -1,0 r0", "pass"});
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0, Cause::King), 2);  // that city and the City of Carcassonne
}

TEST(City, CK1_NoBarnOnACornerOfTheCitySquares) {
  State s = city_position({{"base.B", {-1, 1}, 0}}, {}, {}, {"base.B", "base.U"}, {"city", "abbey-mayor"});
  play(s, {"draw base.B", "place -1,2 r0"});
  std::vector<std::string> options = legal_texts(s);
  EXPECT_EQ(std::count_if(options.begin(), options.end(), [](const std::string& t) { return t.rfind("barn", 0) == 0; }),
            0);
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

// A city (CO9 down to base.L) and a road (CO11 down and round to base.L) that base.L completes
// at once; three players with figures in the castle and the blacksmith.
TEST(City, CK4_CityAndRoadCompletedTogetherWithMovesBySeveralPlayers) {
  Position p;
  p.config.players = 3;
  p.config.expansions = {"city"};
  p.config.draw_order = {"base.L", "base.U"};
  p.tiles = {{"base.F", {0, 3}, 1}, {"base.N", {0, 4}, 1}, {"base.U", {2, 3}, 1}, {"base.V", {2, 4}, 1}};
  p.figures = {{1, "meeple", {0, 2}, 0}, {0, "meeple", {2, 3}, 0}};
  p.city = {{1, "meeple", "castle"}, {2, "meeple", "castle"}, {2, "meeple", "blacksmith"}, {0, "meeple", "blacksmith"}};
  p.count = "market";  // not blocking the castle, where he starts (CK-2)
  State s = State::from_position(p);
  testing::play(s, {"draw base.L", "place 1,4 r3", "pass"});
  auto first_move = [&] {
    for (Action a : s.legal_actions())
      if (a.kind() == ActionKind::Figure) return a;
    return Action::pass();
  };
  // The city scores first: the castle, from the player after the active one.
  ASSERT_EQ(s.phase(), Phase::CityMove);
  EXPECT_EQ(s.current_player(), 1);
  s.apply(first_move());
  EXPECT_EQ(s.current_player(), 2);  // player 1's castle is empty now: player 2 decides
  s.apply(first_move());
  EXPECT_EQ(s.score(1), 10);  // 2 x (4 tiles + 1 pennant): strength 2 beats 1; player 0 had nobody there
  EXPECT_EQ(s.score(2), 0);
  // Then the road: the blacksmith.
  ASSERT_EQ(s.phase(), Phase::CityMove);
  EXPECT_EQ(s.current_player(), 2);
  s.apply(first_move());
  EXPECT_EQ(s.current_player(), 0);
  s.apply(first_move());
  EXPECT_EQ(s.score(0), 4);  // thief + 1 from the blacksmith beat player 2's one
  EXPECT_EQ(s.score(2), 0);
  EXPECT_TRUE(s.is_chance());  // player 0 gained: no entering the City
  for (int player = 0; player < 3; ++player) EXPECT_EQ(s.supply(player), 7);
  s.check_consistency();
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

TEST(City, CK1_TheCitySquaresCountAsFilledCellsForACloister) {
  // A monastery west of CO5: three of its neighbours are City squares.
  State s = city_position({{"base.U", {-1, 0}, 0},
                           {"base.B", {-1, 1}, 0},
                           {"base.E", {-1, 2}, 3},
                           {"base.U", {-2, 0}, 0},
                           {"base.E", {-2, 1}, 3}},
                          {{0, "meeple", {-1, 1}, 1}}, {}, {"base.E", "base.U"});
  testing::play(s, {"draw base.E", "place -2,2 r1", "pass"});
  EXPECT_EQ(s.score(0, Cause::Cloister), 9);
}

TEST(City, CK6_AMarketMeepleMovedToABarnFieldScoresAtOnceAlone) {
  std::vector<Position::Tile> farm = {{"base.E", {0, -1}, 0}, {"base.H", {0, -2}, 0}, {"base.E", {0, -3}, 2},
                                      {"base.B", {1, -2}, 0}, {"base.B", {1, -3}, 0}, {"base.B", {2, -3}, 0},
                                      {"base.B", {2, -2}, 0}};
  State s =
      city_position(farm, {{0, "barn", {1, -2}, 0}}, {{1, "meeple", "market"}}, {"base.U"}, {"city", "abbey-mayor"});
  testing::play(s, {"draw base.U", "place -1,0 r0", "pass"});
  ASSERT_EQ(s.phase(), Phase::MarketMove);
  EXPECT_EQ(s.current_player(), 1);
  testing::play(s, {"meeple field#2 @0,-2"});  // the barn's field, at its oldest segment
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(1, Cause::FieldBarn), 2);  // 1 per completed city, at once, then it returns
  EXPECT_EQ(s.score(1, Cause::Field), 0);      // so no farmer points at the end
  EXPECT_EQ(s.score(0, Cause::Barn), 8);       // the barn: 4 per completed city
  EXPECT_EQ(s.supply(1), 7);
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

// E-9's board without the monk: player 1's meeple comes from the cathedral instead (CK-4).
TEST(City, SH4_CK4_AMoveFromTheCityOntoACompletedMonasteryStartsNoChallenge) {
  Position p = testing::described({"city", "shrines"}, monastery_and_shrine_west_of_the_city(),
                                  {{0, "meeple", {-3, 1}, 1}}, {"base.V", "base.U"});
  p.city = {{1, "meeple", "cathedral"}};
  State s = State::from_position(p);
  testing::play(s, {"draw base.V", "place -2,2 r3", "pass"});
  ASSERT_EQ(s.phase(), Phase::CityMove);
  ASSERT_EQ(s.current_player(), 1);
  testing::play(s, {"pass"});  // the monastery at (-1,1), by the City, completes first
  ASSERT_EQ(s.phase(), Phase::CityMove);
  testing::play(s, {"meeple monastery#1 @-2,1"});
  EXPECT_EQ(s.score(1, Cause::Cloister), 9);
  EXPECT_EQ(s.supply(0), 6);  // the heretic stays
  EXPECT_EQ(s.num_challenges(), 0);
}

// Two roads that one junction tile completes (RULES 5.4b): R1 from CO1 west over (-1,0), whose
// oldest segment is the City's, but whose root is (-1,0)'s; R2 south over (-2,1) to the
// monastery at (-2,2), whose root, (-2,1)'s, is older than R1's.
TEST(City, Turn4b_FeaturesOfOneTypeScoreInCreationOrder) {
  Position p = testing::described(
      {"city"}, {{"base.E", {-1, 1}, 2}, {"base.U", {-2, 1}, 1}, {"base.A", {-2, 2}, 2}, {"base.U", {-1, 0}, 0}}, {},
      {"base.W", "base.U"});
  p.city = {{1, "meeple", "blacksmith"}};
  State s = State::from_position(p);
  const Features& f = s.features();
  const Board& b = s.board();
  uint16_t r1 = f.root(b.tile(b.slot_at(Cell{-1, 0})).first_segment);
  uint16_t r2 = f.root(b.tile(b.slot_at(Cell{-2, 1})).first_segment);
  ASSERT_LT(r2, r1);  // the union-find's order is not the creation order
  testing::play(s, {"draw base.W", "place -2,0 r0", "pass"});
  ASSERT_EQ(s.phase(), Phase::CityMove);
  EXPECT_EQ(testing::legal_texts(s), testing::sorted({"pass", "meeple road#0 @0,0"}));  // R1 first
  testing::play(s, {"pass"});
  ASSERT_EQ(s.phase(), Phase::CityMove);
  EXPECT_EQ(testing::legal_texts(s), testing::sorted({"pass", "meeple road#0 @-2,1"}));  // then R2
}

}  // namespace
}  // namespace carc
