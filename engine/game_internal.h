// Helpers shared by the files that implement State (game.cpp and the rules_*.cpp files).
// Not part of the engine's interface.
#pragma once

#include <algorithm>
#include <string>

#include "game.h"

namespace carc::internal {

// The catalogue, bound once at start-up (game.cpp) so hot paths skip a static's guard.
extern const Catalogue& g_catalogue;
inline const Catalogue& catalogue() { return g_catalogue; }

inline const RotatedTile& rotated(const PlacedTile& t) { return catalogue().kind(t.kind).rotations[t.rotation]; }

// Where a figure of this kind may stand, one rule for the legal choices, their explanations,
// positions and the consistency check: a meeple on any feature (B-5), a mayor in a city
// (AM-M-1), a wagon anywhere but a field (AM-W-1), a barn on a field (at a corner, AM-B-1).
inline bool may_stand_on(FigureKind kind, FeatureType type) {
  if (!can_hold_figure(type)) return false;
  switch (kind) {
    case FigureKind::Meeple: return true;
    case FigureKind::Mayor: return type == FeatureType::City;
    case FigureKind::Wagon: return type != FeatureType::Field;
    case FigureKind::Barn: return type == FeatureType::Field;
  }
  return false;
}
// The rule may_stand_on checks, in words for error messages.
inline const char* where_it_stands(FigureKind kind) {
  switch (kind) {
    case FigureKind::Meeple: return "a meeple stands on a road, city, field or cloister-like feature (B-5)";
    case FigureKind::Mayor: return "a mayor stands in a city (AM-M-1)";
    case FigureKind::Wagon: return "a wagon stands on a road, city or cloister-like feature, never a field (AM-W-1)";
    case FigureKind::Barn: return "a barn stands on a field (AM-B-1)";
  }
  return "";
}
// AM-B-4: no farmer joins a field with a barn (the feature's aggregate at its root).
inline bool barn_keeps_out(FigureKind kind, const Segment& feature) {
  return kind != FigureKind::Barn && feature.type == FeatureType::Field && feature.barns;
}
// CK-3: which figures may enter which quarter of the City: a meeple any, a mayor the castle, a
// wagon any but the market, a barn none.
inline bool may_enter(FigureKind kind, Quarter q) {
  switch (kind) {
    case FigureKind::Meeple: return true;
    case FigureKind::Mayor: return q == Quarter::Castle;
    case FigureKind::Wagon: return q != Quarter::Market;
    case FigureKind::Barn: return false;
  }
  return false;
}

// The points of one scoring as a sum of terms. A RecordingTally also writes each term to the
// scoring's record (State::apply with scorings), so that the record's parts are the terms that
// make the points; search's Tally has no record (a constant null), and every write compiles away.
struct Tally {
  static constexpr ScoringRecord* record = nullptr;
  int points = 0;

  void add(ScoringPart::Kind, int count, int each) { points += count * each; }
};
struct RecordingTally {
  ScoringRecord* record;
  int points = 0;

  void add(ScoringPart::Kind kind, int count, int each) {
    points += count * each;
    if (count && each) record->parts.push_back(ScoringPart{kind, count, each});
  }
};

}  // namespace carc::internal

namespace carc {

template <class Score>
void State::tallied(ScoringKind kind, uint16_t root, bool final, Score&& score) {
  if (scorings_) [[unlikely]] {
    internal::RecordingTally tally{write_record(kind, root, final)};
    score(tally);
  } else {
    internal::Tally tally;
    score(tally);
  }
}

template <class Tally>
void State::add_points(int player, const Tally& tally, Cause cause) {
  scores_[player] = int16_t(scores_[player] + tally.points);
  breakdown_[player][int(cause)] = int16_t(breakdown_[player][int(cause)] + tally.points);
  if (tally.record) tally.record->awards.push_back(ScoringAward{player, tally.points, cause});
}

template <class Tally>
void State::award(const std::array<int, kMaxPlayers>& strength, const Tally& tally, Cause cause, uint8_t mayors,
                  Cause mayor_cause) {
  if (tally.record) tally.record->strength = strength;
  int best = *std::max_element(strength.begin(), strength.end());
  if (best <= 0 || tally.points <= 0) return;
  for (int p = 0; p < rules_.players; ++p)
    if (strength[p] == best) add_points(p, tally, (mayors >> p & 1) ? mayor_cause : cause);
}

}  // namespace carc

namespace carc::internal {

// Scoring order within one phase 3 (RULES 5.4b): cities, roads, cloister-like (fields last).
inline int scoring_rank(FeatureType t) { return t == FeatureType::City ? 0 : t == FeatureType::Road ? 1 : 2; }

inline std::string cell_text(Cell c) { return std::to_string(c.x) + "," + std::to_string(c.y); }

inline bool has_expansion(const Config& config, const std::string& name) {
  return std::find(config.expansions.begin(), config.expansions.end(), name) != config.expansions.end();
}

// Returns true if the tile set is in play under this config ("count-city" is expansion "city").
inline bool enabled_set(const Config& config, const std::string& set) {
  return set == "base" || has_expansion(config, set == "count-city" ? std::string("city") : set);
}

inline bool has_mark(const TileKind& kind, const char* mark) {
  return std::find(kind.marks.begin(), kind.marks.end(), mark) != kind.marks.end();
}

inline bool is_abbey(const TileKind& kind) {
  return kind.cloister_segment >= 0 && kind.rotations[0].segments[kind.cloister_segment].type == FeatureType::Abbey;
}

// Returns true for the tiles that go into the bag: land tiles of enabled sets, not the start.
inline bool bag_tile(const Config& config, const TileKind& kind) {
  return enabled_set(config, kind.set) && !is_abbey(kind) && !kind.city_square && !kind.river_sides;
}

// The two field halves at each tile corner (0 NE, 1 SE, 2 SW, 3 NW), and where the corner is.
constexpr int kCornerPoints[4][2] = {{2, 3}, {5, 6}, {8, 9}, {11, 0}};
constexpr int kCornerDx[4] = {1, 1, -1, -1};
constexpr int kCornerDy[4] = {-1, 1, 1, -1};

}  // namespace carc::internal
