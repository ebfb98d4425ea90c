// VectorEnv: N games stepped in one call with the GIL released, EnvPool style, for
// carcassonne.rl.vector. Each game is at a decision of the learner: one seat per game, against
// built-in opponents (agent specs) that move inside C++, or every seat (self-play) without
// opponents. Draws use the game's own seeded PRNG. A game that ends is replaced at once by the
// next game of that slot (same-step autoreset): the step reports its reward and the flag, and
// the observation is the new game's first. Outputs are arrays the object owns and overwrites at
// every call (planes, globals, mask, reward, terminated, player, outside, returns; in the
// frontier action layout the cells its indexes name, frontier and tiles), read-only to Python:
// each game's planes are updated where they changed since its last node (PlaneCache), the masks
// cleared only where the last node set them. legal() and
// sample_legal() read each game's legal indexes, kept from its last observation.
//
// Only the engine's public API (State, ObservationEncoder, ActionSpace, make_agent) is used.
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <initializer_list>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/config.h"
#include "engine/errors.h"
#include "engine/game.h"
#include "engine/observation.h"
#include "engine/rng.h"
#include "register.h"
#include "search/agents.h"
#include "search/parallel.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

namespace {

constexpr uint64_t kVectorSeedSalt = 0x5851F42D4C957F2Dull;
constexpr uint64_t kSamplerSalt = 0x2545F4914F6CDD1Dull;

class VectorEnv {
 public:
  VectorEnv(const Config& config, int num_envs, std::vector<std::string> opponents, int seat, int window, bool packed,
            uint64_t seed, int threads, const std::string& layout)
      : config_(validate(config)),
        players_(config_.players),
        n_(num_envs),
        opponents_(std::move(opponents)),
        seat_(seat),
        packed_(packed),
        seed_(seed),
        threads_(threads),
        encoder_(players_, window),
        space_(parse_layout(layout), window),
        sampler_(mix_seeds(seed, 0, kSamplerSalt)) {
    if (n_ < 1) throw py::value_error("VectorEnv: num_envs must be >= 1, got " + std::to_string(n_));
    if (threads_ < 1) throw py::value_error("VectorEnv: threads must be >= 1, got " + std::to_string(threads_));
    if (!opponents_.empty() && int(opponents_.size()) != players_ - 1)
      throw SearchError("VectorEnv: one opponent per other seat expected (" + std::to_string(players_ - 1) +
                        "), or none (self-play); got " + std::to_string(opponents_.size()));
    if (seat_ < -1 || seat_ >= players_)
      throw py::value_error("VectorEnv: seat must be -1 (rotating) or 0 to " + std::to_string(players_ - 1));
    for (const std::string& spec : opponents_) make_agent(spec);  // SearchError for a bad spec
    plane_bytes_ = size_t(encoder_.plane_bytes());
    obs_bytes_ = packed_ ? size_t(encoder_.packed_bytes()) : plane_bytes_;
    mask_bytes_ = packed_ ? size_t(space_.size() + 7) / 8 : size_t(space_.size());
    const py::ssize_t n = n_;
    const py::ssize_t side = window;
    planes_ = packed_ ? py::array_t<uint8_t>({n, py::ssize_t(obs_bytes_)})
                      : py::array_t<uint8_t>({n, py::ssize_t(encoder_.num_planes()), side, side});
    globals_ = py::array_t<float>({n, py::ssize_t(encoder_.num_globals())});
    mask_ = py::array_t<uint8_t>({n, py::ssize_t(mask_bytes_)});
    reward_ = py::array_t<float>(n);
    terminated_ = py::array_t<bool>(n);
    player_ = py::array_t<int8_t>(n);
    outside_ = py::array_t<int32_t>(n);
    returns_ = py::array_t<float>({n, py::ssize_t(players_)});
    const bool frontier = space_.layout() == ActionLayout::Frontier;
    frontier_ = py::array_t<int16_t>({frontier ? n : 0, py::ssize_t(kMaxFrontier), py::ssize_t(2)});
    tiles_ = py::array_t<int16_t>({frontier ? n : 0, py::ssize_t(kMaxTiles), py::ssize_t(2)});
    out_ = {planes_.mutable_data(),
            globals_.mutable_data(),
            mask_.mutable_data(),
            reward_.mutable_data(),
            terminated_.mutable_data(),
            player_.mutable_data(),
            outside_.mutable_data(),
            returns_.mutable_data(),
            frontier ? frontier_.mutable_data() : nullptr,
            frontier ? tiles_.mutable_data() : nullptr};
    // Masks are updated where the last node had something: zeros first (the planes' caches
    // start unknown, so each game's planes are first written whole).
    std::memset(out_.mask, 0, size_t(n_) * mask_bytes_);
    // Python reads the outputs; only this object writes them (a write from Python would stay in
    // the planes, which are never rewritten whole).
    for (py::array* a : std::initializer_list<py::array*>{&planes_, &globals_, &mask_, &reward_, &terminated_, &player_,
                                                          &outside_, &returns_, &frontier_, &tiles_})
      a->attr("setflags")("write"_a = false);
    games_.resize(size_t(n_));
  }

