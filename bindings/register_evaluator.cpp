// Evaluators from Python inside the C++ search: Mcts(config, evaluator=fn, batch_size=16). The
// search (search/batched.h) hands a group of leaves to PythonEvaluator::evaluate_batch on its own
// thread, without the GIL; that takes the GIL once, encodes the leaves into numpy arrays (the
// observations of carcassonne.rl), calls fn(batch) with a LeafBatch, checks what fn returns and
// gives the GIL back. fn's exceptions propagate (py::error_already_set) and are raised again in
// the caller of Mcts.search once the search has stopped.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "engine/game.h"
#include "engine/observation.h"
#include "register.h"
#include "search/batched.h"
#include "search/evaluator.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

namespace {

constexpr float kRangeSlack = 1e-3f;  // values this far outside [0, 1] are rounding, and clamped

std::string shape_text(const std::vector<py::ssize_t>& shape) {
  std::string out = "(";
  for (size_t i = 0; i < shape.size(); ++i) {
    if (i) out += ", ";
    out += std::to_string(shape[i]);
  }
  return out + (shape.size() == 1 ? ",)" : ")");
}

std::string shape_text(const py::array& a) {
  return shape_text(std::vector<py::ssize_t>(a.shape(), a.shape() + a.ndim()));
}

// What fn gets: one batch of leaves, as numpy arrays (copies: fn may keep them).
struct LeafBatch {
  py::array_t<uint8_t> planes;     // [n, planes, window, window]
  py::array_t<float> globals;      // [n, globals]
  py::array_t<int32_t> legal;      // [n, width]: dense action indices, -1 past num_legal or outside the window
  py::array_t<int32_t> num_legal;  // [n]
  py::array_t<int32_t> observers;  // [n]: the seat to move (column 0 of the values)
  py::array_t<bool> wants_priors;  // [n]
  int players = 0;
  int window = 0;
  int num_actions = 0;  // the action space's size
  int n = 0;
  std::vector<const State*> states;  // the search's leaves: valid during the call only (then cleared)
};

// A float array of fn's result, as C-contiguous float32 (SearchError naming `what`, the expected
// shapes and what came, for anything else).
py::array_t<float, py::array::c_style> float_array(py::handle obj, const std::string& what,
                                                   const std::string& expected) {
  py::array a = py::array::ensure(obj);
  if (!a) {
    PyErr_Clear();
    throw SearchError("evaluator: " + what + " must be a float array of shape " + expected + ", got " +
                      std::string(py::str(py::type::handle_of(obj).attr("__name__"))));
  }
  if (a.dtype().kind() != 'f')
    throw SearchError("evaluator: " + what + " must be a float array of shape " + expected + ", got dtype " +
                      std::string(py::str(a.dtype())) + " " + shape_text(a));
  return py::array_t<float, py::array::c_style | py::array::forcecast>::ensure(a);
}

// A callable's name for results: a function's qualified name, or an object's class.
std::string callable_name(const py::object& fn) {
  if (py::hasattr(fn, "__qualname__")) return py::str(fn.attr("__qualname__"));
  return std::string(py::str(py::type::handle_of(fn).attr("__qualname__"))) + " object";
}

class PythonEvaluator final : public BatchEvaluator {
 public:
  PythonEvaluator(py::object fn, int batch_size, int window, const RolloutConfig& config, int searches)
      : BatchEvaluator(batch_size, config),
        fn_(std::move(fn)),
        window_(window),
        space_(window),
        description_("the Python evaluator " + callable_name(fn_) + " (batches of up to " + std::to_string(batch_size) +
                     (searches > 1 ? " leaves from each of " + std::to_string(searches) + " searches" : "") + ")") {
    RolloutConfig fallback = config;  // the priors when fn gives none: the config's, never a network's
    if (fallback.prior == PriorKind::Net) fallback.prior = PriorKind::Greedy;
    if (fallback.heuristic == Heuristic::Net) fallback.heuristic = Heuristic::Greedy;
    rollout_ = std::make_unique<RolloutEvaluator>(fallback);
  }
  ~PythonEvaluator() override {
    py::gil_scoped_acquire gil;  // the last owner may be a thread without the GIL
    fn_.release().dec_ref();
    planes_buffer_.release().dec_ref();
    globals_buffer_.release().dec_ref();
  }

  // Kept from construction: results ask for it after the search, possibly without the GIL.
  std::string describe(const State&) const override { return description_; }

