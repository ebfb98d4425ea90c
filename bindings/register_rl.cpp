// For learners: observation tensors and the dense action space (engine/observation.h) into numpy
// arrays that numpy allocates and C++ fills (no copies), batches with the GIL released, and
// State pickling (its bytes, checked field by field when read).
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalogue.h"
#include "engine/game.h"
#include "engine/observation.h"
#include "register.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

namespace {

// States are copied in chunks while the GIL is held, then encoded with it released: another
// Python thread may change a State while we work. A small chunk keeps the copies in cache
// (fresh pages cost more than the GIL's release and re-acquisition per chunk).
constexpr size_t kChunk = 16;

std::vector<const State*> state_pointers(const py::sequence& states) {
  std::vector<const State*> out;
  out.reserve(states.size());
  for (py::handle h : states) out.push_back(&h.cast<const State&>());
  return out;
}

// Calls work(copy of state i, i) for every state, chunk by chunk with the GIL released.
template <class Work>
void for_each_copy(const std::vector<const State*>& states, Work&& work) {
  std::vector<State> chunk;
  chunk.reserve(std::min(kChunk, states.size()));
  for (size_t start = 0; start < states.size(); start += kChunk) {
    const size_t end = std::min(states.size(), start + kChunk);
    chunk.clear();
    for (size_t i = start; i < end; ++i) chunk.push_back(*states[i]);
    py::gil_scoped_release release;
    for (size_t i = start; i < end; ++i) work(chunk[i - start], i);
  }
}

// The seat whose observation is wanted when none is named: the player to decide, or at a draw
// or the end the turn player.
int default_observer(const State& s) { return s.current_player() >= 0 ? s.current_player() : s.turn_player(); }

py::tuple window_tuple(const Window& w) { return py::make_tuple(w.x0, w.y0, w.size); }

// ---- State bytes ----------------------------------------------------------------------------

// A State pickles as its bytes (State::to_bytes); from_bytes checks every field and throws
// RecordError (carcassonne.RecordError) for bytes of another build or damaged ones.
py::bytes state_bytes(const State& s) { return py::bytes(s.to_bytes()); }

State state_from_bytes(const py::bytes& data) { return State::from_bytes(std::string_view(data)); }

}  // namespace

