// Search benchmarks (Google Benchmark). Run: build/carc_bench_search
//   BM_MctsStart/T      MCTS iterations/s (items_per_second) from the first decision of a
//                       2-player base game, T threads (tree parallelism), default settings,
//                       20,000 iterations a search
//   BM_MctsMid/T        the same from turn 36
//   BM_MctsFullRollouts/N  plain MCTS (random rollouts to the end) from turn N (0 or 36)
//   BM_MctsWall/T/P/MS  iterations in MS ms of wall time with T threads, P = 0 tree / 1 root
//                       parallelism: items_per_second at T = 2 over T = 1 is the speed-up at equal
//                       wall time. An iteration costs more in a bigger tree (longer paths, more
//                       cache misses), so /1/0/500, one thread growing the tree that two grow in
//                       0.25 s, tells that cost from the cost of sharing the tree
//   BM_MctsCpu/T        the same searches (tree parallelism), items_per_second per second of CPU
//                       time of all threads: T = 2 over T = 1 is the share of a thread's work that
//                       sharing one tree keeps (1: none lost), which a busy machine does not blur
//   BM_Rollout/K        one leaf evaluation from the start, to the end of the game: K = 0 random,
//                       1 greedy-biased figures, 2 greedy-biased with eps = 0.1; K = 3 random with
//                       the default 10-turn cutoff and heuristic
//   BM_NetworkForward/B the shipped network (search/network.h) on B observations at once from
//                       turn 36 (encoding included): items_per_second is evaluations per second
//   BM_NetworkPriors    one NetworkEvaluator::priors call (encode, forward, the legal actions'
//                       logits) at turn 36 of two games in turn
//   BM_MctsNet          MCTS iterations/s with eval=net (network values and priors) from turn 36
//   BM_ValueEvaluate    one evaluation by the shipped learned value (search/value.h) at turn 36:
//                       inputs and the per-seat MLP
//   BM_ValueInputs/N    the first N value inputs of both seats at turn 36: N = 56 the summaries,
//                       70 with the closing inputs (the bag's tiles tried on the frontier)
//   BM_MctsValue/K      MCTS iterations/s from turn 36, 2,000 iterations a search: K = 0 the
//                       rollout search (eval=greedy, for comparison), then eval=value: 1 after a 10-turn
//                       rollout (the cutoff), 2 instead of the rollout (rollout=none), 3 the same
//                       with uniform priors, 4 with the value's priors
#include <benchmark/benchmark.h>

#include <vector>

#include "engine/game.h"
#include "search/evaluator.h"
#include "search/mcts.h"
#include "search/network.h"
#include "search/value.h"

namespace carc {
namespace {

// The rollout search (eval=greedy, as ref-rollout plays): the figures of docs/performance.md
// follow the engine and the tree search, whatever evaluator is the default; BM_MctsValue times
// the learned value.
MctsConfig rollout_search() {
  MctsConfig c;
  c.rollout.heuristic = Heuristic::Greedy;
  return c;
}

// The first decision of turn `turns` of a seeded random 2-player base game.
State position_at(int turns, uint64_t seed = 3) {
  Config config;
  config.seed = seed;
  State s(config);
  Rng rng(seed);
  while (s.turn_number() < turns || s.is_chance()) {
    if (s.is_chance()) s.apply_unchecked(s.sample_chance());
    else s.apply_unchecked(s.sample_legal_action(rng));
  }
  return s;
}

void run_search(benchmark::State& bench, const State& root, MctsConfig config) {
  config.reuse = false;
  Mcts mcts(config);
  uint64_t iterations = 0, nodes = 0, seed = 0;
  for (auto _ : bench) {
    SearchResult r = mcts.search(root, ++seed);
    iterations += r.iterations;
    nodes += r.nodes;
    benchmark::DoNotOptimize(r.best);
  }
  bench.SetItemsProcessed(int64_t(iterations));
  bench.counters["iterations_per_search"] = double(iterations) / double(bench.iterations());
  // Each new node was listed and given a prior by an expansion, the costly part of an iteration
  // (greedy priors): iterations of two searches cost alike only if they add as many nodes.
  bench.counters["nodes_per_iteration"] = double(nodes) / double(iterations);
}

// The agent's default settings (10-turn random rollouts, then the heuristic; margin reward).
void BM_MctsStart(benchmark::State& bench) {
  MctsConfig c = rollout_search();
  c.iterations = 20000;
  c.threads = int(bench.range(0));
  run_search(bench, position_at(0), c);
}
BENCHMARK(BM_MctsStart)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MctsMid(benchmark::State& bench) {
  MctsConfig c = rollout_search();
  c.iterations = 20000;
  c.threads = int(bench.range(0));
  run_search(bench, position_at(36), c);
}
BENCHMARK(BM_MctsMid)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->UseRealTime();

// Plain MCTS: uniformly random rollouts to the end of the game, win-share reward.
void BM_MctsFullRollouts(benchmark::State& bench) {
  MctsConfig c = rollout_search();
  c.iterations = 2000;
  c.rollout.cutoff_turns = 0;
  c.rollout.reward = RewardKind::Win;
  run_search(bench, position_at(int(bench.range(0))), c);
}
BENCHMARK(BM_MctsFullRollouts)->Arg(0)->Arg(36)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_MctsWall(benchmark::State& bench) {
  MctsConfig c = rollout_search();
  c.iterations = 0;
  c.seconds = double(bench.range(2)) / 1000;
  c.threads = int(bench.range(0));
  c.parallelism = bench.range(1) ? Parallelism::Root : Parallelism::Tree;
  run_search(bench, position_at(0), c);
}
BENCHMARK(BM_MctsWall)
    ->Args({1, 0, 250})
    ->Args({1, 0, 500})
    ->Args({2, 0, 250})
    ->Args({2, 1, 250})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->Iterations(8);

void BM_MctsCpu(benchmark::State& bench) {
  MctsConfig c = rollout_search();
  c.iterations = 0;
  c.seconds = 0.25;
  c.threads = int(bench.range(0));
  run_search(bench, position_at(0), c);
}
BENCHMARK(BM_MctsCpu)->Arg(1)->Arg(2)->Unit(benchmark::kMillisecond)->MeasureProcessCPUTime()->Iterations(8);

void BM_Rollout(benchmark::State& bench) {
  RolloutConfig c;
  c.cutoff_turns = 0;
  switch (bench.range(0)) {
    case 1: c.policy = RolloutPolicy::Greedy; break;
    case 2: c.policy = RolloutPolicy::Greedy, c.greedy_eps = 0.1; break;
    case 3: c.cutoff_turns = 10; break;
    default: break;
  }
  RolloutEvaluator evaluator(c);
  State root = position_at(0);
  Rng rng(1);
  for (auto _ : bench) {
    State s = root;
    Evaluation e;
    evaluator.evaluate(s, rng, e);
    benchmark::DoNotOptimize(e.reward[0]);
  }
  bench.SetItemsProcessed(bench.iterations());
}
BENCHMARK(BM_Rollout)->DenseRange(0, 3)->Unit(benchmark::kMicrosecond);

}  // namespace
}  // namespace carc

