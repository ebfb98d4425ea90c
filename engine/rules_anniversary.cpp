// 20th Anniversary (RULES section 4): arrows.
#include <algorithm>
#include <bitset>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

void State::after_placement(Cell c) {
  if (rules_.anniv20) {
    // XX-1: the new tile's own arrow, if it points at a tile; the arrows pointing at c.
    arrows_.candidates.clear();
    // Every candidate is used up (XX-3: the ones not chosen are lost), so two of one kind are
    // one choice: the second is dropped at once.
    auto add_candidate = [&](int slot) {
      set_arrow_armed(slot, false);
      ArrowKind kind = catalogue().kind(board_.tile(slot).kind).arrow;
      for (int i = 0; i < arrows_.candidates.size(); ++i)
        if (catalogue().kind(board_.tile(arrows_.candidates[i]).kind).arrow == kind) return;
      arrows_.candidates.push_back(uint8_t(slot));
    };
    const PlacedTile& placed = board_.tile(turn_.last_slot);
    if (catalogue().kind(placed.kind).arrow != ArrowKind::None) {
      if (board_.occupied(neighbour(c, rotated(placed).arrow_points))) {
        add_candidate(turn_.last_slot);
      } else {  // XX-2: +2 at once for an arrow pointing at an empty cell
        set_arrow_armed(turn_.last_slot, true);
        tallied(ScoringKind::Arrow, kNoSegment, false, [&](auto& tally) {
          tally.add(ScoringPart::Kind::Arrow, 1, 2);
          if (tally.record) tally.record->cells.push_back(c);
          add_points(turn_.player, tally, Cause::Arrow);
        });
      }
    }
    for (int s = 0; s < kNumSides; ++s) {
      int slot = board_.slot_at(neighbour(c, Side(s)));
      if (slot >= 0 && arrow_armed(slot) && rotated(board_.tile(slot)).arrow_points == opposite(Side(s)))
        add_candidate(slot);
    }
    if (arrows_.candidates.size() > 1) {  // XX-3: the player chooses one
      turn_.phase = Phase::ArrowChoice;
      return;
    }
    if (arrows_.candidates.size() == 1) activate_arrow(arrows_.candidates[0]);
    arrows_.candidates.clear();
  }
  enter_figure_phase();
}

void State::activate_arrow(int slot) {
  set_arrow_armed(slot, false);
  arrows_.active = catalogue().kind(board_.tile(slot).kind).arrow;
  if (arrows_.active == ArrowKind::ExtraTurn) turn_.extra_turn = !turn_.in_extra_turn;  // XX-6: no third turn
}

int State::arrow_figure_options(Action* out) const {
  int n = 0;
  if (supply_[turn_.player][int(FigureKind::Meeple)] == 0) return 0;
  // Completed by this turn's tile (scored in phase 3) counts as finished (XX-4, XX-5 decisions).
  auto finished = [&](const Segment& f) {
    return f.done ||
           ((f.type == FeatureType::Road || f.type == FeatureType::City || is_cloister_like(f.type)) && f.open == 0);
  };
  if (arrows_.active == ArrowKind::MeepleBeside) {
    for (int i = 0; i < figures_.size(); ++i) {
      const PlacedFigure& fig = figures_[i];
      if (fig.owner != turn_.player || fig.paired || fig.kind == FigureKind::Barn) continue;
      const Segment& f = features_.feature(fig.segment);
      if (finished(f) || barn_keeps_out(FigureKind::Meeple, f)) continue;
      const Segment& s = features_[fig.segment];
      Action a = Action::figure_at(FigureKind::Meeple, s.local, board_.tile(s.tile).cell);
      if (std::find(out, out + n, a) == out + n) out[n++] = a;
    }
  } else if (arrows_.active == ArrowKind::PlaceAnywhere) {
    // One choice per feature (where on it the meeple stands changes nothing), at its oldest
    // segment; none for the features of the tile just placed: that is the ordinary B-5 choice.
    std::bitset<kMaxSegments> seen;
    const PlacedTile& placed = board_.tile(turn_.last_slot);
    for (int i = 0; i < catalogue().kind(placed.kind).num_segments; ++i)
      seen.set(features_.root(placed.first_segment + i));
    for (int s = 0; s < placed.first_segment; ++s) {
      const Segment& seg = features_[s];
      const Segment& f = features_[seg.root];
      if (seen.test(seg.root)) continue;
      seen.set(seg.root);
      if (!may_stand_on(FigureKind::Meeple, seg.type) || f.occupants || finished(f) ||
          barn_keeps_out(FigureKind::Meeple, f))
        continue;
      out[n++] = Action::figure_at(FigureKind::Meeple, seg.local, board_.tile(seg.tile).cell);
    }
  }
  return n;
}

void State::choose_arrow(Cell c) {
  for (uint8_t slot : arrows_.candidates) set_arrow_armed(slot, false);  // the others are lost (XX-3)
  arrows_.candidates.clear();
  activate_arrow(board_.slot_at(c));
  enter_figure_phase();
}

void State::place_figure_elsewhere(Cell c, int feature) {
  uint16_t seg = uint16_t(board_.tile(board_.slot_at(c)).first_segment + feature);
  const bool beside = arrows_.active == ArrowKind::MeepleBeside;
  if (beside) {  // XX-4: the two stand together
    for (PlacedFigure& partner : figures_) {
      if (partner.segment == seg && partner.owner == turn_.player && !partner.paired &&
          partner.kind != FigureKind::Barn) {
        partner.paired = true;
        break;
      }
    }
  }
  add_figure(turn_.player, FigureKind::Meeple, seg, true);
  if (beside) figures_.back().paired = true;
}

}  // namespace carc
