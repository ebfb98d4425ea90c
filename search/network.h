// A policy/value network read from a CARCNET file (docs/network.md) and run with Eigen on the
// CPU, and the search's Evaluator over it. The file is written by carcassonne.learn (PyTorch);
// tests/python/test_learn.py checks this forward pass against PyTorch's on random networks.
#pragma once

#include <array>
#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include <Eigen/Core>

#include "agents.h"
#include "engine/observation.h"
#include "evaluator.h"

namespace carc {

inline constexpr int kNetworkFormatVersion = 1;

// The network's outputs for one observation. Values are per relative seat (0 = the observer).
struct NetworkOutput {
  std::array<float, kMaxPlayers> win{};     // softmax: estimated win share
  std::array<float, kMaxPlayers> margin{};  // sigmoid: the margin reward (RewardKind::Margin)
  std::vector<float> dense;                 // logits of the figure/pass/take-tile/quarter/count blocks
  Eigen::MatrixXf cells;                    // channels x window cells: the map the cell head reads
};

class Network {
 public:
  // Reads and validates a CARCNET file; throws SearchError naming the file and the problem
  // (missing, short, bad magic or version, a header or tensor shape that does not fit).
  explicit Network(const std::string& path);

  int players() const { return players_; }
  int window() const { return window_; }
  int num_planes() const { return planes_; }
  int num_globals() const { return globals_; }
  const ActionSpace& space() const { return space_; }

  // Runs `n` observations (ObservationEncoder's planes, n * planes * window^2 bytes, and
  // globals, n * globals floats) into out[0 .. n-1]. Thread-safe (const).
  void forward(int n, const uint8_t* planes, const float* globals, std::vector<NetworkOutput>& out) const;
  // The policy logit of action `index` (ActionSpace's index in this network's window).
  float logit(const NetworkOutput& out, int index) const;

 private:
  int players_ = 0, window_ = 0, planes_ = 0, globals_ = 0, hidden_ = 0;
  std::array<int, 3> channels_{};
  ActionSpace space_;
  // Weights as matrices: output rows, input columns (3x3 kernels as (ky, kx, channel) columns).
  Eigen::VectorXf global_scale_, conv1_b_, conv2_b_, conv3_b_, fc_b_, win_b_, margin_b_, dense_b_, cell_b_;
  Eigen::MatrixXf conv1_w_, conv1_g_, conv2_w_, conv3_w_, fc_w_, win_w_, margin_w_, dense_w_, cell_w_;
  Eigen::MatrixXf conv2_sum_, conv3_sum_;  // each kernel's nine blocks summed: a constant map's convolution
};

// The network of a file, loaded once per path and shared (thread-safe). An empty path means
// default_network_path().
std::shared_ptr<const Network> load_network(const std::string& path);

// The shipped network's path: set_default_network_path's if set (the Python package sets its
// packaged copy), else the source tree's bindings/carcassonne/data/network-base-2p.carcnet.
std::string default_network_path();
void set_default_network_path(const std::string& path);

// Leaf evaluation and/or PUCT priors from a network (RolloutConfig::heuristic / prior = Net);
// whatever is not Net comes from the rollout evaluator. A chance node is valued at one draw
// sampled with the search's rng (the network was trained on decision nodes); terminal nodes
// exactly. With network_mix > 0 that share of a rollout's value is mixed into the network's.
class NetworkEvaluator final : public Evaluator {
 public:
  explicit NetworkEvaluator(const RolloutConfig& config);  // throws SearchError (the file)
  void check(const State& state) const override;
  void evaluate(State& state, Rng& rng, Evaluation& out) const override;
  void priors(const State& state, const Action* actions, int n, float* out) const override;
  const Network& network() const { return *network_; }
  // Forward passes run so far (a repeated question about the same input is answered without one).
  uint64_t forward_passes() const { return forward_passes_.load(std::memory_order_relaxed); }

 private:
  const NetworkOutput& output(const State& state, int observer) const;

  RolloutConfig config_;
  RolloutEvaluator rollout_;  // the settings with Net replaced by the rollout's defaults
  std::shared_ptr<const Network> network_;
  ObservationEncoder encoder_;
  mutable std::atomic<uint64_t> forward_passes_{0};
};

// The evaluator a search uses for `config`: a NetworkEvaluator if it asks for a network, else
// rollouts.
std::shared_ptr<const Evaluator> make_evaluator(const RolloutConfig& config);

}  // namespace carc
