// carcassonne._core: the engine for Python. The friendly API (Game, Action, records) is written
// in Python on top of this module (bindings/carcassonne/game.py); everything here maps one to one
// onto the C++ names (STYLE lesson 9).
//
// Errors are mapped once, here: carc::Error and its subclasses (SearchError from search/ too)
// become carcassonne.Error (a ValueError) and its subclasses; std::invalid_argument stays
// ValueError (pybind11's default).
// Nothing reachable from Python may crash the process: arguments the engine trusts (player
// indexes, the node kind for sample_chance) are checked in the bindings before the call.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <string>

#include "engine/catalogue.h"
#include "engine/config.h"
#include "engine/errors.h"
#include "engine/game.h"
#include "engine/types.h"
#include "register.h"
#include "search/agents.h"

namespace py = pybind11;

namespace carc::py_bindings {

Action to_action(int64_t code) {
  if (code < 0 || code > int64_t(UINT32_MAX))
    throw IllegalActionError("action code " + std::to_string(code) + " is out of range (0 to 2**32 - 1)");
  return Action{uint32_t(code)};
}

namespace {

const char* road_end_name(RoadEnd end) {
  switch (end) {
    case RoadEnd::Through: return "through";
    case RoadEnd::Junction: return "junction";
    case RoadEnd::Cloister: return "cloister";
    case RoadEnd::City: return "city";
    case RoadEnd::House: return "house";
    case RoadEnd::Carcassonne: return "carcassonne";
  }
  return "through";
}

const char* arrow_kind_name(ArrowKind kind) {
  switch (kind) {
    case ArrowKind::None: return "none";
    case ArrowKind::MeepleBeside: return "meeple-beside";
    case ArrowKind::PlaceAnywhere: return "place-anywhere";
    case ArrowKind::ExtraTurn: return "extra-turn";
  }
  return "none";
}

// One tile kind as printed (catalogue orientation): what renderers and encoders need.
py::dict tile_geometry(const TileKind& k) {
  static constexpr char kEdgeLetters[] = "-FRCWAX";  // Edge values 0 .. 6 (engine/types.h)
  static constexpr char kSideLetters[] = "NESW";
  const RotatedTile& tile = k.rotations[0];
  std::string edges;
  for (Edge e : tile.edges) edges += kEdgeLetters[int(e)];
  py::list features;
  for (int i = 0; i < k.num_segments; ++i) {
    const SegmentSpec& seg = tile.segments[size_t(i)];
    py::list points, sides, cities;
    for (int p = 0; p < kNumPoints; ++p)
      if (seg.points >> p & 1) points.append(p);
    // A road, city or river reaches a side through its middle point; a field only by halves.
    for (int s = 0; s < kNumSides; ++s)
      if (seg.type != FeatureType::Field && (seg.points >> side_point(Side(s), 1) & 1))
        sides.append(std::string(1, kSideLetters[s]));
    for (int c = 0; c < kMaxSegmentsPerTile; ++c)
      if (seg.cities >> c & 1) cities.append(c);
    // The city feature a road ends at (its gate), for a road ending at a city.
    py::object gate = seg.road_end == RoadEnd::City ? py::object(py::int_(int(seg.road_end_city))) : py::none();
    features.append(py::dict(py::arg("type") = feature_type_name(seg.type), py::arg("points") = points,
                             py::arg("sides") = sides, py::arg("pennants") = int(seg.pennants),
                             py::arg("cities") = cities, py::arg("road_end") = road_end_name(seg.road_end),
                             py::arg("road_end_city") = gate));
  }
  py::object arrow = py::none();
  if (k.arrow != ArrowKind::None)
    arrow = py::dict(py::arg("kind") = arrow_kind_name(k.arrow),
                     py::arg("side") = std::string(1, kSideLetters[tile.arrow_points]));
  py::object custom_count = k.custom_count >= 0 ? py::object(py::int_(k.custom_count)) : py::none();
  return py::dict(py::arg("name") = k.name, py::arg("set") = k.set, py::arg("count") = k.count,
                  py::arg("custom_count") = custom_count, py::arg("edges") = edges, py::arg("start") = k.is_start,
                  py::arg("city_square") = k.city_square, py::arg("marks") = k.marks, py::arg("arrow") = arrow,
                  py::arg("features") = features);
}

}  // namespace
}  // namespace carc::py_bindings

