// Base game rules (RULES section 1), each test on a real position with exact scores.
#include <gtest/gtest.h>

#include <algorithm>

#include "position_builder.h"

namespace carc {
namespace {

using testing::game_with_draws;
using testing::legal_texts;
using testing::play;
using testing::position;
using testing::sorted;
using testing::turn;

TEST(BaseRules, B1_SetupSevenMeeplesStartTileAndFullBag) {
  for (int players = 2; players <= 6; ++players) {
    Config config;
    config.players = players;
    State s(config);
    EXPECT_EQ(s.num_players(), players);
    for (int p = 0; p < players; ++p) EXPECT_EQ(s.supply(p), 7);
    EXPECT_EQ(s.board().num_tiles(), 1);
    EXPECT_EQ(Catalogue::builtin().kind(s.board().tile(s.board().slot_at(Cell{0, 0})).kind).name, "base.D-start");
    EXPECT_EQ(s.bag_size(), 71);
    EXPECT_TRUE(s.is_chance());
  }
  for (int players : {0, 1, 7}) {
    Config config;
    config.players = players;
    EXPECT_THROW(State{config}, ConfigError);
  }
}

TEST(BaseRules, B2_TurnIsPlaceThenFigureThenScoreThenNextPlayer) {
  State s = game_with_draws({"base.E", "base.E"});
  EXPECT_EQ(s.current_player(), kChancePlayer);
  play(s, {"draw base.E"});
  EXPECT_EQ(s.phase(), Phase::PlaceTile);
  EXPECT_EQ(s.current_player(), 0);
  play(s, {"place 0,-1 r2"});
  EXPECT_EQ(s.phase(), Phase::PlaceFigure);
  EXPECT_EQ(s.current_player(), 0);
  play(s, {"pass"});
  EXPECT_EQ(s.current_player(), kChancePlayer);
  play(s, {"draw base.E"});
  EXPECT_EQ(s.current_player(), 1);
  EXPECT_EQ(s.turn_player(), 1);
}

TEST(BaseRules, B3_TileGoesNextToATileWithMatchingSides) {
  // The start tile shows city N, road E and W, field S.
  State city = game_with_draws({"base.C"});  // city on all four sides
  play(city, {"draw base.C"});
  EXPECT_EQ(legal_texts(city), std::vector<std::string>{"place 0,-1 r0"});
  State cloister = game_with_draws({"base.B"});  // fields on all four sides
  play(cloister, {"draw base.B"});
  EXPECT_EQ(legal_texts(cloister), std::vector<std::string>{"place 0,1 r0"});
  // A straight road has two distinct rotations. Lying W-E it fits east and west (road to road)
  // and south (field to field); lying N-S it fits nowhere (its road would meet city or field).
  State road = game_with_draws({"base.U"});
  play(road, {"draw base.U"});
  EXPECT_EQ(legal_texts(road), sorted({"place -1,0 r0", "place 1,0 r0", "place 0,1 r0"}));
  EXPECT_THROW(road.apply(road.parse_action("place 0,1 r1")), IllegalActionError);
  EXPECT_THROW(road.apply(road.parse_action("place 0,-1 r0")), IllegalActionError);
  EXPECT_THROW(road.apply(road.parse_action("place 3,3 r0")), IllegalActionError);
  EXPECT_THROW(road.apply(road.parse_action("place 0,0 r0")), IllegalActionError);
}

TEST(BaseRules, B4_UnplaceableTileIsRemovedAndThePlayerDrawsAgain) {
  // Next to a lone city crossroads (city on every side), a field tile has no place.
  State s = position({{"base.C", {0, 0}, 0}}, {}, {"base.B", "base.E"});
  play(s, {"draw base.B"});
  EXPECT_TRUE(s.is_chance());
  EXPECT_EQ(s.discarded(), 1);
  EXPECT_EQ(s.bag_size(), 1);
  play(s, {"draw base.E", "place 0,-1 r2"});
  EXPECT_EQ(s.board().num_tiles(), 2);
  EXPECT_EQ(s.turn_player(), 0);  // still the same player's turn
  // An unplaceable last tile ends the game.
  State last = position({{"base.C", {0, 0}, 0}}, {}, {"base.B"});
  play(last, {"draw base.B"});
  EXPECT_TRUE(last.is_terminal());
}

TEST(BaseRules, B5_MeepleOnlyOnUnoccupiedFeaturesOfTheNewTile) {
  State s = game_with_draws({"base.A", "base.A"});
  turn(s, "place 1,0 r1", "meeple road#0");  // the start road is now player 0's
  play(s, {"draw base.A", "place -1,0 r3"});
  // The road is occupied (and completed by this tile); field and monastery are free.
  EXPECT_EQ(legal_texts(s), sorted({"pass", "meeple field#1", "meeple monastery#2"}));
  EXPECT_THROW(s.apply(s.parse_action("meeple road#0")), IllegalActionError);
}

TEST(BaseRules, B5_B7_MeepleOnTheFeatureItsTileCompletesScoresAtOnce) {
  State s = game_with_draws({"base.E"});
  turn(s, "place 0,-1 r2", "meeple city#0");
  EXPECT_EQ(s.score(0), 4);  // city of 2 tiles, 2 points each
  EXPECT_EQ(s.score(0, Cause::City), 4);
  EXPECT_EQ(s.supply(0), 7);  // the knight came back
  EXPECT_TRUE(s.is_terminal());
}

TEST(BaseRules, B6_B7_RoadEndingAtTwoCloistersScoresOnePerTile) {
  State s = game_with_draws({"base.A", "base.A"});
  turn(s, "place 1,0 r1", "meeple road#0");
  EXPECT_EQ(s.score(0), 0);
  turn(s, "place -1,0 r3", "meeple monastery#2");
  EXPECT_EQ(s.score(0, Cause::Road), 3);
  EXPECT_EQ(s.score(1), 2);  // B-8: the monk's monastery has 1 neighbour at the end: 1 + 1
  EXPECT_EQ(s.score(1, Cause::Cloister), 2);
  EXPECT_EQ(s.supply(0), 7);
}

TEST(BaseRules, B6_RoadLoopIsComplete) {
  State s = position({{"base.V", {0, 0}, 3}, {"base.V", {1, 0}, 0}, {"base.V", {1, 1}, 1}}, {{0, "meeple", {0, 0}, 0}},
                     {"base.V"});
  turn(s, "place 0,1 r2");
  EXPECT_EQ(s.score(0), 4);
  EXPECT_EQ(s.score(0, Cause::Road), 4);
}

TEST(BaseRules, B7_RoadThroughTheSameTileTwiceCountsItOnce) {
  // A junction's east and south arms joined by a loop of three curves: 4 tiles, not 5.
  State s = position({{"base.W", {0, 0}, 0}, {"base.V", {1, 0}, 0}, {"base.V", {1, 1}, 1}}, {{1, "meeple", {0, 0}, 0}},
                     {"base.V"});
  turn(s, "place 0,1 r2");
  EXPECT_EQ(s.score(1), 4);
  EXPECT_EQ(s.score(0), 0);
}

TEST(BaseRules, B7_CityThroughTheSameTileTwiceCountsItOnce) {
  // base.I has two separate city parts; a ring of three corner cities joins them: 4 tiles.
  State s = position({{"base.I", {0, 0}, 0}, {"base.N", {0, -1}, 3}, {"base.N", {-1, -1}, 2}},
                     {{0, "meeple", {0, 0}, 0}}, {"base.N-garden"});
  turn(s, "place -1,0 r1");
  EXPECT_EQ(s.score(0), 8);  // 2 x 4 tiles, no pennants
  EXPECT_EQ(s.score(0, Cause::City), 8);
}

TEST(BaseRules, B7_CityWithPennantMajorityScores) {
  // A W-E city over four tiles with one pennant; player 1 has two knights in it, player 0 one.
  State s = position({{"base.E", {-1, 0}, 1}, {"base.F", {0, 0}, 0}, {"base.G", {1, 0}, 0}},
                     {{0, "meeple", {-1, 0}, 0}, {1, "meeple", {0, 0}, 0}, {1, "meeple", {1, 0}, 0}}, {"base.E"});
  turn(s, "place 2,0 r3");
  EXPECT_EQ(s.score(1), 10);  // 2 x (4 tiles + 1 pennant)
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.supply(0), 7);
  EXPECT_EQ(s.supply(1), 7);
}

TEST(BaseRules, B7_TiedKnightsBothScoreInFull) {
  State s = position({{"base.E", {-1, 0}, 1}, {"base.F", {0, 0}, 0}},
                     {{0, "meeple", {-1, 0}, 0}, {1, "meeple", {0, 0}, 0}}, {"base.E"});
  turn(s, "place 1,0 r3");
  EXPECT_EQ(s.score(0), 8);  // 2 x (3 tiles + 1 pennant) each
  EXPECT_EQ(s.score(1), 8);
}

TEST(BaseRules, B6_CloisterSurroundedByEightTilesScoresNine) {
  State s = position({{"base.B", {0, 0}, 0},
                      {"base.E", {0, -1}, 0},
                      {"base.E", {1, 0}, 1},
                      {"base.E", {0, 1}, 2},
                      {"base.E", {-1, 0}, 3},
                      {"base.B", {-1, -1}, 0},
                      {"base.B", {1, -1}, 0},
                      {"base.B", {-1, 1}, 0}},
                     {{0, "meeple", {0, 0}, 1}}, {"base.E-garden"});
  turn(s, "place 1,1 r1");
  EXPECT_EQ(s.score(0), 9);
  EXPECT_EQ(s.score(0, Cause::Cloister), 9);
  EXPECT_EQ(s.supply(0), 7);
}

TEST(BaseRules, B8_FinalScoringOfUnfinishedFeatures) {
  Position p;
  p.tiles = {{"base.D-start", {0, 0}, 0}, {"base.M", {0, -1}, 2}, {"base.U", {1, 0}, 0}, {"base.A", {0, 1}, 0}};
  p.figures = {{0, "meeple", {0, 0}, 1}, {1, "meeple", {0, 0}, 0}, {1, "meeple", {0, 1}, 2}};
  p.bag = std::vector<std::string>{};
  State s = State::from_position(p);
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 2);                   // road of 2 tiles, 1 each
  EXPECT_EQ(s.score(1, Cause::City), 3);      // city of 2 tiles + 1 pennant, 1 each
  EXPECT_EQ(s.score(1, Cause::Cloister), 3);  // monastery with 2 neighbours
  EXPECT_EQ(s.score(1), 6);
}

