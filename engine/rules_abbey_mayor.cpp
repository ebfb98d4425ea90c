// Abbey & Mayor (RULES section 2): barns, abbey holes, wagon moves.
#include <algorithm>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

bool State::barn_corner_ok(Cell c, int corner, uint16_t* field) const {
  // The 4 tiles meeting at this corner of c, and which of their corners meets there.
  const Cell cells[4] = {c, Cell{int16_t(c.x + kCornerDx[corner]), c.y}, Cell{c.x, int16_t(c.y + kCornerDy[corner])},
                         Cell{int16_t(c.x + kCornerDx[corner]), int16_t(c.y + kCornerDy[corner])}};
  const int corners[4] = {corner, 3 - corner, corner ^ 1, (corner + 2) & 3};
  for (int i = 0; i < 4; ++i) {
    int slot = board_.slot_at(cells[i]);
    if (slot < 0) return false;
    const PlacedTile& t = board_.tile(slot);
    if (catalogue().kind(t.kind).city_square) return false;  // AM-B-1 decision: land tiles only
    const RotatedTile& rt = rotated(t);
    int a = rt.segment_at[kCornerPoints[corners[i]][0]], b = rt.segment_at[kCornerPoints[corners[i]][1]];
    if (a < 0 || a != b || rt.segments[a].type != FeatureType::Field) return false;
    if (i == 0) *field = uint16_t(t.first_segment + a);
  }
  return true;
}

bool State::has_hole() const {
  Action buffer[kMaxActions];
  return abbey_options(buffer) > 0;
}

int State::abbey_options(Action* out) const {
  int n = 0;
  const TileKind& abbey = catalogue().kind(abbey_kind_);
  for (int f = 0; f < board_.frontier_size(); ++f)
    if (board_.frontier_neighbours(f) == 0xF && cult_limit_ok(board_.frontier_cell(f), abbey))
      out[n++] = Action::abbey(board_.frontier_cell(f));
  return n;
}

