#include "value.h"

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <optional>

#if defined(__SSE2__)
#include <immintrin.h>
#endif

#include "agents.h"
#include "evaluator.h"
#include "sha256.h"

namespace carc {

namespace {

// Input offsets (kValueInputNames holds the same layout in words).
enum : int {
  kBag,
  kLate,
  kInversePlayers,
  kOwnTilesLeft,
  kOtherTilesLeft,
  kDecidesNow,
  kTurnPlayer,
  kScore,
  kLead,
  kAboveMean,
  kMeeples,
  kMayors,
  kWagons,
  kBarns,
  kAbbeys,
  kKing,
  kRobber,
  kExpectedGain,
  kFeatures,                                // 4 types x 3 standings x (count, value, open)
  kFiguresOnBoard = kFeatures + 4 * 3 * 3,  // 54
  kInCity,                                  // 55
  kClosing,                                 // 3 classes x 2 standings x (cannot close, can close)
  kStuckFigures = kClosing + 3 * 2 * 2,     // 68
  kDeadCells,                               // 69
};
static_assert(kInCity + 1 == kSummaryInputs);
static_assert(kDeadCells + 1 == kValueInputs);

// The feature classes of the inputs, and a player's standing on a feature.
enum FeatureClass : int { kCity, kRoad, kCloister, kField };
enum Standing : int { kLeadsAlone, kSharesLead, kBehind };

int feature_class(FeatureType t) {
  return t == FeatureType::City ? kCity : t == FeatureType::Road ? kRoad : t == FeatureType::Field ? kField : kCloister;
}

constexpr char kMagic[8] = {'C', 'A', 'R', 'C', 'V', 'A', 'L', '\0'};

}  // namespace

const std::array<const char*, kValueInputs> kValueInputNames = [] {
  std::array<const char*, kValueInputs> n{};
  n[kBag] = "tiles in the bag / 72";
  n[kLate] = "min(1, bag / 12)";
  n[kInversePlayers] = "1 / players";
  n[kOwnTilesLeft] = "tiles this player will still place / 18";
  n[kOtherTilesLeft] = "tiles each other player will still place, mean / 18";
  n[kDecidesNow] = "this player decides now";
  n[kTurnPlayer] = "it is this player's turn";
  n[kScore] = "score / 100";
  n[kLead] = "score less the best other score, / 50";
  n[kAboveMean] = "score less the mean other score, / 50";
  n[kMeeples] = "meeples in supply / 7";
  n[kMayors] = "mayors in supply";
  n[kWagons] = "wagons in supply";
  n[kBarns] = "barns in supply";
  n[kAbbeys] = "abbey tiles in hand";
  n[kKing] = "holds the King";
  n[kRobber] = "holds the Robber";
  n[kExpectedGain] = "expected worth of the led unfinished features / 50 (heuristic_values)";
  static const char* classes[4] = {"cities", "roads", "cloisters", "fields"};
  static const char* standings[3] = {"led alone", "shared lead", "behind"};
  static const char* stats[3] = {"count / 5", "worth / 20", "open ends / 10"};
  static std::array<std::string, 36> names;
  for (int c = 0; c < 4; ++c)
    for (int s = 0; s < 3; ++s)
      for (int k = 0; k < 3; ++k) {
        int i = (c * 3 + s) * 3 + k;
        names[size_t(i)] =
            std::string(classes[c]) + " " + standings[s] + ": " + (c == kField && k == 2 ? "tiles / 10" : stats[k]);
        n[size_t(kFeatures + i)] = names[size_t(i)].c_str();
      }
  n[kFiguresOnBoard] = "own figures on the board / 7";
  n[kInCity] = "own figures in the City's quarters";
  static const char* closing[2] = {"cannot close: points at the end / 20",
                                   "can close: points if closed x chance to close / 20"};
  static const char* sides[2] = {"led", "behind"};
  static std::array<std::string, 12> closing_names;
  for (int c = 0; c < 3; ++c)
    for (int s = 0; s < 2; ++s)
      for (int k = 0; k < 2; ++k) {
        int i = (c * 2 + s) * 2 + k;
        closing_names[size_t(i)] = std::string(classes[c]) + " " + sides[s] + ", " + closing[k];
        n[size_t(kClosing + i)] = closing_names[size_t(i)].c_str();
      }
  n[kStuckFigures] = "own figures on features that cannot close / 7";
  n[kDeadCells] = "empty cells next to a tile that no tile left in the bag fits / 10";
  return n;
}();

namespace {

// The kinds that fit each demand a frontier cell can make (Board::need and care), in some
// rotation: a side demands one of the 7 edges or nothing (code 7), so there are 8^4 demands.
// A demand turned a quarter is fitted by the same kinds, so the demands are grouped into classes
// of the demands that are turns of each other. Built once from the catalogue; a cell's count is
// then a sum over its class's kinds in the bag.
using KindSet = std::array<uint64_t, (kMaxKinds + 63) / 64>;

// The demand indexes of four frontier cells at once, from their need and care lanes (Board's
// need_word, care_word): in each 16-bit lane, nibble s of v is the edge side s demands (0..6) or 7
// for none; then 3 bits a side, side 0 lowest. No step moves a bit out of its lane.
uint64_t demand_indexes(uint64_t need, uint64_t care) {
  const uint64_t v = (need & care) | (0x7777777777777777ull & ~care);
  const uint64_t pairs = (v & 0x0707070707070707ull) | (v & 0x7070707070707070ull) >> 1;  // sides 0, 1 and 2, 3
  return (pairs & 0x003F003F003F003Full) | (pairs >> 2 & 0x0FC00FC00FC00FC0ull);
}

struct DemandClasses {
  std::vector<uint16_t> of;      // demand index -> its class
  std::vector<KindSet> fitting;  // class -> the kinds that fit it in some rotation
};

const DemandClasses& demand_classes() {
  static const DemandClasses table = [] {
    constexpr int kDemands = 8 * 8 * 8 * 8;
    DemandClasses t;
    t.of.assign(kDemands, 0);
    const Catalogue& catalogue = Catalogue::builtin();
    std::vector<int> class_of_first(kDemands, -1);  // the class of a demand turned to its smallest index
    for (int d = 0; d < kDemands; ++d) {
      int first = d;
      for (int turned = d, r = 1; r < 4; ++r) {
        turned = (turned >> 3) | (turned & 7) << 9;  // side s's demand moves to side s - 1
        first = std::min(first, turned);
      }
      if (class_of_first[size_t(first)] < 0) {
        class_of_first[size_t(first)] = int(t.fitting.size());
        KindSet fit{};
        for (int k = 0; k < catalogue.size(); ++k)
          for (const RotatedTile& rotated : catalogue.kind(KindId(k)).rotations) {
            bool fits = true;
            for (int s = 0, code = d; s < kNumSides; ++s, code /= 8)
              fits &= code % 8 == 7 || int(rotated.edges[size_t(s)]) == code % 8;
            if (fits) fit[size_t(k / 64)] |= uint64_t(1) << (k % 64);
          }
        t.fitting.push_back(fit);
      }
      t.of[size_t(d)] = uint16_t(class_of_first[size_t(first)]);
    }
    return t;
  }();
  return table;
}

// The kinds with a tile in the bag, 8 counts at a time.
KindSet kinds_in_bag(const State& state) {
  static_assert(kMaxKinds % 8 == 0 && std::endian::native == std::endian::little);
  constexpr uint64_t kLow = 0x7F7F7F7F7F7F7F7Full, kHigh = 0x8080808080808080ull;
  static const int groups = (Catalogue::builtin().size() + 7) / 8;
  const uint8_t* counts = state.bag_counts().data();
  KindSet in_bag{};
  for (int g = 0; g < groups; ++g) {
    uint64_t v;
    std::memcpy(&v, counts + 8 * g, sizeof v);
    const uint64_t nonzero = (((v & kLow) + kLow) | v) & kHigh;  // bit 7 of each byte: count > 0
    // Gathers the 8 flags (bits 7, 15, ..., 63) into one byte, kind order kept.
    const uint64_t flags = ((nonzero >> 7) * 0x0102040810204080ull) >> 56;
    in_bag[size_t(g / 8)] |= flags << (8 * (g % 8));
  }
  return in_bag;
}

// The tiles left in the bag that fit each frontier cell in some rotation. A cell no tile fits
// stays so (its neighbours only add demands, the bag only shrinks), and so does every feature
// that needs it. Whether any tile fits is asked of every cell, how many only of the cells an
// occupied feature needs; both once per class of demands.
class BagFits {
 public:
  explicit BagFits(const State& state) : state_(state), classes_(demand_classes()), in_bag_(kinds_in_bag(state)) {
    // Per thread and class of demands: stamp << 16 | kCounted | kAlive | count, made for the
    // BagFits of that stamp; a new stamp marks them all as not yet made.
    thread_local std::vector<uint32_t> table(classes_.fitting.size(), 0);
    thread_local uint32_t last_stamp = 0;
    if (++last_stamp == 0x10000) {
      std::fill(table.begin(), table.end(), 0);
      last_stamp = 1;
    }
    memo_ = table.data();
    stamp_ = last_stamp;
    const Board& board = state.board();
    const int cells = board.frontier_size();
    for (int w = 0; 4 * w < cells; ++w) {
      const uint64_t demands = demand_indexes(board.need_word(w), board.care_word(w));
      for (int k = 0; k < 4; ++k) class_[size_t(4 * w + k)] = classes_.of[demands >> (16 * k) & 0xFFF];
    }
    int dead = 0;
    for (int i = 0; i < cells; ++i) {
      uint32_t& entry = memo_[class_[size_t(i)]];
      if (entry >> 16 != stamp_) {
        const KindSet& fit = classes_.fitting[class_[size_t(i)]];
        uint64_t any = 0;
        for (size_t w = 0; w < in_bag_.size(); ++w) any |= in_bag_[w] & fit[w];
        entry = stamp_ << 16 | (any ? kAlive : 0);
      }
      dead += !(entry & kAlive);
    }
    dead_cells_ = dead;
  }
  // Frontier cells that no tile left in the bag fits.
  int dead_cells() const { return dead_cells_; }
  // The tiles left in the bag that fit frontier cell i.
  int count(int i) {
    uint32_t& entry = memo_[class_[size_t(i)]];
    if (!(entry & kCounted)) {
      const uint8_t* counts = state_.bag_counts().data();
      const KindSet& fit = classes_.fitting[class_[size_t(i)]];
      uint32_t n = 0;
      for (size_t w = 0; w < in_bag_.size(); ++w)
        for (uint64_t bits = in_bag_[w] & fit[w]; bits; bits &= bits - 1)
          n += counts[64 * w + size_t(std::countr_zero(bits))];
      entry |= kCounted | n;
    }
    return int(entry & kCount);
  }