  void check(const State& state) const override {
    ObservationEncoder(state.num_players(), window_);  // throws for a player count it cannot encode
  }

  void evaluate_batch(std::vector<LeafRequest>& leaves) const override {
    if (leaves.empty()) return;
    py::gil_scoped_acquire gil;
    auto batch = encode(leaves);
    // The states are the search's: fn may keep the batch, but not reach them after the call.
    struct Forget {
      LeafBatch& b;
      ~Forget() { b.states.clear(); }
    } forget{*batch};
    py::object result = fn_(batch);
    py::object values = result, priors = py::none();
    if (py::isinstance<py::tuple>(result)) {
      py::tuple pair = result;
      if (pair.size() != 2)
        throw SearchError("evaluator: return values, or a tuple (values, priors); got a tuple of " +
                          std::to_string(pair.size()));
      values = pair[0];
      priors = pair[1];
    }
    read_values(values, leaves, *batch);
    bool any_wanted = std::any_of(leaves.begin(), leaves.end(), [](const LeafRequest& r) { return r.want_priors; });
    if (!any_wanted) return;
    if (priors.is_none()) {
      py::gil_scoped_release release;
      for (LeafRequest& r : leaves) {
        if (!r.want_priors) continue;
        const auto start = std::chrono::steady_clock::now();
        rollout_->priors(*r.state, r.actions, r.num_actions, r.priors);
        if (r.prior_seconds)
          *r.prior_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      }
      return;
    }
    read_priors(priors, leaves, *batch);
  }

 private:
  std::shared_ptr<LeafBatch> encode(const std::vector<LeafRequest>& leaves) const {
    const int players = leaves[0].state->num_players();
    for (const LeafRequest& r : leaves)  // search_many's states: one array shape for the batch
      if (r.state->num_players() != players)
        throw SearchError("evaluator: one batch holds games of " + std::to_string(players) + " and " +
                          std::to_string(r.state->num_players()) + " players");
    if (!encoder_ || encoder_->players() != players) encoder_.emplace(players, window_);
    const py::ssize_t n = py::ssize_t(leaves.size()), side = window_;
    int width = 1;
    for (const LeafRequest& r : leaves) width = std::max(width, r.num_actions);
    auto batch = std::make_shared<LeafBatch>();
    LeafBatch& b = *batch;
    b.n = int(n);
    b.players = players;
    b.window = window_;
    b.num_actions = space_.size();
    b.planes = rows_of(planes_buffer_, {n, py::ssize_t(encoder_->num_planes()), side, side});
    b.globals = rows_of(globals_buffer_, {n, py::ssize_t(encoder_->num_globals())});
    b.legal = py::array_t<int32_t>({n, py::ssize_t(width)});
    b.num_legal = py::array_t<int32_t>(n);
    b.observers = py::array_t<int32_t>(n);
    b.wants_priors = py::array_t<bool>(n);
    int32_t* legal = b.legal.mutable_data();
    std::fill(legal, legal + n * width, -1);
    for (py::ssize_t i = 0; i < n; ++i) {
      const LeafRequest& r = leaves[size_t(i)];
      const State& s = *r.state;
      const int observer = s.current_player();
      encoder_->encode(s, observer, b.planes.mutable_data() + i * encoder_->plane_bytes(),
                       b.globals.mutable_data() + i * encoder_->num_globals());
      const Window w = observation_window(s, window_);
      for (int k = 0; k < r.num_actions; ++k) legal[i * width + k] = space_.index(w, r.actions[k]);
      b.num_legal.mutable_data()[i] = r.num_actions;
      b.observers.mutable_data()[i] = observer;
      b.wants_priors.mutable_data()[i] = r.want_priors;
      b.states.push_back(&s);
    }
    return batch;
  }

  // The first shape[0] rows of `buffer` (rows of shape[1:]) as an array of `shape`. The buffer
  // is reused while nobody else holds it and it has the rows (fresh memory costs a page fault per
  // 4 KB, more than encoding into it); an evaluator that kept the last batch's array, or a bigger
  // batch (search_many's calls vary), gets a new one.
  template <class T>
  py::array_t<T> rows_of(py::array_t<T>& buffer, std::vector<py::ssize_t> shape) const {
    const bool fits = buffer && buffer.ref_count() == 1 && buffer.ndim() == py::ssize_t(shape.size()) &&
                      buffer.shape(0) >= shape[0] && std::equal(shape.begin() + 1, shape.end(), buffer.shape() + 1);
    if (!fits) {
      std::vector<py::ssize_t> full = shape;
      full[0] = std::max<py::ssize_t>(shape[0], batch_size());
      buffer = py::array_t<T>(full);
    }
    return py::array_t<T>(shape, buffer.mutable_data(), buffer);  // a view: it holds the buffer
  }

