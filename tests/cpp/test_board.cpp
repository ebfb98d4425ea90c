// The board: frontier bookkeeping and the signature test, against a direct scan.
#include <gtest/gtest.h>

#include <set>
#include <stdexcept>

#include "engine/board.h"
#include "engine/catalogue.h"

namespace carc {
namespace {

const Catalogue& cat() { return Catalogue::builtin(); }

TEST(Board, StraightLineOfEveryTileFits) {
  // kMaxTiles straight roads in one row: coordinates far from the origin, a frontier twice as
  // long as the line, and both ends still accept a road tile.
  Board b;
  const TileKind& road = cat().kind(cat().find("base.U"));
  int first = -kMaxTiles / 2;
  for (int i = 0; i < kMaxTiles; ++i) b.place(Cell{int16_t(first + i), 0}, road.id, 0, 0, road.rotations[0]);
  EXPECT_EQ(b.num_tiles(), kMaxTiles);
  EXPECT_EQ(b.frontier_size(), 2 * kMaxTiles + 2);
  for (int i = 0; i < kMaxTiles; ++i) EXPECT_EQ(b.slot_at(Cell{int16_t(first + i), 0}), i);
  // Lying W-E the road fits both ends and every cell above and below (fields meet fields).
  std::set<std::pair<int, int>> fits, expected = {{first - 1, 0}, {first + kMaxTiles, 0}};
  for (int i = 0; i < kMaxTiles; ++i) {
    expected.insert({first + i, -1});
    expected.insert({first + i, 1});
  }
  b.for_each_fit(road.rotations[0].signature, [&](int f) {
    fits.insert({b.frontier_cell(f).x, b.frontier_cell(f).y});
  });
  EXPECT_EQ(fits, expected);
  // Lying N-S it fits nowhere: its road would meet a field.
  EXPECT_FALSE(b.fits_anywhere(road.rotations[1].signature));
}

TEST(Board, FrontierDemandsWhatNeighboursShow) {
  Board b;
  const TileKind& d = cat().kind(cat().find("base.D"));
  b.place(Cell{0, 0}, d.id, 0, 0, d.rotations[0]);
  ASSERT_EQ(b.frontier_size(), 4);
  // Every tile rotation fits a one-neighbour cell iff its facing side equals the shown side.
  for (const TileKind& k : cat().kinds()) {
    for (int r = 0; r < 4; ++r) {
      for (int f = 0; f < b.frontier_size(); ++f) {
        Cell c = b.frontier_cell(f);
        Side towards = c.y < 0 ? South : c.y > 0 ? North : c.x < 0 ? East : West;
        bool expected = k.rotations[r].edges[towards] == d.rotations[0].edges[opposite(towards)];
        EXPECT_EQ(b.fits(f, k.rotations[r].signature), expected) << k.name << " r" << r;
      }
    }
  }
}

TEST(Board, FillingAHoleRemovesItFromTheFrontier) {
  Board b;
  const TileKind& c = cat().kind(cat().find("base.B"));
  for (Cell cell : {Cell{0, -1}, Cell{1, 0}, Cell{0, 1}, Cell{-1, 0}}) b.place(cell, c.id, 0, 0, c.rotations[0]);
  int hole = -1;
  for (int f = 0; f < b.frontier_size(); ++f)
    if (b.frontier_cell(f) == Cell{0, 0}) hole = f;
  ASSERT_GE(hole, 0);
  EXPECT_EQ(b.frontier_neighbours(hole), 0xF);
  int before = b.frontier_size();
  b.place(Cell{0, 0}, c.id, 0, 0, c.rotations[0]);
  EXPECT_EQ(b.frontier_size(), before - 1);
  EXPECT_TRUE(b.occupied(Cell{0, 0}));
  for (int f = 0; f < b.frontier_size(); ++f) EXPECT_FALSE(b.frontier_cell(f) == (Cell{0, 0}));
}

TEST(Board, StaircaseOfEveryTileFitsTheGrid) {
  // kMaxTiles tiles in a staircase, each beside the last: the widest window a game can need
  // (width + height of the tiles is kMaxTiles + 1), which the grid holds only without margins.
  Board b;
  const TileKind& cloister = cat().kind(cat().find("base.B"));
  auto cell = [](int i) { return Cell{int16_t((i + 1) / 2), int16_t(i / 2)}; };
  for (int i = 0; i < kMaxTiles; ++i) b.place(cell(i), cloister.id, 0, 0, cloister.rotations[0]);
  EXPECT_TRUE(b.well_formed());
  for (int i = 0; i < kMaxTiles; ++i) EXPECT_EQ(b.slot_at(cell(i)), i);
  // The frontier is every empty cell beside a tile, each once.
  std::set<std::pair<int, int>> expected, frontier;
  for (int i = 0; i < kMaxTiles; ++i)
    for (int s = 0; s < kNumSides; ++s) {
      Cell n = neighbour(cell(i), Side(s));
      if (!b.occupied(n)) expected.insert({n.x, n.y});
    }
  for (int f = 0; f < b.frontier_size(); ++f) {
    frontier.insert({b.frontier_cell(f).x, b.frontier_cell(f).y});
    EXPECT_EQ(b.frontier_index(b.frontier_cell(f)), f);
  }
  EXPECT_EQ(frontier, expected);
  EXPECT_EQ(b.frontier_size(), int(expected.size()));
  Board copy;
  copy.copy_from(b);
  EXPECT_TRUE(copy.same_layout(b));
}

TEST(Board, PlaceNamesTheTilesBesideTheCell) {
  Board b;
  const TileKind& c = cat().kind(cat().find("base.B"));
  TileNeighbours first;
  b.place(Cell{0, 0}, c.id, 0, 0, c.rotations[0], &first);
  EXPECT_EQ(first.sides, 0);
  b.place(Cell{1, 1}, c.id, 0, 0, c.rotations[0]);  // diagonal: beside no tile
  b.place(Cell{-1, 0}, c.id, 0, 0, c.rotations[0]);
  TileNeighbours n;
  b.place(Cell{0, 1}, c.id, 0, 0, c.rotations[0], &n);  // south of slot 0, west of slot 1
  EXPECT_EQ(n.sides, (1 << North) | (1 << East));
  EXPECT_EQ(n.slot[North], 0);
  EXPECT_EQ(n.slot[East], 1);
  TileNeighbours hole;
  b.place(Cell{-1, 1}, c.id, 0, 0, c.rotations[0], &hole);  // below slot 2, west of slot 3
  EXPECT_EQ(hole.sides, (1 << North) | (1 << East));
  EXPECT_EQ(hole.slot[North], 2);
  EXPECT_EQ(hole.slot[East], 3);
  TileNeighbours corner;
  b.place(Cell{1, 0}, c.id, 0, 0, c.rotations[0], &corner);  // east of slot 0, above slot 1
  EXPECT_EQ(corner.sides, (1 << South) | (1 << West));
  EXPECT_EQ(corner.slot[South], 1);
  EXPECT_EQ(corner.slot[West], 0);
}

TEST(Board, TilesSpreadBeyondTheGridAreRefused) {
  // Two tiles far apart need a window larger than any game's: refused, the board unchanged.
  Board b;
  const TileKind& cloister = cat().kind(cat().find("base.B"));
  b.place(Cell{0, 0}, cloister.id, 0, 0, cloister.rotations[0]);
  EXPECT_THROW(b.place(Cell{150, 150}, cloister.id, 0, 0, cloister.rotations[0]), std::length_error);
  EXPECT_EQ(b.num_tiles(), 1);
  EXPECT_EQ(b.frontier_size(), 4);
  EXPECT_TRUE(b.well_formed());
}

}  // namespace
}  // namespace carc