 private:
  static constexpr uint32_t kCounted = 1u << 15, kAlive = 1u << 14, kCount = kAlive - 1;

  const State& state_;
  const DemandClasses& classes_;
  KindSet in_bag_;
  uint32_t* memo_;
  uint32_t stamp_;
  int dead_cells_;
  std::array<uint16_t, (kMaxFrontier + 3) / 4 * 4> class_;  // each frontier cell's class of demands
};

// x^n for a small whole n (a player's draws left), without libm's general pow.
double power(double x, int n) {
  double result = 1.0;
  for (; n > 0; n >>= 1, x *= x)
    if (n & 1) result *= x;
  return result;
}

// Bit s set: the segment reaches the middle of side s, where a city or road ends. Per kind,
// rotation and segment, built once from the catalogue.
const std::vector<uint8_t>& middle_sides() {
  static const std::vector<uint8_t> table = [] {
    const Catalogue& catalogue = Catalogue::builtin();
    std::vector<uint8_t> t(size_t(catalogue.size()) * 4 * kMaxSegmentsPerTile, 0);
    for (int k = 0; k < catalogue.size(); ++k)
      for (int r = 0; r < 4; ++r)
        for (int local = 0; local < kMaxSegmentsPerTile; ++local)
          for (int s = 0; s < kNumSides; ++s)
            if (catalogue.kind(KindId(k)).rotations[size_t(r)].segments[size_t(local)].points >>
                    side_point(Side(s), 1) &
                1)
              t[(size_t(k) * 4 + size_t(r)) * kMaxSegmentsPerTile + size_t(local)] |= uint8_t(1u << s);
    return t;
  }();
  return table;
}

// The empty cells an unfinished city, road or cloister needs filled to close: frontier indexes,
// or -1 for a cloister's empty neighbour that touches no tile yet (any tile will fit it).
int open_cells(const State& state, uint16_t root, std::array<int16_t, 64>& cells) {
  const Board& board = state.board();
  const Features& f = state.features();
  int n = 0;
  auto add = [&](int i) {
    if (n == int(cells.size()) || (i >= 0 && std::find(cells.begin(), cells.begin() + n, i) != cells.begin() + n))
      return;
    cells[size_t(n++)] = int16_t(i);
  };
  if (is_cloister_like(f[root].type)) {
    const Cell c = board.tile(f[root].tile).cell;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        const int i = board.near_tile(c, dx, dy);
        if (i != Board::kTileThere) add(i);
      }
    return n;
  }
  // Its members in list order, their sides in order. `open` counts the sides that face an empty
  // cell, so the walk stops at the last of them.
  static constexpr int kDx[kNumSides] = {0, 1, 0, -1}, kDy[kNumSides] = {-1, 0, 1, 0};
  const uint8_t* sides_of = middle_sides().data();
  int ends = f[root].open;
  for (int m = root; ends > 0;) {
    const PlacedTile& tile = board.tile(f[m].tile);
    for (unsigned sides = sides_of[(size_t(tile.kind) * 4 + tile.rotation) * kMaxSegmentsPerTile + f[m].local]; sides;
         sides &= sides - 1) {
      const int s = std::countr_zero(sides);
      const int i = board.near_tile(tile.cell, kDx[s], kDy[s]);
      if (i >= 0) add(i), --ends;
    }
    m = f[m].next;
    if (m == root) break;
  }
  return n;
}

}  // namespace