int State::wagon_targets(Action* out) const {
  const uint16_t origin = wagons_[0].origin;
  int n = 0;
  auto offer = [&](uint16_t root) {  // each tile of an unfinished, unoccupied feature
    const Segment& f = features_[root];
    if (f.done || f.occupants || !may_stand_on(FigureKind::Wagon, f.type)) return;
    features_.for_each_member(root, [&](int m) {
      const Segment& s = features_[m];
      if (first_on_its_tile(uint16_t(m)))
        out[n++] = Action::figure_at(FigureKind::Wagon, s.local, board_.tile(s.tile).cell);
    });
  };
  if (rules_.wagon_move == WagonRule::C2) {
    // AM-W-4 c2: a segment on the wagon's tile or one of the 8 around it.
    Cell c = board_.tile(features_[origin].tile).cell;
    for (int dy = -1; dy <= 1; ++dy)
      for (int dx = -1; dx <= 1; ++dx) {
        Cell at{int16_t(c.x + dx), int16_t(c.y + dy)};
        int slot = board_.slot_at(at);
        if (slot < 0) continue;
        const PlacedTile& t = board_.tile(slot);
        const int segments = catalogue().kind(t.kind).num_segments;
        for (int i = 0; i < segments; ++i) {
          const Segment& f = features_.feature(t.first_segment + i);
          FeatureType type = features_[t.first_segment + i].type;
          if (!f.done && !f.occupants && may_stand_on(FigureKind::Wagon, type) &&
              first_on_its_tile(uint16_t(t.first_segment + i)))
            out[n++] = Action::figure_at(FigureKind::Wagon, i, at);
        }
      }
    return n;
  }
  // AM-W-4 c1: features bordering the scored feature through road ends or an abbey.
  std::array<uint16_t, 64> targets;
  int num_targets = 0;
  auto add = [&](int seg) {
    uint16_t r = features_.root(seg);
    if (std::find(targets.begin(), targets.begin() + num_targets, r) == targets.begin() + num_targets &&
        num_targets < int(targets.size()))
      targets[num_targets++] = r;
  };
  features_.for_each_member(origin, [&](int m) {
    const Segment& s = features_[m];
    const PlacedTile& t = board_.tile(s.tile);
    const TileKind& kind = catalogue().kind(t.kind);
    const RotatedTile& rt = rotated(t);
    const SegmentSpec& spec = rt.segments[s.local];
    for (int j = 0; j < kind.num_segments; ++j) {
      if (j == s.local) continue;
      const SegmentSpec& other = rt.segments[j];
      bool borders = false;
      if (s.type == FeatureType::Road) {
        borders = (spec.road_end == RoadEnd::Junction && other.type == FeatureType::Road &&
                   other.road_end == RoadEnd::Junction) ||
                  (spec.road_end == RoadEnd::City && j == spec.road_end_city) ||
                  (spec.road_end == RoadEnd::Cloister && is_cloister_like(other.type));
      } else if (s.type == FeatureType::City) {
        borders = other.type == FeatureType::Road && other.road_end == RoadEnd::City && other.road_end_city == s.local;
      } else if (is_cloister_like(s.type)) {
        borders = other.type == FeatureType::Road && other.road_end == RoadEnd::Cloister;
      }
      if (borders) add(t.first_segment + j);
    }
    // An abbey borders the roads and cities whose sides face it.
    for (int side = 0; side < kNumSides; ++side) {
      int ns = board_.slot_at(neighbour(t.cell, Side(side)));
      if (ns < 0) continue;
      const PlacedTile& nt = board_.tile(ns);
      const RotatedTile& nr = rotated(nt);
      if (s.type == FeatureType::Abbey) {
        int b = nr.segment_at[facing_point(side_point(Side(side), 1))];
        if (b >= 0 && (nr.segments[b].type == FeatureType::Road || nr.segments[b].type == FeatureType::City))
          add(nt.first_segment + b);
      } else if ((spec.points >> side_point(Side(side), 1) & 1) && is_abbey(catalogue().kind(nt.kind))) {
        add(nt.first_segment + catalogue().kind(nt.kind).cloister_segment);
      }
    }
  });
  for (int i = 0; i < num_targets; ++i) offer(targets[i]);
  std::sort(out, out + n);
  return int(std::unique(out, out + n) - out);
}

void State::next_wagon() {
  if (wagons_.empty()) return end_of_phase3();
  Action buffer[kMaxActions];
  while (wagons_.size() > 0) {
    if (wagon_targets(buffer) > 0) {
      turn_.phase = Phase::WagonMove;
      return;
    }
    ++supply_[wagons_[0].owner][int(FigureKind::Wagon)];  // no target: back to supply
    wagons_.erase(0);
  }
  end_of_phase3();
}

void State::choose_abbey(Action a) {
  if (a.kind() == ActionKind::TakeTile) {
    turn_.phase = Phase::Draw;
    return;
  }
  if (a.kind() == ActionKind::Pass) {  // declined in the final round (AM-A-5)
    finish_turn();
    return;
  }
  put_tile(a.cell(), abbey_kind_, 0);
  turn_.last_placer = int8_t(turn_.player);
  --abbeys_[turn_.player];
  turn_.drawn = abbey_kind_;
  after_placement(a.cell());
}

void State::place_barn(int corner) {
  uint16_t field;
  barn_corner_ok(board_.tile(turn_.last_slot).cell, corner, &field);
  if (features_.feature(field).occupants)  // AM-B-3: the farmers score now
    scoring_.barn_fields.push_back({features_.root(field), 3});
  add_figure(turn_.player, FigureKind::Barn, field, true);
}

void State::move_wagon(Action a) {
  WagonToMove wagon = wagons_[0];
  wagons_.erase(0);
  if (a.kind() == ActionKind::Figure) {
    const PlacedTile& t = board_.tile(board_.slot_at(a.figure_cell()));
    add_figure(wagon.owner, FigureKind::Wagon, uint16_t(t.first_segment + a.feature()), false);
  } else {
    ++supply_[wagon.owner][int(FigureKind::Wagon)];  // AM-W-2: it returns
  }
  next_wagon();
}

}  // namespace carc
