// The engine and an agent from C++ (docs/cpp.md): a random 2-player game of the base game with
// Abbey & Mayor, then the greedy bot's move in a new game. Built with the tests; ctest runs it.
#include <cstdio>

#include "engine/game.h"
#include "engine/rng.h"
#include "search/agents.h"

int main() {
  carc::Config config;  // players, expansions, variants, seed, draw_order (engine/config.h)
  config.players = 2;
  config.expansions = {"abbey-mayor"};
  config.seed = 7;
  carc::State state(config);
  carc::Rng rng(1);
  while (!state.is_terminal()) {
    if (state.is_chance()) state.apply(state.sample_chance());  // a draw by the state's own PRNG
    else state.apply(state.sample_legal_action(rng));
  }
  std::printf("final scores: %d %d\n", state.score(0), state.score(1));

  config.expansions = {};
  carc::State fresh(config);
  fresh.apply(fresh.sample_chance());
  auto greedy = carc::make_agent("greedy");
  carc::Action move = greedy->choose(fresh, rng);
  std::printf("greedy plays: %s\n", fresh.action_to_string(move).c_str());
  return 0;
}