void value_inputs(const State& state, float* out, int inputs) {
  if (inputs != kSummaryInputs && inputs != kValueInputs)
    throw SearchError("value_inputs: " + std::to_string(inputs) + " inputs, not " + std::to_string(kSummaryInputs) +
                      " or " + std::to_string(kValueInputs));
  const bool closing = inputs == kValueInputs;
  const int players = state.num_players();
  const Features& f = state.features();
  const int bag = state.bag_size();
  const double late = std::min(1.0, bag / kLateBagTiles);
  std::fill(out, out + players * inputs, 0.0f);

  // Tiles each player will still place: the bag's draws go round from the turn player (whose own
  // tile, once drawn, is in hand until placed).
  const int turn = state.turn_player();
  const Phase phase = state.phase();
  const bool drawn = phase != Phase::Draw;
  const bool in_hand = phase == Phase::PlaceTile || phase == Phase::AbbeyChoice || phase == Phase::ArrowChoice;
  std::array<int, kMaxPlayers> tiles_left{};
  for (int p = 0; p < players; ++p) {
    int first = (p - turn - int(drawn) + 2 * players) % players;  // draws before p's first
    tiles_left[size_t(p)] = (bag > first ? (bag - first - 1) / players + 1 : 0) + int(in_hand && p == turn);
  }
  int total_left = 0;
  for (int p = 0; p < players; ++p) total_left += tiles_left[size_t(p)];
  int best = INT32_MIN, second = INT32_MIN, sum = 0;
  for (int p = 0; p < players; ++p) {
    int s = state.score(p);
    sum += s;
    if (s > best) second = best, best = s;
    else if (s > second) second = s;
  }
  const int decider = state.is_terminal() ? -1 : state.current_player();
  for (int p = 0; p < players; ++p) {
    float* x = out + p * inputs;
    const int score = state.score(p);
    x[kBag] = float(bag / 72.0);
    x[kLate] = float(late);
    x[kInversePlayers] = float(1.0 / players);
    x[kOwnTilesLeft] = float(tiles_left[size_t(p)] / 18.0);
    x[kOtherTilesLeft] = float((total_left - tiles_left[size_t(p)]) / (18.0 * (players - 1)));
    x[kDecidesNow] = float(decider == p);
    x[kTurnPlayer] = float(turn == p);
    x[kScore] = float(score / 100.0);
    x[kLead] = float((score - (score == best ? second : best)) / 50.0);
    x[kAboveMean] = float((score - double(sum - score) / (players - 1)) / 50.0);
    x[kMeeples] = float(state.supply(p) / 7.0);
    x[kMayors] = float(state.supply(p, FigureKind::Mayor));
    x[kWagons] = float(state.supply(p, FigureKind::Wagon));
    x[kBarns] = float(state.supply(p, FigureKind::Barn));
    x[kAbbeys] = float(state.abbeys(p));
    x[kKing] = float(state.king() == p);
    x[kRobber] = float(state.robber() == p);
    if (state.rules().count)
      for (int q = 0; q < kNumQuarters; ++q) x[kInCity] += float(state.in_quarter(p, Quarter(q)));
  }

  std::optional<BagFits> fits;
  if (closing) {
    fits.emplace(state);
    for (int p = 0; p < players; ++p) out[p * inputs + kDeadCells] = float(fits->dead_cells() / 10.0);
  }

  // Occupied features are those the placed figures stand on (tens of figures, not hundreds of
  // segments; feature_potential walks them the same way).
  std::array<uint64_t, kMaxSegments / 64> seen{};  // bit r: the feature of root r is counted
  for (int i = 0; i < state.num_placed_figures(); ++i) {
    const PlacedFigure& figure = state.placed_figure(i);
    if (figure.segment >= f.size()) continue;
    out[figure.owner * inputs + kFiguresOnBoard] += float(1.0 / 7.0);
    const uint16_t root = f.root(figure.segment);
    const Segment& seg = f[root];
    if (seg.occupants == 0 || seg.done) continue;  // barns only, or scored
    uint64_t& seen_word = seen[root / 64];
    const uint64_t seen_bit = uint64_t(1) << (root % 64);
    if (seen_word & seen_bit) continue;
    seen_word |= seen_bit;
    const int cls = feature_class(seg.type);
    const double worth = expected_worth(state, root, late);
    const double open = (cls == kField ? seg.tiles : seg.open) / 10.0;
    int top = 0, leaders = 0;
    for (int q = 0; q < players; ++q) {
      const int m = seg.meeples[size_t(q)];
      if (m > top) top = m, leaders = 1;
      else if (m == top) ++leaders;
    }
    if (top == 0) leaders = 0;
    for (int q = 0; q < players; ++q) {
      const int m = seg.meeples[size_t(q)];
      if (m == 0) continue;
      const int standing = m < top ? kBehind : leaders == 1 ? kLeadsAlone : kSharesLead;
      float* x = out + q * inputs + kFeatures + (cls * 3 + standing) * 3;
      x[0] += float(1.0 / 5.0);
      x[1] += float(worth / 20.0);
      x[2] += float(open);
      if (standing != kBehind) out[q * inputs + kExpectedGain] += float(worth / 50.0);
    }
    if (!closing || cls == kField) continue;

    // Can it still close, and how likely is it that a player on it draws what it needs? Each
    // empty cell it needs is filled with the chance that one of the player's own draws fits it.
    std::array<int16_t, 64> cells;
    const int num_cells = open_cells(state, root, cells);
    bool dead = bag == 0 && num_cells > 0;
    std::array<double, 64> miss;  // of each cell: the chance that a draw does not fit it
    for (int c = 0; c < num_cells && !dead; ++c) {
      const int cell = cells[size_t(c)];
      if (cell < 0) {
        miss[size_t(c)] = 0.0;
        continue;
      }
      const int fitting = fits->count(cell);
      dead = fitting == 0;
      miss[size_t(c)] = 1.0 - double(fitting) / bag;
    }
    const double at_end = cls == kCity ? seg.tiles + seg.pennants : cls == kRoad ? seg.tiles : 9.0 - seg.open;
    const double if_closed = cls == kCity ? 2.0 * (seg.tiles + seg.pennants) : cls == kRoad ? seg.tiles : 9.0;
    for (int q = 0; q < players; ++q) {
      const int m = seg.meeples[size_t(q)];
      if (m == 0) continue;
      float* x = out + q * inputs + kClosing + (cls * 2 + (m < top)) * 2;
      if (dead) {
        x[0] += float(at_end / 20.0);
        out[q * inputs + kStuckFigures] += float(m / 7.0);
        continue;
      }
      double chance = 1.0;
      for (int c = 0; c < num_cells; ++c) chance *= 1.0 - power(miss[size_t(c)], tiles_left[size_t(q)]);
      x[1] += float(if_closed * chance / 20.0);
    }
  }
}

