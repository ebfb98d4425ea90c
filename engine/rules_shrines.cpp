// Cult places (RULES SH): the placement limit and challenges.
#include <algorithm>
#include <cassert>

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

void State::start_challenges(uint16_t segment) {
  // A challenge needs both sides unfinished and occupied when the second becomes occupied:
  // figures put on a feature that is already complete (an abbey filling a hole, the target of a
  // City move, a cloister completed by this turn's tile) never start one.
  const Segment& mine = features_[segment];
  if (mine.open == 0) return;
  const Cell c = board_.tile(mine.tile).cell;
  const int kind = cult_class(mine.tile);
  for (int dy = -1; dy <= 1; ++dy)
    for (int dx = -1; dx <= 1; ++dx) {
      int slot = (dx || dy) ? board_.slot_at(Cell{int16_t(c.x + dx), int16_t(c.y + dy)}) : -1;
      if (slot < 0 || cult_class(slot) != 3 - kind) continue;
      const PlacedTile& t = board_.tile(slot);
      uint16_t other = uint16_t(t.first_segment + catalogue().kind(t.kind).cloister_segment);
      if (features_[other].open == 0 || !features_[other].occupants) continue;
      Challenge challenge = kind == 1 ? Challenge{segment, other} : Challenge{other, segment};
      if (challenges_.contains(challenge)) continue;  // a second figure (XX-4)
      challenges_.push_back(challenge);
    }
}

void State::resolve_challenge(uint16_t completed) {
  for (int i = 0; i < challenges_.size(); ++i) {
    const Challenge c = challenges_[i];
    if (c.shrine != completed && c.cloister != completed) continue;
    challenges_.swap_remove(i);
    uint16_t loser = c.shrine == completed ? c.cloister : c.shrine;
    if (features_[loser].done) return;  // both completed in this phase: both score (SH-5)
    // The loser's figures go back with no points, a wagon too, without moving (AM-W-5).
    int queued = wagons_.size();
    return_figures(loser);
    for (int w = queued; w < wagons_.size(); ++w) ++supply_[wagons_[w].owner][int(FigureKind::Wagon)];
    wagons_.truncate(queued);
    return;
  }
}

}  // namespace carc
