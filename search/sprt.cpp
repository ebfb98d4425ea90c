#include "sprt.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <map>

#include "agents.h"
#include "arena.h"

namespace carc {

namespace {
// fishtest's regularisation: an outcome never seen counts this many times.
constexpr double kUnseenCount = 1e-3;

// The constrained maximum-likelihood distribution's x for mean s (see sprt.h): the root of
// g(x) = sum f_i (a_i - s) / (1 + x (a_i - s)), decreasing in x on the interval where every
// 1 + x (a_i - s) > 0. Bisection: g has one root there when min a < s < max a.
double lagrange_root(const std::vector<double>& f, const std::vector<double>& a, double s) {
  double lo = -1e300, hi = 1e300;
  for (double ai : a) {
    double d = ai - s;
    if (d > 0) lo = std::max(lo, -1.0 / d);
    if (d < 0) hi = std::min(hi, -1.0 / d);
  }
  auto g = [&](double x) {
    double sum = 0;
    for (size_t i = 0; i < a.size(); ++i) sum += f[i] * (a[i] - s) / (1 + x * (a[i] - s));
    return sum;
  };
  for (int i = 0; i < 200; ++i) {
    double mid = lo + (hi - lo) / 2;
    if (mid == lo || mid == hi) break;
    (g(mid) > 0 ? lo : hi) = mid;
  }
  return lo + (hi - lo) / 2;
}
}  // namespace

double elo_to_score(double elo) { return 1.0 / (1.0 + std::pow(10.0, -elo / 400.0)); }

double gsprt_llr(const std::vector<double>& counts, const std::vector<double>& outcomes, double s0, double s1) {
  std::vector<double> n(counts.size());
  double total = 0;
  for (size_t i = 0; i < counts.size(); ++i) total += n[i] = std::max(counts[i], kUnseenCount);
  std::vector<double> f(n.size());
  for (size_t i = 0; i < n.size(); ++i) f[i] = n[i] / total;
  const double x0 = lagrange_root(f, outcomes, s0), x1 = lagrange_root(f, outcomes, s1);
  double llr = 0;
  // p1_i / p0_i = (1 + x0 (a_i - s0)) / (1 + x1 (a_i - s1))
  for (size_t i = 0; i < n.size(); ++i)
    llr += n[i] * (std::log1p(x0 * (outcomes[i] - s0)) - std::log1p(x1 * (outcomes[i] - s1)));
  return llr;
}

SprtConfig parse_sprt(const std::string& text) {
  SprtConfig c;
  bool elo0 = false, elo1 = false;
  size_t pos = 0;
  while (pos <= text.size()) {
    size_t comma = std::min(text.find(',', pos), text.size());
    std::string item = text.substr(pos, comma - pos);
    pos = comma + 1;
    size_t eq = item.find('=');
    if (eq == std::string::npos)
      throw SearchError("sprt '" + text + "': expected key=value items (elo0, elo1, alpha, beta), got '" + item + "'");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    char* end = nullptr;
    double v = std::strtod(value.c_str(), &end);
    if (value.empty() || *end || !std::isfinite(v)) throw SearchError("sprt " + key + "=" + value + ": not a number");
    if (key == "elo0") c.elo0 = v, elo0 = true;
    else if (key == "elo1") c.elo1 = v, elo1 = true;
    else if (key == "alpha") c.alpha = v;
    else if (key == "beta") c.beta = v;
    else throw SearchError("sprt: unknown key '" + key + "' (known: elo0, elo1, alpha, beta)");
  }
  if (!elo0 || !elo1) throw SearchError("sprt '" + text + "': give both elo0 and elo1");
  if (!(c.elo0 < c.elo1)) throw SearchError("sprt '" + text + "': elo0 must be below elo1");
  if (!(c.alpha > 0 && c.alpha < 0.5 && c.beta > 0 && c.beta < 0.5))
    throw SearchError("sprt '" + text + "': alpha and beta must be in (0, 0.5)");
  return c;
}

SprtStatus sprt_status(const std::vector<GameRecord>& games, bool paired, const SprtConfig& config) {
  SprtStatus st;
  st.lower = std::log(config.beta / (1 - config.alpha));
  st.upper = std::log((1 - config.beta) / config.alpha);
  const int kinds = paired ? 5 : 3;
  st.counts.assign(size_t(kinds), 0);
  // Entrant 0's score in each game, by deal.
  std::map<int, std::vector<double>> by_deal;
  for (const GameRecord& g : games) {
    if (g.scores.size() != 2) continue;  // a game not played (yet)
    const size_t seat = g.entrant[0] == 0 ? 0 : 1;
    by_deal[g.deal].push_back(g.win_share[seat]);
  }
  for (const auto& [deal, scores] : by_deal) {
    if (paired) {
      if (scores.size() != 2) continue;  // the pair is not complete
      ++st.counts[size_t(std::lround(2 * (scores[0] + scores[1])))];
      ++st.units;
    } else {
      for (double s : scores) ++st.counts[size_t(std::lround(2 * s))], ++st.units;
    }
  }
  if (st.units == 0) return st;
  std::vector<double> counts(st.counts.begin(), st.counts.end()), outcomes;
  for (int i = 0; i < kinds; ++i) outcomes.push_back(double(i) / (kinds - 1));
  st.llr = gsprt_llr(counts, outcomes, elo_to_score(config.elo0), elo_to_score(config.elo1));
  st.decision = st.llr >= st.upper   ? SprtDecision::AcceptH1
                : st.llr <= st.lower ? SprtDecision::AcceptH0
                                     : SprtDecision::Continue;
  return st;
}

std::string SprtStatus::text() const {
  char buffer[256];
  std::string tally;
  for (int c : counts) {
    if (!tally.empty()) tally += ',';
    tally += std::to_string(c);
  }
  const char* verdict = decision == SprtDecision::AcceptH1   ? "H1 accepted (entrant 0 is stronger)"
                        : decision == SprtDecision::AcceptH0 ? "H0 accepted (not stronger by elo1)"
                                                             : "continue";
  std::snprintf(buffer, sizeof buffer, "LLR %.3f [%.3f, %.3f] %s %d (%s): %s", llr, lower, upper,
                counts.size() == 5 ? "pairs" : "games", units, tally.c_str(), verdict);
  return buffer;
}

}  // namespace carc
