// Agents: whatever chooses an action at a decision node. Search and the arena see only this.
#pragma once

#include <algorithm>
#include <array>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/errors.h"
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
// little for each meeple used; at the end of the game just the final score margin); ties broken
// at random.
// GreedyAgent's valuation counts this share of feature_potential (a feature may not complete)...
inline constexpr double kGreedyPotentialWeight = 0.5;
// ...and charges this many points per meeple on the board (a meeple out is a meeple less to use).
inline constexpr double kGreedyMeepleCost = 1.5;

class GreedyAgent final : public Agent {
 public:
  Action choose(const State& state, Rng& rng) override;
  std::string name() const override { return "greedy"; }
  // The valuation above, for player p; with field_weight > 0 (the search's priors, pfields=)
  // the led fields' field_potential counts this share too (GreedyAgent itself: 0).
  static double evaluate(const State& state, int p, double field_weight = 0);
};

// GreedyAgent's choice, without allocating (rollouts use it too).
Action greedy_action(const State& state, Rng& rng);

// GreedyAgent's value of each of the n actions (legal at `state`, a decision node) for the
// mover: the valuation after the action, looking through the figure decision a placement leads
// to. The search's greedy priors use it too. The values of one_ply_values with
// GreedyAgent::evaluate, bit for bit, but most figure options are valued from the state after
// "pass" without being played (their figure changes only its feature and the supply).
void greedy_values(const State& state, const Action* actions, int n, double* values, double field_weight = 0);

// One-ply values with any valuation(state after, mover) -> double: each action's result,
// looking through the figure decision a placement leads to (its best figure), every option
// played on a copy.
template <class Valuation>
void one_ply_values(const State& state, const Action* actions, int n, double* values, Valuation valuation) {
  const int me = state.current_player();
  // Scratch states per thread, refilled with copy_from: a fresh State would be copied (and an
  // empty optional zeroed) whole, 24 KB each, where copy_from takes only the used parts. A
  // valuation must not call one_ply_values itself (it would overwrite them).
  thread_local std::optional<State> next_scratch, after;
  if (next_scratch) next_scratch->copy_from(state);
  else next_scratch.emplace(state);
  State& next = *next_scratch;
  for (int i = 0; i < n; ++i) {
    if (i > 0) next.copy_from(state);
    next.apply_unchecked(actions[i]);
    if (next.current_player() == me && next.phase() == Phase::PlaceFigure) {
      Action figures[kMaxActions];
      int m = next.legal_actions(figures);
      values[i] = -1e18;
      for (int j = 0; j < m; ++j) {
        // The last figure goes onto next itself, which the next action refills anyway: a copy
        // fewer per placement.
        State* figured = &next;
        if (j < m - 1) {
          if (after) after->copy_from(next);
          else after.emplace(next);
          figured = &*after;
        }
        figured->apply_unchecked(figures[j]);
        values[i] = std::max(values[i], double(valuation(*figured, me)));
      }
    } else {
      values[i] = valuation(next, me);
    }
  }
}

// Per player: the value that the unfinished features each player leads would score now (cities
// 2 per tile and pennant, roads 1 per tile, cloisters 9 less their empty neighbours; fields
// not counted). Ties for the lead count for every leader.
std::array<double, kMaxPlayers> feature_potential(const State& state);

// Guesses of what an unfinished feature will be worth treat a bag of this many tiles or more as
// early in the game ("late" = 1) and scale down as it empties ("late" = bag / this).
inline constexpr double kLateBagTiles = 12.0;

// What the field with root segment `field` would pay its farmers at the end, as guessed now: 3
// per completed city next to it, and for an open one a share that falls with its open ends and
// with `late` (1 early in the game, 0 with an empty bag).
double field_value(const State& state, int field, double late);

// Per player: field_value of the fields each player leads (ties: every leader), with `late` from
// the bag's size. The search's cutoff valuation (fields=) and priors (pfields=) use it.
std::array<double, kMaxPlayers> field_potential(const State& state);

// Per player: what the barns each player has on the board would pay at the end, as guessed now
// (AM-B-6: 4 per completed city next to the barn's field, so field_value's guess times 4/3 for
// each barn). field_potential leaves these fields out: their farmers have scored (AM-B-5).
// The search's cutoff valuation (barns=) uses it.
std::array<double, kMaxPlayers> barn_potential(const State& state);

// scores[p] less the best of the other players' scores (players 0 .. players-1).
int score_lead(const std::array<int, kMaxPlayers>& scores, int players, int p);

