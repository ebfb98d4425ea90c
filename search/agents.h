// Agents: whatever chooses an action at a decision node. Search and the arena see only this.
#pragma once

#include <memory>
#include <string>

#include "engine/game.h"
#include "engine/rng.h"

namespace carc {

class Agent {
 public:
  virtual ~Agent() = default;
  // Returns a legal action for state.current_player(); state is at a decision node.
  virtual Action choose(const State& state, Rng& rng) = 0;
  virtual std::string name() const = 0;
};

// Uniformly random among the legal actions.
class RandomAgent final : public Agent {
 public:
  Action choose(const State& state, Rng& rng) override;
  std::string name() const override { return "random"; }
};

// One-ply greedy: the action whose result has the best valuation for the mover (score margin
// over the best opponent, plus half the value of unfinished features the mover leads, minus a
// little for each meeple used); ties broken at random.
class GreedyAgent final : public Agent {
 public:
  Action choose(const State& state, Rng& rng) override;
  std::string name() const override { return "greedy"; }
  // The valuation above, for player p.
  static double evaluate(const State& state, int p);
};

// Returns the agent with this name ("random", "greedy"); throws std::invalid_argument.
std::unique_ptr<Agent> make_agent(const std::string& name);

}  // namespace carc
