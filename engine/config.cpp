#include "config.h"

#include <algorithm>

#include "board.h"
#include "catalogue.h"
#include "errors.h"
#include "types.h"

namespace carc {

const std::vector<ExpansionInfo>& known_expansions() {
  static const std::vector<ExpansionInfo> kList = {
      {"abbey-mayor", "RULES 2 (Abbey & Mayor)", true},
      {"river2", "RULES 3 RV (River II; the same as variant start = river2)", true},
      {"city", "RULES 3 CK (City of Carcassonne and the Count; the same as variant start = city)", true},
      {"king-robber", "RULES 3 KR + CK-T-1 (King & Robber, 5 land tiles)", true},
      {"shrines", "RULES 3 SH (cult places)", true},
      {"anniv20", "RULES 4 (20th Anniversary)", true},
      // Supported when CARC_TILES names a sound tile file.
      {kCustomSet, "the tile file named by CARC_TILES (docs/balance.md, Your own tiles)",
       Catalogue::builtin().tile_file().error.empty() && !Catalogue::builtin().tile_file().path.empty()},
  };
  return kList;
}

const std::vector<VariantInfo>& known_variants() {
  static const std::vector<VariantInfo> kList = {
      {"abbey_endgame", {"mandatory", "final_round", "none"}, true, "abbey-mayor"},
      {"wagon_move", {"c2", "c1"}, true, "abbey-mayor"},
      {"start", {"tile", "river2", "city", "city_plain"}, true, nullptr},
      {"count_move", {"free", "clockwise", "follow"}, true, "city"},
  };
  return kList;
}

namespace {
std::string join(const std::vector<std::string>& items) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// Expansion custom needs a sound tile file that changes something.
void check_tile_file(const Catalogue& cat) {
  const TileFile& file = cat.tile_file();
  if (file.path.empty())
    throw ConfigError(std::string("expansion 'custom' is not supported without a tile file: name one in the "
                                  "environment variable ") +
                      kTileFileVariable + " (docs/balance.md, Your own tiles)");
  if (!file.error.empty()) throw ConfigError("expansion custom: " + file.error);
}

// ... and a game whose tiles fit the board's tables.
void check_tiles_fit(const Catalogue& cat, const std::vector<std::string>& expansions) {
  int tiles = 0;
  for (const TileKind& k : cat.kinds()) {
    const std::string expansion = k.set == "count-city" ? "city" : k.set;
    if (k.set == "base" || std::find(expansions.begin(), expansions.end(), expansion) != expansions.end())
      tiles += k.copies(true);
  }
  if (tiles > kMaxTiles)
    throw ConfigError("expansion custom: this game would hold " + std::to_string(tiles) + " tiles, at most " +
                      std::to_string(kMaxTiles) + " fit");
}
}  // namespace

std::vector<int> starting_points(const Config& config) {
  std::vector<int> points(size_t(std::max(config.players, 0)), 0);
  auto given = config.variants.find(kPointsVariant);
  if (given == config.variants.end()) return points;
  const std::string& text = given->second;
  const std::string usage = "variant points = '" + text + "': ";
  std::vector<int> parsed;
  for (size_t pos = 0; pos <= text.size();) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, comma - pos);
    if (item.empty() || item.size() > 4 ||
        !std::all_of(item.begin(), item.end(), [](char c) { return c >= '0' && c <= '9'; }))
      throw ConfigError(usage + "expected whole numbers 0 to " + std::to_string(kMaxStartPoints) +
                        " separated by commas (e.g. 0,3,5), got '" + item + "'");
    int value = std::stoi(item);
    if (value > kMaxStartPoints)
      throw ConfigError(usage + "each seat starts with 0 to " + std::to_string(kMaxStartPoints) + " points, got " +
                        item);
    parsed.push_back(value);
    pos = comma + 1;
  }
  if (int(parsed.size()) != config.players)
    throw ConfigError(usage + "one number per player expected (" + std::to_string(config.players) + "), got " +
                      std::to_string(parsed.size()));
  return parsed;
}

