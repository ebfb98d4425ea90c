// Fixed workloads for counting instructions (tools/perf_gate.py runs them under valgrind's
// callgrind). Timings on a shared machine vary by ±20%; the instructions of a fixed workload
// repeat exactly, so they can gate a change. Only run_workload is counted
// (--toggle-collect), so building the program's statics and the start position is not.
//
//   carc_instructions <workload> <count>
//     random-base-2     <count> random 2-player base games (farmers on), seeds 0, 1, ...
//     random-base-4     the same with 4 players
//     random-all-2      2-player games with every expansion (the City start)
//     mcts-start        one default MCTS search of <count> iterations, one thread, from the
//                       first decision of a 2-player base game
//     mcts-mid          the same from turn 36
//     mcts-value-start  mcts-start with the learned value at the rollout's end (the default mcts
//                       of a 2-player base game; the rollout search's cost is mcts-start's)
//     mcts-value-mid    the same from turn 36
// It prints the workload's own measure (decisions, iterations), to check the work done.
#include <cstdio>
#include <cstdlib>
#include <string>

#include "engine/game.h"
#include "search/mcts.h"
#include "search/playout.h"

namespace carc {
namespace {

Config config_of(const std::string& workload) {
  Config config;
  if (workload == "random-base-4") config.players = 4;
  if (workload == "random-all-2") {
    config.expansions = {"abbey-mayor", "anniv20", "king-robber", "shrines", "city"};
  }
  return config;
}

// The first decision of turn `turns` of a seeded random 2-player base game.
State position_at(int turns) {
  Config config;
  config.seed = 3;
  State s(config);
  Rng rng(3);
  while (s.turn_number() < turns || s.is_chance()) {
    if (s.is_chance()) s.apply_unchecked(s.sample_chance());
    else s.apply_unchecked(s.sample_legal_action(rng));
  }
  return s;
}

// Kept out of line: callgrind counts this function and what it calls.
[[gnu::noinline]] long run_workload(const std::string& workload, int count, const State& root) {
  if (workload.rfind("mcts-", 0) == 0) {
    MctsConfig c;
    c.iterations = count;
    c.threads = 1;
    c.reuse = false;
    const bool value = workload.rfind("mcts-value-", 0) == 0;
    c.rollout.heuristic = value ? Heuristic::Value : Heuristic::Greedy;  // learned or rollout search
    Mcts mcts(c);
    return long(mcts.search(root, 1).iterations);
  }
  Config config = config_of(workload);
  Rng rng(1);
  long decisions = 0;
  for (int i = 0; i < count; ++i) {
    config.seed = uint64_t(i);
    State s(config);
    decisions += random_playout(s, rng);
  }
  return decisions;
}

// Not counted: loads the shipped value networks and fills the value inputs' tables, statics that
// a program builds once.
void warm_up(const State& root) {
  MctsConfig c;
  c.iterations = 1;
  c.threads = 1;
  Mcts(c).search(root, 1);
}

}  // namespace
}  // namespace carc

int main(int argc, char** argv) {
  const std::string names[] = {"random-base-2", "random-base-4",    "random-all-2",  "mcts-start",
                               "mcts-mid",      "mcts-value-start", "mcts-value-mid"};
  std::string workload = argc > 1 ? argv[1] : "";
  bool known = false;
  for (const std::string& n : names) known = known || n == workload;
  if (argc != 3 || !known || std::atoi(argv[2]) <= 0) {
    std::fprintf(stderr, "usage: carc_instructions <workload> <count>\nworkloads:");
    for (const std::string& n : names) std::fprintf(stderr, " %s", n.c_str());
    std::fprintf(stderr, "\n");
    return 2;
  }
  int count = std::atoi(argv[2]);
  carc::State root =
      carc::position_at(workload.size() > 4 && workload.compare(workload.size() - 4, 4, "-mid") == 0 ? 36 : 0);
  if (workload.rfind("mcts-value-", 0) == 0) carc::warm_up(root);
  long done = carc::run_workload(workload, count, root);
  std::printf("%s %d: %ld\n", workload.c_str(), count, done);
  return 0;
}
