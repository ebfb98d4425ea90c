#include "features.h"

#include <utility>

namespace carc {

uint16_t Features::add_tile(int slot, const TileKind& kind, const RotatedTile& rotated) {
  assert(size_ + kind.num_segments <= kMaxSegments);
  uint16_t first = uint16_t(size_);
  for (int i = 0; i < kind.num_segments; ++i) {
    const SegmentSpec& spec = rotated.segments[i];
    uint16_t id = uint16_t(size_++);
    Segment& s = segs_[id];
    s = Segment{};
    s.root = s.next = id;
    s.tile = uint8_t(slot);
    s.local = uint8_t(i);
    s.type = spec.type;
    s.has_twin = s.twins = spec.same_type != 0;
    s.open = spec.num_sides;
    s.tiles = 1;
    s.size = 1;
    s.pennants = spec.pennants;
    s.pig = i == kind.pig_segment;
    s.carcassonne = kind.city_square && spec.type == FeatureType::Field;
  }
  return first;
}

int Features::shared_tiles(uint16_t ra, uint16_t rb) const {
  // Walk ra's members; count each tile once, at its lowest-indexed segment in ra.
  int shared = 0;
  for_each_member(ra, [&](int m) {
    const Segment& s = segs_[m];
    if (!s.has_twin) return;
    int first = m - s.local;  // segments of one tile are consecutive
    bool first_in_a = true, in_b = false;
    for (int j = 0; j < kMaxSegmentsPerTile; ++j) {
      int o = first + j;
      if (o >= size_ || segs_[o].tile != s.tile) break;
      if (o == m || segs_[o].type != s.type) continue;
      if (j < s.local && segs_[o].root == ra) first_in_a = false;
      if (segs_[o].root == rb) in_b = true;
    }
    shared += first_in_a && in_b;
  });
  return shared;
}

uint16_t Features::merge(uint16_t a, uint16_t b) {
  uint16_t ra = segs_[a].root, rb = segs_[b].root;
  if (ra == rb) return ra;
  if (segs_[ra].size < segs_[rb].size) std::swap(ra, rb);  // ra: the larger, it stays root
  Segment& big = segs_[ra];
  Segment& small = segs_[rb];
  // Only a road's or a city's tile count scores (B-7); a field's is never read.
  const bool counted = big.type == FeatureType::Road || big.type == FeatureType::City;
  int shared = (counted && big.twins && small.twins) ? shared_tiles(rb, ra) : 0;
  for_each_member(rb, [&](int m) { segs_[m].root = ra; });
  std::swap(big.next, small.next);
  big.open = uint16_t(big.open + small.open);
  big.tiles = uint16_t(big.tiles + small.tiles - shared);
  big.size = uint16_t(big.size + small.size);
  big.pennants = uint8_t(big.pennants + small.pennants);
  big.occupants = uint8_t(big.occupants + small.occupants);
  big.barns = uint8_t(big.barns + small.barns);
  big.mayors |= small.mayors;
  big.twins |= small.twins;
  big.done |= small.done;
  big.pig |= small.pig;
  big.carcassonne |= small.carcassonne;
  for (int p = 0; p < kMaxPlayers; ++p) big.meeples[p] = uint8_t(big.meeples[p] + small.meeples[p]);
  return ra;
}

}  // namespace carc
