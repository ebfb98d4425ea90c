// Sequential probability ratio test (SPRT) for arena runs: stop a match as soon as the games
// decide between "entrant 0 is no stronger than elo0" and "entrant 0 is at least elo1 stronger"
// (the way chess engines accept changes: Stockfish's fishtest).
//
// The model is fishtest's generalised SPRT (GSPRT, M. Van den Bergh, "A generalized sequential
// probability ratio test"):
//   * Outcomes are the scores of entrant 0 per unit: in a paired 2-player arena a unit is a game
//     pair (one deck, both seatings) scored 0, 1/4, 1/2, 3/4 or 1 (pentanomial model; the two
//     games of a pair share the deck's luck, so they are not independent games); otherwise a unit
//     is a game scored 0, 1/2 or 1 (trinomial). A tie counts 1/2.
//   * Hypothesis H_e: the expected score per game is s(e) = 1 / (1 + 10^(-e/400)) (logistic Elo).
//   * The log-likelihood ratio is that of the two maximum-likelihood multinomial distributions
//     under the constraints mean = s(elo1) and mean = s(elo0): with the observed frequencies
//     f_i of the outcomes a_i, the constrained MLE is f_i / (1 + x (a_i - s)), x solving
//     sum_i f_i (a_i - s) / (1 + x (a_i - s)) = 0, and LLR = sum_i n_i log(p1_i / p0_i).
//     As fishtest does, an outcome never seen counts 1e-3 times (so a run of identical results
//     still gives a finite ratio).
//   * The test stops with H1 (accept: entrant 0 is stronger) when LLR >= log((1 - beta) / alpha),
//     with H0 (reject) when LLR <= log(beta / (1 - alpha)).
#pragma once

#include <string>
#include <vector>

namespace carc {

struct GameRecord;  // search/arena.h

struct SprtConfig {
  double elo0 = 0, elo1 = 20;        // logistic Elo of entrant 0 over entrant 1 under H0 and H1
  double alpha = 0.05, beta = 0.05;  // false accept and false reject rates
};

// Parses "elo0=0,elo1=20[,alpha=0.05,beta=0.05]" (keys in any order; elo0 and elo1 required).
// Throws SearchError for an unknown key, a bad number, elo0 >= elo1, or alpha, beta not in (0, 0.5).
SprtConfig parse_sprt(const std::string& text);

enum class SprtDecision { Continue, AcceptH1, AcceptH0 };

struct SprtStatus {
  double llr = 0;
  double lower = 0, upper = 0;  // log(beta / (1 - alpha)), log((1 - beta) / alpha)
  SprtDecision decision = SprtDecision::Continue;
  std::vector<int> counts;  // units per outcome: 5 (pentanomial, 0 .. 1 by 1/4) or 3 (trinomial)
  int units = 0;            // game pairs (pentanomial) or games (trinomial)
  // "LLR 1.23 [-2.94, 2.94] pairs 40 (0,3,15,18,4): continue" etc.
  std::string text() const;
};

// The expected score per game at a logistic Elo difference.
double elo_to_score(double elo);

// The GSPRT log-likelihood ratio of H1 (mean s1) against H0 (mean s0) for `counts[i]` units with
// outcome `outcomes[i]` (scores in [0, 1]); see the model above.
double gsprt_llr(const std::vector<double>& counts, const std::vector<double>& outcomes, double s0, double s1);

// The test over the 2-player games played so far, for entrant 0: pentanomial over complete deals
// when `paired` (a deal whose second game is not finished yet waits), else trinomial over games.
SprtStatus sprt_status(const std::vector<GameRecord>& games, bool paired, const SprtConfig& config);

}  // namespace carc
