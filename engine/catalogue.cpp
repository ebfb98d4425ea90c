#include "catalogue.h"

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace carc {

// Defined in the file CMake generates from engine/data/tiles.txt.
extern const char* const kBuiltinCatalogueText;

const char* cause_name(Cause c) {
  static constexpr const char* kNames[] = {"city", "road",   "cloister", "shrine",     "field",     "barn",
                                           "king", "robber", "arrow",    "city_mayor", "field_barn"};
  return kNames[int(c)];
}

const char* feature_type_name(FeatureType t) {
  static constexpr const char* kNames[] = {"road", "city", "field", "monastery", "shrine", "abbey", "river", "quarter"};
  return kNames[int(t)];
}

namespace {

// What is wrong with a line; Catalogue::add_lines prefixes the source and the line number.
[[noreturn]] void fail(const std::string& what) { throw std::invalid_argument(what); }

// A whole number 0 .. max written in digits (std::stoi would take "3x" and "-1").
int parse_number(std::string_view text, int max, const std::string& what) {
  int value = 0;
  bool digits = !text.empty() && text.size() <= 4;
  for (char c : text) digits &= c >= '0' && c <= '9';
  if (digits) value = std::stoi(std::string(text));
  if (!digits || value > max)
    fail("bad " + what + " '" + std::string(text) + "' (a whole number 0 to " + std::to_string(max) + ")");
  return value;
}

int parse_count(std::string_view text) { return parse_number(text, kMaxCopies, "count"); }

int side_index(char c) {
  switch (c) {
    case 'N': return North;
    case 'E': return East;
    case 'S': return South;
    case 'W': return West;
  }
  fail(std::string("bad side '") + c + "'");
}

Edge edge_of(char c) {
  switch (c) {
    case 'F': return Edge::Field;
    case 'R': return Edge::Road;
    case 'C': return Edge::City;
    case 'W': return Edge::River;
    case 'A': return Edge::Abbey;
    case 'X': return Edge::Joint;
  }
  fail(std::string("bad edge '") + c + "'");
}

uint16_t parse_half_points(std::string_view halves) {
  if (halves == "-") return 0;
  if (halves.size() % 2 != 0) fail("bad field halves");
  uint16_t points = 0;
  for (size_t i = 0; i < halves.size(); i += 2) {
    int side = side_index(halves[i]);
    char half = halves[i + 1];
    if (half != '1' && half != '2') fail("bad field half");
    points |= uint16_t(1u << side_point(Side(side), half == '1' ? 0 : 2));
  }
  return points;
}

SegmentSpec parse_segment(std::string_view token) {
  SegmentSpec seg;
  auto colon = token.find(':');
  std::string_view type = token.substr(0, colon);
  std::string_view rest = colon == std::string_view::npos ? "" : token.substr(colon + 1);
  if (type == "monastery" || type == "shrine" || type == "abbey" || type == "quarter") {
    seg.type = type == "monastery" ? FeatureType::Monastery
               : type == "shrine"  ? FeatureType::Shrine
               : type == "abbey"   ? FeatureType::Abbey
                                   : FeatureType::Quarter;
    return seg;
  }
  if (type == "field") {
    seg.type = FeatureType::Field;
    auto gt = rest.find('>');
    seg.points = parse_half_points(rest.substr(0, gt));
    if (gt != std::string_view::npos) {
      std::string cities(rest.substr(gt + 1));
      std::stringstream in(cities);
      std::string index;
      while (std::getline(in, index, ','))
        seg.cities |= uint16_t(1u << parse_number(index, kMaxSegmentsPerTile - 1, "city index"));
    }
    return seg;
  }
  if (type != "city" && type != "road" && type != "river") fail("unknown feature '" + std::string(token) + "'");
  seg.type = type == "city" ? FeatureType::City : type == "road" ? FeatureType::Road : FeatureType::River;
  size_t i = 0;
  for (; i < rest.size() && rest[i] != '+' && rest[i] != '@'; ++i) {
    seg.points |= uint16_t(1u << side_point(Side(side_index(rest[i])), 1));
    ++seg.num_sides;
  }
  if (seg.num_sides == 0) fail("feature without sides");
  if (i < rest.size() && rest[i] == '+') {
    size_t j = i + 1;
    while (j < rest.size() && rest[j] != '@') ++j;
    seg.pennants = uint8_t(parse_number(rest.substr(i + 1, j - i - 1), 9, "pennants"));
    i = j;
  }
  if (i < rest.size() && rest[i] == '@') {
    std::string_view end = rest.substr(i + 1);
    if (end == "junction") seg.road_end = RoadEnd::Junction;
    else if (end == "cloister") seg.road_end = RoadEnd::Cloister;
    else if (end == "house") seg.road_end = RoadEnd::House;
    else if (end == "carcassonne") seg.road_end = RoadEnd::Carcassonne;
    else if (end.substr(0, 5) == "city:") {
      seg.road_end = RoadEnd::City;
      seg.road_end_city = uint8_t(parse_number(end.substr(5), kMaxSegmentsPerTile - 1, "city index"));
    } else {
      fail("unknown road end '" + std::string(end) + "'");
    }
  }
  return seg;
}

ArrowKind arrow_kind(std::string_view name) {
  if (name == "meeple-beside") return ArrowKind::MeepleBeside;
  if (name == "place-anywhere") return ArrowKind::PlaceAnywhere;
  if (name == "extra-turn") return ArrowKind::ExtraTurn;
  fail("unknown arrow kind '" + std::string(name) + "'");
}

uint16_t rotate_points(uint16_t points, int r) {
  uint16_t out = 0;
  for (int p = 0; p < kNumPoints; ++p)
    if (points & (1u << p)) out |= uint16_t(1u << rotate_point(p, r));
  return out;
}

// Fills rotations 1..3 from rotation 0, and checks the tile against its own edges.
void finish_kind(TileKind& kind) {
  RotatedTile& base = kind.rotations[0];
  base.segment_at.fill(-1);
  for (int i = 0; i < kind.num_segments; ++i) {
    SegmentSpec& seg = base.segments[i];
    for (int j = 0; j < kind.num_segments; ++j)
      if (j != i && base.segments[j].type == seg.type) seg.same_type |= uint16_t(1u << j);
    for (int p = 0; p < kNumPoints; ++p) {
      if (!(seg.points & (1u << p))) continue;
      if (base.segment_at[p] != -1) fail("two features share a point");
      base.segment_at[p] = int8_t(i);
    }
    if (is_cloister_like(seg.type)) kind.cloister_segment = i;
    if (can_hold_figure(seg.type)) kind.figure_segments |= uint16_t(1u << i);
    if (seg.type == FeatureType::Field) kind.field_segments |= uint16_t(1u << i);
    if (seg.type == FeatureType::River) kind.river_sides += seg.num_sides;
  }
  if (std::find(kind.marks.begin(), kind.marks.end(), "pig-herd") != kind.marks.end()) {
    int best = 0;
    for (int i = 0; i < kind.num_segments; ++i) {
      const SegmentSpec& seg = base.segments[i];
      int halves = __builtin_popcount(seg.points);
      if (seg.type == FeatureType::Field && halves > best) {
        best = halves;
        kind.pig_segment = i;
      }
    }
  }
  // Sides agree with features: a city/road/river side has that feature at its middle point, a
  // field side has field halves, and no other side has any.
  for (int s = 0; s < kNumSides; ++s) {
    Edge e = base.edges[s];
    int mid = base.segment_at[side_point(Side(s), 1)];
    FeatureType want = e == Edge::City ? FeatureType::City : e == Edge::Road ? FeatureType::Road : FeatureType::River;
    bool has_mid = e == Edge::City || e == Edge::Road || e == Edge::River;
    bool halves_are_fields = true;
    for (int k : {0, 2}) {
      int h = base.segment_at[side_point(Side(s), k)];
      halves_are_fields &= h >= 0 && base.segments[h].type == FeatureType::Field;
    }
    bool ok = has_mid == (mid >= 0) && (!has_mid || base.segments[mid].type == want);
    if (e == Edge::Field || e == Edge::Road) ok &= halves_are_fields;
    if (e == Edge::City || e == Edge::Abbey) ok &= base.segment_at[side_point(Side(s), 0)] < 0;
    if (!ok) fail("side " + std::string(1, "NESW"[s]) + " disagrees with the features");
  }
  for (int i = 0; i < kind.num_segments; ++i) {
    const SegmentSpec& seg = base.segments[i];
    for (int c = 0; c < kMaxSegmentsPerTile; ++c)
      if ((seg.cities >> c & 1) && (c >= kind.num_segments || base.segments[c].type != FeatureType::City))
        fail("field touches a feature that is not a city");
  }
  for (int r = 1; r < 4; ++r) {
    RotatedTile& rot = kind.rotations[r];
    rot = base;
    for (int s = 0; s < kNumSides; ++s) rot.edges[(s + r) & 3] = base.edges[s];
    for (int p = 0; p < kNumPoints; ++p) rot.segment_at[rotate_point(p, r)] = base.segment_at[p];
    for (int i = 0; i < kind.num_segments; ++i) rot.segments[i].points = rotate_points(base.segments[i].points, r);
    rot.arrow_points = Side((base.arrow_points + r) & 3);
  }
  for (RotatedTile& rot : kind.rotations) {
    rot.signature = 0;
    for (int s = 0; s < kNumSides; ++s) {
      const Edge edge = rot.edges[s];
      const int facing = opposite(Side(s));
      rot.signature |= uint16_t(uint16_t(edge) << (4 * s));
      rot.side_need[s] = edge == Edge::Abbey ? 0 : uint16_t(uint16_t(edge) << (4 * facing));
      rot.side_care[s] = edge == Edge::Abbey ? 0 : uint16_t(0xFu << (4 * facing));
    }
  }
  // A rotation is distinct unless an earlier one shows the same sides, segments and arrow.
  for (int r = 0; r < 4; ++r) {
    bool duplicate = false;
    for (int q = 0; q < r && !duplicate; ++q) {
      const RotatedTile& a = kind.rotations[q];
      const RotatedTile& b = kind.rotations[r];
      if (a.signature != b.signature || (kind.arrow != ArrowKind::None && a.arrow_points != b.arrow_points)) continue;
      bool same = true;
      for (int i = 0; i < kind.num_segments && same; ++i) {
        bool found = false;
        for (int j = 0; j < kind.num_segments && !found; ++j)
          found = a.segments[j].type == b.segments[i].type && a.segments[j].points == b.segments[i].points &&
                  a.segments[j].pennants == b.segments[i].pennants;
        same = found;
      }
      duplicate = same;
    }
    if (duplicate) continue;
    kind.distinct_signatures[kind.num_distinct_rotations] = kind.rotations[r].signature;
    kind.distinct_rotations[kind.num_distinct_rotations++] = uint8_t(r);
  }
}

// A tile of a tile file is a land tile of the bag: the start, the river, the abbey and the City's
// squares have rules of their own, which only their sets' tiles meet.
void check_land_tile(const TileKind& kind) {
  if (kind.is_start) fail("a tile file's tile cannot be the start tile");
  for (Edge e : kind.rotations[0].edges)
    if (e == Edge::Abbey || e == Edge::Joint) fail("a tile file's tile has no abbey (A) or City joint (X) edge");
  for (int i = 0; i < kind.num_segments; ++i) {
    FeatureType t = kind.rotations[0].segments[i].type;
    if (t == FeatureType::River || t == FeatureType::Abbey || t == FeatureType::Quarter)
      fail(std::string("a tile file's tile has no ") + feature_type_name(t) + " (a land tile of the bag)");
  }
  for (const std::string& mark : kind.marks)
    if (mark != "garden" && mark != "inn" && mark != "pig-herd" && mark != "well")
      fail("unknown mark '" + mark + "' (a tile file's tiles take garden, inn, pig-herd, well)");
}

}  // namespace

Catalogue Catalogue::parse(std::string_view text) {
  Catalogue cat;
  cat.add_lines(text, "tile catalogue", false);
  return cat;
}

void Catalogue::add_tile_file(std::string_view text, const std::string& source) {
  Catalogue with = *this;  // a refused file changes nothing
  with.sets_.push_back(kCustomSet);
  with.add_lines(text, source, true);
  bool changes = false;
  for (const TileKind& k : with.kinds_) changes |= k.set == kCustomSet || k.custom_count >= 0;
  if (!changes) throw std::invalid_argument(source + ": no tiles and no count lines");
  *this = std::move(with);
}

void Catalogue::add_lines(std::string_view text, const std::string& source, bool tile_file) {
  std::string current_set = tile_file ? kCustomSet : "";
  std::stringstream in{std::string(text)};
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    try {
      add_line(raw, current_set, tile_file);
    } catch (const std::logic_error& e) {  // std::stoi's errors too
      throw std::invalid_argument(source + " line " + std::to_string(line) + ": " + e.what());
    }
  }
}

