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

}  // namespace carc
