// A learned value for the search's leaves, sized for a CPU search: a small MLP over summaries
// the engine already keeps per feature, run once per seat (the same weights for every seat, so
// one network serves 2 to 6 players). It predicts what each player will still score and a win
// logit; the search uses it where a rollout stops (eval=value), or instead of the rollout
// (eval=value,rollout=none). docs/value.md describes the inputs, the VALUE file format and how the
// shipped networks were trained (carcassonne.learn.value writes them with PyTorch).
//
// The inputs are computed from scratch in one pass over the placed figures and the frontier;
// nothing is kept in the State, so copying a state for a rollout costs nothing more.
#pragma once

#include <array>
#include <memory>
#include <string>
#include <vector>

#include "engine/game.h"

namespace carc {

inline constexpr int kValueFormatVersion = 5;  // versions 1 to 4 are read too

// The per-seat inputs (value_inputs): see kValueInputNames for each one's meaning. The first
// kSummaryInputs summarise the features a seat is on (the first networks read only these); the
// closing inputs after them say which of those features the tiles left in the bag can still
// close, from the tiles that fit each empty cell next to them.
inline constexpr int kSummaryInputs = 56;
inline constexpr int kValueInputs = 70;
extern const std::array<const char*, kValueInputs> kValueInputNames;

// Writes every seat's first `inputs` inputs (kSummaryInputs or kValueInputs):
// out[p * inputs + i] for p in 0 .. players-1.
void value_inputs(const State& state, float* out, int inputs = kValueInputs);

// What a network made for every mix reads after a seat's kValueInputs: the game's rule switches
// (the ValueMix, in its file order: abbey-mayor, anniv20, city, king-robber, river2, shrines) and
// the player count as one-hot (2 .. 6). The same for every seat of a position.
inline constexpr int kContextInputs = 11;
inline constexpr int kEveryMixInputs = kValueInputs + kContextInputs;
void value_context(const State& state, float* out);

// Which rules a value network was trained for, or a game is played with: the expansions (Rules'
// switches), compared exactly.
struct ValueMix {
  bool abbey_mayor = false, anniv20 = false, king_robber = false, shrines = false, river = false, city = false;
  bool operator==(const ValueMix&) const = default;
  static ValueMix of(const Rules& rules);
  // The mix code 0..63 of the VALUE file's mix field: 1 abbey-mayor, 2 anniv20, 4 city,
  // 8 king-robber, 16 river2, 32 shrines added up (base 0).
  int code() const;
  static ValueMix of_code(int code);
  std::string name() const;  // "base" or the expansions joined by '+', e.g. "abbey-mayor+city"
};

// The names of the mixes whose codes are set in a mask (bit m: code m), in code order; and the
// same joined by ", ".
std::vector<std::string> mix_names(uint64_t codes);
std::string mix_list(uint64_t codes);

class ValueNet {
 public:
  // Reads and validates a VALUE file; throws SearchError naming the file and the problem.
  explicit ValueNet(const std::string& path);

  const std::string& path() const { return path_; }
  // The SHA-256 of the file's bytes (hex, as sha256sum prints it): which network played.
  const std::string& sha256() const { return sha256_; }
  const ValueMix& mix() const { return mix_; }
  // Made for every mix: it reads the rule switches and the player count too (value_context), and
  // fits a game of any mix with one of its player counts. mix() is then the base game's.
  bool every_mix() const { return every_mix_; }
  int inputs() const { return inputs_; }  // value_inputs' columns it reads: kSummaryInputs or kValueInputs
  int width() const { return inputs_ + (every_mix_ ? kContextInputs : 0); }  // what forward() reads
  // Bit p set: trained on games of p players (it runs on any count; the search picks by this).
  uint32_t player_counts() const { return player_counts_; }
  // Bit m set: the search uses it for games of mix code m (ValueMix::code), whatever it was
  // trained on. A version 1 file serves its own mix, or every mix for a network of every mix.
  uint64_t serves() const { return serves_; }
  bool serves_mix(const ValueMix& mix) const { return serves_ >> mix.code() & 1; }
  // A game of a mix it serves with one of its player counts.
  bool fits(const State& state) const;
  // The hand-made guess's share of this network's values at a cutoff, in [0, 1): the share it was
  // measured with, so the table it serves plays it so (the search's blend= adds to it). Version 3
  // files carry it; older ones read 0.
  float guess_share() const { return guess_share_; }
  // The weight of the barns in that guess (the search's barns=, which overrides it when given):
  // version 4 files carry it; older ones read 0.
  float guess_barns() const { return guess_barns_; }
  // Whether that share is drawn (each cutoff valued by the network or by the guess, with the
  // share's chances: the search's blendby=sample) rather than mixed in, as it was measured:
  // version 5 files carry it; older ones mix.
  bool guess_drawn() const { return guess_drawn_; }
  // "base, 2-4 players (value-base.value, sha256 0bd9e930313baf2b)": the hash's first 16 digits.
  // Serving more than its own mix: "base, 2 players, also river2 (...)"; another set: "every mix
  // (serving abbey-mayor, city), 4 players (...)"; with a guess share: "..., 4 players, with 0.5
  // of the hand-made guess (...)", "... guess, barns at 1 (...)" with its barns' weight, and
  // "... guess, drawn (...)" where the share is drawn.
  std::string describe() const;

  // One seat's outputs from its width() inputs (its value_inputs, then value_context for a
  // network of every mix): points still to come (out[0]) and the win logit (out[1]).
  void forward(const float* inputs, float* out) const;
  // Per player: the predicted final score and the win estimate (a softmax of the logits).
  void evaluate(const State& state, std::array<double, kMaxPlayers>& final_scores,
                std::array<float, kMaxPlayers>& win) const;

 private:
  std::string path_;
  std::string sha256_;
  ValueMix mix_;
  bool every_mix_ = false;
  uint32_t player_counts_ = 0;
  uint64_t serves_ = 0;
  int inputs_ = kValueInputs;
  int hidden1_ = 0, hidden2_ = 0;
  float points_scale_ = 1;  // output 0 times this is points
  float guess_share_ = 0;
  float guess_barns_ = 0;
  bool guess_drawn_ = false;
  // Weights input-major (w1[i * hidden1 + j] links input i to unit j; the input normalisation is
  // folded into w1 and b1), then w2 (hidden1 x hidden2) and w3 (hidden2 x 2).
  std::vector<float> w1_, b1_, w2_, b2_, w3_, b3_;
};

// The network of a file, loaded once per path and shared (thread-safe).
std::shared_ptr<const ValueNet> load_value_net(const std::string& path);

// The folder of the shipped value networks (*.value): set_value_net_dir's if set (the Python
// package sets its packaged folder), else the source tree's bindings/carcassonne/data.
std::string value_net_dir();
void set_value_net_dir(const std::string& dir);

// The networks of a folder (every *.value file in it, those made for one mix first), loaded once
// per folder; a folder that cannot be read has none.
const std::vector<std::shared_ptr<const ValueNet>>& value_nets_in(const std::string& dir);
// The shipped networks: value_nets_in(value_net_dir()).
const std::vector<std::shared_ptr<const ValueNet>>& shipped_value_nets();

// A folder of networks as the mcts option values= names it: "@NAME" is the folder NAME inside
// value_net_dir() (where the pinned networks of reference players live), anything else a path.
std::string resolve_value_dir(const std::string& option);

}  // namespace carc
