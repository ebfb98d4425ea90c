// Cult places (RULES SH): the placement limit and challenges.
#include <algorithm>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

int State::cult_class(int slot) const {
  const TileKind& k = catalogue().kind(board_.tile(slot).kind);
  if (k.cloister_segment < 0) return 0;
  return k.rotations[0].segments[k.cloister_segment].type == FeatureType::Shrine ? 1 : 2;
}

bool State::cult_limit_ok(Cell c, const TileKind& kind) const {
  if (!rules_.shrines || kind.cloister_segment < 0) return true;
  int mine = kind.rotations[0].segments[kind.cloister_segment].type == FeatureType::Shrine ? 1 : 2;
  int others = 0;
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      Cell n{int16_t(c.x + dx), int16_t(c.y + dy)};
      int slot = (dx || dy) ? board_.slot_at(n) : -1;
      if (slot < 0 || cult_class(slot) != 3 - mine) continue;
      if (++others > 1) return false;  // two of the other kind around the new one
      // The neighbour may not end up with two of the new one's kind around it.
      for (int ey = -1; ey <= 1; ++ey)
        for (int ex = -1; ex <= 1; ++ex) {
          Cell m{int16_t(n.x + ex), int16_t(n.y + ey)};
          int other = (ex || ey) && !(m == c) ? board_.slot_at(m) : -1;
          if (other >= 0 && cult_class(other) == mine) return false;
        }
    }
  return true;
}

void State::resolve_challenge(uint16_t winner) {
  // SH-4/SH-5: an occupied, unfinished cloister of the other kind next to the completed one
  // loses: its figures go back with no points (a wagon too, without moving: AM-W-5).
  Cell c = board_.tile(features_[winner].tile).cell;
  int mine = cult_class(features_[winner].tile);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int slot = (dx || dy) ? board_.slot_at(Cell{int16_t(c.x + dx), int16_t(c.y + dy)}) : -1;
      if (slot < 0 || cult_class(slot) != 3 - mine) continue;
      uint16_t loser = features_.root(board_.tile(slot).first_segment + catalogue().kind(board_.tile(slot).kind).cloister_segment);
      if (features_[loser].done || !features_[loser].occupants) continue;
      int queued = num_wagons_;
      return_figures(loser);
      for (int w = queued; w < num_wagons_; ++w) ++supply_[wagons_[w].owner][int(FigureKind::Wagon)];
      num_wagons_ = uint8_t(queued);
    }
}

}  // namespace carc