// VAR-POINTS: the B-8 position, with starting points 10 and 4.
TEST(BaseRules, VAR_POINTS_ScoresStartAtThePointsAndFinalScoringAddsAsUsual) {
  Position p;
  p.config.variants = {{"points", "10,4"}};
  p.tiles = {{"base.D-start", {0, 0}, 0}, {"base.M", {0, -1}, 2}, {"base.U", {1, 0}, 0}, {"base.A", {0, 1}, 0}};
  p.figures = {{0, "meeple", {0, 0}, 1}, {1, "meeple", {0, 0}, 0}, {1, "meeple", {0, 1}, 2}};
  p.bag = std::vector<std::string>{};
  State s = State::from_position(p);
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 12);                                // 10 + road of 2 tiles
  EXPECT_EQ(s.score(1), 10);                                // 4 + city 3 + monastery 3
  EXPECT_EQ(s.score(1, Cause::City), 3);                    // the breakdown holds only the points scored
  EXPECT_EQ(s.score(1, Cause::Cloister), 3);                // (B-11)
  EXPECT_EQ(s.returns(), (std::vector<double>{1.0, 0.0}));  // without the points player 1 wins, 6 to 2

  // A new game starts at the points and ends at them plus every point scored.
  Config config;
  config.players = 3;
  config.seed = 5;
  config.variants = {{"points", "0,3,5"}};
  State game(config);
  EXPECT_EQ(game.score(0), 0);
  EXPECT_EQ(game.score(1), 3);
  EXPECT_EQ(game.score(2), 5);
  Rng rng(1);
  while (!game.is_terminal()) game.apply(game.is_chance() ? game.sample_chance() : game.sample_legal_action(rng));
  const int start[] = {0, 3, 5};
  for (int player = 0; player < 3; ++player) {
    int scored = 0;
    for (int c = 0; c < kNumCauses; ++c) scored += game.score(player, Cause(c));
    EXPECT_GT(scored, 0);
    EXPECT_EQ(game.score(player), start[player] + scored);
  }
}