  void reset() {
    Busy busy(busy_);
    const Outputs& out = out_;
    py::gil_scoped_release release;
    parallel_for(n_, threads_, [&](int i) {
      Slot& g = games_[size_t(i)];
      g.episode = 0;
      start(i);
      out.reward[i] = 0;
      out.terminated[i] = false;
      std::fill_n(out.returns + size_t(i) * size_t(players_), players_, 0.0f);
      observe(i, out);
    });
  }

  void step(const py::array_t<int64_t, py::array::c_style | py::array::forcecast>& actions) {
    Busy busy(busy_);
    if (!games_[0].state) throw py::value_error("VectorEnv: call reset() first");
    if (actions.ndim() != 1 || actions.shape(0) != n_)
      throw py::value_error("VectorEnv.step: expected " + std::to_string(n_) + " action indexes, one per game");
    // Every action is checked before any game moves: a bad one changes nothing.
    std::vector<Action> chosen(static_cast<size_t>(n_));
    const int64_t* index = actions.data();
    for (int i = 0; i < n_; ++i) {
      const State& s = *games_[size_t(i)].state;
      auto where = [&] {  // the message's start, built only for an error
        return "VectorEnv.step: game " + std::to_string(i) + ": action index " + std::to_string(index[i]);
      };
      if (index[i] < 0 || index[i] >= space_.size())
        throw IllegalActionError(where() + " is outside the action space [0, " + std::to_string(space_.size()) + ")");
      try {
        chosen[size_t(i)] = space_.action(s, games_[size_t(i)].frame, int(index[i]));
      } catch (const std::out_of_range& e) {
        throw IllegalActionError("VectorEnv.step: game " + std::to_string(i) + ": " + e.what());
      }
      if (!s.is_legal(chosen[size_t(i)])) throw IllegalActionError(where() + " is not legal here (see the mask)");
    }
    const Outputs& out = out_;
    py::gil_scoped_release release;
    parallel_for(n_, threads_, [&](int i) {
      Slot& g = games_[size_t(i)];
      State& s = *g.state;
      const int mover = s.current_player();
      s.apply_unchecked(chosen[size_t(i)]);  // checked above
      advance(i);
      float* returns = out.returns + size_t(i) * size_t(players_);
      if (s.is_terminal()) {
        const std::vector<double> r = s.returns();
        for (int p = 0; p < players_; ++p) returns[p] = float(r[size_t(p)]);
        out.reward[i] = float(r[size_t(g.learner >= 0 ? g.learner : mover)]);
        out.terminated[i] = true;
        ++g.episode;
        start(i);
      } else {
        std::fill_n(returns, players_, 0.0f);
        out.reward[i] = 0;
        out.terminated[i] = false;
      }
      observe(i, out);
    });
  }

  int num_envs() const { return n_; }
  const ObservationEncoder& encoder() const { return encoder_; }
  const ActionSpace& space() const { return space_; }
  bool packed() const { return packed_; }
  py::dict outputs_dict() const {
    py::dict out("planes"_a = planes_, "globals"_a = globals_, "mask"_a = mask_, "reward"_a = reward_,
                 "terminated"_a = terminated_, "player"_a = player_, "outside"_a = outside_, "returns"_a = returns_);
    if (space_.layout() == ActionLayout::Frontier) {
      out["frontier"] = frontier_;
      out["tiles"] = tiles_;
    }
    return out;
  }

  // The legal indexes of every game's current node as CSR: game i's are
  // indices[offsets[i] : offsets[i + 1]], ascending.
  py::tuple legal() const {
    Busy busy(busy_);
    if (!games_[0].state) throw py::value_error("VectorEnv: call reset() first");
    py::array_t<int32_t> offsets(py::ssize_t(n_) + 1);
    int32_t* at = offsets.mutable_data();
    at[0] = 0;
    for (int i = 0; i < n_; ++i) at[i + 1] = at[i] + int32_t(games_[size_t(i)].indices.size());
    py::array_t<int32_t> indices(py::ssize_t(at[n_]));
    int32_t* out = indices.mutable_data();
    for (const Slot& g : games_) out = std::copy(g.indices.begin(), g.indices.end(), out);
    return py::make_tuple(offsets, indices);
  }