int ValueMix::code() const {
  return int(abbey_mayor) | int(anniv20) << 1 | int(city) << 2 | int(king_robber) << 3 | int(river) << 4 |
         int(shrines) << 5;
}

ValueMix ValueMix::of_code(int code) {
  ValueMix m;
  m.abbey_mayor = code & 1, m.anniv20 = code & 2, m.city = code & 4, m.king_robber = code & 8;
  m.river = code & 16, m.shrines = code & 32;
  return m;
}

std::vector<std::string> mix_names(uint64_t codes) {
  std::vector<std::string> names;
  for (int code = 0; code < 64; ++code)
    if (codes >> code & 1) names.push_back(ValueMix::of_code(code).name());
  return names;
}

std::string mix_list(uint64_t codes) {
  std::string list;
  for (const std::string& name : mix_names(codes)) list += (list.empty() ? "" : ", ") + name;
  return list;
}

ValueMix ValueMix::of(const Rules& rules) {
  ValueMix m;
  m.abbey_mayor = rules.abbey_mayor;
  m.anniv20 = rules.anniv20;
  m.king_robber = rules.king_robber;
  m.shrines = rules.shrines;
  m.river = rules.river;
  m.city = rules.city_block;
  return m;
}

void value_context(const State& state, float* out) {
  const ValueMix m = ValueMix::of(state.rules());
  const bool switches[] = {m.abbey_mayor, m.anniv20, m.city, m.king_robber, m.river, m.shrines};
  for (int i = 0; i < 6; ++i) out[i] = switches[i] ? 1.0f : 0.0f;
  for (int p = 2; p <= 6; ++p) out[6 + p - 2] = state.num_players() == p ? 1.0f : 0.0f;
}