// Thrown by runs of whole games (run_arena, play_game, play_random_games) stopped through their
// cancel flag.
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("cancelled") {}
};

// Bad input to search/: an agent spec or list, an MCTS option or config, an arena setting, an
// arena csv that cannot be read or written or holds another run's games. Python:
// carcassonne.SearchError.
struct SearchError : Error {
  using Error::Error;
};

// Fixed reference players (the strength ladder, docs/search.md): a name that keeps meaning the
// same player whatever the defaults become, with every playing option pinned; a new option must
// be added to each with the value that plays as before. Their budget and resources may be set as
// for "mcts" ("ref-rollout:time=0.2"); without a budget they run 1,000 iterations a move.
struct ReferencePlayer {
  const char* name;
  const char* options;  // every mcts option but time
  const char* about;    // for --help
};
inline constexpr ReferencePlayer kReferencePlayers[] = {
    {"ref-2026-12",
     "iters=1000,threads=1,parallel=tree,vl=1,select=puct,c=2,fpu=0.1,chance=stratified,expand=1,"
     "rollout=random,eps=0,cutoff=10,finish=20,eval=greedy,reward=margin,scale=40,mix=0.2,meeple=0,"
     "endgame=2,temp=10,blend=0,blendby=mean,prior=greedy,ptemp=3,fields=0,barns=0,farmers=1,pfields=0,net=,value=,"
     "values=,vmix=0,memory=1024,reuse=1,seed=0",
     "the MCTS of early December 2026, before it valued fields"},
    {"ref-rollout",
     "iters=1000,threads=1,parallel=tree,vl=1,select=puct,c=2,fpu=0.1,chance=stratified,expand=1,"
     "rollout=random,eps=0,cutoff=10,finish=20,eval=greedy,reward=margin,scale=40,mix=0.2,meeple=0,"
     "endgame=2,temp=10,blend=0,blendby=mean,prior=greedy,ptemp=3,fields=0.5,barns=0,farmers=0,pfields=0,net=,value=,"
     "values=,vmix=0,memory=1024,reuse=1,seed=0",
     "the rollout MCTS of 3 December 2026 (fields valued at the cutoff), the learned evaluator's yardstick"},
    {"ref-value-2026-12",
     "iters=1000,threads=1,parallel=tree,vl=1,select=puct,c=2,fpu=0.1,chance=stratified,expand=1,"
     "rollout=random,eps=0,cutoff=10,finish=20,eval=value,reward=margin,scale=40,mix=0.2,meeple=0,"
     "endgame=2,temp=10,blend=0,blendby=mean,prior=greedy,ptemp=3,fields=0.5,barns=0,farmers=0,pfields=0,net=,value=,"
     "values=@references/ref-value-2026-12,vmix=0,memory=1024,reuse=1,seed=0",
     "the default MCTS of 5 December 2026: the learned value where its pinned networks fit (2-player base, "
     "4-player every expansion from the City), the rollout search elsewhere"},
};
// The reference player of that name, or nullptr.
const ReferencePlayer* find_reference_player(const std::string& name);
// The options a reference player takes from its spec: budget and resources, not play.
inline const std::vector<std::string> kReferenceFreeOptions = {"time", "iters",  "threads", "parallel",
                                                               "vl",   "memory", "seed"};

// The "mcts" options of reference player `name` with the caller's `options` (budget and
// resources only) in place of the pinned ones. Throws SearchError for an unknown name or a
// playing option.
std::string reference_options(const std::string& name, const std::string& options);

// Returns the agent named by a spec: "random", "greedy", "mcts" with options after a colon,
// e.g. "mcts:time=0.5,threads=2" (mcts_options() in search/mcts.h lists them), or a reference
// player ("ref-rollout", "ref-2026-12:time=0.2"). Throws SearchError naming the unknown agent,
// option or bad value.
std::unique_ptr<Agent> make_agent(const std::string& spec);

// Splits a comma-separated list of agent specs: "greedy,mcts:iters=50,c=1,random" is
// {"greedy", "mcts:iters=50,c=1", "random"}. An item key=value (a '=' and no ':') continues the
// options of the agent before it; any other item starts an agent. Spaces around items are dropped.
// Throws SearchError for an empty list or item and for options that follow no agent options
// ("c=1,greedy", "greedy,c=1": options start after a colon). The specs themselves are checked by
// make_agent. Every agent list of the project (carc_selfplay, carc_arena, Python) is read with it.
std::vector<std::string> split_agent_list(const std::string& list);

}  // namespace carc