Config validate(Config config) {
  if (config.players < 2 || config.players > kMaxPlayers)
    throw ConfigError("players must be 2 to 6 (RULES B-1), got " + std::to_string(config.players));
  std::vector<std::string> seen;
  for (const std::string& name : config.expansions) {
    auto it = std::find_if(known_expansions().begin(), known_expansions().end(),
                           [&](const ExpansionInfo& e) { return name == e.name; });
    if (it == known_expansions().end()) {
      std::vector<std::string> names;
      for (const ExpansionInfo& e : known_expansions()) names.push_back(e.name);
      throw ConfigError("unknown expansion '" + name + "' (known: " + join(names) + ")");
    }
    if (name == kCustomSet) check_tile_file(Catalogue::builtin());
    if (!it->supported) throw ConfigError("expansion '" + name + "' (" + it->rules + ") is not supported yet");
    if (std::find(seen.begin(), seen.end(), name) != seen.end())
      throw ConfigError("expansion '" + name + "' is listed twice");
    seen.push_back(name);
  }
  for (const auto& [key_, value] : config.variants) {
    const std::string& key = key_;        // a lambda may not capture a structured binding before clang 16
    if (key == kPointsVariant) continue;  // a free value, checked below
    auto it = std::find_if(known_variants().begin(), known_variants().end(),
                           [&](const VariantInfo& v) { return key == v.name; });
    if (it == known_variants().end()) {
      std::vector<std::string> names;
      for (const VariantInfo& v : known_variants()) names.push_back(v.name);
      names.push_back(kPointsVariant);
      throw ConfigError("unknown variant '" + key + "' (known: " + join(names) + ")");
    }
    if (std::find(it->values.begin(), it->values.end(), value) == it->values.end())
      throw ConfigError("variant " + key + " has no value '" + value + "' (values: " + join(it->values) + ")");
    if (!it->supported) throw ConfigError("variant '" + key + "' is not supported yet");
  }
  // CK-0: River II is a start option; naming the expansion or the start means the same.
  bool river = std::find(seen.begin(), seen.end(), "river2") != seen.end();
  auto start = config.variants.find("start");
  bool any_city = std::find(seen.begin(), seen.end(), "city") != seen.end() ||
                  (start != config.variants.end() && start->second.rfind("city", 0) == 0);
  if ((river || (start != config.variants.end() && start->second == "river2")) && any_city)
    throw ConfigError("River II and the City of Carcassonne are not combined (CK-0)");
  if (river && start != config.variants.end() && start->second != "river2")
    throw ConfigError("expansion river2 is the start option start = river2 (CK-0), not start = " + start->second);
  if (start != config.variants.end() && start->second == "river2" && !river) {
    config.expansions.push_back("river2");
    seen.push_back("river2");
  }
  if (river) config.variants["start"] = "river2";
  // The City of Carcassonne likewise: expansion "city" is start = city (or city_plain).
  bool city = std::find(seen.begin(), seen.end(), "city") != seen.end();
  start = config.variants.find("start");
  bool city_start = start != config.variants.end() && (start->second == "city" || start->second == "city_plain");
  if (city && start != config.variants.end() && !city_start)
    throw ConfigError("expansion city is the start option start = city or city_plain (CK-0), not start = " +
                      start->second);
  if (city_start && !city) {
    config.expansions.push_back("city");
    seen.push_back("city");
  }
  if (city && !city_start) config.variants["start"] = "city";
  // A variant of an expansion not in play would change nothing: naming a value other than the
  // default is a mistake. (The default is accepted: validated configs list every variant.)
  for (const VariantInfo& v : known_variants()) {
    auto given = config.variants.find(v.name);
    if (!v.expansion || given == config.variants.end() || given->second == v.values.front()) continue;
    if (std::find(seen.begin(), seen.end(), v.expansion) == seen.end())
      throw ConfigError("variant " + given->first + " = " + given->second + " needs expansion " + v.expansion +
                        ", which is not in play");
    if (given->first == "count_move" && config.variants.at("start") != "city")  // start is set with the City
      throw ConfigError("variant count_move = " + given->second +
                        " needs the Count (start = city), not start = " + config.variants.at("start"));
  }
  for (const VariantInfo& v : known_variants())
    if (v.supported && !config.variants.count(v.name)) config.variants[v.name] = v.values.front();
  // VAR-POINTS: one plain form per rule, so that equal rules compare equal.
  std::vector<int> points = starting_points(config);
  std::string plain;
  for (int p : points) {
    if (!plain.empty()) plain += ',';
    plain += std::to_string(p);
  }
  if (std::any_of(points.begin(), points.end(), [](int p) { return p != 0; })) config.variants[kPointsVariant] = plain;
  else config.variants.erase(kPointsVariant);
  const Catalogue& cat = Catalogue::builtin();
  const bool custom = std::find(seen.begin(), seen.end(), kCustomSet) != seen.end();
  if (custom) check_tiles_fit(cat, seen);
  for (const std::string& tile : config.draw_order) {
    if (!cat.contains(tile)) throw ConfigError("draw_order: unknown tile '" + tile + "'");
    const TileKind& kind = cat.kind(cat.find(tile));
    bool enabled = kind.set == "base" || std::find(seen.begin(), seen.end(), kind.set) != seen.end();
    if (!enabled)
      throw ConfigError("draw_order: tile '" + tile + "' belongs to set '" + kind.set + "', which is not enabled");
  }
  std::vector<int> used(cat.size(), 0);
  for (const std::string& tile : config.draw_order) {
    const TileKind& kind = cat.kind(cat.find(tile));
    int available = kind.copies(custom) - (kind.is_start ? 1 : 0);
    if (++used[kind.id] > available)
      throw ConfigError("draw_order: more copies of '" + tile + "' than the set has (" + std::to_string(available) +
                        ")");
  }
  return config;
}

}  // namespace carc