std::string ValueMix::name() const {
  std::string s;
  auto add = [&](bool on, const char* part) {
    if (!on) return;
    if (!s.empty()) s += '+';
    s += part;
  };
  add(abbey_mayor, "abbey-mayor");
  add(anniv20, "anniv20");
  add(city, "city");
  add(king_robber, "king-robber");
  add(river, "river2");
  add(shrines, "shrines");
  return s.empty() ? "base" : s;
}

namespace {

// Reads the VALUE format (docs/value.md): little-endian, every field 4 bytes but the serves mask.
class Reader {
 public:
  Reader(const std::string& path) : path_(path), in_(path, std::ios::binary) {
    if (!in_) fail("cannot be opened");
  }
  [[noreturn]] void fail(const std::string& what) const { throw SearchError("value network " + path_ + ": " + what); }
  void bytes(void* out, size_t n) {
    in_.read(static_cast<char*>(out), std::streamsize(n));
    if (size_t(in_.gcount()) != n) fail("the file is short (truncated?)");
  }
  uint32_t u32() {
    uint32_t v;
    bytes(&v, 4);
    return v;
  }
  uint64_t u64() {
    uint64_t v;
    bytes(&v, 8);
    return v;
  }
  float f32() {
    float v;
    bytes(&v, 4);
    if (!std::isfinite(v)) fail("a weight is not a finite number");
    return v;
  }
  std::vector<float> floats(size_t n) {
    std::vector<float> v(n);
    for (float& x : v) x = f32();
    return v;
  }
  void expect_end() {
    if (in_.peek() != std::char_traits<char>::eof()) fail("has bytes after its last weight");
  }

