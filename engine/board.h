// The board: placed tiles, a cell index, and the frontier of empty cells where tiles can go.
//
// Where a tile fits is decided by edge signatures: 4 nibbles, one per side, each an Edge value.
// Every frontier cell carries the signature its placed neighbours demand (`need`) and a mask of
// the nibbles that are demanded at all (`care`); a tile rotation with signature S fits the cell
// iff ((need ^ S) & care) == 0. The frontier keeps these as packed 16-bit lanes, so one 64-bit
// word operation tests four cells (fits_in_word). The frontier holds only the cells next to a tile,
// so the test costs O(frontier) words per rotation whatever the extent of the board.
//
// The cell index is a dense grid over a window of cells (row-major, its width the stride) that
// covers every tile and frontier cell: a lookup is an index computation and one load. The window
// grows (and is rebuilt from the tiles and the frontier) when a tile is placed next to its edge,
// with a margin so that it rarely does. Tiles that touch earlier ones (as in any game) span a
// bounding box of width + height <= tiles + 1, so the grid's fixed capacity holds the window of
// every game, a straight line of every tile as well as a square; only the window's cells are
// copied and compared.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstdint>
#include <cstring>

#include "catalogue.h"
#include "types.h"

namespace carc {

inline constexpr int kMaxTiles = 160;  // every tile of every set in one game is at most 139
inline constexpr int kMaxFrontier = 2 * kMaxTiles + 4;
// The grid's capacity: the largest window of kMaxTiles tiles that each touch an earlier one. Their
// bounding box has width + height <= kMaxTiles + 1, so the window (with the frontier, one more
// cell each way) is largest as a near-square: 82 x 83 cells.
inline constexpr int kMaxGridCells = ((kMaxTiles + 1) / 2 + 2) * ((kMaxTiles + 2) / 2 + 2);

// The tiles beside a cell, as Board::place finds them.
struct TileNeighbours {
  uint8_t sides = 0;                    // bit s set: a tile lies beyond side s
  std::array<int16_t, kNumSides> slot;  // the slot of the tile beyond side s, for the sides in `sides`
};

struct PlacedTile {
  Cell cell;
  KindId kind = 0;
  uint8_t rotation = 0;
  uint16_t first_segment = 0;  // its segments are first_segment .. first_segment + num_segments - 1

  bool operator==(const PlacedTile&) const = default;
};

class Board {
 public:
  Board() { clear(); }
  // A board whose arrays hold anything: for a member that is copied or cleared before use.
  struct Uninitialized {};
  static constexpr Uninitialized kUninitialized{};
  explicit Board(Uninitialized) {}
  void clear();
  // Makes this board a copy of o, as `*this = o` does, copying of its arrays the used parts.
  void copy_from(const Board& o);

  int num_tiles() const { return num_tiles_; }
  const PlacedTile& tile(int slot) const { return tiles_[slot]; }
  // Returns the slot of the tile at c, or -1 when c is empty.
  int slot_at(Cell c) const {
    uint16_t v = lookup(c);
    return v < kFrontierFlag ? int(v) : -1;
  }
  bool occupied(Cell c) const { return slot_at(c) >= 0; }

  int frontier_size() const { return frontier_size_; }
  Cell frontier_cell(int i) const { return unpack_cell(frontier_keys_[i]); }
  // Frontier cell i packed (pack_cell, the layout of action codes).
  uint32_t frontier_key(int i) const { return frontier_keys_[i]; }
  // Returns the frontier index of c, or -1 when c is not on the frontier.
  int frontier_index(Cell c) const {
    uint16_t v = lookup(c);
    return (v != kEmpty && (v & kFrontierFlag)) ? int(v & kValueMask) : -1;
  }
  // What is at the cell dx, dy (each -1, 0 or 1) away from the tile at c, found without a
  // bounds check (the window holds a tile's neighbours): its frontier index, kTileThere, or -1 for
  // an empty cell that touches no tile (only a diagonal neighbour can be one).
  static constexpr int kTileThere = -2;
  int near_tile(Cell c, int dx, int dy) const {
    assert(slot_at(c) >= 0 && dx >= -1 && dx <= 1 && dy >= -1 && dy <= 1);
    const uint16_t v = grid_[index_of(c) + dy * width_ + dx];
    return v == kEmpty ? -1 : (v & kFrontierFlag) ? int(v & kValueMask) : kTileThere;
  }
  // Returns the mask of sides (bit s) of frontier cell i that touch a tile.
  uint8_t frontier_neighbours(int i) const { return frontier_present_[i]; }
  // Returns true if a tile with this signature fits frontier cell i.
  bool fits(int i, uint16_t signature) const { return ((need_[i] ^ signature) & care_[i]) == 0; }
  // What frontier cell i demands: nibble s of `need` is the edge its side s must show, for the
  // sides whose nibble of `care` is 0xF (the sides that touch a tile other than an abbey).
  uint16_t need(int i) const { return need_[i]; }
  uint16_t care(int i) const { return care_[i]; }
  // need and care of frontier cells 4w .. 4w + 3 at once, as the 16-bit lanes of a word (lane k:
  // cell 4w + k; lanes past the frontier's end hold need 0 and care 0xFFFF, which nothing fits).
  uint64_t need_word(int w) const { return lane_word(need_, w); }
  uint64_t care_word(int w) const { return lane_word(care_, w); }
  // Calls visit(frontier index) for every frontier cell a tile with this signature fits.
  template <class Visit>
  void for_each_fit(uint16_t signature, Visit&& visit) const;
  // Returns true if a tile with this signature fits somewhere.
  bool fits_anywhere(uint16_t signature) const;