  // One legal index per game, uniformly at random, from the object's sampling stream (seeded by
  // the env's seed, or anew by `seed`).
  py::array_t<int64_t> sample_legal(std::optional<uint64_t> seed) {
    Busy busy(busy_);
    if (!games_[0].state) throw py::value_error("VectorEnv: call reset() first");
    if (seed) sampler_.reseed(mix_seeds(*seed, 0, kSamplerSalt));
    py::array_t<int64_t> actions(n_);
    int64_t* out = actions.mutable_data();
    for (int i = 0; i < n_; ++i) {
      const std::vector<int>& legal = games_[size_t(i)].indices;
      if (legal.empty())
        throw py::value_error("VectorEnv.sample_legal: game " + std::to_string(i) +
                              " has no legal action with an index (a window too small)");
      out[i] = legal[sampler_.below(uint32_t(legal.size()))];
    }
    return actions;
  }
  // A copy of game i's state (for inspection, rendering and tests).
  State state(int i) const {
    if (i < 0 || i >= n_ || !games_[size_t(i)].state) throw py::index_error("VectorEnv: no game " + std::to_string(i));
    return *games_[size_t(i)].state;
  }

 private:
  struct Slot {
    std::unique_ptr<State> state;
    std::vector<std::unique_ptr<Agent>> agents;  // per seat; null for the learner's seats
    Rng rng;
    int learner = -1;  // the learner's seat, -1 in self-play (every seat)
    uint64_t episode = 0;
    std::vector<int> indices;          // the legal indexes of the current node (its mask)
    PlaneCache planes;                 // what the slot's planes hold
    int frontier_rows = kMaxFrontier;  // the rows of its cell lists that may not hold kNoCell
    int tile_rows = kMaxTiles;
    ActionFrame frame;  // the cells of the current node's action indexes
  };
  struct Outputs {
    uint8_t* planes;
    float* globals;
    uint8_t* mask;
    float* reward;
    bool* terminated;
    int8_t* player;
    int32_t* outside;
    float* returns;
    int16_t* frontier;  // frontier layout only (else null)
    int16_t* tiles;
  };

  // A new game in slot i (its seed from the env's seed, the slot and the episode), advanced to
  // the learner's first decision.
  void start(int i) {
    Slot& g = games_[size_t(i)];
    const uint64_t game_seed = mix_seeds(seed_, (uint64_t(i) << 32) + g.episode, kVectorSeedSalt);
    Config c = config_;
    c.seed = game_seed;
    g.state = std::make_unique<State>(c);
    g.rng = Rng(game_seed ^ 0x9E3779B97F4A7C15ull);
    g.learner = opponents_.empty() ? -1 : seat_ >= 0 ? seat_ : int((uint64_t(i) + g.episode) % uint64_t(players_));
    if (g.agents.empty()) {  // the opponents are made once per slot and kept (seats may rotate)
      g.agents.resize(size_t(players_));
      for (size_t k = 0; k < opponents_.size(); ++k) g.agents[k] = make_agent(opponents_[k]);
    }
    advance(i);
    if (g.state->is_terminal()) throw std::logic_error("VectorEnv: a game ended before the learner's first move");
  }

  // Draws and opponents' moves until the learner decides or the game ends.
  void advance(int i) {
    Slot& g = games_[size_t(i)];
    State& s = *g.state;
    while (!s.is_terminal()) {
      if (s.is_chance()) {
        s.apply_unchecked(s.sample_chance());
        continue;
      }
      const int p = s.current_player();
      if (g.learner < 0 || p == g.learner) return;
      // The opponents fill the other seats in order: opponent k plays the k-th seat after the learner.
      const int k = (p - g.learner + players_) % players_ - 1;
      s.apply_unchecked(g.agents[size_t(k)]->choose(s, g.rng));  // a built-in agent's move is legal
    }
  }

  void observe(int i, const Outputs& out) {
    Slot& g = games_[size_t(i)];
    const State& s = *g.state;
    const int p = s.current_player();
    out.player[i] = int8_t(p);
    space_.frame(s, g.frame);  // step() reads the actions in it
    uint8_t* mask = out.mask + size_t(i) * mask_bytes_;
    for (int index : g.indices) mask[packed_ ? index >> 3 : index] = 0;  // the last node's (the rest is 0)
    out.outside[i] = space_.legal_indices(s, g.frame, g.indices);
    for (int index : g.indices) {
      if (packed_) mask[index >> 3] |= uint8_t(1u << (index & 7));  // numpy's bitorder="little", as the planes
      else mask[index] = 1;
    }
    float* globals = out.globals + size_t(i) * size_t(encoder_.num_globals());
    uint8_t* planes = out.planes + size_t(i) * obs_bytes_;
    if (packed_) encoder_.encode_packed_update(s, p, planes, g.planes, globals);
    else encoder_.encode_update(s, p, planes, g.planes, globals);
    if (out.frontier) {  // in the planes' window; the rows past the last node's counts hold kNoCell
      ActionSpace::write_action_cells(s, g.frame, g.planes.window(), out.frontier + size_t(i) * 2 * kMaxFrontier,
                                      out.tiles + size_t(i) * 2 * kMaxTiles, g.frontier_rows, g.tile_rows);
      g.frontier_rows = int(g.frame.frontier.size());
      g.tile_rows = s.board().num_tiles();
    }
  }

