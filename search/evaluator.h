// Leaf evaluation for the tree search: what a node is worth to every player, and (for PUCT) how
// promising each move there looks. The search sees only the Evaluator interface, so rollouts
// today and a network later are interchangeable (KataGo's nninterface, OpenSpiel's Evaluator).
//
// Values are per player, in [0, 1], higher is better for that player. Two are reported:
//   reward  what the search maximises (win share, normalised score margin, or a mix of both);
//   win     the estimated win share (ties split), which the analysis output shows.
// For a rollout to the end with RewardKind::Win they are the same number.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/game.h"
#include "engine/rng.h"

namespace carc {

class ValueNet;  // search/value.h

// What the search maximises at the end of a rollout.
enum class RewardKind : uint8_t {
  Win,     // win share: 1/k to each of the k top scorers, else 0 (State::returns)
  Margin,  // 0.5 + 0.5 tanh((own score - best other score) / margin_scale)
  Mixed,   // (1 - margin_weight) * Win + margin_weight * Margin
};

enum class RolloutPolicy : uint8_t {
  Random,  // uniform legal action at every decision (State::sample_legal_action)
  Greedy,  // figures by a cheap rule (grab completed features, keep meeples), placements random,
           // and with probability greedy_eps a full one-ply greedy move (GreedyAgent's valuation)
  None,    // no rollout: the leaf itself is valued by the heuristic (eval=value; search/value.h)
};

// How a position is valued at a rollout cutoff (search/RESULTS.md compares them).
enum class Heuristic : uint8_t {
  Greedy,    // score + half the potential of led features (GreedyAgent's terms; fields only
             // with RolloutConfig::field_weight)
  Final,     // the scores if the game ended now (State::scores_if_ended: fields included)
  Expected,  // heuristic_values: expected final scores (fields and supply included)
  Net,       // no rollout: a policy/value network values the leaf (search/network.h)
  Value,     // a learned value over feature summaries (search/value.h), the shipped one for the
             // game's mix and player count; a game without one falls back to Greedy and says so
};

// The PUCT priors of the rollout evaluator.
enum class PriorKind : uint8_t {
  Uniform,  // every legal action alike
  Greedy,   // a softmax of GreedyAgent's one-ply values (greedy_values), prior_temperature wide
  Net,      // a policy/value network's policy (search/network.h)
  Value,    // a softmax of the learned value's one-ply margins (search/value.h), prior_temperature
            // wide; Greedy for a game without a value network
};

// How a share of the hand-made guess enters a learned value at a cutoff.
enum class BlendBy : uint8_t {
  File,    // as the value file says (ValueNet::guess_drawn), Mean for older files
  Mean,    // the shares' weighted mean of the network and the guess
  Sample,  // the network or the guess, drawn with the shares' chances: the same mean, the
           // network asked at a share of the cutoffs only
};

struct RolloutConfig {
  RolloutPolicy policy = RolloutPolicy::Random;
  double greedy_eps = 0.0;  // Greedy: chance of the full one-ply greedy move at a decision
  int cutoff_turns = 10;    // > 0: stop after this many turns and evaluate heuristically
  int finish_tiles = 20;    // a rollout starting with at most this many tiles in the bag plays
                            // to the end (no cutoff): final scoring, fields included
  // The learned value where a shipped network fits the game (the tables where one beat
  // ref-rollout at equal time on fresh decks, docs/value.md), else Greedy.
  Heuristic heuristic = Heuristic::Value;
  RewardKind reward = RewardKind::Margin;
  double margin_scale = 40.0;           // points: a margin of this size gives reward 0.88 (20 measured weaker)
  double margin_weight = 0.2;           // Mixed only
  double supply_value = 0.0;            // points per meeple in supply, added to the Greedy heuristic
  int endgame_tiles = 2;                // with fewer tiles than this left in the bag, a rollout's figure
                                        // is the one paying most at final scoring (the last movers' farmer
                                        // grab); 0 turns the rule off
  double cutoff_temperature = 10.0;     // points: softmax temperature turning heuristic values into
                                        // win estimates at a cutoff
  double value_blend = 0.0;             // eval=value: the hand-made guess's share of a cutoff's value,
                                        // on top of the network's own (ValueNet::guess_share)
  BlendBy blend_by = BlendBy::File;     // eval=value with a guess share: how it enters
  PriorKind prior = PriorKind::Greedy;  // PUCT priors (ignored under UCT)
  double prior_temperature = 3.0;       // points: Greedy priors' softmax temperature
  // Fields (issue 22: accepted by SPRT at 0.2 s a move, search/RESULTS.md; 0, 1, 0 play as
  // ref-2026-12 does).
  double field_weight = 0.5;        // eval=greedy: this share of the led fields' field_potential
                                    // (search/agents.h) counts at a cutoff
  double barn_weight = 0.0;         // eval=greedy: this share of the barns' barn_potential (search/agents.h)
                                    // counts at a cutoff
  bool rollout_farmers = false;     // false: rollouts that end at a cutoff place no farmers
  double prior_field_weight = 0.0;  // Greedy priors: this share of field_potential counts too
  // Networks (issue 19; heuristic or prior Net, search/network.h).
  std::string network;       // the CARCNET file; empty: the shipped one (default_network_path)
  double network_mix = 0.0;  // heuristic Net: this share of a rollout's value is mixed in
  std::string value_net;     // heuristic Value: the VALUE file; empty: the one of value_dir that fits
  std::string value_dir;     // the folder of VALUE files (resolve_value_dir); empty: the shipped ones
};

struct Evaluation {
  std::array<float, kMaxPlayers> reward{};
  std::array<float, kMaxPlayers> win{};
};

class Evaluator {
 public:
  virtual ~Evaluator() = default;
  // Evaluates `state` (any node, terminal included) into `out` for players 0 .. n-1. The state
  // is the caller's scratch copy and may be played on. Called concurrently from every search
  // thread, each with its own rng: implementations must be thread-safe (const, no shared state).
  virtual void evaluate(State& state, Rng& rng, Evaluation& out) const = 0;
  // Writes priors (non-negative, summing to 1) for the n legal actions at a decision node, for
  // PUCT. The default is uniform. Same threading contract as evaluate().
  virtual void priors(const State& state, const Action* actions, int n, float* out) const;
  // Throws SearchError if this evaluator cannot evaluate states like `state` (a network made for
  // another player count). The search calls it before it starts.
  virtual void check(const State& state) const;
  // What values a position like `state`, in words ("rollouts", "value network base, 2-4
  // players (value-base.value)"), for the search's result and the agents' logs.
  virtual std::string describe(const State& state) const;
};

// Plays the leaf out with a rollout policy (to the end or to a cutoff) and scores it.
// With Heuristic::Value the learned value replaces the cutoff heuristic (and with RolloutPolicy::None
// the rollout itself); a game no value network fits is evaluated as without it.
class RolloutEvaluator final : public Evaluator {
 public:
  explicit RolloutEvaluator(const RolloutConfig& config);  // throws SearchError (a value file)
  ~RolloutEvaluator() override;
  void evaluate(State& state, Rng& rng, Evaluation& out) const override;
  void priors(const State& state, const Action* actions, int n, float* out) const override;
  std::string describe(const State& state) const override;
  void check(const State& state) const override;  // a value file of another mix
  const RolloutConfig& config() const { return config_; }

