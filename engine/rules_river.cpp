// River II (RULES RV): where river tiles go, and the river's open ends.
#include <algorithm>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

int State::river_placements(const TileKind& kind, Action* out) const {
  int n = 0;
  for (int e = 0; e < river_.ends.size(); ++e) {
    const RiverEnd& end = river_.ends[e];
    Cell target = neighbour(end.cell, Side(end.side));
    int f = board_.frontier_index(target);
    if (f < 0) continue;
    // RV-1: it continues exactly one open end: no other river side faces it there.
    int river_neighbours = 0;
    for (int s = 0; s < kNumSides; ++s) {
      int slot = board_.slot_at(neighbour(target, Side(s)));
      river_neighbours += slot >= 0 && rotated(board_.tile(slot)).edges[opposite(Side(s))] == Edge::River;
    }
    if (river_neighbours != 1) continue;
    // RV-2: the two branches never share a side.
    bool touches_other_branch = false;
    for (const RiverTile& t : river_.tiles) {
      bool adjacent = std::abs(t.cell.x - target.x) + std::abs(t.cell.y - target.y) == 1;
      touches_other_branch |= adjacent && end.branch && t.branch && t.branch != end.branch;
    }
    if (touches_other_branch) continue;
    for (int i = 0; i < kind.num_distinct_rotations; ++i) {
      int r = kind.distinct_rotations[i];
      const RotatedTile& rt = kind.rotations[r];
      if (!board_.fits(f, rt.signature)) continue;
      // RV-2: no U-turn, i.e. no second curve of a branch turning the same way as the one before.
      int entry = opposite(Side(end.side));
      int flow = end.side;
      int turn = 0;
      if (kind.river_sides == 2)
        for (int s = 0; s < kNumSides; ++s)
          if (s != entry && rt.edges[s] == Edge::River) turn = s == flow ? 0 : s == (flow + 1) % 4 ? 1 : -1;
      if (turn != 0 && turn == end.turn) continue;
      out[n++] = Action::place(target, r);
    }
  }
  return n;
}

bool State::river_placeable(const TileKind& kind) const {
  Action buffer[kMaxActions];
  return river_placements(kind, buffer) > 0;
}

void State::extend_river(Cell c, const TileKind& kind, int rotation) {
  const RotatedTile& rt = kind.rotations[rotation];
  // The end this tile continues (none for the spring).
  RiverEnd from{};
  int entry = -1;
  for (int e = 0; e < river_.ends.size(); ++e)
    if (neighbour(river_.ends[e].cell, Side(river_.ends[e].side)) == c) {
      from = river_.ends[e];
      entry = opposite(Side(from.side));
      river_.ends.swap_remove(e);
      break;
    }
  river_.tiles.push_back({c, from.branch});
  int exits = 0;
  for (int s = 0; s < kNumSides; ++s) {
    if (s == entry || rt.edges[s] != Edge::River) continue;
    RiverEnd end{c, uint8_t(s), from.branch, 0};
    if (kind.river_sides == 3) end.branch = uint8_t(1 + exits);  // the fork starts two branches
    if (kind.river_sides == 2 && entry >= 0) end.turn = int8_t(s == from.side ? 0 : s == (from.side + 1) % 4 ? 1 : -1);
    ++exits;
    if (!river_.ends.full()) river_.ends.push_back(end);
  }
}

bool State::after_river_tile(Cell c, const TileKind& kind, int rotation) {
  extend_river(c, kind, rotation);
  if (!has_mark(kind, "volcano")) return true;
  turn_.volcano = true;  // RV-6: no figure, and another turn at once
  turn_.phase = Phase::PlaceFigure;
  after_figure();
  return false;
}

int State::river_draws(Action* out) const {
  // RV-3: the fork first, the volcano lake last, the others in between (drawn at random).
  auto stage = [](const TileKind& k) { return k.river_sides == 3 ? 0 : has_mark(k, "volcano") ? 2 : 1; };
  const Catalogue& cat = catalogue();
  int first = 2;
  for (KindId k : river_.stack) first = std::min(first, stage(cat.kind(k)));
  int n = 0;
  for (int k = 0; k < cat.size(); ++k)
    if (bag_count_[k] && cat.kind(KindId(k)).river_sides && stage(cat.kind(KindId(k))) == first)
      out[n++] = Action::draw(k);
  return n;
}

}  // namespace carc
