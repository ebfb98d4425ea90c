// The rules options of one game: players, expansions, variants, seed, and an optional fixed draw
// order. validate() rejects anything unknown or not yet supported, naming the offending key.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace carc {

struct Config {
  int players = 2;
  std::vector<std::string> expansions;          // RULES sections 2-4; see kExpansions
  std::map<std::string, std::string> variants;  // RULES "Variant" lines; see kVariants, and "points"
  uint64_t seed = 0;
  // Tile ids in the order they are drawn (tests, replays, puzzles). When set, these tiles are the
  // whole bag; otherwise the bag holds every land tile of the enabled sets, shuffled.
  std::vector<std::string> draw_order;
};

struct ExpansionInfo {
  const char* name;
  const char* rules;  // its section of docs/rules.md
  bool supported;
};
struct VariantInfo {
  const char* name;
  std::vector<std::string> values;  // the first is the default
  bool supported;
  const char* expansion;  // the expansion whose rules it changes; nullptr: every game
};

const std::vector<ExpansionInfo>& known_expansions();
const std::vector<VariantInfo>& known_variants();

// Variant "points" (RULES VAR-POINTS) takes a free value, so it is not in known_variants(): the
// points each seat starts with, comma-separated ("0,3,5"), one per player, each 0 to this.
inline constexpr int kMaxStartPoints = 1000;
inline constexpr const char* kPointsVariant = "points";
// The starting points of every seat (0 without the variant); throws ConfigError if malformed.
std::vector<int> starting_points(const Config& config);

// Throws ConfigError if the config is invalid; returns it with defaults filled in (every
// supported variant is listed, with its default if not given; "points" is written in its plain
// form, and left out when every seat starts at 0). A variant of an expansion that is
// not in play is an error unless it names the default (count_move needs the Count: start = city).
Config validate(Config config);

}  // namespace carc
