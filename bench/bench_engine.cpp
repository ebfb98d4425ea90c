// Engine micro-benchmarks (Google Benchmark). Run: build/carc_bench
//   BM_RandomGame         whole 2-player base games, farmers on: each turn a uniformly random
//                         placement, then a uniformly random figure option including none
//   BM_RandomGameAbbeyMayor  the same with Abbey & Mayor (every decision uniformly random)
//   BM_RandomGameAnniversary, BM_RandomGameCountKingRobber, BM_RandomGameRiver,
//   BM_RandomGameAllSupported  with each expansion, and with all of them (the City start)
//   BM_LegalPlacements    legal placements of the drawn tile on a mid-game board
//   BM_ParseAction        parse the text of every legal action (placements and figures) of a
//                         mid-game node back into the action, as the API and the invariants do
//   BM_ApplyTurn          clone a mid-game state, place a tile and a figure, score
//   BM_Clone              copy a mid-game state
//   BM_CopyFrom           the same into a scratch state with State::copy_from (used parts only)
#include <benchmark/benchmark.h>

#include "engine/game.h"
#include "search/playout.h"

namespace carc {
namespace {

// A state at the PlaceTile node of turn `turns` of a random game.
State mid_game(uint64_t seed, int turns) {
  Config config;
  config.seed = seed;
  State s(config);
  Rng rng(seed);
  Action buffer[kMaxActions];
  while (!s.is_terminal() && s.turn_number() < turns) {
    if (s.is_chance()) {
      s.apply_unchecked(s.sample_chance());
      continue;
    }
    int n = s.legal_actions(buffer);
    s.apply_unchecked(buffer[rng.below(uint32_t(n))]);
  }
  if (s.is_chance()) s.apply_unchecked(s.sample_chance());
  return s;
}

void random_games(benchmark::State& bench, Config config) {
  config.players = int(bench.range(0));
  Rng rng(1);
  uint64_t seed = 0;
  long decisions = 0;
  for (auto _ : bench) {
    config.seed = seed++;
    State s(config);
    decisions += random_playout(s, rng);
    benchmark::DoNotOptimize(s.score(0));
  }
  bench.SetItemsProcessed(bench.iterations());  // items/s = games/s
  bench.counters["decisions_per_game"] = double(decisions) / double(bench.iterations());
  bench.counters["state_bytes"] = double(sizeof(State));
}
void BM_RandomGame(benchmark::State& bench) { random_games(bench, Config{}); }
BENCHMARK(BM_RandomGame)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

// Base game + Abbey & Mayor (default variants): abbey choices, mayors, wagons, barns.
void BM_RandomGameAbbeyMayor(benchmark::State& bench) {
  Config config;
  config.expansions = {"abbey-mayor"};
  random_games(bench, config);
}
BENCHMARK(BM_RandomGameAbbeyMayor)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

void BM_RandomGameAnniversary(benchmark::State& bench) {
  Config config;
  config.expansions = {"anniv20"};
  random_games(bench, config);
}
BENCHMARK(BM_RandomGameAnniversary)->Arg(2)->Unit(benchmark::kMicrosecond);

// Count, King & Robber with the City and the Count.
void BM_RandomGameCountKingRobber(benchmark::State& bench) {
  Config config;
  config.expansions = {"city", "king-robber", "shrines"};
  random_games(bench, config);
}
BENCHMARK(BM_RandomGameCountKingRobber)->Arg(2)->Unit(benchmark::kMicrosecond);

void BM_RandomGameRiver(benchmark::State& bench) {
  Config config;
  config.expansions = {"river2"};
  random_games(bench, config);
}
BENCHMARK(BM_RandomGameRiver)->Arg(2)->Unit(benchmark::kMicrosecond);

// Every expansion at once (the City start; River II excludes it).
void BM_RandomGameAllSupported(benchmark::State& bench) {
  Config config;
  config.expansions = {"abbey-mayor", "anniv20", "king-robber", "shrines", "city"};
  random_games(bench, config);
}
BENCHMARK(BM_RandomGameAllSupported)->Arg(2)->Arg(4)->Unit(benchmark::kMicrosecond);

void BM_LegalPlacements(benchmark::State& bench) {
  std::vector<State> states;
  for (uint64_t seed = 0; seed < 32; ++seed) states.push_back(mid_game(seed, 36));
  Action buffer[kMaxActions];
  size_t i = 0;
  long placements = 0;
  for (auto _ : bench) {
    int n = states[i++ % states.size()].legal_actions(buffer);
    placements += n;
    benchmark::DoNotOptimize(buffer[0]);
  }
  bench.counters["placements"] = double(placements) / double(bench.iterations());
}
BENCHMARK(BM_LegalPlacements);

void BM_ParseAction(benchmark::State& bench) {
  struct Node {
    State state;
    std::vector<std::string> texts;
  };
  std::vector<Node> nodes;
  Action buffer[kMaxActions];
  for (uint64_t seed = 0; seed < 16; ++seed) {
    State s = mid_game(seed, 36);
    for (int phase = 0; phase < 2 && !s.is_terminal(); ++phase) {  // the placements, then the figures
      Node node{s, {}};
      int n = s.legal_actions(buffer);
      for (int k = 0; k < n; ++k) node.texts.push_back(s.action_to_string(buffer[k]));
      nodes.push_back(std::move(node));
      s.apply_unchecked(buffer[0]);
    }
  }
  size_t i = 0;
  long parsed = 0;
  for (auto _ : bench) {
    const Node& node = nodes[i++ % nodes.size()];
    for (const std::string& text : node.texts) benchmark::DoNotOptimize(node.state.parse_action(text));
    parsed += long(node.texts.size());
  }
  bench.SetItemsProcessed(parsed);  // items/s = actions parsed/s
}
BENCHMARK(BM_ParseAction);

void BM_ApplyTurn(benchmark::State& bench) {
  std::vector<State> states;
  for (uint64_t seed = 0; seed < 32; ++seed) states.push_back(mid_game(seed, 36));
  Action buffer[kMaxActions];
  size_t i = 0;
  for (auto _ : bench) {
    State s = states[i++ % states.size()];
    s.legal_actions(buffer);
    s.apply_unchecked(buffer[0]);
    if (!s.is_chance() && !s.is_terminal()) {
      int n = s.legal_actions(buffer);
      s.apply_unchecked(buffer[n - 1]);
    }
    benchmark::DoNotOptimize(s.score(0));
  }
}
BENCHMARK(BM_ApplyTurn);

void BM_Clone(benchmark::State& bench) {
  State s = mid_game(3, 36);
  for (auto _ : bench) {
    State copy = s.clone();
    benchmark::DoNotOptimize(copy);
  }
  bench.counters["state_bytes"] = double(sizeof(State));
}
BENCHMARK(BM_Clone);

void BM_CopyFrom(benchmark::State& bench) {
  const State s = mid_game(3, 36);
  State scratch = mid_game(4, 60);  // held a bigger game: copy_from must not depend on its past
  for (auto _ : bench) {
    scratch.copy_from(s);
    benchmark::DoNotOptimize(scratch);
  }
}
BENCHMARK(BM_CopyFrom);

}  // namespace
}  // namespace carc

BENCHMARK_MAIN();
