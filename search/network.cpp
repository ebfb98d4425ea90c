#include "network.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>

namespace carc {

namespace {

constexpr char kMagic[8] = {'C', 'A', 'R', 'C', 'N', 'E', 'T', '\0'};
constexpr int kCellOutputs = 36;   // place 4, figure_at 30, abbey 1, arrow 1
constexpr int kDenseOutputs = 58;  // figure 40, pass 1, take-tile 1, quarter 12, count 4
constexpr const char* kShippedNetwork = "bindings/carcassonne/data/network-base-2p.carcnet";

// Reads the file's tensors in order, checking each name and shape against what the header's
// sizes require.
class Reader {
 public:
  Reader(std::string path, const std::vector<char>& data, size_t offset)
      : path_(std::move(path)), data_(data), offset_(offset) {}

  [[noreturn]] void fail(const std::string& what) const { throw SearchError("network file " + path_ + ": " + what); }

  // The next tensor line of the header must be `name` with `shape`; its floats follow in order.
  Eigen::MatrixXf tensor(std::istringstream& header, const std::string& name, std::vector<int> shape) {
    std::string line;
    if (!std::getline(header, line)) fail("the header ends before tensor " + name);
    std::istringstream words(line);
    std::string tag, got;
    words >> tag >> got;
    std::vector<int> dims;
    for (int d; words >> d;) dims.push_back(d);
    if (tag != "tensor" || got != name || dims != shape) {
      std::string want;
      for (int d : shape) want.append(" ").append(std::to_string(d));  // (GCC 12 -Wrestrict: no " " + s)
      fail("expected 'tensor " + name + want + "', found '" + line + "'");
    }
    size_t count = 1;
    for (int d : shape) count *= size_t(d);
    if (offset_ + count * 4 > data_.size()) fail("the file is too short (tensor " + name + ")");
    std::vector<float> values(count);
    std::memcpy(values.data(), data_.data() + offset_, count * 4);  // little-endian float32 (x86, ARM)
    offset_ += count * 4;
    for (float v : values)
      if (!std::isfinite(v)) fail("tensor " + name + " holds a value that is not finite");
    // Rows: the first dimension; columns: the rest, in the file's (row-major) order.
    const int rows = shape.size() == 1 ? int(count) : shape[0];
    const int cols = int(count) / std::max(rows, 1);
    Eigen::MatrixXf m(rows, cols);
    for (int r = 0; r < rows; ++r)
      for (int c = 0; c < cols; ++c) m(r, c) = values[size_t(r) * size_t(cols) + size_t(c)];
    return m;
  }

  void finish() const {
    if (offset_ != data_.size())
      fail(std::to_string(data_.size() - offset_) + " bytes follow the last tensor (a file of another network?)");
  }

