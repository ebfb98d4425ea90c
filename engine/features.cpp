#include "features.h"

#include <vector>

namespace carc {

namespace {
features_detail::NewSegments* build_new_segments() {
  const Catalogue& cat = Catalogue::builtin();
  static std::vector<features_detail::NewSegments> table(size_t(cat.size()));
  for (const TileKind& kind : cat.kinds()) {
    for (int i = 0; i < kind.num_segments; ++i) {
      const SegmentSpec& spec = kind.rotations[0].segments[i];
      Segment& s = table[kind.id][i];
      s = Segment{};
      s.root = s.next = uint16_t(i);  // add_tile adds the tile's first segment id
      s.local = uint8_t(i);
      s.type = spec.type;
      s.has_twin = s.twins = spec.same_type != 0;
      s.open = spec.num_sides;
      s.tiles = 1;
      s.size = 1;
      s.pennants = spec.pennants;
      s.pig = i == kind.pig_segment;
      s.carcassonne = kind.city_square && spec.type == FeatureType::Field;
      s.cities = spec.cities;
    }
  }
  return table.data();
}
}  // namespace

// Bound at start-up, as the catalogue is (game.cpp): add_tile reads it without a static's guard.
const features_detail::NewSegments* const features_detail::g_new_segments = build_new_segments();

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

}  // namespace carc
