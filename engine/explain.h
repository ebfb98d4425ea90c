// What a scoring counted: State::apply(action, &scorings) writes one record per scoring the
// action made (phase 3, a barn's field, a market meeple, an arrow, the final scoring). The
// records are written by the code that computes the points, as it computes them: a record's
// parts are the terms that code adds up, its awards the points it books. Search never asks, so
// it pays nothing: State stays as it was and nothing is written without a list to write to.
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "action.h"
#include "types.h"

namespace carc {

// What scored.
enum class ScoringKind : uint8_t {
  Feature,    // a road, city, cloister-like feature or field (B-7, B-8, B-9, AM-B-6, SH-3)
  BarnField,  // a field's farmers scored during the game because of a barn (AM-B-3, AM-B-5, CK-6)
  King,       // KR-2
  Robber,     // KR-2
  Arrow,      // XX-2
};
const char* scoring_kind_name(ScoringKind k);

// One term of a scoring's points: `count` things worth `each` point(s).
struct ScoringPart {
  enum class Kind : uint8_t {
    Tiles,              // a road's or city's distinct tiles (B-7, B-8)
    Pennants,           // a city's pennants
    Cells,              // a cloister-like feature's tile and the tiles around it (B-7, B-8, SH-3)
    Cities,             // completed cities a field touches (B-9, AM-B-3/5/6); the King's (KR-2)
    CityOfCarcassonne,  // the City as a completed city (CK-1, KR-2)
    PigHerd,            // +1 per city for the farmers (RV-4)
    Roads,              // completed roads (KR-2)
    Arrow,              // an arrow pointing at an empty cell (XX-2)
  };
  Kind kind = Kind::Tiles;
  int count = 0;
  int each = 0;

  int points() const { return count * each; }
};
const char* scoring_part_name(ScoringPart::Kind k);

// A figure on the scored feature (a barn on a scored field included).
struct ScoredFigure {
  int player = 0;
  FigureKind kind = FigureKind::Meeple;
  uint16_t segment = 0;
  Cell cell;
  int feature = 0;  // its segment's index on the tile (catalogue order)
};

// Points one player got from the scoring, and their cause (B-11).
struct ScoringAward {
  int player = 0;
  int points = 0;
  Cause cause = Cause::City;
};

struct ScoringRecord {
  ScoringKind kind = ScoringKind::Feature;
  FeatureType type = FeatureType::Road;  // of the feature (Feature, BarnField)
  bool final = false;                    // part of the final scoring (B-8, B-9, KR-2)
  uint16_t feature = 0xFFFF;             // its root segment (Feature, BarnField)
  std::vector<uint16_t> segments;        // every segment of the feature
  std::vector<Cell> cells;               // the cells of its tiles, each once
  std::vector<ScoredFigure> figures;
  std::array<int, kMaxPlayers> strength{};  // per player: meeples, wagons, mayors (AM-M-2)
  int pennants = 0;
  bool pig_herd = false;
  // A field's completed cities (their root segments), the King's completed cities, the
  // Robber's completed roads; and whether the City of Carcassonne counts as one (CK-1, KR-2).
  std::vector<uint16_t> counted;
  bool city_of_carcassonne = false;
  std::vector<ScoringPart> parts;    // the points are their sum
  std::vector<ScoringAward> awards;  // who got them (a barn's owner once per barn, AM-B-6)

  int points() const {
    int sum = 0;
    for (const ScoringPart& p : parts) sum += p.points();
    return sum;
  }
};

}  // namespace carc
