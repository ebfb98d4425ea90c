#include "catalogue.h"

#include <algorithm>
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

[[noreturn]] void fail(int line, const std::string& what) {
  throw std::invalid_argument("tile catalogue line " + std::to_string(line) + ": " + what);
}

int side_index(char c, int line) {
  switch (c) {
    case 'N': return North;
    case 'E': return East;
    case 'S': return South;
    case 'W': return West;
  }
  fail(line, std::string("bad side '") + c + "'");
}

Edge edge_of(char c, int line) {
  switch (c) {
    case 'F': return Edge::Field;
    case 'R': return Edge::Road;
    case 'C': return Edge::City;
    case 'W': return Edge::River;
    case 'A': return Edge::Abbey;
    case 'X': return Edge::Joint;
  }
  fail(line, std::string("bad edge '") + c + "'");
}

uint16_t parse_half_points(std::string_view halves, int line) {
  if (halves == "-") return 0;
  if (halves.size() % 2 != 0) fail(line, "bad field halves");
  uint16_t points = 0;
  for (size_t i = 0; i < halves.size(); i += 2) {
    int side = side_index(halves[i], line);
    char half = halves[i + 1];
    if (half != '1' && half != '2') fail(line, "bad field half");
    points |= uint16_t(1u << side_point(Side(side), half == '1' ? 0 : 2));
  }
  return points;
}

SegmentSpec parse_segment(std::string_view token, int line) {
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
    seg.points = parse_half_points(rest.substr(0, gt), line);
    if (gt != std::string_view::npos) {
      std::string cities(rest.substr(gt + 1));
      std::stringstream in(cities);
      std::string index;
      while (std::getline(in, index, ',')) seg.cities |= uint16_t(1u << std::stoi(index));
    }
    return seg;
  }
  if (type != "city" && type != "road" && type != "river") fail(line, "unknown feature '" + std::string(token) + "'");
  seg.type = type == "city" ? FeatureType::City : type == "road" ? FeatureType::Road : FeatureType::River;
  size_t i = 0;
  for (; i < rest.size() && rest[i] != '+' && rest[i] != '@'; ++i) {
    seg.points |= uint16_t(1u << side_point(Side(side_index(rest[i], line)), 1));
    ++seg.num_sides;
  }
  if (seg.num_sides == 0) fail(line, "feature without sides");
  if (i < rest.size() && rest[i] == '+') {
    size_t j = i + 1;
    while (j < rest.size() && rest[j] != '@') ++j;
    seg.pennants = uint8_t(std::stoi(std::string(rest.substr(i + 1, j - i - 1))));
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
      seg.road_end_city = uint8_t(std::stoi(std::string(end.substr(5))));
    } else {
      fail(line, "unknown road end '" + std::string(end) + "'");
    }
  }
  return seg;
}

ArrowKind arrow_kind(std::string_view name, int line) {
  if (name == "meeple-beside") return ArrowKind::MeepleBeside;
  if (name == "place-anywhere") return ArrowKind::PlaceAnywhere;
  if (name == "extra-turn") return ArrowKind::ExtraTurn;
  fail(line, "unknown arrow kind '" + std::string(name) + "'");
}

uint16_t rotate_points(uint16_t points, int r) {
  uint16_t out = 0;
  for (int p = 0; p < kNumPoints; ++p)
    if (points & (1u << p)) out |= uint16_t(1u << rotate_point(p, r));
  return out;
}

