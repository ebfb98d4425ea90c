// The board: placed tiles, a cell index, and the frontier of empty cells where tiles can go.
//
// Where a tile fits is decided by edge signatures: 4 nibbles, one per side, each an Edge value.
// Every frontier cell carries the signature its placed neighbours demand (`need`) and a mask of
// the nibbles that are demanded at all (`care`); a tile rotation with signature S fits the cell
// iff ((need ^ S) & care) == 0. The frontier keeps these as packed 16-bit lanes, so one 64-bit
// word operation tests four cells (fits_in_word). The frontier holds only the cells next to a tile,
// so the test costs O(frontier) words per rotation whatever the extent of the board: a straight
// line of every tile is as cheap as a compact game, and the state stays a few kilobytes (a dense
// bitboard window large enough for that line would need hundreds).
#pragma once

#include <array>
#include <cstdint>
#include <cstring>

#include "catalogue.h"
#include "types.h"

namespace carc {

inline constexpr int kMaxTiles = 160;  // every tile of every set in one game is at most 139
inline constexpr int kMaxFrontier = 2 * kMaxTiles + 4;

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
    uint32_t v = lookup(c);
    return (v != kEmpty && !(v & kFrontierFlag)) ? int(v & kValueMask) : -1;
  }
  bool occupied(Cell c) const { return slot_at(c) >= 0; }

  int frontier_size() const { return frontier_size_; }
  Cell frontier_cell(int i) const { return unpack_cell(frontier_keys_[i]); }
  // Frontier cell i packed (pack_cell, the layout of action codes).
  uint32_t frontier_key(int i) const { return frontier_keys_[i]; }
  // Returns the frontier index of c, or -1 when c is not on the frontier.
  int frontier_index(Cell c) const {
    uint32_t v = lookup(c);
    return (v != kEmpty && (v & kFrontierFlag)) ? int(v & kValueMask) : -1;
  }
  // Returns the mask of sides (bit s) of frontier cell i that touch a tile.
  uint8_t frontier_neighbours(int i) const { return frontier_present_[i]; }
  // Returns true if a tile with this signature fits frontier cell i.
  bool fits(int i, uint16_t signature) const { return ((need_[i] ^ signature) & care_[i]) == 0; }
  // What frontier cell i demands: nibble s of `need` is the edge its side s must show, for the
  // sides whose nibble of `care` is 0xF (the sides that touch a tile other than an abbey).
  uint16_t need(int i) const { return need_[i]; }
  uint16_t care(int i) const { return care_[i]; }
  // Calls visit(frontier index) for every frontier cell a tile with this signature fits.
  template <class Visit>
  void for_each_fit(uint16_t signature, Visit&& visit) const;
  // Returns true if a tile with this signature fits somewhere.
  bool fits_anywhere(uint16_t signature) const;

  // Returns true if the counts are in range, the cell index has an empty entry (lookups end)
  // and each entry names a tile or frontier cell that exists: a damaged board is safe to query.
  bool well_formed() const;
  // Returns true if both hold the same tiles, cell index and frontier, entry for entry (a board
  // rebuilt from its tiles in order equals the original: State::from_bytes checks bytes so).
  bool same_layout(const Board& o) const;

  // Puts a tile on an empty cell (legality is the caller's business). Returns its slot. If
  // neighbours is given, neighbours[s] is set to the slot of the tile beyond side s, or -1.
  int place(Cell c, KindId kind, int rotation, uint16_t first_segment, const RotatedTile& rotated,
            std::array<int, kNumSides>* neighbours = nullptr);

 private:
  static constexpr int kHashSize = 1024;  // > 2 * (kMaxTiles + kMaxFrontier): short probes
  static constexpr uint32_t kEmpty = 0xFFFFFFFFu;
  static constexpr uint32_t kFrontierFlag = 1u << 11;
  static constexpr uint32_t kValueMask = kFrontierFlag - 1;
  static constexpr int kFrontierWords = (kMaxFrontier + 3) / 4;

  static uint32_t hash(uint32_t k) { return (k * 0x9E3779B1u) >> (32 - 10); }
  uint32_t lookup(Cell c) const;
  // Returns the index of the entry for c, inserting value v if c is new.
  int find_or_insert(Cell c, uint32_t v);
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
  std::array<PlacedTile, kMaxTiles> tiles_;
  // Hash entries: key(cell) << 12 | value; value is a tile slot, or kFrontierFlag | frontier index.
  std::array<uint32_t, kHashSize> index_;
  // Frontier lanes, four to a word. The lanes past frontier_size_ in its last word hold need 0,
  // care 0xFFFF (they never fit); the words past it are set when the frontier reaches them.
  alignas(8) uint16_t need_[kFrontierWords * 4];
  alignas(8) uint16_t care_[kFrontierWords * 4];
  std::array<uint32_t, kMaxFrontier> frontier_keys_;
  // The index entry of each frontier cell (entries never move: nothing is deleted), so that
  // remove_frontier renumbers the cell it moves without a lookup.
  std::array<uint16_t, kMaxFrontier> frontier_entry_;
  std::array<uint8_t, kMaxFrontier> frontier_present_;
};

inline bool Board::fits_anywhere(uint16_t signature) const {
  uint64_t s4 = uint64_t(signature) * 0x0001000100010001ull;
  int words = (frontier_size_ + 3) / 4;
  for (int w = 0; w < words; ++w)
    if (fits_in_word(w, s4)) return true;
  return false;
}

template <class Visit>
void Board::for_each_fit(uint16_t signature, Visit&& visit) const {
  uint64_t s4 = uint64_t(signature) * 0x0001000100010001ull;
  int words = (frontier_size_ + 3) / 4;
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
