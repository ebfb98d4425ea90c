// Observation tensors and the dense action space (observation.h). Layout: docs/observation.md.
#include "observation.h"

#include <algorithm>
#include <array>
#include <bit>
#include <stdexcept>
#include <string_view>

#include "catalogue.h"
#include "features.h"

namespace carc {

namespace {

// Per side, the edge kinds Field .. Joint (Edge values 1 .. 6).
constexpr int kEdgeKinds = 6;
constexpr const char* kEdgeNames[kEdgeKinds] = {"field", "road", "city", "river", "abbey", "joint"};
constexpr const char* kSideNames[kNumSides] = {"N", "E", "S", "W"};
// The catalogue's tile marks, each a plane (a test checks the catalogue has no other).
constexpr const char* kMarkNames[] = {"garden", "inn", "lake", "pig-herd", "spring", "volcano", "well"};
constexpr int kNumMarks = int(sizeof(kMarkNames) / sizeof(kMarkNames[0]));
constexpr const char* kArrowNames[3] = {"meeple-beside", "place-anywhere", "extra-turn"};
// Where a figure stands: road, city, field, or a cloister-like or other centre feature.
constexpr const char* kPlaceNames[4] = {"road", "city", "field", "centre"};
constexpr int kNumPhases = int(Phase::GameOver) + 1;

// The fixed planes; then, per relative player r, 4 figure-kind planes, 4 figure-place planes and
// 4 side-holder planes (each block over all players before the next).
enum Plane : int {
  kTilePlane = 0,
  kEdgePlanes = 1,                                       // + side * 6 + edge kind
  kCentrePlanes = kEdgePlanes + kNumSides * kEdgeKinds,  // monastery, shrine, abbey, quarter
  kPennantPlane = kCentrePlanes + 4,                     // pennants on the tile
  kMarkPlanes = kPennantPlane + 1,                       // kMarkNames
  kArrowPlanes = kMarkPlanes + kNumMarks,                // kArrowNames
  kArmedPlane = kArrowPlanes + 3,                        // its arrow can still activate
  kSideDonePlanes = kArmedPlane + 1,                     // the feature across the side is complete
  kCentreDonePlane = kSideDonePlanes + kNumSides,        // the cloister-like centre is complete
  kLastPlacedPlane = kCentreDonePlane + 1,               // the tile placed last
  kFocusPlane = kLastPlacedPlane + 1,                    // tiles of the feature a decision is about
  kChallengePlane = kFocusPlane + 1,                     // a shrine or cloister in a challenge (SH-4)
  kFixedPlanes = kChallengePlane + 1,
};

// A tile's flags, the planes the game sets on it (TileFlags): bit kSideDoneFlags + side,
// kCentreDoneFlag, kArmedFlag, and kHeldFlags + 4 * relative player + side.
constexpr int kSideDoneFlags = 0, kCentreDoneFlag = 4, kArmedFlag = 5, kHeldFlags = 6;
static_assert(kHeldFlags + 4 * kMaxPlayers <= 32, "a tile's flags fit 32 bits");

int flag_plane(int flag, int players) {
  if (flag < kCentreDoneFlag) return kSideDonePlanes + flag - kSideDoneFlags;
  if (flag == kCentreDoneFlag) return kCentreDonePlane;
  if (flag == kArmedFlag) return kArmedPlane;
  return kFixedPlanes + 8 * players + flag - kHeldFlags;  // the side-holder planes
}

int place_of(FeatureType t) {
  switch (t) {
    case FeatureType::Road: return 0;
    case FeatureType::City: return 1;
    case FeatureType::Field: return 2;
    default: return 3;
  }
}

// Per tile kind: bit i set if it carries mark kMarkNames[i].
const std::vector<uint8_t>& mark_bits() {
  static const std::vector<uint8_t> bits = [] {
    std::vector<uint8_t> out;
    for (const TileKind& k : Catalogue::builtin().kinds()) {
      uint8_t b = 0;
      for (const std::string& m : k.marks)
        for (int i = 0; i < kNumMarks; ++i)
          if (m == kMarkNames[i]) b |= uint8_t(1u << i);
      out.push_back(b);
    }
    return out;
  }();
  return bits;
}

// The names of num values "group[label]" or, for a single value, "group". one_hot(.., hot) is
// the values i == hot (none for a hot outside [0, count)), counts(.., values) the values given:
// plain loops for the long groups.
struct NameSink {
  std::vector<std::string>* names;
  template <class Label, class Value>
  void operator()(std::string_view group, int count, Label&& label, Value&&) {
    if (count == 1) names->push_back(std::string(group));
    for (int i = 0; count > 1 && i < count; ++i) names->push_back(std::string(group) + "[" + label(i) + "]");
  }
  template <class Label>
  void one_hot(std::string_view group, int count, Label&& label, int) {
    (*this)(group, count, label, 0);
  }
  template <class Label>
  void counts(std::string_view group, int count, Label&& label, const uint8_t*) {
    (*this)(group, count, label, 0);
  }
};
struct WriteSink {
  float* out;
  template <class Label, class Value>
  void operator()(std::string_view, int count, Label&&, Value&& value) {
    for (int i = 0; i < count; ++i) *out++ = float(value(i));
  }
  template <class Label>
  void one_hot(std::string_view, int count, Label&&, int hot) {
    std::fill_n(out, count, 0.0f);
    if (hot >= 0 && hot < count) out[hot] = 1;
    out += count;
  }
  template <class Label>
  void counts(std::string_view, int count, Label&&, const uint8_t* values) {
    for (int i = 0; i < count; ++i) out[i] = float(values[i]);
    out += count;
  }
};

// The globals vector, one definition for its names (NameSink, state unused) and its values.
template <class Sink>
void visit_globals(Sink& sink, const State& s, int observer, int players) {
  const Catalogue& cat = Catalogue::builtin();
  const int kinds = cat.size();
  auto who = [&](int r) { return (observer + r) % players; };
  auto rel = [](int r) {
    std::string name = std::to_string(r);  // not "r" + to_string: GCC 12's -Wrestrict false alarm
    return name.insert(0, 1, 'r');
  };
  auto number = [](int i) { return std::to_string(i); };
  auto relative_of = [&](int p) { return p < 0 ? -1 : (p - observer + players) % players; };
  const Phase phase = s.phase();
  const Rules& rules = s.rules();

  sink.one_hot(
      "phase", kNumPhases, [](int i) { return std::string(phase_name(Phase(i))); }, int(phase));
  sink.one_hot("player_to_move", players, rel, relative_of(s.current_player()));
  sink.one_hot("turn_player", players, rel, relative_of(s.turn_player()));
  sink("score", players, rel, [&](int r) { return s.score(who(r)); });
  sink(
      "supply", players * kNumFigureKinds,
      [&](int i) { return rel(i / kNumFigureKinds) + "." + figure_kind_name(FigureKind(i % kNumFigureKinds)); },
      [&](int i) { return s.supply(who(i / kNumFigureKinds), FigureKind(i % kNumFigureKinds)); });
  sink("abbeys", players, rel, [&](int r) { return s.abbeys(who(r)); });
  sink(
      "city", players * kNumQuarters * 3,
      [&](int i) {
        return rel(i / 12) + "." + kQuarterNames[i / 3 % kNumQuarters] + "." + figure_kind_name(FigureKind(i % 3));
      },
      [&](int i) { return s.in_quarter(who(i / 12), Quarter(i / 3 % kNumQuarters), FigureKind(i % 3)); });
  sink.one_hot(
      "count", kNumQuarters, [](int q) { return std::string(kQuarterNames[q]); }, rules.count ? int(s.count()) : -1);
  sink.one_hot("king", players, rel, relative_of(s.king()));
  sink.one_hot("robber", players, rel, relative_of(s.robber()));
  sink.counts(
      "bag", kinds, [&](int k) { return cat.kind(KindId(k)).name; }, s.bag_counts().data());
  sink("bag_size", 1, number, [&](int) { return s.bag_size(); });
  sink("river_left", 1, number, [&](int) { return s.river_left(); });
  const bool has_drawn = phase == Phase::PlaceTile || phase == Phase::ArrowChoice || phase == Phase::PlaceFigure;
  sink.one_hot(
      "drawn", kinds, [&](int k) { return cat.kind(KindId(k)).name; }, has_drawn ? int(s.drawn_tile()) : -1);
  sink.one_hot(
      "active_arrow", 3, [](int i) { return std::string(kArrowNames[i]); }, int(s.active_arrow()) - 1);
  sink("extra_turn", 1, number, [&](int) { return s.in_extra_turn(); });
  sink("turn_number", 1, number, [&](int) { return s.turn_number(); });
  sink("discarded", 1, number, [&](int) { return s.discarded(); });
  static constexpr const char* kRuleNames[] = {"abbey-mayor", "anniv20", "king-robber", "shrines",
                                               "river2",      "city",    "count"};
  const bool flags[] = {rules.abbey_mayor, rules.anniv20,    rules.king_robber, rules.shrines,
                        rules.river,       rules.city_block, rules.count};
  sink(
      "rules", 7, [](int i) { return std::string(kRuleNames[i]); }, [&](int i) { return flags[i]; });
  static constexpr const char* kEndgames[] = {"mandatory", "final_round", "none"};
  sink.one_hot(
      "abbey_endgame", 3, [](int i) { return std::string(kEndgames[i]); }, int(rules.abbey_endgame));
  static constexpr const char* kWagonRules[] = {"c2", "c1"};
  sink.one_hot(
      "wagon_move", 2, [](int i) { return std::string(kWagonRules[i]); }, int(rules.wagon_move));
  static constexpr const char* kCountMoves[] = {"free", "clockwise", "follow"};
  sink.one_hot(
      "count_move", 3, [](int i) { return std::string(kCountMoves[i]); }, int(rules.count_move));
}

}  // namespace

Window observation_window(const State& state, int size) {
  if (size < kMinWindow || size > kMaxWindow)
    throw std::invalid_argument("window side " + std::to_string(size) + " is outside [" + std::to_string(kMinWindow) +
                                ", " + std::to_string(kMaxWindow) + "]");
  const Board& board = state.board();
  int min_x = 0, max_x = 0, min_y = 0, max_y = 0;
  for (int i = 0; i < board.num_tiles(); ++i) {
    Cell c = board.tile(i).cell;
    if (i == 0 || c.x < min_x) min_x = c.x;
    if (i == 0 || c.x > max_x) max_x = c.x;
    if (i == 0 || c.y < min_y) min_y = c.y;
    if (i == 0 || c.y > max_y) max_y = c.y;
  }
  // >> 1 floors for negative sums too (C++20 arithmetic shift).
  return Window{((min_x + max_x + 1) >> 1) - size / 2, ((min_y + max_y + 1) >> 1) - size / 2, size};
}

ObservationEncoder::ObservationEncoder(int players, int window) : players_(players), window_(window) {
  if (players < 1 || players > kMaxPlayers)
    throw std::invalid_argument("players must be 1 .. " + std::to_string(kMaxPlayers));
  if (window < kMinWindow || window > kMaxWindow)
    throw std::invalid_argument("window side " + std::to_string(window) + " is outside [" + std::to_string(kMinWindow) +
                                ", " + std::to_string(kMaxWindow) + "]");
  std::vector<std::string>& p = plane_names_;
  p.push_back("tile");
  for (int s = 0; s < kNumSides; ++s)
    for (int e = 0; e < kEdgeKinds; ++e) p.push_back(std::string("edge[") + kSideNames[s] + "." + kEdgeNames[e] + "]");
  for (const char* c : {"monastery", "shrine", "abbey", "quarter"}) p.push_back(std::string("centre[") + c + "]");
  p.push_back("pennants");
  for (const char* m : kMarkNames) p.push_back(std::string("mark[") + m + "]");
  for (const char* a : kArrowNames) p.push_back(std::string("arrow[") + a + "]");
  p.push_back("arrow_armed");
  for (const char* s : kSideNames) p.push_back(std::string("side_complete[") + s + "]");
  p.push_back("centre_complete");
  p.push_back("last_placed");
  p.push_back("focus");
  p.push_back("challenge");
  for (int r = 0; r < players; ++r)
    for (int k = 0; k < kNumFigureKinds; ++k)
      p.push_back("figures[r" + std::to_string(r) + "." + figure_kind_name(FigureKind(k)) + "]");
  for (int r = 0; r < players; ++r)
    for (const char* w : kPlaceNames) p.push_back("figures_on[r" + std::to_string(r) + "." + w + "]");
  for (int r = 0; r < players; ++r)
    for (const char* s : kSideNames) p.push_back("side_held[r" + std::to_string(r) + "." + s + "]");
  for (int flag = 0; flag < kHeldFlags + 4 * players; ++flag)
    flag_offsets_[size_t(flag)] = flag_plane(flag, players) * window * window;
  NameSink names{&global_names_};
  visit_globals(names, State(Config{}), 0, players);
}

namespace {

// What every tile of one kind in one rotation shows, whatever the game: the planes it sets (with
// their values) and where to look for what the game adds (completed features, holders).
struct TileLook {
  int num_fixed = 0;
  std::array<uint8_t, 16> plane{}, value{};      // tile, edges, centre, pennants, marks, arrow
  std::array<int8_t, kNumSides> side_segment{};  // the tile's segment across each side, -1: none
  // The distinct segments of side_segment, each with its sides (bit s): one feature read each.
  int num_parts = 0;
  std::array<int8_t, kNumSides> part_segment{};
  std::array<uint8_t, kNumSides> part_sides{};
  int8_t centre_segment = -1;  // a cloister-like centre's segment
  bool arrow = false;          // an arrow that can be armed
};

// Per tile kind * 4 + rotation, for the built-in catalogue.
const std::vector<TileLook>& tile_looks() {
  static const std::vector<TileLook> looks = [] {
    std::vector<TileLook> out;
    const std::vector<uint8_t>& marks = mark_bits();
    for (const TileKind& kind : Catalogue::builtin().kinds()) {
      for (const RotatedTile& rotated : kind.rotations) {
        TileLook look;
        auto fixed = [&](int plane, int value) {
          if (look.num_fixed == int(look.plane.size())) throw std::logic_error("TileLook: too many planes");
          look.plane[size_t(look.num_fixed)] = uint8_t(plane);
          look.value[size_t(look.num_fixed++)] = uint8_t(value);
        };
        fixed(kTilePlane, 1);
        for (int side = 0; side < kNumSides; ++side) {
          const int edge = int(rotated.edges[size_t(side)]);
          if (edge >= 1 && edge <= kEdgeKinds) fixed(kEdgePlanes + side * kEdgeKinds + edge - 1, 1);
          int local = rotated.segment_at[size_t(side_point(Side(side), 1))];
          if (local < 0) local = rotated.segment_at[size_t(side_point(Side(side), 0))];
          look.side_segment[size_t(side)] = int8_t(local);
          if (local < 0) continue;
          int part = 0;
          while (part < look.num_parts && look.part_segment[size_t(part)] != local) ++part;
          if (part == look.num_parts) look.part_segment[size_t(look.num_parts++)] = int8_t(local);
          look.part_sides[size_t(part)] = uint8_t(look.part_sides[size_t(part)] | 1u << side);
        }
        if (kind.cloister_segment >= 0) {
          const FeatureType type = rotated.segments[size_t(kind.cloister_segment)].type;
          fixed(kCentrePlanes + (type == FeatureType::Monastery ? 0 : type == FeatureType::Shrine ? 1 : 2), 1);
          look.centre_segment = int8_t(kind.cloister_segment);
        }
        if (kind.city_square) fixed(kCentrePlanes + 3, 1);
        int pennants = 0;
        for (int i = 0; i < kind.num_segments; ++i) pennants += rotated.segments[size_t(i)].pennants;
        if (pennants) fixed(kPennantPlane, pennants);
        for (int m = 0; m < kNumMarks; ++m)
          if (marks[kind.id] >> m & 1) fixed(kMarkPlanes + m, 1);
        if (kind.arrow != ArrowKind::None) {
          fixed(kArrowPlanes + int(kind.arrow) - 1, 1);
          look.arrow = true;
        }
        out.push_back(look);
      }
    }
    return out;
  }();
  return looks;
}

// The flags of tiles as seen by one observer.
class TileFlags {
 public:
  TileFlags(const State& s, int observer, int players) : s_(s), features_(s.features()), players_(players) {
    for (int p = 0; p < players; ++p)
      held_shift_[size_t(p)] = uint8_t(kHeldFlags + 4 * ((p - observer + players) % players));
  }
  uint32_t operator()(const PlacedTile& t, int slot, const TileLook& look) const {
    uint32_t flags = 0;
    for (int i = 0; i < look.num_parts; ++i) {
      const Segment& root = features_.feature(t.first_segment + look.part_segment[size_t(i)]);
      const uint32_t sides = look.part_sides[size_t(i)];
      if (root.done) flags |= sides << kSideDoneFlags;
      if (!root.occupants) continue;  // meeples, mayors and wagons (the engine's invariant)
      for (int p = 0; p < players_; ++p)
        if (root.meeples[size_t(p)] || (root.mayors >> p & 1)) flags |= sides << held_shift_[size_t(p)];
    }
    if (look.centre_segment >= 0 && features_.feature(t.first_segment + look.centre_segment).done)
      flags |= 1u << kCentreDoneFlag;
    if (look.arrow && s_.arrow_armed(slot)) flags |= 1u << kArmedFlag;
    return flags;
  }

