// Issue 22: the SPRT of the arena, the reference players of the ladder, and the fields options.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <map>

#include "position_builder.h"
#include "search/agents.h"
#include "search/arena.h"
#include "search/evaluator.h"
#include "search/mcts.h"
#include "search/sprt.h"
#include "search/value.h"

namespace carc {
namespace {

const std::vector<double> kPentanomial = {0, 0.25, 0.5, 0.75, 1};
const std::vector<double> kTrinomial = {0, 0.5, 1};

TEST(Sprt, LlrMatchesAnIndependentOptimiser) {
  // Expected values: the two constrained maximum-likelihood distributions found by scipy's SLSQP
  // (a general optimiser, not the Lagrange root used here), elo0=0, elo1=20, unseen outcomes
  // counting 1e-3: LLR = sum n_i log(p1_i / p0_i).
  EXPECT_NEAR(gsprt_llr({10, 30, 60, 40, 12}, kPentanomial, elo_to_score(0), elo_to_score(20)), 0.581061, 1e-4);
  EXPECT_NEAR(gsprt_llr({5, 20, 50, 25, 6}, kPentanomial, elo_to_score(0), elo_to_score(20)), 0.123045, 1e-4);
  EXPECT_NEAR(gsprt_llr({40, 20, 60}, kTrinomial, elo_to_score(0), elo_to_score(20)), 1.144287, 1e-4);
  EXPECT_NEAR(gsprt_llr({0, 0, 0, 0, 10}, kPentanomial, elo_to_score(0), elo_to_score(20)), 0.559195, 1e-4);
}

TEST(Sprt, LlrIsCloseToTheNormalApproximationAndAntisymmetric) {
  // For many pairs the GSPRT approaches N (s1 - s0)(2 mean - s0 - s1) / (2 var).
  std::vector<double> counts = {100, 300, 600, 400, 120};
  double n = 0, mean = 0, var = 0;
  for (size_t i = 0; i < counts.size(); ++i) n += counts[i], mean += counts[i] * kPentanomial[i];
  mean /= n;
  for (size_t i = 0; i < counts.size(); ++i) var += counts[i] * std::pow(kPentanomial[i] - mean, 2) / n;
  const double s0 = elo_to_score(0), s1 = elo_to_score(20);
  EXPECT_NEAR(gsprt_llr(counts, kPentanomial, s0, s1), n * (s1 - s0) * (2 * mean - s0 - s1) / (2 * var), 0.1);
  // Swapping the hypotheses negates the ratio.
  EXPECT_NEAR(gsprt_llr(counts, kPentanomial, s1, s0), -gsprt_llr(counts, kPentanomial, s0, s1), 1e-9);
  EXPECT_NEAR(elo_to_score(0), 0.5, 1e-12);
  EXPECT_NEAR(elo_to_score(400), 10.0 / 11.0, 1e-12);
}

GameRecord game(int deal, int rotation, double share_of_entrant0) {
  GameRecord g;
  g.deal = deal;
  g.rotation = rotation;
  g.entrant = rotation == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
  g.scores = {50, 40};
  const size_t seat = rotation == 0 ? 0 : 1;
  g.win_share = {0, 0};
  g.win_share[seat] = share_of_entrant0;
  g.win_share[1 - seat] = 1 - share_of_entrant0;
  return g;
}

TEST(Sprt, CountsCompletePairsFromEntrantZerosSide) {
  SprtConfig config;
  std::vector<GameRecord> games = {game(0, 0, 1), game(0, 1, 1),    // won both: outcome 1
                                   game(1, 0, 0.5), game(1, 1, 0),  // a tie and a loss: 1/4
                                   game(2, 1, 1)};                  // pair not complete
  SprtStatus st = sprt_status(games, true, config);
  EXPECT_EQ(st.units, 2);
  EXPECT_EQ(st.counts, (std::vector<int>{0, 1, 0, 0, 1}));
  EXPECT_NEAR(st.llr, gsprt_llr({0, 1, 0, 0, 1}, kPentanomial, elo_to_score(config.elo0), elo_to_score(config.elo1)),
              1e-12);
  SprtStatus unpaired = sprt_status(games, false, config);
  EXPECT_EQ(unpaired.units, 5);
  EXPECT_EQ(unpaired.counts, (std::vector<int>{1, 1, 3}));
  EXPECT_EQ(st.decision, SprtDecision::Continue);
  EXPECT_NEAR(st.upper, std::log(0.95 / 0.05), 1e-12);
  EXPECT_NEAR(st.lower, -std::log(0.95 / 0.05), 1e-12);
}

TEST(Sprt, DecidesOnceTheRatioLeavesItsBounds) {
  SprtConfig config = parse_sprt("elo0=0,elo1=20");
  std::vector<GameRecord> winning, losing;
  for (int d = 0; d < 400; ++d) {
    // Entrant 0 wins 3 games in 5 (about +70 Elo), or loses them.
    double share = d % 5 < 3 ? 1 : 0;
    winning.push_back(game(d, 0, share));
    winning.push_back(game(d, 1, share));
    losing.push_back(game(d, 0, 1 - share));
    losing.push_back(game(d, 1, 1 - share));
  }
  EXPECT_EQ(sprt_status(winning, true, config).decision, SprtDecision::AcceptH1);
  EXPECT_EQ(sprt_status(losing, true, config).decision, SprtDecision::AcceptH0);
  winning.resize(4);  // two pairs decide nothing
  EXPECT_EQ(sprt_status(winning, true, config).decision, SprtDecision::Continue);
}

TEST(Sprt, ParsesItsSettingsAndRejectsBadOnes) {
  SprtConfig c = parse_sprt("elo1=10,elo0=-5,alpha=0.1,beta=0.02");
  EXPECT_EQ(c.elo0, -5);
  EXPECT_EQ(c.elo1, 10);
  EXPECT_EQ(c.alpha, 0.1);
  EXPECT_EQ(c.beta, 0.02);
  for (const char* bad :
       {"elo0=0", "elo0=20,elo1=0", "elo0=0,elo1=20,alpha=0.7", "elo0=0,elo1=x", "elo0=0,elo1=5,k=1", "elo0=0,elo1=5,"})
    EXPECT_THROW(parse_sprt(bad), SearchError) << bad;
}

TEST(Sprt, TheArenaStopsWhenTheTestDecidesAndAResumedRunStaysDecided) {
  // Greedy against random wins every pair: with wide bounds the test accepts H1 long before the
  // 40 deals; one game at a time, so the run stops at the end of a pair.
  ArenaConfig config;
  config.agents = {"greedy", "random"};
  config.game.players = 2;
  config.deals = 40;
  config.threads = 1;
  config.sprt = parse_sprt("elo0=0,elo1=200,alpha=0.2,beta=0.2");
  int reported = 0;
  config.on_sprt = [&](const SprtStatus&) { ++reported; };
  const std::string path = ::testing::TempDir() + "arena_sprt.csv";
  ArenaResult first = run_arena_csv(config, path, false);
  ASSERT_TRUE(first.sprt);
  EXPECT_EQ(first.sprt->decision, SprtDecision::AcceptH1);
  EXPECT_LT(first.games.size(), 80u);
  EXPECT_EQ(first.games.size(), size_t(2 * first.sprt->units));  // whole pairs, none unplayed
  EXPECT_EQ(first.deals, first.sprt->units);
  EXPECT_EQ(reported, int(first.games.size()));
  EXPECT_NE(first.report().find("sprt LLR"), std::string::npos);
  // A resumed run reads the decided games back and plays none.
  reported = 0;
  ArenaResult again = run_arena_csv(config, path, true);
  EXPECT_EQ(reported, 0);
  EXPECT_EQ(again.games.size(), first.games.size());
  EXPECT_EQ(again.sprt->llr, first.sprt->llr);
  config.game.players = 3;
  config.agents.push_back("greedy");
  config.on_sprt = nullptr;
  EXPECT_THROW(run_arena(config), SearchError);  // the test is for two players
}

const MctsConfig& config_of(const Agent& agent) { return dynamic_cast<const MctsAgent&>(agent).config(); }

TEST(ReferencePlayers, PinEveryPlayingOption) {
  // A new option must get its old-behaviour value in every reference, or a reference would change
  // with the defaults. (No time limit: their budget is iters.)
  for (const ReferencePlayer& r : kReferencePlayers) {
    const std::string pinned = std::string(",") + r.options;
    for (const MctsOptionInfo& o : mcts_options()) {
      if (o.key == "time") continue;
      EXPECT_NE(pinned.find("," + o.key + "="), std::string::npos) << o.key << " is not pinned by " << r.name;
    }
  }
}

TEST(ReferencePlayers, RefRolloutPlaysTheSearchOf3December2026) {
  // The default search when it was pinned: the greedy-valued cutoff counts led fields at half
  // their guessed worth, cut-off rollouts place no farmers; the rest as ref-2026-12.
  MctsConfig c = config_of(*make_agent("ref-rollout"));
  MctsConfig old = config_of(*make_agent("ref-2026-12"));
  EXPECT_EQ(c.iterations, 1000u);
  EXPECT_EQ(c.selection, SelectionRule::Puct);
  EXPECT_EQ(c.exploration, 2.0);
  EXPECT_EQ(c.rollout.cutoff_turns, 10);
  EXPECT_EQ(c.rollout.heuristic, Heuristic::Greedy);
  EXPECT_EQ(c.rollout.prior, PriorKind::Greedy);
  EXPECT_EQ(c.rollout.field_weight, 0.5);
  EXPECT_FALSE(c.rollout.rollout_farmers);
  EXPECT_EQ(c.rollout.prior_field_weight, 0.0);
  EXPECT_EQ(c.rollout.margin_scale, old.rollout.margin_scale);
  EXPECT_EQ(c.rollout.endgame_tiles, old.rollout.endgame_tiles);
  // Budget and resources may be set; play may not; an unknown reference names the known ones.
  MctsConfig timed = config_of(*make_agent("ref-rollout:time=0.05,threads=2"));
  EXPECT_EQ(timed.seconds, 0.05);
  EXPECT_EQ(timed.iterations, 0u);
  EXPECT_EQ(timed.threads, 2);
  EXPECT_THROW(make_agent("ref-rollout:fields=0"), SearchError);
  try {
    make_agent("ref-rollou");
    FAIL() << "an unknown agent was made";
  } catch (const SearchError& e) {
    EXPECT_NE(std::string(e.what()).find("ref-rollout"), std::string::npos) << e.what();
  }
}

TEST(ReferencePlayers, Ref202612PlaysTheDecember2026Search) {
  MctsConfig c = config_of(*make_agent("ref-2026-12"));
  EXPECT_EQ(c.iterations, 1000u);
  EXPECT_EQ(c.selection, SelectionRule::Puct);
  EXPECT_EQ(c.exploration, 2.0);
  EXPECT_EQ(c.rollout.cutoff_turns, 10);
  EXPECT_EQ(c.rollout.finish_tiles, 20);
  EXPECT_EQ(c.rollout.heuristic, Heuristic::Greedy);
  EXPECT_EQ(c.rollout.endgame_tiles, 2);
  EXPECT_EQ(c.rollout.margin_scale, 40.0);
  EXPECT_EQ(c.rollout.prior, PriorKind::Greedy);
  EXPECT_EQ(c.rollout.field_weight, 0.0);
  EXPECT_TRUE(c.rollout.rollout_farmers);
  EXPECT_EQ(c.rollout.prior_field_weight, 0.0);
  // A time budget replaces the iteration budget; resources may be set; play may not.
  MctsConfig timed = config_of(*make_agent("ref-2026-12:time=0.2,threads=2"));
  EXPECT_EQ(timed.seconds, 0.2);
  EXPECT_EQ(timed.iterations, 0u);
  EXPECT_EQ(timed.threads, 2);
  EXPECT_EQ(config_of(*make_agent("ref-2026-12:iters=300")).iterations, 300u);
  EXPECT_THROW(make_agent("ref-2026-12:c=1"), SearchError);
  EXPECT_THROW(make_agent("ref-2026-12:fields=1"), SearchError);
  EXPECT_THROW(make_agent("ref-2026-13"), SearchError);
}

TEST(ReferencePlayers, RefValuePlaysTheLearnedSearchOf5December2026WithItsNetworksPinned) {
  // Today's default (the learned value, rollouts elsewhere), reading its own copies of the two
  // networks: retrained shipped networks change mcts, not this reference. The hashes are the
  // files' as they shipped on 5 December 2026.
  MctsConfig c = config_of(*make_agent("ref-value-2026-12"));
  MctsConfig rollout = config_of(*make_agent("ref-rollout"));
  EXPECT_EQ(c.rollout.heuristic, Heuristic::Value);
  EXPECT_EQ(c.rollout.value_net, "");
  EXPECT_EQ(c.rollout.value_dir, "@references/ref-value-2026-12");
  EXPECT_EQ(c.rollout.field_weight, rollout.rollout.field_weight);  // the fallback plays ref-rollout
  EXPECT_EQ(c.rollout.cutoff_turns, rollout.rollout.cutoff_turns);
  std::map<std::string, std::string> pinned;
  for (const auto& net : value_nets_in(resolve_value_dir(c.rollout.value_dir)))
    pinned[std::filesystem::path(net->path()).filename().string()] = net->sha256();
  EXPECT_EQ(pinned, (std::map<std::string, std::string>{
                        {"value-all-city-4p.value", "37bc91145dd46f545f86dde546a1f36b6c222ada15cd5591fd25b132a86b52d8"},
                        {"value-base.value", "0bd9e930313baf2bd2174e5209851d06e1212824da650b224a08c12b6629f879"}}));
  // It says which of them played.
  State s{Config{}};
  s.apply(s.sample_chance());
  Rng rng(1);
  MctsAgent small(parse_mcts_options(reference_options("ref-value-2026-12", "iters=50")));
  EXPECT_TRUE(s.is_legal(small.choose(s, rng)));
  EXPECT_NE(small.last_result().evaluator.find("(value-base.value, sha256 0bd9e930313baf2b)"), std::string::npos)
      << small.last_result().evaluator;
  EXPECT_THROW(make_agent("ref-value-2026-12:values=/tmp"), SearchError);  // play is pinned
}

TEST(MctsOptions, ValuesNamesAFolderOfNetworks) {
  EXPECT_EQ(parse_mcts_options("values=@references/ref-value-2026-12").rollout.value_dir,
            "@references/ref-value-2026-12");
  EXPECT_THROW(parse_mcts_options("values=@no-such-folder"), SearchError);
  EXPECT_THROW(parse_mcts_options("values=/no/such/folder"), SearchError);
  // A folder without networks: every game is searched with rollouts, and the search says so.
  const std::string empty = ::testing::TempDir() + "no-networks";
  std::filesystem::create_directories(empty);
  State s{Config{}};
  s.apply(s.sample_chance());
  MctsAgent agent(parse_mcts_options("iters=50,values=" + empty));
  Rng rng(1);
  EXPECT_TRUE(s.is_legal(agent.choose(s, rng)));
  EXPECT_EQ(agent.last_result().evaluator, "rollouts: no value network for base with 2 players");
}

TEST(Fields, PotentialPaysThreePerClosedCityToTheFieldsLeader) {
  // The start tile's city closed by base.E: player 0's farmer on E's field and player 1's on the
  // start tile's field north of the road both touch it; player 1's second farmer, south of the
  // road, touches no city.
  Position p;
  p.tiles = {{"base.D-start", Cell{0, 0}, 0}, {"base.E", Cell{0, -1}, 2}};
  p.figures = {{0, "meeple", Cell{0, -1}, 1}, {1, "meeple", Cell{0, 0}, 3}};
  p.bag = std::vector<std::string>{"base.U", "base.U"};
  State s = State::from_position(p);
  std::array<double, kMaxPlayers> fields = field_potential(s);
  EXPECT_EQ(fields[0], 3.0);
  EXPECT_EQ(fields[1], 0.0);
  p.figures.push_back({1, "meeple", Cell{0, 0}, 2});
  fields = field_potential(State::from_position(p));
  EXPECT_EQ(fields[0], 3.0);
  EXPECT_EQ(fields[1], 3.0);
  // GreedyAgent ignores fields; the priors' valuation counts them when asked.
  State one = State::from_position(p);
  EXPECT_EQ(GreedyAgent::evaluate(one, 0, 1.0) - GreedyAgent::evaluate(one, 0), 0.0);  // both lead one field
  p.figures.pop_back();
  State two = State::from_position(p);
  EXPECT_NEAR(GreedyAgent::evaluate(two, 0, 1.0) - GreedyAgent::evaluate(two, 0), 3.0, 1e-9);
}

TEST(Fields, AM_B6_BarnPotentialPaysFourPerClosedCityToEachBarnsOwner) {
  // base.H between two completed cities; its field runs east over base.B and base.U tiles.
  // Player 0's barn stands on it, then player 1's too.
  std::vector<Position::Tile> tiles = {{"base.H", {0, 0}, 0}, {"base.E", {0, -1}, 2}, {"base.E", {0, 1}, 0},
                                       {"base.B", {1, 0}, 0}, {"base.B", {1, -1}, 0}, {"base.B", {2, -1}, 0},
                                       {"base.B", {2, 0}, 0}};
  for (Cell c : {Cell{2, 1}, Cell{3, 1}, Cell{2, 2}, Cell{3, 2}}) tiles.push_back({"base.U", c, 0});
  State one = testing::position_in({"abbey-mayor"}, tiles, {{0, "barn", {1, 0}, 0}}, {"base.U", "base.U"});
  std::array<double, kMaxPlayers> barns = barn_potential(one);
  EXPECT_EQ(barns[0], 8.0);  // 4 x 2 completed cities, as AM-B-6 pays at the end
  EXPECT_EQ(barns[1], 0.0);
  EXPECT_EQ(field_potential(one)[0], 0.0);  // no farmer leads the field
  // Player 1's barn on the field east of the base.U tiles, which touches no city, until base.A
  // joins the two fields: then each barn counts in full.
  State two = testing::position_in({"abbey-mayor"}, tiles, {{0, "barn", {1, 0}, 0}, {1, "barn", {2, 1}, 1}},
                                   {"base.A", "base.U"});
  EXPECT_EQ(barn_potential(two)[1], 0.0);
  testing::play(two, {"draw base.A", "place 1,1 r3"});
  barns = barn_potential(two);
  EXPECT_EQ(barns[0], 8.0);
  EXPECT_EQ(barns[1], 8.0);
  EXPECT_EQ(parse_mcts_options("barns=0.5").rollout.barn_weight, 0.5);
  EXPECT_EQ(parse_mcts_options("").rollout.barn_weight, 0.0);
}

TEST(Arena, CountsDecisionsByKind) {
  Position p;
  p.tiles = {{"base.D-start", Cell{0, 0}, 0}};
  p.bag = std::vector<std::string>{"base.E"};
  State s = State::from_position(p);
  s.apply(s.parse_action("draw base.E"));
  EXPECT_EQ(move_kind(s, s.parse_action("place 0,-1 r2")), "place");
  s.apply(s.parse_action("place 0,-1 r2"));
  EXPECT_EQ(move_kind(s, s.parse_action("meeple field#1")), "meeple field");
  EXPECT_EQ(move_kind(s, s.parse_action("pass")), "pass");
}

int farmers_on_board(const State& s) {
  int n = 0;
  for (int i = 0; i < s.num_placed_figures(); ++i)
    n += s.placed_figure(i).kind != FigureKind::Barn &&
         s.features()[s.features().root(s.placed_figure(i).segment)].type == FeatureType::Field;
  return n;
}

TEST(Fields, CutoffRolloutsWithoutFarmersPlaceNone) {
  // The evaluator plays its rollout on the state it is given: count the farmers it leaves.
  RolloutConfig config;
  config.cutoff_turns = 30;
  int with = 0, without = 0;
  for (uint64_t seed = 0; seed < 20; ++seed) {
    Config c;
    c.seed = seed;
    Evaluation out;
    Rng rng(seed);
    State a(c), b(c);
    config.rollout_farmers = true;
    RolloutEvaluator(config).evaluate(a, rng, out);
    with += farmers_on_board(a);
    config.rollout_farmers = false;
    RolloutEvaluator(config).evaluate(b, rng, out);
    without += farmers_on_board(b);
    EXPECT_FALSE(b.is_terminal());  // stopped at the cutoff
  }
  EXPECT_GT(with, 0);
  EXPECT_EQ(without, 0);
}

TEST(Fields, OptionsParseAndDefaultToTheAcceptedCandidate) {
  const MctsConfig defaults;  // issue 22's candidate, accepted at 0.2 s a move
  EXPECT_EQ(defaults.rollout.field_weight, 0.5);
  EXPECT_FALSE(defaults.rollout.rollout_farmers);
  EXPECT_EQ(defaults.rollout.prior_field_weight, 0.0);
  MctsConfig old = parse_mcts_options("fields=0,farmers=1");
  EXPECT_EQ(old.rollout.field_weight, 0.0);
  EXPECT_TRUE(old.rollout.rollout_farmers);
  MctsConfig c = parse_mcts_options("fields=0.5,farmers=0,pfields=1");
  EXPECT_EQ(c.rollout.field_weight, 0.5);
  EXPECT_FALSE(c.rollout.rollout_farmers);
  EXPECT_EQ(c.rollout.prior_field_weight, 1.0);
  EXPECT_THROW(parse_mcts_options("fields=-1"), SearchError);
  EXPECT_THROW(parse_mcts_options("farmers=2"), SearchError);
}

}  // namespace
}  // namespace carc
