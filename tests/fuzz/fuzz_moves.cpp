// libFuzzer target: games whose every draw and decision the input's bytes choose, over every
// rule mix and 2-6 players, with every invariant (tests/cpp/invariants.h) checked at every node,
// one position round trip at a turn start the input picks, and the end-of-game checks. A broken
// invariant throws, which the fuzzer reports as a crash, with the input that found it.
// The round trip plays its continuation at random, not from the input, so it is cut at 40
// actions: playing every game to its end tripled the cost of an execution without adding
// coverage the input steers (tools/soak.sh plays every round trip to the end).
#include <cstddef>
#include <cstdint>

#include "fuzz_input.h"
#include "tests/cpp/invariants.h"

constexpr int kRoundTripMoves = 40;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carc;
  fuzz::Input in(data, size);
  std::optional<Config> config = in.valid_config();
  if (!config) return 0;
  State s(*config);
  const int round_trip_turn = in.byte() % 64;
  Rng rng(size);
  bool round_trip_done = false;
  while (!s.is_terminal() && !in.empty()) {
    in.play(s, 1, [](const State& node) { invariants::check_step(node); });
    if (!round_trip_done && s.turn_number() >= round_trip_turn &&
        (s.phase() == Phase::Draw || s.phase() == Phase::AbbeyChoice)) {
      invariants::check_position_round_trip(s, rng, kRoundTripMoves);
      round_trip_done = true;
    }
  }
  if (s.is_terminal()) invariants::check_game_end(s);
  return 0;
}
