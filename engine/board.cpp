#include "board.h"

#include <algorithm>

namespace carc {

void Board::clear() {
  num_tiles_ = 0;
  frontier_size_ = 0;
  index_.fill(kEmpty);
}

void Board::copy_from(const Board& o) {
  num_tiles_ = o.num_tiles_;
  frontier_size_ = o.frontier_size_;
  std::copy_n(o.tiles_.begin(), num_tiles_, tiles_.begin());
  index_ = o.index_;
  const int lanes = 4 * ((frontier_size_ + 3) / 4);
  std::copy_n(o.need_, lanes, need_);
  std::copy_n(o.care_, lanes, care_);
  std::copy_n(o.frontier_keys_.begin(), frontier_size_, frontier_keys_.begin());
  std::copy_n(o.frontier_entry_.begin(), frontier_size_, frontier_entry_.begin());
  std::copy_n(o.frontier_present_.begin(), frontier_size_, frontier_present_.begin());
}

uint32_t Board::lookup(Cell c) const {
  uint32_t k = pack_cell(c);
  for (uint32_t h = hash(k);; h = (h + 1) & (kHashSize - 1)) {
    uint32_t e = index_[h];
    if (e == kEmpty) return kEmpty;
    if ((e >> 12) == k) return e & 0xFFF;
  }
}

inline int Board::find_or_insert(Cell c, uint32_t v) {
  uint32_t k = pack_cell(c);
  for (uint32_t h = hash(k);; h = (h + 1) & (kHashSize - 1)) {
    uint32_t e = index_[h];
    if (e == kEmpty) {
      index_[h] = k << 12 | v;
      return int(h);
    }
    if ((e >> 12) == k) return int(h);
  }
}

bool Board::well_formed() const {
  if (num_tiles_ < 0 || num_tiles_ > kMaxTiles || frontier_size_ < 0 || frontier_size_ > kMaxFrontier) return false;
  bool empty_entry = false;
  for (uint32_t e : index_) {
    if (e == kEmpty) {
      empty_entry = true;
      continue;
    }
    uint32_t v = e & 0xFFF;
    if ((v & kFrontierFlag) ? int(v & kValueMask) >= frontier_size_ : int(v) >= num_tiles_) return false;
  }
  for (int i = 0; i < frontier_size_; ++i)
    if (frontier_entry_[i] >= kHashSize || index_[frontier_entry_[i]] != (frontier_keys_[i] << 12 | kFrontierFlag | i))
      return false;
  return empty_entry;
}

bool Board::same_layout(const Board& o) const {
  if (num_tiles_ != o.num_tiles_ || frontier_size_ != o.frontier_size_ || index_ != o.index_) return false;
  const size_t lanes = 4 * size_t((frontier_size_ + 3) / 4);
  if (!std::equal(need_, need_ + lanes, o.need_) || !std::equal(care_, care_ + lanes, o.care_)) return false;
  return std::equal(tiles_.begin(), tiles_.begin() + num_tiles_, o.tiles_.begin()) &&
         std::equal(frontier_keys_.begin(), frontier_keys_.begin() + frontier_size_, o.frontier_keys_.begin()) &&
         std::equal(frontier_entry_.begin(), frontier_entry_.begin() + frontier_size_, o.frontier_entry_.begin()) &&
         std::equal(frontier_present_.begin(), frontier_present_.begin() + frontier_size_, o.frontier_present_.begin());
}

void Board::remove_frontier(int i) {
  int last = --frontier_size_;
  if (i != last) {
    need_[i] = need_[last];
    care_[i] = care_[last];
    frontier_keys_[i] = frontier_keys_[last];
    frontier_present_[i] = frontier_present_[last];
    frontier_entry_[i] = frontier_entry_[last];
    uint32_t& entry = index_[frontier_entry_[i]];
    entry = (entry & ~0xFFFu) | kFrontierFlag | uint32_t(i);
  }
  need_[last] = 0;
  care_[last] = 0xFFFF;
}

int Board::place(Cell c, KindId kind, int rotation, uint16_t first_segment, const RotatedTile& rotated,
                 std::array<int, kNumSides>* neighbours) {
  assert(num_tiles_ < kMaxTiles);
  assert(c.x > -kCoordLimit + 1 && c.x < kCoordLimit - 1 && c.y > -kCoordLimit + 1 && c.y < kCoordLimit - 1);
  int slot = num_tiles_++;
  tiles_[slot] = PlacedTile{c, kind, uint8_t(rotation), first_segment};
  int h = find_or_insert(c, uint32_t(slot));
  uint32_t old = index_[h] & 0xFFF;
  if (old & kFrontierFlag) remove_frontier(int(old & kValueMask));
  index_[h] = (index_[h] & ~0xFFFu) | uint32_t(slot);

  for (int s = 0; s < kNumSides; ++s) {
    Cell n = neighbour(c, Side(s));
    int e = find_or_insert(n, kFrontierFlag | uint32_t(frontier_size_));
    uint32_t v = index_[e] & 0xFFF;
    if (neighbours) (*neighbours)[s] = (v & kFrontierFlag) ? -1 : int(v);
    if (!(v & kFrontierFlag)) continue;  // a tile
    int f = int(v & kValueMask);
    if (f == frontier_size_) {  // a new frontier cell
      assert(frontier_size_ < kMaxFrontier);
      if (f % 4 == 0) {  // the first in its word: the word's other lanes never fit
        std::fill_n(need_ + f, 4, uint16_t(0));
        std::fill_n(care_ + f, 4, uint16_t(0xFFFF));
      }
      ++frontier_size_;
      frontier_keys_[f] = pack_cell(n);
      frontier_entry_[f] = uint16_t(e);
      frontier_present_[f] = 0;
      need_[f] = 0;
      care_[f] = 0;
    }
    int facing = opposite(Side(s));
    frontier_present_[f] |= uint8_t(1u << facing);
    Edge edge = rotated.edges[s];
    if (edge != Edge::Abbey) {  // an abbey side fits any side
      need_[f] |= uint16_t(uint16_t(edge) << (4 * facing));
      care_[f] |= uint16_t(0xFu << (4 * facing));
    }
  }
  return slot;
}

}  // namespace carc
