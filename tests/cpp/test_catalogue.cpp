// The tile catalogue: counts per set, sides agree with features, rotations.
#include <gtest/gtest.h>

#include <map>

#include "engine/catalogue.h"

namespace carc {

extern const char* const kBuiltinCatalogueText;

namespace {

int set_total(const Catalogue& cat, const std::string& set) {
  int n = 0;
  for (KindId k : cat.set_kinds(set)) n += cat.kind(k).count;
  return n;
}

TEST(Catalogue, CountsPerSetMatchTilesJson) {
  const Catalogue& cat = Catalogue::builtin();
  EXPECT_EQ(set_total(cat, "base"), 72);         // B-1: 72 tiles with the start tile
  EXPECT_EQ(set_total(cat, "abbey-mayor"), 18);  // 12 land tiles + 6 abbeys
  EXPECT_EQ(set_total(cat, "river2"), 12);
  EXPECT_EQ(set_total(cat, "shrines"), 5);
  EXPECT_EQ(set_total(cat, "king-robber"), 5);
  EXPECT_EQ(set_total(cat, "count-city"), 12);
  EXPECT_EQ(set_total(cat, "anniv20"), 15);
  int starts = 0;
  for (const TileKind& k : cat.kinds()) starts += k.is_start;
  EXPECT_EQ(starts, 1);
}

TEST(Catalogue, SidesAgreeWithFeaturesInEveryRotation) {
  for (const TileKind& kind : Catalogue::builtin().kinds()) {
    for (int r = 0; r < 4; ++r) {
      const RotatedTile& t = kind.rotations[r];
      for (int s = 0; s < kNumSides; ++s) {
        int mid = t.segment_at[side_point(Side(s), 1)];
        switch (t.edges[s]) {
          case Edge::City:
            ASSERT_GE(mid, 0) << kind.name;
            EXPECT_EQ(t.segments[mid].type, FeatureType::City) << kind.name;
            break;
          case Edge::Road:
            ASSERT_GE(mid, 0) << kind.name;
            EXPECT_EQ(t.segments[mid].type, FeatureType::Road) << kind.name;
            break;
          case Edge::River:
            ASSERT_GE(mid, 0) << kind.name;
            EXPECT_EQ(t.segments[mid].type, FeatureType::River) << kind.name;
            break;
          default: EXPECT_EQ(mid, -1) << kind.name << " side " << s;
        }
        if (t.edges[s] == Edge::Field) {
          for (int k : {0, 2}) {
            int half = t.segment_at[side_point(Side(s), k)];
            ASSERT_GE(half, 0) << kind.name;
            EXPECT_EQ(t.segments[half].type, FeatureType::Field) << kind.name;
          }
        }
      }
    }
  }
}

TEST(Catalogue, RotationTurnsSidesClockwise) {
  const Catalogue& cat = Catalogue::builtin();
  const TileKind& d = cat.kind(cat.find("base.D"));  // city N, road W-E, fields
  EXPECT_EQ(d.rotations[0].edges[North], Edge::City);
  EXPECT_EQ(d.rotations[1].edges[East], Edge::City);
  EXPECT_EQ(d.rotations[2].edges[South], Edge::City);
  EXPECT_EQ(d.rotations[3].edges[West], Edge::City);
  EXPECT_EQ(d.rotations[1].edges[North], Edge::Road);
  // The field north of the road (E1, W2) turns to S1, N2 after one quarter turn.
  const SegmentSpec& field = d.rotations[1].segments[2];
  EXPECT_EQ(field.points, (1u << side_point(South, 0)) | (1u << side_point(North, 2)));
  EXPECT_EQ(field.cities, 1u);
}

TEST(Catalogue, SymmetricTilesHaveFewerDistinctRotations) {
  const Catalogue& cat = Catalogue::builtin();
  EXPECT_EQ(cat.kind(cat.find("base.C")).num_distinct_rotations, 1);  // CCCC
  EXPECT_EQ(cat.kind(cat.find("base.B")).num_distinct_rotations, 1);  // monastery in fields
  EXPECT_EQ(cat.kind(cat.find("base.U")).num_distinct_rotations, 2);  // straight road
  EXPECT_EQ(cat.kind(cat.find("base.X")).num_distinct_rotations, 1);  // crossroads
  EXPECT_EQ(cat.kind(cat.find("base.D")).num_distinct_rotations, 4);
  EXPECT_EQ(cat.kind(cat.find("base.H")).num_distinct_rotations, 2);
  // An arrow breaks the symmetry of its landscape.
  EXPECT_EQ(cat.kind(cat.find("anniv20.M")).num_distinct_rotations, 4);
}

TEST(Catalogue, PrecomputedSignaturesAndDemandsFollowTheEdges) {
  const Catalogue& cat = Catalogue::builtin();
  for (const TileKind& k : cat.kinds()) {
    for (int i = 0; i < k.num_distinct_rotations; ++i)
      EXPECT_EQ(k.distinct_signatures[i], k.rotations[k.distinct_rotations[i]].signature) << k.name;
    for (int r = 0; r < 4; ++r) {
      for (int s = 0; s < kNumSides; ++s) {
        // The cell beyond side s must show this edge on its facing side; an abbey demands nothing.
        const Edge edge = k.rotations[r].edges[s];
        const int shift = 4 * opposite(Side(s));
        const bool demands = edge != Edge::Abbey;
        EXPECT_EQ(k.rotations[r].side_need[s], demands ? int(edge) << shift : 0) << k.name << " r" << r << " s" << s;
        EXPECT_EQ(k.rotations[r].side_care[s], demands ? 0xF << shift : 0) << k.name << " r" << r << " s" << s;
      }
    }
  }
  // The abbey's sides demand nothing of their neighbours.
  const TileKind& abbey = cat.kind(cat.find("abbey-mayor.A"));
  EXPECT_EQ(abbey.rotations[0].side_care, (std::array<uint16_t, kNumSides>{}));
}

TEST(Catalogue, FieldsKnowTheirCities) {
  const Catalogue& cat = Catalogue::builtin();
  const TileKind& h = cat.kind(cat.find("base.H"));  // two cities, one field between
  EXPECT_EQ(h.rotations[0].segments[2].cities, 0b11);
  const TileKind& s = cat.kind(cat.find("base.S"));
  EXPECT_EQ(s.rotations[0].segments[1].road_end, RoadEnd::City);
}

TEST(Catalogue, MalformedTextIsRejectedWithTheLine) {
  EXPECT_THROW(Catalogue::parse("set x\nx.A 1 CRFR city:N\n"), std::invalid_argument);           // sides disagree
  EXPECT_THROW(Catalogue::parse("x.A 1 FFFF field:N1N2E1E2S1S2W1W2\n"), std::invalid_argument);  // no set
  EXPECT_THROW(Catalogue::parse("set x\nx.A 1 FFFF blob\n"), std::invalid_argument);
  try {
    Catalogue::parse("set x\n\nx.A 1 QQQQ -\n");
    FAIL();
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("line 3"), std::string::npos) << e.what();
  }
  Catalogue ok = Catalogue::parse("set x\nx.A 2 FFFF field:N1N2E1E2S1S2W1W2 monastery\n");
  EXPECT_EQ(ok.size(), 1);
  EXPECT_EQ(ok.kind(0).cloister_segment, 1);
}

// A designer's tile file (catalogue.h): one new tile and one changed count.
constexpr const char* kTileFile =
    "# a city cap with a cloister\n"
    "custom.Z 3 CFFF city:N field:E1E2S1S2W1W2>0 monastery\n"
    "count base.D 5\n";

TEST(TileFile, AddsItsTilesAsSetCustomAndCountsApartFromTheBuiltInCount) {
  Catalogue cat = Catalogue::parse(kBuiltinCatalogueText);
  const int builtin_kinds = cat.size();
  cat.add_tile_file(kTileFile, "my_tiles.txt");
  ASSERT_EQ(cat.size(), builtin_kinds + 1);
  EXPECT_EQ(cat.sets().back(), kCustomSet);
  const TileKind& z = cat.kind(cat.find("custom.Z"));
  EXPECT_EQ(z.set, kCustomSet);
  EXPECT_EQ(z.copies(true), 3);
  EXPECT_EQ(z.cloister_segment, 2);
  const TileKind& d = cat.kind(cat.find("base.D"));
  EXPECT_EQ(d.copies(false), 3);  // the base game keeps its count
  EXPECT_EQ(d.copies(true), 5);
  EXPECT_EQ(cat.kind(cat.find("base.E")).copies(true), 4);
}

TEST(TileFile, MalformedFilesAreRefusedWithTheLineAndTheReasonAndChangeNothing) {
  std::string too_many;
  for (int i = 0; i < kMaxKinds; ++i) too_many += "custom.T" + std::to_string(i) + " 1 FFFF field:N1N2E1E2S1S2W1W2\n";
  const std::pair<std::string, std::string> cases[] = {
      {"custom.Z 1 CFFF castle:N field:E1E2S1S2W1W2\n", "f.txt line 1: unknown feature 'castle:N'"},
      {"# note\n\ncustom.Z 1 CRFR city:N field:E1E2S1S2W1W2>0\n", "f.txt line 3: side E disagrees with the features"},
      {"count base.ZZ 5\n", "f.txt line 1: count: unknown tile 'base.ZZ'"},
      {"count base.D 3x\n", "f.txt line 1: bad count '3x'"},
      {"count base.D 2\ncount base.D 4\n", "f.txt line 2: count: base.D is counted twice"},
      {"count base.D-start 2\n", "f.txt line 1: count: base.D-start is not a land tile of the bag"},
      {"set mine\n", "f.txt line 1: a tile file has no 'set' lines"},
      {"Z 1 FFFF field:N1N2E1E2S1S2W1W2\n", "f.txt line 1: a tile of a tile file is named custom.<name>"},
      {"custom.Z 1 FFFF field:N1N2E1E2S1S2W1W2 | start\n", "f.txt line 1: a tile file's tile cannot be the start"},
      {"custom.Z 1 WFFF river:N field:N1E1E2S1S2W1W2N2\n", "f.txt line 1: a tile file's tile has no river"},
      {"custom.Z 1 AFFF field:E1E2S1S2W1W2\n", "f.txt line 1: a tile file's tile has no abbey (A)"},
      {"custom.Z 1 CFFF city:N field:E1E2S1S2W1W2>x\n", "f.txt line 1: bad city index 'x'"},
      {"custom.Z 1 CFFF city:N+z field:E1E2S1S2W1W2>0\n", "f.txt line 1: bad pennants 'z'"},
      {too_many, "f.txt line " + std::to_string(kMaxKinds - 95 + 1) + ": too many tile kinds"},
      {"# nothing\n", "f.txt: no tiles and no count lines"},
  };
  const Catalogue builtin = Catalogue::parse(kBuiltinCatalogueText);
  ASSERT_EQ(builtin.size(), 95);  // the too_many case's line number counts on it
  for (const auto& [text, message] : cases) {
    Catalogue cat = builtin;
    try {
      cat.add_tile_file(text, "f.txt");
      ADD_FAILURE() << "accepted: " << text;
    } catch (const std::invalid_argument& e) {
      EXPECT_EQ(std::string(e.what()).rfind(message, 0), 0u) << e.what();
    }
    EXPECT_EQ(cat.size(), builtin.size());
    EXPECT_EQ(cat.sets(), builtin.sets());
    EXPECT_EQ(cat.kind(cat.find("base.D")).custom_count, -1);
  }
}

}  // namespace
}  // namespace carc
