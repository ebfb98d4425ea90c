// Whole games without search: random playouts and games between agents, one or many at once.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/game.h"
#include "engine/rng.h"

namespace carc {

// Plays to the end: draws with the state's PRNG, then at each decision a uniformly random legal
// action (a random placement, then a random figure option including none). Returns the number
// of decisions made.
int random_playout(State& state, Rng& rng);

struct GameResult {
  std::vector<int> scores;
  std::vector<std::vector<int>> breakdown;  // [player][cause]
  int decisions = 0;
  int tiles_placed = 0;
};

// Plays `games` random games of this config, game i with seed config.seed + i, over `threads`
// threads (0: all cores). Deterministic whatever the thread count. Once `*cancel` is set (from
// any thread) no new game starts, and when the games in play end Cancelled (search/agents.h) is
// thrown: the results are dropped.
std::vector<GameResult> play_random_games(const Config& config, int games, int threads,
                                          const std::atomic<bool>* cancel = nullptr);

// Plays one game between named agents (seat i plays agents[i % agents.size()]). Once `*cancel`
// is set (from any thread) no new move is made and Cancelled (search/agents.h) is thrown.
GameResult play_game(const Config& config, const std::vector<std::string>& agents, uint64_t agent_seed,
                     const std::atomic<bool>* cancel = nullptr);

}  // namespace carc
