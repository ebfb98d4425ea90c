// The learned value (search/value.h): its inputs against an independent count at every node of
// random games in every mix, its file format (a hand-made network's exact output, bad files),
// and the search with it (eval=value, rollout=none, the fallback for a game it does not fit).
// tests/python/test_value.py compares the forward pass with PyTorch's and trains a small one.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <optional>
#include <set>

#include "engine/config.h"
#include "engine/game.h"
#include "position_builder.h"
#include "search/agents.h"
#include "search/evaluator.h"
#include "search/mcts.h"
#include "search/sha256.h"
#include "search/value.h"

namespace carc {
namespace {

int input(const std::string& name) {
  for (int i = 0; i < kValueInputs; ++i)
    if (name == kValueInputNames[size_t(i)]) return i;
  ADD_FAILURE() << "no value input named " << name;
  return 0;
}

std::vector<float> inputs_of(const State& s) {
  std::vector<float> x(size_t(s.num_players() * kValueInputs));
  value_inputs(s, x.data());
  return x;
}

// What value_inputs derives from a walk over the placed figures, counted instead over every
// segment: per player, the unfinished occupied features it is on, and its figures on the board.
void check_against_a_recount(const State& s, const std::vector<float>& x) {
  const int n = s.num_players();
  const Features& f = s.features();
  std::vector<int> on(size_t(n), 0);
  for (int seg = 0; seg < f.size(); ++seg) {
    const Segment& root = f[seg];
    if (root.root != seg || root.done || root.occupants == 0) continue;
    for (int p = 0; p < n; ++p) on[size_t(p)] += root.meeples[size_t(p)] > 0;
  }
  const int first_count = input("cities led alone: count / 5");
  for (int p = 0; p < n; ++p) {
    double counted = 0;
    for (int k = 0; k < 12; ++k) counted += x[size_t(p * kValueInputs + first_count + 3 * k)] * 5.0;
    ASSERT_NEAR(counted, on[size_t(p)], 1e-3) << "player " << p << " at turn " << s.turn_number();
  }
  // Tiles still to place: every tile in the bag goes to someone, plus the one in hand.
  const Phase phase = s.phase();
  const bool in_hand = phase == Phase::PlaceTile || phase == Phase::AbbeyChoice || phase == Phase::ArrowChoice;
  double left = 0;
  for (int p = 0; p < n; ++p) left += x[size_t(p * kValueInputs + input("tiles this player will still place / 18"))];
  ASSERT_NEAR(left * 18, s.bag_size() + in_hand, 1e-3);
  for (float v : x) ASSERT_TRUE(std::isfinite(v));
}

// The closing inputs recounted without the board's frontier: every empty cell next to a tile,
// the bag's tiles tried against its neighbours' edges in all four rotations, and each occupied
// feature's needed cells found by a walk over every segment.
void check_closing_against_a_recount(const State& s, const std::vector<float>& x) {
  const int n = s.num_players();
  const Board& board = s.board();
  const Features& f = s.features();
  const Catalogue& catalogue = Catalogue::builtin();
  auto edges_of = [&](int slot) {
    return catalogue.kind(board.tile(slot).kind).rotations[board.tile(slot).rotation].edges;
  };
  auto fitting = [&](Cell c) {
    int count = 0;
    for (int k = 0; k < catalogue.size(); ++k) {
      bool any = false;
      for (int r = 0; r < 4 && !any; ++r) {
        bool ok = true;
        for (int side = 0; side < kNumSides; ++side) {
          const int slot = board.slot_at(neighbour(c, Side(side)));
          if (slot < 0) continue;
          const Edge theirs = edges_of(slot)[size_t(opposite(Side(side)))];
          ok &= theirs == Edge::Abbey || theirs == catalogue.kind(KindId(k)).rotations[size_t(r)].edges[size_t(side)];
        }
        any = ok;
      }
      count += any * s.bag_count(KindId(k));
    }
    return count;
  };
  auto touches_a_tile = [&](Cell c) {
    for (int side = 0; side < kNumSides; ++side)
      if (board.occupied(neighbour(c, Side(side)))) return true;
    return false;
  };
  std::set<std::pair<int, int>> empty_next_to_tiles;
  for (int t = 0; t < board.num_tiles(); ++t)
    for (int side = 0; side < kNumSides; ++side) {
      const Cell c = neighbour(board.tile(t).cell, Side(side));
      if (!board.occupied(c)) empty_next_to_tiles.insert({c.x, c.y});
    }
  int dead_cells = 0;
  for (auto [cx, cy] : empty_next_to_tiles) dead_cells += fitting(Cell{int16_t(cx), int16_t(cy)}) == 0;
  ASSERT_NEAR(x[size_t(input("empty cells next to a tile that no tile left in the bag fits / 10"))] * 10, dead_cells,
              1e-3);

  int bag = 0;
  for (int k = 0; k < catalogue.size(); ++k) bag += s.bag_count(KindId(k));
  std::vector<int> stuck(size_t(n), 0);
  for (int root = 0; root < f.size(); ++root) {
    const Segment& seg = f[root];
    if (seg.root != root || seg.done || seg.occupants == 0) continue;
    if (seg.type != FeatureType::City && seg.type != FeatureType::Road && !is_cloister_like(seg.type)) continue;
    std::vector<Cell> needed;
    for (int m = 0; m < f.size(); ++m) {
      if (f[m].root != root) continue;
      const PlacedTile& tile = board.tile(f[m].tile);
      if (is_cloister_like(seg.type)) {
        for (int dy = -1; dy <= 1; ++dy)
          for (int dx = -1; dx <= 1; ++dx) {
            const Cell c{int16_t(tile.cell.x + dx), int16_t(tile.cell.y + dy)};
            if (!board.occupied(c)) needed.push_back(c);
          }
        continue;
      }
      const SegmentSpec& spec = catalogue.kind(tile.kind).rotations[tile.rotation].segments[f[m].local];
      for (int side = 0; side < kNumSides; ++side) {
        const Cell c = neighbour(tile.cell, Side(side));
        if ((spec.points >> side_point(Side(side), 1) & 1) && !board.occupied(c)) needed.push_back(c);
      }
    }
    bool dead = bag == 0 && !needed.empty();
    for (Cell c : needed) dead |= touches_a_tile(c) && fitting(c) == 0;
    if (dead)
      for (int p = 0; p < n; ++p) stuck[size_t(p)] += seg.meeples[size_t(p)];
  }
  for (int p = 0; p < n; ++p)
    ASSERT_NEAR(x[size_t(p * kValueInputs + input("own figures on features that cannot close / 7"))] * 7,
                stuck[size_t(p)], 1e-3)
        << "player " << p << " at turn " << s.turn_number();
}

// The inputs as their first version computed them, plainly: every kind's fits counted per
// demand, each feature's needed cells found by a walk over all its members. The engine's
// value_inputs must give the same bits.
namespace reference {

using KindSet = std::array<uint64_t, (kMaxKinds + 63) / 64>;

int demand_index(uint16_t need, uint16_t care) {
  const unsigned v = (unsigned(need) & care) | (0x7777u & ~unsigned(care));
  return int((v & 7) | (v >> 4 & 7) << 3 | (v >> 8 & 7) << 6 | (v >> 12 & 7) << 9);
}

int bag_fits(const State& state, std::array<uint16_t, kMaxFrontier>& fits) {
  const Catalogue& catalogue = Catalogue::builtin();
  int bag = 0;
  for (int k = 0; k < catalogue.size(); ++k) bag += state.bag_count(KindId(k));
  const Board& board = state.board();
  for (int i = 0; i < board.frontier_size(); ++i) {
    const int demand = demand_index(board.need(i), board.care(i));
    int count = 0;
    for (int k = 0; k < catalogue.size(); ++k) {
      bool fits_some_rotation = false;
      for (const RotatedTile& rotated : catalogue.kind(KindId(k)).rotations) {
        bool fits = true;
        for (int side = 0, code = demand; side < kNumSides; ++side, code /= 8)
          fits &= code % 8 == 7 || int(rotated.edges[size_t(side)]) == code % 8;
        fits_some_rotation |= fits;
      }
      if (fits_some_rotation) count += state.bag_count(KindId(k));
    }
    fits[size_t(i)] = uint16_t(count);
  }
  return bag;
}

double power(double x, int n) {
  double result = 1.0;
  for (; n > 0; n >>= 1, x *= x)
    if (n & 1) result *= x;
  return result;
}

int open_cells(const State& state, uint16_t root, std::array<int16_t, 64>& cells) {
  const Board& board = state.board();
  const Features& f = state.features();
  const Catalogue& catalogue = Catalogue::builtin();
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
        const Cell around{int16_t(c.x + dx), int16_t(c.y + dy)};
        if (!board.occupied(around)) add(board.frontier_index(around));
      }
    return n;
  }
  f.for_each_member(root, [&](int m) {
    const PlacedTile& tile = board.tile(f[m].tile);
    const SegmentSpec& spec = catalogue.kind(tile.kind).rotations[tile.rotation].segments[f[m].local];
    for (int side = 0; side < kNumSides; ++side) {
      if (!(spec.points >> side_point(Side(side), 1) & 1)) continue;
      const int i = board.frontier_index(neighbour(tile.cell, Side(side)));
      if (i >= 0) add(i);
    }
  });
  return n;
}

std::vector<float> value_inputs(const State& state) {
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
    kFeatures,
    kFiguresOnBoard = kFeatures + 36,
    kInCity,
    kClosing,
    kStuckFigures = kClosing + 12,
    kDeadCells
  };
  enum : int { kCity, kRoad, kCloister, kField };
  enum : int { kLeadsAlone, kSharesLead, kBehind };
  const int inputs = kValueInputs;
  const int players = state.num_players();
  std::vector<float> result(size_t(players * inputs), 0.0f);
  float* out = result.data();
  const Features& f = state.features();
  const int bag = state.bag_size();
  const double late = std::min(1.0, bag / kLateBagTiles);
  const int turn = state.turn_player();
  const Phase phase = state.phase();
  const bool drawn = phase != Phase::Draw;
  const bool in_hand = phase == Phase::PlaceTile || phase == Phase::AbbeyChoice || phase == Phase::ArrowChoice;
  std::array<int, kMaxPlayers> tiles_left{};
  for (int p = 0; p < players; ++p) {
    int first = (p - turn - int(drawn) + 2 * players) % players;
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
  std::array<uint16_t, kMaxFrontier> fits;
  const int land = bag_fits(state, fits);
  int dead_cells = 0;
  for (int i = 0; i < state.board().frontier_size(); ++i) dead_cells += fits[size_t(i)] == 0;
  for (int p = 0; p < players; ++p) out[p * inputs + kDeadCells] = float(dead_cells / 10.0);

  std::vector<uint16_t> seen;
  for (int i = 0; i < state.num_placed_figures(); ++i) {
    const PlacedFigure& figure = state.placed_figure(i);
    if (figure.segment >= f.size()) continue;
    out[figure.owner * inputs + kFiguresOnBoard] += float(1.0 / 7.0);
    const uint16_t root = f.root(figure.segment);
    const Segment& seg = f[root];
    if (seg.occupants == 0 || seg.done) continue;
    if (std::find(seen.begin(), seen.end(), root) != seen.end()) continue;
    seen.push_back(root);
    const int cls = seg.type == FeatureType::City    ? kCity
                    : seg.type == FeatureType::Road  ? kRoad
                    : seg.type == FeatureType::Field ? kField
                                                     : kCloister;
    const double worth = expected_worth(state, root, late);
    const double open = (cls == kField ? seg.tiles : seg.open) / 10.0;
    const int top = *std::max_element(seg.meeples.begin(), seg.meeples.begin() + players);
    int leaders = 0;
    for (int q = 0; q < players; ++q) leaders += top > 0 && seg.meeples[size_t(q)] == top;
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
    if (cls == kField) continue;
    std::array<int16_t, 64> cells;
    const int num_cells = open_cells(state, root, cells);
    bool dead = land == 0 && num_cells > 0;
    for (int c = 0; c < num_cells; ++c) dead |= cells[size_t(c)] >= 0 && fits[size_t(cells[size_t(c)])] == 0;
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
      for (int c = 0; c < num_cells; ++c) {
        const int cell = cells[size_t(c)];
        const double miss = cell < 0 ? 0.0 : 1.0 - double(fits[size_t(cell)]) / land;
        chance *= 1.0 - power(miss, tiles_left[size_t(q)]);
      }
      x[1] += float(if_closed * chance / 20.0);
    }
  }
  return result;
}

}  // namespace reference

