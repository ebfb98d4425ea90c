// Phase 3 and the final scoring (RULES B-7 … B-9, 5.4, 5.6).
#include <algorithm>
#include <utility>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

thread_local std::vector<ScoringRecord>* State::scorings_ = nullptr;

const char* scoring_kind_name(ScoringKind k) {
  switch (k) {
    case ScoringKind::Feature: return "feature";
    case ScoringKind::BarnField: return "barn_field";
    case ScoringKind::King: return "king";
    case ScoringKind::Robber: return "robber";
    case ScoringKind::Arrow: return "arrow";
  }
  return "?";
}

const char* scoring_part_name(ScoringPart::Kind k) {
  switch (k) {
    case ScoringPart::Kind::Tiles: return "tiles";
    case ScoringPart::Kind::Pennants: return "pennants";
    case ScoringPart::Kind::Cells: return "cells";
    case ScoringPart::Kind::Cities: return "cities";
    case ScoringPart::Kind::CityOfCarcassonne: return "city_of_carcassonne";
    case ScoringPart::Kind::PigHerd: return "pig_herd";
    case ScoringPart::Kind::Roads: return "roads";
    case ScoringPart::Kind::Arrow: return "arrow";
  }
  return "?";
}

void State::apply(Action a, std::vector<ScoringRecord>* scorings) {
  const Action legal = checked(a);
  std::vector<ScoringRecord>* outer = std::exchange(scorings_, scorings);
  try {
    apply_unchecked(legal);
  } catch (...) {
    scorings_ = outer;
    throw;
  }
  scorings_ = outer;
}

ScoringRecord* State::write_record(ScoringKind kind, uint16_t root, bool final) const {
  ScoringRecord& r = scorings_->emplace_back();
  r.kind = kind;
  r.final = final;
  if (root == kNoSegment) return &r;
  const Segment& f = features_[root];
  r.type = f.type;
  r.feature = root;
  r.pennants = f.pennants;
  r.pig_herd = f.pig;
  features_.for_each_member(root, [&](int m) { r.segments.push_back(uint16_t(m)); });
  std::sort(r.segments.begin(), r.segments.end());
  for (uint16_t m : r.segments) {
    Cell c = board_.tile(features_[m].tile).cell;
    if (std::find(r.cells.begin(), r.cells.end(), c) == r.cells.end()) r.cells.push_back(c);
  }
  for (const PlacedFigure& fig : figures_) {
    if (features_.root(fig.segment) != root) continue;
    const Segment& s = features_[fig.segment];
    r.figures.push_back(ScoredFigure{fig.owner, fig.kind, fig.segment, board_.tile(s.tile).cell, s.local});
  }
  return &r;
}

void State::score_completed() {
  // RULES 5.4b: cities, roads, cloister-like, then fields; ties by creation order. A feature is
  // as old as its oldest segment (segments are numbered as tiles are placed, but a merge keeps
  // the larger side's root). Found by a walk, as scorings are rare: no stamp on the hot copies.
  auto oldest = [&](uint16_t root) {
    int first = root;
    features_.for_each_member(root, [&](int m) { first = std::min(first, m); });
    return first;
  };
  std::sort(scoring_.pending.begin(), scoring_.pending.end(), [&](uint16_t a, uint16_t b) {
    int ra = scoring_rank(features_[a].type), rb = scoring_rank(features_[b].type);
    return ra != rb ? ra < rb : oldest(a) < oldest(b);
  });
  for (int i = 1; i < scoring_.barn_fields.size(); ++i)  // the barn-triggered fields (a few at most) likewise
    for (int j = i; j > 0 && oldest(scoring_.barn_fields[j].root) < oldest(scoring_.barn_fields[j - 1].root); --j)
      std::swap(scoring_.barn_fields[j], scoring_.barn_fields[j - 1]);
  for (int i = 0; i < scoring_.pending.size(); ++i)
    features_[scoring_.pending[i]].done = 1;  // finished for SH-5 and wagons
  scoring_.next = 0;
  scoring_.city_step = 0;
  continue_scoring();
}