  // Returns true if the counts and the window are in range and each cell index entry names a
  // tile or frontier cell that exists, and each frontier cell's entry names it: a damaged board
  // is safe to query.
  bool well_formed() const;
  // Returns true if both hold the same tiles, window, cell index and frontier, entry for entry (a
  // board rebuilt from its tiles in order equals the original: State::from_bytes checks bytes so).
  bool same_layout(const Board& o) const;

  // Puts a tile on an empty cell (legality is the caller's business); inline, as the tile's
  // features are (State::put_tile, most of a game). Returns its slot. If neighbours is given, it
  // is set to the tiles beside the cell.
  // The tiles' bounding box, a cell wider each way, must hold at most kMaxGridCells cells, as the
  // tiles of a game do (each touches an earlier one); std::length_error otherwise.
  int place(Cell c, KindId kind, int rotation, uint16_t first_segment, const RotatedTile& rotated,
            TileNeighbours* neighbours = nullptr);

 private:
  static constexpr uint16_t kEmpty = 0xFFFF;
  static constexpr uint16_t kFrontierFlag = 0x8000;  // with a frontier index; a tile slot without
  static constexpr uint16_t kValueMask = kFrontierFlag - 1;
  static constexpr int kFrontierWords = (kMaxFrontier + 3) / 4;
  // Cells added beyond the one that needs them when the window grows: the windows of most random
  // 2-player base games never grow after the start tile's.
  static constexpr int kGrowthMargin = 8;

  bool in_window(Cell c) const {
    return unsigned(c.x - min_x_) < unsigned(width_) && unsigned(c.y - min_y_) < unsigned(height_);
  }
  // The grid index of a cell in the window.
  int index_of(Cell c) const { return (c.y - min_y_) * width_ + (c.x - min_x_); }
  // The entry of c: a tile slot, kFrontierFlag | a frontier index, or kEmpty.
  uint16_t lookup(Cell c) const { return in_window(c) ? grid_[index_of(c)] : kEmpty; }
  // Makes the window hold c and its neighbours, growing it if need be.
  void cover(Cell c) {
    // c must lie inside the window's border: 1 <= c.x - min_x_ <= width_ - 2 (a window that holds
    // a tile is 3 x 3 at least), likewise for y.
    if (num_tiles_ == 0 || unsigned(c.x - min_x_ - 1) >= unsigned(width_ - 2) ||
        unsigned(c.y - min_y_ - 1) >= unsigned(height_ - 2))
      grow(c);
  }
  void grow(Cell c);
  void remove_frontier(int i);
  uint64_t lane_word(const uint16_t* lanes, int word) const {
    uint64_t w;
    std::memcpy(&w, lanes + 4 * word, sizeof w);
    return w;
  }
  // Returns bit 15 of each lane set where the lane's need and care accept the signature.
  uint64_t fits_in_word(int word, uint64_t signature4) const {
    // A lane is zero iff it fits; adding 0x7FFF to its low 15 bits carries into bit 15 unless
    // they are all zero, and OR-ing the lane itself catches bit 15.
    constexpr uint64_t kLow = 0x7FFF7FFF7FFF7FFFull, kHigh = 0x8000800080008000ull;
    uint64_t diff = (lane_word(need_, word) ^ signature4) & lane_word(care_, word);
    uint64_t nonzero = (((diff & kLow) + kLow) | diff) & kHigh;
    return ~nonzero & kHigh;
  }

