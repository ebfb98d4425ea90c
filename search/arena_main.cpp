// carc_arena: games between agents with paired decks and rotated seats; prints win rates with
// 95% confidence intervals, score margins and Elo.
//
//   carc_arena [options] AGENT AGENT [AGENT ...]      (one agent per player; an argument may
//                                                     also list several: greedy,mcts:iters=50,c=1)
//     --players N        players (default: the number of agents)
//     --deals N          decks to play (default 10); each once per seat rotation
//     --unpaired         one game per deck instead
//     --rotation R       one game per deck, seat s holding agent (s + R) mod players
//     --threads N        games at once (default 0: all cores)
//     --seed S           picks the decks (default 1)
//     --agent-seed S     seeds the agents (default 1)
//     --expansions a,b   expansions to enable
//     --variant k=v      a rules variant (repeatable)
//     --csv FILE         write one line per game and seat, as each game finishes
//     --resume           with --csv: keep the games FILE already holds (an interrupted run of
//                        the same command) and play only the others; no FILE yet: start it
//     --quiet            no line per game
//     --sprt elo0=E0,elo1=E1[,alpha=A,beta=B]
//                        2 players: a sequential probability ratio test of "agent 0 is stronger
//                        than agent 1 by elo1 (logistic Elo), not by at most elo0" (search/sprt.h:
//                        fishtest's GSPRT, pentanomial over the deal pairs); prints the LLR and its
//                        bounds as games finish and stops once it is decided (alpha, beta default
//                        0.05). --deals is then the most to play (default 100000). With --csv and
//                        --resume a stopped test goes on where it was.
//   At the end: field points (farmers and barns), farmers placed and every kind of decision per
//   game, by agent, over the games played in this run (search/arena.h's move_kind).
//   Agents: random, greedy, mcts[:key=value,...] (--help lists the keys), and the fixed references
//   ref-rollout and ref-2026-12 [:time=...|iters=...] (search/agents.h), e.g.
//     carc_arena --deals 100 --threads 2 mcts:time=0.1 greedy
//     carc_arena --threads 1 --csv t.csv --sprt elo0=0,elo1=20 mcts:time=0.2 ref-rollout:time=0.2
#include <cstdio>
#include <cstring>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include "search/agents.h"
#include "search/arena.h"
#include "search/mcts.h"
#include "search/sprt.h"

namespace {

void usage(const char* argv0) {
  std::fprintf(
      stderr,
      "usage: %s [--players N] [--deals N] [--unpaired] [--rotation R] [--threads N] [--seed S] [--agent-seed S]\n"
      "          [--expansions a,b] [--variant k=v]... [--csv FILE [--resume]] [--quiet]\n"
      "          [--sprt elo0=0,elo1=20[,alpha=0.05,beta=0.05]] AGENT AGENT [AGENT...]\n"
      "agents: random, greedy, mcts[:key=value,...], e.g. mcts:time=0.5,threads=2;\n"
      "  reference players (every playing option pinned; budget and resources may be set):\n",
      argv0);
  for (const carc::ReferencePlayer& r : carc::kReferencePlayers) std::fprintf(stderr, "  %-12s %s\n", r.name, r.about);
  std::fprintf(stderr, "mcts options:\n");
  for (const carc::MctsOptionInfo& o : carc::mcts_options())
    std::fprintf(stderr, "  %-8s %s; %s (default %s)\n", o.key.c_str(), o.help.c_str(), o.values.c_str(),
                 o.default_value.c_str());
}

// Per entrant, over the games that record them: field points and farmers placed per game, then
// every kind of decision per game.
void print_fields_and_moves(const std::vector<carc::GameRecord>& games, const std::vector<std::string>& agents) {
  for (size_t e = 0; e < agents.size(); ++e) {
    double points = 0, farmers = 0;
    std::map<std::string, double> moves;
    int n = 0;
    for (const carc::GameRecord& g : games)
      for (size_t s = 0; s < g.entrant.size() && s < g.moves.size(); ++s) {
        if (g.entrant[s] != int(e)) continue;
        const std::vector<int>& by_cause = g.points[s];
        points += by_cause[int(carc::Cause::Field)] + by_cause[int(carc::Cause::FieldBarn)] +
                  by_cause[int(carc::Cause::Barn)];
        ++n;
        for (const auto& [kind, count] : g.moves[s]) {
          moves[kind] += count;
          if (kind.size() > 6 && kind.compare(kind.size() - 6, 6, " field") == 0) farmers += count;
        }
      }
    if (!n) continue;
    std::printf("fields: %zu %-34s %5d games  %6.2f field points/game  %5.2f farmers/game\n", e, agents[e].c_str(), n,
                points / n, farmers / n);
    std::printf("moves/game: %zu", e);
    for (const auto& [kind, count] : moves) std::printf("  %s %.2f", kind.c_str(), count / n);
    std::printf("\n");
  }
}

long long parse_int(const char* flag, const char* text) {
  char* end = nullptr;
  long long v = std::strtoll(text, &end, 10);
  if (!*text || *end) throw std::invalid_argument(std::string(flag) + ": not an integer: '" + text + "'");
  return v;
}

}  // namespace

