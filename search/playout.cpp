#include "playout.h"

#include "agents.h"
#include "parallel.h"

namespace carc {

int random_playout(State& state, Rng& rng) {
  int decisions = 0;
  while (!state.is_terminal()) {
    if (state.is_chance()) {
      state.apply_unchecked(state.sample_chance());
      continue;
    }
    state.apply_unchecked(state.sample_legal_action(rng));
    ++decisions;
  }
  return decisions;
}

namespace {
GameResult summarise(const State& state, int decisions) {
  GameResult r;
  r.decisions = decisions;
  r.tiles_placed = state.board().num_tiles();
  for (int p = 0; p < state.num_players(); ++p) {
    r.scores.push_back(state.score(p));
    std::vector<int> causes;
    for (int c = 0; c < kNumCauses; ++c) causes.push_back(state.score(p, Cause(c)));
    r.breakdown.push_back(causes);
  }
  return r;
}
}  // namespace

std::vector<GameResult> play_random_games(const Config& config, int games, int threads,
                                          const std::atomic<bool>* cancel) {
  validate(config);  // throws before any thread starts
  std::vector<GameResult> results(size_t(std::max(games, 0)));
  auto play = [&](int i) {
    if (cancel && cancel->load(std::memory_order_relaxed)) return;  // checked between games
    Config c = config;
    c.seed = config.seed + uint64_t(i);
    State state(c);
    Rng rng(c.seed ^ 0xA5A5A5A5DEADBEEFull);
    int decisions = random_playout(state, rng);
    results[size_t(i)] = summarise(state, decisions);
  };
  parallel_for(games, threads, play);
  if (cancel && cancel->load()) throw Cancelled();
  return results;
}

GameResult play_game(const Config& config, const std::vector<std::string>& agent_names, uint64_t agent_seed,
                     const std::atomic<bool>* cancel) {
  std::vector<std::unique_ptr<Agent>> agents;
  for (const std::string& name : agent_names) agents.push_back(make_agent(name));
  State state(config);
  Rng rng(agent_seed);
  int decisions = 0;
  while (!state.is_terminal()) {
    if (state.is_chance()) {
      state.apply_unchecked(state.sample_chance());
      continue;
    }
    if (cancel && cancel->load(std::memory_order_relaxed)) throw Cancelled();
    Agent& agent = *agents[size_t(state.current_player()) % agents.size()];
    state.apply(agent.choose(state, rng));
    ++decisions;
  }
  return summarise(state, decisions);
}

}  // namespace carc