 private:
  std::string path_;
  std::ifstream in_;
};

}  // namespace

ValueNet::ValueNet(const std::string& path) : path_(path) {
  Reader r(path);
  char magic[8];
  r.bytes(magic, 8);
  if (std::memcmp(magic, kMagic, 8) != 0) r.fail("not a value network (bad magic)");
  const uint32_t version = r.u32();
  if (version < 1 || version > uint32_t(kValueFormatVersion))
    r.fail("format version " + std::to_string(version) + ", this build reads 1 to " +
           std::to_string(kValueFormatVersion));
  const uint32_t inputs = r.u32();
  hidden1_ = int(r.u32());
  hidden2_ = int(r.u32());
  if (hidden1_ < 1 || hidden1_ > 1024 || hidden2_ < 1 || hidden2_ > 1024) r.fail("hidden sizes out of [1, 1024]");
  const uint32_t mix = r.u32();
  if (mix >= 128) r.fail("unknown expansions in its mix");
  every_mix_ = mix & 64;  // bit 6: made for every mix (no other bit set)
  if (every_mix_ && mix != 64) r.fail("made for every mix and for some expansions at once");
  mix_ = ValueMix::of_code(int(mix & 63));
  // The inputs field counts every column of the first layer, the context's included.
  if (every_mix_ ? inputs != uint32_t(kEveryMixInputs)
                 : inputs != uint32_t(kSummaryInputs) && inputs != uint32_t(kValueInputs))
    r.fail("made for " + std::to_string(inputs) + " inputs, this build computes " +
           (every_mix_ ? std::to_string(kEveryMixInputs) + " for a network of every mix"
                       : std::to_string(kSummaryInputs) + " or " + std::to_string(kValueInputs)));
  inputs_ = every_mix_ ? kValueInputs : int(inputs);
  player_counts_ = r.u32();
  if ((player_counts_ & ~uint32_t(0x7c)) != 0 || player_counts_ == 0) r.fail("player counts outside 2-6");
  // Version 1 has no serves field: a file served what it was made for.
  serves_ = version >= 2 ? r.u64() : every_mix_ ? ~uint64_t(0) : uint64_t(1) << mix;
  if (serves_ == 0) r.fail("serves no mix (its serves field is 0)");
  points_scale_ = r.f32();
  if (version >= 3) {
    guess_share_ = r.f32();
    if (!(guess_share_ >= 0 && guess_share_ < 1)) r.fail("its hand-made guess's share is outside [0, 1)");
  }
  if (version >= 4) {
    guess_barns_ = r.f32();
    if (!(guess_barns_ >= 0 && guess_barns_ <= 10)) r.fail("its hand-made guess's barns' weight is outside [0, 10]");
  }
  if (version >= 5) {
    const uint32_t drawn = r.u32();
    if (drawn > 1) r.fail("its hand-made guess is neither mixed in (0) nor drawn (1): " + std::to_string(drawn));
    guess_drawn_ = drawn == 1;
  }
  // The file holds PyTorch's layout (output-major); forward() reads input-major.
  auto transposed = [](const std::vector<float>& w, int rows, int cols) {
    std::vector<float> t(w.size());
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) t[size_t(c) * size_t(rows) + size_t(r)] = w[size_t(r) * size_t(cols) + size_t(c)];
    return t;
  };
  w1_ = transposed(r.floats(size_t(hidden1_) * size_t(width())), hidden1_, width());
  b1_ = r.floats(size_t(hidden1_));
  w2_ = transposed(r.floats(size_t(hidden2_) * size_t(hidden1_)), hidden2_, hidden1_);
  b2_ = r.floats(size_t(hidden2_));
  w3_ = transposed(r.floats(2 * size_t(hidden2_)), 2, hidden2_);
  b3_ = r.floats(2);
  r.expect_end();
  sha256_ = file_sha256_hex(path);
}