PYBIND11_MODULE(_core, m) {
  using namespace carc;
  m.doc() = "Carcassonne rules engine (C++ core). Use the carcassonne package, not this module.";

  // pybind11 tries translators newest first, so the base class is registered before its
  // subclasses: each C++ error then reaches Python as its own class.
  auto error = py::register_exception<Error>(m, "Error", PyExc_ValueError);
  py::register_exception<ConfigError>(m, "ConfigError", error.ptr());
  py::register_exception<IllegalActionError>(m, "IllegalActionError", error.ptr());
  py::register_exception<PositionError>(m, "PositionError", error.ptr());
  py::register_exception<RecordError>(m, "RecordError", error.ptr());
  py::register_exception<SearchError>(m, "SearchError", error.ptr());

  m.attr("CHANCE_PLAYER") = kChancePlayer;
  m.attr("TERMINAL_PLAYER") = kTerminalPlayer;
  m.attr("MAX_PLAYERS") = kMaxPlayers;
  m.attr("MEEPLES_PER_PLAYER") = kMeeplesPerPlayer;
  py::tuple causes(kNumCauses);
  for (int c = 0; c < kNumCauses; ++c) causes[size_t(c)] = py::str(cause_name(Cause(c)));
  m.attr("CAUSES") = causes;

  m.def(
      "known_expansions",
      [] {
        py::list out;
        for (const ExpansionInfo& e : known_expansions())
          out.append(
              py::dict(py::arg("name") = e.name, py::arg("rules") = e.rules, py::arg("supported") = e.supported));
        return out;
      },
      "Every expansion the rules know: [{name, rules, supported}].");
  m.def(
      "known_variants",
      [] {
        py::list out;
        for (const VariantInfo& v : known_variants())
          out.append(py::dict(py::arg("name") = v.name, py::arg("values") = v.values,
                              py::arg("supported") = v.supported,
                              py::arg("expansion") = v.expansion ? py::object(py::str(v.expansion)) : py::none()));
        return out;
      },
      "Every rules variant: [{name, values (the first is the default), supported, expansion (whose\n"
      "rules it changes; None: every game)}].");
  m.def(
      "tile_kinds",
      [](bool geometry) {
        py::list out;
        for (const TileKind& k : Catalogue::builtin().kinds())
          out.append(geometry ? py_bindings::tile_geometry(k) : py::object(py::make_tuple(k.name, k.set, k.count)));
        return out;
      },
      py::arg("geometry") = false,
      "Every tile kind of the catalogue as (name, set, count), in catalogue (action code) order.\n"
      "With geometry=True, one dict per kind instead: name, set, count, custom_count (the count with\n"
      "expansion custom, from the tile file's count line, or None), edges (\"CRFR\", N E S W),\n"
      "start, city_square, marks, arrow ({kind, side} or None) and features, in feature-index\n"
      "order: {type, points (the 12 connection points it reaches, engine/types.h), sides,\n"
      "pennants, cities (field: indexes of the city features it touches), road_end, road_end_city\n"
      "(the city feature a road ends at, or None)}.");

  m.def(
      "tile_file",
      [] {
        const TileFile& file = Catalogue::builtin().tile_file();
        auto text_or_none = [](const std::string& s) { return s.empty() ? py::object(py::none()) : py::str(s); };
        return py::dict(py::arg("path") = text_or_none(file.path), py::arg("text") = py::bytes(file.text),
                        py::arg("error") = text_or_none(file.error));
      },
      "The tile file named by CARC_TILES as read when the module loaded (expansion custom plays it):\n"
      "{path (None when CARC_TILES is not set), text (its bytes), error (why it was refused,\n"
      "naming the file and the line; None if it was not)}.");

  py_bindings::register_state(m);
  py_bindings::register_play(m);
  py_bindings::register_search(m);
  py_bindings::register_evaluator(m);
  py_bindings::register_rl(m);
  py_bindings::register_network(m);
  py_bindings::register_agents(m);
  py_bindings::register_vector(m);
}
