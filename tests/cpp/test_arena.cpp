// Arena tests: paired decks and seat rotation, the statistics of known results (win-rate and Elo
// intervals), cancellation of arenas and batches, resumable csv files and their malformed lines,
// and game records that replay and account for every point, tile and figure.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <fstream>
#include <memory>
#include <set>
#include <sstream>

#include "engine/config.h"
#include "engine/game.h"
#include "search/agents.h"
#include "search/arena.h"
#include "search/playout.h"

namespace carc {
namespace {

TEST(Arena, PairedDecksReplayTheSameDrawsWithSeatsRotated) {
  ArenaConfig a;
  a.agents = {"random", "greedy"};
  a.deals = 3;
  a.threads = 2;
  ArenaResult r = run_arena(a);
  ASSERT_EQ(r.games.size(), 6u);
  for (int d = 0; d < 3; ++d) {
    const GameRecord &x = r.games[size_t(2 * d)], &y = r.games[size_t(2 * d + 1)];
    EXPECT_EQ(x.deal, d);
    EXPECT_EQ(y.deal, d);
    EXPECT_EQ(x.draws, y.draws);
    EXPECT_EQ(x.draws.size(), 71u);
    EXPECT_EQ(x.entrant, (std::vector<int>{0, 1}));
    EXPECT_EQ(y.entrant, (std::vector<int>{1, 0}));
  }
  EXPECT_NE(r.games[0].draws, r.games[2].draws);
  // The greedy player wins nearly every game against random play.
  EXPECT_GT(r.entrants[1].win_rate, 0.8);
  EXPECT_GT(r.entrants[1].elo, 100);
  EXPECT_EQ(r.entrants[0].elo, 0);
  EXPECT_EQ(r.entrants[1].games, 6);
  // Reproducible: the same seeds give the same games, whatever the thread count.
  a.threads = 1;
  ArenaResult again = run_arena(a);
  for (size_t i = 0; i < r.games.size(); ++i) EXPECT_EQ(r.games[i].scores, again.games[i].scores);
  EXPECT_NE(r.report().find("greedy"), std::string::npos);
}

// A greedy agent that counts the games in play at once (custom agents get them one at a time).
class CountedGreedy final : public Agent {
 public:
  CountedGreedy(std::atomic<int>& active, std::atomic<int>& peak) : active_(active) {
    const int now = ++active_;
    int seen = peak.load();
    while (now > seen && !peak.compare_exchange_weak(seen, now)) {
    }
  }
  ~CountedGreedy() override { --active_; }
  Action choose(const State& state, Rng& rng) override { return greedy_.choose(state, rng); }
  std::string name() const override { return "counted"; }