  // One call at a time: two Python threads stepping the same object would race once the GIL
  // is released, so the second is refused.
  class Busy {
   public:
    explicit Busy(std::atomic<bool>& flag) : flag_(flag) {
      if (flag_.exchange(true)) throw std::runtime_error("VectorEnv: another thread is using it (one call at a time)");
    }
    ~Busy() { flag_.store(false); }
    Busy(const Busy&) = delete;
    Busy& operator=(const Busy&) = delete;

   private:
    std::atomic<bool>& flag_;
  };
  mutable std::atomic<bool> busy_{false};

  Config config_;
  int players_;
  int n_;
  std::vector<std::string> opponents_;
  int seat_;
  bool packed_;
  uint64_t seed_;
  int threads_;
  ObservationEncoder encoder_;
  ActionSpace space_;
  Rng sampler_;  // sample_legal's stream
  size_t plane_bytes_ = 0, obs_bytes_ = 0, mask_bytes_ = 0;
  py::array_t<uint8_t> planes_;
  py::array_t<float> globals_;
  py::array_t<uint8_t> mask_;
  py::array_t<float> reward_;
  py::array_t<bool> terminated_;
  py::array_t<int8_t> player_;
  py::array_t<int32_t> outside_;
  py::array_t<float> returns_;
  py::array_t<int16_t> frontier_, tiles_;
  Outputs out_{};  // the arrays' data
  std::vector<Slot> games_;
};

}  // namespace

void register_vector(py::module_& m) {
  py::class_<VectorEnv>(m, "VectorEnv",
                        "N games stepped in one call with the GIL released (carcassonne.rl.vector wraps it).")
      .def(py::init<const Config&, int, std::vector<std::string>, int, int, bool, uint64_t, int, const std::string&>(),
           "config"_a, "num_envs"_a, "opponents"_a, "seat"_a = -1, "window"_a = kDefaultWindow, "packed"_a = false,
           "seed"_a = 0, "threads"_a = 1, "layout"_a = "frontier",
           "Games of `config` (its seed unused: `seed` seeds every game); `opponents`: one agent spec per\n"
           "other seat (the learner plays `seat`, -1: rotating over games), or [] for self-play. `layout`:\n"
           "the action layout, 'frontier' (every legal action indexed) or 'window' (engine/observation.h).")
      .def("reset", &VectorEnv::reset, "Starts a new game in every slot and writes the outputs.")
      .def("step", &VectorEnv::step, "actions"_a,
           "Applies one action index per game (all checked first: IllegalActionError changes nothing),\n"
           "plays draws and opponents, replaces ended games, and writes the outputs.")
      .def_property_readonly("num_envs", &VectorEnv::num_envs)
      .def_property_readonly("packed", &VectorEnv::packed)
      .def_property_readonly("num_actions", [](const VectorEnv& v) { return v.space().size(); })
      .def_property_readonly("layout", [](const VectorEnv& v) { return layout_name(v.space().layout()); })
      .def("legal", &VectorEnv::legal,
           "(offsets int32 [N + 1], indices int32): every game's legal action indexes, ascending, as CSR:\n"
           "game i's are indices[offsets[i]:offsets[i + 1]].")
      .def("sample_legal", &VectorEnv::sample_legal, "seed"_a = py::none(),
           "int64 [N]: a uniformly random legal action index per game, from the object's own stream\n"
           "(seeded by the env's seed; `seed` starts it anew).")
      .def_property_readonly("num_planes", [](const VectorEnv& v) { return v.encoder().num_planes(); })
      .def_property_readonly("window", [](const VectorEnv& v) { return v.encoder().window(); })
      .def_property_readonly("num_globals", [](const VectorEnv& v) { return v.encoder().num_globals(); })
      .def_property_readonly("outputs", &VectorEnv::outputs_dict,
                             "The output arrays (overwritten by every reset and step): planes, globals, mask,\n"
                             "reward, terminated, player, outside, returns; in the frontier layout also frontier\n"
                             "and tiles (int16 [N, cells, 2]: (row, column) in the window, kNoCell past the count).")
      .def("state", &VectorEnv::state, "index"_a, "A copy of game `index`'s state.");
}

}  // namespace carc::py_bindings