  int num_tiles_;
  int frontier_size_;
  // The window: its north-west cell and its size (0 x 0 before the first tile).
  int16_t min_x_, min_y_;
  uint16_t width_, height_;
  std::array<PlacedTile, kMaxTiles> tiles_;
  // Frontier lanes, four to a word. The lanes past frontier_size_ in its last word hold need 0,
  // care 0xFFFF (they never fit); the words past it are set when the frontier reaches them.
  alignas(8) uint16_t need_[kFrontierWords * 4];
  alignas(8) uint16_t care_[kFrontierWords * 4];
  std::array<uint32_t, kMaxFrontier> frontier_keys_;
  std::array<uint8_t, kMaxFrontier> frontier_present_;
  // The cell index over the window, row-major: entry (y - min_y_) * width_ + (x - min_x_). Only
  // the first width_ * height_ entries are set.
  std::array<uint16_t, kMaxGridCells> grid_;
};

inline bool Board::fits_anywhere(uint16_t signature) const {
  uint64_t s4 = uint64_t(signature) * 0x0001000100010001ull;
  const int words = int((unsigned(frontier_size_) + 3) / 4);  // unsigned: a shift, no sign fix-up
  for (int w = 0; w < words; ++w)
    if (fits_in_word(w, s4)) return true;
  return false;
}

inline void Board::remove_frontier(int i) {
  int last = --frontier_size_;
  if (i != last) {
    need_[i] = need_[last];
    care_[i] = care_[last];
    frontier_keys_[i] = frontier_keys_[last];
    frontier_present_[i] = frontier_present_[last];
    grid_[index_of(frontier_cell(i))] = uint16_t(kFrontierFlag | i);
  }
  need_[last] = 0;
  care_[last] = 0xFFFF;
}

inline int Board::place(Cell c, KindId kind, int rotation, uint16_t first_segment, const RotatedTile& rotated,
                        TileNeighbours* neighbours) {
  assert(num_tiles_ < kMaxTiles);
  assert(c.x > -kCoordLimit + 1 && c.x < kCoordLimit - 1 && c.y > -kCoordLimit + 1 && c.y < kCoordLimit - 1);
  cover(c);
  int slot = num_tiles_++;
  tiles_[slot] = PlacedTile{c, kind, uint8_t(rotation), first_segment};
  const int at = index_of(c);
  assert(grid_[at] == kEmpty || (grid_[at] & kFrontierFlag));
  if (grid_[at] != kEmpty) remove_frontier(grid_[at] & kValueMask);
  grid_[at] = uint16_t(slot);

  // The neighbours' entries: the window holds them (cover). Their packed cells are c's plus a
  // step (pack_cell: y in bits 9 and up).
  const int step[kNumSides] = {-int(width_), 1, int(width_), -1};
  constexpr int kKeyStep[kNumSides] = {-(1 << 9), 1, 1 << 9, -1};
  const uint32_t key = pack_cell(c);
  if (neighbours) neighbours->sides = 0;
  for (int s = 0; s < kNumSides; ++s) {
    const int e = at + step[s];
    const uint16_t v = grid_[e];
    if (v < kFrontierFlag) {  // a tile
      if (neighbours) {
        neighbours->sides |= uint8_t(1u << s);
        neighbours->slot[s] = int16_t(v);
      }
      continue;
    }
    // What this side demands of the cell beyond it (an abbey side fits any side).
    const uint16_t need = rotated.side_need[s], care = rotated.side_care[s];
    const uint8_t present = uint8_t(1u << opposite(Side(s)));
    if (v == kEmpty) {  // a new frontier cell
      assert(frontier_size_ < kMaxFrontier);
      const int f = frontier_size_++;
      if (f % 4 == 0) {  // the first in its word: the word's other lanes never fit
        std::fill_n(need_ + f, 4, uint16_t(0));
        std::fill_n(care_ + f, 4, uint16_t(0xFFFF));
      }
      frontier_keys_[f] = uint32_t(int(key) + kKeyStep[s]);
      frontier_present_[f] = present;
      need_[f] = need;
      care_[f] = care;
      grid_[e] = uint16_t(kFrontierFlag | f);
    } else {
      const int f = v & kValueMask;
      frontier_present_[f] |= present;
      need_[f] |= need;
      care_[f] |= care;
    }
  }
  return slot;
}

template <class Visit>
void Board::for_each_fit(uint16_t signature, Visit&& visit) const {
  uint64_t s4 = uint64_t(signature) * 0x0001000100010001ull;
  const int words = int((unsigned(frontier_size_) + 3) / 4);  // unsigned: a shift, no sign fix-up
  for (int w = 0; w < words; ++w) {
    uint64_t hits = fits_in_word(w, s4);
    while (hits) {
      int bit = __builtin_ctzll(hits);
      hits &= hits - 1;
      visit(4 * w + bit / 16);
    }
  }
}

}  // namespace carc
