// Basic value types of the engine: sides, points, edges, feature kinds, cells.
//
// A tile side has three connection points, clockwise: the first field half, the middle (road,
// city or river) and the second field half. The 12 points of a tile are numbered clockwise from
// the west half of the north side:
//
//     N1 Nm N2                 0  1  2
//   W2        E1            11          3
//   Wm        Em            10          4
//   W1        E2             9          5
//     S2 Sm S1                 8  7  6
//
// Turning a tile a quarter clockwise maps point p to (p + 3) % 12. Point k of side s touches
// point 2 - k of side (s + 2) % 4 of the neighbouring tile.
#pragma once

#include <cassert>
#include <cstdint>
#include <string>

namespace carc {

enum Side : uint8_t { North = 0, East = 1, South = 2, West = 3 };
inline constexpr int kNumSides = 4;
inline constexpr int kNumPoints = 12;
inline constexpr int kMaxPlayers = 6;

// Returns the side facing `s` on the neighbouring tile.
constexpr Side opposite(Side s) { return Side((s + 2) & 3); }

// Returns the point of side s, position k (0 first half, 1 middle, 2 second half).
constexpr int side_point(Side s, int k) { return s * 3 + k; }

// Returns the point that point p touches on the neighbouring tile.
constexpr int facing_point(int p) { return ((p / 3 + 2) & 3) * 3 + (2 - p % 3); }

// Returns point p after turning the tile `quarter_turns` times clockwise.
constexpr int rotate_point(int p, int quarter_turns) { return (p + 3 * quarter_turns) % kNumPoints; }

// What a tile side shows. The numeric values are the nibbles of edge signatures (board.h).
enum class Edge : uint8_t { None = 0, Field = 1, Road = 2, City = 3, River = 4, Abbey = 5, Joint = 6 };

enum class FeatureType : uint8_t { Road, City, Field, Monastery, Shrine, Abbey, River, Quarter };

// Returns true for monastery, shrine and abbey: features completed by their 8 neighbours.
constexpr bool is_cloister_like(FeatureType t) {
  return t == FeatureType::Monastery || t == FeatureType::Shrine || t == FeatureType::Abbey;
}

// Returns true unless no figure may stand on the type (a river, a quarter of the City).
constexpr bool can_hold_figure(FeatureType t) { return t != FeatureType::River && t != FeatureType::Quarter; }

// Where a road that reaches one side ends inside its tile (docs/rules.md section 7).
enum class RoadEnd : uint8_t { Through, Junction, Cloister, City, House, Carcassonne };

// A board cell. The start tile lies at (0, 0); x grows to the east, y to the south.
struct Cell {
  int16_t x = 0;
  int16_t y = 0;
  friend constexpr bool operator==(Cell a, Cell b) { return a.x == b.x && a.y == b.y; }
};

// Returns the neighbour of c across side s.
constexpr Cell neighbour(Cell c, Side s) {
  constexpr int8_t dx[4] = {0, 1, 0, -1};
  constexpr int8_t dy[4] = {-1, 0, 1, 0};
  return Cell{int16_t(c.x + dx[s]), int16_t(c.y + dy[s])};
}

// Every cell coordinate of a game lies in [-kCoordLimit, kCoordLimit): even a straight line of
// every tile of every set stays inside.
inline constexpr int kCoordLimit = 256;

// A cell packed in 18 bits as (y + 256) << 9 | (x + 256): the board's cell keys and the cells of
// action codes (engine/action.h) share this layout.
constexpr uint32_t pack_cell(Cell c) { return uint32_t(c.y + kCoordLimit) << 9 | uint32_t(c.x + kCoordLimit); }
constexpr Cell unpack_cell(uint32_t bits) {
  return Cell{int16_t(int(bits & 0x1FF) - kCoordLimit), int16_t(int(bits >> 9 & 0x1FF) - kCoordLimit)};
}

// Score causes (RULES B-11). Every point a player gets is booked under one of these.
//   CityMayor  city points won by a player whose strength there includes their mayor (AM-M)
//   FieldBarn  farmer points scored during the game because of a barn (AM-B-3, AM-B-5)
//   Barn       a barn owner's final points (AM-B-6)
enum class Cause : uint8_t {
  City,
  Road,
  Cloister,
  Shrine,
  Field,
  Barn,
  King,
  Robber,
  Arrow,
  CityMayor,
  FieldBarn,
  Count
};
inline constexpr int kNumCauses = int(Cause::Count);
const char* cause_name(Cause c);

const char* feature_type_name(FeatureType t);

}  // namespace carc