void State::continue_scoring() {
  while (scoring_.next < scoring_.pending.size() + scoring_.barn_fields.size()) {
    if (rules_.count && start_city_round()) return;  // a player decides on City moves first
    uint16_t root = item_root();
    const Segment& f = features_[root];
    if (scoring_.next < scoring_.pending.size()) {
      if (f.occupants) {
        scoring_.scored = true;
        score_feature(root, false);
        return_figures(root);
      }
      if (challenges_.size() && is_cloister_like(f.type)) resolve_challenge(root);
      // KR-1: completing a strictly larger city or road takes the King or the Robber.
      if (rules_.king_robber && f.type == FeatureType::City && f.tiles > king_robber_.king_size) {
        king_robber_.king_size = f.tiles;
        king_robber_.king = int8_t(turn_.player);
      }
      if (rules_.king_robber && f.type == FeatureType::Road && f.tiles > king_robber_.robber_size) {
        king_robber_.robber_size = f.tiles;
        king_robber_.robber = int8_t(turn_.player);
      }
    } else if (f.occupants) {  // AM-B-3 (3 per city) or AM-B-5 (1 per city), + the pig herd
      std::array<int, kMaxPlayers> strength{};
      for (int p = 0; p < rules_.players; ++p) strength[p] = f.meeples[p];
      scoring_.scored = true;
      tallied(ScoringKind::BarnField, root, false, [&](auto& tally) {
        count_fed_cities(root, scoring_.barn_fields[scoring_.next - scoring_.pending.size()].points, f.pig, tally);
        award(strength, tally, Cause::FieldBarn);
      });
      return_figures(root);
    }
    ++scoring_.next;
    scoring_.city_step = 0;
  }
  scoring_.pending.clear();
  scoring_.barn_fields.clear();
  scoring_.next = 0;
  // Wagons decide clockwise from the active player (AM-W-3).
  std::sort(wagons_.begin(), wagons_.end(), [&](const WagonToMove& a, const WagonToMove& b) {
    return (a.owner - turn_.player + rules_.players) % rules_.players <
           (b.owner - turn_.player + rules_.players) % rules_.players;
  });
  next_wagon();
}

void State::return_figures(uint16_t root) {
  for (int i = 0; i < figures_.size();) {
    const PlacedFigure& f = figures_[i];
    if (f.kind == FigureKind::Barn || features_.root(f.segment) != root) {
      ++i;
      continue;
    }
    if (f.kind == FigureKind::Wagon) {
      wagons_.push_back(WagonToMove{f.owner, f.segment});  // it moves or returns in step d
    } else {
      ++supply_[f.owner][int(f.kind)];
    }
    figures_.swap_remove(i);
  }
  Segment& f = features_[root];
  f.occupants = 0;
  f.mayors = 0;
  f.meeples.fill(0);
}

template <class Tally>
void State::count_fed_cities(uint16_t field_root, int each, int pig, Tally& tally) const {
  std::array<uint16_t, 128> seen;
  int n = 0;
  features_.for_each_member(field_root, [&](int m) {
    const Segment& s = features_[m];
    const int first = m - s.local;  // the tile's first segment: a tile's segments are consecutive
    for (uint16_t cities = s.cities; cities; cities &= uint16_t(cities - 1)) {
      uint16_t city = features_.root(first + __builtin_ctz(cities));
      if (features_[city].open != 0) continue;
      if (std::find(seen.begin(), seen.begin() + n, city) == seen.begin() + n && n < int(seen.size())) seen[n++] = city;
    }
  });
  const int carcassonne = features_[field_root].carcassonne;  // the City is a completed city (CK-1)
  if (tally.record) {
    tally.record->counted.assign(seen.begin(), seen.begin() + n);
    tally.record->city_of_carcassonne = carcassonne;
  }
  tally.add(ScoringPart::Kind::Cities, n, each);
  tally.add(ScoringPart::Kind::CityOfCarcassonne, carcassonne, each);
  tally.add(ScoringPart::Kind::PigHerd, n + carcassonne, pig);
}
template void State::count_fed_cities(uint16_t, int, int, Tally&) const;  // rules_city.cpp too
template void State::count_fed_cities(uint16_t, int, int, RecordingTally&) const;