namespace carc {
namespace {

void BM_NetworkForward(benchmark::State& bench) {
  const auto network = load_network("");
  const ObservationEncoder encoder(network->players(), network->window());
  const int batch = int(bench.range(0));
  std::vector<State> states;
  for (int i = 0; i < batch; ++i) states.push_back(position_at(36, uint64_t(3 + i)));
  std::vector<uint8_t> planes(size_t(batch) * size_t(encoder.plane_bytes()));
  std::vector<float> globals(size_t(batch) * size_t(encoder.num_globals()));
  std::vector<NetworkOutput> out;
  for (auto _ : bench) {
    for (int i = 0; i < batch; ++i)
      encoder.encode(states[size_t(i)], states[size_t(i)].current_player(),
                     planes.data() + size_t(i) * size_t(encoder.plane_bytes()),
                     globals.data() + size_t(i) * size_t(encoder.num_globals()));
    network->forward(batch, planes.data(), globals.data(), out);
    benchmark::DoNotOptimize(out[0].win);
  }
  bench.SetItemsProcessed(int64_t(bench.iterations()) * batch);
}
BENCHMARK(BM_NetworkForward)->Arg(1)->Arg(16)->Unit(benchmark::kMicrosecond);

void BM_NetworkPriors(benchmark::State& bench) {
  RolloutConfig config;
  config.heuristic = Heuristic::Net;
  config.prior = PriorKind::Net;
  const NetworkEvaluator evaluator(config);
  // Two positions in turn: the evaluator answers a repeated question from its last pass.
  const State states[2] = {position_at(36), position_at(36, 4)};
  Action actions[2][kMaxActions];
  float priors[kMaxActions];
  const int n[2] = {states[0].legal_actions(actions[0]), states[1].legal_actions(actions[1])};
  int i = 0;
  for (auto _ : bench) {
    evaluator.priors(states[i], actions[i], n[i], priors);
    benchmark::DoNotOptimize(priors[0]);
    i ^= 1;
  }
  bench.SetItemsProcessed(int64_t(bench.iterations()));
  bench.counters["legal_actions"] = (n[0] + n[1]) / 2.0;
}
BENCHMARK(BM_NetworkPriors)->Unit(benchmark::kMicrosecond);

void BM_MctsNet(benchmark::State& bench) {
  MctsConfig c = parse_mcts_options("eval=net,iters=2000");
  run_search(bench, position_at(36), c);
}
BENCHMARK(BM_MctsNet)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ValueEvaluate(benchmark::State& bench) {
  const State s = position_at(36);
  const ValueNet* net = nullptr;
  for (const auto& candidate : shipped_value_nets())
    if (candidate->fits(s)) net = candidate.get();
  if (!net) return bench.SkipWithError("no shipped value network for 2-player base games");
  std::array<double, kMaxPlayers> finals{};
  std::array<float, kMaxPlayers> win{};
  for (auto _ : bench) {
    net->evaluate(s, finals, win);
    benchmark::DoNotOptimize(finals[0]);
  }
  bench.SetItemsProcessed(int64_t(bench.iterations()));
}
BENCHMARK(BM_ValueEvaluate)->Unit(benchmark::kMicrosecond);

void BM_ValueInputs(benchmark::State& bench) {
  const State s = position_at(36);
  const int inputs = int(bench.range(0));
  std::vector<float> out(size_t(s.num_players() * inputs));
  for (auto _ : bench) {
    value_inputs(s, out.data(), inputs);
    benchmark::DoNotOptimize(out[0]);
  }
  bench.SetItemsProcessed(int64_t(bench.iterations()));
}
BENCHMARK(BM_ValueInputs)->Arg(kSummaryInputs)->Arg(kValueInputs)->Unit(benchmark::kMicrosecond);

void BM_MctsValue(benchmark::State& bench) {
  const char* options[] = {"eval=greedy,iters=2000", "eval=value,iters=2000", "eval=value,rollout=none,iters=2000",
                           "eval=value,rollout=none,prior=uniform,iters=2000",
                           "eval=value,rollout=none,prior=value,iters=2000"};
  run_search(bench, position_at(36), parse_mcts_options(options[bench.range(0)]));
}
BENCHMARK(BM_MctsValue)->DenseRange(0, 4)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
}  // namespace carc

BENCHMARK_MAIN();
