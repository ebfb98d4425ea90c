// Actions: every move of the game, chance draws included, as one 32-bit integer.
//
// Layout (bit 0 is the lowest):
//   bits 0-3    ActionKind
//   Draw        bits 4-11  tile kind id (catalogue order)                         chance only
//   Place       bits 4-12  x + 256, bits 13-21 y + 256, bits 22-23 rotation (quarter turns
//               clockwise from the catalogue orientation)
//   Figure      bits 4-7   FigureKind, bits 8-11 feature index on the tile (catalogue order;
//               for a barn the corner: 0 NE, 1 SE, 2 SW, 3 NW), bit 12 set when the figure goes
//               to another tile than the one just placed (wagon moves, XX-4, XX-5), with its cell in
//               bits 13-21 (x + 256) and 22-30 (y + 256)
//   Pass        no payload: place no figure / return the wagon / decline the abbey at the end
//   Abbey       bits 4-12  x + 256, bits 13-21 y + 256: place the abbey instead of drawing (AM-A-1)
//   TakeTile    no payload: draw a tile rather than place the abbey
//   Arrow       bits 4-12  x + 256, bits 13-21 y + 256: the arrow tile whose arrow activates
//               when one placement would activate several (XX-3)
//   Quarter     bits 4-7   FigureKind, bits 8-9 Quarter: put a figure into the City (CK-3)
//   Count       bits 8-9   Quarter: where the Count goes (CK-3, CK-7 free)
// Codes are compared as integers, so legal action lists sort by kind, then payload.
//
// String forms (State::action_to_string / State::parse_action round-trip):
//   "draw base.D"  "place 3,-1 r1"  "meeple city#0"  "mayor city#0"  "wagon road#1"
//   "barn NE"  "wagon road#1 @3,-1"  "meeple city#0 @2,2"  "pass"  "abbey 2,1"  "take-tile"
//   "arrow 1,0"  "meeple @castle"  "count market"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "types.h"

namespace carc {

enum class ActionKind : uint8_t {
  Draw = 0,
  Place = 1,
  Figure = 2,
  Pass = 3,
  Abbey = 4,
  TakeTile = 5,
  Arrow = 6,
  Quarter = 7,
  Count = 8
};
enum class FigureKind : uint8_t { Meeple = 0, Mayor = 1, Wagon = 2, Barn = 3 };
inline constexpr int kNumFigureKinds = 4;

// The quarters of the City of Carcassonne, in the Count's clockwise order (CK-2, CK-7).
enum class Quarter : uint8_t { Castle = 0, Market = 1, Blacksmith = 2, Cathedral = 3 };
inline constexpr int kNumQuarters = 4;
inline constexpr const char* kQuarterNames[kNumQuarters] = {"castle", "market", "blacksmith", "cathedral"};

struct Action {
  uint32_t code;  // no initializer: action buffers on hot paths stay uninitialized

  static constexpr Action draw(int kind) { return {uint32_t(ActionKind::Draw) | uint32_t(kind) << 4}; }
  static constexpr Action place(Cell c, int rotation) {
    return {uint32_t(ActionKind::Place) | pack_cell(c) << 4 | uint32_t(rotation) << 22};
  }
  // The same as place(cell, rotation), from a cell already packed (pack_cell, types.h).
  static constexpr Action place_at_key(uint32_t packed_cell, int rotation) {
    return {uint32_t(ActionKind::Place) | packed_cell << 4 | uint32_t(rotation) << 22};
  }
  static constexpr Action figure(FigureKind f, int feature) {
    return {uint32_t(ActionKind::Figure) | uint32_t(f) << 4 | uint32_t(feature) << 8};
  }
  static constexpr Action figure_at(FigureKind f, int feature, Cell c) {
    return {figure(f, feature).code | 1u << 12 | pack_cell(c) << 13};
  }
  static constexpr Action pass() { return {uint32_t(ActionKind::Pass)}; }
  static constexpr Action abbey(Cell c) { return {uint32_t(ActionKind::Abbey) | pack_cell(c) << 4}; }
  static constexpr Action take_tile() { return {uint32_t(ActionKind::TakeTile)}; }
  static constexpr Action arrow(Cell c) { return {uint32_t(ActionKind::Arrow) | pack_cell(c) << 4}; }
  static constexpr Action enter_city(FigureKind f, Quarter q) {
    return {uint32_t(ActionKind::Quarter) | uint32_t(f) << 4 | uint32_t(q) << 8};
  }
  static constexpr Action count_to(Quarter q) { return {uint32_t(ActionKind::Count) | uint32_t(q) << 8}; }

  constexpr ActionKind kind() const { return ActionKind(code & 0xF); }
  constexpr int tile_kind() const { return int(code >> 4 & 0xFF); }
  // The cell of a Place, Abbey or Arrow action.
  constexpr Cell cell() const { return unpack_cell(code >> 4); }
  constexpr int rotation() const { return int(code >> 22 & 3); }
  constexpr FigureKind figure_kind() const { return FigureKind(code >> 4 & 0xF); }
  constexpr int feature() const { return int(code >> 8 & 0xF); }
  constexpr Quarter quarter() const { return Quarter(code >> 8 & 3); }
  constexpr bool elsewhere() const { return code >> 12 & 1; }
  // The target cell of a Figure action with elsewhere() set.
  constexpr Cell figure_cell() const { return unpack_cell(code >> 13); }
  // Returns true if no bit outside its kind's payload is set: the code its fields would make.
  constexpr bool well_formed() const {
    switch (kind()) {
      case ActionKind::Draw: return code >> 12 == 0;
      case ActionKind::Place: return code >> 24 == 0;
      case ActionKind::Figure: return elsewhere() ? code >> 31 == 0 : code >> 12 == 0;
      case ActionKind::Pass:
      case ActionKind::TakeTile: return code >> 4 == 0;
      case ActionKind::Abbey:
      case ActionKind::Arrow: return code >> 22 == 0;
      case ActionKind::Quarter: return code >> 10 == 0;
      case ActionKind::Count: return (code >> 4 & 0xF) == 0 && code >> 10 == 0;
    }
    return false;
  }

  friend constexpr bool operator==(Action a, Action b) { return a.code == b.code; }
  friend constexpr bool operator<(Action a, Action b) { return a.code < b.code; }
};

const char* figure_kind_name(FigureKind f);
// The kind's name: the first word of its actions' text ("take-tile"), or the kind ("quarter").
const char* action_kind_name(ActionKind k);
inline constexpr const char* kCornerNames[4] = {"NE", "SE", "SW", "NW"};

}  // namespace carc