  // values [n, players] (relative seats: column 0 is the player to move) or [n] (the player to
  // move's; the others share the rest equally), in [0, 1].
  void read_values(py::handle obj, std::vector<LeafRequest>& leaves, const LeafBatch& batch) const {
    const py::ssize_t n = py::ssize_t(leaves.size());
    const int players = batch.players;
    const std::string expected = shape_text({n, players}) + " or " + shape_text({n});
    auto a = float_array(obj, "values", expected);
    const bool per_seat = a.ndim() == 2 && a.shape(0) == n && a.shape(1) == players;
    if (!per_seat && !(a.ndim() == 1 && a.shape(0) == n))
      throw SearchError("evaluator: values must have shape " + expected + " (batch size, players), got " +
                        shape_text(a));
    const float* v = a.data();
    for (py::ssize_t i = 0; i < n; ++i) {
      LeafRequest& r = leaves[size_t(i)];
      const int observer = r.state->current_player();
      for (int seat = 0; seat < players; ++seat) {
        float x = v[i];  // [n]: the mover's value, the others share the rest
        if (per_seat) x = v[i * players + seat];
        else if (seat > 0) x = (1.0f - v[i]) / float(std::max(players - 1, 1));
        if (!std::isfinite(x))
          throw SearchError("evaluator: values row " + std::to_string(i) + " holds " + std::to_string(x) +
                            " (NaN or infinite)");
        if (x < -kRangeSlack || x > 1 + kRangeSlack)
          throw SearchError("evaluator: values must lie in [0, 1] (win shares or rewards); row " + std::to_string(i) +
                            " holds " + std::to_string(x) + " (squash them, e.g. with a sigmoid or a softmax)");
        x = std::clamp(x, 0.0f, 1.0f);
        const size_t p = size_t((observer + seat) % players);
        r.value->reward[p] = x;
        r.value->win[p] = x;
      }
    }
  }

  // priors [n, action space size] (logits over the dense action space) or [n, width] (logits of
  // the actions listed in batch.legal); softmax over each leaf's legal actions.
  void read_priors(py::handle obj, std::vector<LeafRequest>& leaves, const LeafBatch& batch) const {
    const py::ssize_t n = py::ssize_t(leaves.size()), width = batch.legal.shape(1), size = space_.size();
    const std::string expected = shape_text({n, size}) + " (logits over the action space) or " +
                                 shape_text({n, width}) + " (logits of the actions in batch.legal)";
    auto a = float_array(obj, "priors", expected);
    const bool dense = a.ndim() == 2 && a.shape(0) == n && a.shape(1) == size;
    if (!dense && !(a.ndim() == 2 && a.shape(0) == n && a.shape(1) == width))
      throw SearchError("evaluator: priors must have shape " + expected + ", got " + shape_text(a));
    const float* logits = a.data();
    const int32_t* legal = batch.legal.data();
    for (py::ssize_t i = 0; i < n; ++i) {
      LeafRequest& r = leaves[size_t(i)];
      if (!r.want_priors) continue;
      const float* row = logits + i * (dense ? size : width);
      float* out = r.priors;
      // An action outside the window (dense logits only) gets the lowest logit, as with networks.
      float lowest = INFINITY, top = -INFINITY;
      for (int k = 0; k < r.num_actions; ++k) {
        const int32_t index = legal[i * width + k];
        out[k] = dense ? (index >= 0 ? row[index] : NAN) : row[k];
        if (std::isnan(out[k]) && (!dense || index >= 0))
          throw SearchError("evaluator: priors row " + std::to_string(i) + " holds NaN at a legal action");
        if (out[k] == INFINITY)
          throw SearchError("evaluator: priors row " + std::to_string(i) + " holds +inf at a legal action");
        if (!std::isnan(out[k])) lowest = std::min(lowest, out[k]), top = std::max(top, out[k]);
      }
      if (top == -INFINITY)
        throw SearchError("evaluator: priors row " + std::to_string(i) +
                          ": every legal action has logit -inf (mask the illegal ones, not the legal)");
      float sum = 0;
      for (int k = 0; k < r.num_actions; ++k) {
        if (std::isnan(out[k])) out[k] = lowest;
        sum += out[k] = std::exp(out[k] - top);
      }
      for (int k = 0; k < r.num_actions; ++k) out[k] /= sum;
    }
  }

