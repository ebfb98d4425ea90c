// The policy/value network's C++ side (search/network.h) for Python: loading a CARCNET file,
// the forward pass (tests compare it with PyTorch's), and the shipped network's default path.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "register.h"
#include "search/network.h"
#include "search/value.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

namespace {

// A count of value_inputs' columns from Python: kSummaryInputs or kValueInputs.
void check_inputs(const char* function, int inputs) {
  if (inputs != kSummaryInputs && inputs != kValueInputs)
    throw SearchError(std::string(function) + ": inputs must be " + std::to_string(kSummaryInputs) + " or " +
                      std::to_string(kValueInputs) + ", got " + std::to_string(inputs));
}

// The learned value of search/value.h: its inputs (training data), its forward pass (tests
// compare it with PyTorch's) and the folder of the shipped networks.
void register_value_net(py::module_& m) {
  py::class_<ValueNet, std::shared_ptr<ValueNet>>(
      m, "ValueNet", "A learned value network read from a VALUE file (docs/value.md): a small MLP run per seat.")
      .def(py::init<const std::string&>(), "path"_a,
           "Reads and validates the file; raises SearchError naming the problem.")
      .def_property_readonly(
          "mix", [](const ValueNet& n) { return n.every_mix() ? std::string("every") : n.mix().name(); },
          "The expansions it was trained for ('base' or names joined by '+'), or 'every' (every_mix).")
      .def_property_readonly(
          "player_counts",
          [](const ValueNet& n) {
            std::vector<int> counts;
            for (int p = 2; p <= kMaxPlayers; ++p)
              if (n.player_counts() >> p & 1) counts.push_back(p);
            return counts;
          },
          "The player counts it was trained for (the search uses it for these only).")
      .def_property_readonly(
          "serves", [](const ValueNet& n) { return mix_names(n.serves()); },
          "The mixes the search uses it for, whatever it was trained on ('base' or names joined by '+'),\n"
          "in the order of their codes (docs/value.md).")
      .def_property_readonly("inputs", &ValueNet::inputs,
                             "How many of value_inputs' columns it reads: SUMMARY_VALUE_INPUTS or VALUE_INPUTS.")
      .def_property_readonly("every_mix", &ValueNet::every_mix,
                             "Made for every mix: it reads value_context after value_inputs (EVERY_MIX_INPUTS).")
      .def_property_readonly("width", &ValueNet::width,
                             "The columns forward() reads: inputs, plus CONTEXT_INPUTS for a network of every mix.")
      .def_property_readonly("guess_share", &ValueNet::guess_share,
                             "The hand-made guess's share of its values at the search's cutoffs, in [0, 1): the share\n"
                             "it was measured with (version 3 files; 0 before). evaluate() gives the network alone.")
      .def_property_readonly("guess_barns", &ValueNet::guess_barns,
                             "The weight of the barns in that guess (the search's barns=, which overrides it when\n"
                             "given): version 4 files; 0 before.")
      .def_property_readonly("guess_drawn", &ValueNet::guess_drawn,
                             "Whether that share is drawn at each cutoff (the search's blendby=sample) rather\n"
                             "than mixed in: version 5 files; False before.")
      .def_property_readonly("sha256", &ValueNet::sha256,
                             "The SHA-256 of the file (hex, as sha256sum prints it): which network played.")
      .def("describe", &ValueNet::describe,
           "Its mix, player counts, the mixes it serves if other than its own, file name and the first 16\n"
           "digits of its SHA-256.")
      .def("fits", &ValueNet::fits, "state"_a,
           "Whether the search uses it for this game (a mix it serves, a player count of its own).")
      .def(
          "forward",
          [](const ValueNet& net, py::array_t<float, py::array::c_style | py::array::forcecast> inputs) {
            if (inputs.ndim() != 2 || inputs.shape(1) != net.width())
              throw SearchError("ValueNet.forward: expected inputs [n, " + std::to_string(net.width()) + "]");
            const py::ssize_t n = inputs.shape(0);
            py::array_t<float> out({n, py::ssize_t(2)});
            for (py::ssize_t i = 0; i < n; ++i) net.forward(inputs.data(i, 0), out.mutable_data(i, 0));
            return out;
          },
          "inputs"_a,
          "Per row of value_inputs (then value_context for a network of every mix): (points still to come /\n"
          "the file's scale, win logit), float32 [n, 2].")
      .def(
          "evaluate",
          [](const ValueNet& net, const State& state) {
            std::array<double, kMaxPlayers> finals{};
            std::array<float, kMaxPlayers> win{};
            net.evaluate(state, finals, win);
            const int n = state.num_players();
            return py::make_tuple(std::vector<double>(finals.begin(), finals.begin() + n),
                                  std::vector<float>(win.begin(), win.begin() + n));
          },
          "state"_a, "(predicted final score, win estimate) of every player.");
  m.attr("VALUE_INPUTS") = kValueInputs;
  m.attr("SUMMARY_VALUE_INPUTS") = kSummaryInputs;
  m.attr("CONTEXT_INPUTS") = kContextInputs;
  m.attr("EVERY_MIX_INPUTS") = kEveryMixInputs;
  m.def(
      "value_context",
      [](const State& state) {
        py::array_t<float> out(kContextInputs);
        value_context(state, out.mutable_data());
        return out;
      },
      "state"_a,
      "What a value network of every mix reads after a seat's value_inputs, float32 [CONTEXT_INPUTS]: the\n"
      "rule switches (abbey-mayor, anniv20, city, king-robber, river2, shrines) and the player count one-hot (2-6).");
  m.def(
      "value_input_names", [] { return std::vector<std::string>(kValueInputNames.begin(), kValueInputNames.end()); },
      "What each of value_inputs' columns holds.");
  m.def(
      "value_inputs",
      [](const State& state, int inputs) {
        check_inputs("value_inputs", inputs);
        py::array_t<float> out({py::ssize_t(state.num_players()), py::ssize_t(inputs)});
        value_inputs(state, out.mutable_data(), inputs);
        return out;
      },
      "state"_a, "inputs"_a = kValueInputs,
      "The learned value's first `inputs` inputs of every player, float32 [players, inputs] (docs/value.md).");
  m.def(
      "value_replay",
      [](const State& start, py::array_t<int64_t, py::array::c_style | py::array::forcecast> actions, int every,
         int inputs) {
        check_inputs("value_replay", inputs);
        if (every < 1) throw SearchError("value_replay: every must be at least 1, got " + std::to_string(every));
        if (actions.ndim() != 1) throw SearchError("value_replay: actions must be one-dimensional");
        const py::ssize_t n = actions.shape(0), kept = (n + every - 1) / every, players = start.num_players();
        py::array_t<float> out({kept, players, py::ssize_t(inputs)});
        py::array_t<int32_t> scores({kept, players});
        const int64_t* codes = actions.data();
        float* x = out.mutable_data();
        int32_t* now = scores.mutable_data();
        {
          // Validated like State.apply (an illegal or malformed code raises; `start` is untouched).
          py::gil_scoped_release release;
          State state = start.clone();
          for (py::ssize_t i = 0; i < n; ++i) {
            if (i % every == 0) {
              value_inputs(state, x, inputs);
              x += players * inputs;
              for (int p = 0; p < players; ++p) *now++ = state.score(p);
            }
            state.apply(to_action(codes[i]));
          }
        }
        return py::make_tuple(out, scores);
      },
      "state"_a, "actions"_a, "every"_a = 1, "inputs"_a = kValueInputs,
      "Replays a game's action codes from `state` (a copy; the state is untouched) and returns, before\n"
      "every `every`-th action, every player's value_inputs and score: (float32 [k, players, inputs],\n"
      "int32 [k, players]) with k = ceil(len(actions) / every). What training reads, in one call.");
  m.def("value_net_dir", &value_net_dir, "The folder of the shipped value networks (*.value).");
  m.def("set_value_net_dir", &set_value_net_dir, "dir"_a,
        "Sets the folder eval=value reads its shipped networks from (before the first search).");
}

}  // namespace