TEST(BaseRules, VAR_POINTS_PositionsAndBytesKeepTheStartingPoints) {
  Config config;
  config.players = 3;
  config.variants = {{"points", "0,03,5"}};
  State s(config);
  testing::play(s, {"draw base.E", "place 0,-1 r2", "meeple city#0"});  // player 0's city: 4 points
  Position p = s.to_position();
  EXPECT_EQ(p.config.variants.at("points"), "0,3,5");  // the plain form
  EXPECT_EQ(p.scores, (std::vector<int>{4, 3, 5}));
  ASSERT_FALSE(p.breakdown.empty());  // it still accounts for every score, with the points
  EXPECT_EQ(p.breakdown[0][int(Cause::City)], 4);
  State loaded = State::from_position(p);
  EXPECT_EQ(loaded.score(0), 4);
  EXPECT_EQ(loaded.score(1), 3);
  EXPECT_EQ(loaded.score(2), 5);
  EXPECT_TRUE(loaded.rules() == s.rules());
  EXPECT_EQ(loaded.to_position().breakdown, p.breakdown);
  State from_bytes = State::from_bytes(s.to_bytes());
  EXPECT_TRUE(from_bytes.same_position(s));
  EXPECT_EQ(from_bytes.score(2), 5);
  // A breakdown that does not add up with the points is refused.
  p.scores = {4, 0, 5};
  EXPECT_THROW(State::from_position(p), PositionError);
  // Every seat at 0 is the plain game: the variant is left out.
  Config zero;
  zero.variants = {{"points", "0,0"}};
  EXPECT_EQ(validate(zero).variants.count("points"), 0u);
  EXPECT_TRUE(State(zero).same_position(State(Config{})));
}

