// Search benchmarks (Google Benchmark). Run: build/carc_bench_search
//   BM_MctsStart/T      MCTS iterations/s (items_per_second) from the first decision of a
//                       2-player base game, T threads (tree parallelism), default settings,
//                       20,000 iterations a search
//   BM_MctsMid/T        the same from turn 36
//   BM_MctsFullRollouts/N  plain MCTS (random rollouts to the end) from turn N (0 or 36)
//   BM_MctsWall/T/P/MS/E  iterations in MS ms of wall time with T threads, P = 0 tree / 1 root
//                       parallelism, E = 0 the rollout search / 1 the default (the learned value
//                       after the rollout): items_per_second at T = 2 over T = 1 is the speed-up
//                       at equal wall time. An iteration costs more in a bigger tree (longer
//                       paths, more cache misses), so /1/0/500/0, one thread growing the tree that
//                       two grow in 0.25 s, tells that cost from the cost of sharing the tree
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
//   BM_SearchMany/G/B/M search_many: G searches from turn 36 of G games (100 iterations each), B
//                       iterations per search a round; M = 1 the shipped network as a C++ batched
//                       evaluator (one forward pass a call), M = 0 constant values (the searches'
//                       own cost): items_per_second is iterations per second of all searches,
//                       leaves_per_call the leaves one call held
//   BM_SearchOneByOne/G/B/M  the same G searches one after another (analyse: a fresh tree each, as
//                       search_many's; batch B): the comparison
#include <benchmark/benchmark.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <vector>

#include "engine/game.h"
#include "engine/observation.h"
#include "search/batched.h"
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
  MctsConfig c = bench.range(3) ? parse_mcts_options("") : rollout_search();
  c.iterations = 0;
  c.seconds = double(bench.range(2)) / 1000;
  c.threads = int(bench.range(0));
  c.parallelism = bench.range(1) ? Parallelism::Root : Parallelism::Tree;
  run_search(bench, position_at(0), c);
}
BENCHMARK(BM_MctsWall)
    ->Args({1, 0, 250, 0})
    ->Args({1, 0, 500, 0})
    ->Args({2, 0, 250, 0})
    ->Args({2, 1, 250, 0})
    ->Args({1, 0, 250, 1})
    ->Args({2, 0, 250, 1})
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

// The shipped network as a BatchEvaluator: every leaf of a call in one forward pass (values per
// seat, priors the softmax of the legal actions' logits), as a model behind a Python or GPU
// evaluator would be called.
class NetworkBatchEvaluator final : public BatchEvaluator {
 public:
  explicit NetworkBatchEvaluator(int batch)
      : BatchEvaluator(batch, RolloutConfig{}),
        network_(load_network("")),
        encoder_(network_->players(), network_->window()) {}
  void evaluate_batch(std::vector<LeafRequest>& leaves) const override {
    const size_t n = leaves.size();
    planes_.resize(n * size_t(encoder_.plane_bytes()));
    globals_.resize(n * size_t(encoder_.num_globals()));
    for (size_t i = 0; i < n; ++i)
      encoder_.encode(*leaves[i].state, leaves[i].state->current_player(),
                      planes_.data() + i * size_t(encoder_.plane_bytes()),
                      globals_.data() + i * size_t(encoder_.num_globals()));
    network_->forward(int(n), planes_.data(), globals_.data(), out_);
    for (size_t i = 0; i < n; ++i) {
      LeafRequest& r = leaves[i];
      const int players = r.state->num_players(), observer = r.state->current_player();
      for (int seat = 0; seat < players; ++seat) {
        const size_t p = size_t((observer + seat) % players);
        r.value->reward[p] = r.value->win[p] = out_[i].win[size_t(seat)];
      }
      if (!r.want_priors) continue;
      const Window window = observation_window(*r.state, network_->window());
      float top = -1e30f, sum = 0;
      for (int k = 0; k < r.num_actions; ++k) {
        const int index = network_->space().index(window, r.actions[k]);
        r.priors[k] = index >= 0 ? network_->logit(out_[i], index) : -1e30f;
        top = std::max(top, r.priors[k]);
      }
      for (int k = 0; k < r.num_actions; ++k) sum += r.priors[k] = std::exp(r.priors[k] - top);
      for (int k = 0; k < r.num_actions; ++k) r.priors[k] /= sum;
    }
  }

