// The arena: many games between agents, in parallel, with statistics that say who is stronger
// and by how much (win rates with 95% confidence intervals, score margins, Elo).
//
// Seats rotate and decks are paired: deal d fixes one shuffled tile sequence, and with pairing
// it is played once per seat rotation (seat s is played by entrant (s + r) % players in
// rotation r), so every entrant meets the same tiles from every seat and the luck of the draw
// cancels out. The agents never see the deck: the game state keeps its ordinary random bag and
// the arena applies each draw itself (the next deck tile still in the bag), so chance nodes show
// agents the true uncertainty.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "agents.h"
#include "engine/game.h"
#include "sprt.h"

namespace carc {

struct SearchResult;  // mcts.h

// An agent that searches by other means than MctsAgent (a Python MctsAgent,
// bindings/register_agents.cpp) and reports it to the arena as MctsAgent does: the iterations
// column and, with record_actions, the root visits of each searched move.
class SearchingAgent : public Agent {
 public:
  // The search behind the agent's last move; nullptr for a move made without one (forced).
  virtual const SearchResult* last_search() const = 0;
  // Iterations of every search since the agent was made (one game).
  virtual uint64_t total_iterations() const = 0;
};

struct GameRecord {
  int index = 0;                      // position in ArenaResult::games
  int deal = 0;                       // the deck
  int rotation = 0;                   // seat s is played by entrant (s + rotation) % players
  std::vector<int> entrant;           // per seat: the entrant playing it
  std::vector<int> scores;            // per seat
  std::vector<double> win_share;      // per seat: 1/k for each of the k top scorers
  std::vector<double> think_seconds;  // per seat, summed over its decisions
  std::vector<int> decisions;         // per seat
  std::vector<uint64_t> iterations;   // per seat: search iterations (0 for agents without search)
  std::vector<std::string> draws;     // the tiles drawn, in order (discarded ones included)
  double seconds = 0;                 // wall time of the game
  uint64_t seed = 0;                  // the run's ArenaConfig::game.seed and agent_seed: with the
  uint64_t agent_seed = 0;            // deal and rotation they fix the game (checked on resume)
  // What balance studies need, per seat (also in the csv):
  std::vector<int> rank;                  // 1 + the number of seats with a higher score
  std::vector<std::vector<int>> points;   // points per Cause (kNumCauses, B-11): the engine's breakdown
  std::vector<std::vector<int>> figures;  // figures placed from the supply per FigureKind (on a tile
                                          // or into the City; wagon and City moves not counted)
  std::vector<int> tiles;                 // tiles placed (abbeys included)
  int turns = 0;                          // turns played (State::turn_number at the end)
  // Not in the csv (empty for games read back from one):
  std::vector<std::map<std::string, int>> tiles_by_kind;  // per seat: tiles placed per kind name
  std::vector<std::string> evaluators;                    // per seat: what valued its first search's leaves
                                                          // (SearchResult::evaluator); "" for agents without search
  // With ArenaConfig::record_actions: every action of the game in order, draws included (they
  // replay it), the seat that chose each (-1 for draws), and at each one an MCTS agent's root
  // visits (action code, visits), most visited first; empty for draws, forced moves and agents
  // without search.
  std::vector<uint32_t> actions;
  std::vector<int> deciders;
  std::vector<std::vector<std::pair<uint32_t, uint32_t>>> visits;
  // Alongside `visits`, per action: that search's estimates at the root for every seat: win
  // share (SearchResult::win) and mean reward (SearchResult::reward); empty where visits is.
  std::vector<std::vector<float>> search_win;
  std::vector<std::vector<float>> search_reward;
  // Per seat, for studies of play (issue 22; field points come from `points`); not in the csv
  // (empty for resumed games).
  std::vector<std::map<std::string, int>> moves;  // decisions by kind (move_kind)
};

// A decision's kind for GameRecord::moves: "place", "pass", a figure with the type of feature it
// goes to ("meeple field", "mayor city", "wagon road"; "... moved" for a figure sent to another
// tile), "barn", "abbey", "meeple @castle" (a City quarter), "count", ...
std::string move_kind(const State& state, Action action);

struct ArenaConfig {
  Config game;                      // rules: players, expansions, variants; seed picks the decks
  std::vector<std::string> agents;  // one agent spec per entrant; exactly game.players of them
  // Optional, per entrant (empty, or one per entrant): agents made outside the spec table, e.g.
  // from Python. Where custom_agents[e] is set, it makes entrant e's agent for each game, given the
  // seed the arena derives for that entrant and deal, and agents[e] is only its name (reports and
  // csv). Such agents need not be thread-safe: a run with any plays its games one at a time.
  std::vector<std::function<std::unique_ptr<Agent>(uint64_t seed)>> custom_agents;
  int deals = 10;               // decks to play
  int first_deal = 0;           // they are decks first_deal .. first_deal + deals - 1 (a sweep
                                // plays a long run in chunks, each its own arena run)
  bool record_actions = false;  // keep GameRecord::actions and visits (training data)
  bool paired = true;           // each deck once per seat rotation (else one game per deck,
                                // rotation = deal % players)
  int rotation = -1;            // >= 0: one game per deck, all with this seat rotation (seat s
                                // holds entrant (s + rotation) mod players): studies one seat
  int threads = 0;              // games played at once (0: all cores); an MCTS agent's own
                                // threads come on top, so use 1 here for threads > 1 there
  uint64_t agent_seed = 1;      // seeds the agents' random streams
  // Games already played by an earlier, interrupted run of this same configuration (read back
  // with read_arena_csv): they are not played again but count in the summary.
  std::vector<GameRecord> done;
  // Called after each game, from the thread that played it, one call at a time (progress
  // output). Optional; leave empty from Python (the GIL is released during the run).
  std::function<void(const GameRecord&)> on_game;
  // Optional: once set (from any thread), no new move is made and run_arena throws Cancelled.
  const std::atomic<bool>* cancel = nullptr;
  // Optional, 2 players only: a sequential test (search/sprt.h) over every finished game, resumed
  // ones included, that ends the run as soon as it decides; the games then in play are dropped.
  std::optional<SprtConfig> sprt;
  // Called after each game with the test's state, one call at a time (progress output).
  std::function<void(const SprtStatus&)> on_sprt;
};

// Statistics treat a deal (its games with the seats rotated) as one unit: paired games share a
// deck, so they are not independent. Win rates have Wilson score intervals over the deals
// (rate_with_interval), which never have zero width, not even at 0% or 100%. Elo vs entrant 0
// comes from the entrant's pairwise score against entrant 0 (1 per game it outscored entrant 0,
// 1/2 per tie; in a 2-player arena its win rate): the estimate is 400 log10(s / (1 - s)) with one
// virtual draw added to s (finite when one never outscores the other), the interval is that
// transform of the Wilson interval of s (a bound is infinite at s = 0 or 1).
struct EntrantStats {
  std::string agent;
  int games = 0;
  double win_rate = 0, win_low = 0, win_high = 0;      // mean win share, 95% CI (Wilson, per deal)
  double score = 0;                                    // mean score
  double margin = 0, margin_low = 0, margin_high = 0;  // own score - best other score, 95% CI
                                                       // (normal, per deal; infinite for one deal)
  double elo = 0, elo_low = 0, elo_high = 0;           // vs entrant 0 (pairwise score), 95% CI
  double seconds_per_move = 0;
  double iterations_per_move = 0;  // search agents only
  // What valued the leaves of its searches, with the network file and its hash
  // (SearchResult::evaluator); "" for agents without search and for games read from a csv.
  std::string evaluator;
};

// An agent that holds several seats of each game (the same spec given more than once, as in a
// 2-against-2 match of 4 players): its seats together are one side. The side wins a game's share
// of its seats' win shares summed, so two sides' rates add up to 1 (a fair share is seats /
// players). The margin is the side's best score minus the best score of the other seats.
// Intervals as for an entrant: per deal, Wilson for the rate, normal for the margin.
struct SideStats {
  std::string agent;
  std::vector<int> entrants;  // the entrants that play this spec, in order
  int games = 0;
  double win_rate = 0, win_low = 0, win_high = 0;
  double margin = 0, margin_low = 0, margin_high = 0;
};

struct ArenaResult {
  int players = 0;
  int deals = 0;
  bool paired = true;
  std::vector<std::string> agents;
  std::vector<GameRecord> games;  // in (deal, rotation) order (only those played if a test decided)
  std::vector<EntrantStats> entrants;
  std::vector<SideStats> sides;    // one per spec given for several seats but not all of them
  double seconds = 0;              // wall time of the run
  std::optional<SprtStatus> sprt;  // with ArenaConfig::sprt: the test after the last game
  // A table of the entrant statistics, then of the sides if any (and the test's line).
  std::string report() const;
  // One line per game and seat: game,deal,rotation,seat,entrant,agent,score,win_share,...,seed,
  // agent_seed, then rank, turns, tiles, the figures per kind and the points per cause
  // (arena_csv_header names them).
  std::string csv() const;
};

// The csv's header line, and the lines of one game (what ArenaResult::csv is made of), for
// writing games out as they finish.
std::string arena_csv_header();
std::string arena_csv_rows(const GameRecord& game, const std::vector<std::string>& agents);

// Reads the games of an arena csv back (ArenaResult::csv, or the lines written as games finished)
// for ArenaConfig::done. Every game must have been played by these agents, one line per seat of
// `players`. A cut-off last line and games missing seats (a run stopped while writing) are
// dropped; anything else malformed throws SearchError naming the line (a csv of an older arena,
// without the balance columns, too: its header says so).
std::vector<GameRecord> read_arena_csv(const std::string& text, const std::vector<std::string>& agents, int players);

// Plays the games and summarises them. Throws SearchError (search/agents.h) for bad agent specs
// or counts and ConfigError for bad rules, before any game starts.
ArenaResult run_arena(const ArenaConfig& config);

// run_arena that keeps a csv at `path`: each game is appended as it finishes, so a stopped run
// loses only the games in play, and the whole file is rewritten in game order at the end. With
// `resume`, the games the file holds (read_arena_csv) count and are not played again (a file
// that does not exist yet holds none); without, the file is replaced. The file is first written
// when a game finishes, so a bad command leaves it alone. Throws SearchError if the file cannot
// be read or written (a path in a missing folder at once, before any game).
ArenaResult run_arena_csv(ArenaConfig config, const std::string& path, bool resume);

// The statistics of a set of games (run_arena's summary; exposed for tests and notebooks).
// Confidence intervals treat deals as the independent units (paired games are correlated).
std::vector<EntrantStats> summarise(const std::vector<GameRecord>& games, const std::vector<std::string>& agents);
// The sides: every spec of `agents` given more than once but not for every seat, in the order
// of its first entrant.
std::vector<SideStats> summarise_sides(const std::vector<GameRecord>& games, const std::vector<std::string>& agents);

// A rate in [0, 1] and its 95% confidence interval.
struct Rate {
  double value = 0, low = 0, high = 1;
};
// The rate and its interval from the rate's mean in every deal, over `games` games in all (see
// arena.cpp for the effective sample size behind the Wilson interval). No deals: 0 in [0, 1].
Rate rate_with_interval(const std::vector<double>& deal_means, int games);

// The deck of deal `deal`: every tile of the bag of a new game of `game`, shuffled by a seed
// derived from game.seed and deal.
std::vector<KindId> make_deck(const Config& game, int deal);

}  // namespace carc