TEST(BaseRules, VAR_POINTS_MalformedPointsAreAConfigErrorNamingTheProblem) {
  auto message = [](int players, const std::string& points) {
    Config c;
    c.players = players;
    c.variants = {{"points", points}};
    try {
      State s(c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(3, "0,3,5"), "no error");
  EXPECT_NE(message(3, "0,3").find("one number per player expected (3), got 2"), std::string::npos);
  EXPECT_NE(message(2, "0,3,5").find("one number per player expected (2), got 3"), std::string::npos);
  EXPECT_NE(message(2, "0,-3").find("got '-3'"), std::string::npos) << message(2, "0,-3");
  EXPECT_NE(message(2, "0,x").find("got 'x'"), std::string::npos);
  EXPECT_NE(message(2, "0,,3").find("got ''"), std::string::npos);
  EXPECT_NE(message(2, "").find("got ''"), std::string::npos);
  EXPECT_NE(message(2, "0, 3").find("got ' 3'"), std::string::npos);
  EXPECT_NE(message(2, "0,2.5").find("got '2.5'"), std::string::npos);
  EXPECT_NE(message(2, "0,1001").find("0 to 1000 points, got 1001"), std::string::npos);
  EXPECT_NE(message(2, "0,99999").find("got '99999'"), std::string::npos);
  Config unknown;
  unknown.variants = {{"point", "0,3"}};
  try {
    validate(unknown);
    ADD_FAILURE() << "no error";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find("points)"), std::string::npos) << e.what();
  }
}

// The field layout of the B-9 tests: a city N and a city S, both completed, with base.H's field
// between them; the field runs east over two monastery tiles and round to the north city's tile,
// so it touches the north city twice. base.E at (0,1) has a field of its own touching the south city.
Position farm(std::vector<Position::Figure> farmers) {
  Position p;
  p.tiles = {{"base.H", {0, 0}, 0},
             {"base.E", {0, -1}, 2},
             {"base.E", {0, 1}, 0},
             {"base.B", {1, 0}, 0},
             {"base.B", {1, -1}, 0}};
  p.figures = std::move(farmers);
  p.bag = std::vector<std::string>{};
  return p;
}

TEST(BaseRules, B9_FarmerScoresThreePerCompletedCityEachCountedOncePerField) {
  State s = State::from_position(farm({{0, "meeple", {0, 0}, 2}, {1, "meeple", {0, 1}, 1}}));
  ASSERT_TRUE(s.is_terminal());
  EXPECT_EQ(s.score(0), 6);  // two cities; the north one touched twice, counted once
  EXPECT_EQ(s.score(0, Cause::Field), 6);
  EXPECT_EQ(s.score(1), 3);  // the south city counts for this field too
  EXPECT_EQ(s.score(1, Cause::Field), 3);
}

TEST(BaseRules, B9_FarmerMajorityAndTies) {
  State tie = State::from_position(farm({{0, "meeple", {0, 0}, 2}, {1, "meeple", {1, 0}, 0}}));
  EXPECT_EQ(tie.score(0), 6);
  EXPECT_EQ(tie.score(1), 6);
  State majority =
      State::from_position(farm({{0, "meeple", {0, 0}, 2}, {0, "meeple", {1, -1}, 0}, {1, "meeple", {1, 0}, 0}}));
  EXPECT_EQ(majority.score(0), 6);
  EXPECT_EQ(majority.score(1), 0);
}

TEST(BaseRules, B9_FieldTouchingOnlyAnUnfinishedCityScoresNothing) {
  Position p;
  p.tiles = {{"base.D-start", {0, 0}, 0}};
  p.figures = {{0, "meeple", {0, 0}, 2}};  // north field, next to the open city
  p.bag = std::vector<std::string>{};
  State s = State::from_position(p);
  EXPECT_EQ(s.score(0), 0);  // the city is open: the farmer scores nothing
}

TEST(BaseRules, B10_HighestScoreWinsAndTiesShare) {
  State tie = State::from_position(farm({{0, "meeple", {0, 0}, 2}, {1, "meeple", {1, 0}, 0}}));
  EXPECT_EQ(tie.returns(), (std::vector<double>{0.5, 0.5}));
  State win = State::from_position(farm({{0, "meeple", {0, 0}, 2}, {1, "meeple", {0, 1}, 1}}));
  EXPECT_EQ(win.returns(), (std::vector<double>{1.0, 0.0}));
  State running = game_with_draws({"base.E"});
  EXPECT_EQ(running.returns(), (std::vector<double>{0.0, 0.0}));
}

TEST(BaseRules, B8_B9_ScoresIfEndedApplyFinalScoringToACopy) {
  // The B-8 position and a B-9 farm, each with tiles still in the bag: the state keeps its
  // scores, and scores_if_ended() gives what final scoring would.
  Position unfinished;
  unfinished.tiles = {
      {"base.D-start", {0, 0}, 0}, {"base.M", {0, -1}, 2}, {"base.U", {1, 0}, 0}, {"base.A", {0, 1}, 0}};
  unfinished.figures = {{0, "meeple", {0, 0}, 1}, {1, "meeple", {0, 0}, 0}, {1, "meeple", {0, 1}, 2}};
  unfinished.bag = std::vector<std::string>{"base.E"};
  State s = State::from_position(unfinished);
  ASSERT_FALSE(s.is_terminal());
  std::array<int, kMaxPlayers> ended = s.scores_if_ended();
  EXPECT_EQ(ended[0], 2);  // road of 2 tiles
  EXPECT_EQ(ended[1], 6);  // city of 2 tiles + pennant (3), monastery with 2 neighbours (3)
  EXPECT_EQ(s.score(0), 0);
  EXPECT_EQ(s.score(1), 0);
  Position fields = farm({{0, "meeple", {0, 0}, 2}, {1, "meeple", {0, 1}, 1}});
  fields.bag = std::vector<std::string>{"base.E"};
  ended = State::from_position(fields).scores_if_ended();
  EXPECT_EQ(ended[0], 6);
  EXPECT_EQ(ended[1], 3);
}

TEST(BaseRules, B11_EveryPointHasItsCause) {
  State s = State::from_position(farm({{0, "meeple", {0, 0}, 2}, {1, "meeple", {0, 1}, 1}}));
  for (int p = 0; p < 2; ++p) {
    int sum = 0;
    for (int c = 0; c < kNumCauses; ++c) sum += s.score(p, Cause(c));
    EXPECT_EQ(sum, s.score(p));
  }
}

}  // namespace
}  // namespace carc
