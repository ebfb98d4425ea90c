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

#include "engine/catalogue.h"
#include "engine/config.h"
#include "engine/errors.h"
#include "engine/game.h"
#include "engine/types.h"
#include "search/agents.h"
#include "register.h"

namespace py = pybind11;

namespace carc::py_bindings {

Action to_action(int64_t code) {
  if (code < 0 || code > int64_t(UINT32_MAX))
    throw IllegalActionError("action code " + std::to_string(code) + " is out of range (0 to 2**32 - 1)");
  return Action{uint32_t(code)};
}

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
          out.append(py::dict(py::arg("name") = e.name, py::arg("rules") = e.rules, py::arg("supported") = e.supported));
        return out;
      },
      "Every expansion the rules know: [{name, rules, supported}].");
  m.def(
      "known_variants",
      [] {
        py::list out;
        for (const VariantInfo& v : known_variants())
          out.append(py::dict(py::arg("name") = v.name, py::arg("values") = v.values, py::arg("supported") = v.supported,
                              py::arg("expansion") = v.expansion ? py::object(py::str(v.expansion)) : py::none()));
        return out;
      },
      "Every rules variant: [{name, values (the first is the default), supported, expansion (whose\n"
      "rules it changes; None: every game)}].");
  m.def(
      "tile_kinds",
      [] {
        py::list out;
        for (const TileKind& k : Catalogue::builtin().kinds())
          out.append(py::make_tuple(k.name, k.set, k.count));
        return out;
      },
      "Every tile kind of the catalogue as (name, set, count), in catalogue (action code) order.");

  py_bindings::register_state(m);
  py_bindings::register_play(m);
  py_bindings::register_search(m);
}
