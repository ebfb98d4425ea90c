// Features: a union-find over segments (one feature printed on one placed tile).
//
// Every segment knows its root directly (`root`), and each feature keeps a circular list of its
// members (`next`): merging relabels the smaller feature's members and splices the two lists,
// so find() is one load and a merge costs the smaller side (KataGo's chain layout). Roots hold
// the feature's aggregates, updated on every merge, so completion is known in O(1):
//   open      road/city: sides not yet matched; cloister-like: empty cells among its 8 neighbours
//   tiles     roads and cities: distinct tiles of the feature (a tile reached twice counts once,
//             B-7); other types: not kept exact (nothing reads it)
//   pennants, strength per player (meeples; a mayor's strength is read at scoring time), barns.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cassert>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#include "catalogue.h"
#include "types.h"

namespace carc {

inline constexpr int kMaxSegments = 512;  // every tile of every set has 477
inline constexpr uint16_t kNoSegment = 0xFFFF;

// No default member values: the segment array of a new state is left unset (add_tile sets a
// segment whole, Segment{} is all zeros). The aggregates are laid out for Features::merge, which
// combines them a word at a time: bytes 8-22 are counters summed lane by lane (no lane can
// overflow into the next), bytes 23-27 flags OR-ed; bytes 28-31 are the segment's own again.
struct Segment {
  uint16_t root;
  uint16_t next;
  uint8_t tile;   // slot of the tile it is printed on
  uint8_t local;  // its index among the tile's features (catalogue order)
  FeatureType type;
  uint8_t has_twin;  // its tile has another segment of the same type
  // Aggregates; meaningful at roots only. Summed on a merge:
  uint16_t open;
  uint16_t tiles;
  uint16_t size;
  uint8_t pennants;
  uint8_t occupants;                         // meeples of any kind (normal, mayor, wagon)
  std::array<uint8_t, kMaxPlayers> meeples;  // normal meeples and wagons per player
  uint8_t barns;
  // OR-ed on a merge:
  uint8_t mayors;       // bit p: player p has a mayor here
  uint8_t twins;        // some member's tile has another segment of the same type
  uint8_t done;         // completed and scored (road, city, cloister-like)
  uint8_t pig;          // a field with the pig herd (RV-4)
  uint8_t carcassonne;  // a field on the City of Carcassonne's squares: touches the City (CK-1)
  // The segment's own, as tile and local: a field's neighbouring cities on its tile (SegmentSpec's
  // cities: bit i, the tile's segment i), read by the fields' scoring without the catalogue.
  uint16_t cities;
  uint8_t unused[2];  // always 0: 32 bytes make a segment's address a shift of its index

  bool operator==(const Segment&) const = default;
};

class Features {
 public:
  void clear() { size_ = 0; }
  int size() const { return size_; }
  // Copies o's segments in use; the rest of the array is never read before add_tile sets it.
  void copy_from(const Features& o) {
    size_ = o.size_;
    std::copy_n(o.segs_.begin(), o.size_, segs_.begin());
  }
  const Segment& operator[](int s) const { return segs_[s]; }
  Segment& operator[](int s) { return segs_[s]; }
  uint16_t root(int s) const { return segs_[s].root; }
  const Segment& feature(int s) const { return segs_[segs_[s].root]; }
  Segment& feature(int s) { return segs_[segs_[s].root]; }

  // Adds the segments of a tile placed in `slot`. Returns the id of the first one. Inline, as
  // merge: they are most of placing a tile (State::put_tile).
  uint16_t add_tile(int slot, const TileKind& kind);
  // Merges the features of a and b (no-op if they are one already). Returns the new root.
  uint16_t merge(uint16_t a, uint16_t b);
  // Calls visit(segment id) for every member of s's feature.
  template <class Visit>
  void for_each_member(int s, Visit&& visit) const {
    int r = segs_[s].root, m = r;
    do {
      visit(m);
      m = segs_[m].next;
    } while (m != r);
  }

 private:
  // Counts the tiles that have segments in both features (roots ra and rb).
  int shared_tiles(uint16_t ra, uint16_t rb) const;

  int size_ = 0;
  std::array<Segment, kMaxSegments> segs_;
};

namespace features_detail {
// Every kind's segments as add_tile writes them, but for root and next (segment i has i, which
// add_tile offsets) and tile (0): what they hold does not depend on the rotation. Built at
// start-up from the builtin catalogue (features.cpp).
using NewSegments = std::array<Segment, kMaxSegmentsPerTile>;
extern const NewSegments* const g_new_segments;

// Segment's aggregates as merge combines them: 16 bytes of counters from `open`, the mayors'
// bits in their last byte, 4 bytes of flags from `twins`.
inline constexpr size_t kCounters = offsetof(Segment, open);
inline constexpr size_t kFlags = offsetof(Segment, twins);
inline constexpr int kTilesShift = 8 * int(offsetof(Segment, tiles) - kCounters);
inline constexpr uint64_t kMayorsLane = 0xFFull << 56;
static_assert(std::endian::native == std::endian::little, "merge adds lanes of little-endian words");
static_assert(offsetof(Segment, size) == kCounters + 4 && offsetof(Segment, pennants) == kCounters + 6 &&
                  offsetof(Segment, occupants) == kCounters + 7 && offsetof(Segment, meeples) == kCounters + 8 &&
                  offsetof(Segment, barns) == kCounters + 14 && offsetof(Segment, mayors) == kCounters + 15 &&
                  kFlags == kCounters + 16 && offsetof(Segment, carcassonne) == kFlags + 3 &&
                  offsetof(Segment, cities) == kFlags + 4 && sizeof(Segment) == 32,
              "Segment's aggregates moved: update merge");

template <class T>
T load(const char* at) {
  T v;
  std::memcpy(&v, at, sizeof v);
  return v;
}
}  // namespace features_detail

inline uint16_t Features::add_tile(int slot, const TileKind& kind) {
  assert(&kind == &Catalogue::builtin().kind(kind.id));
  assert(size_ + kind.num_segments <= kMaxSegments);
  const uint16_t first = uint16_t(size_);
  const features_detail::NewSegments& news = features_detail::g_new_segments[kind.id];
  const int n = kind.num_segments;  // in a local: the segment copies may alias kind for the compiler
  // The table's segment i has root = next = i and tile 0: one 64-bit add of first, first and the
  // slot to its first 8 bytes (root, next, tile, ...) makes them this tile's (no lane carries).
  static_assert(offsetof(Segment, root) == 0 && offsetof(Segment, next) == 2 && offsetof(Segment, tile) == 4);
  using features_detail::load;
  const uint64_t head_delta = uint64_t(first) | uint64_t(first) << 16 | uint64_t(uint8_t(slot)) << 32;
  // The head is read from the table, not back from the copy (no store to forward).
  constexpr size_t kHead = sizeof(uint64_t);
  for (int i = 0; i < n; ++i) {
    char* to = reinterpret_cast<char*>(&segs_[first + i]);
    const char* from = reinterpret_cast<const char*>(&news[i]);
    const uint64_t head = load<uint64_t>(from) + head_delta;
    std::memcpy(to, &head, kHead);
    std::memcpy(to + kHead, from + kHead, sizeof(Segment) - kHead);
  }
  size_ = first + n;
  return first;
}

inline uint16_t Features::merge(uint16_t a, uint16_t b) {
  using namespace features_detail;
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