 private:
  GreedyAgent greedy_;
  std::atomic<int>& active_;
};

TEST(Arena, CustomAgentsPlayTheSameGamesAsTheirSpecsOneGameAtATime) {
  ArenaConfig a;
  a.agents = {"greedy", "random"};
  a.deals = 3;
  a.threads = 2;
  const ArenaResult native = run_arena(a);
  std::atomic<int> made{0}, active{0}, peak{0};
  a.agents[0] = "my greedy";  // only a name now
  a.custom_agents = {[&](uint64_t) {
                       ++made;
                       return std::unique_ptr<Agent>(std::make_unique<CountedGreedy>(active, peak));
                     },
                     nullptr};
  const ArenaResult custom = run_arena(a);
  EXPECT_EQ(made.load(), 6);  // one agent per game
  EXPECT_EQ(peak.load(), 1);  // threads = 2 asked, one game at a time played
  ASSERT_EQ(custom.games.size(), native.games.size());
  for (size_t i = 0; i < custom.games.size(); ++i) EXPECT_EQ(custom.games[i].scores, native.games[i].scores);
  EXPECT_EQ(custom.entrants[0].agent, "my greedy");
  a.custom_agents.resize(1);
  EXPECT_THROW(run_arena(a), SearchError);  // one entry per entrant, or none
}

TEST(Arena, AFixedRotationPlaysEveryDeckFromOneSeating) {
  ArenaConfig a;
  a.agents = {"random", "greedy"};
  a.deals = 3;
  a.threads = 1;
  a.rotation = 1;  // greedy in seat 0 every game
  ArenaResult r = run_arena(a);
  ASSERT_EQ(r.games.size(), 3u);
  EXPECT_FALSE(r.paired);
  for (int d = 0; d < 3; ++d) {
    EXPECT_EQ(r.games[size_t(d)].deal, d);
    EXPECT_EQ(r.games[size_t(d)].entrant, (std::vector<int>{1, 0}));
  }
  a.rotation = 2;
  EXPECT_THROW(run_arena(a), SearchError);
  a.rotation = -2;
  EXPECT_THROW(run_arena(a), SearchError);
}

TEST(Arena, ThreePlayersRotateEverySeat) {
  ArenaConfig a;
  a.game.players = 3;
  a.agents = {"random", "random", "greedy"};
  a.deals = 1;
  ArenaResult r = run_arena(a);
  ASSERT_EQ(r.games.size(), 3u);
  std::set<std::vector<int>> seatings;
  for (const GameRecord& g : r.games) seatings.insert(g.entrant);
  EXPECT_EQ(seatings.size(), 3u);
  for (const EntrantStats& e : r.entrants) EXPECT_EQ(e.games, 3);
}

TEST(Arena, StatisticsOfKnownResults) {
  // Entrant 0 wins 3 of 4 deals outright (both seatings), the 4th deal is split.
  std::vector<GameRecord> games;
  for (int d = 0; d < 4; ++d)
    for (int r = 0; r < 2; ++r) {
      GameRecord g;
      g.deal = d;
      g.entrant = r == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
      int winner_seat = d < 3 ? r : (r == 0 ? 1 : 1);  // deal 3: seat 1 wins both games
      g.scores = winner_seat == 0 ? std::vector<int>{80, 60} : std::vector<int>{60, 80};
      g.win_share = winner_seat == 0 ? std::vector<double>{1, 0} : std::vector<double>{0, 1};
      g.think_seconds = {0, 0};
      g.decisions = {1, 1};
      g.iterations = {0, 0};
      games.push_back(g);
    }
  std::vector<EntrantStats> s = summarise(games, {"a", "b"});
  EXPECT_DOUBLE_EQ(s[0].win_rate, 7.0 / 8.0);
  EXPECT_DOUBLE_EQ(s[1].win_rate, 1.0 / 8.0);
  EXPECT_DOUBLE_EQ(s[0].margin, 15.0);  // deals: +20, +20, +20, 0
  // Deal means 1, 1, 1, 0.5: the variance of their mean, 1/64, is worth n = (7/8)(1/8) * 64 = 7
  // independent games (between 4 deals and 8 games); Wilson's interval for 7/8 over 7 games.
  EXPECT_NEAR(s[0].win_low, 0.504611, 1e-6);
  EXPECT_NEAR(s[0].win_high, 0.979635, 1e-6);
  EXPECT_NEAR(s[1].win_low, 1 - 0.979635, 1e-6);
  EXPECT_NEAR(s[1].win_high, 1 - 0.504611, 1e-6);
  // Elo vs entrant 0 from the pairwise score 1/8 with one virtual draw: (1 + 0.5) / (8 + 1),
  // 400 log10(1.5 / 7.5) = -280; its interval is the transform of the Wilson interval.
  EXPECT_NEAR(s[1].elo, -400 * std::log10(7.5 / 1.5), 1e-9);
  EXPECT_NEAR(s[1].elo_low, -672.87459, 1e-4);
  EXPECT_NEAR(s[1].elo_high, -3.20384, 1e-4);
  EXPECT_EQ(s[0].elo, 0);
  EXPECT_EQ(s[0].elo_low, 0);
  EXPECT_EQ(s[0].elo_high, 0);
}

TEST(Arena, AnAgentInSeveralSeatsIsOneSideWhoseWinSharesAddUp) {
  // 4 players, "a" in entrants 0 and 2, "b" in 1 and 3: two deals of two games each.
  std::vector<GameRecord> games;
  const std::vector<std::vector<int>> scores = {{90, 80, 70, 60}, {50, 60, 55, 70}, {80, 80, 10, 10}, {40, 90, 95, 20}};
  const std::vector<std::vector<double>> shares = {{1, 0, 0, 0}, {0, 0, 0, 1}, {0.5, 0.5, 0, 0}, {0, 0, 1, 0}};
  for (int i = 0; i < 4; ++i) {
    GameRecord g;
    g.deal = i / 2;
    g.entrant = i % 2 == 0 ? std::vector<int>{0, 1, 2, 3} : std::vector<int>{1, 2, 3, 0};
    g.scores = scores[size_t(i)];
    g.win_share = shares[size_t(i)];
    g.think_seconds.assign(4, 0);
    g.decisions.assign(4, 1);
    g.iterations.assign(4, 0);
    games.push_back(g);
  }
  const std::vector<std::string> agents = {"a", "b", "a", "b"};
  std::vector<SideStats> sides = summarise_sides(games, agents);
  ASSERT_EQ(sides.size(), 2u);
  EXPECT_EQ(sides[0].agent, "a");
  EXPECT_EQ(sides[0].entrants, (std::vector<int>{0, 2}));
  EXPECT_EQ(sides[1].entrants, (std::vector<int>{1, 3}));
  EXPECT_EQ(sides[0].games, 4);
  // Side "a" sits in seats 0 and 2 of games 0 and 2, seats 1 and 3 of games 1 and 3 (rotated):
  // it wins game 0 (1), game 1 (seat 3: 1), half of game 2, nothing of game 3.
  EXPECT_DOUBLE_EQ(sides[0].win_rate, (1 + 1 + 0.5 + 0) / 4);
  EXPECT_DOUBLE_EQ(sides[0].win_rate + sides[1].win_rate, 1.0);
  // Margins, its best seat over the others' best: +10, +15 (70 - 55), 0, -5 (90 - 95); per deal
  // +12.5 and -2.5.
  EXPECT_DOUBLE_EQ(sides[0].margin, 5.0);
  EXPECT_DOUBLE_EQ(sides[1].margin, -5.0);
  EXPECT_LT(sides[0].win_low, sides[0].win_rate);
  EXPECT_GT(sides[0].win_high, sides[0].win_rate);
  // One agent per seat: no side.
  EXPECT_TRUE(summarise_sides(games, {"a", "b", "c", "d"}).empty());
  // One agent in every seat (self-play): no other side to measure against.
  EXPECT_TRUE(summarise_sides(games, {"a", "a", "a", "a"}).empty());
  // Only the agent given twice is a side: "a" against "b" and "c".
  std::vector<SideStats> one = summarise_sides(games, {"a", "b", "a", "c"});
  ASSERT_EQ(one.size(), 1u);
  EXPECT_DOUBLE_EQ(one[0].win_rate, 0.625);
}

// Win shares of 2-player deals, both seats played by the same entrants.
std::vector<GameRecord> two_player_deals(const std::vector<std::pair<double, double>>& shares_of_entrant_1) {
  std::vector<GameRecord> games;
  for (size_t d = 0; d < shares_of_entrant_1.size(); ++d)
    for (int r = 0; r < 2; ++r) {
      const double w = r == 0 ? shares_of_entrant_1[d].first : shares_of_entrant_1[d].second;
      GameRecord g;
      g.deal = int(d);
      g.rotation = r;
      g.entrant = r == 0 ? std::vector<int>{0, 1} : std::vector<int>{1, 0};
      const int s1 = r == 0 ? 1 : 0;  // entrant 1's seat
      g.win_share = {0, 0};
      g.win_share[size_t(s1)] = w;
      g.win_share[size_t(1 - s1)] = 1 - w;
      g.scores = {50, 50};
      g.scores[size_t(s1)] += w == 1 ? 10 : w == 0 ? -10 : 0;
      g.think_seconds = {0, 0};
      g.decisions = {1, 1};
      g.iterations = {0, 0};
      games.push_back(g);
    }
  return games;
}

TEST(Arena, WinRateIntervalsAndEloNeverHaveZeroWidth) {
  // 15 deals all won by entrant 1 (the greedy vs random): Wilson's interval for 15
  // independent units (a deal's games may all go the same way), [15 / (15 + 1.96^2), 1].
  std::vector<EntrantStats> s = summarise(two_player_deals(std::vector(15, std::pair{1.0, 1.0})), {"random", "greedy"});
  EXPECT_EQ(s[1].win_rate, 1.0);
  EXPECT_NEAR(s[1].win_low, 15 / (15 + 1.96 * 1.96), 1e-12);
  EXPECT_EQ(s[1].win_high, 1.0);
  EXPECT_EQ(s[0].win_low, 0.0);
  EXPECT_NEAR(s[0].win_high, 1 - 15 / (15 + 1.96 * 1.96), 1e-12);
  EXPECT_NEAR(s[1].elo, 400 * std::log10(30.5 / 0.5), 1e-9);  // one virtual draw
  EXPECT_NEAR(s[1].elo_low, 236.63165, 1e-4);
  EXPECT_EQ(s[1].elo_high, INFINITY);
  ArenaResult r;
  r.players = 2;
  r.agents = {"random", "greedy"};
  r.entrants = s;
  EXPECT_NE(r.report().find("1.000 [0.796, 1.000]"), std::string::npos) << r.report();
  EXPECT_NE(r.report().find("714 [237, inf]"), std::string::npos) << r.report();
  // Every deal split the same way: no spread between deals, so the games count as independent.
  Rate split = rate_with_interval(std::vector(10, 0.5), 20);
  Rate twenty = rate_with_interval(std::vector(20, 0.5), 20);  // as if 20 one-game deals...
  EXPECT_EQ(split.value, 0.5);
  EXPECT_GT(split.high - split.low, 0.0);
  EXPECT_NEAR(split.low, 0.5 - 1.96 / (1 + 1.96 * 1.96 / 20) * std::sqrt(0.25 / 20 + 1.96 * 1.96 / 1600), 1e-12);
  EXPECT_NEAR(twenty.low, 0.5 - 1.96 / (1 + 1.96 * 1.96 / 20) * std::sqrt(0.25 / 20 + 1.96 * 1.96 / 1600), 1e-12);
  // The largest spread: 20 deals each won by one side (both games) count 20 units, not 40.
  std::vector<double> halves(20, 0.0);
  for (size_t i = 0; i < 10; ++i) halves[i] = 1.0;
  EXPECT_NEAR(rate_with_interval(halves, 40).low, twenty.low, 1e-12);
  // One deal still gives an interval; none gives [0, 1].
  Rate one = rate_with_interval({1.0}, 2);
  EXPECT_NEAR(one.low, 1 / (1 + 1.96 * 1.96), 1e-12);
  EXPECT_EQ(one.high, 1.0);
  Rate none = rate_with_interval({}, 0);
  EXPECT_EQ(none.low, 0.0);
  EXPECT_EQ(none.high, 1.0);
}

TEST(Cancel, StopsTheArenaAndGamesAtTheNextMove) {
  std::atomic<bool> cancel{false};
  ArenaConfig a;
  a.agents = {"greedy", "random"};
  a.deals = 50;
  a.threads = 1;
  a.cancel = &cancel;
  int reported = 0;
  a.on_game = [&](const GameRecord&) { ++reported, cancel.store(true); };
  EXPECT_THROW(run_arena(a), Cancelled);
  EXPECT_EQ(reported, 1);  // the first game finished; the second stopped at its first move
  Config rules;
  EXPECT_THROW(play_game(rules, {"greedy"}, 1, &cancel), Cancelled);
  cancel.store(false);
  EXPECT_GT(play_game(rules, {"greedy"}, 1, &cancel).tiles_placed, 0);
}

TEST(Cancel, StopsABatchOfRandomGamesBetweenGames) {
  Config rules;
  for (int threads : {1, 2}) {
    std::atomic<bool> cancel{true};
    EXPECT_THROW(play_random_games(rules, 1000000, threads, &cancel), Cancelled) << threads;
    cancel.store(false);
    EXPECT_EQ(play_random_games(rules, 3, threads, &cancel).size(), 3u);
  }
}

TEST(Arena, OneDealReportsNoMarginIntervalButAWinRateInterval) {
  ArenaConfig a;
  a.agents = {"greedy", "random"};
  a.deals = 1;
  a.threads = 1;
  ArenaResult r = run_arena(a);
  std::string report = r.report();
  EXPECT_NE(report.find("[n/a]"), std::string::npos) << report;  // the margins
  for (const EntrantStats& e : r.entrants) {
    EXPECT_TRUE(std::isinf(e.margin_low) && std::isinf(e.margin_high));
    EXPECT_LT(e.win_low, e.win_high);
    EXPECT_TRUE(e.win_low >= 0 && e.win_high <= 1);
  }
}

TEST(Arena, AResumedRunPlaysOnlyTheMissingGamesAndSummarisesThemAll) {
  ArenaConfig a;
  a.agents = {"random", "mcts:iters=200,memory=16"};
  a.deals = 3;
  a.threads = 1;
  const ArenaResult full = run_arena(a);
  // Keep what an interrupted run would have written: three whole games, then a game cut off.
  std::vector<GameRecord> read = read_arena_csv(full.csv(), a.agents, 2);
  ASSERT_EQ(read.size(), 6u);
  std::string text = arena_csv_header();
  for (int i : {0, 2, 5}) text += arena_csv_rows(full.games[size_t(i)], a.agents);
  std::string cut = arena_csv_rows(full.games[3], a.agents);
  text += cut.substr(0, cut.find('\n') + 1) + cut.substr(cut.find('\n') + 1, 10);  // one seat, then part of a line
  a.done = read_arena_csv(text, a.agents, 2);
  ASSERT_EQ(a.done.size(), 3u);
  int played = 0;
  a.on_game = [&](const GameRecord&) { ++played; };
  const ArenaResult resumed = run_arena(a);
  EXPECT_EQ(played, 3);
  ASSERT_EQ(resumed.games.size(), full.games.size());
  for (size_t i = 0; i < full.games.size(); ++i) {
    EXPECT_EQ(resumed.games[i].scores, full.games[i].scores) << "game " << i;
    EXPECT_EQ(resumed.games[i].entrant, full.games[i].entrant) << "game " << i;
  }
  EXPECT_EQ(resumed.entrants[1].games, 6);
  EXPECT_DOUBLE_EQ(resumed.entrants[1].win_rate, full.entrants[1].win_rate);
  // Games that are not this run's are refused before anything is played.
  a.done[0].rotation = 1 - a.done[0].rotation;
  EXPECT_THROW(run_arena(a), SearchError);
  a.done[0] = full.games[0];
  a.done.push_back(full.games[0]);
  EXPECT_THROW(run_arena(a), SearchError);
  a.done = {full.games[0]};
  a.agent_seed = 2;  // other agent streams: game 0 would have gone otherwise
  EXPECT_THROW(run_arena(a), SearchError);
  a.agent_seed = full.games[0].agent_seed;
  a.game.seed = 1;  // other decks
  EXPECT_THROW(run_arena(a), SearchError);
  a.game.seed = full.games[0].seed;
  a.deals = 1;
  a.rotation = 1;  // one game per deck now: game 0 is seated the other way round
  EXPECT_THROW(run_arena(a), SearchError);
}

TEST(Arena, GameRecordsReplayAndAccountForEveryPointTileAndFigure) {
  ArenaConfig a;
  a.game.expansions = {"abbey-mayor"};
  a.agents = {"greedy", "mcts:iters=40,memory=16"};
  a.deals = 1;
  a.first_deal = 3;
  a.threads = 1;
  a.record_actions = true;
  const ArenaResult r = run_arena(a);
  ASSERT_EQ(r.games.size(), 2u);
  for (const GameRecord& g : r.games) {
    EXPECT_EQ(g.deal, 3);
    ASSERT_EQ(g.visits.size(), g.actions.size());
    ASSERT_EQ(g.deciders.size(), g.actions.size());
    ASSERT_EQ(g.search_win.size(), g.actions.size());
    ASSERT_EQ(g.search_reward.size(), g.actions.size());
    State replay(a.game);  // the draws are actions too, so any seed replays the game
    int figure_actions = 0, searched = 0;
    std::vector<int> tiles(2, 0);
    for (size_t i = 0; i < g.actions.size(); ++i) {
      const Action action{g.actions[i]};
      const int seat = replay.current_player();
      EXPECT_EQ(g.deciders[i], replay.is_chance() ? -1 : seat);
      if (!g.visits[i].empty()) {
        ++searched;
        EXPECT_EQ(g.entrant[size_t(seat)], 1) << "only the MCTS agent searches";
        uint32_t most = 0, chosen = 0;
        for (auto [code, visits] : g.visits[i]) {
          most = std::max(most, visits);
          if (code == action.code) chosen = visits;
        }
        EXPECT_EQ(chosen, most) << "the move played is a most visited one, action " << i;
        ASSERT_EQ(g.search_win[i].size(), 2u);
        ASSERT_EQ(g.search_reward[i].size(), 2u);
        EXPECT_NEAR(g.search_win[i][0] + g.search_win[i][1], 1.0, 1e-3) << "win shares, action " << i;
      } else {
        EXPECT_TRUE(g.search_win[i].empty() && g.search_reward[i].empty()) << "no search, no estimates";
      }
      if (action.kind() == ActionKind::Figure && replay.phase() == Phase::PlaceFigure) ++figure_actions;
      if (action.kind() == ActionKind::Place || action.kind() == ActionKind::Abbey) ++tiles[size_t(seat)];
      replay.apply(action);  // throws if the record is not a legal game
    }
    ASSERT_TRUE(replay.is_terminal());
    EXPECT_GT(searched, 10);
    EXPECT_EQ(g.tiles, tiles);
    EXPECT_EQ(replay.board().num_tiles(), tiles[0] + tiles[1] + 1);  // and the start tile
    int figures = 0;
    for (int s = 0; s < 2; ++s) {
      EXPECT_EQ(g.scores[size_t(s)], replay.score(s));
      int points = 0, by_kind = 0;
      for (int c = 0; c < kNumCauses; ++c) {
        EXPECT_EQ(g.points[size_t(s)][size_t(c)], replay.score(s, Cause(c)));
        points += g.points[size_t(s)][size_t(c)];
      }
      EXPECT_EQ(points, g.scores[size_t(s)]);
      for (auto& [kind, n] : g.tiles_by_kind[size_t(s)]) by_kind += n;
      EXPECT_EQ(by_kind, g.tiles[size_t(s)]);
      for (int n : g.figures[size_t(s)]) figures += n;
      EXPECT_EQ(g.rank[size_t(s)], g.scores[size_t(s)] >= g.scores[size_t(1 - s)] ? 1 : 2);
    }
    EXPECT_EQ(figures, figure_actions);
    EXPECT_EQ(g.turns, replay.turn_number());
  }
  // Deal 3 alone is deal 3 of a longer run.
  a.first_deal = 0;
  a.deals = 4;
  a.record_actions = false;
  const ArenaResult longer = run_arena(a);
  EXPECT_EQ(longer.games[6].scores, r.games[0].scores);
  EXPECT_EQ(longer.games[7].points, r.games[1].points);
  EXPECT_TRUE(longer.games[6].actions.empty());
}

TEST(Arena, ACsvRunWritesEveryGameAndResumesFromTheFile) {
  const std::string path = ::testing::TempDir() + "arena_resume.csv";
  std::remove(path.c_str());
  ArenaConfig a;
  a.agents = {"random", "greedy"};
  a.deals = 2;
  a.threads = 1;
  // A file in a folder that does not exist: refused at once, before any game is played.
  int games = 0;
  a.on_game = [&](const GameRecord&) { ++games; };
  const std::string nowhere = ::testing::TempDir() + "no_such_folder/arena.csv";
  try {
    run_arena_csv(a, nowhere, false);
    ADD_FAILURE() << "no error";
  } catch (const SearchError& e) {
    EXPECT_EQ(std::string(e.what()),
              "arena: cannot write " + nowhere + ": there is no folder " + ::testing::TempDir() + "no_such_folder");
  }
  EXPECT_THROW(run_arena_csv(a, ::testing::TempDir(), false), SearchError);  // a folder
  EXPECT_EQ(games, 0);
  a.on_game = nullptr;
  const ArenaResult full = run_arena_csv(a, path, false);
  auto file = [&] {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
  };
  EXPECT_EQ(file(), full.csv());
  // Resuming a run with no file yet starts it: every game is played and written.
  std::remove(path.c_str());
  a.on_game = [&](const GameRecord&) { ++games; };
  const ArenaResult started = run_arena_csv(a, path, true);
  EXPECT_EQ(games, 4);
  EXPECT_EQ(file(), started.csv());
  for (size_t i = 0; i < full.games.size(); ++i) EXPECT_EQ(started.games[i].scores, full.games[i].scores) << i;
  // Stopped after game 1: the file as it was written then. Resuming plays games 0, 2 and 3.
  std::ofstream(path, std::ios::trunc) << arena_csv_header() << arena_csv_rows(full.games[1], a.agents);
  std::vector<int> played;
  a.on_game = [&](const GameRecord& g) { played.push_back(g.index); };
  const ArenaResult resumed = run_arena_csv(a, path, true);
  EXPECT_EQ(played, (std::vector<int>{0, 2, 3}));
  EXPECT_EQ(file(), resumed.csv());
  for (size_t i = 0; i < full.games.size(); ++i) EXPECT_EQ(resumed.games[i].scores, full.games[i].scores) << i;
  // Another seed is another run: refused, and the file is left alone.
  a.game.seed = 9;
  EXPECT_THROW(run_arena_csv(a, path, true), SearchError);
  EXPECT_EQ(file(), resumed.csv());
  std::remove(path.c_str());
}

TEST(Arena, ReadingACsvRejectsMalformedLines) {
  const std::vector<std::string> agents = {"greedy", "mcts:iters=5,c=1"};
  const std::string header = arena_csv_header();
  const std::string balance0 = ",1,70,40,1,0,0,0,50,10,5,0,15,0,0,0,0,0,0\n";  // rank, turns, tiles, figures, points
  const std::string balance1 = ",2,70,39,2,0,0,0,40,10,5,0,15,0,0,0,0,0,0\n";
  const std::string seat0 = "0,0,0,0,0,\"greedy\",80,1.0000,40,0.1,0,7,18446744073709551615" + balance0;
  const std::string seat1 = "0,0,0,1,1,\"mcts:iters=5,c=1\",70,0.0000,35,2.5,175,7,18446744073709551615" + balance1;
  std::vector<GameRecord> games = read_arena_csv(header + seat0 + seat1, agents, 2);
  ASSERT_EQ(games.size(), 1u);
  EXPECT_EQ(games[0].scores, (std::vector<int>{80, 70}));
  EXPECT_EQ(games[0].iterations[1], 175u);
  EXPECT_DOUBLE_EQ(games[0].think_seconds[1], 2.5);
  EXPECT_EQ(games[0].seed, 7u);
  EXPECT_EQ(games[0].agent_seed, UINT64_MAX);  // 64 bits, not rounded through a double
  EXPECT_EQ(games[0].rank, (std::vector<int>{1, 2}));
  EXPECT_EQ(games[0].turns, 70);
  EXPECT_EQ(games[0].tiles, (std::vector<int>{40, 39}));
  EXPECT_EQ(games[0].figures[1], (std::vector<int>{2, 0, 0, 0}));
  EXPECT_EQ(games[0].points[0][int(Cause::City)], 50);
  EXPECT_EQ(games[0].points[1][int(Cause::Field)], 15);
  EXPECT_TRUE(read_arena_csv(header + seat0, agents, 2).empty());  // a game missing a seat
  auto message = [&](const std::string& text) {
    try {
      read_arena_csv(text, agents, 2);
    } catch (const SearchError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(seat0 + seat1).find("header"), std::string::npos);
  // An arena csv of before the balance columns: the error says why it cannot be resumed.
  const std::string old_header =
      "game,deal,rotation,seat,entrant,agent,score,win_share,decisions,think_seconds,iterations,seed,agent_seed\n";
  EXPECT_NE(message(old_header + "0,0,0,0,0,\"greedy\",80,1.0000,40,0.1,0,7,0\n").find("of an older arena"),
            std::string::npos);
  EXPECT_NE(message(header + seat0 + "0,0,0,1,1,\"random\",70,0,35,2.5,175,7,0" + balance1).find("played by 'random'"),
            std::string::npos);
  EXPECT_NE(message(header + "0,0,0,0,0,\"greedy\",80,1.0000,40,0.1,0\n").find("line 2: expected 31 fields, got 11"),
            std::string::npos);
  EXPECT_NE(message(header + "0,0,0,0,0,\"greedy\",-80,1.0000,40,0.1,0,7,0" + balance0).find("field 7"),
            std::string::npos);
  EXPECT_NE(message(header + "0,0,0,0,0,\"greedy,80,1.0000,40,0.1,0,7,0\n").find("unclosed quote"), std::string::npos);
  EXPECT_NE(message(header + seat0 + seat0).find("seat 0 twice"), std::string::npos);
  EXPECT_NE(
      message(header + seat0 + "0,1,0,1,1,\"mcts:iters=5,c=1\",70,0.0000,35,2.5,175,7,18446744073709551615" + balance1)
          .find("another deal"),
      std::string::npos);
  EXPECT_NE(message(header + "0,0,0,2,0,\"greedy\",80,1.0000,40,0.1,0,7,0" + balance0).find("out of range"),
            std::string::npos);
  EXPECT_NE(
      message(header + seat0 + "0,0,0,1,1,\"mcts:iters=5,c=1\",70,0.0000,35,2.5,175,8,18446744073709551615" + balance1)
          .find("another deal, rotation, seed or game length"),
      std::string::npos);
  EXPECT_NE(message(header + "0,0,0,0,0,\"greedy\",80,1.0000,40,0.1,0,7,18446744073709551616" + balance0)
                .find("field 13 is not a seed"),
            std::string::npos);
  EXPECT_NE(message(header + seat0 + seat1).find("no error"), std::string::npos);
}

TEST(Arena, RejectsBadInputBeforePlaying) {
  ArenaConfig a;
  a.agents = {"greedy"};
  EXPECT_THROW(run_arena(a), SearchError);
  a.agents = {"greedy", "mcts:wat=1"};
  EXPECT_THROW(run_arena(a), SearchError);
  a.agents = {"greedy", "random"};
  a.deals = 0;
  EXPECT_THROW(run_arena(a), SearchError);
  a.deals = 1;
  a.game.draw_order = {"base.E"};
  EXPECT_THROW(run_arena(a), SearchError);
  a.game.draw_order.clear();
  a.game.players = 9;
  EXPECT_THROW(run_arena(a), ConfigError);
}

}  // namespace
}  // namespace carc
