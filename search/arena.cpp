#include "arena.h"

#include <algorithm>
#include <atomic>
#include <charconv>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <stdexcept>

#include "agents.h"
#include "mcts.h"
#include "parallel.h"

namespace carc {

namespace {

using Clock = std::chrono::steady_clock;

// Salt of the arena's deal and agent seeds (engine/rng.h's mix_seeds).
constexpr uint64_t kArenaSeedSalt = 0x2545F4914F6CDD1Dull;
uint64_t mix(uint64_t a, uint64_t b) { return mix_seeds(a, b, kArenaSeedSalt); }

double seconds_since(Clock::time_point t) { return std::chrono::duration<double>(Clock::now() - t).count(); }

bool is_custom(const ArenaConfig& config, int entrant) {
  return size_t(entrant) < config.custom_agents.size() && config.custom_agents[size_t(entrant)];
}

// The search behind an agent's last move (MctsAgent's, or a SearchingAgent's); nullptr if none.
const SearchResult* last_search(const Agent& agent) {
  if (auto* mcts = dynamic_cast<const MctsAgent*>(&agent)) return &mcts->last_result();
  if (auto* searching = dynamic_cast<const SearchingAgent*>(&agent)) return searching->last_search();
  return nullptr;
}

// `stop`: the run's own end (a decided SPRT), checked like config.cancel.
GameRecord play_one(const ArenaConfig& config, int deal, int rotation, const std::vector<KindId>& deck,
                    const std::atomic<bool>& stop) {
  const int players = config.game.players;
  const Catalogue& cat = Catalogue::builtin();
  GameRecord r;
  r.deal = deal;
  r.rotation = rotation;
  std::vector<std::unique_ptr<Agent>> agents;
  std::vector<Rng> rngs;
  for (int s = 0; s < players; ++s) {
    int e = (s + rotation) % players;
    r.entrant.push_back(e);
    const uint64_t seed = mix(mix(config.agent_seed, uint64_t(deal)), uint64_t(e));
    agents.push_back(is_custom(config, e) ? config.custom_agents[size_t(e)](seed)
                                          : make_agent(config.agents[size_t(e)]));
    rngs.emplace_back(seed);
  }
  r.think_seconds.assign(size_t(players), 0.0);
  r.decisions.assign(size_t(players), 0);
  r.iterations.assign(size_t(players), 0);
  r.figures.assign(size_t(players), std::vector<int>(kNumFigureKinds, 0));
  r.tiles.assign(size_t(players), 0);
  r.tiles_by_kind.assign(size_t(players), {});
  r.evaluators.assign(size_t(players), "");
  r.moves.resize(size_t(players));
  Config game = config.game;
  game.seed = mix(config.game.seed, uint64_t(deal));
  State state(game);
  const auto start = Clock::now();
  size_t next = 0;
  while (!state.is_terminal()) {
    if (state.is_chance()) {
      // The deck's next tile still in the bag (an expansion may take tiles out by other means).
      while (next < deck.size() && state.bag_count(deck[next]) == 0) ++next;
      Action a = next < deck.size() ? Action::draw(deck[next++]) : state.sample_chance();
      if (!state.is_legal(a)) a = state.sample_chance();
      r.draws.push_back(cat.kind(KindId(a.tile_kind())).name);
      state.apply(a);
      if (config.record_actions) {
        r.actions.push_back(a.code);
        r.deciders.push_back(-1);
        r.visits.emplace_back();
        r.search_win.emplace_back();
        r.search_reward.emplace_back();
      }
      continue;
    }
    if ((config.cancel && config.cancel->load(std::memory_order_relaxed)) || stop.load(std::memory_order_relaxed))
      throw Cancelled();
    const int seat = state.current_player();
    const Phase phase = state.phase();
    const auto t = Clock::now();
    Action a = agents[size_t(seat)]->choose(state, rngs[size_t(seat)]);
    r.think_seconds[size_t(seat)] += seconds_since(t);
    if (r.evaluators[size_t(seat)].empty())
      if (const SearchResult* searched = last_search(*agents[size_t(seat)]))
        r.evaluators[size_t(seat)] = searched->evaluator;
    ++r.decisions[size_t(seat)];
    ++r.moves[size_t(seat)][move_kind(state, a)];
    state.apply(a);  // checked: an agent's illegal move is an error, not a silent corruption
    const ActionKind kind = a.kind();
    if ((phase == Phase::PlaceFigure && kind == ActionKind::Figure) || kind == ActionKind::Quarter)
      ++r.figures[size_t(seat)][size_t(a.figure_kind())];
    if (kind == ActionKind::Place || kind == ActionKind::Abbey) {
      ++r.tiles[size_t(seat)];
      const Board& board = state.board();
      ++r.tiles_by_kind[size_t(seat)][cat.kind(board.tile(board.slot_at(a.cell())).kind).name];
    }
    if (config.record_actions) {
      r.actions.push_back(a.code);
      r.deciders.push_back(seat);
      r.visits.emplace_back();
      r.search_win.emplace_back();
      r.search_reward.emplace_back();
      if (const SearchResult* searched = last_search(*agents[size_t(seat)])) {
        for (const ActionStats& s : searched->actions) r.visits.back().emplace_back(s.action.code, s.visits);
        if (!r.visits.back().empty()) {
          r.search_win.back().assign(searched->win.begin(), searched->win.end());
          r.search_reward.back().assign(searched->reward.begin(), searched->reward.end());
        }
      }
    }
  }
  r.turns = state.turn_number();
  for (int s = 0; s < players; ++s) {
    r.scores.push_back(state.score(s));
    std::vector<int>& points = r.points.emplace_back();
    for (int c = 0; c < kNumCauses; ++c) points.push_back(state.score(s, Cause(c)));
    if (auto* m = dynamic_cast<MctsAgent*>(agents[size_t(s)].get())) r.iterations[size_t(s)] = m->total_iterations();
    if (auto* m = dynamic_cast<SearchingAgent*>(agents[size_t(s)].get()))
      r.iterations[size_t(s)] = m->total_iterations();
  }
  for (int s = 0; s < players; ++s)
    r.rank.push_back(
        1 + int(std::count_if(r.scores.begin(), r.scores.end(), [&](int x) { return x > r.scores[size_t(s)]; })));
  r.win_share = state.returns();
  r.seconds = seconds_since(start);
  r.seed = config.game.seed;
  r.agent_seed = config.agent_seed;
  return r;
}

}  // namespace

std::string move_kind(const State& state, Action action) {
  const std::string text = state.action_to_string(action);
  if (action.kind() == ActionKind::Place) return "place";
  if (action.kind() == ActionKind::Figure) {
    if (action.figure_kind() == FigureKind::Barn) return "barn";
    // "meeple city#0" or "wagon road#1 @3,-1"
    std::string kind = text.substr(0, text.find('#'));
    return text.find('@') != std::string::npos ? kind + " moved" : kind;
  }
  if (action.kind() == ActionKind::Quarter) return text;  // "meeple @castle"
  return text.substr(0, text.find(' '));                  // "pass", "abbey", "count", ...
}

namespace {

// Mean and 95% confidence half-width (normal approximation) of the values.
std::pair<double, double> mean_ci(const std::vector<double>& v) {
  if (v.empty()) return {0, 0};
  double mean = 0;
  for (double x : v) mean += x;
  mean /= double(v.size());
  if (v.size() < 2) return {mean, INFINITY};
  double var = 0;
  for (double x : v) var += (x - mean) * (x - mean);
  var /= double(v.size() - 1);
  return {mean, 1.96 * std::sqrt(var / double(v.size()))};
}

// The Elo difference that an expected score of p against the other player means (±inf at 1, 0).
double elo_of(double p) {
  if (p <= 0 || p >= 1) return p <= 0 ? -INFINITY : INFINITY;
  return 400.0 * std::log10(p / (1.0 - p));
}

std::string fixed(double x, int decimals) {
  if (std::isinf(x)) return x > 0 ? "inf" : "-inf";
  char buffer[64];
  std::snprintf(buffer, sizeof buffer, "%.*f", decimals, x);
  return buffer;
}

// "x [low, high]"; a margin over one deal has no interval (both bounds infinite): "x [n/a]".
// An Elo bound is infinite at a rate of 0 or 1: "inf".
std::string interval(double x, double low, double high, int decimals) {
  if (std::isinf(low) && std::isinf(high)) return fixed(x, decimals) + " [n/a]";
  return fixed(x, decimals) + " [" + fixed(low, decimals) + ", " + fixed(high, decimals) + "]";
}

}  // namespace

// A deal's games are one unit (paired games share a deck, so they are correlated):
// the interval is Wilson's score interval for n = the effective number of independent games,
// p(1 - p) / (variance of the mean of the deal means) (Kish's design effect), kept between the
// number of deals and the number of games. Without a spread to measure, n is the number of
// games if every deal gave the same mixed result, and the number of deals at a rate of 0 or 1
// (the most cautious reading: a deal's games may all go the same way). Unlike the normal
// approximation, the interval never has zero width: 15 deals all won give [0.796, 1].
Rate rate_with_interval(const std::vector<double>& deal_means, int games) {
  if (deal_means.empty()) return {0, 0, 1};
  const double deals = double(deal_means.size());
  double p = 0;
  for (double x : deal_means) p += x;
  p /= deals;
  double variance = 0;
  for (double x : deal_means) variance += (x - p) * (x - p);
  variance = deals > 1 ? variance / (deals - 1) / deals : 0;  // of the mean
  double n = deals;
  if (deals > 1 && p > 0 && p < 1)
    n = variance > 0 ? std::clamp(p * (1 - p) / variance, deals, double(games)) : double(games);
  const double z = 1.96, z2 = z * z;
  const double center = (p + z2 / (2 * n)) / (1 + z2 / n);
  const double half = z / (1 + z2 / n) * std::sqrt(p * (1 - p) / n + z2 / (4 * n * n));
  return {p, std::clamp(center - half, 0.0, p), std::clamp(center + half, p, 1.0)};
}

namespace {

// An entrant's or a side's win rate and margin, with their intervals, from its deals' means.
template <class Stats>
void set_win_and_margin(Stats& st, const std::vector<double>& deal_wins, const std::vector<double>& deal_margins) {
  const Rate win = rate_with_interval(deal_wins, st.games);
  auto [margin, margin_ci] = mean_ci(deal_margins);
  st.win_rate = win.value;
  st.win_low = win.low;
  st.win_high = win.high;
  st.margin = margin;
  st.margin_low = margin - margin_ci;
  st.margin_high = margin + margin_ci;
}

}  // namespace

std::vector<KindId> make_deck(const Config& game, int deal) {
  State fresh(game);
  std::vector<KindId> deck;
  for (int k = 0; k < kMaxKinds; ++k)
    for (int i = 0; i < fresh.bag_count(KindId(k)); ++i) deck.push_back(KindId(k));
  Rng rng(mix(game.seed ^ 0xDECC0DECull, uint64_t(deal)));
  for (size_t i = deck.size(); i > 1; --i) std::swap(deck[i - 1], deck[rng.below(uint32_t(i))]);
  return deck;
}

std::vector<EntrantStats> summarise(const std::vector<GameRecord>& games, const std::vector<std::string>& agents) {
  const int k = int(agents.size());
  std::vector<EntrantStats> out(static_cast<size_t>(k));
  std::map<int, std::vector<const GameRecord*>> by_deal;
  for (const GameRecord& g : games) by_deal[g.deal].push_back(&g);
  for (int e = 0; e < k; ++e) {
    EntrantStats& st = out[size_t(e)];
    st.agent = agents[size_t(e)];
    std::vector<double> deal_wins, deal_margins, deal_vs_first;
    double seconds = 0, moves = 0, iterations = 0, score = 0, vs_first = 0;
    for (const auto& [deal, list] : by_deal) {
      double w = 0, m = 0, v = 0;
      int n = 0;
      for (const GameRecord* g : list) {
        for (size_t s = 0; s < g->entrant.size(); ++s) {
          if (g->entrant[s] != e) continue;
          int best_other = -1000000, first = 0;
          for (size_t t = 0; t < g->scores.size(); ++t) {
            if (t != s) best_other = std::max(best_other, g->scores[t]);
            if (g->entrant[t] == 0) first = g->scores[t];
          }
          w += g->win_share[s];
          m += g->scores[s] - best_other;
          v += g->scores[s] > first ? 1.0 : g->scores[s] == first ? 0.5 : 0.0;
          score += g->scores[s];
          seconds += g->think_seconds[s];
          moves += g->decisions[s];
          iterations += double(g->iterations[s]);
          if (st.evaluator.empty() && s < g->evaluators.size()) st.evaluator = g->evaluators[s];
          ++n;
          ++st.games;
        }
      }
      if (n == 0) continue;
      deal_wins.push_back(w / n);
      deal_margins.push_back(m / n);
      deal_vs_first.push_back(v / n);
      vs_first += v;
    }
    set_win_and_margin(st, deal_wins, deal_margins);
    st.score = st.games ? score / st.games : 0;
    st.seconds_per_move = moves ? seconds / moves : 0;
    st.iterations_per_move = moves ? iterations / moves : 0;
    if (e > 0) {
      // One virtual draw keeps the estimate finite when one of the two never outscores the other.
      const Rate vs = rate_with_interval(deal_vs_first, st.games);
      st.elo = elo_of((vs_first + 0.5) / (st.games + 1));
      st.elo_low = elo_of(vs.low);
      st.elo_high = elo_of(vs.high);
    }
  }
  return out;
}

std::vector<SideStats> summarise_sides(const std::vector<GameRecord>& games, const std::vector<std::string>& agents) {
  std::vector<SideStats> sides;
  for (size_t e = 0; e < agents.size(); ++e) {
    const bool seen = std::any_of(sides.begin(), sides.end(), [&](const SideStats& s) { return s.agent == agents[e]; });
    const auto seats = std::count(agents.begin(), agents.end(), agents[e]);
    // One seat is an entrant, not a side; every seat (self-play) leaves no other side to measure.
    if (seen || seats < 2 || seats == std::ssize(agents)) continue;
    SideStats& side = sides.emplace_back();
    side.agent = agents[e];
    for (size_t f = e; f < agents.size(); ++f)
      if (agents[f] == agents[e]) side.entrants.push_back(int(f));
  }
  for (SideStats& side : sides) {
    const auto on_side = [&](int entrant) {
      return std::find(side.entrants.begin(), side.entrants.end(), entrant) != side.entrants.end();
    };
    std::map<int, std::pair<double, double>> wins_margins;  // per deal: sums over its games
    std::map<int, int> games_of_deal;
    for (const GameRecord& g : games) {
      double win = 0;
      int best_own = -1000000, best_other = -1000000;
      for (size_t s = 0; s < g.entrant.size(); ++s) {
        if (on_side(g.entrant[s])) {
          win += g.win_share[s];
          best_own = std::max(best_own, g.scores[s]);
        } else {
          best_other = std::max(best_other, g.scores[s]);
        }
      }
      wins_margins[g.deal].first += win;
      wins_margins[g.deal].second += best_own - best_other;
      ++games_of_deal[g.deal];
      ++side.games;
    }
    std::vector<double> deal_wins, deal_margins;
    for (const auto& [deal, sums] : wins_margins) {
      deal_wins.push_back(sums.first / games_of_deal[deal]);
      deal_margins.push_back(sums.second / games_of_deal[deal]);
    }
    set_win_and_margin(side, deal_wins, deal_margins);
  }
  return sides;
}

ArenaResult run_arena(const ArenaConfig& config) {
  const int players = config.game.players;
  Config rules = validate(config.game);  // ConfigError before anything starts
  if (!rules.draw_order.empty()) throw SearchError("arena: the decks are the arena's own; leave draw_order empty");
  if (int(config.agents.size()) != players)
    throw SearchError("arena: one agent per player expected (" + std::to_string(players) + "), got " +
                      std::to_string(config.agents.size()));
  if (config.deals < 1) throw SearchError("arena: deals must be >= 1, got " + std::to_string(config.deals));
  if (config.first_deal < 0 || config.first_deal > INT32_MAX - config.deals)
    throw SearchError("arena: first_deal must be from 0 to 2^31 - 1 - deals, got " + std::to_string(config.first_deal));
  if (config.threads < 0) throw SearchError("arena: threads must be >= 0, got " + std::to_string(config.threads));
  if (config.rotation < -1 || config.rotation >= players)
    throw SearchError("arena: rotation must be -1 (every seating) or 0 to " + std::to_string(players - 1) + ", got " +
                      std::to_string(config.rotation));
  if (!config.custom_agents.empty() && int(config.custom_agents.size()) != players)
    throw SearchError("arena: custom_agents must be empty or hold one entry per entrant");
  bool any_custom = false;
  for (int e = 0; e < players; ++e) {
    if (is_custom(config, e)) any_custom = true;
    else make_agent(config.agents[size_t(e)]);  // SearchError for bad specs
  }
  if (config.sprt && players != 2) throw SearchError("arena: a sequential test needs 2 players");

  const bool paired = config.paired && config.rotation < 0;
  const int rotations = paired ? players : 1;
  const int total = config.deals * rotations;
  ArenaResult result;
  result.players = players;
  result.deals = config.deals;
  result.paired = paired;
  result.agents = config.agents;
  result.games.resize(size_t(total));
  // Game i plays deck first_deal + i / rotations with this seating (seat s holds entrant (s + rotation) % players).
  auto rotation_of = [&](int i) {
    return config.rotation >= 0 ? config.rotation : paired ? i % rotations : (config.first_deal + i) % players;
  };
  std::vector<char> played(size_t(total), 0);
  for (const GameRecord& g : config.done) {
    auto mismatch = [&](const std::string& why) {
      return SearchError("arena: game " + std::to_string(g.index) + " to resume " + why);
    };
    if (g.index < 0 || g.index >= total) throw mismatch("is not a game of this run");
    const int rotation = rotation_of(g.index);
    if (g.deal != config.first_deal + g.index / rotations || g.rotation != rotation)
      throw mismatch("has another deal or seat rotation than this run's");
    if (played[size_t(g.index)]) throw mismatch("is given twice");
    if (g.seed != config.game.seed || g.agent_seed != config.agent_seed)
      throw mismatch("was played with seed " + std::to_string(g.seed) + " and agent seed " +
                     std::to_string(g.agent_seed) + ", this run has " + std::to_string(config.game.seed) + " and " +
                     std::to_string(config.agent_seed));
    if (int(g.scores.size()) != players || int(g.entrant.size()) != players || int(g.win_share.size()) != players ||
        int(g.think_seconds.size()) != players || int(g.decisions.size()) != players ||
        int(g.iterations.size()) != players || int(g.rank.size()) != players || int(g.points.size()) != players ||
        int(g.figures.size()) != players || int(g.tiles.size()) != players)
      throw mismatch("does not have one entry per seat");
    for (int s = 0; s < players; ++s)
      if (g.entrant[size_t(s)] != (s + rotation) % players) throw mismatch("has another seating than this run's");
    result.games[size_t(g.index)] = g;
    played[size_t(g.index)] = 1;
  }
  // The sequential test, if any, sees every finished game (the resumed ones first); once it has
  // decided, no new move is made.
  std::vector<GameRecord> finished;
  std::atomic<bool> decided{false};
  if (config.sprt) {
    finished = config.done;
    result.sprt = sprt_status(finished, paired, *config.sprt);
    decided = result.sprt->decision != SprtDecision::Continue;
  }
  std::mutex report_mutex;
  const auto start = Clock::now();
  auto play = [&](int i) {
    if (played[size_t(i)] || decided) return;
    const int deal = config.first_deal + i / rotations;
    GameRecord r;
    try {
      r = play_one(config, deal, rotation_of(i), make_deck(config.game, deal), decided);
    } catch (const Cancelled&) {
      return;  // reported once every thread has stopped, below
    }
    r.index = i;
    {
      std::lock_guard<std::mutex> lock(report_mutex);
      if (config.on_game) config.on_game(r);
      if (config.sprt) {
        finished.push_back(r);
        result.sprt = sprt_status(finished, paired, *config.sprt);
        if (result.sprt->decision != SprtDecision::Continue) decided = true;
        if (config.on_sprt) config.on_sprt(*result.sprt);
      }
    }
    result.games[size_t(i)] = std::move(r);
  };
  // config.threads 0: one per core; custom agents (Python ones) play their games one at a time.
  parallel_for(total, any_custom ? 1 : config.threads, play);
  if (config.cancel && config.cancel->load()) throw Cancelled();
  if (decided) {  // the games not played (or dropped in play) go
    std::erase_if(result.games, [](const GameRecord& g) { return g.entrant.empty(); });
    std::set<int> deals;
    for (const GameRecord& g : result.games) deals.insert(g.deal);
    result.deals = int(deals.size());
  }
  result.seconds = seconds_since(start);
  result.entrants = summarise(result.games, config.agents);
  result.sides = summarise_sides(result.games, config.agents);
  return result;
}

std::string ArenaResult::report() const {
  std::string out = std::to_string(players) + " players, " + std::to_string(deals) + " deals" +
                    (paired ? " x " + std::to_string(players) + " seat rotations (paired decks)" : " (unpaired)") +
                    " = " + std::to_string(games.size()) + " games in " + fixed(seconds, 1) + " s\n";
  char line[512];
  std::snprintf(line, sizeof line, "%-3s %-34s %6s  %-22s %7s  %-24s %-22s %8s %10s\n", "#", "agent", "games",
                "win rate [95% CI]", "score", "margin [95% CI]", "Elo vs #0 [95% CI]", "s/move", "iters/move");
  out += line;
  for (size_t e = 0; e < entrants.size(); ++e) {
    const EntrantStats& s = entrants[e];
    std::string win = interval(s.win_rate, s.win_low, s.win_high, 3);
    std::string margin = interval(s.margin, s.margin_low, s.margin_high, 1);
    std::string elo = interval(s.elo, s.elo_low, s.elo_high, 0);
    std::snprintf(line, sizeof line, "%-3zu %-34s %6d  %-22s %7.1f  %-24s %-22s %8.4f %10.0f\n", e, s.agent.c_str(),
                  s.games, win.c_str(), s.score, margin.c_str(), elo.c_str(), s.seconds_per_move,
                  s.iterations_per_move);
    out += line;
  }
  if (!sides.empty()) {
    std::snprintf(line, sizeof line, "%-3s %-34s %6s  %-22s %7s  %s\n", "", "side (one agent, several seats)", "games",
                  "win share [95% CI]", "fair", "margin [95% CI]");
    out += line;
  }
  for (const SideStats& s : sides) {
    std::string seats;
    for (int e : s.entrants) seats += (seats.empty() ? "#" : "+#") + std::to_string(e);
    const std::string win = interval(s.win_rate, s.win_low, s.win_high, 3);
    const std::string margin = interval(s.margin, s.margin_low, s.margin_high, 1);
    std::snprintf(line, sizeof line, "%-5s %-32s %6d  %-22s %7.3f  %s\n", seats.c_str(), s.agent.c_str(), s.games,
                  win.c_str(), double(s.entrants.size()) / players, margin.c_str());
    out += line;
  }
  for (size_t e = 0; e < entrants.size(); ++e)
    if (!entrants[e].evaluator.empty())
      out += "#" + std::to_string(e) + " valued its leaves with " + entrants[e].evaluator + "\n";
  if (sprt) out += "sprt " + sprt->text() + "\n";
  return out;
}

namespace {

// The columns before the balance columns: an arena csv of before them has exactly these.
constexpr const char* kCsvBaseColumns =
    "game,deal,rotation,seat,entrant,agent,score,win_share,decisions,think_seconds,iterations,seed,agent_seed";
constexpr size_t kCsvBaseFields = 13;
constexpr size_t kCsvFields = kCsvBaseFields + 3 + kNumFigureKinds + kNumCauses;

}  // namespace

std::string arena_csv_header() {
  std::string header = std::string(kCsvBaseColumns) + ",rank,turns,tiles";
  for (int f = 0; f < kNumFigureKinds; ++f) header += std::string(",figures_") + figure_kind_name(FigureKind(f));
  for (int c = 0; c < kNumCauses; ++c) header += std::string(",points_") + cause_name(Cause(c));
  return header + "\n";
}

std::string arena_csv_rows(const GameRecord& g, const std::vector<std::string>& agents) {
  std::string out;
  for (size_t s = 0; s < g.scores.size(); ++s) {
    out += std::to_string(g.index) + "," + std::to_string(g.deal) + "," + std::to_string(g.rotation) + "," +
           std::to_string(s) + "," + std::to_string(g.entrant[s]) + ",\"" + agents[size_t(g.entrant[s])] + "\"," +
           std::to_string(g.scores[s]) + "," + fixed(g.win_share[s], 4) + "," + std::to_string(g.decisions[s]) + "," +
           fixed(g.think_seconds[s], 4) + "," + std::to_string(g.iterations[s]) + "," + std::to_string(g.seed) + "," +
           std::to_string(g.agent_seed) + "," + std::to_string(g.rank[s]) + "," + std::to_string(g.turns) + "," +
           std::to_string(g.tiles[s]);
    for (const std::vector<int>* counts : {&g.figures[s], &g.points[s]})
      for (int n : *counts) (out += ',') += std::to_string(n);
    out += '\n';
  }
  return out;
}

std::string ArenaResult::csv() const {
  std::string out = arena_csv_header();
  for (const GameRecord& g : games) out += arena_csv_rows(g, agents);
  return out;
}

std::vector<GameRecord> read_arena_csv(const std::string& text, const std::vector<std::string>& agents, int players) {
  if (players < 1 || int(agents.size()) != players)
    throw SearchError("arena csv: one agent per player expected (" + std::to_string(players) + ")");
  std::map<int, GameRecord> games;
  size_t pos = 0;
  int line_number = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) break;  // cut off while being written
    std::string line = text.substr(pos, end - pos);
    pos = end + 1;
    if (++line_number == 1) {
      if (line == kCsvBaseColumns)
        throw SearchError(
            "arena csv: the file is of an older arena, without the rank, tiles, figures and points columns: "
            "it cannot be resumed; play the run again");
      if (line + "\n" != arena_csv_header()) throw SearchError("arena csv: line 1 is not the arena csv header");
      continue;
    }
    auto bad = [&](const std::string& why) {
      return SearchError("arena csv line " + std::to_string(line_number) + ": " + why);
    };
    // Fields; the agent is quoted (its options have commas).
    std::vector<std::string> fields;
    for (size_t i = 0; i <= line.size();) {
      if (i < line.size() && line[i] == '"') {
        size_t close = line.find('"', i + 1);
        if (close == std::string::npos) throw bad("unclosed quote");
        fields.push_back(line.substr(i + 1, close - i - 1));
        i = close + 1;
        if (i < line.size() && line[i] != ',') throw bad("text after a quoted field");
        ++i;
      } else {
        size_t comma = std::min(line.find(',', i), line.size());
        fields.push_back(line.substr(i, comma - i));
        i = comma + 1;
      }
    }
    if (fields.size() != kCsvFields)
      throw bad("expected " + std::to_string(kCsvFields) + " fields, got " + std::to_string(fields.size()));
    auto number = [&](size_t f, double max = 1e9) {
      char* stop = nullptr;
      double v = std::strtod(fields[f].c_str(), &stop);
      if (fields[f].empty() || *stop || !(v >= 0 && v <= max))
        throw bad("field " + std::to_string(f + 1) + " is not a number from 0 to " + fixed(max, 0));
      return v;
    };
    auto seed = [&](size_t f) {  // a full 64-bit value: doubles would round it
      uint64_t v = 0;
      auto [end, error] = std::from_chars(fields[f].data(), fields[f].data() + fields[f].size(), v);
      if (fields[f].empty() || error != std::errc() || end != fields[f].data() + fields[f].size())
        throw bad("field " + std::to_string(f + 1) + " is not a seed (an integer from 0 to 2^64 - 1)");
      return v;
    };
    int index = int(number(0)), seat = int(number(3)), entrant = int(number(4));
    if (seat >= players || entrant >= players) throw bad("seat or entrant out of range");
    if (fields[5] != agents[size_t(entrant)])
      throw bad("played by '" + fields[5] + "', not '" + agents[size_t(entrant)] + "'");
    GameRecord& g = games[index];
    if (g.entrant.empty()) {
      g.index = index, g.deal = int(number(1)), g.rotation = int(number(2));
      g.entrant.assign(size_t(players), -1);
      g.scores.assign(size_t(players), 0);
      g.win_share.assign(size_t(players), 0);
      g.think_seconds.assign(size_t(players), 0);
      g.decisions.assign(size_t(players), 0);
      g.iterations.assign(size_t(players), 0);
      g.rank.assign(size_t(players), 0);
      g.tiles.assign(size_t(players), 0);
      g.figures.assign(size_t(players), std::vector<int>(kNumFigureKinds, 0));
      g.points.assign(size_t(players), std::vector<int>(kNumCauses, 0));
      g.seed = seed(11), g.agent_seed = seed(12), g.turns = int(number(14));
    }
    if (int(number(1)) != g.deal || int(number(2)) != g.rotation || seed(11) != g.seed || seed(12) != g.agent_seed ||
        int(number(14)) != g.turns)
      throw bad("another deal, rotation, seed or game length than game " + std::to_string(index) + "'s other seats");
    if (g.entrant[size_t(seat)] >= 0)
      throw bad("game " + std::to_string(index) + " seat " + std::to_string(seat) + " twice");
    g.entrant[size_t(seat)] = entrant;
    g.scores[size_t(seat)] = int(number(6));
    g.win_share[size_t(seat)] = number(7, 1);
    g.decisions[size_t(seat)] = int(number(8));
    g.think_seconds[size_t(seat)] = number(9);
    g.iterations[size_t(seat)] = uint64_t(number(10, 1e18));
    g.rank[size_t(seat)] = int(number(13, players));
    g.tiles[size_t(seat)] = int(number(15));
    for (size_t f = 0; f < size_t(kNumFigureKinds); ++f) g.figures[size_t(seat)][f] = int(number(16 + f));
    for (size_t c = 0; c < size_t(kNumCauses); ++c) g.points[size_t(seat)][c] = int(number(16 + kNumFigureKinds + c));
  }
  std::vector<GameRecord> out;
  for (auto& [index, g] : games)
    if (std::find(g.entrant.begin(), g.entrant.end(), -1) == g.entrant.end()) out.push_back(std::move(g));
  return out;
}

