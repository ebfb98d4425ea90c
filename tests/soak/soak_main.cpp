// carc_soak: the long reliability run (tools/soak.sh builds it under ASan + UBSan and under
// TSan). Random games over every rule mix and 2-6 players with State::check_consistency after
// every move, one position round trip a game (tests/cpp/invariants.h) and the end-of-game
// checks; or MCTS searches with 2 threads at random nodes of every mix. Prints progress with an
// ETA; a stopped run resumes with --from at the game or search it printed last.
//
//   carc_soak moves N [--from G]      random moves, at least N
//   carc_soak searches N [--from S]   MCTS searches (2 threads, 300 iterations each)
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/mcts.h"
#include "tests/cpp/invariants.h"

namespace carc {
namespace {

// Every mix the engine supports, from the base game to everything (the City or River II start).
Config mix(uint64_t i) {
  static const std::vector<std::vector<std::string>> kMixes = {
      {},
      {"abbey-mayor"},
      {"anniv20"},
      {"king-robber", "shrines"},
      {"river2"},
      {"city"},
      {"city", "abbey-mayor", "king-robber"},
      {"abbey-mayor", "anniv20", "king-robber", "shrines", "city"},
      {"abbey-mayor", "anniv20", "king-robber", "shrines", "river2"},
  };
  Config c;
  c.expansions = kMixes[i % kMixes.size()];
  c.players = 2 + int(i / kMixes.size() % 5);
  c.seed = 0x50a4 + i;
  if (i % 3 == 1 && c.expansions.size() && c.expansions[0] == "abbey-mayor") c.variants["abbey_endgame"] = "final_round";
  return c;
}

struct Progress {
  const char* what;
  long goal;
  std::chrono::steady_clock::time_point start = std::chrono::steady_clock::now();
  long last_print = 0;

  void show(long done, long unit) {
    if (done - last_print < goal / 100 && done < goal) return;
    last_print = done;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
    double eta = done > 0 ? s * double(goal - done) / double(done) : 0;
    std::printf("%s: %ld / %ld (%.0f%%), %.0f s, ETA %.0f s; resume with --from %ld\n", what, done, goal,
                100.0 * double(done) / double(goal), s, eta > 0 ? eta : 0, unit);
    std::fflush(stdout);
  }
};

long soak_moves(long goal, long from) {
  Progress progress{"moves", goal};
  long moves = 0, games = 0;
  for (long g = from; moves < goal; ++g, ++games) {
    State s(mix(uint64_t(g)));
    Rng rng{uint64_t(g)};
    const int round_trip_turn = int(rng.below(80));
    while (!s.is_terminal()) {
      s.check_consistency();
      if (s.turn_number() == round_trip_turn && (s.phase() == Phase::Draw || s.phase() == Phase::AbbeyChoice))
        invariants::check_position_round_trip(s, rng);
      s.apply(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
      ++moves;
    }
    invariants::check_game_end(s);
    progress.show(moves, g + 1);
  }
  std::printf("done: %ld moves in %ld games, every invariant held\n", moves, games);
  return moves;
}

long soak_searches(long goal, long from) {
  Progress progress{"searches", goal};
  MctsConfig config = parse_mcts_options("iters=300,threads=2");
  Mcts mcts(config);
  for (long i = from; i < from + goal; ++i) {
    State s(mix(uint64_t(i)));
    Rng rng{uint64_t(i)};
    const int moves = int(rng.below(150));
    for (int m = 0; m < moves && !s.is_terminal(); ++m)
      s.apply(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
    while (!s.is_terminal() && s.is_chance()) s.apply(s.sample_chance());
    if (s.is_terminal()) continue;
    SearchResult r = mcts.search(s, uint64_t(i));
    if (!s.is_legal(r.best)) throw std::logic_error("the search chose an illegal action");
    progress.show(i - from + 1, i + 1);
  }
  std::printf("done: %ld searches with 2 threads\n", goal);
  return goal;
}

}  // namespace
}  // namespace carc

int main(int argc, char** argv) {
  if (argc < 3) {
    std::fprintf(stderr, "usage: carc_soak moves|searches N [--from K]\n");
    return 2;
  }
  const std::string mode = argv[1];
  const long n = std::atol(argv[2]);
  const long from = argc >= 5 && std::string(argv[3]) == "--from" ? std::atol(argv[4]) : 0;
  try {
    if (mode == "moves") carc::soak_moves(n, from);
    else if (mode == "searches") carc::soak_searches(n, from);
    else throw std::invalid_argument("unknown mode " + mode);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "FAULT: %s\n", e.what());
    return 1;
  }
  return 0;
}
