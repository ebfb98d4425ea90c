// Errors the engine reports at its boundary. Inside, invariants are asserts; whatever a caller
// can get wrong (a config, an action, a record, a position) throws one of these and leaves the
// state unchanged. The Python module maps each to an exception class of its own.
#pragma once

#include <stdexcept>
#include <string>

namespace carc {

struct Error : std::runtime_error {
  using std::runtime_error::runtime_error;
};
// A config names an unknown or unsupported option, or a value out of range.
struct ConfigError : Error {
  using Error::Error;
};
// An action that is malformed or not legal in the current state.
struct IllegalActionError : Error {
  using Error::Error;
};
// A described position that is not a reachable, consistent board.
struct PositionError : Error {
  using Error::Error;
};
// A record that is malformed or does not replay: a game record, or a state's bytes
// (State::from_bytes) that are another build's or damaged.
struct RecordError : Error {
  using Error::Error;
};

}  // namespace carc