void State::score_feature(uint16_t root, bool final) {
  const Segment& f = features_[root];
  std::array<int, kMaxPlayers> strength{};
  for (int p = 0; p < rules_.players; ++p) strength[p] = f.meeples[p];
  using Part = ScoringPart::Kind;
  tallied(ScoringKind::Feature, root, final, [&](auto& tally) {
    switch (f.type) {
      case FeatureType::Road:
        tally.add(Part::Tiles, f.tiles, 1);
        award(strength, tally, Cause::Road);
        break;
      case FeatureType::City: {
        // AM-M-2: a mayor is as strong as the city's pennants.
        for (int p = 0; p < rules_.players; ++p) strength[p] += (f.mayors >> p & 1) * f.pennants;
        tally.add(Part::Tiles, f.tiles, final ? 1 : 2);
        tally.add(Part::Pennants, f.pennants, final ? 1 : 2);
        award(strength, tally, Cause::City, f.pennants ? f.mayors : 0, Cause::CityMayor);
        break;
      }
      case FeatureType::Monastery:
      case FeatureType::Abbey:
      case FeatureType::Shrine:
        tally.add(Part::Cells, 9 - f.open, 1);
        award(strength, tally, f.type == FeatureType::Shrine ? Cause::Shrine : Cause::Cloister);
        break;
      case FeatureType::Field: {
        if (f.barns) {  // AM-B-6: every barn scores 4 per completed city; no farmers here
          count_fed_cities(root, 4, 0, tally);
          for (int i = 0; i < figures_.size(); ++i) {
            const PlacedFigure& fig = figures_[i];
            if (fig.kind != FigureKind::Barn || features_.root(fig.segment) != root || tally.points == 0) continue;
            add_points(fig.owner, tally, Cause::Barn);
          }
        } else {
          count_fed_cities(root, 3, f.pig, tally);  // RV-4: the pig herd adds 1 per city
          award(strength, tally, Cause::Field);
        }
        break;
      }
      default: break;
    }
  });
}

void State::final_scoring() {
  // What scores holds figures (B-8, B-9, AM-B-6): each such feature once, found by its figures.
  uint16_t scored[kMaxPlacedFigures];
  int num_scored = 0;
  for (const PlacedFigure& figure : figures_) {
    uint16_t root = features_.root(figure.segment);
    const Segment& f = features_[root];
    if (f.done || (f.occupants == 0 && f.barns == 0)) continue;
    if (std::find(scored, scored + num_scored, root) != scored + num_scored) continue;
    scored[num_scored++] = root;
    score_feature(root, true);
  }
  // KR-2: 1 point per completed city for the King (the City counts too), per completed road for
  // the Robber.
  if (king_robber_.king < 0 && king_robber_.robber < 0) return;
  auto completed = [&](int s, FeatureType type) {
    const Segment& f = features_[s];
    return f.root == s && f.open == 0 && f.type == type;
  };
  int cities = 0, roads = 0;
  for (int s = 0; s < features_.size(); ++s) {
    cities += completed(s, FeatureType::City);
    roads += completed(s, FeatureType::Road);
  }
  auto title = [&](int holder, ScoringKind kind, FeatureType type, int count, Cause cause) {
    if (holder < 0) return;
    tallied(kind, kNoSegment, true, [&](auto& tally) {
      const bool city = type == FeatureType::City;
      tally.add(city ? ScoringPart::Kind::Cities : ScoringPart::Kind::Roads, count, 1);
      if (city) tally.add(ScoringPart::Kind::CityOfCarcassonne, rules_.city_block, 1);
      if (tally.record) {  // which ones the count counted
        tally.record->type = type;
        tally.record->city_of_carcassonne = city && rules_.city_block;
        for (int s = 0; s < features_.size(); ++s)
          if (completed(s, type)) tally.record->counted.push_back(uint16_t(s));
      }
      add_points(holder, tally, cause);
    });
  };
  title(king_robber_.king, ScoringKind::King, FeatureType::City, cities, Cause::King);
  title(king_robber_.robber, ScoringKind::Robber, FeatureType::Road, roads, Cause::Robber);
}

std::array<int, kMaxPlayers> State::scores_if_ended() const {
  State copy;  // the used parts only: a whole copy would move every byte of the board's grid
  copy.copy_from(*this);
  if (turn_.phase != Phase::GameOver) copy.final_scoring();
  std::array<int, kMaxPlayers> out{};
  for (int p = 0; p < rules_.players; ++p) out[p] = copy.scores_[p];
  return out;
}

std::vector<double> State::returns() const {
  const int players = rules_.players;
  std::vector<double> out(players, 0.0);
  if (!is_terminal()) return out;
  int best = *std::max_element(scores_.begin(), scores_.begin() + players);
  int winners = int(std::count(scores_.begin(), scores_.begin() + players, best));
  for (int p = 0; p < players; ++p)
    if (scores_[p] == best) out[p] = 1.0 / winners;
  return out;
}

}  // namespace carc
