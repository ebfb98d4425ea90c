// Self-play demo: games between agents, printing each game's scores and a summary.
//   carc_selfplay [--games N] [--players P] [--agents greedy,random] [--seed S]
// Agents: random, greedy, mcts[:key=value,...], e.g. --agents mcts:iters=100,c=1,greedy
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "search/agents.h"
#include "search/playout.h"

int main(int argc, char** argv) {
  int games = 4, players = 2;
  uint64_t seed = 1;
  std::string agent_list = "greedy,random";
  for (int i = 1; i < argc; ++i) {
    auto value = [&]() -> const char* {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s needs a value\n", argv[i]);
        std::exit(2);
      }
      return argv[++i];
    };
    if (!std::strcmp(argv[i], "--games")) games = std::atoi(value());
    else if (!std::strcmp(argv[i], "--players")) players = std::atoi(value());
    else if (!std::strcmp(argv[i], "--agents")) agent_list = value();
    else if (!std::strcmp(argv[i], "--seed")) seed = std::strtoull(value(), nullptr, 10);
    else {
      std::fprintf(stderr, "usage: %s [--games N] [--players P] [--agents a,b] [--seed S]\n", argv[0]);
      return 2;
    }
  }
  try {
    std::vector<std::string> agents = carc::split_agent_list(agent_list);  // "mcts:iters=100,c=1,greedy"
    std::vector<double> wins(size_t(players), 0), total(size_t(players), 0);
    for (int g = 0; g < games; ++g) {
      carc::Config config;
      config.players = players;
      config.seed = seed + uint64_t(g);
      carc::GameResult r = carc::play_game(config, agents, seed * 7919 + uint64_t(g));
      int best = 0;
      std::printf("game %d:", g + 1);
      for (int p = 0; p < players; ++p) {
        std::printf("  %s %d", agents[size_t(p) % agents.size()].c_str(), r.scores[size_t(p)]);
        best = std::max(best, r.scores[size_t(p)]);
        total[size_t(p)] += r.scores[size_t(p)];
      }
      std::printf("  (%d tiles)\n", r.tiles_placed);
      for (int p = 0; p < players; ++p) wins[size_t(p)] += r.scores[size_t(p)] == best;
    }
    std::printf("summary over %d games:\n", games);
    for (int p = 0; p < players; ++p)
      std::printf("  seat %d (%s): %.0f wins, mean score %.1f\n", p, agents[size_t(p) % agents.size()].c_str(),
                  wins[size_t(p)], total[size_t(p)] / games);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
