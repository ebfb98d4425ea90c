// The observation encoder and the dense action space (engine/observation.h) over random games of
// every rule mix: index <-> action is a bijection on the legal actions and the whole space, the
// mask is exactly the legal actions, and the planes and globals show what the state holds.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <numeric>
#include <set>
#include <vector>

#include "engine/catalogue.h"
#include "engine/features.h"
#include "engine/game.h"
#include "engine/observation.h"
#include "engine/rng.h"

namespace carc {
namespace {

struct Mix {
  const char* name;
  int players;
  std::vector<std::string> expansions;
};

const std::vector<Mix>& mixes() {
  static const std::vector<Mix> all = {
      {"base", 2, {}},
      {"abbey-mayor", 3, {"abbey-mayor"}},
      {"anniv20", 2, {"anniv20"}},
      {"king-robber+shrines", 4, {"king-robber", "shrines"}},
      {"river2", 2, {"river2"}},
      {"city+abbey-mayor", 2, {"city", "abbey-mayor"}},
      {"everything (city)", 5, {"abbey-mayor", "anniv20", "king-robber", "shrines", "city"}},
      {"everything (river2)", 6, {"abbey-mayor", "anniv20", "king-robber", "shrines", "river2"}},
  };
  return all;
}

int plane_index(const ObservationEncoder& e, const std::string& name) {
  const auto& names = e.plane_names();
  auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return int(it - names.begin());
}

int global_index(const ObservationEncoder& e, const std::string& name) {
  const auto& names = e.global_names();
  auto it = std::find(names.begin(), names.end(), name);
  EXPECT_NE(it, names.end()) << name;
  return int(it - names.begin());
}

int plane_sum(const ObservationEncoder& e, const std::vector<uint8_t>& planes, int plane) {
  const int area = e.window() * e.window();
  return std::accumulate(planes.begin() + plane * area, planes.begin() + (plane + 1) * area, 0);
}

// Plays random games of a mix, calling check(state) at every node.
template <class Check>
void random_games(const Mix& mix, int games, Check&& check) {
  for (int g = 0; g < games; ++g) {
    Config config;
    config.players = mix.players;
    config.expansions = mix.expansions;
    config.seed = 1000u + uint64_t(g);
    State s(config);
    Rng rng(77u + uint64_t(g));
    while (true) {
      check(s);
      if (s.is_terminal()) break;
      s.apply(s.is_chance() ? s.sample_chance() : s.sample_legal_action(rng));
    }
  }
}

// The planes as version 1's first encoder wrote them, kept as the reference of the faster one
// (which writes per-tile tables, only what is on the board, and bits): every byte, every cell.
std::vector<uint8_t> reference_planes(const ObservationEncoder& e, const State& s, int observer) {
  constexpr int kEdgeKinds = 6, kNumMarks = 7;
  constexpr const char* kMarkNames[kNumMarks] = {"garden", "inn", "lake", "pig-herd", "spring", "volcano", "well"};
  const int kTilePlane = 0, kEdgePlanes = 1, kCentrePlanes = kEdgePlanes + kNumSides * kEdgeKinds,
            kPennantPlane = kCentrePlanes + 4, kMarkPlanes = kPennantPlane + 1, kArrowPlanes = kMarkPlanes + kNumMarks,
            kArmedPlane = kArrowPlanes + 3, kSideDonePlanes = kArmedPlane + 1,
            kCentreDonePlane = kSideDonePlanes + kNumSides, kLastPlacedPlane = kCentreDonePlane + 1,
            kFocusPlane = kLastPlacedPlane + 1, kChallengePlane = kFocusPlane + 1, kFixedPlanes = kChallengePlane + 1;
  auto place_of = [](FeatureType t) {
    return t == FeatureType::Road ? 0 : t == FeatureType::City ? 1 : t == FeatureType::Field ? 2 : 3;
  };
  const int players = e.players();
  const Catalogue& cat = Catalogue::builtin();
  const Board& board = s.board();
  const Features& features = s.features();
  const Window w = observation_window(s, e.window());
  const int area = e.window() * e.window();
  std::vector<uint8_t> planes(size_t(e.plane_bytes()), 0);
  auto set = [&](int plane, int cell, int value) { planes[size_t(plane * area + cell)] = uint8_t(value); };
  auto relative = [&](int p) { return (p - observer + players) % players; };
  const int figure_planes = kFixedPlanes, place_planes = kFixedPlanes + 4 * players,
            held_planes = kFixedPlanes + 8 * players;
  for (int slot = 0; slot < board.num_tiles(); ++slot) {
    const PlacedTile& t = board.tile(slot);
    if (!w.contains(t.cell)) continue;
    const int cell = w.index(t.cell);
    const TileKind& kind = cat.kind(t.kind);
    const RotatedTile& rotated = kind.rotations[t.rotation];
    set(kTilePlane, cell, 1);
    for (int side = 0; side < kNumSides; ++side) {
      const int edge = int(rotated.edges[size_t(side)]);
      if (edge >= 1 && edge <= kEdgeKinds) set(kEdgePlanes + side * kEdgeKinds + edge - 1, cell, 1);
      int local = rotated.segment_at[size_t(side_point(Side(side), 1))];
      if (local < 0) local = rotated.segment_at[size_t(side_point(Side(side), 0))];
      if (local < 0) continue;
      const Segment& root = features.feature(t.first_segment + local);
      if (root.done) set(kSideDonePlanes + side, cell, 1);
      for (int p = 0; p < players; ++p)
        if (root.meeples[size_t(p)] || (root.mayors >> p & 1)) set(held_planes + 4 * relative(p) + side, cell, 1);
    }
    if (kind.cloister_segment >= 0) {
      const FeatureType type = rotated.segments[size_t(kind.cloister_segment)].type;
      const int centre = type == FeatureType::Monastery ? 0 : type == FeatureType::Shrine ? 1 : 2;
      set(kCentrePlanes + centre, cell, 1);
      if (features.feature(t.first_segment + kind.cloister_segment).done) set(kCentreDonePlane, cell, 1);
    }
    if (kind.city_square) set(kCentrePlanes + 3, cell, 1);
    int pennants = 0;
    for (int i = 0; i < kind.num_segments; ++i) pennants += rotated.segments[size_t(i)].pennants;
    if (pennants) set(kPennantPlane, cell, pennants);
    for (int m = 0; m < kNumMarks; ++m)
      if (std::find(kind.marks.begin(), kind.marks.end(), kMarkNames[m]) != kind.marks.end())
        set(kMarkPlanes + m, cell, 1);
    if (kind.arrow != ArrowKind::None) {
      set(kArrowPlanes + int(kind.arrow) - 1, cell, 1);
      if (s.arrow_armed(slot)) set(kArmedPlane, cell, 1);
    }
  }
  if (s.last_slot() >= 0 && w.contains(board.tile(s.last_slot()).cell))
    set(kLastPlacedPlane, w.index(board.tile(s.last_slot()).cell), 1);
  auto mark_feature = [&](uint16_t segment, int plane) {
    features.for_each_member(segment, [&](int m) {
      Cell c = board.tile(features[m].tile).cell;
      if (w.contains(c)) set(plane, w.index(c), 1);
    });
  };
  if (s.phase() == Phase::WagonMove) mark_feature(s.wagon_origin(), kFocusPlane);
  if (s.phase() == Phase::CityMove) mark_feature(s.scoring_item(), kFocusPlane);
  for (int i = 0; i < s.num_challenges(); ++i) {
    auto [shrine, cloister] = s.challenge(i);
    for (uint16_t seg : {shrine, cloister}) {
      Cell c = board.tile(features[seg].tile).cell;
      if (w.contains(c)) set(kChallengePlane, w.index(c), 1);
    }
  }
  for (int i = 0; i < s.num_placed_figures(); ++i) {
    const PlacedFigure& f = s.placed_figure(i);
    const Segment& seg = features[f.segment];
    Cell c = board.tile(seg.tile).cell;
    if (!w.contains(c)) continue;
    const int cell = w.index(c), r = relative(f.owner);
    planes[size_t((figure_planes + 4 * r + int(f.kind)) * area + cell)] += 1;
    planes[size_t((place_planes + 4 * r + place_of(seg.type)) * area + cell)] += 1;
  }
  return planes;
}

// numpy.packbits(planes, bitorder="little") of the planes' nonzero bytes.
std::vector<uint8_t> pack(const std::vector<uint8_t>& planes) {
  std::vector<uint8_t> bits((planes.size() + 7) / 8, 0);
  for (size_t i = 0; i < planes.size(); ++i)
    if (planes[i]) bits[i / 8] = uint8_t(bits[i / 8] | 1u << (i % 8));
  return bits;
}

TEST(ActionSpace, IndexAndActionAreInverseOverTheWholeSpace) {
  for (int side : {kMinWindow, 7, kDefaultWindow}) {
    ActionSpace space(side);
    for (Window w : {Window{-3, 5, side}, Window{0, 0, side}}) {
      for (int i = 0; i < space.size(); ++i) {
        Action a = space.action(w, i);
        ASSERT_TRUE(a.well_formed()) << i;
        ASSERT_EQ(space.index(w, a), i) << "window " << side << ", index " << i;
      }
    }
    const ActionSpace::Block& last = space.blocks().back();
    EXPECT_EQ(last.start + last.size, space.size());
    EXPECT_THROW(space.action(Window{0, 0, side}, space.size()), std::out_of_range);
    EXPECT_THROW(space.action(Window{0, 0, side}, -1), std::out_of_range);
  }
}

TEST(ActionSpace, DrawIndexesAreTileKindIds) {
  ActionSpace space;
  for (int k = 0; k < Catalogue::builtin().size(); ++k) EXPECT_EQ(space.index(Window{}, Action::draw(k)), k);
}

TEST(ActionSpace, MaskIsTheLegalActionsInEveryMix) {
  ActionSpace space;
  std::vector<uint8_t> mask(size_t(space.size()));
  std::set<ActionKind> kinds_seen;  // over every mix: each kind of action is checked somewhere
  for (const Mix& mix : mixes()) {
    long nodes = 0, outside_nodes = 0;
    random_games(mix, 6, [&](const State& s) {
      ++nodes;
      const Window w = observation_window(s);
      const int outside = space.legal_mask(s, space.frame(s), mask.data());
      outside_nodes += outside > 0;
      const std::vector<Action> legal = s.legal_actions();
      int indexed = 0;
      for (Action a : legal) {
        kinds_seen.insert(a.kind());
        const int i = space.index(w, a);
        if (i < 0) continue;
        ++indexed;
        ASSERT_EQ(space.action(w, i), a) << mix.name << ": " << s.action_to_string(a);
        ASSERT_EQ(mask[size_t(i)], 1);
      }
      ASSERT_EQ(indexed + outside, int(legal.size())) << mix.name;
      ASSERT_EQ(std::count(mask.begin(), mask.end(), 1), indexed) << mix.name;
    });
    std::printf("[ mix %-22s ] %ld nodes, %ld with legal actions outside the %d-cell window\n", mix.name, nodes,
                outside_nodes, kDefaultWindow);
    EXPECT_EQ(outside_nodes, 0) << mix.name;
  }
  EXPECT_EQ(kinds_seen.size(), size_t(ActionKind::Count) + 1);
}

TEST(ActionSpace, ANodeBeyondTheWindowIsReported) {
  // A 4-cell window cannot hold the placements around a few tiles: the mask leaves them out
  // and says how many.
  ActionSpace space(kMinWindow);
  std::vector<uint8_t> mask(size_t(space.size()));
  bool reported = false;
  random_games(mixes()[0], 1, [&](const State& s) {
    if (s.phase() != Phase::PlaceTile) return;
    const Window w = observation_window(s, kMinWindow);
    const int outside = space.legal_mask(s, space.frame(s), mask.data());
    int beyond = 0;
    for (Action a : s.legal_actions()) beyond += !w.contains(a.cell());
    ASSERT_EQ(outside, beyond);
    reported |= outside > 0;
  });
  EXPECT_TRUE(reported);
}

TEST(ActionSpace, FrontierLayoutIndexesEveryLegalActionAndRoundTrips) {
  // Every legal action of every node has an index, the index names the action back, and the mask
  // holds exactly those indexes; every index naming a frontier cell or tile the board has gives
  // an action whose index it is, and every other index of those blocks is refused.
  const ActionSpace space(ActionLayout::Frontier, 0);
  EXPECT_EQ(space.window(), 0);
  EXPECT_EQ(space.size(), Catalogue::builtin().size() + 5 * kMaxFrontier + 31 * kMaxTiles + 58);
  std::vector<uint8_t> mask(size_t(space.size()));
  ActionFrame frame;
  for (const Mix& mix : mixes()) {
    long nodes = 0, whole_space_checked = 0;
    random_games(mix, 10, [&](const State& s) {
      ++nodes;
      space.frame(s, frame);  // into the last node's vectors
      ASSERT_TRUE(std::is_sorted(frame.frontier.begin(), frame.frontier.end()));
      ASSERT_EQ(int(frame.frontier.size()), s.board().frontier_size());
      const ActionFrame fresh = space.frame(s);
      ASSERT_EQ(frame.frontier, fresh.frontier) << mix.name;
      ASSERT_EQ(frame.rank, fresh.rank) << mix.name;
      ASSERT_EQ(space.legal_mask(s, frame, mask.data()), 0) << mix.name;
      const std::vector<Action> legal = s.legal_actions();
      std::set<int> indexes;
      for (Action a : legal) {
        const int i = space.index(s, frame, a);
        ASSERT_GE(i, 0) << mix.name << ": " << s.action_to_string(a);
        ASSERT_EQ(space.action(s, frame, i), a) << mix.name << ": " << s.action_to_string(a);
        ASSERT_EQ(mask[size_t(i)], 1);
        indexes.insert(i);
      }
      ASSERT_EQ(std::count(mask.begin(), mask.end(), 1), long(indexes.size())) << mix.name;
      if (nodes % 400 != 1) return;  // the whole space at a few nodes (exceptions are slow)
      ++whole_space_checked;
      for (int i = 0; i < space.size(); ++i) {
        Action a;
        try {
          a = space.action(s, frame, i);
        } catch (const std::out_of_range&) {
          continue;  // a frontier cell or tile beyond the board's counts
        }
        ASSERT_EQ(space.index(s, frame, a), i) << mix.name << ": " << s.action_to_string(a);
      }
    });
    EXPECT_GT(whole_space_checked, 0);
  }
  // Beyond the counts: the start tile alone has 4 frontier cells and 1 tile.
  State start{Config{}};
  space.frame(start, frame);
  ASSERT_EQ(frame.frontier.size(), 4u);
  const int place = space.blocks()[1].start, arrow = space.blocks()[7].start;
  EXPECT_NO_THROW(space.action(start, frame, place + 3 * 4 + 3));
  EXPECT_THROW(space.action(start, frame, place + 4 * 4), std::out_of_range);
  EXPECT_EQ(space.action(start, frame, arrow), Action::arrow(Cell{0, 0}));
  EXPECT_THROW(space.action(start, frame, arrow + 1), std::out_of_range);
  // Row-major: north, west, east, south of the start tile.
  const Cell expected[4] = {{0, -1}, {-1, 0}, {1, 0}, {0, 1}};
  for (int c = 0; c < 4; ++c) EXPECT_EQ(space.action(start, frame, place + 4 * c), Action::place(expected[c], 0));
}

TEST(ActionSpace, FrontierCellsAreWrittenRelativeToTheWindow) {
  const ActionSpace space(ActionLayout::Frontier, 0);
  State s{Config{}};
  const Window w = observation_window(s, 8);  // the start tile at row 4, column 4
  std::vector<int16_t> frontier(2 * kMaxFrontier, 7), tiles(2 * kMaxTiles, 7);
  ActionSpace::write_action_cells(s, space.frame(s), w, frontier.data(), tiles.data());
  const std::vector<int16_t> first = {3, 4, 4, 3, 4, 5, 5, 4};  // (row, column): N, W, E, S
  EXPECT_EQ(std::vector<int16_t>(frontier.begin(), frontier.begin() + 8), first);
  EXPECT_TRUE(std::all_of(frontier.begin() + 8, frontier.end(), [](int16_t v) { return v == kNoCell; }));
  EXPECT_EQ(tiles[0], 4);
  EXPECT_EQ(tiles[1], 4);
  EXPECT_TRUE(std::all_of(tiles.begin() + 2, tiles.end(), [](int16_t v) { return v == kNoCell; }));
  EXPECT_THROW(parse_layout("grid"), std::invalid_argument);
  EXPECT_EQ(parse_layout(layout_name(ActionLayout::Frontier)), ActionLayout::Frontier);
}

TEST(Observation, LayoutNamesEveryPlaneAndGlobal) {
  for (int players = 1; players <= kMaxPlayers; ++players) {
    ObservationEncoder e(players);
    EXPECT_EQ(e.num_planes(), 49 + 12 * players);
    std::set<std::string> planes(e.plane_names().begin(), e.plane_names().end());
    std::set<std::string> globals(e.global_names().begin(), e.global_names().end());
    EXPECT_EQ(int(planes.size()), e.num_planes()) << "plane names are unique";
    EXPECT_EQ(int(globals.size()), e.num_globals()) << "global names are unique";
  }
  // Every mark of the catalogue has its plane.
  ObservationEncoder e(2);
  for (const TileKind& k : Catalogue::builtin().kinds())
    for (const std::string& mark : k.marks) plane_index(e, "mark[" + mark + "]");
  EXPECT_THROW(ObservationEncoder(0), std::invalid_argument);
  EXPECT_THROW(ObservationEncoder(2, 3), std::invalid_argument);
}

TEST(Observation, PlanesAndGlobalsShowTheStateFromTheObserversSeat) {
  for (const Mix& mix : mixes()) {
    ObservationEncoder e(mix.players);
    std::vector<uint8_t> planes(size_t(e.plane_bytes()));
    std::vector<float> globals(size_t(e.num_globals()));
    std::vector<uint8_t> again = planes;
    const int tile = plane_index(e, "tile");
    const int own_meeples = plane_index(e, "figures[r0.meeple]");
    const int score0 = global_index(e, "score[r0]"), score1 = global_index(e, "score[r1]");
    const int bag = global_index(e, "bag_size");
    const int to_move = global_index(e, "player_to_move[r0]");
    random_games(mix, 2, [&](const State& s) {
      for (int observer = 0; observer < s.num_players(); ++observer) {
        e.encode(s, observer, planes.data(), globals.data());
        ASSERT_EQ(plane_sum(e, planes, tile), s.board().num_tiles()) << mix.name;
        int own = 0;
        for (int i = 0; i < s.num_placed_figures(); ++i)
          own += s.placed_figure(i).owner == observer && s.placed_figure(i).kind == FigureKind::Meeple;
        ASSERT_EQ(plane_sum(e, planes, own_meeples), own) << mix.name;
        ASSERT_EQ(globals[size_t(score0)], float(s.score(observer)));
        ASSERT_EQ(globals[size_t(score1)], float(s.score((observer + 1) % s.num_players())));
        ASSERT_EQ(globals[size_t(bag)], float(s.bag_size()));
        ASSERT_EQ(globals[size_t(to_move)], float(s.current_player() == observer));
      }
      // The same node encodes the same, whatever was in the buffers.
      std::fill(again.begin(), again.end(), uint8_t(7));
      e.encode(s, 0, again.data(), globals.data());
      e.encode(s, 0, planes.data(), globals.data());
      ASSERT_EQ(again, planes);
    });
  }
}

TEST(Observation, EveryRouteWritesTheReferencePlanesAtEveryNode) {
  for (const Mix& mix : mixes()) {
    for (int side : {13, kDefaultWindow}) {  // 13: boards outgrow it, tiles and figures fall outside
      ObservationEncoder e(mix.players, side);
      std::vector<uint8_t> whole(size_t(e.plane_bytes())), bits(size_t(e.packed_bytes()));
      // One buffer per observer, updated from node to node and from game to game.
      std::vector<std::vector<uint8_t>> updated(size_t(mix.players), std::vector<uint8_t>(whole.size(), 0xA5));
      std::vector<std::vector<uint8_t>> updated_bits(size_t(mix.players), std::vector<uint8_t>(bits.size(), 0xA5));
      std::vector<PlaneCache> caches(size_t(mix.players)), bit_caches(size_t(mix.players));
      std::vector<float> globals(size_t(e.num_globals())), globals_again = globals;
      random_games(mix, 2, [&](const State& s) {
        for (int observer = 0; observer < s.num_players(); ++observer) {
          const std::vector<uint8_t> reference = reference_planes(e, s, observer);
          const size_t o = size_t(observer);
          e.encode(s, observer, whole.data(), globals.data());
          ASSERT_EQ(whole, reference) << mix.name << " window " << side;
          e.encode_update(s, observer, updated[o].data(), caches[o], globals_again.data());
          ASSERT_EQ(updated[o], reference) << mix.name << " window " << side;
          ASSERT_EQ(globals_again, globals);
          std::fill(bits.begin(), bits.end(), uint8_t(0xA5));  // every byte written
          e.encode_packed(s, observer, bits.data(), globals_again.data());
          ASSERT_EQ(bits, pack(reference)) << mix.name << " window " << side;
          e.encode_packed_update(s, observer, updated_bits[o].data(), bit_caches[o], globals_again.data());
          ASSERT_EQ(updated_bits[o], pack(reference)) << mix.name << " window " << side;
          // Observed by another seat in between (the self-play route): one cache per buffer.
          const int other = (observer + 1) % s.num_players();
          e.encode_packed_update(s, other, updated_bits[o].data(), bit_caches[o], globals_again.data());
          e.encode_packed_update(s, observer, updated_bits[o].data(), bit_caches[o], globals_again.data());
          ASSERT_EQ(updated_bits[o], pack(reference)) << mix.name << " window " << side;
        }
      });
    }
  }
}

TEST(Observation, WindowIsCentredOnThePlacedTiles) {
  Config config;
  State s(config);
  Window w = observation_window(s);
  EXPECT_TRUE(w.contains(Cell{0, 0}));
  EXPECT_EQ(w.index(Cell{0, 0}), (kDefaultWindow / 2) * kDefaultWindow + kDefaultWindow / 2);
  EXPECT_THROW(observation_window(s, kMinWindow - 1), std::invalid_argument);
}

}  // namespace
}  // namespace carc
