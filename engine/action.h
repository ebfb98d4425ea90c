// Actions: every move of the game, chance draws included, as one 32-bit integer.
//
// Layout (bit 0 is the lowest):
//   bits 0-3    ActionKind
//   Draw        bits 4-11  tile kind id (catalogue order)
//   Place       bits 4-12  x + 256, bits 13-21 y + 256, bits 22-23 rotation (quarter turns
//               clockwise from the catalogue orientation)
//   Figure      bits 4-7   FigureKind, bits 8-11 feature index on the tile (tiles.json order)
//   Pass        no payload: place no figure
// Codes are compared as integers, so legal action lists sort by kind, then payload.
//
// String forms (action_to_string / parse_action round-trip):
//   "draw base.D"   "place 3,-1 r1"   "meeple city#0"   "pass"
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "types.h"

namespace carc {

enum class ActionKind : uint8_t { Draw = 0, Place = 1, Figure = 2, Pass = 3 };
enum class FigureKind : uint8_t { Meeple = 0 };
inline constexpr int kNumFigureKinds = 1;

struct Action {
  uint32_t code = 0;

  static constexpr Action draw(int kind) { return {uint32_t(ActionKind::Draw) | uint32_t(kind) << 4}; }
  static constexpr Action place(Cell c, int rotation) {
    return {uint32_t(ActionKind::Place) | uint32_t(c.x + kCoordLimit) << 4 | uint32_t(c.y + kCoordLimit) << 13 |
            uint32_t(rotation) << 22};
  }
  // The same as place(cell, rotation), from a Board::cell_key.
  static constexpr Action place_at_key(uint32_t cell_key, int rotation) {
    return {uint32_t(ActionKind::Place) | cell_key << 4 | uint32_t(rotation) << 22};
  }
  static constexpr Action figure(FigureKind f, int feature) {
    return {uint32_t(ActionKind::Figure) | uint32_t(f) << 4 | uint32_t(feature) << 8};
  }
  static constexpr Action pass() { return {uint32_t(ActionKind::Pass)}; }

  constexpr ActionKind kind() const { return ActionKind(code & 0xF); }
  constexpr int tile_kind() const { return int(code >> 4 & 0xFF); }
  constexpr Cell cell() const { return Cell{int16_t(int(code >> 4 & 0x1FF) - kCoordLimit), int16_t(int(code >> 13 & 0x1FF) - kCoordLimit)}; }
  constexpr int rotation() const { return int(code >> 22 & 3); }
  constexpr FigureKind figure_kind() const { return FigureKind(code >> 4 & 0xF); }
  constexpr int feature() const { return int(code >> 8 & 0xF); }

  friend constexpr bool operator==(Action a, Action b) { return a.code == b.code; }
  friend constexpr bool operator<(Action a, Action b) { return a.code < b.code; }
};

// Returns the readable form of an action (the feature type is looked up on the tile that the
// figure goes on, so figure actions need the state; see State::action_to_string).
std::string draw_to_string(int kind);
std::string place_to_string(Action a);
const char* figure_kind_name(FigureKind f);

}  // namespace carc
