// The tile catalogue: every tile kind of every supported set, with its 4 rotations precomputed.
//
// The catalogue is data (engine/data/tiles.txt, the source of truth for tiles, edited directly)
// compiled into the library as text and parsed once. One line per kind:
//
//   <id> <count> <edges NESW> <feature>... [| <extra>...]
//   feature := city:<sides>[+<pennants>] | road:<sides>[@<end>] | river:<sides>
//            | field:<halves or ->[><city index>,...] | monastery | shrine | abbey | quarter
//   extra   := start | mark:<name> | arrow:<kind>:<side> | provisional | uncertain
//
// `set <id>` lines start a tile set. A tile's features are numbered in the order of its line;
// actions and records name segments by them ("meeple city#0"). Sides, halves, rotations and
// the tile sets are described in docs/rules.md (section 7).
//
// A designer's tile file (docs/balance.md, "Your own tiles"), named by the environment variable
// CARC_TILES, is read once, when the catalogue is built. Its tile lines, in the same format and
// named custom.<name>, are the set `custom`, played with expansion custom: land tiles of the bag
// (no start, river, abbey or City tile). A line `count <tile> <copies>` sets how many copies of a
// tile of another set the bag holds when expansion custom is in play.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "types.h"

namespace carc {

inline constexpr int kMaxSegmentsPerTile = 10;
using KindId = uint8_t;
inline constexpr int kMaxKinds = 160;   // the kinds of every set; the state's tables are this long
inline constexpr int kMaxCopies = 100;  // the copies of one kind
inline constexpr const char* kTileFileVariable = "CARC_TILES";
inline constexpr const char* kCustomSet = "custom";  // the set, and expansion, of the tile file

enum class ArrowKind : uint8_t { None, MeepleBeside, PlaceAnywhere, ExtraTurn };

// One feature as printed on one tile, in the catalogue orientation or a rotation of it.
struct SegmentSpec {
  FeatureType type = FeatureType::Field;
  uint16_t points = 0;  // bit p set: the segment reaches point p (types.h)
  uint8_t pennants = 0;
  uint8_t num_sides = 0;   // road/city/river: the sides it reaches (its open ends when placed)
  uint16_t cities = 0;     // field: bit i set: touches city segment i of this tile
  uint16_t same_type = 0;  // bit i set: segment i is another segment of the same type
  RoadEnd road_end = RoadEnd::Through;
  uint8_t road_end_city = 0;  // RoadEnd::City: the city segment the road enters
};

// A tile kind turned `rotation` quarter turns clockwise.
struct RotatedTile {
  std::array<Edge, kNumSides> edges{};
  std::array<int8_t, kNumPoints> segment_at{};  // segment reaching each point, or -1
  std::array<SegmentSpec, kMaxSegmentsPerTile> segments{};
  uint16_t signature = 0;  // nibble s = edge type of side s (board.h matches on it)
  // What side s demands of the cell beyond it, in that cell's need and care (board.h): the edge in
  // the facing side's nibble, and that nibble's mask; 0 and 0 for an abbey side, which fits any.
  std::array<uint16_t, kNumSides> side_need{}, side_care{};
  Side arrow_points = North;
};

struct TileKind {
  KindId id = 0;
  std::string name;          // "base.D"
  std::string set;           // "base"
  uint8_t set_index = 0;     // position of its set in Catalogue::sets()
  bool city_square = false;  // one of the City of Carcassonne's squares (set count-city)
  int count = 0;
  int custom_count = -1;  // the count with expansion custom in play (the tile file's count line), or -1
  bool is_start = false;
  bool provisional = false;
  int num_segments = 0;
  int cloister_segment = -1;  // the monastery/shrine/abbey segment, or -1
  int pig_segment = -1;       // mark:pig-herd lies in the tile's largest field (RULES RV-4)
  int river_sides = 0;        // sides its river reaches: 1 spring or lake, 2 river, 3 fork
  // Bit i of figure_segments set: segment i may hold a figure (can_hold_figure); of
  // field_segments: segment i is a field. The figure options walk these bits, not every segment.
  uint16_t figure_segments = 0, field_segments = 0;
  ArrowKind arrow = ArrowKind::None;
  std::vector<std::string> marks;
  std::array<RotatedTile, 4> rotations{};
  // The rotations that give distinct tiles (a symmetric tile has fewer than 4).
  uint8_t num_distinct_rotations = 0;
  std::array<uint8_t, 4> distinct_rotations{};
  // Their signatures (distinct_signatures[i] is rotations[distinct_rotations[i]].signature): the
  // placement sampler tests one a try.
  std::array<uint16_t, 4> distinct_signatures{};

  // The copies in a game, with expansion custom in play or not.
  int copies(bool custom) const { return custom && custom_count >= 0 ? custom_count : count; }
};

// The tile file named by CARC_TILES, as read when the catalogue was built.
struct TileFile {
  std::string path;   // "" when CARC_TILES is not set
  std::string text;   // its bytes
  std::string error;  // why it was refused, naming the file and the line; "" if it was not
};

class Catalogue {
 public:
  // Parses catalogue text; throws std::invalid_argument naming the line on malformed input.
  static Catalogue parse(std::string_view text);
  // The catalogue compiled into the library, with the tiles of the tile file named by CARC_TILES
  // if that file is sound. Never throws: a refused file's error is kept in tile_file().
  static const Catalogue& builtin();
  // Adds a tile file's tiles (the set custom) and count changes; throws std::invalid_argument
  // naming `source` and the line, and then changes nothing.
  void add_tile_file(std::string_view text, const std::string& source);
  const TileFile& tile_file() const { return tile_file_; }

  int size() const { return int(kinds_.size()); }
  const TileKind& kind(KindId id) const { return kinds_[id]; }
  const std::vector<TileKind>& kinds() const { return kinds_; }
  // Returns the kind with this name; throws std::invalid_argument if there is none.
  KindId find(std::string_view name) const;
  bool contains(std::string_view name) const;
  // Returns the kinds of one tile set, in catalogue order.
  std::vector<KindId> set_kinds(std::string_view set) const;
  // The tile sets, in catalogue order.
  const std::vector<std::string>& sets() const { return sets_; }

 private:
  void add_lines(std::string_view text, const std::string& source, bool tile_file);
  void add_line(const std::string& raw, std::string& current_set, bool tile_file);
  void change_count(const std::vector<std::string>& tokens);

  std::vector<TileKind> kinds_;
  std::map<std::string, KindId, std::less<>> by_name_;  // action text and records look names up
  std::vector<std::string> sets_;
  TileFile tile_file_;
};

}  // namespace carc