 private:
  std::shared_ptr<const Network> network_;
  ObservationEncoder encoder_;
  mutable std::vector<uint8_t> planes_;
  mutable std::vector<float> globals_;
  mutable std::vector<NetworkOutput> out_;
};

// Values every leaf at 0.5 with uniform priors: what the searches cost without a model.
class ConstantBatchEvaluator final : public BatchEvaluator {
 public:
  explicit ConstantBatchEvaluator(int batch) : BatchEvaluator(batch, RolloutConfig{}) {}
  void evaluate_batch(std::vector<LeafRequest>& leaves) const override {
    for (LeafRequest& r : leaves) {
      r.value->reward.fill(0.5f);
      r.value->win.fill(0.5f);
      if (r.want_priors) std::fill(r.priors, r.priors + r.num_actions, 1.0f / float(r.num_actions));
    }
  }
};

// The searches of BM_SearchMany and BM_SearchOneByOne: 100 iterations, B per search a round;
// `model` 1: the network values the leaves, 0: ConstantBatchEvaluator.
MctsConfig many_config(int batch, bool model) {
  MctsConfig c;
  c.iterations = 100;
  c.memory_mb = 16;
  if (model) c.evaluator = std::make_shared<NetworkBatchEvaluator>(batch);
  else c.evaluator = std::make_shared<ConstantBatchEvaluator>(batch);
  return c;
}

std::vector<State> many_positions(int games) {
  std::vector<State> states;
  for (int i = 0; i < games; ++i) states.push_back(position_at(36, uint64_t(3 + i)));
  return states;
}

void report_many(benchmark::State& bench, uint64_t iterations, uint64_t calls, uint64_t leaves) {
  bench.SetItemsProcessed(int64_t(iterations));
  bench.counters["leaves_per_call"] = double(leaves) / double(calls);
  bench.counters["calls"] = double(calls) / double(bench.iterations());
}

// Both ways over the same cases: 64 games, batch 4 or 1, with or without the network.
void many_args(benchmark::internal::Benchmark* b) {
  b->Args({64, 4, 1})->Args({64, 1, 1})->Args({64, 4, 0})->Args({64, 1, 0});
  b->Unit(benchmark::kMillisecond)->UseRealTime();
}

void BM_SearchMany(benchmark::State& bench) {
  const std::vector<State> states = many_positions(int(bench.range(0)));
  const MctsConfig config = many_config(int(bench.range(1)), bench.range(2) != 0);
  std::vector<uint64_t> seeds(states.size(), 0);
  uint64_t iterations = 0, calls = 0, leaves = 0;
  for (auto _ : bench) {
    for (uint64_t& seed : seeds) ++seed;
    const std::vector<SearchResult> results = search_many(states, config, seeds);
    // The search in the most calls took part in every one, and counts every leaf they held.
    const SearchResult* longest = &results[0];
    for (const SearchResult& r : results) {
      iterations += r.iterations;
      if (r.evaluator_calls > longest->evaluator_calls) longest = &r;
    }
    calls += longest->evaluator_calls;
    leaves += longest->evaluator_leaves;
  }
  report_many(bench, iterations, calls, leaves);
}
BENCHMARK(BM_SearchMany)->Apply(many_args);

void BM_SearchOneByOne(benchmark::State& bench) {
  const std::vector<State> states = many_positions(int(bench.range(0)));
  const MctsConfig config = many_config(int(bench.range(1)), bench.range(2) != 0);
  uint64_t iterations = 0, calls = 0, leaves = 0, seed = 0;
  for (auto _ : bench) {
    ++seed;
    for (const State& s : states) {
      const SearchResult r = analyse(s, config, seed);  // a fresh tree, as search_many's
      iterations += r.iterations;
      calls += r.evaluator_calls;
      leaves += r.evaluator_leaves;
    }
  }
  report_many(bench, iterations, calls, leaves);
}
BENCHMARK(BM_SearchOneByOne)->Apply(many_args);

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