 private:
  const ValueNet* value_net(const State& state) const;

  RolloutConfig config_;
  std::vector<std::shared_ptr<const ValueNet>> value_nets_;  // the candidates, first fit wins
  std::unique_ptr<RolloutEvaluator> fallback_;               // Value without a fitting network
};

// Draws a tile at a chance node with the caller's rng, weighted by the bag's counts. Never uses
// the state's own PRNG (State::sample_chance would replay the real game's future draws).
Action sample_draw(const State& state, Rng& rng);

// A rollout's figure decision with farmers=0: uniformly random among the options but a meeple
// on a field (a farmer placed at random in a rollout is noise to a cutoff valuation that counts
// fields); "pass" is always one. One draw of rng.
Action figure_without_farmer(const State& state, Rng& rng);

// Writes the outcomes of a chance node and their probabilities (summing to 1) into the caller's
// buffers (capacity kMaxActions) and returns how many; no heap allocation for tile draws.
int chance_outcomes(const State& state, Action* actions, float* probabilities);

// A guess at the final score of every player from a (non-terminal) position: the score, plus
// for the leaders of each unfinished feature a guess at what it will be worth at the end (cities
// and cloisters with a completion chance that falls with open ends and as the bag empties, roads
// as they stand, fields 3 per completed adjacent city and a share for open ones), plus a little
// per meeple in supply. Heuristic::Expected uses it at a rollout cutoff.
std::array<double, kMaxPlayers> heuristic_values(const State& state);

// heuristic_values' guess at what the unfinished feature with root segment `root` will be worth
// to its leaders, `late` as there (1 early in the game, 0 with an empty bag); 0 for rivers and
// the City's quarters.
double expected_worth(const State& state, int root, double late);

// The rewards and win estimates of a terminal state.
void terminal_evaluation(const State& state, const RolloutConfig& config, Evaluation& out);

}  // namespace carc
