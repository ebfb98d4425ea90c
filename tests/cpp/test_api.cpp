// The decision API's contract: errors leave the state unchanged, strings round-trip, values copy.
#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <map>
#include <string>
#include <vector>

#include "position_builder.h"

namespace carc {
namespace {

std::vector<unsigned char> bytes(const State& s) {
  std::vector<unsigned char> out(sizeof(State));
  std::memcpy(out.data(), &s, sizeof(State));
  return out;
}

TEST(Api, IllegalActionsThrowAndChangeNothing) {
  State s = testing::game_with_draws({"base.A", "base.A"});
  auto before = bytes(s);
  EXPECT_THROW(s.apply(Action::place(Cell{1, 0}, 1)), IllegalActionError);                       // not drawn yet
  EXPECT_THROW(s.apply(Action::draw(Catalogue::builtin().find("base.C"))), IllegalActionError);  // not next
  EXPECT_THROW(s.apply(Action{0xFFFFFFFFu}), IllegalActionError);
  EXPECT_EQ(bytes(s), before);
  s.apply(s.sample_chance());
  before = bytes(s);
  EXPECT_THROW(s.apply(Action::place(Cell{0, -1}, 0)), IllegalActionError);  // road faces city
  EXPECT_THROW(s.apply(Action::place(Cell{5, 5}, 1)), IllegalActionError);   // touches nothing
  EXPECT_THROW(s.apply(Action::pass()), IllegalActionError);
  EXPECT_THROW(s.apply(Action{Action::place(Cell{1, 0}, 1).code | (1u << 30)}), IllegalActionError);
  EXPECT_EQ(bytes(s), before);
  s.apply(Action::place(Cell{1, 0}, 1));
  before = bytes(s);
  EXPECT_THROW(s.apply(Action::figure(FigureKind::Meeple, 7)), IllegalActionError);  // no feature #7
  EXPECT_EQ(bytes(s), before);
  s.apply(Action::figure(FigureKind::Meeple, 0));
  s.apply(s.sample_chance());
  s.apply(Action::place(Cell{-1, 0}, 3));
  before = bytes(s);
  try {
    s.apply(Action::figure(FigureKind::Meeple, 0));
    FAIL() << "a meeple on an occupied road was accepted";
  } catch (const IllegalActionError& e) {
    EXPECT_NE(std::string(e.what()).find("occupied"), std::string::npos) << e.what();
  }
  EXPECT_EQ(bytes(s), before);
}

TEST(Api, TerminalStateAcceptsNothing) {
  State s = testing::game_with_draws({"base.E"});
  testing::turn(s, "place 0,-1 r2");
  ASSERT_TRUE(s.is_terminal());
  EXPECT_TRUE(s.legal_actions().empty());
  EXPECT_EQ(s.current_player(), kTerminalPlayer);
  EXPECT_THROW(s.apply(Action::pass()), IllegalActionError);
}

TEST(Api, ActionStringsRoundTrip) {
  State s = testing::game_with_draws({"base.L"});
  for (Action a : s.legal_actions()) EXPECT_EQ(s.parse_action(s.action_to_string(a)), a);
  s.apply(s.sample_chance());
  std::vector<Action> places = s.legal_actions();
  ASSERT_FALSE(places.empty());
  for (Action a : places) EXPECT_EQ(s.parse_action(s.action_to_string(a)), a) << s.action_to_string(a);
  s.apply(places.front());
  for (Action a : s.legal_actions()) EXPECT_EQ(s.parse_action(s.action_to_string(a)), a) << s.action_to_string(a);
  EXPECT_EQ(s.action_to_string(Action::place(Cell{-3, 12}, 2)), "place -3,12 r2");
}

TEST(Api, MalformedActionTextIsAClearError) {
  State s = testing::game_with_draws({"base.L"});
  for (const char* text :
       {"", "draw", "draw base.ZZ", "place", "place 1 r0", "place 1,0", "place 1,0 r4", "place a,b r1",
        "place 1,0 r1 extra", "meeple", "meeple city", "meeple city#x", "pass now", "jump 1,1", "place 999,0 r0"}) {
    EXPECT_THROW(s.parse_action(text), IllegalActionError) << '"' << text << '"';
  }
  s.apply(s.sample_chance());
  s.apply(s.legal_actions().front());
  ASSERT_EQ(s.phase(), Phase::PlaceFigure);
  EXPECT_THROW(s.parse_action("meeple road#0"), IllegalActionError);  // feature #0 of base.L is a city
}

TEST(Api, ConfigErrorsNameTheProblem) {
  auto message = [](Config c) {
    try {
      State s(c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Config unknown;
  unknown.expansions = {"inns-cathedrals"};
  EXPECT_NE(message(unknown).find("unknown expansion 'inns-cathedrals'"), std::string::npos);
  Config clash;
  clash.expansions = {"city", "river2"};
  EXPECT_NE(message(clash).find("not combined (CK-0)"), std::string::npos) << message(clash);
  Config variant;
  variant.variants = {{"farmers", "off"}};
  EXPECT_NE(message(variant).find("unknown variant 'farmers'"), std::string::npos);
  Config value;
  value.variants = {{"start", "volcano"}};
  EXPECT_NE(message(value).find("no value 'volcano'"), std::string::npos);
  Config draws;
  draws.draw_order = {"base.C", "base.C"};
  EXPECT_NE(message(draws).find("more copies"), std::string::npos);
  Config other_set;
  other_set.draw_order = {"shrines.A"};
  EXPECT_NE(message(other_set).find("not enabled"), std::string::npos);
}

TEST(Api, ExpansionCustomWithoutATileFileIsAConfigError) {
  if (std::getenv("CARC_TILES")) GTEST_SKIP() << "CARC_TILES is set";
  Config c;
  c.expansions = {"custom"};
  try {
    State s(c);
    FAIL() << "a game of expansion custom without a tile file";
  } catch (const ConfigError& e) {
    EXPECT_NE(std::string(e.what()).find(
                  "not supported without a tile file: name one in the environment variable CARC_TILES"),
              std::string::npos)
        << e.what();
  }
}

TEST(Api, AVariantOfAnExpansionNotInPlayIsAConfigError) {
  auto message = [](std::vector<std::string> expansions, std::map<std::string, std::string> variants) {
    Config c;
    c.expansions = std::move(expansions);
    c.variants = std::move(variants);
    try {
      validate(c);
    } catch (const ConfigError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message({}, {{"wagon_move", "c1"}}),
            "variant wagon_move = c1 needs expansion abbey-mayor, which is not in play");
  EXPECT_EQ(message({"city"}, {{"abbey_endgame", "none"}}),
            "variant abbey_endgame = none needs expansion abbey-mayor, which is not in play");
  EXPECT_EQ(message({}, {{"count_move", "follow"}}),
            "variant count_move = follow needs expansion city, which is not in play");
  EXPECT_EQ(message({}, {{"start", "city_plain"}, {"count_move", "clockwise"}}),
            "variant count_move = clockwise needs the Count (start = city), not start = city_plain");
  EXPECT_EQ(message({"abbey-mayor"}, {{"wagon_move", "c1"}, {"abbey_endgame", "none"}}), "no error");
  EXPECT_EQ(message({"city"}, {{"count_move", "follow"}}), "no error");
  EXPECT_EQ(message({}, {{"start", "city"}, {"count_move", "follow"}}), "no error");  // start = city is the City
  // Defaults are accepted: a validated config lists every variant and validates again unchanged.
  EXPECT_EQ(message({}, {{"wagon_move", "c2"}, {"abbey_endgame", "mandatory"}, {"count_move", "free"}}), "no error");
  for (const std::vector<std::string>& expansions :
       {std::vector<std::string>{}, {"abbey-mayor"}, {"city"}, {"river2"}}) {
    Config c;
    c.expansions = expansions;
    Config once = validate(c);
    EXPECT_EQ(once.variants.size(), known_variants().size());
    EXPECT_EQ(validate(once).variants, once.variants);
  }
}

TEST(Api, PositionErrorsNameTheTileOrFigure) {
  auto error = [](Position p) {
    try {
      State::from_position(p);
    } catch (const PositionError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  Position p;
  p.tiles = {{"base.D", {0, 0}, 0}, {"base.C", {0, 1}, 0}};
  EXPECT_NE(error(p).find("tile #1 (base.C at 0,1): sides do not match"), std::string::npos) << error(p);
  p.tiles = {{"base.D", {0, 0}, 0}, {"base.C", {5, 1}, 0}};
  EXPECT_NE(error(p).find("does not touch"), std::string::npos);
  p.tiles = {{"base.D", {0, 0}, 0}, {"base.E", {0, -1}, 2}};
  p.figures = {{0, "meeple", {0, 0}, 0}};  // on a city the tiles complete
  EXPECT_NE(error(p).find("completed"), std::string::npos) << error(p);
  p.figures = {{2, "meeple", {0, 0}, 1}};
  EXPECT_NE(error(p).find("no such player"), std::string::npos);
  p.figures = {{0, "meeple", {0, 0}, 9}};
  EXPECT_NE(error(p).find("no feature #9"), std::string::npos);
  p.figures = {};
  p.bag = std::vector<std::string>{"base.D", "base.D", "base.D"};  // 3 copies, 2 placed already
  EXPECT_NE(error(p).find("more copies"), std::string::npos) << error(p);
  p.bag.reset();
  p.current_player = 5;
  EXPECT_NE(error(p).find("current_player"), std::string::npos);
}

TEST(Api, SameSeedSameGameAndCloneIsIndependent) {
  Config c;
  c.seed = 42;
  State a(c), b(c);
  while (!a.is_terminal()) {
    Action x = a.is_chance() ? a.sample_chance() : a.legal_actions()[a.legal_actions().size() / 2];
    Action y = b.is_chance() ? b.sample_chance() : b.legal_actions()[b.legal_actions().size() / 2];
    ASSERT_EQ(x, y);
    a.apply(x);
    b.apply(y);
  }
  EXPECT_EQ(a.score(0), b.score(0));
  EXPECT_EQ(a.score(1), b.score(1));
  State fresh(c);
  State copy = fresh.clone();
  copy.apply(copy.sample_chance());
  EXPECT_TRUE(fresh.is_chance());
  EXPECT_EQ(fresh.bag_size(), 71);
  EXPECT_EQ(copy.bag_size(), 70);
}

// A City position (CK-3) with player 0's meeple in `quarter`, the next tile drawn.
State meeple_in_quarter(const std::string& quarter) {
  Position p = testing::described({"city"}, {}, {}, {"base.E", "base.U"});
  p.city = {{0, "meeple", quarter}};
  State s = State::from_position(p);
  testing::play(s, {"draw base.E"});
  return s;
}

TEST(Api, ScoresWithoutABreakdownRoundTrip) {
  // Found by carc_fuzz_position: a position with scores but no breakdown was accepted, and its
  // own position() (zero breakdown beside the scores) was refused.
  Position p;
  p.tiles = {{"base.D-start", Cell{0, 0}, 0}};
  p.scores = {5, 3};
  State s = State::from_position(p);
  Position again = s.to_position();
  EXPECT_TRUE(again.breakdown.empty());
  State t = State::from_position(again);
  EXPECT_EQ(t.score(0), 5);
  EXPECT_EQ(t.score(1), 3);
  // A known breakdown is still written.
  EXPECT_FALSE(State(Config{}).to_position().breakdown.empty());
}

TEST(Api, SamePositionComparesTheWholeGameButNotThePrng) {
  // Same board, figures on it, scores, supply and legal actions; only the City differs (CK-3),
  // which decides later moves out of it (CK-4): not the same position.
  State castle = meeple_in_quarter("castle"), market = meeple_in_quarter("market");
  EXPECT_EQ(castle.legal_actions(), market.legal_actions());
  EXPECT_EQ(castle.supply(0), market.supply(0));
  EXPECT_FALSE(castle.same_position(market));
  EXPECT_TRUE(castle.same_position(meeple_in_quarter("castle")));
  // Other seeds shuffle the bag and the PRNG differently: the same position until a draw differs.
  Config c;
  c.seed = 1;
  State a(c);
  c.seed = 2;
  State b(c);
  EXPECT_TRUE(a.same_position(b));
  a.apply(Action::draw(a.legal_actions().front().tile_kind()));
  EXPECT_FALSE(a.same_position(b));
  b.apply(Action::draw(b.legal_actions().front().tile_kind()));  // the same tile: the bags hold the same
  EXPECT_TRUE(a.same_position(b));
}

TEST(Api, CopyFromMakesTheSameStateAsACopy) {
  // copy_from leaves stale segments past the used ones; a game continued from it must go exactly
  // as one continued from a full copy, whether the target held a bigger or a smaller game.
  Config c;
  c.expansions = {"abbey-mayor", "city", "king-robber", "shrines", "anniv20"};
  c.players = 3;
  auto advance = [](State& s, int turns, uint64_t seed) {
    Rng rng(seed);
    while (!s.is_terminal() && (s.turn_number() < turns || s.is_chance()))
      s.apply(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
  };
  c.seed = 3;
  State early(c);
  advance(early, 8, 1);
  c.seed = 4;
  State late(c);
  advance(late, 60, 2);
  for (const State* source : {&early, &late}) {
    for (const State* target : {&early, &late}) {
      State copied = *target;
      copied.copy_from(*source);
      State full = *source;
      EXPECT_TRUE(copied.same_position(full));
      Rng a(9), b(9);
      while (!full.is_terminal()) {
        Action x = full.is_chance() ? full.sample_chance() : full.sample_legal_action(a);
        Action y = copied.is_chance() ? copied.sample_chance() : copied.sample_legal_action(b);
        ASSERT_EQ(x, y);  // the PRNG is copied too
        full.apply(x);
        copied.apply(y);
      }
      copied.check_consistency();
      EXPECT_TRUE(copied.same_position(full));
      EXPECT_EQ(copied.returns(), full.returns());
    }
  }
}

TEST(Api, ChanceOutcomesFollowTheBag) {
  State s{Config{}};
  auto outcomes = s.chance_outcomes();
  double total = 0;
  for (auto& [a, p] : outcomes) total += p;
  EXPECT_NEAR(total, 1.0, 1e-12);
  const Catalogue& cat = Catalogue::builtin();
  for (auto& [a, p] : outcomes)
    if (cat.kind(KindId(a.tile_kind())).name == "base.V") {
      EXPECT_DOUBLE_EQ(p, 8.0 / 71);
    }
  EXPECT_EQ(outcomes.size(), 32u);  // 33 kinds in the base set; the start tile is placed
}

}  // namespace
}  // namespace carc

namespace carc {
namespace {

TEST(Api, EveryPhaseHasAName) {
  for (int p = 0; p <= int(Phase::GameOver); ++p) EXPECT_STRNE(phase_name(Phase(p)), "");
  EXPECT_STREQ(phase_name(Phase::GameOver), "game_over");
  EXPECT_STREQ(phase_name(Phase::MarketMove), "market_move");
  EXPECT_STREQ(action_kind_name(ActionKind::TakeTile), "take-tile");
  State s = testing::game_with_draws({"base.E"});
  testing::turn(s, "place 0,-1 r2");
  EXPECT_NE(s.to_string().find("game_over"), std::string::npos);
}

}  // namespace
}  // namespace carc