void register_rl(py::module_& m) {
  m.attr("OBSERVATION_VERSION") = kObservationVersion;
  m.attr("DEFAULT_WINDOW") = kDefaultWindow;
  m.def(
      "observation_window", [](const State& s, int size) { return window_tuple(observation_window(s, size)); },
      "state"_a, "size"_a = kDefaultWindow,
      "(x0, y0, size): the window of board cells the observation and the action space use at this\n"
      "node, centred on the placed tiles (engine/observation.h).");

  py::class_<ObservationEncoder>(m, "ObservationEncoder",
                                 "Observation tensors for one player count and window side (docs/observation.md).")
      .def(py::init<int, int>(), "players"_a, "window"_a = kDefaultWindow)
      .def_property_readonly("players", &ObservationEncoder::players)
      .def_property_readonly("window", &ObservationEncoder::window)
      .def_property_readonly("num_planes", &ObservationEncoder::num_planes)
      .def_property_readonly("num_globals", &ObservationEncoder::num_globals)
      .def_property_readonly("plane_names", &ObservationEncoder::plane_names)
      .def_property_readonly("global_names", &ObservationEncoder::global_names)
      .def(
          "encode",
          [](const ObservationEncoder& e, const State& s, std::optional<int> observer) {
            py::array_t<uint8_t> planes({e.num_planes(), e.window(), e.window()});
            py::array_t<float> globals(e.num_globals());
            e.encode(s, observer.value_or(default_observer(s)), planes.mutable_data(), globals.mutable_data());
            return py::make_tuple(planes, globals);
          },
          "state"_a, "observer"_a = py::none(),
          "(planes uint8 [planes, window, window], globals float32 [globals]) of one state from\n"
          "observer's seat (default: the player to decide, else the turn player).")
      .def(
          "encode_into",
          [](const ObservationEncoder& e, const State& s, std::optional<int> observer,
             py::array_t<uint8_t, py::array::c_style> planes, py::array_t<float, py::array::c_style> globals) {
            if (planes.size() != e.plane_bytes() || globals.size() != e.num_globals())
              throw py::value_error("encode_into needs " + std::to_string(e.plane_bytes()) + " plane bytes and " +
                                    std::to_string(e.num_globals()) + " globals");
            e.encode(s, observer.value_or(default_observer(s)), planes.mutable_data(), globals.mutable_data());
          },
          "state"_a, "observer"_a, "planes"_a.noconvert(), "globals"_a.noconvert(),
          "encode() into existing C-contiguous arrays (uint8 planes, float32 globals) of the right sizes\n"
          "(any shape).")
      .def(
          "encode_batch",
          [](const ObservationEncoder& e, const py::sequence& states, std::optional<std::vector<int>> observers,
             std::optional<py::array_t<uint8_t, py::array::c_style>> planes_out,
             std::optional<py::array_t<float, py::array::c_style>> globals_out) {
            std::vector<const State*> ptrs = state_pointers(states);
            const py::ssize_t n = py::ssize_t(ptrs.size());
            if (observers && observers->size() != ptrs.size())
              throw py::value_error("observers must have one seat per state");
            for (size_t i = 0; i < ptrs.size(); ++i) {  // checked here: errors must not cross the released GIL
              const int seat = observers ? (*observers)[i] : default_observer(*ptrs[i]);
              if (ptrs[i]->num_players() != e.players() || seat < 0 || seat >= e.players())
                throw py::value_error("state " + std::to_string(i) + ": not a " + std::to_string(e.players()) +
                                      "-player game, or observer " + std::to_string(seat) + " is not a player");
            }
            // Fresh arrays cost page faults (most of the time on a busy machine); `out` reuses them.
            if (planes_out.has_value() != globals_out.has_value())
              throw py::value_error("give both planes_out and globals_out, or neither");
            using Planes = py::array_t<uint8_t, py::array::c_style>;
            using Globals = py::array_t<float, py::array::c_style>;
            const py::ssize_t side = e.window();
            Planes planes = planes_out ? *planes_out : Planes({n, py::ssize_t(e.num_planes()), side, side});
            Globals globals = globals_out ? *globals_out : Globals({n, py::ssize_t(e.num_globals())});
            if (planes.size() != n * e.plane_bytes() || globals.size() != n * e.num_globals())
              throw py::value_error("planes_out and globals_out must hold " + std::to_string(n) + " observations");
            uint8_t* plane_out = planes.mutable_data();
            float* global_out = globals.mutable_data();
            for_each_copy(ptrs, [&](const State& s, size_t i) {
              const int seat = observers ? (*observers)[i] : default_observer(s);
              e.encode(s, seat, plane_out + i * size_t(e.plane_bytes()), global_out + i * size_t(e.num_globals()));
            });
            return py::make_tuple(planes, globals);
          },
          "states"_a, "observers"_a = py::none(), "planes_out"_a.noconvert() = py::none(),
          "globals_out"_a.noconvert() = py::none(),
          "encode() of many states in one call, with the GIL released: (planes [n, planes, window,\n"
          "window], globals [n, globals]), arrays numpy allocates and C++ fills, or the C-contiguous\n"
          "uint8 / float32 arrays given (reused buffers skip the page faults of fresh memory).");

  m.attr("MAX_FRONTIER") = kMaxFrontier;
  m.attr("MAX_TILES") = kMaxTiles;
  m.attr("NO_CELL") = kNoCell;
  py::class_<ActionSpace>(m, "ActionSpace",
                          "The dense action space of a layout: 'window' (a window side's cells) or 'frontier' (the\n"
                          "frontier cells and the placed tiles; every legal action indexed). engine/observation.h.")
      .def(py::init([](int window, const std::string& layout) { return ActionSpace(parse_layout(layout), window); }),
           "window"_a = kDefaultWindow, "layout"_a = "window")
      .def_property_readonly("layout", [](const ActionSpace& a) { return layout_name(a.layout()); })
      .def_property_readonly("window", &ActionSpace::window, "The window layout's side; 0 in the frontier layout.")
      .def_property_readonly("size", &ActionSpace::size)
      .def_property_readonly(
          "blocks",
          [](const ActionSpace& a) {
            py::list out;
            for (const ActionSpace::Block& b : a.blocks()) out.append(py::make_tuple(b.name, b.start, b.size));
            return out;
          },
          "[(name, first index, size)] of the index blocks, in order.")
      .def(
          "index",
          [](const ActionSpace& a, const State& s, int64_t code) { return a.index(s, a.frame(s), to_action(code)); },
          "state"_a, "code"_a,
          "The dense index of an action code at this node, -1 if its cell has none (outside the window; not a\n"
          "frontier cell or a placed tile).")
      .def(
          "action",
          [](const ActionSpace& a, const State& s, int index) {
            try {
              return a.action(s, a.frame(s), index).code;
            } catch (const std::out_of_range& e) {
              throw IllegalActionError(e.what());
            }
          },
          "state"_a, "index"_a,
          "The action code of a dense index at this node (it may not be legal); IllegalActionError for an\n"
          "index outside the space or naming a frontier cell or tile the board does not have.")
      .def(
          "legal_mask",
          [](const ActionSpace& a, const State& s) {
            py::array_t<int8_t> mask(a.size());
            const int outside = a.legal_mask(s, a.frame(s), reinterpret_cast<uint8_t*>(mask.mutable_data()));
            return py::make_tuple(mask, outside);
          },
          "state"_a,
          "(mask int8 [size], outside): 1 at the legal actions' indexes, and how many legal actions have no\n"
          "index (not in the mask; always 0 in the frontier layout, rare outside the window).")
      .def(
          "legal_indices",
          [](const ActionSpace& a, const State& s) {
            std::vector<int> indices;
            const int outside = a.legal_indices(s, a.frame(s), indices);
            return py::make_tuple(indices, outside);
          },
          "state"_a, "(indexes of the legal actions ascending, outside): legal_mask() as a list.")
      .def(
          "legal_masks",
          [](const ActionSpace& a, const py::sequence& states) {
            std::vector<const State*> ptrs = state_pointers(states);
            py::array_t<int8_t> masks({py::ssize_t(ptrs.size()), py::ssize_t(a.size())});
            py::array_t<int32_t> outside(py::ssize_t(ptrs.size()));
            auto* mask_out = reinterpret_cast<uint8_t*>(masks.mutable_data());
            int32_t* outside_out = outside.mutable_data();
            ActionFrame frame;
            for_each_copy(ptrs, [&](const State& s, size_t i) {
              a.frame(s, frame);
              outside_out[i] = a.legal_mask(s, frame, mask_out + i * size_t(a.size()));
            });
            return py::make_tuple(masks, outside);
          },
          "states"_a,
          "legal_mask() of many states in one call, with the GIL released: (masks int8 [n, size], outside [n]).")
      .def(
          "cells",
          [](const ActionSpace& a, const State& s, int window) {
            py::array_t<int16_t> frontier({py::ssize_t(kMaxFrontier), py::ssize_t(2)});
            py::array_t<int16_t> tiles({py::ssize_t(kMaxTiles), py::ssize_t(2)});
            ActionSpace::write_action_cells(s, a.frame(s), observation_window(s, window), frontier.mutable_data(),
                                            tiles.mutable_data());
            return py::make_tuple(frontier, tiles);
          },
          "state"_a, "window"_a = kDefaultWindow,
          "(frontier int16 [MAX_FRONTIER, 2], tiles int16 [MAX_TILES, 2]): the frontier layout's cells as\n"
          "(row, column) in the observation window of this side: frontier cell c of the place and abbey\n"
          "blocks, and tile t (by slot) of the figure_at and arrow blocks; NO_CELL past the board's counts.");

  // Pickling: State's bytes behind a guard (format, size, tile catalogue).
  auto state = py::reinterpret_borrow<py::class_<State>>(m.attr("State"));
  state.def("to_bytes", &state_bytes,
            "The state as bytes (a header and its memory): fast, exact, for this build only.");
  state.def_static("from_bytes", &state_from_bytes, "data"_a,
                   "A state from to_bytes(), every field checked; RecordError for bytes of another build, not a\n"
                   "State, or damaged.");
  state.def(py::pickle(&state_bytes, &state_from_bytes));
}

}  // namespace carc::py_bindings