int main(int argc, char** argv) {
  carc::ArenaConfig config;
  config.game.seed = 1;
  int players = 0;
  bool quiet = false, resume = false, deals_given = false;
  std::string csv;
  try {
    for (int i = 1; i < argc; ++i) {
      std::string arg = argv[i];
      auto value = [&]() -> const char* {
        if (i + 1 >= argc) throw std::invalid_argument(arg + " needs a value");
        return argv[++i];
      };
      if (arg == "--players") players = int(parse_int("--players", value()));
      else if (arg == "--deals") config.deals = int(parse_int("--deals", value())), deals_given = true;
      else if (arg == "--sprt") config.sprt = carc::parse_sprt(value());
      else if (arg == "--unpaired") config.paired = false;
      else if (arg == "--rotation") config.rotation = int(parse_int("--rotation", value()));
      else if (arg == "--threads") config.threads = int(parse_int("--threads", value()));
      else if (arg == "--seed") config.game.seed = uint64_t(parse_int("--seed", value()));
      else if (arg == "--agent-seed") config.agent_seed = uint64_t(parse_int("--agent-seed", value()));
      else if (arg == "--expansions") {
        std::string list = value();
        for (size_t pos = 0; pos <= list.size();) {
          size_t comma = std::min(list.find(',', pos), list.size());
          if (comma > pos) config.game.expansions.push_back(list.substr(pos, comma - pos));
          pos = comma + 1;
        }
      } else if (arg == "--variant") {
        std::string kv = value();
        size_t eq = kv.find('=');
        if (eq == std::string::npos) throw std::invalid_argument("--variant: expected key=value, got '" + kv + "'");
        config.game.variants[kv.substr(0, eq)] = kv.substr(eq + 1);
      } else if (arg == "--csv") csv = value();
      else if (arg == "--resume") resume = true;
      else if (arg == "--quiet") quiet = true;
      else if (arg == "-h" || arg == "--help") {
        usage(argv[0]);
        return 0;
      } else if (arg.rfind("--", 0) == 0) {
        throw std::invalid_argument("unknown option " + arg);
      } else {
        for (std::string& agent : carc::split_agent_list(arg)) config.agents.push_back(std::move(agent));
      }
    }
    if (config.agents.size() < 2 && players == 0) throw std::invalid_argument("name at least two agents");
    config.game.players = players ? players : int(config.agents.size());
    if (resume && csv.empty()) throw std::invalid_argument("--resume needs --csv FILE");
    if (config.sprt && !deals_given) config.deals = 100000;  // until the test decides
    int sprt_units = -1;  // a line when a unit (a pair of games, or a game) completes
    config.on_sprt = [&](const carc::SprtStatus& st) {
      if (st.units != sprt_units) std::printf("sprt %s\n", st.text().c_str());
      sprt_units = st.units;
      std::fflush(stdout);
    };
    int played = 0;
    std::vector<carc::GameRecord> played_games;
    config.on_game = [&](const carc::GameRecord& g) {
      ++played;
      played_games.push_back(g);
      if (!quiet) {
        std::printf("game %d (deal %d, rotation %d):", g.index, g.deal, g.rotation);
        for (size_t s = 0; s < g.scores.size(); ++s)
          std::printf("  [%d] %s %d", g.entrant[s], config.agents[size_t(g.entrant[s])].c_str(), g.scores[s]);
        std::printf("  (%.1f s)\n", g.seconds);
        std::fflush(stdout);
      }
    };
    carc::ArenaResult result = csv.empty() ? carc::run_arena(config) : carc::run_arena_csv(config, csv, resume);
    if (resume)
      std::printf("resumed from %s: %zu game(s) already played\n", csv.c_str(), result.games.size() - size_t(played));
    std::printf("%s", result.report().c_str());
    print_fields_and_moves(played_games, config.agents);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    usage(argv[0]);
    return 2;
  }
  return 0;
}
