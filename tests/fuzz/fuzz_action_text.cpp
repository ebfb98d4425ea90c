// libFuzzer target: the action-text parser at a node the input's first bytes reach (rules and
// moves as in fuzz_moves), the rest of the input being the text. Whatever the text: parsing
// either gives an action or throws IllegalActionError; a legal action applies and leaves a
// consistent state, and its text parses back to it; an illegal one throws IllegalActionError
// and leaves the state as it was.
#include <cstddef>
#include <cstdint>
#include <stdexcept>

#include "fuzz_input.h"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  using namespace carc;
  fuzz::Input in(data, size);
  std::optional<Config> config = in.valid_config();
  if (!config) return 0;
  State s(*config);
  in.play(s, in.byte(), [](const State&) {});
  const std::string text = in.rest();
  Action a;
  try {
    a = s.parse_action(text);
  } catch (const IllegalActionError&) {
    return 0;  // malformed text, refused with a message
  }
  const State before = s;
  const bool legal = s.is_legal(a);
  try {
    s.apply(a);
  } catch (const IllegalActionError&) {
    if (legal) throw std::logic_error("a legal action was refused: " + text);
    if (!s.same_position(before)) throw std::logic_error("a refused action changed the state: " + text);
    return 0;
  }
  if (!legal) throw std::logic_error("an illegal action was applied: " + text);
  s.check_consistency();
  if (before.parse_action(before.action_to_string(a)) != a) throw std::logic_error("no text round trip: " + text);
  return 0;
}