void Catalogue::add_line(const std::string& raw, std::string& current_set, bool tile_file) {
  if (raw.empty() || raw[0] == '#') return;
  std::stringstream words(raw);
  std::vector<std::string> tokens;
  for (std::string w; words >> w;) tokens.push_back(w);
  if (tokens.empty()) return;
  if (tokens[0] == "set") {
    if (tile_file) fail("a tile file has no 'set' lines: its tiles are the set " + std::string(kCustomSet));
    if (tokens.size() != 2) fail("expected 'set <id>'");
    current_set = tokens[1];
    if (std::find(sets_.begin(), sets_.end(), current_set) != sets_.end()) fail("set listed twice");
    sets_.push_back(current_set);
    return;
  }
  if (tile_file && tokens[0] == "count") {
    change_count(tokens);
    return;
  }
  if (tokens.size() < 4) fail("expected '<id> <count> <edges> <features>'");
  if (current_set.empty()) fail("tile before any 'set' line");
  if (kinds_.size() >= size_t(kMaxKinds))
    fail("too many tile kinds (at most " + std::to_string(kMaxKinds) + " in all sets)");
  TileKind kind;
  kind.id = KindId(kinds_.size());
  kind.name = tokens[0];
  kind.set = current_set;
  kind.set_index = uint8_t(sets_.size() - 1);
  kind.city_square = current_set == "count-city";
  if (contains(kind.name)) fail("duplicate tile " + kind.name);
  if (tile_file && kind.name.rfind(std::string(kCustomSet) + ".", 0) != 0)
    fail("a tile of a tile file is named " + std::string(kCustomSet) + ".<name>, not '" + kind.name + "'");
  kind.count = parse_count(tokens[1]);
  if (tile_file && kind.count == 0) fail("count 0: leave the tile out instead");
  if (tokens[2].size() != 4) fail("edges need 4 letters");
  for (int s = 0; s < 4; ++s) kind.rotations[0].edges[s] = edge_of(tokens[2][s]);
  size_t i = 3;
  for (; i < tokens.size() && tokens[i] != "|"; ++i) {
    if (tokens[i] == "-") continue;
    if (kind.num_segments == kMaxSegmentsPerTile) fail("too many features");
    kind.rotations[0].segments[kind.num_segments++] = parse_segment(tokens[i]);
  }
  for (++i; i < tokens.size(); ++i) {
    const std::string& t = tokens[i];
    if (t == "start") kind.is_start = true;
    else if (t == "provisional") kind.provisional = true;
    else if (t == "uncertain") continue;
    else if (t.rfind("mark:", 0) == 0) kind.marks.push_back(t.substr(5));
    else if (t.rfind("arrow:", 0) == 0) {
      auto colon = t.find(':', 6);
      if (colon == std::string::npos || colon + 2 != t.size()) fail("expected arrow:<kind>:<side>");
      kind.arrow = arrow_kind(std::string_view(t).substr(6, colon - 6));
      kind.rotations[0].arrow_points = Side(side_index(t[colon + 1]));
    } else {
      fail("unknown extra '" + t + "'");
    }
  }
  finish_kind(kind);
  if (tile_file) check_land_tile(kind);
  by_name_.emplace(kind.name, kind.id);
  kinds_.push_back(std::move(kind));
}

