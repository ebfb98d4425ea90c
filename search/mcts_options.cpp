// The "mcts:..." options: one table drives their parsing, range checks, error messages and
// documentation (mcts_options(), parse_mcts_options()).
#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <functional>
#include <string>
#include <vector>

#include "mcts.h"
#include "value.h"

namespace carc {

namespace {

// One "mcts:..." option: the table below drives parsing, range checks, error messages and the
// documentation (mcts_options(), Python's mcts_config docstring), so a new option is one row.
struct Option {
  const char* key;
  std::string help;
  std::string values;  // what the option accepts, as errors and documentation show it
  std::function<void(MctsConfig&, const std::string& value)> set;  // throws SearchError
  std::function<std::string(MctsConfig&)> get;                     // the value in a config
};

std::string number_text(double v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%.12g", v);
  return buffer;
}

[[noreturn]] void bad_value(const std::string& key, const std::string& value, const std::string& values) {
  throw SearchError("mcts option " + key + "=" + value + ": expected " + values);
}

// A real number in [lo, hi]; `field` gives the config member it sets.
template <class Field>
Option real(const char* key, std::string help, Field field, double lo, double hi) {
  std::string values = "a number in [" + number_text(lo) + ", " + number_text(hi) + "]";
  return {key, help, values,
          [=](MctsConfig& c, const std::string& value) {
            double v = 0;
            auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (ec != std::errc() || end != value.data() + value.size() || !std::isfinite(v) || v < lo || v > hi)
              bad_value(key, value, values);
            auto& f = field(c);
            f = std::remove_reference_t<decltype(f)>(v);
          },
          [=](MctsConfig& c) { return number_text(double(field(c))); }};
}

// An integer in [lo, hi].
template <class Field>
Option integer(const char* key, std::string help, Field field, uint64_t lo, uint64_t hi) {
  std::string values = "an integer in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]";
  return {key, help, values,
          [=](MctsConfig& c, const std::string& value) {
            uint64_t v = 0;
            auto [end, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
            if (ec != std::errc() || end != value.data() + value.size() || v < lo || v > hi)
              bad_value(key, value, values);
            auto& f = field(c);
            f = std::remove_reference_t<decltype(f)>(v);
          },
          [=](MctsConfig& c) { return std::to_string(field(c)); }};
}

// A file that can be opened for reading (empty: the default one).
template <class Field>
Option file(const char* key, std::string help, Field field) {
  const std::string values = "a readable file";
  return {key, help, values,
          [=](MctsConfig& c, const std::string& value) {
            if (!value.empty() && !std::ifstream(value)) bad_value(key, value, values);
            field(c) = value;
          },
          [=](MctsConfig& c) { return field(c); }};
}

template <class Field>
Option folder(const char* key, std::string help, Field field) {
  const std::string values = "a folder of VALUE files, or @NAME";
  return {key, help, values,
          [=](MctsConfig& c, const std::string& value) {
            if (!value.empty() && !std::filesystem::is_directory(resolve_value_dir(value)))
              bad_value(key, value, values);
            field(c) = value;
          },
          [=](MctsConfig& c) { return field(c); }};
}

// One of the named choices (the first name of a value is the one shown as its default).
template <class E, class Field>
Option choice(const char* key, std::string help, Field field, std::vector<std::pair<std::string, E>> choices) {
  std::string names;
  for (const auto& [name, e] : choices) names += (names.empty() ? "" : ", ") + name;
  std::string values = "one of " + names;
  return {key, help, values,
          [=](MctsConfig& c, const std::string& value) {
            for (const auto& [name, e] : choices)
              if (value == name) return void(field(c) = e);
            bad_value(key, value, values);
          },
          [=](MctsConfig& c) {
            for (const auto& [name, e] : choices)
              if (field(c) == e) return name;
            return std::string("?");
          }};
}

// The config member an option sets.
#define CARC_FIELD(member) \
  [](MctsConfig & c) -> auto& { return c.member; }

const std::vector<Option>& option_table() {
  static const std::vector<Option> table = {
      real("time", "wall-time limit per search in seconds (none by default); given without iters, the only limit",
           CARC_FIELD(seconds), 1e-6, 1e6),
      integer("iters", "iterations per search, all threads together", CARC_FIELD(iterations), 1, uint64_t(1) << 48),
      integer("threads", "search threads (1 with an iteration budget: deterministic for a seed)", CARC_FIELD(threads),
              1, 256),
      choice<Parallelism>("parallel", "tree: threads share one tree; root: a tree per thread, root statistics summed",
                          CARC_FIELD(parallelism), {{"tree", Parallelism::Tree}, {"root", Parallelism::Root}}),
      real("vl", "tree parallelism: virtual loss, the visits (reward 0) an in-flight iteration counts as",
           CARC_FIELD(virtual_loss), 0, 1000),
      choice<SelectionRule>("select", "tree policy at decision nodes", CARC_FIELD(selection),
                            {{"uct", SelectionRule::Uct}, {"puct", SelectionRule::Puct}}),
      real("c", "exploration constant (select=uct without c takes " + number_text(kUctExploration) + ")",
           CARC_FIELD(exploration), 0, 1000),
      real("fpu", "PUCT: an unvisited child is valued at the parent's mean less this", CARC_FIELD(fpu_reduction), -1,
           1),
      choice<ChanceMode>("chance", "chance nodes: sample an outcome, or visit outcomes in proportion (stratified)",
                         CARC_FIELD(chance), {{"sample", ChanceMode::Sample}, {"stratified", ChanceMode::Stratified}}),
      integer("expand",
              "a leaf is expanded once it has this many visits (0: at its first visit, valued itself; "
              "with eval=net,prior=net one forward pass gives both)",
              CARC_FIELD(expand_after), 0, 1000000),
      choice<RolloutPolicy>(
          "rollout", "rollout move policy", CARC_FIELD(rollout.policy),
          {{"random", RolloutPolicy::Random}, {"greedy", RolloutPolicy::Greedy}, {"none", RolloutPolicy::None}}),
      real("eps", "rollout=greedy: chance of a full one-ply greedy move at a decision", CARC_FIELD(rollout.greedy_eps),
           0, 1),
      integer("cutoff", "turns after which a rollout stops and is valued heuristically (0: play to the end)",
              CARC_FIELD(rollout.cutoff_turns), 0, 10000),
      integer("finish", "tiles left in the bag from which rollouts play to the end", CARC_FIELD(rollout.finish_tiles),
              0, 10000),
      choice<Heuristic>("eval",
                        "the value of a position at a rollout cutoff; value: the learned value network for the "
                        "game's mix and player count (docs/value.md); net: the network values the leaf, no rollout",
                        CARC_FIELD(rollout.heuristic),
                        {{"greedy", Heuristic::Greedy},
                         {"final", Heuristic::Final},
                         {"expected", Heuristic::Expected},
                         {"net", Heuristic::Net},
                         {"value", Heuristic::Value}}),
      choice<RewardKind>("reward", "what the search maximises: win share, score margin, or a mix",
                         CARC_FIELD(rollout.reward),
                         {{"win", RewardKind::Win}, {"margin", RewardKind::Margin}, {"mixed", RewardKind::Mixed}}),
      real("scale", "points: the score margin giving reward 0.88", CARC_FIELD(rollout.margin_scale), 1e-3, 1e6),
      real("mix", "reward=mixed: the weight of the margin reward", CARC_FIELD(rollout.margin_weight), 0, 1),
      real("meeple", "points per meeple in supply at a cutoff (eval=greedy)", CARC_FIELD(rollout.supply_value), 0, 1e6),
      integer("endgame", "tiles left below which rollout figures follow final scoring (0: off)",
              CARC_FIELD(rollout.endgame_tiles), 0, 10000),
      real("temp", "points: softmax temperature turning cutoff values into win estimates",
           CARC_FIELD(rollout.cutoff_temperature), 1e-3, 1e6),
      real("blend",
           "eval=value: the share of the hand-made guess (eval=greedy) mixed into the network's values, "
           "on top of the network file's own",
           CARC_FIELD(rollout.value_blend), 0, 1),
      choice<BlendBy>("blendby",
                      "eval=value with a share of the hand-made guess (blend=, or the file's own): mean values "
                      "each cutoff by the shares' weighted mean of the network and the guess; sample by one of "
                      "the two, drawn with the shares' chances (the same mean, the network asked less often); "
                      "file as the value file says (mean for files older than version 5)",
                      CARC_FIELD(rollout.blend_by),
                      {{"file", BlendBy::File}, {"mean", BlendBy::Mean}, {"sample", BlendBy::Sample}}),
      choice<PriorKind>("prior",
                        "PUCT priors: uniform, a softmax of the greedy one-ply values, the network's policy, or "
                        "a softmax of the learned value's one-ply margins "
                        "(eval=net without prior takes prior=net)",
                        CARC_FIELD(rollout.prior),
                        {{"uniform", PriorKind::Uniform},
                         {"greedy", PriorKind::Greedy},
                         {"net", PriorKind::Net},
                         {"value", PriorKind::Value}}),
      real("ptemp", "points: softmax temperature of the greedy priors", CARC_FIELD(rollout.prior_temperature), 1e-3,
           1e6),
      real("fields", "eval=greedy: share of the led fields' guessed worth counted at a cutoff (0: fields ignored)",
           CARC_FIELD(rollout.field_weight), 0, 10),
      real("barns",
           "eval=greedy, and the hand-made share of eval=value: share of the barns' guessed worth (4 a "
           "completed city by their fields) counted at a cutoff (0: barns ignored, or as the value file says)",
           CARC_FIELD(rollout.barn_weight), 0, 10),
      choice<bool>("farmers", "rollouts ending at a cutoff may place farmers (0: never)",
                   CARC_FIELD(rollout.rollout_farmers), {{"1", true}, {"0", false}}),
      real("pfields", "prior=greedy: share of the led fields' guessed worth in the priors' values",
           CARC_FIELD(rollout.prior_field_weight), 0, 10),
      file("net", "eval=net or prior=net: the network's CARCNET file (default: the shipped one, docs/network.md)",
           CARC_FIELD(rollout.network)),
      file("value",
           "eval=value or prior=value: the value network's file (default: the shipped one for the game, docs/value.md)",
           CARC_FIELD(rollout.value_net)),
      folder("values",
             "eval=value or prior=value without value=: the folder whose VALUE files the search picks from "
             "(default: the shipped ones; @NAME: a folder of pinned ones)",
             CARC_FIELD(rollout.value_dir)),
      real("vmix", "eval=net: share of a rollout's value mixed into the network's value",
           CARC_FIELD(rollout.network_mix), 0, 1),
      real("memory", "MB of node pool per search (a full pool stops growth, not the search)", CARC_FIELD(memory_mb), 1,
           1 << 20),
      choice<bool>("reuse", "keep the subtree of the new position between searches", CARC_FIELD(reuse),
                   {{"1", true}, {"0", false}, {"true", true}, {"false", false}}),
      integer("seed", "mixed into every search's random streams", CARC_FIELD(seed), 0, UINT64_MAX),
  };
  return table;
}

#undef CARC_FIELD

std::string option_keys() {
  std::string keys;
  for (const Option& o : option_table()) keys += (keys.empty() ? "" : ", ") + std::string(o.key);
  return keys;
}

}  // namespace

std::vector<MctsOptionInfo> mcts_options() {
  std::vector<MctsOptionInfo> out;
  MctsConfig defaults;
  for (const Option& o : option_table()) out.push_back({o.key, o.help, o.values, o.get(defaults)});
  return out;
}

MctsConfig parse_mcts_options(const std::string& options) {
  MctsConfig c;
  std::vector<std::string> keys;  // given so far: a key given twice is a mistake, not an override
  auto given = [&](const char* key) { return std::find(keys.begin(), keys.end(), key) != keys.end(); };
  size_t pos = 0;
  while (pos < options.size()) {
    size_t comma = options.find(',', pos);
    if (comma == std::string::npos) comma = options.size();
    std::string item = options.substr(pos, comma - pos);
    pos = comma + 1;
    size_t eq = item.find('=');
    if (item.empty() || eq == std::string::npos)
      throw SearchError("mcts option '" + item + "': expected key=value (keys: " + option_keys() + ")");
    std::string key = item.substr(0, eq), value = item.substr(eq + 1);
    if (given(key.c_str())) throw SearchError("mcts option '" + key + "' is given twice ('" + options + "')");
    keys.push_back(key);
    const auto& table = option_table();
    auto option = std::find_if(table.begin(), table.end(), [&](const Option& o) { return key == o.key; });
    if (option == table.end()) throw SearchError("unknown mcts option '" + key + "' (known: " + option_keys() + ")");
    option->set(c, value);
  }
  if (given("time") && !given("iters")) c.iterations = 0;  // a time budget alone
  if (c.selection == SelectionRule::Uct && !given("c")) c.exploration = kUctExploration;
  if (c.rollout.heuristic == Heuristic::Net && !given("prior")) c.rollout.prior = PriorKind::Net;
  validate(c);
  return c;
}

}  // namespace carc