bool ValueNet::fits(const State& state) const {
  return serves_mix(ValueMix::of(state.rules())) && (player_counts_ >> state.num_players() & 1);
}

std::string ValueNet::describe() const {
  int lo = 0, hi = 0;
  for (int p = 2; p <= kMaxPlayers; ++p)
    if (player_counts_ >> p & 1) hi = p, lo = lo ? lo : p;
  std::string counts = lo == hi ? std::to_string(lo) : std::to_string(lo) + "-" + std::to_string(hi);
  // What it was made for, then what it serves where that is something else.
  const uint64_t own = every_mix_ ? ~uint64_t(0) : uint64_t(1) << mix_.code();
  std::string made = every_mix_ ? std::string("every mix") : mix_.name(), also;
  if (serves_ != own && !every_mix_ && (serves_ & own)) also = ", also " + mix_list(serves_ & ~own);
  else if (serves_ != own) made += " (serving " + mix_list(serves_) + ")";
  if (guess_share_ > 0) {
    char share[16];
    std::snprintf(share, sizeof share, "%g", double(guess_share_));
    also += std::string(", with ") + share + " of the hand-made guess";
    if (guess_barns_ > 0) {
      std::snprintf(share, sizeof share, "%g", double(guess_barns_));
      also += std::string(", barns at ") + share;
    }
    if (guess_drawn_) also += ", drawn";
  }
  return made + ", " + counts + " players" + also + " (" + std::filesystem::path(path_).filename().string() +
         ", sha256 " + sha256_.substr(0, 16) + ")";
}

namespace {
// Calls visit(i) for every i in [0, n) with x[i] != 0, in order: most inputs are 0 (feature kinds
// a player is not on, units the ReLU cut), and skipping them is what makes a layer cheap. Four at
// a time where SSE2 is there. Adding a 0 input's products would leave every sum's bits as they
// are but the sign of a 0, which neither the ReLU nor a later sum keeps.
template <class Visit>
[[gnu::always_inline]] inline void for_each_nonzero(const float* x, int n, Visit&& visit) {
  for (int base = 0; base < n; base += 64) {  // a mask of up to 64 inputs, then its bits
    const int size = std::min(64, n - base);
    const float* chunk = x + base;
    uint64_t nonzero = 0;
    int i = 0;
#if defined(__SSE2__)
    for (const __m128 zero = _mm_setzero_ps(); i + 4 <= size; i += 4)
      nonzero |= uint64_t(unsigned(_mm_movemask_ps(_mm_cmpneq_ps(_mm_loadu_ps(chunk + i), zero)))) << i;
#endif
    for (; i < size; ++i) nonzero |= uint64_t(chunk[i] != 0.0f) << i;
    for (; nonzero; nonzero &= nonzero - 1) visit(size_t(base) + unsigned(std::countr_zero(nonzero)));
  }
}

// out[0 .. rows) = bias + w x, relu'd if asked; w is stored input-major (w[i * rows + j]) so the
// inner loop runs over outputs and vectorises without reassociating any sum.
void layer(const float* w, const float* bias, const float* x, int inputs, int rows, bool relu, float* out) {
  std::copy_n(bias, rows, out);
  for_each_nonzero(x, inputs, [&](size_t i) {
    const float xi = x[i];
    const float* wi = w + i * size_t(rows);
    for (int j = 0; j < rows; ++j) out[j] += wi[j] * xi;
  });
  if (relu)
    for (int j = 0; j < rows; ++j) out[j] = std::max(out[j], 0.0f);
}

// The output layer of two units, its two sums side by side.
void layer2(const float* w, const float* bias, const float* x, int inputs, float* out) {
  float sum0 = bias[0], sum1 = bias[1];
  for_each_nonzero(x, inputs, [&](size_t i) {
    sum0 += w[2 * i] * x[i];
    sum1 += w[2 * i + 1] * x[i];
  });
  out[0] = sum0;
  out[1] = sum1;
}

// The hidden layers of the shipped networks are 32 wide: a fixed width keeps the 32 sums in
// registers. Where the CPU has AVX2 a second copy runs 8 floats a step (chosen once, at load).
// Both sum in the same order without fused multiply-adds, so they give the same bits as layer().
// Not under the sanitizers: their runtimes are not ready when the loader picks the copy (a
// ThreadSanitizer build crashes at start).
#if defined(__x86_64__) && defined(__linux__) && !defined(__clang__) && !defined(__SANITIZE_THREAD__) && \
    !defined(__SANITIZE_ADDRESS__)
[[gnu::target_clones("avx2", "default")]]
#endif
void layer32(const float* w, const float* bias, const float* x, int inputs, float* out) {
  float sums[32];
  std::copy_n(bias, 32, sums);
  for_each_nonzero(x, inputs, [&](size_t i) {
    const float xi = x[i];
    const float* wi = w + i * 32;
    for (int j = 0; j < 32; ++j) sums[j] += wi[j] * xi;
  });
  for (int j = 0; j < 32; ++j) out[j] = std::max(sums[j], 0.0f);
}

void hidden_layer(const float* w, const float* bias, const float* x, int inputs, int rows, float* out) {
  if (rows == 32) layer32(w, bias, x, inputs, out);
  else layer(w, bias, x, inputs, rows, true, out);
}
}  // namespace