TEST(ValueInputs, TheStartOfABaseGame) {
  Config config;
  config.seed = 3;
  State s(config);  // chance node: the bag holds 71 tiles (B-1), player 0 draws first
  std::vector<float> x = inputs_of(s);
  const int own = input("tiles this player will still place / 18"), bag = input("tiles in the bag / 72");
  EXPECT_FLOAT_EQ(x[size_t(bag)], 71.0f / 72.0f);
  EXPECT_FLOAT_EQ(x[size_t(own)] * 18, 36);                 // draws 1, 3, ..., 71
  EXPECT_FLOAT_EQ(x[size_t(kValueInputs + own)] * 18, 35);  // draws 2, 4, ..., 70
  EXPECT_FLOAT_EQ(x[size_t(input("meeples in supply / 7"))], 1.0f);
  s.apply(s.sample_chance());  // drawn: one tile in player 0's hand, 70 in the bag
  x = inputs_of(s);
  EXPECT_FLOAT_EQ(x[size_t(own)] * 18, 36);
  EXPECT_FLOAT_EQ(x[size_t(kValueInputs + own)] * 18, 35);
  EXPECT_EQ(x[size_t(input("this player decides now"))], 1.0f);
  EXPECT_EQ(x[size_t(kValueInputs + input("this player decides now"))], 0.0f);
}