  py::object fn_;
  int window_;
  ActionSpace space_;
  std::string description_;
  std::unique_ptr<RolloutEvaluator> rollout_;
  // One thread uses these (the batched search's), with the GIL.
  mutable std::optional<ObservationEncoder> encoder_;
  mutable py::array_t<uint8_t> planes_buffer_;
  mutable py::array_t<float> globals_buffer_;
};

}  // namespace

std::shared_ptr<const Evaluator> python_evaluator(const py::object& fn, int batch_size, int window,
                                                  const RolloutConfig& config, int searches) {
  if (!PyCallable_Check(fn.ptr()))
    throw py::type_error("evaluator must be a callable fn(batch) -> values or (values, priors), not " +
                         std::string(py::str(py::type::handle_of(fn).attr("__name__"))));
  if (batch_size < 1 || batch_size > 65536)
    throw SearchError("batch_size must be 1 to 65536, got " + std::to_string(batch_size));
  try {
    ActionSpace check(window);
  } catch (const std::exception& e) {
    throw SearchError("window " + std::to_string(window) + ": " + e.what());
  }
  return std::make_shared<PythonEvaluator>(fn, batch_size, window, config, searches);
}

void register_evaluator(py::module_& m) {
  py::class_<LeafBatch, std::shared_ptr<LeafBatch>>(
      m, "LeafBatch",
      "The leaves a search hands to a Python evaluator in one call (Mcts(config, evaluator=fn)):\n"
      "decision nodes, each observed from the seat to move. The arrays are the evaluator's to keep.")
      .def_readonly("planes", &LeafBatch::planes, "uint8 [n, planes, window, window]: carcassonne.rl's planes.")
      .def_readonly("globals", &LeafBatch::globals, "float32 [n, globals]: carcassonne.rl's globals.")
      .def_readonly("legal", &LeafBatch::legal,
                    "int32 [n, width]: the dense action index of each legal action, in the engine's order;\n"
                    "-1 past num_legal[i] (and for the rare action outside the window).")
      .def_readonly("num_legal", &LeafBatch::num_legal, "int32 [n]: legal actions per leaf.")
      .def_readonly("observers", &LeafBatch::observers,
                    "int32 [n]: the seat to move, whose observation this is (values' column 0).")
      .def_readonly("wants_priors", &LeafBatch::wants_priors,
                    "bool [n]: the leaves the search expands (their priors are read; others' are ignored).")
      .def_readonly("players", &LeafBatch::players)
      .def_readonly("window", &LeafBatch::window)
      .def_readonly("num_actions", &LeafBatch::num_actions, "The size of the dense action space.")
      .def(
          "masks",
          [](const LeafBatch& b) {
            const py::ssize_t n = b.n, width = b.legal.shape(1);
            py::array_t<int8_t> out({n, py::ssize_t(b.num_actions)});
            int8_t* mask = out.mutable_data();
            std::fill(mask, mask + n * b.num_actions, int8_t(0));
            const int32_t* legal = b.legal.data();
            for (py::ssize_t i = 0; i < n * width; ++i)
              if (legal[i] >= 0) mask[(i / width) * b.num_actions + legal[i]] = 1;
            return out;
          },
          "int8 [n, num_actions]: 1 at each legal action (carcassonne.rl.legal_actions_masks).")
      .def(
          "states",
          [](const LeafBatch& b) {
            if (b.states.empty()) throw SearchError("LeafBatch.states(): only during the evaluator's call");
            std::vector<State> out;
            out.reserve(b.states.size());
            for (const State* s : b.states) out.push_back(*s);
            return out;
          },
          "Copies of the leaves' States (hand-made features; slower than the arrays). Only during the\n"
          "evaluator's call.")
      .def("__len__", [](const LeafBatch& b) { return b.n; })
      .def("__repr__", [](const LeafBatch& b) {
        return "LeafBatch(n=" + std::to_string(b.n) + ", players=" + std::to_string(b.players) + ")";
      });
}

}  // namespace carc::py_bindings