// `count <tile> <copies>`: the bag's copies of a tile of the other sets with expansion custom.
void Catalogue::change_count(const std::vector<std::string>& tokens) {
  if (tokens.size() != 3) fail("expected 'count <tile> <copies>'");
  if (!contains(tokens[1])) fail("count: unknown tile '" + tokens[1] + "'");
  TileKind& kind = kinds_[find(tokens[1])];
  if (kind.set == kCustomSet) fail("count: " + kind.name + " is a tile of this file: give its count on its line");
  const bool abbey =
      kind.cloister_segment >= 0 && kind.rotations[0].segments[kind.cloister_segment].type == FeatureType::Abbey;
  if (kind.is_start || kind.city_square || kind.river_sides || abbey)
    fail("count: " + kind.name + " is not a land tile of the bag (a start, river, abbey or City tile)");
  if (kind.custom_count >= 0) fail("count: " + kind.name + " is counted twice");
  kind.custom_count = parse_count(tokens[2]);
}

const Catalogue& Catalogue::builtin() {
  static const Catalogue catalogue = [] {
    Catalogue cat = parse(kBuiltinCatalogueText);
    const char* path = std::getenv(kTileFileVariable);
    if (!path || !*path) return cat;
    // Loading the library builds the catalogue: a bad file must not stop it, so its error is
    // kept, and Config's validate() reports it when a game asks for expansion custom.
    TileFile file;
    file.path = path;
    std::ifstream in(file.path, std::ios::binary);
    if (!in) {
      file.error = std::string(kTileFileVariable) + "=" + file.path + ": the file cannot be read";
    } else {
      std::stringstream text;
      text << in.rdbuf();
      file.text = text.str();
      try {
        cat.add_tile_file(file.text, file.path);
      } catch (const std::invalid_argument& e) {
        file.error = e.what();
      }
    }
    cat.tile_file_ = std::move(file);
    return cat;
  }();
  return catalogue;
}

KindId Catalogue::find(std::string_view name) const {
  auto it = by_name_.find(name);
  if (it == by_name_.end()) throw std::invalid_argument("unknown tile '" + std::string(name) + "'");
  return it->second;
}

bool Catalogue::contains(std::string_view name) const { return by_name_.find(name) != by_name_.end(); }

std::vector<KindId> Catalogue::set_kinds(std::string_view set) const {
  std::vector<KindId> out;
  for (const TileKind& k : kinds_)
    if (k.set == set) out.push_back(k.id);
  return out;
}

}  // namespace carc