TEST(ValueInputs, AgreeWithARecountAtEveryNodeOfRandomGamesInEveryMix) {
  struct Mix {
    int players;
    std::vector<std::string> expansions;
    std::string start;
  };
  const std::vector<Mix> mixes = {
      {2, {}, ""},
      {4, {}, ""},
      {3, {"abbey-mayor", "anniv20"}, ""},
      {5, {"king-robber", "shrines"}, "river2"},
      {4, {"abbey-mayor", "anniv20", "king-robber", "shrines"}, "city"},
  };
  for (const Mix& mix : mixes) {
    Config config;
    config.players = mix.players;
    config.seed = 17;
    config.expansions = mix.expansions;
    if (!mix.start.empty()) config.variants["start"] = mix.start;
    State s(config);
    Rng rng(5);
    while (!s.is_terminal()) {
      const std::vector<float> x = inputs_of(s);
      check_against_a_recount(s, x);
      check_closing_against_a_recount(s, x);
      if (HasFatalFailure()) return;
      // The same bits as the plain computation of the first version.
      const std::vector<float> plain = reference::value_inputs(s);
      for (size_t i = 0; i < x.size(); ++i)
        ASSERT_EQ(std::bit_cast<uint32_t>(x[i]), std::bit_cast<uint32_t>(plain[i]))
            << kValueInputNames[i % kValueInputs] << " of player " << i / kValueInputs << " at turn " << s.turn_number()
            << ": " << x[i] << " against " << plain[i];
      // Computed from the position alone: a state rebuilt from its bytes gives the same inputs.
      if (s.turn_number() % 7 == 0) {
        ASSERT_EQ(inputs_of(State::from_bytes(s.to_bytes())), x);
        // The summaries alone (what the first networks read) are the same as the first columns.
        std::vector<float> summary(size_t(s.num_players() * kSummaryInputs));
        value_inputs(s, summary.data(), kSummaryInputs);
        for (int p = 0; p < s.num_players(); ++p)
          for (int i = 0; i < kSummaryInputs; ++i)
            ASSERT_EQ(summary[size_t(p * kSummaryInputs + i)], x[size_t(p * kValueInputs + i)]);
      }
      s.apply_unchecked(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
    }
  }
}

// A VALUE file (docs/value.md) with the given header fields and weights; a version 2 file
// (`serves` given) has the mask of the mix codes it serves after the player counts, a version 3
// file (`guess_share` given too) the hand-made guess's share after the scale, a version 4 file
// (`guess_barns` given too) the barns' weight in that guess after it, a version 5 file
// (`guess_drawn` given too) whether that share is drawn (1) or mixed in (0) after that.
std::string write_value_file(const std::string& name, uint32_t version, uint32_t inputs, uint32_t mix, uint32_t players,
                             const std::vector<float>& weights, int hidden = 1,
                             std::optional<uint64_t> serves = std::nullopt,
                             std::optional<float> guess_share = std::nullopt,
                             std::optional<float> guess_barns = std::nullopt,
                             std::optional<uint32_t> guess_drawn = std::nullopt) {
  const std::string path = ::testing::TempDir() + name;
  std::ofstream out(path, std::ios::binary);
  out.write("CARCVAL", 8);
  const uint32_t header[] = {version, inputs, uint32_t(hidden), uint32_t(hidden), mix, players};
  out.write(reinterpret_cast<const char*>(header), sizeof header);
  if (serves) out.write(reinterpret_cast<const char*>(&*serves), 8);
  const float scale = 50;
  out.write(reinterpret_cast<const char*>(&scale), 4);
  if (guess_share) out.write(reinterpret_cast<const char*>(&*guess_share), 4);
  if (guess_barns) out.write(reinterpret_cast<const char*>(&*guess_barns), 4);
  if (guess_drawn) out.write(reinterpret_cast<const char*>(&*guess_drawn), 4);
  out.write(reinterpret_cast<const char*>(weights.data()), std::streamsize(weights.size() * 4));
  return path;
}

// One unit per layer: h1 = relu(2 * score/100 input + 0.5), h2 = relu(h1 - 0.25), outputs
// (3 h2 + 1, -h2).
std::vector<float> tiny_weights() {
  std::vector<float> w(size_t(kValueInputs), 0.0f);
  w[size_t(input("score / 100"))] = 2.0f;
  for (float v : {0.5f, 1.0f, -0.25f, 3.0f, -1.0f, 1.0f, 0.0f}) w.push_back(v);
  return w;
}

TEST(ValueNet, AHandMadeNetworkGivesItsExactOutputs) {
  const ValueNet net(write_value_file("tiny.value", 1, kValueInputs, 0, 1u << 2, tiny_weights()));
  EXPECT_EQ(net.mix().name(), "base");
  EXPECT_EQ(net.player_counts(), 1u << 2);
  std::vector<float> x(size_t(kValueInputs), 0.0f);
  x[size_t(input("score / 100"))] = 0.3f;  // h1 = 1.1, h2 = 0.85
  float y[2];
  net.forward(x.data(), y);
  EXPECT_NEAR(y[0], 3.55f, 1e-6);
  EXPECT_NEAR(y[1], -0.85f, 1e-6);
  Config config;
  State s(config);
  EXPECT_TRUE(net.fits(s));
  std::array<double, kMaxPlayers> finals{};
  std::array<float, kMaxPlayers> win{};
  net.evaluate(s, finals, win);  // scores 0: h1 = 0.5, h2 = 0.25: 1.75 x 50 points still to come
  EXPECT_NEAR(finals[0], 87.5, 1e-4);
  EXPECT_NEAR(win[0] + win[1], 1.0, 1e-6);
}

// The shipped networks' hidden layers are 32 wide and take a path of their own (vectorised for
// the CPU it runs on): it must give the very bits of the plain sums, in input order.
TEST(ValueNet, A32WideNetworkGivesTheBitsOfThePlainSums) {
  const int hidden = 32;
  Rng rng(11);
  auto uniform = [&] { return float(rng.below(2001)) / 1000.0f - 1.0f; };
  std::vector<float> w;
  for (int i = 0; i < kValueInputs * hidden + hidden + hidden * hidden + hidden + hidden * 2 + 2; ++i)
    w.push_back(uniform());
  const ValueNet net(write_value_file("wide.value", 1, kValueInputs, 0, 1u << 2, w, hidden));
  const float* w1 = w.data();
  const float* b1 = w1 + kValueInputs * hidden;
  const float* w2 = b1 + hidden;
  const float* b2 = w2 + hidden * hidden;
  const float* w3 = b2 + hidden;
  const float* b3 = w3 + hidden * 2;
  // The file holds each unit's weights in a row (PyTorch's layout).
  auto dense = [](const float* weights, const float* bias, const std::vector<float>& in, int rows, bool relu) {
    std::vector<float> out(bias, bias + rows);
    for (size_t i = 0; i < in.size(); ++i)
      for (int j = 0; j < rows; ++j) out[size_t(j)] += weights[size_t(j) * in.size() + i] * in[i];
    if (relu)
      for (float& v : out) v = std::max(v, 0.0f);
    return out;
  };
  for (int trial = 0; trial < 50; ++trial) {
    std::vector<float> x(static_cast<size_t>(kValueInputs));
    for (float& v : x) v = rng.below(10) < 4 ? 0.0f : uniform();
    const std::vector<float> y = dense(w3, b3, dense(w2, b2, dense(w1, b1, x, hidden, true), hidden, true), 2, false);
    float got[2];
    net.forward(x.data(), got);
    ASSERT_EQ(got[0], y[0]) << "trial " << trial;
    ASSERT_EQ(got[1], y[1]) << "trial " << trial;
  }
}

TEST(ValueNet, ANetworkOfTheSummariesAloneReadsTheFirstColumns) {
  std::vector<float> w = tiny_weights();  // its only non-zero first-layer weight is a summary's
  w.erase(w.begin() + kSummaryInputs, w.begin() + kValueInputs);
  const ValueNet summary(write_value_file("summary.value", 1, kSummaryInputs, 0, 1u << 2, w));
  const ValueNet full(write_value_file("full.value", 1, kValueInputs, 0, 1u << 2, tiny_weights()));
  EXPECT_EQ(summary.inputs(), kSummaryInputs);
  EXPECT_EQ(full.inputs(), kValueInputs);
  Config config;
  config.seed = 8;
  State s(config);
  Rng rng(2);
  while (s.score(0) + s.score(1) == 0)  // a position the score input tells apart from the start
    s.apply_unchecked(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
  std::array<double, kMaxPlayers> a{}, b{};
  std::array<float, kMaxPlayers> wa{}, wb{};
  summary.evaluate(s, a, wa);
  full.evaluate(s, b, wb);
  for (int p = 0; p < 2; ++p) {
    EXPECT_NEAR(a[size_t(p)], b[size_t(p)], 1e-4);
    EXPECT_NEAR(wa[size_t(p)], wb[size_t(p)], 1e-6);
  }
}

TEST(ValueNet, BadFilesAreClearErrors) {
  const std::vector<float> w = tiny_weights();
  auto message = [](const std::string& path) {
    try {
      ValueNet net(path);
    } catch (const SearchError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message(::testing::TempDir() + "missing.value").find("cannot be opened"), std::string::npos);
  EXPECT_NE(message(write_value_file("v6.value", 6, kValueInputs, 0, 4, w)).find("format version 6"),
            std::string::npos);
  EXPECT_NE(message(write_value_file("drawn.value", 5, kValueInputs, 0, 4, w, 1, 1, 0.5f, 0.0f, 2u))
                .find("neither mixed in (0) nor drawn (1): 2"),
            std::string::npos);
  for (float share : {1.0f, -0.25f})
    EXPECT_NE(message(write_value_file("share.value", 3, kValueInputs, 0, 4, w, 1, 1, share)).find("outside [0, 1)"),
              std::string::npos);
  for (float barns : {10.5f, -1.0f}) {
    const std::string said = message(write_value_file("barns.value", 4, kValueInputs, 0, 4, w, 1, 1, 0.5f, barns));
    EXPECT_NE(said.find("outside [0, 10]"), std::string::npos) << said;
  }
  EXPECT_NE(message(write_value_file("none.value", 2, kValueInputs, 0, 4, w, 1, 0)).find("serves no mix"),
            std::string::npos);
  // A version 2 header that ends inside its serves field.
  const std::string cut = write_value_file("cut.value", 2, kValueInputs, 0, 4, {}, 1, 1);
  std::filesystem::resize_file(cut, 8 + 6 * 4 + 4);
  EXPECT_NE(message(cut).find("short"), std::string::npos) << message(cut);
  EXPECT_NE(message(write_value_file("in.value", 1, kValueInputs + 1, 0, 4, w)).find("inputs"), std::string::npos);
  EXPECT_NE(message(write_value_file("p.value", 1, kValueInputs, 0, 2, w)).find("player counts"), std::string::npos);
  std::vector<float> shorter(w.begin(), w.end() - 1);
  EXPECT_NE(message(write_value_file("short.value", 1, kValueInputs, 0, 4, shorter)).find("short"), std::string::npos);
  std::vector<float> longer = w;
  longer.push_back(1);
  EXPECT_NE(message(write_value_file("long.value", 1, kValueInputs, 0, 4, longer)).find("after its last"),
            std::string::npos);
  std::vector<float> nan = w;
  nan.back() = std::nanf("");
  EXPECT_NE(message(write_value_file("nan.value", 1, kValueInputs, 0, 4, nan)).find("finite"), std::string::npos);
}

TEST(ValueNet, TheSearchUsesItWithOrWithoutRolloutsAndSaysSo) {
  const std::string path = write_value_file("search.value", 1, kValueInputs, 0, 1u << 2, tiny_weights());
  Config config;
  config.seed = 9;
  State s(config);
  s.apply(s.sample_chance());
  for (const std::string rollout : {"", ",rollout=none"}) {
    MctsAgent agent(parse_mcts_options("iters=200,eval=value,value=" + path + rollout));
    Rng rng(1);
    EXPECT_TRUE(s.is_legal(agent.choose(s, rng)));
    EXPECT_NE(agent.last_result().evaluator.find("the value network base"), std::string::npos)
        << agent.last_result().evaluator;
    EXPECT_EQ(agent.last_result().evaluator.find("rollouts to a cutoff") == std::string::npos, !rollout.empty());
  }
  // Priors from the value's one-ply margins, with rollouts or with the value too.
  for (const auto& [options, said] : std::vector<std::pair<std::string, std::string>>{
           {"prior=value,eval=greedy", "rollouts, priors from the value network base"},
           {"prior=value,eval=value,rollout=none", "the value network base, 2 players (search.value, sha256 " +
                                                       file_sha256_hex(path).substr(0, 16) + "), priors too"}}) {
    MctsAgent agent(parse_mcts_options("iters=200,value=" + path + "," + options));
    Rng rng(1);
    EXPECT_TRUE(s.is_legal(agent.choose(s, rng)));
    EXPECT_NE(agent.last_result().evaluator.find(said), std::string::npos) << agent.last_result().evaluator;
  }
  // A file made for another mix is refused before the search starts.
  const std::string abbey = write_value_file("abbey.value", 1, kValueInputs, 1, 1u << 2, tiny_weights());
  MctsAgent other(parse_mcts_options("iters=50,eval=value,value=" + abbey));
  Rng rng(1);
  try {
    other.choose(s, rng);
    ADD_FAILURE() << "a value network of another mix was used";
  } catch (const SearchError& e) {
    EXPECT_NE(std::string(e.what()).find("serves abbey-mayor games, not base"), std::string::npos) << e.what();
  }
  EXPECT_THROW(parse_mcts_options("iters=50,eval=greedy,rollout=none"), SearchError);  // no rollout needs eval=value
}

// How results name a shipped network: its file and the first 16 digits of its SHA-256.
std::string shipped(const std::string& file) {
  return "(" + file + ", sha256 " + file_sha256_hex(value_net_dir() + "/" + file).substr(0, 16) + ")";
}

// What the search says it valued its leaves with, at the first decision of a game of `config`
// (its move checked legal).
std::string evaluator_used(const Config& config, const std::string& options) {
  State s(config);
  s.apply(s.sample_chance());
  MctsAgent agent(parse_mcts_options(options));
  Rng rng(1);
  EXPECT_TRUE(s.is_legal(agent.choose(s, rng)));
  return agent.last_result().evaluator;
}

// Mix codes (the mix field's bits, docs/value.md) and the games of some mixes.
constexpr uint64_t kBaseCode = 0, kAbbeyCode = 1, kCityCode = 4, kRiverCode = 16;
constexpr uint64_t bit(uint64_t code) { return uint64_t(1) << code; }

State game_of(int players, std::vector<std::string> expansions = {}, std::string start = "") {
  Config config;
  config.players = players;
  config.expansions = std::move(expansions);
  if (!start.empty()) config.variants = {{"start", start}};
  return State(config);
}

// tiny_weights for a network of every mix: its context inputs weigh nothing.
std::vector<float> tiny_every_mix_weights() {
  std::vector<float> w = tiny_weights();
  w.insert(w.begin() + kValueInputs, size_t(kContextInputs), 0.0f);
  return w;
}

std::string short_sha(const std::string& path) { return file_sha256_hex(path).substr(0, 16); }

TEST(ValueNet, AVersionOneFileServesItsOwnMixOrEveryMix) {
  const std::string base = write_value_file("v1-base.value", 1, kValueInputs, 0, bit(2), tiny_weights());
  const ValueNet one(base);
  EXPECT_EQ(one.serves(), bit(kBaseCode));
  EXPECT_TRUE(one.fits(game_of(2)));
  EXPECT_FALSE(one.fits(game_of(2, {}, "river2")));
  EXPECT_EQ(one.describe(), "base, 2 players (v1-base.value, sha256 " + short_sha(base) + ")");
  const std::string every =
      write_value_file("v1-every.value", 1, kEveryMixInputs, 64, bit(2) | bit(4), tiny_every_mix_weights());
  const ValueNet all(every);
  EXPECT_EQ(all.serves(), ~uint64_t(0));
  EXPECT_TRUE(all.fits(game_of(2, {}, "river2")));
  EXPECT_TRUE(all.fits(game_of(4, {"abbey-mayor", "king-robber", "shrines", "anniv20"}, "city")));
  EXPECT_FALSE(all.fits(game_of(3)));
  EXPECT_EQ(all.describe(), "every mix, 2-4 players (v1-every.value, sha256 " + short_sha(every) + ")");
}

TEST(ValueNet, AVersionTwoFileServesTheMixesOfItsMask) {
  // Base weights serving River II games too (what the cell-by-cell tests ask for).
  const std::string path = write_value_file("v2-base.value", 2, kValueInputs, 0, bit(2), tiny_weights(), 1,
                                            bit(kBaseCode) | bit(kRiverCode));
  const ValueNet net(path);
  EXPECT_EQ(net.mix().name(), "base");
  EXPECT_EQ(net.serves(), bit(kBaseCode) | bit(kRiverCode));
  EXPECT_TRUE(net.fits(game_of(2)));
  EXPECT_TRUE(net.fits(game_of(2, {}, "river2")));
  EXPECT_FALSE(net.fits(game_of(2, {"abbey-mayor"})));
  EXPECT_FALSE(net.fits(game_of(3)));
  EXPECT_EQ(net.describe(), "base, 2 players, also river2 (v2-base.value, sha256 " + short_sha(path) + ")");
  // It gives the outputs of the same weights in a version 1 file.
  const ValueNet v1(write_value_file("v1-same.value", 1, kValueInputs, 0, bit(2), tiny_weights()));
  std::array<double, kMaxPlayers> a{}, b{};
  std::array<float, kMaxPlayers> wa{}, wb{};
  net.evaluate(game_of(2), a, wa);
  v1.evaluate(game_of(2), b, wb);
  EXPECT_EQ(a, b);
  EXPECT_EQ(wa, wb);
  // A network made for one mix may serve others only; one of every mix serves its mask.
  const std::string river =
      write_value_file("v2-river.value", 2, kValueInputs, 0, bit(2), tiny_weights(), 1, bit(kRiverCode));
  EXPECT_FALSE(ValueNet(river).fits(game_of(2)));
  EXPECT_EQ(ValueNet(river).describe(),
            "base (serving river2), 2 players (v2-river.value, sha256 " + short_sha(river) + ")");
  const std::string every = write_value_file("v2-every.value", 2, kEveryMixInputs, 64, bit(4), tiny_every_mix_weights(),
                                             1, bit(kAbbeyCode) | bit(kCityCode));
  const ValueNet some(every);
  EXPECT_TRUE(some.every_mix());
  EXPECT_TRUE(some.fits(game_of(4, {"abbey-mayor"})));
  EXPECT_TRUE(some.fits(game_of(4, {}, "city")));
  EXPECT_FALSE(some.fits(game_of(4)));
  EXPECT_EQ(some.describe(),
            "every mix (serving abbey-mayor, city), 4 players (v2-every.value, sha256 " + short_sha(every) + ")");
}

// The root's children (visits, value) after a seeded search of `s` at 300 iterations with the
// learned value and `options`: two option sets that play alike give the same.
std::vector<std::pair<uint32_t, double>> root_stats(const State& s, const std::string& options) {
  MctsAgent agent(parse_mcts_options("iters=300,seed=4,eval=value," + options));
  Rng rng(1);
  agent.choose(s, rng);
  std::vector<std::pair<uint32_t, double>> stats;
  for (const ActionStats& a : agent.last_result().actions) stats.emplace_back(a.visits, a.value);
  return stats;
}

// docs/value.md, "The file format": a version 3 file carries the hand-made guess's share it was
// measured with, and the search plays it so, as it plays the same weights with blend= of that share.
TEST(ValueNet, AVersionThreeFilePlaysWithItsShareOfTheHandMadeGuess) {
  const std::string plain = write_value_file("v2-plain.value", 2, kValueInputs, 0, bit(2), tiny_weights(), 1, 1);
  const std::string half = write_value_file("v3-half.value", 3, kValueInputs, 0, bit(2), tiny_weights(), 1, 1, 0.5f);
  EXPECT_EQ(ValueNet(plain).guess_share(), 0.0f);
  EXPECT_EQ(ValueNet(half).guess_share(), 0.5f);
  EXPECT_EQ(ValueNet(half).describe(),
            "base, 2 players, with 0.5 of the hand-made guess (v3-half.value, sha256 " + short_sha(half) + ")");
  State s = game_of(2);
  s.apply(s.sample_chance());
  auto root = [&](const std::string& options) { return root_stats(s, options); };
  EXPECT_EQ(root("value=" + half), root("value=" + plain + ",blend=0.5"));
  EXPECT_NE(root("value=" + half), root("value=" + plain));
  // blend= takes its share of what the network's own share leaves: 0.5 of 0.5 more is 0.75.
  EXPECT_EQ(root("value=" + half + ",blend=0.5"), root("value=" + plain + ",blend=0.75"));
}

// A version 4 file carries the barns' weight of that guess too (the search's barns=, AM-B-6: 4
// a completed city by a barn's field), and the search counts the barns so unless barns= says.
TEST(ValueNet, AVersionFourFileCountsTheBarnsInItsGuessAsItWasMeasured) {
  const uint64_t serves = bit(kBaseCode) | bit(kAbbeyCode);
  const std::string plain =
      write_value_file("v4-plain.value", 4, kValueInputs, 0, bit(2), tiny_weights(), 1, serves, 0.0f, 0.0f);
  const std::string half =
      write_value_file("v4-half.value", 4, kValueInputs, 0, bit(2), tiny_weights(), 1, serves, 0.5f, 0.0f);
  const std::string barns =
      write_value_file("v4-barns.value", 4, kValueInputs, 0, bit(2), tiny_weights(), 1, serves, 0.5f, 1.0f);
  EXPECT_EQ(ValueNet(barns).guess_barns(), 1.0f);
  EXPECT_EQ(ValueNet(half).guess_barns(), 0.0f);
  EXPECT_EQ(ValueNet(barns).describe(),
            "base, 2 players, also abbey-mayor, with 0.5 of the hand-made guess, barns "
            "at 1 (v4-barns.value, sha256 " +
                short_sha(barns) + ")");
  // Player 0's barn on a field by two completed cities: 8 points at the end.
  std::vector<Position::Tile> tiles = {{"base.H", {0, 0}, 0}, {"base.E", {0, -1}, 2}, {"base.E", {0, 1}, 0},
                                       {"base.B", {1, 0}, 0}, {"base.B", {1, -1}, 0}, {"base.B", {2, -1}, 0},
                                       {"base.B", {2, 0}, 0}};
  const State s = testing::position_in({"abbey-mayor"}, tiles, {{0, "barn", {1, 0}, 0}}, {"base.U", "base.U"});
  ASSERT_EQ(barn_potential(s)[0], 8.0);
  auto margin = [&](const std::string& path, double blend, double barn_weight) {
    RolloutConfig c;
    c.policy = RolloutPolicy::None;
    c.heuristic = Heuristic::Value;
    c.value_net = path;
    c.value_blend = blend;
    c.barn_weight = barn_weight;
    c.finish_tiles = 0;  // the bag is nearly empty: value it, do not play it out
    State scratch = s;
    Rng rng(1);
    Evaluation out;
    RolloutEvaluator(c).evaluate(scratch, rng, out);
    return 40 * std::atanh(2.0 * out.reward[0] - 1);
  };
  EXPECT_NEAR(margin(barns, 0, 0), margin(plain, 0.5, 1), 1e-3);
  // The barns count: half the guess, whose barn is worth 8 to player 0.
  EXPECT_NEAR(margin(barns, 0, 0) - margin(half, 0, 0), 0.5 * 8.0, 1e-3);
  // barns= given overrides the file's weight.
  EXPECT_NEAR(margin(barns, 0, 2), margin(plain, 0.5, 2), 1e-3);
}

TEST(ValueNet, AGivenFileIsUsedForTheMixesItServesAndRefusedForOthers) {
  const std::string path =
      write_value_file("given.value", 2, kValueInputs, 0, bit(2), tiny_weights(), 1, bit(kBaseCode) | bit(kRiverCode));
  Config river;
  river.variants = {{"start", "river2"}};
  EXPECT_EQ(evaluator_used(river, "iters=50,eval=value,rollout=none,value=" + path),
            "the value network base, 2 players, also river2 (given.value, sha256 " + short_sha(path) + ")");
  State abbey = game_of(2, {"abbey-mayor"});
  abbey.apply(abbey.sample_chance());
  MctsAgent agent(parse_mcts_options("iters=50,eval=value,value=" + path));
  Rng rng(1);
  try {
    agent.choose(abbey, rng);
    ADD_FAILURE() << "a value network was used for a mix it does not serve";
  } catch (const SearchError& e) {
    EXPECT_NE(std::string(e.what()).find("given.value serves base, river2 games, not abbey-mayor"), std::string::npos)
        << e.what();
  }
}

TEST(ValueNet, TheSearchTakesAServedNetworkOfOneMixBeforeOneOfEveryMix) {
  // In a folder: a network of every mix (its name sorts first) and base weights serving River II.
  const std::string dir = ::testing::TempDir() + "served-nets";
  std::filesystem::create_directories(dir);
  const std::string every = write_value_file("served-nets/a-every.value", 2, kEveryMixInputs, 64, bit(2),
                                             tiny_every_mix_weights(), 1, ~uint64_t(0));
  const std::string base = write_value_file("served-nets/b-base.value", 2, kValueInputs, 0, bit(2), tiny_weights(), 1,
                                            bit(kBaseCode) | bit(kRiverCode));
  Config river;
  river.variants = {{"start", "river2"}};
  Config abbey;
  abbey.expansions = {"abbey-mayor"};
  const std::string options = "iters=50,eval=value,rollout=none,values=" + dir;
  EXPECT_NE(evaluator_used(river, options).find("(b-base.value"), std::string::npos) << evaluator_used(river, options);
  EXPECT_NE(evaluator_used(abbey, options).find("every mix, 2 players (a-every.value"), std::string::npos)
      << evaluator_used(abbey, options);
}

TEST(ValueNet, TheDefaultSearchUsesTheShippedNetworkWhereOneFitsAndRolloutsElsewhere) {
  // The default of mcts: the learned value where a shipped network fits (docs/value.md), the
  // rollout search with its hand-made guess (eval=greedy) elsewhere; the references keep theirs.
  Config two;
  Config four;
  four.players = 4;
  EXPECT_EQ(evaluator_used(two, "iters=50"),
            "rollouts to a cutoff, then the value network base, 2 players " + shipped("value-base.value"));
  EXPECT_EQ(evaluator_used(four, "iters=50"), "rollouts: no value network for base with 4 players");
  EXPECT_EQ(evaluator_used(two, reference_options("ref-rollout", "iters=50")), "rollouts");
  EXPECT_EQ(parse_mcts_options("").rollout.heuristic, Heuristic::Value);
  EXPECT_EQ(parse_mcts_options(reference_options("ref-rollout", "")).rollout.heuristic, Heuristic::Greedy);
}

TEST(ValueNet, ABlendMixesTheHandMadeGuessIntoTheNetworksValues) {
  // blend=b: each player's value is (1 - b) x the network's + b x the hand-made guess's, so
  // the margin behind the reward (0.5 + 0.5 tanh(margin / 40)) and the win estimates move
  // linearly in b, and with b = 1 the network no longer counts.
  std::vector<float> other = tiny_weights();
  other[size_t(input("score / 100"))] = 0.5f;
  const std::string tiny = write_value_file("blend.value", 1, kValueInputs, 0, 1u << 2, tiny_weights());
  const std::string flat = write_value_file("blend2.value", 1, kValueInputs, 0, 1u << 2, other);
  Config config;
  config.seed = 4;
  State s(config);
  Rng play(7);
  while (s.turn_number() < 20 || s.is_chance() || s.score(0) == s.score(1)) s.apply(s.sample_legal_action(play));
  auto evaluate = [&](const std::string& path, double blend) {
    RolloutConfig c;
    c.policy = RolloutPolicy::None;
    c.heuristic = Heuristic::Value;
    c.value_net = path;
    c.value_blend = blend;
    State scratch = s;
    Rng rng(1);
    Evaluation out;
    RolloutEvaluator(c).evaluate(scratch, rng, out);
    return out;
  };
  auto margin = [](const Evaluation& e) { return 40 * std::atanh(2.0 * e.reward[0] - 1); };
  const Evaluation net = evaluate(tiny, 0), half = evaluate(tiny, 0.5), guess = evaluate(tiny, 1);
  EXPECT_GT(std::abs(margin(net) - margin(guess)), 1.0) << "the two values must differ for the test to mean much";
  EXPECT_NEAR(margin(half), 0.5 * (margin(net) + margin(guess)), 1e-3);
  EXPECT_NEAR(half.win[0], 0.5 * (net.win[0] + guess.win[0]), 1e-5);
  EXPECT_NEAR(half.win[0] + half.win[1], 1.0, 1e-5);
  const Evaluation guess_other = evaluate(flat, 1);
  EXPECT_FLOAT_EQ(guess_other.reward[0], guess.reward[0]);
  EXPECT_NE(evaluate(flat, 0).reward[0], net.reward[0]);
  EXPECT_THROW(parse_mcts_options("eval=value,blend=1.5"), SearchError);
}

TEST(ValueNet, ABlendBySamplingValuesEachCutoffByTheNetworkOrTheGuessWithTheSharesChances) {
  // blendby=sample: each cutoff is the network's evaluation or the guess's, never a mix, drawn
  // with chances 1 - b and b, so the win estimates average those of blendby=mean.
  const std::string tiny = write_value_file("sampled.value", 1, kValueInputs, 0, 1u << 2, tiny_weights());
  Config config;
  config.seed = 4;
  State s(config);
  Rng play(7);
  while (s.turn_number() < 20 || s.is_chance() || s.score(0) == s.score(1)) s.apply(s.sample_legal_action(play));
  auto evaluate = [&](double blend, bool sample, uint64_t seed) {
    RolloutConfig c = parse_mcts_options(sample ? "blendby=sample" : "blendby=mean").rollout;
    c.policy = RolloutPolicy::None;
    c.value_net = tiny;
    c.value_blend = blend;
    State scratch = s;
    Rng rng(seed);
    Evaluation out;
    RolloutEvaluator(c).evaluate(scratch, rng, out);
    return out;
  };
  const Evaluation net = evaluate(0, false, 1), guess = evaluate(1, false, 1), mean = evaluate(0.25, false, 1);
  ASSERT_GT(std::abs(net.win[0] - guess.win[0]), 0.01f) << "the two values must differ for the test to mean much";
  int guesses = 0;
  double win = 0;
  const int draws = 4000;
  for (int i = 0; i < draws; ++i) {
    const Evaluation e = evaluate(0.25, true, uint64_t(i) + 1);
    const bool is_guess = e.win[0] == guess.win[0] && e.reward[0] == guess.reward[0];
    const bool is_net = e.win[0] == net.win[0] && e.reward[0] == net.reward[0];
    ASSERT_TRUE(is_guess != is_net) << "draw " << i << " is neither, or both";
    guesses += is_guess;
    win += e.win[0];
  }
  // A binomial of 4,000 draws at 0.25 lies within 0.22-0.28 but for a chance of about 1e-5.
  EXPECT_NEAR(double(guesses) / draws, 0.25, 0.03);
  EXPECT_NEAR(win / draws, mean.win[0], 0.03 * std::abs(net.win[0] - guess.win[0]) + 1e-6);
  // No share of the guess: the network alone, whatever the draw; all of it: the guess alone.
  EXPECT_EQ(evaluate(0, true, 9).win[0], net.win[0]);
  EXPECT_EQ(evaluate(1, true, 9).win[0], guess.win[0]);
  EXPECT_EQ(parse_mcts_options("").rollout.blend_by, BlendBy::File);
  EXPECT_THROW(parse_mcts_options("blendby=random"), SearchError);
}

// A version 5 file says whether its guess share is drawn, and the search plays it so unless
// blendby= says otherwise.
TEST(ValueNet, AVersionFiveFileDrawsItsGuessShareAsItWasMeasured) {
  const std::string half =
      write_value_file("v5-half.value", 5, kValueInputs, 0, bit(2), tiny_weights(), 1, 1, 0.5f, 0.0f, 0u);
  const std::string drawn =
      write_value_file("v5-drawn.value", 5, kValueInputs, 0, bit(2), tiny_weights(), 1, 1, 0.5f, 0.0f, 1u);
  EXPECT_FALSE(ValueNet(half).guess_drawn());
  EXPECT_TRUE(ValueNet(drawn).guess_drawn());
  EXPECT_EQ(
      ValueNet(drawn).describe(),
      "base, 2 players, with 0.5 of the hand-made guess, drawn (v5-drawn.value, sha256 " + short_sha(drawn) + ")");
  State s = game_of(2);
  s.apply(s.sample_chance());
  auto root = [&](const std::string& options) { return root_stats(s, options); };
  EXPECT_EQ(root("value=" + drawn), root("value=" + half + ",blendby=sample"));
  EXPECT_NE(root("value=" + drawn), root("value=" + half));
  EXPECT_EQ(root("value=" + drawn + ",blendby=mean"), root("value=" + half));
}

TEST(ValueNet, AGameWithoutAShippedNetworkFallsBackToRolloutsAndSaysSo) {
  Config config;
  config.players = 6;
  config.expansions = {"shrines"};
  EXPECT_EQ(evaluator_used(config, "iters=100,eval=value,rollout=none"),
            "rollouts: no value network for shrines with 6 players");
}

TEST(ValueNet, TheShippedNetworksCoverTwoPlayerBaseAndFourPlayerEveryExpansionGames) {
  // docs/value.md: value-base.value (2-player base) and value-all-city-4p.value (4 players, every
  // expansion but River II, starting from the City). Each game takes the one made for it.
  Config every;
  every.players = 4;
  every.expansions = {"abbey-mayor", "king-robber", "shrines", "anniv20"};
  every.variants = {{"start", "city"}};
  const std::vector<std::pair<Config, std::string>> cases = {
      {Config{}, "the value network base, 2 players " + shipped("value-base.value")},
      {every, "the value network abbey-mayor+anniv20+city+king-robber+shrines, 4 players " +
                  shipped("value-all-city-4p.value")},
  };
  for (const auto& [config, said] : cases) EXPECT_EQ(evaluator_used(config, "iters=100,eval=value,rollout=none"), said);
  // The same mix with 2 players takes the network of its own file, which counts barns in its guess.
  every.players = 2;
  EXPECT_EQ(evaluator_used(every, "iters=100,eval=value,rollout=none"),
            "the value network every mix (serving abbey-mayor+anniv20+city+king-robber+shrines), 2 players, with 0.5 "
            "of the hand-made guess, barns at 1 " +
                shipped("value-all-city-2p.value"));
}

TEST(Sha256, MatchesTheStandardsVectorsAcrossBlockBoundaries) {
  // FIPS 180-4's examples and the padding's edge cases (55, 56 and 64 bytes), as sha256sum prints them.
  EXPECT_EQ(sha256_hex(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(sha256_hex("abc"), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  EXPECT_EQ(sha256_hex("abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq"),
            "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
  EXPECT_EQ(sha256_hex(std::string(55, 'a')), "9f4390f8d30c2dd92ec9f095b65e2b9ae9b0a925a5258e241c9f1e910f734318");
  EXPECT_EQ(sha256_hex(std::string(56, 'a')), "b35439a4ac6f0948b6d6f9e3c6af0f5f590ce20f1bde7090ef7970686ec6738a");
  EXPECT_EQ(sha256_hex(std::string(64, 'a')), "ffe054fe7ae0cb6dc65c3af9b61d5209f439851db43d0ba5997337df154668eb");
  EXPECT_THROW(file_sha256_hex("/no/such/file"), std::runtime_error);
}

}  // namespace
}  // namespace carc
