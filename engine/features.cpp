#include "features.h"

#include <bit>
#include <cstddef>
#include <cstring>
#include <utility>
#include <vector>

namespace carc {

namespace {
// Every kind's segments as add_tile writes them, but for root, next and tile: what they hold
// does not depend on the rotation. Built once from the builtin catalogue (the one State uses).
using NewSegments = std::array<Segment, kMaxSegmentsPerTile>;
std::vector<NewSegments> build_new_segments() {
  const Catalogue& cat = Catalogue::builtin();
  std::vector<NewSegments> table(size_t(cat.size()));
  for (const TileKind& kind : cat.kinds()) {
    for (int i = 0; i < kind.num_segments; ++i) {
      const SegmentSpec& spec = kind.rotations[0].segments[i];
      Segment& s = table[kind.id][i];
      s = Segment{};
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
  }
  return table;
}
}  // namespace

uint16_t Features::add_tile(int slot, const TileKind& kind) {
  static const std::vector<NewSegments> table = build_new_segments();
  assert(&kind == &Catalogue::builtin().kind(kind.id));
  assert(size_ + kind.num_segments <= kMaxSegments);
  const uint16_t first = uint16_t(size_);
  const NewSegments& news = table[kind.id];
  const int n = kind.num_segments;  // in a local: the segment copies may alias kind for the compiler
  for (int i = 0; i < n; ++i) {
    const uint16_t id = uint16_t(first + i);
    Segment& s = segs_[id];
    s = news[i];
    s.root = s.next = id;
    s.tile = uint8_t(slot);
  }
  size_ = first + n;
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

namespace {
// Segment's aggregates as merge combines them (features.h): 16 bytes of counters from `open`,
// the mayors' bits in their last byte, 4 bytes of flags from `twins`.
constexpr size_t kCounters = offsetof(Segment, open);
constexpr size_t kFlags = offsetof(Segment, twins);
constexpr int kTilesShift = 8 * int(offsetof(Segment, tiles) - kCounters);
constexpr uint64_t kMayorsLane = 0xFFull << 56;
static_assert(std::endian::native == std::endian::little, "merge adds lanes of little-endian words");
static_assert(offsetof(Segment, size) == kCounters + 4 && offsetof(Segment, pennants) == kCounters + 6 &&
                  offsetof(Segment, occupants) == kCounters + 7 && offsetof(Segment, meeples) == kCounters + 8 &&
                  offsetof(Segment, barns) == kCounters + 14 && offsetof(Segment, mayors) == kCounters + 15 &&
                  kFlags == kCounters + 16 && offsetof(Segment, carcassonne) == kFlags + 3 &&
                  offsetof(Segment, unused) == kFlags + 4 && sizeof(Segment) == 32,
              "Segment's aggregates moved: update merge");

template <class T>
T load(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}
}  // namespace

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
  // The aggregates a word at a time: two words of counters summed lane by lane (less the
  // shared tiles), of which the last byte is the mayors' bits, OR-ed like the flags after them.
  char* to = reinterpret_cast<char*>(&big);
  const char* from = reinterpret_cast<const char*>(&small);
  const uint64_t counters =
      load<uint64_t>(to + kCounters) + load<uint64_t>(from + kCounters) - (uint64_t(shared) << kTilesShift);
  const uint64_t mine = load<uint64_t>(to + kCounters + 8), theirs = load<uint64_t>(from + kCounters + 8);
  const uint64_t more = (mine + (theirs & ~kMayorsLane)) | (theirs & kMayorsLane);  // no carry reaches the mayors
  const uint32_t flags = load<uint32_t>(to + kFlags) | load<uint32_t>(from + kFlags);
  std::memcpy(to + kCounters, &counters, sizeof counters);
  std::memcpy(to + kCounters + 8, &more, sizeof more);
  std::memcpy(to + kFlags, &flags, sizeof flags);
  return ra;
}

}  // namespace carc