// Fills rotations 1..3 from rotation 0, and checks the tile against its own edges.
void finish_kind(TileKind& kind, int line) {
  RotatedTile& base = kind.rotations[0];
  base.segment_at.fill(-1);
  for (int i = 0; i < kind.num_segments; ++i) {
    SegmentSpec& seg = base.segments[i];
    for (int j = 0; j < kind.num_segments; ++j)
      if (j != i && base.segments[j].type == seg.type) seg.same_type |= uint16_t(1u << j);
    for (int p = 0; p < kNumPoints; ++p) {
      if (!(seg.points & (1u << p))) continue;
      if (base.segment_at[p] != -1) fail(line, "two features share a point");
      base.segment_at[p] = int8_t(i);
    }
    if (is_cloister_like(seg.type)) kind.cloister_segment = i;
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
    if (!ok) fail(line, "side " + std::string(1, "NESW"[s]) + " disagrees with the features");
  }
  for (int i = 0; i < kind.num_segments; ++i) {
    const SegmentSpec& seg = base.segments[i];
    for (int c = 0; c < kMaxSegmentsPerTile; ++c)
      if ((seg.cities >> c & 1) && (c >= kind.num_segments || base.segments[c].type != FeatureType::City))
        fail(line, "field touches a feature that is not a city");
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

}  // namespace

Catalogue Catalogue::parse(std::string_view text) {
  Catalogue cat;
  std::string current_set;
  std::stringstream in{std::string(text)};
  std::string raw;
  int line = 0;
  while (std::getline(in, raw)) {
    ++line;
    if (raw.empty() || raw[0] == '#') continue;
    std::stringstream words(raw);
    std::vector<std::string> tokens;
    for (std::string w; words >> w;) tokens.push_back(w);
    if (tokens.empty()) continue;
    if (tokens[0] == "set") {
      if (tokens.size() != 2) fail(line, "expected 'set <id>'");
      current_set = tokens[1];
      if (std::find(cat.sets_.begin(), cat.sets_.end(), current_set) != cat.sets_.end()) fail(line, "set listed twice");
      cat.sets_.push_back(current_set);
      continue;
    }
    if (tokens.size() < 4) fail(line, "expected '<id> <count> <edges> <features>'");
    if (current_set.empty()) fail(line, "tile before any 'set' line");
    if (cat.kinds_.size() >= 255) fail(line, "too many tile kinds");
    TileKind kind;
    kind.id = KindId(cat.kinds_.size());
    kind.name = tokens[0];
    kind.set = current_set;
    kind.set_index = uint8_t(cat.sets_.size() - 1);
    kind.city_square = current_set == "count-city";
    if (cat.contains(kind.name)) fail(line, "duplicate tile " + kind.name);
    try {
      kind.count = std::stoi(tokens[1]);
    } catch (const std::exception&) {
      fail(line, "bad count");
    }
    if (tokens[2].size() != 4) fail(line, "edges need 4 letters");
    for (int s = 0; s < 4; ++s) kind.rotations[0].edges[s] = edge_of(tokens[2][s], line);
    size_t i = 3;
    for (; i < tokens.size() && tokens[i] != "|"; ++i) {
      if (tokens[i] == "-") continue;
      if (kind.num_segments == kMaxSegmentsPerTile) fail(line, "too many features");
      kind.rotations[0].segments[kind.num_segments++] = parse_segment(tokens[i], line);
    }
    for (++i; i < tokens.size(); ++i) {
      const std::string& t = tokens[i];
      if (t == "start") kind.is_start = true;
      else if (t == "provisional") kind.provisional = true;
      else if (t == "uncertain") continue;
      else if (t.rfind("mark:", 0) == 0) kind.marks.push_back(t.substr(5));
      else if (t.rfind("arrow:", 0) == 0) {
        auto colon = t.find(':', 6);
        if (colon == std::string::npos || colon + 2 != t.size()) fail(line, "expected arrow:<kind>:<side>");
        kind.arrow = arrow_kind(std::string_view(t).substr(6, colon - 6), line);
        kind.rotations[0].arrow_points = Side(side_index(t[colon + 1], line));
      } else {
        fail(line, "unknown extra '" + t + "'");
      }
    }
    finish_kind(kind, line);
    cat.by_name_.emplace(kind.name, kind.id);
    cat.kinds_.push_back(std::move(kind));
  }
  return cat;
}

const Catalogue& Catalogue::builtin() {
  static const Catalogue catalogue = parse(kBuiltinCatalogueText);
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