void ValueNet::forward(const float* inputs, float* out) const {
  float h1[1024], h2[1024];
  hidden_layer(w1_.data(), b1_.data(), inputs, width(), hidden1_, h1);
  hidden_layer(w2_.data(), b2_.data(), h1, hidden1_, hidden2_, h2);
  layer2(w3_.data(), b3_.data(), h2, hidden2_, out);
}

void ValueNet::evaluate(const State& state, std::array<double, kMaxPlayers>& final_scores,
                        std::array<float, kMaxPlayers>& win) const {
  const int players = state.num_players();
  float inputs[kMaxPlayers * kValueInputs];
  value_inputs(state, inputs, inputs_);
  float seat[kEveryMixInputs];  // a network of every mix: the seat's inputs, then the context
  if (every_mix_) value_context(state, seat + kValueInputs);
  std::array<float, kMaxPlayers> logits{};
  for (int p = 0; p < players; ++p) {
    float y[2];
    if (every_mix_) {
      std::copy_n(inputs + p * inputs_, inputs_, seat);
      forward(seat, y);
    } else {
      forward(inputs + p * inputs_, y);
    }
    final_scores[size_t(p)] = state.score(p) + double(points_scale_) * y[0];
    logits[size_t(p)] = y[1];
  }
  const float top = *std::max_element(logits.begin(), logits.begin() + players);
  float sum = 0;
  for (int p = 0; p < players; ++p) sum += win[size_t(p)] = std::exp(logits[size_t(p)] - top);
  for (int p = 0; p < players; ++p) win[size_t(p)] /= sum;
}

std::shared_ptr<const ValueNet> load_value_net(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::shared_ptr<const ValueNet>> cache;
  std::lock_guard<std::mutex> lock(mutex);
  auto& net = cache[path];
  if (!net) net = std::make_shared<const ValueNet>(path);
  return net;
}

namespace {
std::mutex dir_mutex;
std::string& dir_override() {
  static std::string dir;
  return dir;
}
}  // namespace

std::string value_net_dir() {
  std::lock_guard<std::mutex> lock(dir_mutex);
  if (!dir_override().empty()) return dir_override();
  return std::string(CARC_SOURCE_DIR) + "/bindings/carcassonne/data";
}

void set_value_net_dir(const std::string& dir) {
  std::lock_guard<std::mutex> lock(dir_mutex);
  dir_override() = dir;
}

const std::vector<std::shared_ptr<const ValueNet>>& shipped_value_nets() {
  // Read once per folder: the Python package sets its folder before any search runs.
  return value_nets_in(value_net_dir());
}

std::string resolve_value_dir(const std::string& option) {
  return option.starts_with('@') ? value_net_dir() + "/" + option.substr(1) : option;
}

const std::vector<std::shared_ptr<const ValueNet>>& value_nets_in(const std::string& dir) {
  static std::mutex mutex;
  static std::map<std::string, std::vector<std::shared_ptr<const ValueNet>>> by_dir;
  std::lock_guard<std::mutex> lock(mutex);
  auto [it, fresh] = by_dir.try_emplace(dir);
  if (fresh) {
    std::vector<std::string> files;
    std::error_code error;
    for (const auto& entry : std::filesystem::directory_iterator(dir, error))
      if (entry.path().extension() == ".value") files.push_back(entry.path().string());
    std::sort(files.begin(), files.end());
    for (const std::string& file : files) it->second.push_back(load_value_net(file));
    // A game takes the network made for its mix before one made for every mix.
    std::stable_partition(it->second.begin(), it->second.end(), [](const auto& net) { return !net->every_mix(); });
  }
  return it->second;
}

}  // namespace carc