 private:
  const State& s_;
  const Features& features_;
  int players_;
  std::array<uint8_t, kMaxPlayers> held_shift_{};
};

// Plane writers: set(offset, value), add(offset) (a figure: counts add up) and clear(offset).
// Every value written is above 0, so a byte is 0 exactly where nothing was written. With
// `noted`, set and add note their offsets there (the node's marks, cleared at the next update).
struct ByteWriter {
  uint8_t* planes;
  int size;
  std::vector<uint32_t>* noted = nullptr;
  void set(int at, int value) {
    if (noted) noted->push_back(uint32_t(at));
    planes[at] = uint8_t(value);
  }
  void add(int at) {
    if (noted) noted->push_back(uint32_t(at));
    ++planes[at];
  }
  void clear(int at) { planes[at] = 0; }
  void clear_all() { std::fill(planes, planes + size, uint8_t(0)); }
};
struct BitWriter {  // numpy.packbits(planes, bitorder="little"): a count above 1 is a 1
  uint8_t* bits;
  int size;  // bytes
  std::vector<uint32_t>* noted = nullptr;
  void set(int at, int) {
    if (noted) noted->push_back(uint32_t(at));
    bits[at >> 3] = uint8_t(bits[at >> 3] | 1u << (at & 7));
  }
  void add(int at) { set(at, 1); }
  void clear(int at) { bits[at >> 3] = uint8_t(bits[at >> 3] & ~(1u << (at & 7))); }
  void clear_all() { std::fill(bits, bits + size, uint8_t(0)); }
};

// The planes a tile of this look sets whatever the game, at `cell` of a window of `area` cells.
template <class Writer>
void write_fixed(const TileLook& look, int cell, int area, Writer& out) {
  for (int i = 0; i < look.num_fixed; ++i) out.set(look.plane[size_t(i)] * area + cell, look.value[size_t(i)]);
}

// Sets (or clears) the planes of these flags at `cell`; offsets: each flag's plane's first byte.
template <class Writer>
void write_flags(uint32_t flags, bool value, int cell, const std::array<int, 32>& offsets, Writer& out) {
  for (; flags; flags &= flags - 1) {
    const int at = offsets[size_t(std::countr_zero(flags))] + cell;
    if (value) out.set(at, 1);
    else out.clear(at);
  }
}

}  // namespace

void ObservationEncoder::check(const State& s, int observer) const {
  if (s.num_players() != players_)
    throw std::invalid_argument("the state has " + std::to_string(s.num_players()) + " players, the encoder " +
                                std::to_string(players_));
  if (observer < 0 || observer >= players_)
    throw std::invalid_argument("observer " + std::to_string(observer) + " is not a player");
}

// The planes of the node rather than of a tile: the tile placed last, the focus, the challenges
// and the figures.
template <class Writer>
void ObservationEncoder::write_node_marks(const State& s, int observer, const Window& w, Writer& out) const {
  const Board& board = s.board();
  const Features& features = s.features();
  const int area = window_ * window_;
  const int figure_planes = kFixedPlanes, place_planes = kFixedPlanes + 4 * players_;
  if (s.last_slot() >= 0 && w.contains(board.tile(s.last_slot()).cell))
    out.set(kLastPlacedPlane * area + w.index(board.tile(s.last_slot()).cell), 1);

  // Marks every in-window tile of segment's feature on `plane`.
  auto mark_feature = [&](uint16_t segment, int plane) {
    features.for_each_member(segment, [&](int m) {
      Cell c = board.tile(features[m].tile).cell;
      if (w.contains(c)) out.set(plane * area + w.index(c), 1);
    });
  };
  if (s.phase() == Phase::WagonMove) mark_feature(s.wagon_origin(), kFocusPlane);
  if (s.phase() == Phase::CityMove) mark_feature(s.scoring_item(), kFocusPlane);
  for (int i = 0; i < s.num_challenges(); ++i) {
    auto [shrine, cloister] = s.challenge(i);
    for (uint16_t seg : {shrine, cloister}) {
      Cell c = board.tile(features[seg].tile).cell;
      if (w.contains(c)) out.set(kChallengePlane * area + w.index(c), 1);
    }
  }
  for (int i = 0; i < s.num_placed_figures(); ++i) {
    const PlacedFigure& f = s.placed_figure(i);
    const Segment& seg = features[f.segment];
    Cell c = board.tile(seg.tile).cell;
    if (!w.contains(c)) continue;
    const int cell = w.index(c), r = (f.owner - observer + players_) % players_;
    out.add((figure_planes + 4 * r + int(f.kind)) * area + cell);
    out.add((place_planes + 4 * r + place_of(seg.type)) * area + cell);
  }
}

// Writes what is on the board, tile by tile and figure by figure, into planes that are zero.
template <class Writer>
void ObservationEncoder::write_planes(const State& s, int observer, Writer& out) const {
  const Board& board = s.board();
  const Window w = observation_window(s, window_);
  const int area = window_ * window_;
  const std::vector<TileLook>& looks = tile_looks();
  const TileFlags tile_flags(s, observer, players_);
  for (int slot = 0; slot < board.num_tiles(); ++slot) {
    const PlacedTile& t = board.tile(slot);
    if (!w.contains(t.cell)) continue;
    const int cell = w.index(t.cell);
    const TileLook& look = looks[size_t(t.kind) * 4 + t.rotation];
    write_fixed(look, cell, area, out);
    write_flags(tile_flags(t, slot, look), true, cell, flag_offsets_, out);
  }
  write_node_marks(s, observer, w, out);
}

// write_planes' result from what the cache says the buffer holds: a tile's fixed planes are
// written once (again only if the window moves or the game is another), its flags where they
// changed, the node's marks anew.
template <class Writer>
void ObservationEncoder::update_planes(const State& s, int observer, Writer& out, PlaneCache& cache) const {
  const Board& board = s.board();
  const Window w = observation_window(s, window_);
  const int area = window_ * window_;
  const int tiles = board.num_tiles();
  const std::vector<TileLook>& looks = tile_looks();
  if (!cache.known_ || w.x0 != cache.window_.x0 || w.y0 != cache.window_.y0 || cache.tiles_.size() > size_t(tiles) ||
      !std::equal(cache.tiles_.begin(), cache.tiles_.end(), &board.tile(0))) {
    // A buffer not known, a moved window or another game: written anew (zeroing it whole costs
    // less than erasing each tile).
    out.clear_all();
    cache.tiles_.clear();
    cache.flags_.clear();
    cache.window_ = w;
    cache.known_ = true;
  } else {
    for (uint32_t at : cache.marks_) out.clear(int(at));
  }
  cache.marks_.clear();
  for (int slot = int(cache.tiles_.size()); slot < tiles; ++slot) {  // the tiles placed since
    const PlacedTile& t = board.tile(slot);
    cache.tiles_.push_back(t);
    cache.flags_.push_back(0);
    if (w.contains(t.cell)) write_fixed(looks[size_t(t.kind) * 4 + t.rotation], w.index(t.cell), area, out);
  }
  const TileFlags tile_flags(s, observer, players_);
  for (int slot = 0; slot < tiles; ++slot) {
    const PlacedTile& t = board.tile(slot);
    if (!w.contains(t.cell)) continue;
    const uint32_t flags = tile_flags(t, slot, looks[size_t(t.kind) * 4 + t.rotation]);
    const uint32_t changed = flags ^ cache.flags_[size_t(slot)];
    if (!changed) continue;
    write_flags(changed & flags, true, w.index(t.cell), flag_offsets_, out);
    write_flags(changed & ~flags, false, w.index(t.cell), flag_offsets_, out);
    cache.flags_[size_t(slot)] = flags;
  }
  out.noted = &cache.marks_;
  write_node_marks(s, observer, w, out);
}

void ObservationEncoder::write_globals(const State& s, int observer, float* globals) const {
  WriteSink out{globals};
  visit_globals(out, s, observer, players_);
}

void ObservationEncoder::encode(const State& s, int observer, uint8_t* planes, float* globals) const {
  check(s, observer);
  ByteWriter out{planes, plane_bytes()};
  out.clear_all();
  write_planes(s, observer, out);
  write_globals(s, observer, globals);
}

void ObservationEncoder::encode_packed(const State& s, int observer, uint8_t* bits, float* globals) const {
  check(s, observer);
  BitWriter out{bits, packed_bytes()};
  out.clear_all();
  write_planes(s, observer, out);
  write_globals(s, observer, globals);
}

void ObservationEncoder::encode_update(const State& s, int observer, uint8_t* planes, PlaneCache& cache,
                                       float* globals) const {
  check(s, observer);
  ByteWriter out{planes, plane_bytes()};
  update_planes(s, observer, out, cache);
  write_globals(s, observer, globals);
}

void ObservationEncoder::encode_packed_update(const State& s, int observer, uint8_t* bits, PlaneCache& cache,
                                              float* globals) const {
  check(s, observer);
  BitWriter out{bits, packed_bytes()};
  update_planes(s, observer, out, cache);
  write_globals(s, observer, globals);
}

// ---- The action space -----------------------------------------------------------------------

namespace {
constexpr int kSlots = 10;            // feature indexes on a tile (kMaxSegmentsPerTile)
constexpr int kFiguresElsewhere = 3;  // meeple, mayor, wagon move or go to other tiles
}  // namespace

namespace {

// The window layout's numbering: a cell's index in the window, for placements and tiles alike.
struct WindowCells {
  const Window& w;
  int place(Cell c) const { return w.contains(c) ? w.index(c) : -1; }
  int tile(Cell c) const { return place(c); }
  Cell place_cell(int n, int index) const {
    const Cell at = w.cell(n);
    if (at.x < -kCoordLimit || at.x >= kCoordLimit || at.y < -kCoordLimit || at.y >= kCoordLimit)
      throw std::out_of_range("action index " + std::to_string(index) + " names a cell beyond the board");
    return at;
  }
  Cell tile_cell(int n, int index) const { return place_cell(n, index); }
};

// The frontier layout's numbering: a frontier cell's rank in row-major order, a tile's slot.
struct FrontierCells {
  const Board& board;
  const std::vector<uint32_t>& frontier;  // pack_cell keys, ascending: row-major
  const std::vector<int16_t>& rank;       // by the board's frontier index
  int place(Cell c) const {
    const int i = board.frontier_index(c);
    return i < 0 ? -1 : rank[size_t(i)];
  }
  int tile(Cell c) const { return board.slot_at(c); }
  Cell place_cell(int n, int index) const {
    if (n >= int(frontier.size()))
      throw std::out_of_range("action index " + std::to_string(index) + " names frontier cell " + std::to_string(n) +
                              "; the board has " + std::to_string(frontier.size()));
    return unpack_cell(frontier[size_t(n)]);
  }
  Cell tile_cell(int n, int index) const {
    if (n >= board.num_tiles())
      throw std::out_of_range("action index " + std::to_string(index) + " names tile " + std::to_string(n) +
                              "; the board has " + std::to_string(board.num_tiles()));
    return board.tile(n).cell;
  }
};

}  // namespace

const char* layout_name(ActionLayout layout) { return layout == ActionLayout::Window ? "window" : "frontier"; }

ActionLayout parse_layout(const std::string& name) {
  if (name == "window") return ActionLayout::Window;
  if (name == "frontier") return ActionLayout::Frontier;
  throw std::invalid_argument("unknown action layout '" + name + "' (known: frontier, window)");
}

ActionSpace::ActionSpace(int window) : ActionSpace(ActionLayout::Window, window) {}

ActionSpace::ActionSpace(ActionLayout layout, int window)
    : layout_(layout), window_(layout == ActionLayout::Window ? window : 0), kinds_(Catalogue::builtin().size()) {
  if (layout == ActionLayout::Window && (window < kMinWindow || window > kMaxWindow))
    throw std::invalid_argument("window side " + std::to_string(window) + " is outside [" + std::to_string(kMinWindow) +
                                ", " + std::to_string(kMaxWindow) + "]");
  static_assert(kMaxSegmentsPerTile == kSlots);
  const int cells = layout == ActionLayout::Window ? window * window : kMaxFrontier;
  const int tiles = layout == ActionLayout::Window ? window * window : kMaxTiles;
  int next = 0;
  auto block = [&](const char* name, int size) {
    blocks_.push_back(Block{name, next, size});
    next += size;
    return next - size;
  };
  block("draw", kinds_);
  place_ = block("place", 4 * cells);
  figure_ = block("figure", kNumFigureKinds * kSlots);
  figure_at_ = block("figure_at", tiles * kFiguresElsewhere * kSlots);
  pass_ = block("pass", 1);
  take_tile_ = block("take-tile", 1);
  abbey_ = block("abbey", cells);
  arrow_ = block("arrow", tiles);
  quarter_ = block("quarter", kFiguresElsewhere * kNumQuarters);
  count_ = block("count", kNumQuarters);
  size_ = next;
}

void ActionSpace::frame(const State& s, ActionFrame& frame) const {
  if (layout_ == ActionLayout::Window) {
    frame.frontier.clear();
    frame.window = observation_window(s, window_);
    return;
  }
  // Each cell's key above its board index, sorted: the keys in row-major order and each cell's
  // rank at once.
  static_assert(kMaxFrontier <= 1 << 9 && 18 + 9 <= 32, "a key (18 bits) and a frontier index in 32 bits");
  const Board& board = s.board();
  const int n = board.frontier_size();
  std::vector<uint32_t>& cells = frame.frontier;
  cells.resize(size_t(n));
  for (int i = 0; i < n; ++i) cells[size_t(i)] = board.frontier_key(i) << 9 | uint32_t(i);
  std::sort(cells.begin(), cells.end());
  frame.rank.resize(size_t(n));
  for (int r = 0; r < n; ++r) {
    frame.rank[cells[size_t(r)] & 0x1FF] = int16_t(r);
    cells[size_t(r)] >>= 9;
  }
}

ActionFrame ActionSpace::frame(const State& s) const {
  ActionFrame out;
  frame(s, out);
  return out;
}

template <class Cells>
int ActionSpace::index_in(const Cells& cells, Action a) const {
  if (!a.well_formed()) return -1;
  switch (a.kind()) {
    case ActionKind::Draw: return a.tile_kind() < kinds_ ? a.tile_kind() : -1;
    case ActionKind::Place: {
      const int c = cells.place(a.cell());
      return c < 0 ? -1 : place_ + c * 4 + a.rotation();
    }
    case ActionKind::Figure: {
      const int f = int(a.figure_kind()), slot = a.feature();
      if (slot >= kSlots) return -1;
      if (!a.elsewhere()) return f < kNumFigureKinds ? figure_ + f * kSlots + slot : -1;
      const int t = cells.tile(a.figure_cell());
      return f >= kFiguresElsewhere || t < 0 ? -1 : figure_at_ + (t * kFiguresElsewhere + f) * kSlots + slot;
    }
    case ActionKind::Pass: return pass_;
    case ActionKind::TakeTile: return take_tile_;
    case ActionKind::Abbey: {
      const int c = cells.place(a.cell());
      return c < 0 ? -1 : abbey_ + c;
    }
    case ActionKind::Arrow: {
      const int t = cells.tile(a.cell());
      return t < 0 ? -1 : arrow_ + t;
    }
    case ActionKind::Quarter: {
      const int f = int(a.figure_kind());
      return f < kFiguresElsewhere ? quarter_ + f * kNumQuarters + int(a.quarter()) : -1;
    }
    case ActionKind::Count: return count_ + int(a.quarter());
  }
  return -1;
}

template <class Cells>
Action ActionSpace::action_in(const Cells& cells, int index) const {
  if (index < 0 || index >= size_)
    throw std::out_of_range("action index " + std::to_string(index) + " is outside [0, " + std::to_string(size_) + ")");
  if (index < place_) return Action::draw(index);
  if (index < figure_) return Action::place(cells.place_cell((index - place_) / 4, index), (index - place_) % 4);
  if (index < figure_at_) return Action::figure(FigureKind((index - figure_) / kSlots), (index - figure_) % kSlots);
  if (index < pass_) {
    const int i = index - figure_at_;
    return Action::figure_at(FigureKind(i / kSlots % kFiguresElsewhere), i % kSlots,
                             cells.tile_cell(i / (kSlots * kFiguresElsewhere), index));
  }
  if (index == pass_) return Action::pass();
  if (index == take_tile_) return Action::take_tile();
  if (index < arrow_) return Action::abbey(cells.place_cell(index - abbey_, index));
  if (index < quarter_) return Action::arrow(cells.tile_cell(index - arrow_, index));
  if (index < count_)
    return Action::enter_city(FigureKind((index - quarter_) / kNumQuarters),
                              Quarter((index - quarter_) % kNumQuarters));
  return Action::count_to(Quarter(index - count_));
}

template <class Cells>
int ActionSpace::legal_indices_in(const State& s, const Cells& cells, std::vector<int>& indices) const {
  indices.clear();
  Action legal[kMaxActions];
  const int n = s.legal_actions(legal);
  std::vector<uint32_t> outside;  // window layout only, and rare: the board outgrew the window
  for (int i = 0; i < n; ++i) {
    const int idx = index_in(cells, legal[i]);
    if (idx >= 0) indices.push_back(idx);
    else outside.push_back(legal[i].code);
  }
  std::sort(indices.begin(), indices.end());
  indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
  std::sort(outside.begin(), outside.end());
  return int(std::unique(outside.begin(), outside.end()) - outside.begin());
}

int ActionSpace::index(const State& s, const ActionFrame& frame, Action a) const {
  if (layout_ == ActionLayout::Window) return index(frame.window, a);
  return index_in(FrontierCells{s.board(), frame.frontier, frame.rank}, a);
}

Action ActionSpace::action(const State& s, const ActionFrame& frame, int index) const {
  if (layout_ == ActionLayout::Window) return action(frame.window, index);
  return action_in(FrontierCells{s.board(), frame.frontier, frame.rank}, index);
}

int ActionSpace::legal_indices(const State& s, const ActionFrame& frame, std::vector<int>& indices) const {
  if (layout_ == ActionLayout::Window) {
    if (frame.window.size != window_) throw std::invalid_argument("the frame's window is not the action space's");
    return legal_indices_in(s, WindowCells{frame.window}, indices);
  }
  return legal_indices_in(s, FrontierCells{s.board(), frame.frontier, frame.rank}, indices);
}

int ActionSpace::legal_mask(const State& s, const ActionFrame& frame, uint8_t* mask) const {
  std::fill(mask, mask + size_, uint8_t(0));
  std::vector<int> indices;
  const int outside = legal_indices(s, frame, indices);
  for (int i : indices) mask[i] = 1;
  return outside;
}

int ActionSpace::index(const Window& w, Action a) const {
  if (layout_ != ActionLayout::Window || w.size != window_) return -1;
  return index_in(WindowCells{w}, a);
}

Action ActionSpace::action(const Window& w, int index) const {
  if (layout_ != ActionLayout::Window || w.size != window_)
    throw std::out_of_range("the window's side is not the action space's");
  return action_in(WindowCells{w}, index);
}

void ActionSpace::write_action_cells(const State& s, const ActionFrame& frame, const Window& w, int16_t* frontier,
                                     int16_t* tiles, int frontier_rows, int tile_rows) {
  auto write = [&](int16_t* out, int count, int rows, auto cell_of) {
    for (int i = 0; i < count; ++i) {
      const Cell c = cell_of(i);
      out[2 * i] = int16_t(c.y - w.y0);
      out[2 * i + 1] = int16_t(c.x - w.x0);
    }
    if (rows > count) std::fill(out + 2 * count, out + 2 * rows, kNoCell);
  };
  write(frontier, int(frame.frontier.size()), frontier_rows,
        [&](int i) { return unpack_cell(frame.frontier[size_t(i)]); });
  const Board& board = s.board();
  write(tiles, board.num_tiles(), tile_rows, [&](int i) { return board.tile(i).cell; });
}

}  // namespace carc
