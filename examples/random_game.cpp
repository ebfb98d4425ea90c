// The engine and an agent from C++ (docs/cpp.md): a random 2-player game of the base game with
// Abbey & Mayor, then the greedy bot's move in a new game. Built with the tests; ctest runs it.
#include <cstdio>

#include "engine/game.h"
#include "engine/rng.h"
#include "search/agents.h"

int main() {
  carc::Rng rng(1);
  carc::State state(carc::Config{.players = 2, .expansions = {"abbey-mayor"}, .seed = 7});
  while (!state.is_terminal()) {
    if (state.is_chance()) state.sample_chance();  // draws with the state's own seeded PRNG
    else state.apply(state.sample_legal_action(rng));
  }
  std::printf("final scores: %d %d\n", state.score(0), state.score(1));

  carc::State fresh(carc::Config{.players = 2, .seed = 7});
  fresh.sample_chance();
  auto greedy = carc::make_agent("greedy");
  carc::Action move = greedy->choose(fresh, rng);
  std::printf("greedy plays: %s\n", fresh.action_to_string(move).c_str());
  return 0;
}
