// What the engine says it counted (State::apply with scorings, engine/explain.h): exact records on
// hand-built positions, one per tricky rule, and in random games of every expansion the records
// add up to each player's change of score, cause by cause.
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <vector>

#include "engine/game.h"
#include "position_builder.h"

namespace carc {
namespace {

using Part = ScoringPart::Kind;

// Applies an action given as text and returns what its scorings counted.
std::vector<ScoringRecord> explained(State& s, const std::string& action) {
  std::vector<ScoringRecord> scorings;
  s.apply(s.parse_action(action), &scorings);
  return scorings;
}

std::vector<std::tuple<Part, int, int>> parts(const ScoringRecord& r) {
  std::vector<std::tuple<Part, int, int>> out;
  for (const ScoringPart& p : r.parts) out.emplace_back(p.kind, p.count, p.each);
  return out;
}

std::vector<std::tuple<int, int, Cause>> awards(const ScoringRecord& r) {
  std::vector<std::tuple<int, int, Cause>> out;
  for (const ScoringAward& a : r.awards) out.emplace_back(a.player, a.points, a.cause);
  return out;
}

std::vector<std::pair<int, int>> cells(const ScoringRecord& r) {
  std::vector<std::pair<int, int>> out;
  for (Cell c : r.cells) out.emplace_back(c.x, c.y);
  std::sort(out.begin(), out.end());
  return out;
}

State city_start(std::vector<std::string> expansions, std::vector<Position::Tile> tiles,
                 std::vector<Position::Figure> figures, std::vector<Position::CityFigure> city,
                 std::vector<std::string> draws) {
  Position p = testing::described(std::move(expansions), std::move(tiles), std::move(figures), std::move(draws));
  p.city = std::move(city);
  return State::from_position(p);
}

// CK-1: a field on the City's squares touches the City of Carcassonne, a completed city; the
// rings around the City touch no other completed city (its small cities are open).
TEST(Explain, CK1_AFieldOnTheCitySquaresFeedsTheCityOfCarcassonne) {
  State s = city_start({"city"}, {}, {}, {{0, "meeple", "market"}, {0, "meeple", "market"}, {1, "meeple", "market"}},
                       {"base.U"});
  testing::play(s, {"draw base.U", "place -1,0 r0", "pass", "meeple field#1 @0,0", "meeple field#2 @0,0"});
  std::vector<ScoringRecord> final = explained(s, "meeple field#2 @3,0");  // the last market move ends the game
  ASSERT_TRUE(s.is_terminal());
  ASSERT_EQ(final.size(), 3u);
  for (const ScoringRecord& r : final) {
    EXPECT_EQ(r.kind, ScoringKind::Feature);
    EXPECT_EQ(r.type, FeatureType::Field);
    EXPECT_TRUE(r.final);
    EXPECT_TRUE(r.counted.empty());
    EXPECT_TRUE(r.city_of_carcassonne);
    EXPECT_EQ(parts(r), (std::vector<std::tuple<Part, int, int>>{{Part::CityOfCarcassonne, 1, 3}}));  // B-9
    EXPECT_EQ(r.points(), 3);
    ASSERT_EQ(r.figures.size(), 1u);
    EXPECT_EQ(awards(r), (std::vector<std::tuple<int, int, Cause>>{{r.figures[0].player, 3, Cause::Field}}));
  }
}

// KR-2: the King scores the completed cities and the City of Carcassonne.
TEST(Explain, KR2_TheKingCountsTheCityOfCarcassonneToo) {
  State s = city_start({"city", "king-robber"}, {}, {}, {}, {"base.E", "base.U"});
  testing::play(s, {"draw base.E", "place 4,2 r3", "pass", "draw base.U", "place -1,0 r0"});
  std::vector<ScoringRecord> final = explained(s, "pass");
  ASSERT_TRUE(s.is_terminal());
  ASSERT_EQ(final.size(), 1u);
  const ScoringRecord& king = final[0];
  EXPECT_EQ(king.kind, ScoringKind::King);
  EXPECT_EQ(king.counted.size(), 1u);
  EXPECT_EQ(parts(king),
            (std::vector<std::tuple<Part, int, int>>{{Part::Cities, 1, 1}, {Part::CityOfCarcassonne, 1, 1}}));
  EXPECT_EQ(awards(king), (std::vector<std::tuple<int, int, Cause>>{{0, 2, Cause::King}}));
}

// ---- Abbey & Mayor ------------------------------------------------------------------------------

State am_position(std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures,
                  std::vector<std::string> draws) {
  return testing::position_in({"abbey-mayor"}, std::move(tiles), std::move(figures), std::move(draws));
}

// AM-A-3: the abbey closes a city and a road without being one of their tiles, and a field that
// reaches it does not touch the city behind it. The board of RULES E-6.
TEST(Explain, AM_A3_AnAbbeyClosesACityAndARoadButIsNoneOfTheirTiles) {
  std::vector<Position::Tile> tiles = {{"base.D-start", {0, 0}, 0}, {"base.E", {0, -1}, 2}, {"base.B", {-1, -1}, 0},
                                       {"base.B", {-2, -1}, 0},     {"base.B", {-2, 0}, 0}, {"base.B", {0, 1}, 0},
                                       {"base.E", {-1, 1}, 0},      {"base.U", {1, 0}, 0},  {"base.A", {2, 0}, 1}};
  State s =
      am_position(tiles, {{1, "meeple", {1, 0}, 0}, {1, "meeple", {-1, 1}, 0}, {0, "meeple", {-2, 0}, 0}}, {"base.U"});
  testing::play(s, {"abbey -1,0"});
  std::vector<ScoringRecord> phase3 = explained(s, "pass");
  ASSERT_EQ(phase3.size(), 2u);
  const ScoringRecord& city = phase3[0];  // cities score before roads (RULES 5.4b)
  EXPECT_EQ(city.type, FeatureType::City);
  EXPECT_FALSE(city.final);
  EXPECT_EQ(cells(city), (std::vector<std::pair<int, int>>{{-1, 1}}));                     // not the abbey's cell
  EXPECT_EQ(parts(city), (std::vector<std::tuple<Part, int, int>>{{Part::Tiles, 1, 2}}));  // B-7
  EXPECT_EQ(awards(city), (std::vector<std::tuple<int, int, Cause>>{{1, 2, Cause::City}}));
  const ScoringRecord& road = phase3[1];
  EXPECT_EQ(road.type, FeatureType::Road);
  EXPECT_EQ(cells(road), (std::vector<std::pair<int, int>>{{0, 0}, {1, 0}, {2, 0}}));
  EXPECT_EQ(parts(road), (std::vector<std::tuple<Part, int, int>>{{Part::Tiles, 3, 1}}));
  EXPECT_EQ(awards(road), (std::vector<std::tuple<int, int, Cause>>{{1, 3, Cause::Road}}));
  testing::play(s, {"draw base.U", "place 3,0 r1"});
  std::vector<ScoringRecord> final = explained(s, "pass");
  ASSERT_TRUE(s.is_terminal());
  ASSERT_EQ(final.size(), 1u);
  EXPECT_EQ(final[0].type, FeatureType::Field);
  EXPECT_EQ(final[0].counted.size(), 1u);  // the start's city; not the one behind the abbey
  EXPECT_FALSE(final[0].city_of_carcassonne);
  EXPECT_EQ(parts(final[0]), (std::vector<std::tuple<Part, int, int>>{{Part::Cities, 1, 3}}));
  EXPECT_EQ(awards(final[0]), (std::vector<std::tuple<int, int, Cause>>{{0, 3, Cause::Field}}));
}

// A field with two completed cities: base.H between two base.E; monasteries east.
std::vector<Position::Tile> farm() {
  return {{"base.H", {0, 0}, 0}, {"base.E", {0, -1}, 2}, {"base.E", {0, 1}, 0},
          {"base.B", {1, 0}, 0}, {"base.B", {1, -1}, 0}, {"base.B", {2, -1}, 0}};
}

// AM-B-3 then AM-B-6: a barn placed on a farmer's field scores the farmer now (3 per city), then
// the barn 4 per city at the end.
TEST(Explain, AM_B3_AM_B6_TheBarnsFieldScoresItsFarmerNowAndTheBarnAtTheEnd) {
  State s = am_position(farm(), {{1, "meeple", {1, 0}, 0}}, {"base.B", "base.U"});
  testing::play(s, {"draw base.B", "place 2,0 r0"});
  std::vector<ScoringRecord> now = explained(s, "barn NW");
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(now[0].kind, ScoringKind::BarnField);
  EXPECT_EQ(now[0].counted.size(), 2u);
  EXPECT_EQ(parts(now[0]), (std::vector<std::tuple<Part, int, int>>{{Part::Cities, 2, 3}}));
  EXPECT_EQ(awards(now[0]), (std::vector<std::tuple<int, int, Cause>>{{1, 6, Cause::FieldBarn}}));
  EXPECT_EQ(now[0].strength[1], 1);
  EXPECT_EQ(now[0].figures.size(), 2u);  // the farmer and the barn
  testing::play(s, {"draw base.U", "place -1,0 r1"});
  std::vector<ScoringRecord> final = explained(s, "pass");
  ASSERT_TRUE(s.is_terminal());
  ASSERT_EQ(final.size(), 1u);
  EXPECT_EQ(final[0].kind, ScoringKind::Feature);
  EXPECT_EQ(parts(final[0]), (std::vector<std::tuple<Part, int, int>>{{Part::Cities, 2, 4}}));
  EXPECT_EQ(awards(final[0]), (std::vector<std::tuple<int, int, Cause>>{{0, 8, Cause::Barn}}));
}

// AM-B-6: two barned fields joined: each barn scores in full.
TEST(Explain, AM_B6_TwoBarnsOnOneFieldEachScoreInFull) {
  std::vector<Position::Tile> tiles = farm();
  tiles.push_back({"base.B", {2, 0}, 0});
  for (Cell c : {Cell{2, 1}, Cell{3, 1}, Cell{2, 2}, Cell{3, 2}}) tiles.push_back({"base.U", c, 0});
  State s = am_position(tiles, {{0, "barn", {1, 0}, 0}, {1, "barn", {2, 1}, 1}}, {"base.A"});
  testing::play(s, {"draw base.A", "place 1,1 r3"});
  std::vector<ScoringRecord> final = explained(s, "pass");
  ASSERT_TRUE(s.is_terminal());
  ASSERT_EQ(final.size(), 1u);
  EXPECT_EQ(parts(final[0]), (std::vector<std::tuple<Part, int, int>>{{Part::Cities, 2, 4}}));
  EXPECT_EQ(awards(final[0]), (std::vector<std::tuple<int, int, Cause>>{{0, 8, Cause::Barn}, {1, 8, Cause::Barn}}));
}

// AM-M-2: a mayor is as strong as the city's pennants; the city is worth the same.
TEST(Explain, AM_M2_TheMayorsStrengthIsThePennants) {
  std::vector<Position::Tile> tiles = {{"base.E", {-1, 0}, 1}, {"base.F", {0, 0}, 0},
                                       {"base.F", {1, 0}, 0},  {"abbey-mayor.L", {2, 0}, 0},
                                       {"base.G", {3, 0}, 0},  {"abbey-mayor.C", {4, 0}, 0}};
  State s = am_position(tiles, {{1, "meeple", {0, 0}, 0}, {1, "meeple", {1, 0}, 0}, {0, "mayor", {2, 0}, 0}},
                        {"base.E", "base.U"});
  testing::play(s, {"draw base.E", "place 5,0 r3"});
  std::vector<ScoringRecord> now = explained(s, "pass");
  ASSERT_EQ(now.size(), 1u);
  EXPECT_EQ(now[0].strength[0], 3);
  EXPECT_EQ(now[0].strength[1], 2);
  EXPECT_EQ(now[0].pennants, 3);
  EXPECT_EQ(parts(now[0]), (std::vector<std::tuple<Part, int, int>>{{Part::Tiles, 7, 2}, {Part::Pennants, 3, 2}}));
  EXPECT_EQ(awards(now[0]), (std::vector<std::tuple<int, int, Cause>>{{0, 20, Cause::CityMayor}}));
}

// ---- Random games -------------------------------------------------------------------------------

// Every record adds up (its parts to the points each award gives), and the awards of an action's
// records are each player's change of score, cause by cause: no point is booked outside a record.
void check_random_games(std::vector<std::string> expansions, std::map<std::string, std::string> variants, int players,
                        int games) {
  for (int g = 0; g < games; ++g) {
    Config config;
    config.players = players;
    config.expansions = expansions;
    config.variants = variants;
    config.seed = uint64_t(100 + g);
    State s(config);
    Rng rng(config.seed);
    int records = 0;
    while (!s.is_terminal()) {
      std::vector<Action> legal = s.legal_actions();
      Action a = s.is_chance() ? s.sample_chance() : legal[rng.below(uint32_t(legal.size()))];
      State before = s;
      std::vector<ScoringRecord> scorings;
      s.apply(a, &scorings);
      std::array<std::array<int, kNumCauses>, kMaxPlayers> booked{};
      for (const ScoringRecord& r : scorings) {
        ++records;
        for (const ScoringAward& award : r.awards) {
          ASSERT_EQ(award.points, r.points()) << s.action_to_string(a);
          booked[award.player][int(award.cause)] += award.points;
        }
      }
      for (int p = 0; p < players; ++p)
        for (int c = 0; c < kNumCauses; ++c)
          ASSERT_EQ(booked[p][c], s.score(p, Cause(c)) - before.score(p, Cause(c)))
              << "player " << p << " " << cause_name(Cause(c)) << " after " << before.action_to_string(a);
      // The same action without a list scores the same.
      before.apply(a);
      for (int p = 0; p < players; ++p) ASSERT_EQ(before.score(p), s.score(p));
    }
    EXPECT_GT(records, 0);
  }
}

TEST(Explain, RecordsAddUpInRandomGamesOfEveryExpansion) {
  check_random_games({}, {}, 2, 3);
  check_random_games({"abbey-mayor", "king-robber", "shrines", "anniv20"}, {{"start", "city"}}, 3, 3);
  check_random_games({"abbey-mayor"}, {}, 4, 2);
  check_random_games({}, {{"start", "river2"}}, 5, 2);
}

}  // namespace
}  // namespace carc