void register_network(py::module_& m) {
  py::class_<Network, std::shared_ptr<Network>>(
      m, "Network", "A policy/value network read from a CARCNET file (docs/network.md), run with Eigen.")
      .def(py::init<const std::string&>(), "path"_a,
           "Reads and validates the file; raises SearchError naming the problem.")
      .def_property_readonly("players", &Network::players)
      .def_property_readonly("window", &Network::window)
      .def_property_readonly("num_planes", &Network::num_planes)
      .def_property_readonly("num_globals", &Network::num_globals)
      .def(
          "forward",
          [](const Network& net, py::array_t<uint8_t, py::array::c_style | py::array::forcecast> planes,
             py::array_t<float, py::array::c_style | py::array::forcecast> globals,
             py::array_t<int64_t, py::array::c_style | py::array::forcecast> indices) {
            const py::ssize_t n = planes.ndim() > 0 ? planes.shape(0) : 0;
            const py::ssize_t plane_size = py::ssize_t(net.num_planes()) * net.window() * net.window();
            if (planes.ndim() != 4 || planes.size() != n * plane_size || globals.ndim() != 2 || globals.shape(0) != n ||
                globals.shape(1) != net.num_globals() || n < 1)
              throw SearchError("Network.forward: expected planes [n, " + std::to_string(net.num_planes()) + ", " +
                                std::to_string(net.window()) + ", " + std::to_string(net.window()) +
                                "] and globals [n, " + std::to_string(net.num_globals()) + "], n >= 1");
            const int64_t actions = net.space().size();
            for (py::ssize_t i = 0; i < indices.size(); ++i)
              if (indices.data()[i] < 0 || indices.data()[i] >= actions)
                throw SearchError("Network.forward: action index " + std::to_string(indices.data()[i]) +
                                  " outside [0, " + std::to_string(actions) + ")");
            std::vector<NetworkOutput> out;
            {
              py::gil_scoped_release release;
              net.forward(int(n), planes.data(), globals.data(), out);
            }
            const py::ssize_t p = net.players(), k = indices.size();
            py::array_t<float> win({n, p}), margin({n, p}), logits({n, k});
            for (py::ssize_t b = 0; b < n; ++b) {
              for (py::ssize_t r = 0; r < p; ++r) {
                win.mutable_at(b, r) = out[size_t(b)].win[size_t(r)];
                margin.mutable_at(b, r) = out[size_t(b)].margin[size_t(r)];
              }
              for (py::ssize_t j = 0; j < k; ++j)
                logits.mutable_at(b, j) = net.logit(out[size_t(b)], int(indices.data()[j]));
            }
            return py::make_tuple(win, margin, logits);
          },
          "planes"_a, "globals"_a, "indices"_a,
          "(win share [n, players], margin reward [n, players], policy logits [n, len(indices)]) of\n"
          "encoded observations (uint8 planes [n, planes, window, window], float32 globals [n, globals]);\n"
          "per relative seat, the logits of the given action indexes.");
  register_value_net(m);
  m.def("default_network_path", &default_network_path, "The shipped network's path (docs/network.md).");
  m.def("set_default_network_path", &set_default_network_path, "path"_a,
        "Sets the file that eval=net / prior=net read when no net= is given.");
}

}  // namespace carc::py_bindings