 private:
  std::string path_;
  const std::vector<char>& data_;
  size_t offset_;
};

// A 3x3 kernel stored as [out][in][3][3] columns, reordered to (ky, kx, in) columns: im2col
// copies a cell's channels as one contiguous block.
Eigen::MatrixXf kernel_columns(const Eigen::MatrixXf& w, int in) {
  Eigen::MatrixXf out(w.rows(), w.cols());
  for (int o = 0; o < w.rows(); ++o)
    for (int c = 0; c < in; ++c)
      for (int k = 0; k < 9; ++k) out(o, k * in + c) = w(o, c * 9 + k);
  return out;
}

// A 3x3 convolution, padding 1, stride 2, of a map that is one constant vector except at a few
// `live` cells (the board's tiles, and what they reach): only the outputs whose window holds a
// live cell or the padding are computed (an im2col of their columns, one product); all the
// others are one vector, `constant_out`, computed once. `in` is channels x side^2; `out` gets
// out_side^2 columns. Returns the computed outputs' indices: the next layer's live cells.
struct Conv {
  const Eigen::MatrixXf& w;    // out channels x 9 * channels (kernel_columns order)
  const Eigen::MatrixXf& sum;  // out channels x channels: w's nine kernel blocks summed
  const Eigen::VectorXf& bias;
};

std::vector<int> sparse_conv(const Conv& conv, const Eigen::MatrixXf& in, const Eigen::VectorXf& constant_in,
                             const std::vector<int>& live, int side, Eigen::MatrixXf& out,
                             Eigen::VectorXf& constant_out) {
  const int channels = int(in.rows()), out_side = (side - 1) / 2 + 1;
  std::vector<uint8_t> in_live(size_t(side * side), 0), out_live(size_t(out_side * out_side), 0);
  for (int oy = 0; oy < out_side; ++oy)  // the windows that reach into the padding
    for (int ox = 0; ox < out_side; ++ox)
      if (oy == 0 || ox == 0 || 2 * oy + 1 >= side || 2 * ox + 1 >= side) out_live[size_t(oy * out_side + ox)] = 1;
  for (int c : live) {  // output o's window is input rows and columns 2o-1 .. 2o+1
    in_live[size_t(c)] = 1;
    const int y = c / side, x = c % side;
    for (int oy = y / 2; oy <= std::min((y + 1) / 2, out_side - 1); ++oy)
      for (int ox = x / 2; ox <= std::min((x + 1) / 2, out_side - 1); ++ox) out_live[size_t(oy * out_side + ox)] = 1;
  }
  std::vector<int> outputs;
  for (int o = 0; o < out_side * out_side; ++o)
    if (out_live[size_t(o)]) outputs.push_back(o);
  Eigen::MatrixXf col(9 * channels, Eigen::Index(outputs.size()));
  for (size_t j = 0; j < outputs.size(); ++j) {
    const int oy = outputs[j] / out_side, ox = outputs[j] % out_side;
    for (int ky = 0; ky < 3; ++ky)
      for (int kx = 0; kx < 3; ++kx) {
        const int y = oy * 2 + ky - 1, x = ox * 2 + kx - 1;
        auto block = col.col(Eigen::Index(j)).segment((ky * 3 + kx) * channels, channels);
        if (y < 0 || y >= side || x < 0 || x >= side) block.setZero();
        else if (in_live[size_t(y * side + x)]) block = in.col(y * side + x);
        else block = constant_in;
      }
  }
  constant_out = (conv.sum * constant_in + conv.bias).cwiseMax(0.0f);
  out.resize(conv.w.rows(), out_side * out_side);
  out.colwise() = constant_out;
  const Eigen::MatrixXf computed = ((conv.w * col).colwise() + conv.bias).cwiseMax(0.0f);
  for (size_t j = 0; j < outputs.size(); ++j) out.col(outputs[j]) = computed.col(Eigen::Index(j));
  return outputs;
}

// w's nine kernel blocks (kernel_columns order) summed: its convolution of a constant map.
Eigen::MatrixXf kernel_sum(const Eigen::MatrixXf& w, int in) {
  Eigen::MatrixXf sum = Eigen::MatrixXf::Zero(w.rows(), in);
  for (int k = 0; k < 9; ++k) sum += w.middleCols(k * in, in);
  return sum;
}

}  // namespace

Network::Network(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  if (!file) throw SearchError("network file " + path + ": cannot be opened");
  std::vector<char> data((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  Reader reader(path, data, 0);
  if (data.size() < 16 || std::memcmp(data.data(), kMagic, 8) != 0) reader.fail("not a CARCNET file (bad magic)");
  uint32_t version = 0, header_bytes = 0;
  std::memcpy(&version, data.data() + 8, 4);
  std::memcpy(&header_bytes, data.data() + 12, 4);
  if (version != uint32_t(kNetworkFormatVersion))
    reader.fail("format version " + std::to_string(version) + ", this build reads " +
                std::to_string(kNetworkFormatVersion));
  if (16 + size_t(header_bytes) > data.size()) reader.fail("the file is too short (header)");
  std::istringstream header(std::string(data.data() + 16, header_bytes));

  // The sizes, in order: each line "key value...".
  auto value = [&](const char* key, int count) {
    std::string line, got;
    std::getline(header, line);
    std::istringstream words(line);
    words >> got;
    std::vector<int> values;
    for (int v; words >> v;) values.push_back(v);
    if (got != key || int(values.size()) != count || !words.eof())
      reader.fail(std::string("expected the header line '") + key + "' with " + std::to_string(count) +
                  " integer(s), found '" + line + "'");
    for (int v : values)
      if (v < 1 || v > 100000) reader.fail(std::string("header value ") + key + " out of range");
    return values;
  };
  const int observation_version = value("observation_version", 1)[0];
  if (observation_version != kObservationVersion)
    reader.fail("made for observation version " + std::to_string(observation_version) + ", this build encodes " +
                std::to_string(kObservationVersion));
  players_ = value("players", 1)[0];
  window_ = value("window", 1)[0];
  planes_ = value("planes", 1)[0];
  globals_ = value("globals", 1)[0];
  std::vector<int> channels = value("channels", 3);
  channels_ = {channels[0], channels[1], channels[2]};
  hidden_ = value("hidden", 1)[0];
  value("tensors", 1);
  if (players_ > kMaxPlayers || window_ < kMinWindow || window_ > kMaxWindow || window_ % 4 != 0)
    reader.fail("players or window out of range");
  const ObservationEncoder encoder(players_, window_);
  if (planes_ != encoder.num_planes() || globals_ != encoder.num_globals())
    reader.fail("planes/globals " + std::to_string(planes_) + "/" + std::to_string(globals_) + " do not match the " +
                std::to_string(players_) + "-player encoding (" + std::to_string(encoder.num_planes()) + "/" +
                std::to_string(encoder.num_globals()) + ")");
  space_ = ActionSpace(window_);

  Reader tensors(path, data, 16 + header_bytes);
  const int c1 = channels_[0], c2 = channels_[1], c3 = channels_[2];
  global_scale_ = tensors.tensor(header, "global_scale", {globals_});
  conv1_w_ = tensors.tensor(header, "conv1.weight", {c1, planes_});
  conv1_b_ = tensors.tensor(header, "conv1.bias", {c1});
  conv1_g_ = tensors.tensor(header, "conv1.globals", {c1, globals_});
  conv2_w_ = kernel_columns(tensors.tensor(header, "conv2.weight", {c2, c1, 3, 3}), c1);
  conv2_b_ = tensors.tensor(header, "conv2.bias", {c2});
  conv3_w_ = kernel_columns(tensors.tensor(header, "conv3.weight", {c3, c2, 3, 3}), c2);
  conv3_b_ = tensors.tensor(header, "conv3.bias", {c3});
  conv2_sum_ = kernel_sum(conv2_w_, c1);
  conv3_sum_ = kernel_sum(conv3_w_, c2);
  fc_w_ = tensors.tensor(header, "fc.weight", {hidden_, c3 + globals_});
  fc_b_ = tensors.tensor(header, "fc.bias", {hidden_});
  win_w_ = tensors.tensor(header, "win.weight", {players_, hidden_});
  win_b_ = tensors.tensor(header, "win.bias", {players_});
  margin_w_ = tensors.tensor(header, "margin.weight", {players_, hidden_});
  margin_b_ = tensors.tensor(header, "margin.bias", {players_});
  dense_w_ = tensors.tensor(header, "dense.weight", {kDenseOutputs, hidden_});
  dense_b_ = tensors.tensor(header, "dense.bias", {kDenseOutputs});
  cell_w_ = kernel_columns(tensors.tensor(header, "cell.weight", {kCellOutputs, c1, 3, 3}), c1);
  cell_b_ = tensors.tensor(header, "cell.bias", {kCellOutputs});
  std::string rest;
  if (std::getline(header, rest) && !rest.empty()) reader.fail("unexpected header line '" + rest + "'");
  tensors.finish();
}

void Network::forward(int n, const uint8_t* planes, const float* globals, std::vector<NetworkOutput>& out) const {
  const int cells = window_ * window_, c1 = channels_[0];
  out.resize(size_t(n));
  Eigen::MatrixXf features(channels_[2] + globals_, n);
  std::vector<uint8_t> occupied(static_cast<size_t>(cells));
  std::vector<int> columns;
  Eigen::MatrixXf x, h2, h3;
  Eigen::VectorXf constant2, constant3;
  for (int b = 0; b < n; ++b) {
    const Eigen::VectorXf g =
        Eigen::Map<const Eigen::VectorXf>(globals + size_t(b) * size_t(globals_), globals_).cwiseProduct(global_scale_);
    // 1x1 convolution. An empty cell's planes are all 0 (docs/observation.md), so it is the
    // bias (plus the globals' term) alone: only cells holding something are multiplied.
    const uint8_t* p = planes + size_t(b) * size_t(planes_) * size_t(cells);
    std::fill(occupied.begin(), occupied.end(), 0);
    for (int plane = 0; plane < planes_; ++plane)
      for (int c = 0; c < cells; ++c) occupied[size_t(c)] |= p[size_t(plane) * size_t(cells) + size_t(c)];
    columns.clear();
    for (int c = 0; c < cells; ++c)
      if (occupied[size_t(c)]) columns.push_back(c);
    x.resize(planes_, Eigen::Index(columns.size()));
    for (int plane = 0; plane < planes_; ++plane)
      for (size_t j = 0; j < columns.size(); ++j)
        x(plane, Eigen::Index(j)) = float(p[size_t(plane) * size_t(cells) + size_t(columns[j])]);
    const Eigen::VectorXf base = conv1_b_ + conv1_g_ * g, empty = base.cwiseMax(0.0f);
    Eigen::MatrixXf& h1 = out[size_t(b)].cells;
    h1.resize(c1, cells);
    h1.colwise() = empty;
    const Eigen::MatrixXf filled = ((conv1_w_ * x).colwise() + base).cwiseMax(0.0f);
    for (size_t j = 0; j < columns.size(); ++j) h1.col(columns[j]) = filled.col(Eigen::Index(j));
    // Two 3x3 stride-2 convolutions, computed where the board reaches, then the mean over cells.
    const std::vector<int> live =
        sparse_conv({conv2_w_, conv2_sum_, conv2_b_}, h1, empty, columns, window_, h2, constant2);
    sparse_conv({conv3_w_, conv3_sum_, conv3_b_}, h2, constant2, live, (window_ - 1) / 2 + 1, h3, constant3);
    features.col(b).head(channels_[2]) = h3.rowwise().mean();
    features.col(b).tail(globals_) = g;
  }
  const Eigen::MatrixXf hidden = ((fc_w_ * features).colwise() + fc_b_).cwiseMax(0.0f);
  const Eigen::MatrixXf win = (win_w_ * hidden).colwise() + win_b_;
  const Eigen::MatrixXf margin = (margin_w_ * hidden).colwise() + margin_b_;
  const Eigen::MatrixXf dense = (dense_w_ * hidden).colwise() + dense_b_;
  for (int b = 0; b < n; ++b) {
    NetworkOutput& o = out[size_t(b)];
    const float top = win.col(b).maxCoeff();
    float sum = 0;
    for (int r = 0; r < players_; ++r) sum += o.win[size_t(r)] = std::exp(win(r, b) - top);
    for (int r = 0; r < players_; ++r) {
      o.win[size_t(r)] /= sum;
      o.margin[size_t(r)] = 1.0f / (1.0f + std::exp(-margin(r, b)));
    }
    o.dense.assign(dense.col(b).data(), dense.col(b).data() + kDenseOutputs);
  }
}

float Network::logit(const NetworkOutput& out, int index) const {
  const int side = window_, c1 = channels_[0];
  // The cell head: a 3x3 convolution of the 1x1 map, at one cell and output only.
  auto cell = [&](int c, int output) {
    const int y = c / side, x = c % side;
    float sum = cell_b_(output);
    for (int ky = 0; ky < 3; ++ky)
      for (int kx = 0; kx < 3; ++kx) {
        const int yy = y + ky - 1, xx = x + kx - 1;
        if (yy < 0 || yy >= side || xx < 0 || xx >= side) continue;
        sum += cell_w_.row(output).segment((ky * 3 + kx) * c1, c1).dot(out.cells.col(yy * side + xx));
      }
    return sum;
  };
  // Blocks in ActionSpace's order: draw, place, figure, figure_at, pass, take-tile, abbey,
  // arrow, quarter, count (engine/observation.h).
  const auto& blocks = space_.blocks();
  int block = int(blocks.size()) - 1;
  while (block > 0 && index < blocks[size_t(block)].start) --block;
  const int i = index - blocks[size_t(block)].start;
  switch (block) {
    case 1: return cell(i / 4, i % 4);         // place: c * 4 + rotation
    case 2: return out.dense[size_t(i)];       // figure
    case 3: return cell(i / 30, 4 + i % 30);   // figure_at: c * 30 + ...
    case 4: return out.dense[40];              // pass
    case 5: return out.dense[41];              // take-tile
    case 6: return cell(i, 34);                // abbey
    case 7: return cell(i, 35);                // arrow
    case 8: return out.dense[size_t(42 + i)];  // quarter
    case 9: return out.dense[size_t(54 + i)];  // count
    default: return 0.0f;                      // draw: not a decision
  }
}

namespace {
std::mutex default_path_mutex;
std::string default_path_override;
}  // namespace

std::string default_network_path() {
  std::lock_guard<std::mutex> lock(default_path_mutex);
  if (!default_path_override.empty()) return default_path_override;
  return std::string(CARC_SOURCE_DIR) + "/" + kShippedNetwork;
}

void set_default_network_path(const std::string& path) {
  std::lock_guard<std::mutex> lock(default_path_mutex);
  default_path_override = path;
}

std::shared_ptr<const Network> load_network(const std::string& path) {
  static std::mutex mutex;
  static std::map<std::string, std::weak_ptr<const Network>> loaded;
  const std::string file = path.empty() ? default_network_path() : path;
  std::lock_guard<std::mutex> lock(mutex);
  if (auto network = loaded[file].lock()) return network;
  auto network = std::make_shared<const Network>(file);
  loaded[file] = network;
  return network;
}

namespace {
RolloutConfig without_network(RolloutConfig config) {
  if (config.heuristic == Heuristic::Net) config.heuristic = Heuristic::Greedy;
  if (config.prior == PriorKind::Net) config.prior = PriorKind::Greedy;
  return config;
}

// Per-thread buffers of one observation and its output (the search calls from every thread).
// The last input and its output stay: the search asks for a node's priors and then its value
// (expand=0), and the second question costs an encoding, not a forward pass.
struct Scratch {
  std::vector<uint8_t> planes, last_planes;
  std::vector<float> globals, last_globals;
  std::weak_ptr<const Network> last_network;  // weak: its address cannot be another network's
  std::vector<NetworkOutput> out;
};
}  // namespace

NetworkEvaluator::NetworkEvaluator(const RolloutConfig& config)
    : config_(config),
      rollout_(without_network(config)),
      network_(load_network(config.network)),
      encoder_(network_->players(), network_->window()) {}

void NetworkEvaluator::check(const State& state) const {
  if (state.num_players() != network_->players())
    throw SearchError("the network " + (config_.network.empty() ? default_network_path() : config_.network) +
                      " is for " + std::to_string(network_->players()) + " players, the game has " +
                      std::to_string(state.num_players()));
}

const NetworkOutput& NetworkEvaluator::output(const State& state, int observer) const {
  thread_local Scratch scratch;
  scratch.planes.resize(size_t(encoder_.plane_bytes()));
  scratch.globals.resize(size_t(encoder_.num_globals()));
  encoder_.encode(state, observer, scratch.planes.data(), scratch.globals.data());
  const bool same_network =
      !scratch.last_network.owner_before(network_) && !network_.owner_before(scratch.last_network);
  if (same_network && scratch.planes == scratch.last_planes && scratch.globals == scratch.last_globals)
    return scratch.out[0];
  network_->forward(1, scratch.planes.data(), scratch.globals.data(), scratch.out);
  forward_passes_.fetch_add(1, std::memory_order_relaxed);
  scratch.last_network = network_;
  scratch.last_planes = scratch.planes;
  scratch.last_globals = scratch.globals;
  return scratch.out[0];
}

void NetworkEvaluator::evaluate(State& state, Rng& rng, Evaluation& out) const {
  if (config_.heuristic != Heuristic::Net) return rollout_.evaluate(state, rng, out);
  while (state.is_chance()) state.apply_unchecked(sample_draw(state, rng));
  if (state.is_terminal()) return terminal_evaluation(state, config_, out);
  const int players = state.num_players(), observer = state.current_player();
  const NetworkOutput& o = output(state, observer);
  for (int r = 0; r < players; ++r) {
    const size_t p = size_t((observer + r) % players);
    const float win = o.win[size_t(r)], margin = o.margin[size_t(r)];
    out.win[p] = win;
    switch (config_.reward) {
      case RewardKind::Win: out.reward[p] = win; break;
      case RewardKind::Margin: out.reward[p] = margin; break;
      case RewardKind::Mixed:
        out.reward[p] = float((1.0 - config_.margin_weight) * win + config_.margin_weight * margin);
        break;
    }
  }
  if (config_.network_mix > 0) {
    Evaluation rolled;
    rollout_.evaluate(state, rng, rolled);
    const float m = float(config_.network_mix);
    for (int p = 0; p < players; ++p) {
      out.reward[size_t(p)] = (1 - m) * out.reward[size_t(p)] + m * rolled.reward[size_t(p)];
      out.win[size_t(p)] = (1 - m) * out.win[size_t(p)] + m * rolled.win[size_t(p)];
    }
  }
}

void NetworkEvaluator::priors(const State& state, const Action* actions, int n, float* out) const {
  if (config_.prior != PriorKind::Net || n <= 1) return rollout_.priors(state, actions, n, out);
  const NetworkOutput& o = output(state, state.current_player());
  const Window window = observation_window(state, network_->window());
  const ActionSpace& space = network_->space();
  // An action outside the window (docs/observation.md: very rare) gets the lowest logit.
  float lowest = 0;
  bool any = false;
  for (int i = 0; i < n; ++i) {
    const int index = space.index(window, actions[i]);
    if (index < 0) {
      out[i] = NAN;
      continue;
    }
    out[i] = network_->logit(o, index);
    lowest = any ? std::min(lowest, out[i]) : out[i];
    any = true;
  }
  float top = lowest;
  for (int i = 0; i < n; ++i) {
    if (std::isnan(out[i])) out[i] = lowest;
    top = std::max(top, out[i]);
  }
  float sum = 0;
  for (int i = 0; i < n; ++i) sum += out[i] = std::exp(out[i] - top);
  for (int i = 0; i < n; ++i) out[i] /= sum;
}

std::shared_ptr<const Evaluator> make_evaluator(const RolloutConfig& config) {
  if (config.heuristic == Heuristic::Net || config.prior == PriorKind::Net)
    return std::make_shared<NetworkEvaluator>(config);
  return std::make_shared<RolloutEvaluator>(config);
}

}  // namespace carc