ArenaResult run_arena_csv(ArenaConfig config, const std::string& path, bool resume) {
  // The file is first written when a game finishes: check at once that it can be.
  const std::filesystem::path folder = std::filesystem::path(path).parent_path();
  std::error_code error;
  if (!folder.empty() && !std::filesystem::is_directory(folder, error))
    throw SearchError("arena: cannot write " + path + ": there is no folder " + folder.string());
  if (std::filesystem::is_directory(path, error)) throw SearchError("arena: cannot write " + path + ": it is a folder");
  // Resuming a run that has no file yet starts it: one command serves the first run and the
  // reruns after a stop.
  if (resume && std::filesystem::exists(path, error)) {
    std::ifstream in(path);
    if (!in) throw SearchError("arena: cannot read " + path + " to resume");
    std::stringstream text;
    text << in.rdbuf();
    config.done = read_arena_csv(text.str(), config.agents, config.game.players);
  } else {
    config.done.clear();
  }
  std::ofstream out;
  std::function<void(const GameRecord&)> report = config.on_game;
  config.on_game = [&](const GameRecord& g) {  // run_arena calls it one game at a time
    if (!out.is_open()) {
      out.open(path, std::ios::trunc);
      out << arena_csv_header();
      for (const GameRecord& d : config.done) out << arena_csv_rows(d, config.agents);
    }
    out << arena_csv_rows(g, config.agents);
    if (!out.flush()) throw SearchError("arena: cannot write " + path);
    if (report) report(g);
  };
  ArenaResult result = run_arena(config);
  out.close();
  out.open(path, std::ios::trunc);
  out << result.csv();
  if (!out.flush()) throw SearchError("arena: cannot write " + path);
  return result;
}

}  // namespace carc
