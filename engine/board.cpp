#include "board.h"

#include <algorithm>
#include <stdexcept>

namespace carc {

void Board::clear() {
  num_tiles_ = 0;
  frontier_size_ = 0;
  min_x_ = min_y_ = 0;
  width_ = height_ = 0;
}

void Board::copy_from(const Board& o) {
  num_tiles_ = o.num_tiles_;
  frontier_size_ = o.frontier_size_;
  min_x_ = o.min_x_;
  min_y_ = o.min_y_;
  width_ = o.width_;
  height_ = o.height_;
  std::copy_n(o.tiles_.begin(), num_tiles_, tiles_.begin());
  const int lanes = 4 * ((frontier_size_ + 3) / 4);
  std::copy_n(o.need_, lanes, need_);
  std::copy_n(o.care_, lanes, care_);
  std::copy_n(o.frontier_keys_.begin(), frontier_size_, frontier_keys_.begin());
  std::copy_n(o.frontier_present_.begin(), frontier_size_, frontier_present_.begin());
  std::copy_n(o.grid_.begin(), int(width_) * height_, grid_.begin());
}

void Board::grow(Cell c) {
  // The window must hold what it holds now and c's neighbours; it grows by a margin on the sides
  // that c pushes out. Bounds are inclusive.
  int lo_x = c.x - 1, hi_x = c.x + 1, lo_y = c.y - 1, hi_y = c.y + 1;
  if (width_ > 0) {
    const int old_lo_x = min_x_, old_hi_x = min_x_ + width_ - 1, old_lo_y = min_y_, old_hi_y = min_y_ + height_ - 1;
    lo_x = lo_x < old_lo_x ? lo_x - kGrowthMargin : old_lo_x;
    hi_x = hi_x > old_hi_x ? hi_x + kGrowthMargin : old_hi_x;
    lo_y = lo_y < old_lo_y ? lo_y - kGrowthMargin : old_lo_y;
    hi_y = hi_y > old_hi_y ? hi_y + kGrowthMargin : old_hi_y;
  } else {
    lo_x -= kGrowthMargin;
    hi_x += kGrowthMargin;
    lo_y -= kGrowthMargin;
    hi_y += kGrowthMargin;
  }
  auto area = [&] { return (hi_x - lo_x + 1) * (hi_y - lo_y + 1); };
  if (area() > kMaxGridCells) {
    // Too large with the margins: the tiles' bounding box and c, a cell wider each way (the
    // frontier lies inside), with what margin still fits.
    lo_x = hi_x = c.x;
    lo_y = hi_y = c.y;
    for (int i = 0; i < num_tiles_; ++i) {
      const Cell t = tiles_[i].cell;
      lo_x = std::min<int>(lo_x, t.x), hi_x = std::max<int>(hi_x, t.x);
      lo_y = std::min<int>(lo_y, t.y), hi_y = std::max<int>(hi_y, t.y);
    }
    --lo_x, ++hi_x, --lo_y, ++hi_y;
    if (area() > kMaxGridCells) throw std::length_error("Board::place: the tiles spread beyond the board's grid");
    for (int m = 0; m < kGrowthMargin; ++m) {
      --lo_x, ++hi_x, --lo_y, ++hi_y;
      if (area() > kMaxGridCells) {
        ++lo_x, --hi_x, ++lo_y, --hi_y;
        break;
      }
    }
  }
  min_x_ = int16_t(lo_x);
  min_y_ = int16_t(lo_y);
  width_ = uint16_t(hi_x - lo_x + 1);
  height_ = uint16_t(hi_y - lo_y + 1);
  std::fill_n(grid_.begin(), int(width_) * height_, kEmpty);
  for (int i = 0; i < num_tiles_; ++i) grid_[index_of(tiles_[i].cell)] = uint16_t(i);
  for (int i = 0; i < frontier_size_; ++i) grid_[index_of(frontier_cell(i))] = uint16_t(kFrontierFlag | i);
}

bool Board::well_formed() const {
  if (num_tiles_ < 0 || num_tiles_ > kMaxTiles || frontier_size_ < 0 || frontier_size_ > kMaxFrontier) return false;
  if (int(width_) * height_ > kMaxGridCells) return false;
  for (int i = 0; i < int(width_) * height_; ++i) {
    const uint16_t e = grid_[i];
    if (e == kEmpty) continue;
    if ((e & kFrontierFlag) ? int(e & kValueMask) >= frontier_size_ : int(e) >= num_tiles_) return false;
  }
  for (int i = 0; i < num_tiles_; ++i)
    if (lookup(tiles_[i].cell) != i) return false;
  for (int i = 0; i < frontier_size_; ++i)
    if (frontier_keys_[i] != pack_cell(frontier_cell(i)) || lookup(frontier_cell(i)) != (kFrontierFlag | i))
      return false;
  return true;
}

bool Board::same_layout(const Board& o) const {
  if (num_tiles_ != o.num_tiles_ || frontier_size_ != o.frontier_size_ || min_x_ != o.min_x_ || min_y_ != o.min_y_ ||
      width_ != o.width_ || height_ != o.height_)
    return false;
  const size_t lanes = 4 * size_t((frontier_size_ + 3) / 4);
  if (!std::equal(need_, need_ + lanes, o.need_) || !std::equal(care_, care_ + lanes, o.care_)) return false;
  return std::equal(tiles_.begin(), tiles_.begin() + num_tiles_, o.tiles_.begin()) &&
         std::equal(grid_.begin(), grid_.begin() + int(width_) * height_, o.grid_.begin()) &&
         std::equal(frontier_keys_.begin(), frontier_keys_.begin() + frontier_size_, o.frontier_keys_.begin()) &&
         std::equal(frontier_present_.begin(), frontier_present_.begin() + frontier_size_, o.frontier_present_.begin());
}

void Board::remove_frontier(int i) {
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

int Board::place(Cell c, KindId kind, int rotation, uint16_t first_segment, const RotatedTile& rotated,
                 std::array<int, kNumSides>* neighbours) {
  assert(num_tiles_ < kMaxTiles);
  assert(c.x > -kCoordLimit + 1 && c.x < kCoordLimit - 1 && c.y > -kCoordLimit + 1 && c.y < kCoordLimit - 1);
  cover(c);
  int slot = num_tiles_++;
  tiles_[slot] = PlacedTile{c, kind, uint8_t(rotation), first_segment};
  const int at = index_of(c);
  assert(grid_[at] == kEmpty || (grid_[at] & kFrontierFlag));
  if (grid_[at] != kEmpty) remove_frontier(grid_[at] & kValueMask);
  grid_[at] = uint16_t(slot);

  // The neighbours' entries: the window holds them (cover).
  const int step[kNumSides] = {-int(width_), 1, int(width_), -1};
  for (int s = 0; s < kNumSides; ++s) {
    const int e = at + step[s];
    const uint16_t v = grid_[e];
    if (v < kFrontierFlag) {  // a tile
      if (neighbours) (*neighbours)[s] = v;
      continue;
    }
    if (neighbours) (*neighbours)[s] = -1;
    int f;
    if (v == kEmpty) {  // a new frontier cell
      assert(frontier_size_ < kMaxFrontier);
      f = frontier_size_++;
      if (f % 4 == 0) {  // the first in its word: the word's other lanes never fit
        std::fill_n(need_ + f, 4, uint16_t(0));
        std::fill_n(care_ + f, 4, uint16_t(0xFFFF));
      }
      frontier_keys_[f] = pack_cell(neighbour(c, Side(s)));
      frontier_present_[f] = 0;
      need_[f] = 0;
      care_[f] = 0;
      grid_[e] = uint16_t(kFrontierFlag | f);
    } else {
      f = v & kValueMask;
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
