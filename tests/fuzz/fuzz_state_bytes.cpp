// libFuzzer target: State::from_bytes (pickling, caches) on damaged bytes. The first byte picks
// the bytes: odd, the input itself after a valid header (raw bytes; zeros past its end); even,
// the bytes of a real state (a game of the mix the next 2 bytes pick, played for 0-180 moves
// as the next byte picks) changed by the rest of the input, 3 bytes a change: a 2-byte
// offset into the state and the byte to put there. Every input must either be refused with
// RecordError, or give a state that passes every invariant (tests/cpp/invariants.h), stays
// consistent over 16 moves chosen by the input, and whose own bytes read back the same.
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <map>
#include <optional>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "fuzz_input.h"
#include "tests/cpp/invariants.h"

namespace carc {
namespace {

// The bytes of a real state: the game of a mix (expansions and start from the first byte,
// players from the second, fuzz_input.h's layout) played for 0-180 moves by the third. Cached:
// a game costs more than the checks; the key keeps the cache within ~130 MB.
const std::string& real_state_bytes(fuzz::Input& in) {
  static std::map<std::tuple<int, int, int>, std::string> cache;
  const uint8_t mix = in.byte() & 0x3F, players = in.byte() % 5, moves = in.byte() % 16;
  std::string& bytes = cache[{mix, players, moves}];
  if (bytes.empty()) {
    const uint8_t config_bytes[3] = {mix, players, mix};  // the variants follow the mix
    fuzz::Input config_input(config_bytes, 3);
    State s(config_input.valid_config().value_or(Config{}));
    Rng rng(moves);
    for (int left = 12 * moves; left > 0 && !s.is_terminal(); --left) {
      std::vector<Action> legal = s.legal_actions();
      s.apply(s.is_chance() ? s.sample_chance() : legal[rng.below(uint32_t(legal.size()))]);
    }
    bytes = s.to_bytes();
  }
  return bytes;
}

}  // namespace
}  // namespace carc

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carc;
  fuzz::Input in(data, size);
  static const size_t kHeader = State(Config{}).to_bytes().size() - sizeof(State);
  std::string bytes;
  if (in.byte() % 2) {
    bytes = State(Config{}).to_bytes().substr(0, kHeader);
    std::string raw = in.rest();
    raw.resize(sizeof(State), '\0');
    bytes += raw;
  } else {
    bytes = real_state_bytes(in);
    while (!in.empty()) {
      const size_t offset = (size_t(in.byte()) << 8 | in.byte()) % sizeof(State);
      bytes[kHeader + offset] = char(in.byte());
    }
  }
  std::optional<State> s;
  try {
    s = State::from_bytes(bytes);
  } catch (const RecordError&) {
    return 0;  // refused with a message
  }
  if (!State::from_bytes(s->to_bytes()).same_position(*s)) throw std::logic_error("bytes do not read back");
  invariants::check_step(*s);     // every invariant at the node read (the costly checks once)
  fuzz::Input moves(data, size);  // the input's bytes choose the moves too
  moves.play(*s, 16, [](const State& node) { node.check_consistency(); });
  return 0;
}
