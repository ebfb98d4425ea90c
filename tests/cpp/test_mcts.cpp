// MCTS tests: constructed positions with one right answer, determinism, the search's
// independence from the game's own PRNG, parallel bookkeeping, reuse, memory caps, cancellation,
// complete games for every player count, and agent specs (the arena's tests: test_arena.cpp).
// Every search runs on an iteration budget (no clock in any assertion).
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/game.h"
#include "position_builder.h"
#include "search/agents.h"
#include "search/arena.h"
#include "search/batched.h"
#include "search/evaluator.h"
#include "search/mcts.h"
#include "search/playout.h"
#include "search/tree.h"

namespace carc {
namespace {

MctsConfig iterations(uint64_t n, int threads = 1) {
  MctsConfig c;
  c.iterations = n;
  c.threads = threads;
  c.memory_mb = 64;
  return c;
}

// The start tile alone (city north, road east-west); base.E (a city on one side) is the last
// tile in the bag and player `mover` is about to place it, trailing the leader by 3 points.
// Only "place 0,-1 r2" (closing the 2-tile city) then "meeple city#0" (4 points) wins outright;
// a farmer there ties on 3, anything else loses.
State last_tile_position(int players, int mover) {
  Position p;
  p.config.players = players;
  p.tiles = {{"base.D-start", Cell{0, 0}, 0}};
  p.scores.assign(size_t(players), 3);
  p.scores[size_t(mover)] = 0;
  p.bag = std::vector<std::string>{"base.E"};
  p.current_player = mover;
  State s = State::from_position(p);
  s.apply(s.parse_action("draw base.E"));
  return s;
}

// A state `turns` turns into a random 2-player game, at a decision node.
State random_position(uint64_t seed, int turns, int players = 2) {
  Config c;
  c.seed = seed;
  c.players = players;
  State s(c);
  Rng rng(seed);
  while (!s.is_terminal() && (s.turn_number() < turns || s.is_chance())) {
    if (s.is_chance()) s.apply(s.sample_chance());
    else s.apply(s.sample_legal_action(rng));
  }
  return s;
}

std::string best_move(const State& s, const MctsConfig& config, uint64_t seed = 1) {
  SearchResult r = analyse(s, config, seed);
  return s.action_to_string(r.best);
}

// Every mix the fast paths are compared in: each expansion alone, and everything together with
// either start.
struct Mix {
  const char* name;
  int players;
  std::vector<std::string> expansions;
  bool has(const std::string& expansion) const {
    return std::find(expansions.begin(), expansions.end(), expansion) != expansions.end();
  }
  // The first position of this mix's game dealt from `seed`.
  State game(uint64_t seed) const {
    Config config;
    config.players = players;
    config.expansions = expansions;
    config.seed = seed;
    return State(config);
  }
};
const std::vector<Mix> kEveryMix = {
    {"base", 2, {}},
    {"abbey-mayor", 3, {"abbey-mayor"}},
    {"city", 2, {"city"}},
    {"king-robber", 4, {"king-robber"}},
    {"shrines", 2, {"shrines"}},
    {"river2", 3, {"river2"}},
    {"anniv20", 2, {"anniv20"}},
    {"everything (city)", 4, {"abbey-mayor", "anniv20", "king-robber", "shrines", "city"}},
    {"everything (river2)", 2, {"abbey-mayor", "anniv20", "king-robber", "shrines", "river2"}},
};

TEST(MctsSearch, FindsTheOnlyWinningMoveOnTheLastTile) {
  for (uint64_t seed : {1, 2, 3}) {
    State s = last_tile_position(2, 0);
    EXPECT_EQ(best_move(s, iterations(400), seed), "place 0,-1 r2");
    s.apply(s.parse_action("place 0,-1 r2"));
    SearchResult r = analyse(s, iterations(200), seed);
    EXPECT_EQ(s.action_to_string(r.best), "meeple city#0");
    // The estimates know the outcome: a sure win for the mover (and a win by one point is
    // worth a little more than the tie that the farmer gives, under the margin reward too).
    EXPECT_NEAR(r.actions.front().win[0], 1.0, 1e-6);
    EXPECT_GT(r.actions.front().value, 0.5);
  }
}

TEST(MctsSearch, GreedyPriorsPutTheWinningMoveFirst) {
  // PUCT's greedy priors are a softmax of GreedyAgent's one-ply values: on the last tile the
  // placement that closes the city (then the meeple on it) has the largest prior, and a colder
  // softmax gives it more.
  State s = last_tile_position(2, 0);
  MctsConfig c = parse_mcts_options("select=puct,prior=greedy,iters=50");
  auto top_prior = [](const SearchResult& r, const State& at) {
    auto best = std::max_element(r.actions.begin(), r.actions.end(),
                                 [](const ActionStats& a, const ActionStats& b) { return a.prior < b.prior; });
    double sum = 0;
    for (const ActionStats& a : r.actions) sum += a.prior;
    EXPECT_NEAR(sum, 1.0, 1e-5);
    return std::make_pair(at.action_to_string(best->action), best->prior);
  };
  auto [placement, warm] = top_prior(analyse(s, c), s);
  EXPECT_EQ(placement, "place 0,-1 r2");
  EXPECT_GT(warm, 1.5 / double(analyse(s, c).actions.size()));
  c.rollout.prior_temperature = 0.5;
  EXPECT_GT(top_prior(analyse(s, c), s).second, warm);
  s.apply(s.parse_action("place 0,-1 r2"));
  EXPECT_EQ(top_prior(analyse(s, c), s).first, "meeple city#0");
  // Greedy priors are the default; uniform ones on request.
  EXPECT_EQ(top_prior(analyse(s, parse_mcts_options("iters=50")), s).first, "meeple city#0");
  SearchResult uniform = analyse(s, parse_mcts_options("prior=uniform,iters=50"));
  for (const ActionStats& a : uniform.actions) EXPECT_NEAR(a.prior, 1.0 / double(uniform.actions.size()), 1e-6);
}

TEST(MctsSearch, DecidesForTheCurrentPlayerWhoeverThatIs) {
  // Three players, the third to move: max^n must maximise player 2's value, not seat 0's.
  State s = last_tile_position(3, 2);
  EXPECT_EQ(s.current_player(), 2);
  EXPECT_EQ(best_move(s, iterations(600)), "place 0,-1 r2");
  s.apply(s.parse_action("place 0,-1 r2"));
  SearchResult r = analyse(s, iterations(300));
  EXPECT_EQ(r.player, 2);
  EXPECT_EQ(s.action_to_string(r.best), "meeple city#0");
  EXPECT_NEAR(r.actions.front().win[2], 1.0, 1e-6);
  EXPECT_NEAR(r.actions.front().win[0] + r.actions.front().win[1], 0.0, 1e-6);
}

TEST(MctsSearch, GrabsAClosedCityWithMoreTilesToCome) {
  // The same city, closable now for 4 points with the meeple back at once, while 8 more tiles
  // are in the bag: grabbing it beats every other use of the turn.
  for (int players : {2, 4}) {
    Position p;
    p.config.players = players;
    p.tiles = {{"base.D-start", Cell{0, 0}, 0}};
    p.bag = std::vector<std::string>{"base.E", "base.U", "base.V", "base.B", "base.U",
                                     "base.V", "base.W", "base.K", "base.D"};
    State s = State::from_position(p);
    s.apply(s.parse_action("draw base.E"));
    EXPECT_EQ(best_move(s, iterations(3000)), "place 0,-1 r2") << players << " players";
    s.apply(s.parse_action("place 0,-1 r2"));
    EXPECT_EQ(best_move(s, iterations(1500)), "meeple city#0") << players << " players";
  }
}

// The start tile's city is closed (base.E), nobody holds anything, and player 1 is about to
// place the last tile, a straight road (base.U). At the end a farmer next to the closed city
// scores 3 (RULES B-9), a meeple on a road extending the start road 2, and every placement touches
// either that field or the worthless one south of the start road.
State last_road_position() {
  Position p;
  p.tiles = {{"base.D-start", Cell{0, 0}, 0}, {"base.E", Cell{0, -1}, 2}};
  p.bag = std::vector<std::string>{"base.U"};
  p.current_player = 1;
  State s = State::from_position(p);
  s.apply(s.parse_action("draw base.U"));
  return s;
}

TEST(GreedyAgent, OnTheLastTileTakesWhatFinalScoringPaysMost) {
  for (uint64_t seed = 0; seed < 20; ++seed) {
    State s = last_road_position();
    GreedyAgent greedy;
    Rng rng(seed);
    s.apply(greedy.choose(s, rng));
    s.apply(greedy.choose(s, rng));
    ASSERT_TRUE(s.is_terminal());
    EXPECT_EQ(s.score(1), 3) << "seed " << seed;
    EXPECT_EQ(s.score(0), 0);
  }
}

TEST(GreedyAgent, FeaturePotentialCountsEveryOccupiedUnfinishedFeature) {
  // feature_potential walks the placed figures; here every segment is scanned instead, through
  // games with every expansion (mayors, wagons, barns, pairs, the City) and 4 players.
  std::vector<std::string> all;
  for (const ExpansionInfo& e : known_expansions())
    if (e.supported && std::string(e.name) != "river2") all.push_back(e.name);
  int checked = 0, occupied = 0;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Config c;
    c.players = 4;
    c.seed = seed;
    c.expansions = all;
    State s(c);
    Rng rng(seed);
    while (!s.is_terminal()) {
      std::array<double, kMaxPlayers> scanned{};
      const Features& f = s.features();
      for (int i = 0; i < f.size(); ++i) {
        const Segment& seg = f[i];
        if (seg.root != i || !seg.occupants || seg.done || seg.type == FeatureType::Field) continue;
        ++occupied;
        int best = *std::max_element(seg.meeples.begin(), seg.meeples.end());
        double value = seg.type == FeatureType::City   ? 2.0 * (seg.tiles + seg.pennants)
                       : seg.type == FeatureType::Road ? double(seg.tiles)
                                                       : 9.0 - seg.open;
        for (int q = 0; q < 4; ++q) scanned[size_t(q)] += seg.meeples[size_t(q)] == best ? value : 0.0;
      }
      ASSERT_EQ(feature_potential(s), scanned) << "turn " << s.turn_number();
      ++checked;
      s.apply(s.is_chance() ? s.sample_chance() : rng.below(2) ? greedy_action(s, rng) : s.sample_legal_action(rng));
    }
  }
  EXPECT_GT(checked, 1000);
  EXPECT_GT(occupied, 10000);  // most positions have several occupied features
}

// greedy_values values most figure options from the state after "pass", and the placements of a
// player without figures that touch no figure by the node's own value, without playing them.
// Here every action and every figure option is played on a copy instead (one_ply_values with
// GreedyAgent::evaluate, as greedy_values was first written), at every decision node of games of
// every mix, with and without fields in the valuation (the priors' pfields=): the same values,
// bit for bit.
TEST(GreedyAgent, GreedyValuesEqualPlayingEveryOptionInEveryMix) {
  for (const Mix& mix : kEveryMix) {
    int placements = 0, figure_nodes = 0;
    for (uint64_t seed = 0; seed < 8; ++seed) {
      State s = mix.game(seed);
      Rng rng(seed);
      while (!s.is_terminal()) {
        if (!s.is_chance()) {
          Action actions[kMaxActions];
          const int n = s.legal_actions(actions);
          placements += s.phase() == Phase::PlaceTile;
          figure_nodes += s.phase() == Phase::PlaceFigure;
          for (double field_weight : {0.0, 0.5}) {
            double fast[kMaxActions], played[kMaxActions];
            greedy_values(s, actions, n, fast, field_weight);
            one_ply_values(s, actions, n, played,
                           [&](const State& after, int me) { return GreedyAgent::evaluate(after, me, field_weight); });
            for (int i = 0; i < n; ++i)
              ASSERT_EQ(fast[i], played[i])
                  << mix.name << " seed " << seed << " turn " << s.turn_number() << " field_weight " << field_weight
                  << ": " << s.action_to_string(actions[i]) << "\n"
                  << s.to_string();
          }
        }
        s.apply(s.is_chance() ? s.sample_chance() : rng.below(2) ? greedy_action(s, rng) : s.sample_legal_action(rng));
      }
    }
    EXPECT_GT(placements, 100) << mix.name;
    EXPECT_GT(figure_nodes, 50) << mix.name;
  }
}

// After a tile the figure phase is skipped when the mover has no figure option; without Abbey &
// Mayor and an arrow's figure, a test of the tile's features alone decides (enter_figure_phase).
// At every placement of games of every mix, played on a copy: a figure phase it enters offers a
// figure, and one it skips, for a mover with a meeple, leaves every feature of the tile that a
// figure may stand on with a figure or scored this turn (a free one would have been an option).
TEST(FigurePhase, SkippedExactlyWhenTheTileOffersNoFigureInEveryMix) {
  const Catalogue& catalogue = Catalogue::builtin();
  for (const Mix& mix : kEveryMix) {
    int entered = 0, skipped = 0;
    for (uint64_t seed = 0; seed < 30; ++seed) {
      State s = mix.game(seed);
      Rng rng(seed);
      while (!s.is_terminal()) {
        if (s.phase() == Phase::PlaceTile) {
          const TileKind& kind = catalogue.kind(s.drawn_tile());
          const int mover = s.current_player(), slot = s.board().num_tiles();
          Action actions[kMaxActions];
          const int n = s.legal_actions(actions);
          for (int i = 0; i < n; ++i) {
            State next = s;
            next.apply(actions[i]);
            const std::string where = std::string(mix.name) + " seed " + std::to_string(seed) + " turn " +
                                      std::to_string(s.turn_number()) + ": " + s.action_to_string(actions[i]);
            if (next.phase() == Phase::PlaceFigure && next.last_slot() == slot) {
              ++entered;
              Action figures[kMaxActions];
              ASSERT_GT(next.legal_actions(figures), 1) << where << ": a figure phase with nothing but pass";
              continue;
            }
            // An arrow's choice comes first; a volcano ends the turn (RV-5); Abbey & Mayor's other
            // figures are options of their own.
            if (next.phase() == Phase::ArrowChoice || kind.river_sides || mix.has("abbey-mayor")) continue;
            if (s.supply(mover) == 0) continue;
            ++skipped;
            const PlacedTile& t = next.board().tile(slot);
            for (unsigned segments = kind.figure_segments; segments; segments &= segments - 1) {
              const Segment& f = next.features().feature(t.first_segment + std::countr_zero(segments));
              ASSERT_TRUE(f.occupants > 0 || f.done) << where << ": skipped with a free feature";
            }
          }
        }
        s.apply(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
      }
    }
    EXPECT_GT(entered, 1000) << mix.name;
    if (!mix.has("abbey-mayor")) {
      EXPECT_GT(skipped, 50) << mix.name;
    }
  }
}

TEST(RolloutEvaluator, EndgameRuleLetsTheLastMoverGrabTheBestField) {
  // The road extends the start road; with endgame_tiles = 1 the last figure is the one that pays
  // most at final scoring, so every rollout ends 0 to 3. Uniformly random rollouts often place
  // no farmer, or the worthless one.
  State s = last_road_position();
  s.apply(s.parse_action("place 1,0 r0"));
  RolloutConfig endgame, random;
  endgame.endgame_tiles = 1;
  random.endgame_tiles = 0;
  RolloutEvaluator greedy_end(endgame), plain(random);
  Rng rng(9);
  int grabs = 0, plain_grabs = 0;
  for (int i = 0; i < 50; ++i) {
    Evaluation a, b;
    State x = s, y = s;
    greedy_end.evaluate(x, rng, a);
    plain.evaluate(y, rng, b);
    EXPECT_EQ(x.score(1), 3);
    EXPECT_EQ(x.score(0), 0);
    grabs += a.win[1] == 1.0f;
    plain_grabs += b.win[1] == 1.0f;
  }
  EXPECT_EQ(grabs, 50);
  EXPECT_LT(plain_grabs, 50);
}

TEST(RolloutEvaluator, NearTheEndRolloutsPlayToFinalScoringPastTheCutoff) {
  const State s = random_position(5, 55);
  ASSERT_GT(s.bag_size(), 2);
  RolloutConfig config;
  config.cutoff_turns = 2;
  Rng rng(3);
  for (int finish : {0, s.bag_size() - 1, s.bag_size()}) {
    config.finish_tiles = finish;
    State x = s;
    Evaluation e;
    RolloutEvaluator(config).evaluate(x, rng, e);
    EXPECT_EQ(x.is_terminal(), finish >= s.bag_size()) << "finish_tiles " << finish;
  }
}

// The rollout's figure step before State::legal_actions_without_farmers: every legal action
// listed, the farmers (a figure other than a barn on a field of the new tile) dropped.
Action figure_without_farmer_by_listing(const State& state, Rng& rng) {
  Action actions[kMaxActions];
  int n = state.legal_actions(actions), kept = 0;
  const Features& f = state.features();
  const PlacedTile& tile = state.board().tile(state.last_slot());
  for (int i = 0; i < n; ++i) {
    Action a = actions[i];
    bool farmer = a.kind() == ActionKind::Figure && a.figure_kind() != FigureKind::Barn && !(a.code & (1u << 12)) &&
                  tile.first_segment + a.feature() < f.size() &&
                  f.feature(tile.first_segment + a.feature()).type == FeatureType::Field;
    if (!farmer) actions[kept++] = a;
  }
  return kept ? actions[rng.below(uint32_t(kept))] : actions[rng.below(uint32_t(n))];
}

// figure_without_farmer chooses what listing every action and dropping the farmers chose, with
// the same draws of the rng (so every search's statistics stay the same), at every figure
// decision of games of every mix, for several rng states each.
TEST(RolloutEvaluator, FigureWithoutFarmerChoosesAsListingEveryActionDid) {
  for (const Mix& mix : kEveryMix) {
    int figure_nodes = 0, without_farmers = 0, barns = 0, elsewhere = 0;
    for (uint64_t seed = 0; seed < 6; ++seed) {
      State s = mix.game(seed);
      Rng play(seed), choose(seed + 100);
      while (!s.is_terminal()) {
        if (s.phase() == Phase::PlaceFigure) {
          ++figure_nodes;
          Action actions[kMaxActions];
          const int n = s.legal_actions(actions), kept = s.legal_actions_without_farmers(actions);
          without_farmers += kept < n;
          for (int i = 0; i < n; ++i) {
            barns += actions[i].kind() == ActionKind::Figure && actions[i].figure_kind() == FigureKind::Barn;
            elsewhere += actions[i].kind() == ActionKind::Figure && actions[i].elsewhere();
          }
          for (int draw = 0; draw < 8; ++draw, choose.next()) {
            Rng reference = choose, fast = choose;
            const Action listed = figure_without_farmer_by_listing(s, reference);
            ASSERT_EQ(figure_without_farmer(s, fast), listed)
                << mix.name << " seed " << seed << " turn " << s.turn_number() << ": " << s.action_to_string(listed)
                << "\n"
                << s.to_string();
            ASSERT_EQ(fast.next(), reference.next()) << mix.name << " seed " << seed << ": not the same draws";
          }
        }
        s.apply(s.is_chance()   ? s.sample_chance()
                : play.below(2) ? greedy_action(s, play)
                                : s.sample_legal_action(play));
      }
    }
    EXPECT_GT(figure_nodes, 100) << mix.name;
    EXPECT_GT(without_farmers, 20) << mix.name;
    // Barns (abbey-mayor) and figures elsewhere (anniv20's arrows) among the options.
    EXPECT_EQ(barns > 0, mix.has("abbey-mayor")) << mix.name;
    EXPECT_EQ(elsewhere > 0, mix.has("anniv20")) << mix.name;
  }
}

// stratified_outcome (the search's chance selection) chooses what summing the outcomes' visits
// first and then finding the one furthest below its share chose, whether the caller's guess of
// their total is right (one pass) or wrong, at every chance node of games of every mix with
// visits and iterations in flight drawn at random.
TEST(MctsSearch, StratifiedOutcomeChoosesAsSummingTheVisitsFirst) {
  auto summing_first = [](const Node* outcomes, int n) {
    auto visits_of = [&](int i) {
      const uint64_t counts = outcomes[i].counts.load();
      return float(Node::visits_in(counts) + Node::in_flight_in(counts));
    };
    float total = 0;
    for (int i = 0; i < n; ++i) total += visits_of(i);
    int best = 0;
    float best_gap = -1e30f;
    for (int i = 0; i < n; ++i) {
      const float gap = outcomes[i].prior * (total + 1.0f) - visits_of(i);
      if (gap > best_gap) best_gap = gap, best = i;
    }
    return best;
  };
  NodePool pool(kMaxActions * sizeof(Node));
  for (const Mix& mix : kEveryMix) {
    int chance_nodes = 0;
    for (uint64_t seed = 0; seed < 3; ++seed) {
      State s = mix.game(seed);
      Rng rng(seed);
      while (!s.is_terminal()) {
        if (s.is_chance()) {
          ++chance_nodes;
          Action actions[kMaxActions];
          float probabilities[kMaxActions];
          const int n = chance_outcomes(s, actions, probabilities);
          for (int round = 0; round < 4; ++round) {
            pool.clear();
            Node* outcomes = &pool[pool.allocate(uint32_t(n), actions, probabilities)];
            uint64_t total = 0;
            for (int i = 0; i < n; ++i) {
              // Visits near each outcome's share of a few hundred, some with iterations in flight.
              const uint64_t visits = uint64_t(probabilities[i] * 300) + rng.below(3), in_flight = rng.below(4) / 3;
              outcomes[i].counts.store(visits + in_flight * Node::kInFlight);
              total += visits + in_flight;
            }
            const int expected = summing_first(outcomes, n);
            ASSERT_EQ(stratified_outcome(outcomes, n, int64_t(total)), expected) << mix.name << " seed " << seed;
            ASSERT_EQ(stratified_outcome(outcomes, n, int64_t(total + 1)), expected) << mix.name << " seed " << seed;
            ASSERT_EQ(stratified_outcome(outcomes, n, -1), expected) << mix.name << " seed " << seed;
          }
        }
        s.apply(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
      }
    }
    EXPECT_GT(chance_nodes, 50) << mix.name;
  }
}

// sample_draw takes the tile at a uniform index of the bag's tiles in kind order (its counts
// walked eight kinds a step, the kind within the last word found from their prefix sums): the
// same kind as a walk one kind at a time, at every draw of games whose kinds span every set (the
// counts of the last kinds included) and for many draws.
TEST(RolloutEvaluator, SampleDrawTakesTheTileAtItsIndexInKindOrder) {
  std::vector<std::string> all;
  for (const ExpansionInfo& e : known_expansions())
    if (e.supported && std::string(e.name) != "river2") all.push_back(e.name);
  int draws = 0;
  for (const std::vector<std::string>& expansions : {std::vector<std::string>{}, all}) {
    Config c;
    c.seed = 7;
    c.expansions = expansions;
    State s(c);
    Rng play(7), draw(11);
    while (!s.is_terminal()) {
      if (!s.is_chance()) {
        s.apply_unchecked(s.sample_legal_action(play));
        continue;
      }
      ASSERT_TRUE(s.draws_any_tile());
      for (int i = 0; i < 50; ++i, ++draws) {
        Rng reference = draw;
        int r = int(reference.below(uint32_t(s.bag_size())));
        int kind = 0;
        while ((r -= s.bag_count(KindId(kind))) >= 0) ++kind;
        ASSERT_EQ(sample_draw(s, draw), Action::draw(kind)) << "a bag of " << s.bag_size() << " tiles";
      }
      s.apply_unchecked(sample_draw(s, draw));
    }
  }
  EXPECT_GT(draws, 5000);
}

TEST(MctsSearch, SameSeedSameSearchInSingleThreadMode) {
  State s = random_position(7, 12);
  MctsConfig c = iterations(500);
  SearchResult a = analyse(s, c, 42), b = analyse(s, c, 42);
  ASSERT_EQ(a.actions.size(), b.actions.size());
  EXPECT_EQ(a.best, b.best);
  for (size_t i = 0; i < a.actions.size(); ++i) {
    EXPECT_EQ(a.actions[i].action, b.actions[i].action);
    EXPECT_EQ(a.actions[i].visits, b.actions[i].visits);
    EXPECT_EQ(a.actions[i].value, b.actions[i].value);
  }
  // The agent too: the same rng state gives the same move.
  for (int round = 0; round < 2; ++round) {
    auto x = make_agent("mcts:iters=300,memory=16"), y = make_agent("mcts:iters=300,memory=16");
    Rng r1(5), r2(5);
    EXPECT_EQ(x->choose(s, r1), y->choose(s, r2));
  }
}

TEST(MctsSearch, NeverUsesTheGamesOwnRandomStream) {
  // Two games with different seeds (so different internal PRNGs, hence different future draws
  // from sample_chance) brought to the same position: the search must not tell them apart.
  Config ca, cb;
  ca.seed = 1;
  cb.seed = 999;
  State a(ca), b(cb);
  Rng rng(3);
  while (a.turn_number() < 10 || a.is_chance()) {
    Action x = a.is_chance() ? a.sample_chance() : a.sample_legal_action(rng);
    a.apply(x);
    b.apply(x);
  }
  auto next_draws = [](State s) {  // the next draws by the game's own PRNG, placing anywhere
    std::vector<uint32_t> out;
    Rng r(1);
    while (out.size() < 6 && !s.is_terminal()) {
      if (s.is_chance()) {
        Action d = s.sample_chance();
        out.push_back(d.code);
        s.apply(d);
      } else {
        s.apply(s.sample_legal_action(r));
      }
    }
    return out;
  };
  ASSERT_NE(next_draws(a), next_draws(b)) << "pick seeds whose future draws differ";
  MctsConfig c = iterations(400);
  SearchResult ra = analyse(a, c, 11), rb = analyse(b, c, 11);
  ASSERT_EQ(ra.actions.size(), rb.actions.size());
  for (size_t i = 0; i < ra.actions.size(); ++i) {
    EXPECT_EQ(ra.actions[i].action, rb.actions[i].action);
    EXPECT_EQ(ra.actions[i].visits, rb.actions[i].visits);
  }
}

TEST(MctsSearch, AnalysisCoversEveryLegalActionAndEveryPlayer) {
  for (int players : {2, 3}) {
    State s = random_position(3, 8, players);
    SearchResult r = analyse(s, iterations(800));
    std::vector<Action> legal = s.legal_actions();
    ASSERT_EQ(r.actions.size(), legal.size());
    uint64_t visits = 0;
    double mover_reward = 0;  // the root's mean reward for the mover: its children's, visit-weighted
    for (const ActionStats& a : r.actions) {
      visits += a.visits;
      mover_reward += a.value * a.visits;
      EXPECT_EQ(a.text, s.action_to_string(a.action));
      ASSERT_EQ(a.win.size(), size_t(players));
      EXPECT_GE(a.value, 0.0);
      EXPECT_LE(a.value, 1.0);
      if (a.visits) {
        EXPECT_NEAR(std::accumulate(a.win.begin(), a.win.end(), 0.0), 1.0, 1e-3);
      }
    }
    EXPECT_EQ(visits, r.iterations);
    EXPECT_EQ(r.iterations, 800u);
    EXPECT_TRUE(std::is_sorted(r.actions.begin(), r.actions.end(),
                               [](const ActionStats& x, const ActionStats& y) { return x.visits > y.visits; }));
    EXPECT_EQ(r.best, r.actions.front().action);
    EXPECT_NEAR(std::accumulate(r.win.begin(), r.win.end(), 0.0), 1.0, 1e-3);
    ASSERT_EQ(r.reward.size(), size_t(players));
    EXPECT_NEAR(r.reward[size_t(r.player)], mover_reward / double(visits), 1e-4);
    for (double x : r.reward) {
      EXPECT_GT(x, 0.0);  // margin rewards lie strictly inside (0, 1)
      EXPECT_LT(x, 1.0);
    }
  }
}

TEST(MctsSearch, ParallelSearchesCountEveryIterationOnce) {
  // Tree parallelism: statistics are lock-free atomics, so after the threads join, the root's
  // children hold exactly one visit per iteration. Root parallelism sums separate trees.
  State s = random_position(5, 20);
  for (Parallelism mode : {Parallelism::Tree, Parallelism::Root}) {
    MctsConfig c = iterations(3000, 2);
    c.parallelism = mode;
    SearchResult r = analyse(s, c);
    uint64_t visits = 0;
    for (const ActionStats& a : r.actions) visits += a.visits;
    EXPECT_EQ(r.iterations, 3000u);
    EXPECT_EQ(visits, 3000u);
    EXPECT_TRUE(s.is_legal(r.best));
  }
  // Root parallelism with an iteration budget is deterministic whatever the scheduling.
  MctsConfig c = iterations(1000, 2);
  c.parallelism = Parallelism::Root;
  SearchResult a = analyse(s, c, 9), b = analyse(s, c, 9);
  for (size_t i = 0; i < a.actions.size(); ++i) EXPECT_EQ(a.actions[i].visits, b.actions[i].visits);
}

TEST(MctsSearch, ReportsTheTimeItsPriorsTook) {
  // Greedy priors are computed at each expansion; the result says how long they took, part of
  // the threads' time. UCT computes none.
  State s = random_position(5, 20);
  for (int threads : {1, 2}) {
    SearchResult r = analyse(s, iterations(500, threads));
    EXPECT_GT(r.prior_seconds, 0.0);
    EXPECT_LE(r.prior_seconds, r.seconds * threads);
  }
  MctsConfig uct = iterations(500, 1);
  uct.selection = SelectionRule::Uct;
  EXPECT_EQ(analyse(s, uct).prior_seconds, 0.0);
}

TEST(MctsSearch, EveryOptionRuns) {
  State s = random_position(11, 30, 3);
  for (const char* spec :
       {"select=uct", "select=puct,c=1.5,prior=uniform", "ptemp=2", "chance=sample", "rollout=greedy",
        "rollout=greedy,eps=0.2", "cutoff=4", "eval=final", "eval=expected", "meeple=1.5", "endgame=0", "reward=margin",
        "reward=mixed,mix=0.3", "expand=4", "vl=3,threads=2", "parallel=root,threads=2", "reuse=0"}) {
    MctsConfig c = parse_mcts_options(std::string(spec) + ",iters=300");
    SearchResult r = analyse(s, c);
    EXPECT_TRUE(s.is_legal(r.best)) << spec;
    EXPECT_EQ(r.iterations, 300u) << spec;
  }
}

TEST(MctsSearch, ATinyPoolStopsGrowthNotTheSearch) {
  State s = random_position(2, 4);
  MctsConfig c = iterations(20000);
  c.memory_mb = 1;  // 21,845 nodes: full after a few hundred iterations
  SearchResult r = analyse(s, c);
  EXPECT_EQ(r.iterations, 20000u);
  EXPECT_LE(r.nodes, size_t(1048576 / sizeof(Node)));
  EXPECT_GT(r.nodes, size_t(1048576 / sizeof(Node)) * 9 / 10);
  EXPECT_TRUE(s.is_legal(r.best));
}

TEST(MctsSearch, KeepsTheSubtreeOfItsOwnMove) {
  State s = random_position(4, 6);
  MctsConfig c = iterations(2000);
  Mcts mcts(c);
  SearchResult first = mcts.search(s, 1);
  EXPECT_EQ(first.reused_visits, 0u);
  uint32_t best_visits = first.actions.front().visits;
  s.apply(first.best);
  ASSERT_FALSE(s.is_chance());  // the figure decision after the placement
  SearchResult second = mcts.search(s, 2);
  EXPECT_EQ(second.reused_visits, best_visits);
  // Visits carried over plus this search's iterations.
  uint64_t visits = 0;
  for (const ActionStats& a : second.actions) visits += a.visits;
  EXPECT_EQ(visits, best_visits - 1 + 2000);  // the first visit evaluated the node unexpanded
  // Far later positions are not in the tree: a fresh start.
  State later = random_position(4, 30);
  EXPECT_EQ(mcts.search(later, 3).reused_visits, 0u);
}

TEST(MctsSearch, AKeptSubtreeKeepsTheRewardsOfEveryPlayer) {
  // Players 2 and up have their reward sums beside the nodes (tree.h, MoreValues): the subtree
  // moved to the front of the pool takes them along. One new iteration then leaves the root's
  // mean rewards those of the kept visits, strictly inside (0, 1) for every player.
  State s = random_position(4, 6, 4);
  Mcts mcts(iterations(2000));
  SearchResult first = mcts.search(s, 1);
  s.apply(first.best);
  ASSERT_FALSE(s.is_chance());
  const std::atomic<bool> cancelled{true};  // a cancelled search still runs its first iteration
  SearchResult second = mcts.search(s, 2, &cancelled);
  EXPECT_EQ(second.iterations, 1u);
  ASSERT_GT(second.reused_visits, 100u);
  ASSERT_EQ(second.reward.size(), 4u);
  for (double x : second.reward) {
    EXPECT_GT(x, 0.05);
    EXPECT_LT(x, 0.95);
  }
}

TEST(MctsSearch, ReusesATreeOnlyForTheSamePosition) {
  // Two City positions alike in all but the quarter of player 0's meeple (CK-3): the tree of one
  // holds moves that may be illegal in the other, so it must not be reused (a reused tree once
  // replayed such moves and corrupted the rollouts' states).
  auto meeple_in = [](const std::string& quarter) {
    Position p = testing::described({"city"}, {}, {}, {"base.E", "base.U"});
    p.city = {{0, "meeple", quarter}};
    State s = State::from_position(p);
    testing::play(s, {"draw base.E"});
    return s;
  };
  Mcts mcts(iterations(300));
  EXPECT_EQ(mcts.search(meeple_in("castle"), 1).reused_visits, 0u);
  EXPECT_GT(mcts.search(meeple_in("castle"), 2).reused_visits, 0u);
  EXPECT_EQ(mcts.search(meeple_in("market"), 3).reused_visits, 0u);
}

TEST(MctsSearch, RejectsNodesWithoutADecision) {
  Config c;
  State s(c);
  ASSERT_TRUE(s.is_chance());
  EXPECT_THROW(analyse(s, iterations(10)), SearchError);
}

// Plays a whole game with MCTS in every seat and checks the result.
void play_mcts_game(const Config& config, const std::string& spec) {
  State s(config);
  std::vector<std::unique_ptr<Agent>> agents;
  for (int p = 0; p < config.players; ++p) agents.push_back(make_agent(spec));
  Rng rng(config.seed);
  int decisions = 0;
  while (!s.is_terminal()) {
    if (s.is_chance()) {
      s.apply(s.sample_chance());
      continue;
    }
    s.apply(agents[size_t(s.current_player())]->choose(s, rng));  // checked
    ++decisions;
  }
  s.check_consistency();
  EXPECT_GT(decisions, 50);
  std::vector<double> returns = s.returns();
  EXPECT_NEAR(std::accumulate(returns.begin(), returns.end(), 0.0), 1.0, 1e-9);
}

TEST(MctsGames, CompleteGamesForEveryPlayerCountWithEverySupportedExpansion) {
  // Every supported expansion at once, with either start: River II and the City exclude each
  // other (CK-0).
  std::vector<std::string> with_city, with_river;
  for (const ExpansionInfo& e : known_expansions()) {
    if (!e.supported) continue;
    if (std::string(e.name) != "river2") with_city.push_back(e.name);
    if (std::string(e.name) != "city") with_river.push_back(e.name);
  }
  for (int players = 2; players <= 6; ++players) {
    Config config;
    config.players = players;
    config.seed = uint64_t(players);
    play_mcts_game(config, "mcts:iters=10,memory=16");
    config.expansions = players % 2 ? with_river : with_city;
    play_mcts_game(config, "mcts:iters=10,memory=16");
  }
  Config config;
  config.expansions = with_city;
  play_mcts_game(config, "mcts:iters=20,threads=2,memory=16");
}

TEST(MctsAgentSpec, ParsesOptionsAndRejectsMistakes) {
  EXPECT_EQ(make_agent("mcts")->name(), "mcts");
  MctsConfig c = parse_mcts_options("time=0.5,threads=2,select=puct,c=1.2,chance=sample,rollout=greedy,eps=0.1");
  EXPECT_EQ(c.seconds, 0.5);
  EXPECT_EQ(c.iterations, 0u);  // a time budget alone
  EXPECT_EQ(c.threads, 2);
  EXPECT_EQ(c.selection, SelectionRule::Puct);
  EXPECT_EQ(c.exploration, 1.2);
  EXPECT_EQ(c.chance, ChanceMode::Sample);
  EXPECT_EQ(c.rollout.policy, RolloutPolicy::Greedy);
  EXPECT_EQ(parse_mcts_options("eval=final").rollout.heuristic, Heuristic::Final);
  EXPECT_EQ(parse_mcts_options("meeple=1.5").rollout.supply_value, 1.5);
  EXPECT_EQ(parse_mcts_options("endgame=3").rollout.endgame_tiles, 3);
  EXPECT_EQ(parse_mcts_options("prior=uniform").rollout.prior, PriorKind::Uniform);
  EXPECT_EQ(parse_mcts_options("").selection, SelectionRule::Puct);
  EXPECT_EQ(parse_mcts_options("").rollout.prior, PriorKind::Greedy);
  EXPECT_EQ(parse_mcts_options("select=uct").exploration, kUctExploration);
  EXPECT_EQ(parse_mcts_options("select=uct,c=1.1").exploration, 1.1);
  EXPECT_EQ(parse_mcts_options("ptemp=5").rollout.prior_temperature, 5.0);
  EXPECT_EQ(parse_mcts_options("iters=2000").iterations, 2000u);
  EXPECT_EQ(parse_mcts_options("time=1,iters=50").iterations, 50u);
  auto message = [](const std::string& spec) {
    try {
      make_agent(spec);
    } catch (const SearchError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("mcts:bogus=1").find("unknown mcts option 'bogus'"), std::string::npos);
  EXPECT_NE(message("mcts:iters=abc").find("iters=abc"), std::string::npos);
  EXPECT_NE(message("mcts:iters=0").find("iters=0"), std::string::npos);
  EXPECT_NE(message("mcts:threads").find("key=value"), std::string::npos);
  EXPECT_NE(message("mcts:select=minimax").find("uct, puct"), std::string::npos);
  EXPECT_NE(message("mcts:memory=0.01").find("memory"), std::string::npos);
  EXPECT_NE(message("mcts:meeple=-1").find("meeple=-1"), std::string::npos);
  EXPECT_NE(message("mcts:eval=perfect").find("greedy, final, expected"), std::string::npos);
  EXPECT_NE(message("mcts:prior=network").find("uniform, greedy"), std::string::npos);
  EXPECT_NE(message("mcts:ptemp=0").find("ptemp=0"), std::string::npos);
  EXPECT_NE(message("greedy:iters=5").find("takes no options"), std::string::npos);
  EXPECT_NE(message("mcts:iters=5,iters=6").find("mcts option 'iters' is given twice ('iters=5,iters=6')"),
            std::string::npos);
  EXPECT_NE(message("mcts:c=1,time=1,c=1").find("'c' is given twice"), std::string::npos);
  EXPECT_NE(message("alphago").find("unknown agent 'alphago'"), std::string::npos);
}

TEST(MctsAgentSpec, TheOptionTableDrivesParsingErrorsAndDocs) {
  auto message = [](const std::string& options) {
    try {
      parse_mcts_options(options);
    } catch (const SearchError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::vector<MctsOptionInfo> options = mcts_options();
  ASSERT_EQ(options.size(), 36u);
  for (const MctsOptionInfo& o : options) {
    EXPECT_FALSE(o.help.empty()) << o.key;
    // A bad value's error names the option and what it accepts.
    EXPECT_NE(message(o.key + "=bogus").find("mcts option " + o.key + "=bogus: expected " + o.values),
              std::string::npos)
        << message(o.key + "=bogus");
  }
  auto find = [&](const std::string& key) {
    for (const MctsOptionInfo& o : options)
      if (o.key == key) return o;
    return MctsOptionInfo{};
  };
  EXPECT_EQ(find("iters").default_value, "1000");
  EXPECT_EQ(find("iters").values, "an integer in [1, 281474976710656]");
  EXPECT_EQ(find("vl").values, "a number in [0, 1000]");
  EXPECT_EQ(find("select").default_value, "puct");
  EXPECT_EQ(find("reuse").default_value, "1");
  EXPECT_EQ(find("ptemp").default_value, "3");
  EXPECT_EQ(find("blend").values, "a number in [0, 1]");
  EXPECT_EQ(find("blendby").default_value, "file");
  EXPECT_EQ(find("blendby").values, "one of file, mean, sample");
  EXPECT_NE(message("vl=-1").find("vl=-1: expected a number in [0, 1000]"), std::string::npos);
  EXPECT_NE(message("wizard=1").find("(known: time, iters, threads,"), std::string::npos);
}

TEST(MctsAgentSpec, AgentListsKeepEachAgentsOptionsTogether) {
  using List = std::vector<std::string>;
  EXPECT_EQ(split_agent_list("greedy,mcts:iters=50,c=1"), (List{"greedy", "mcts:iters=50,c=1"}));
  EXPECT_EQ(split_agent_list("mcts:iters=100,c=1,greedy"), (List{"mcts:iters=100,c=1", "greedy"}));
  EXPECT_EQ(split_agent_list(" random , mcts:iters=5, c=1 ,mcts:time=1 "),
            (List{"random", "mcts:iters=5,c=1", "mcts:time=1"}));
  EXPECT_EQ(split_agent_list("greedy"), (List{"greedy"}));
  EXPECT_EQ(split_agent_list("wizard,greedy"), (List{"wizard", "greedy"}));  // names are make_agent's to check
  auto message = [](const std::string& list) {
    try {
      split_agent_list(list);
    } catch (const SearchError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message("c=1,greedy"),
            "agent list 'c=1,greedy': option 'c=1' follows no agent (options follow a colon: mcts:key=value,...)");
  EXPECT_EQ(message("greedy,c=1"),
            "agent list 'greedy,c=1': option 'c=1' follows 'greedy', which has no options "
            "(options follow a colon: mcts:key=value,...)");
  EXPECT_EQ(message("greedy,,random"), "agent list 'greedy,,random': an empty agent name");
  EXPECT_EQ(message("greedy,"), "agent list 'greedy,': an empty agent name");
  EXPECT_EQ(message(""), "agent list '': an empty agent name");
  // Every item starts an agent unless it is key=value: the lists the issue names play.
  Config rules;
  EXPECT_GT(play_game(rules, split_agent_list("greedy,mcts:iters=50,c=1"), 1).tiles_placed, 0);
}

TEST(Cancel, AFlagSetBeforehandStopsASearchAfterItsFirstIteration) {
  State s = random_position(4, 6);
  for (int threads : {1, 2}) {
    std::atomic<bool> cancel{true};
    Mcts mcts(iterations(3000, threads));
    SearchResult r = mcts.search(s, 1, &cancel);
    EXPECT_GE(r.iterations, 1u);
    EXPECT_LE(r.iterations, uint64_t(threads));  // each thread's first claim is granted at most
    EXPECT_TRUE(s.is_legal(r.best));
    cancel.store(false);  // the same tree then searches its whole budget
    EXPECT_EQ(mcts.search(s, 1, &cancel).iterations, 3000u);
  }
}

// ---- Batched evaluators (search/batched.h) -------------------------------------------------------

// Values every leaf at 0.5 for all (so only exact terminal values tell moves apart), optionally
// puts its prior on one action, records what it was given, and throws on call `throw_on`.
class FakeBatchEvaluator final : public BatchEvaluator {
 public:
  explicit FakeBatchEvaluator(int batch, const std::string& favoured = "")
      : BatchEvaluator(batch, RolloutConfig{}), favoured_(favoured) {}
  void evaluate_batch(std::vector<LeafRequest>& leaves) const override {
    ++calls;
    if (calls == throw_on) throw std::runtime_error("evaluator failed");
    sizes.push_back(int(leaves.size()));
    for (LeafRequest& r : leaves) {
      if (r.state->is_terminal() || r.state->is_chance()) ++bad_leaves;
      r.value->reward.fill(0.5f);
      r.value->win.fill(0.5f);
      if (!r.want_priors) continue;
      for (int i = 0; i < r.num_actions; ++i) {
        const bool liked = !favoured_.empty() && r.state->action_to_string(r.actions[i]) == favoured_;
        r.priors[i] = favoured_.empty() ? 1.0f / float(r.num_actions) : liked ? 0.9f : 0.1f / float(r.num_actions - 1);
      }
    }
  }
  mutable int calls = 0, throw_on = -1, bad_leaves = 0;
  mutable std::vector<int> sizes;

 private:
  std::string favoured_;
};

MctsConfig batched(uint64_t n, const std::shared_ptr<const Evaluator>& evaluator) {
  MctsConfig c = iterations(n);
  c.evaluator = evaluator;
  return c;
}

uint64_t root_visits(const SearchResult& r) {
  uint64_t sum = 0;
  for (const ActionStats& a : r.actions) sum += a.visits;
  return sum;
}

TEST(BatchedSearch, TerminalLeavesAreExactSoTheOnlyWinningMoveIsFound) {
  State s = last_tile_position(2, 0);
  auto evaluator = std::make_shared<FakeBatchEvaluator>(8);
  SearchResult r = analyse(s, batched(400, evaluator), 1);
  EXPECT_EQ(s.action_to_string(r.best), "place 0,-1 r2");
  EXPECT_EQ(evaluator->bad_leaves, 0);  // never a terminal or chance node
  EXPECT_EQ(r.iterations, 400u);
  s.apply(s.parse_action("place 0,-1 r2"));
  evaluator->sizes.clear();
  r = analyse(s, batched(200, evaluator), 1);
  EXPECT_EQ(s.action_to_string(r.best), "meeple city#0");
  EXPECT_NEAR(r.actions.front().win[0], 1.0, 1e-6);
  EXPECT_EQ(evaluator->sizes, std::vector<int>{1});  // the root's priors: every child ends the game
}

TEST(BatchedSearch, EveryIterationCountsOnceAndGroupsHoldAtMostTheBatch) {
  State s = random_position(7, 12);
  for (int batch : {1, 16, 64}) {
    auto evaluator = std::make_shared<FakeBatchEvaluator>(batch);
    SearchResult r = analyse(s, batched(1000, evaluator), 3);
    EXPECT_EQ(r.iterations, 1000u);
    EXPECT_EQ(root_visits(r), 1000u);
    EXPECT_TRUE(s.is_legal(r.best));
    const int largest = *std::max_element(evaluator->sizes.begin(), evaluator->sizes.end());
    EXPECT_LE(largest, batch);
    EXPECT_EQ(largest > 1, batch > 1);  // a group holds several leaves once the tree has them
  }
}

TEST(BatchedSearch, PriorsSteerAndTheSameSeedGivesTheSameTree) {
  State s = random_position(5, 8);
  Action buffer[kMaxActions];
  const int n = s.legal_actions(buffer);
  ASSERT_GT(n, 2);
  const std::string favoured = s.action_to_string(buffer[n - 1]);
  auto run = [&] { return analyse(s, batched(300, std::make_shared<FakeBatchEvaluator>(16, favoured)), 9); };
  SearchResult a = run(), b = run();
  EXPECT_EQ(s.action_to_string(a.best), favoured);
  ASSERT_EQ(a.actions.size(), b.actions.size());
  for (size_t i = 0; i < a.actions.size(); ++i) {
    EXPECT_EQ(a.actions[i].action, b.actions[i].action);
    EXPECT_EQ(a.actions[i].visits, b.actions[i].visits);
  }
}

TEST(BatchedSearch, AFailingBatchLeavesTheTreeUsable) {
  State s = random_position(6, 10);
  auto evaluator = std::make_shared<FakeBatchEvaluator>(8);
  evaluator->throw_on = 5;
  Mcts mcts(batched(500, evaluator));
  EXPECT_THROW(mcts.search(s, 1), std::runtime_error);
  SearchResult r = mcts.search(s, 1);  // keeps the earlier groups' tree (reuse) and adds its budget
  EXPECT_EQ(r.iterations, 500u);
  EXPECT_EQ(root_visits(r), 500u + r.reused_visits);
  EXPECT_GT(r.reused_visits, 0u);
}

// Two threads on one tree: each keeps its share of the root's statistics and claims iterations
// a few at a time; the search runs its budget exactly, every visit reaches the root's children,
// and the root keeps the sum for the next search of the same position.
TEST(MctsSearch, TwoThreadsOnOneTreeCountEveryIterationOnce) {
  State s = random_position(5, 8);
  for (uint64_t budget : {3u, 37u, 2000u}) {
    Mcts mcts(iterations(budget, 2));
    SearchResult first = mcts.search(s, 1);
    EXPECT_EQ(first.iterations, budget);
    EXPECT_EQ(root_visits(first), budget);
    SearchResult again = mcts.search(s, 2);  // the same position: the whole tree is kept
    EXPECT_EQ(again.iterations, budget);
    EXPECT_EQ(again.reused_visits, budget);
    EXPECT_EQ(root_visits(again), 2 * budget);
  }
}

TEST(BatchedSearch, NeedsOneThread) {
  MctsConfig c = batched(100, std::make_shared<FakeBatchEvaluator>(8));
  c.threads = 2;
  EXPECT_THROW(Mcts{c}, SearchError);
}

// ---- search_many: many searches, one evaluator call per round of groups --------------------------

// A batched evaluator whose value and priors of a leaf depend on that leaf alone (its scores,
// tiles and actions), so that a search's tree does not depend on what else a call holds.
class LeafOnlyEvaluator final : public BatchEvaluator {
 public:
  explicit LeafOnlyEvaluator(int batch) : BatchEvaluator(batch, RolloutConfig{}) {}
  void evaluate_batch(std::vector<LeafRequest>& leaves) const override {
    sizes.push_back(int(leaves.size()));
    for (LeafRequest& r : leaves) {
      const State& s = *r.state;
      for (int p = 0; p < s.num_players(); ++p) {
        const int mix = (s.score(p) * 31 + s.board().num_tiles() * 7 + p * 13) % 17;
        r.value->reward[size_t(p)] = r.value->win[size_t(p)] = float(mix) / 16.0f;
      }
      if (!r.want_priors) continue;
      float sum = 0;
      for (int i = 0; i < r.num_actions; ++i) sum += r.priors[i] = float(1 + r.actions[i].code % 5);
      for (int i = 0; i < r.num_actions; ++i) r.priors[i] /= sum;
    }
  }
  mutable std::vector<int> sizes;
};

std::vector<State> positions(int n) {
  std::vector<State> out;
  for (int i = 0; i < n; ++i) out.push_back(random_position(100 + uint64_t(i), 4 + i % 12));
  return out;
}

std::vector<uint64_t> seeds_for(size_t n) {
  std::vector<uint64_t> seeds(n);
  std::iota(seeds.begin(), seeds.end(), uint64_t(50));
  return seeds;
}

TEST(SearchMany, OneCallHoldsTheLeavesOfEveryGame) {
  const std::vector<State> states = positions(64);
  auto evaluator = std::make_shared<FakeBatchEvaluator>(8);
  std::vector<SearchResult> results = search_many(states, batched(400, evaluator), seeds_for(states.size()));
  ASSERT_EQ(results.size(), states.size());
  for (size_t i = 0; i < states.size(); ++i) {
    EXPECT_EQ(results[i].iterations, 400u);
    EXPECT_EQ(root_visits(results[i]), 400u);
    EXPECT_TRUE(states[i].is_legal(results[i].best));
  }
  EXPECT_EQ(evaluator->bad_leaves, 0);
  ASSERT_GT(evaluator->sizes.size(), 1u);
  EXPECT_EQ(evaluator->sizes.front(), 64);  // the roots' priors, in one call
  const std::vector<int> groups(evaluator->sizes.begin() + 1, evaluator->sizes.end());
  EXPECT_LE(*std::max_element(groups.begin(), groups.end()), 64 * 8);
  const long leaves = std::accumulate(groups.begin(), groups.end(), 0L);
  EXPECT_GE(leaves / long(groups.size()), 256);  // leaves per call, on average
  // A search takes part in every call until its budget runs out; its result counts those calls
  // and every leaf they held.
  uint64_t most_calls = 0;
  for (const SearchResult& r : results) {
    ASSERT_LE(r.evaluator_calls, groups.size());
    EXPECT_EQ(r.evaluator_leaves,
              uint64_t(std::accumulate(groups.begin(), groups.begin() + long(r.evaluator_calls), 0L)));
    most_calls = std::max(most_calls, r.evaluator_calls);
  }
  EXPECT_EQ(most_calls, groups.size());
}

TEST(SearchMany, EachSearchGrowsTheTreeItsSingleSearchGrows) {
  const std::vector<State> states = positions(6);
  const std::vector<uint64_t> seeds = seeds_for(states.size());
  for (int batch : {1, 8}) {
    for (SelectionRule rule : {SelectionRule::Puct, SelectionRule::Uct}) {
      MctsConfig config = batched(300, std::make_shared<LeafOnlyEvaluator>(batch));
      config.selection = rule;
      std::vector<SearchResult> many = search_many(states, config, seeds);
      for (size_t i = 0; i < states.size(); ++i) {
        SearchResult one = analyse(states[i], config, seeds[i]);
        ASSERT_EQ(many[i].actions.size(), one.actions.size());
        EXPECT_EQ(many[i].iterations, one.iterations);
        for (size_t k = 0; k < one.actions.size(); ++k) {
          EXPECT_EQ(many[i].actions[k].action, one.actions[k].action) << "batch " << batch << " state " << i;
          EXPECT_EQ(many[i].actions[k].visits, one.actions[k].visits) << "batch " << batch << " state " << i;
          EXPECT_DOUBLE_EQ(many[i].actions[k].value, one.actions[k].value);
        }
      }
    }
  }
}

TEST(SearchMany, BadInputThrowsBeforeAnyCall) {
  const std::vector<State> states = positions(3);
  auto evaluator = std::make_shared<FakeBatchEvaluator>(4);
  const MctsConfig config = batched(100, evaluator);
  EXPECT_THROW(search_many({}, config, {}), SearchError);
  EXPECT_THROW(search_many(states, config, seeds_for(2)), SearchError);
  EXPECT_THROW(search_many(states, iterations(100), seeds_for(3)), SearchError);  // rollouts: no batches
  MctsConfig threads = config;
  threads.threads = 2;
  EXPECT_THROW(search_many(states, threads, seeds_for(3)), SearchError);
  std::vector<State> with_draw = states;
  with_draw[1].apply(with_draw[1].legal_actions().front());
  while (!with_draw[1].is_chance()) with_draw[1].apply(with_draw[1].legal_actions().front());
  EXPECT_THROW(search_many(with_draw, config, seeds_for(3)), SearchError);
  EXPECT_EQ(evaluator->calls, 0);
}

TEST(SearchMany, AFailingCallStopsEverySearch) {
  const std::vector<State> states = positions(4);
  auto evaluator = std::make_shared<FakeBatchEvaluator>(4);
  evaluator->throw_on = 3;
  EXPECT_THROW(search_many(states, batched(200, evaluator), seeds_for(4)), std::runtime_error);
  EXPECT_EQ(evaluator->calls, 3);
}

TEST(SearchMany, CancelStopsEverySearch) {
  const std::vector<State> states = positions(4);
  auto evaluator = std::make_shared<FakeBatchEvaluator>(4);
  std::atomic<bool> cancel{true};
  std::vector<SearchResult> results = search_many(states, batched(200, evaluator), seeds_for(4), &cancel);
  for (const SearchResult& r : results) EXPECT_EQ(r.iterations, 0u);
  EXPECT_EQ(evaluator->sizes, std::vector<int>{4});  // the roots' priors only
}

}  // namespace
}  // namespace carc
