// Config, Position and State for Python. Action codes cross as plain ints (their layout is in
// engine/action.h); the Python Game class wraps them in Action objects.
#include <pybind11/native_enum.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <cctype>
#include <cstdint>
#include <cstdio>
#include <iterator>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "engine/catalogue.h"
#include "engine/config.h"
#include "engine/errors.h"
#include "engine/game.h"
#include "register.h"

namespace py = pybind11;
using namespace py::literals;

namespace carc::py_bindings {

namespace {

const Catalogue& catalogue() { return Catalogue::builtin(); }

// Returns p if it is a player of this game; raises IndexError otherwise (the engine indexes
// arrays with it unchecked).
int checked_player(const State& s, int p) {
  if (p < 0 || p >= s.num_players())
    throw py::index_error("player " + std::to_string(p) + " out of range (the game has " +
                          std::to_string(s.num_players()) + " players)");
  return p;
}

// A segment as [x, y, feature index on its tile].
py::list segment_place(const State& s, uint16_t segment) {
  const Segment& seg = s.features()[segment];
  Cell c = s.board().tile(seg.tile).cell;
  py::list out;
  out.append(int(c.x));
  out.append(int(c.y));
  out.append(int(seg.local));
  return out;
}

// A scoring record (engine/explain.h) as the dict docs/python.md describes.
py::dict scoring_dict(const State& s, const ScoringRecord& r) {
  const bool on_feature = r.kind == ScoringKind::Feature || r.kind == ScoringKind::BarnField;
  const bool title = r.kind == ScoringKind::King || r.kind == ScoringKind::Robber;
  py::dict out;
  out["kind"] = scoring_kind_name(r.kind);
  out["type"] = on_feature || title ? feature_type_name(r.type) : "";
  out["final"] = r.final;
  py::list cells, segments, figures, counted, parts, awards;
  for (Cell c : r.cells) cells.append(py::make_tuple(int(c.x), int(c.y)));
  for (uint16_t m : r.segments) segments.append(segment_place(s, m));
  for (const ScoredFigure& f : r.figures)
    figures.append(py::dict("player"_a = f.player, "kind"_a = figure_kind_name(f.kind), "x"_a = int(f.cell.x),
                            "y"_a = int(f.cell.y), "feature"_a = f.feature));
  // A counted feature by its segments, as the board has them after the action.
  for (uint16_t root : r.counted) {
    std::vector<uint16_t> members;
    s.features().for_each_member(root, [&](int m) { members.push_back(uint16_t(m)); });
    std::sort(members.begin(), members.end());
    py::list one;
    for (uint16_t m : members) one.append(segment_place(s, m));
    counted.append(one);
  }
  for (const ScoringPart& p : r.parts)
    parts.append(py::dict("part"_a = scoring_part_name(p.kind), "count"_a = p.count, "each"_a = p.each,
                          "points"_a = p.points()));
  std::vector<int> gains(s.num_players(), 0);
  for (const ScoringAward& a : r.awards) {
    awards.append(py::dict("player"_a = a.player, "points"_a = a.points, "cause"_a = cause_name(a.cause)));
    gains[a.player] += a.points;
  }
  out["cells"] = cells;
  out["segments"] = segments;
  out["figures"] = figures;
  out["strength"] = std::vector<int>(r.strength.begin(), r.strength.begin() + s.num_players());
  out["pennants"] = r.pennants;
  out["pig_herd"] = r.pig_herd;
  out["counted"] = counted;
  out["city_of_carcassonne"] = r.city_of_carcassonne;
  out["parts"] = parts;
  out["points"] = r.points();
  out["awards"] = awards;
  out["gains"] = gains;
  return out;
}

// Returns the cause with this name (types.h); raises ValueError for an unknown one.
Cause cause_from_name(const std::string& name) {
  for (int c = 0; c < kNumCauses; ++c)
    if (name == cause_name(Cause(c))) return Cause(c);
  throw py::value_error("unknown score cause '" + name + "'");
}

// Returns the figure kind with this name (action.h); raises ValueError for an unknown one.
FigureKind figure_kind_from_name(const std::string& name) {
  for (int f = 0; f < kNumFigureKinds; ++f)
    if (name == figure_kind_name(FigureKind(f))) return FigureKind(f);
  throw py::value_error("unknown figure kind '" + name + "' (meeple, mayor, wagon, barn)");
}

// Returns a cell from Python ints; coordinates beyond the board's range are a PositionError.
Cell checked_cell(int x, int y) {
  if (x <= -kCoordLimit || x >= kCoordLimit || y <= -kCoordLimit || y >= kCoordLimit)
    throw PositionError("cell " + std::to_string(x) + "," + std::to_string(y) + " is out of range");
  return Cell{int16_t(x), int16_t(y)};
}

// The text with its control characters escaped ("\x00"), so that an error message shows all of
// it: the message crosses to Python as a C string, which a NUL byte would cut.
std::string escaped(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c >= 0x20 && c != 0x7F) {
      out += char(c);
    } else {
      char hex[8];
      std::snprintf(hex, sizeof hex, "\\x%02x", c);
      out += hex;
    }
  }
  return out;
}

std::string config_repr(const Config& c) {
  std::string out = "Config(players=" + std::to_string(c.players) + ", expansions=[";
  for (size_t i = 0; i < c.expansions.size(); ++i) out += (i ? ", '" : "'") + c.expansions[i] + "'";
  out += "], variants={";
  bool first = true;
  for (const auto& [k, v] : c.variants) {
    out += (first ? "'" : ", '") + k + "': '" + v + "'";
    first = false;
  }
  out += "}, seed=" + std::to_string(c.seed) + ", draw_order=[" + std::to_string(c.draw_order.size()) + " tiles])";
  return out;
}

}  // namespace

void register_state(py::module_& m) {
  // ---- Config ---------------------------------------------------------------------------------
  py::class_<Config>(m, "Config", "The rules options of one game (engine/config.h).")
      .def(py::init([](int players, std::vector<std::string> expansions, std::map<std::string, std::string> variants,
                       uint64_t seed, std::vector<std::string> draw_order) {
             Config c;
             c.players = players;
             c.expansions = std::move(expansions);
             c.variants = std::move(variants);
             c.seed = seed;
             c.draw_order = std::move(draw_order);
             return c;
           }),
           py::kw_only(), "players"_a = 2, "expansions"_a = std::vector<std::string>{},
           "variants"_a = std::map<std::string, std::string>{}, "seed"_a = 0,
           "draw_order"_a = std::vector<std::string>{})
      .def_readwrite("players", &Config::players)
      .def_readwrite("expansions", &Config::expansions)
      .def_readwrite("variants", &Config::variants)
      .def_readwrite("seed", &Config::seed)
      .def_readwrite("draw_order", &Config::draw_order)
      .def(
          "validated", [](const Config& c) { return validate(c); },
          "Returns the config with defaults filled in; raises ConfigError if it is invalid.")
      .def("__repr__", &config_repr);

  // ---- Position -------------------------------------------------------------------------------
  py::class_<Position> position(m, "Position", "A position to set a game up from; validated by State.from_position.");
  py::class_<Position::Tile>(position, "Tile")
      .def(py::init([](std::string kind, int x, int y, int rotation) {
             return Position::Tile{std::move(kind), checked_cell(x, y), rotation};
           }),
           "kind"_a, "x"_a, "y"_a, "rotation"_a = 0)
      .def_readonly("kind", &Position::Tile::kind)
      .def_property_readonly("x", [](const Position::Tile& t) { return int(t.cell.x); })
      .def_property_readonly("y", [](const Position::Tile& t) { return int(t.cell.y); })
      .def_readonly("rotation", &Position::Tile::rotation);
  py::class_<Position::Figure>(position, "Figure")
      .def(py::init([](int player, std::string kind, int x, int y, int feature) {
             return Position::Figure{player, std::move(kind), checked_cell(x, y), feature};
           }),
           "player"_a, "kind"_a, "x"_a, "y"_a, "feature"_a)
      .def_readonly("player", &Position::Figure::player)
      .def_readonly("kind", &Position::Figure::kind)
      .def_property_readonly("x", [](const Position::Figure& f) { return int(f.cell.x); })
      .def_property_readonly("y", [](const Position::Figure& f) { return int(f.cell.y); })
      .def_readonly("feature", &Position::Figure::feature);
  py::class_<Position::CityFigure>(position, "CityFigure")
      .def(py::init([](int player, std::string kind, std::string quarter) {
             return Position::CityFigure{player, std::move(kind), std::move(quarter)};
           }),
           "player"_a, "kind"_a, "quarter"_a)
      .def_readonly("player", &Position::CityFigure::player)
      .def_readonly("kind", &Position::CityFigure::kind)
      .def_readonly("quarter", &Position::CityFigure::quarter);
  position
      .def(py::init([](Config config, std::vector<Position::Tile> tiles, std::vector<Position::Figure> figures,
                       std::vector<int> scores, std::vector<std::vector<int>> breakdown, std::vector<int> abbeys,
                       std::optional<std::vector<std::string>> bag, int current_player,
                       std::vector<Position::CityFigure> city, std::string count, int king, int robber, bool extra_turn,
                       int last_placer, int final_round_left, bool tile_taken, int turn_number, int discarded) {
             Position p;
             p.config = std::move(config);
             p.tiles = std::move(tiles);
             p.figures = std::move(figures);
             p.scores = std::move(scores);
             p.breakdown = std::move(breakdown);
             p.abbeys = std::move(abbeys);
             p.bag = std::move(bag);
             p.current_player = current_player;
             p.city = std::move(city);
             p.count = std::move(count);
             p.king = king;
             p.robber = robber;
             p.extra_turn = extra_turn;
             p.last_placer = last_placer;
             p.final_round_left = final_round_left;
             p.tile_taken = tile_taken;
             p.turn_number = turn_number;
             p.discarded = discarded;
             return p;
           }),
           py::kw_only(), "config"_a, "tiles"_a, "figures"_a = std::vector<Position::Figure>{},
           "scores"_a = std::vector<int>{}, "breakdown"_a = std::vector<std::vector<int>>{},
           "abbeys"_a = std::vector<int>{}, "bag"_a = py::none(), "current_player"_a = 0,
           "city"_a = std::vector<Position::CityFigure>{}, "count"_a = "", "king"_a = -1, "robber"_a = -1,
           "extra_turn"_a = false, "last_placer"_a = -1, "final_round_left"_a = 0, "tile_taken"_a = false,
           "turn_number"_a = 0, "discarded"_a = 0)
      .def_readwrite("city", &Position::city)
      .def_readwrite("count", &Position::count)
      .def_readwrite("config", &Position::config)
      .def_readwrite("tiles", &Position::tiles)
      .def_readwrite("figures", &Position::figures)
      .def_readwrite("scores", &Position::scores)
      .def_readwrite("breakdown", &Position::breakdown)
      .def_readwrite("abbeys", &Position::abbeys)
      .def_readwrite("bag", &Position::bag)
      .def_readwrite("current_player", &Position::current_player)
      .def_readwrite("king", &Position::king)
      .def_readwrite("robber", &Position::robber)
      .def_readwrite("extra_turn", &Position::extra_turn)
      .def_readwrite("last_placer", &Position::last_placer)
      .def_readwrite("final_round_left", &Position::final_round_left)
      .def_readwrite("tile_taken", &Position::tile_taken)
      .def_readwrite("turn_number", &Position::turn_number)
      .def_readwrite("discarded", &Position::discarded);

  // ---- State ----------------------------------------------------------------------------------
  py::native_enum<Phase> phase(m, "Phase", "enum.Enum", "Where a turn is (engine/game.h).");
  // The names are the engine's (phase_name, action_kind_name): one table each, in C++.
  constexpr int kNumPhases = int(Phase::GameOver) + 1;
  py::tuple phases(kNumPhases);
  for (int p = 0; p < kNumPhases; ++p) {
    std::string upper = phase_name(Phase(p));
    for (char& c : upper) c = char(std::toupper(static_cast<unsigned char>(c)));
    phase.value(upper.c_str(), Phase(p));
    phases[p] = py::str(phase_name(Phase(p)));
  }
  phase.finalize();
  m.attr("PHASES") = phases;
  constexpr int kNumActionKinds = int(ActionKind::Count) + 1;
  py::tuple kinds(kNumActionKinds);
  for (int k = 0; k < kNumActionKinds; ++k) kinds[k] = py::str(action_kind_name(ActionKind(k)));
  m.attr("ACTION_KINDS") = kinds;
  // The engine owns the code's layout (engine/action.h): Python asks here, never reads bits.
  m.def(
      "action_kind",
      [](int64_t code) {
        return code < 0 || code > int64_t(UINT32_MAX) ? "unknown" : action_kind_name(Action{uint32_t(code)}.kind());
      },
      "code"_a, "The kind of an action code, one of ACTION_KINDS; \"unknown\" for a code of no kind.");

  py::class_<State>(m, "State", "One node of the game tree (engine/game.h). Copying it is cheap.")
      .def(py::init<const Config&>(), "config"_a)
      .def_static("from_position", &State::from_position, "position"_a,
                  "A game set up from a described position; raises ConfigError or PositionError.")
      .def("to_position", &State::to_position,
           "This game as a Position, at the start of a turn; raises PositionError elsewhere.")
      // Node queries.
      .def("num_players", &State::num_players)
      .def("current_player", &State::current_player,
           "The player to decide, CHANCE_PLAYER at a draw, TERMINAL_PLAYER once the game is over.")
      .def("turn_player", &State::turn_player)
      .def("is_chance", &State::is_chance)
      .def("is_terminal", &State::is_terminal)
      .def("phase", &State::phase)
      .def(
          "legal_actions",
          [](const State& s) {
            std::vector<uint32_t> codes;
            for (Action a : s.legal_actions()) codes.push_back(a.code);
            return codes;
          },
          "The legal action codes, sorted, without duplicates; empty only at the end.")
      .def(
          "chance_outcomes",
          [](const State& s) {
            std::vector<std::pair<uint32_t, double>> out;
            for (auto [a, p] : s.chance_outcomes()) out.emplace_back(a.code, p);
            return out;
          },
          "At a chance node, (draw code, probability) for every tile kind left; else empty.")
      .def(
          "is_legal",
          [](const State& s, int64_t code) {
            return code >= 0 && code <= int64_t(UINT32_MAX) && s.is_legal(Action{uint32_t(code)});
          },
          "code"_a)
      .def(
          "apply",
          [](State& s, int64_t code, bool explain) -> py::object {
            if (!explain) {
              s.apply(to_action(code));
              return py::none();
            }
            std::vector<ScoringRecord> scorings;
            s.apply(to_action(code), &scorings);
            py::list out;
            for (const ScoringRecord& r : scorings) out.append(scoring_dict(s, r));
            return out;
          },
          "code"_a, py::kw_only(), "explain"_a = false,
          "Applies a legal action; raises IllegalActionError and changes nothing otherwise. With "
          "explain=True, returns what every scoring of the action counted (docs/python.md).")
      .def(
          "sample_chance",
          [](State& s) {
            if (!s.is_chance()) throw IllegalActionError("sample_chance: the node is not a draw");
            return s.sample_chance().code;
          },
          "Returns a draw chosen with the state's own PRNG (advancing it); does not apply it.")
      // Results.
      .def(
          "score", [](const State& s, int p) { return s.score(checked_player(s, p)); }, "player"_a)
      .def(
          "score",
          [](const State& s, int p, const std::string& cause) {
            return s.score(checked_player(s, p), cause_from_name(cause));
          },
          "player"_a, "cause"_a, "The points of one player booked under one cause (CAUSES).")
      .def("scores",
           [](const State& s) {
             std::vector<int> out;
             for (int p = 0; p < s.num_players(); ++p) out.push_back(s.score(p));
             return out;
           })
      .def(
          "breakdown",
          [](const State& s, int p) {
            checked_player(s, p);
            py::dict out;
            for (int c = 0; c < kNumCauses; ++c) out[cause_name(Cause(c))] = s.score(p, Cause(c));
            return out;
          },
          "player"_a, "{cause: points} for one player, every cause listed (B-11).")
      .def("returns", &State::returns, "Win shares at the end (B-10); all 0 before.")
      .def(
          "scores_if_ended",
          [](const State& s) {
            std::array<int, kMaxPlayers> ended = s.scores_if_ended();
            return std::vector<int>(ended.begin(), ended.begin() + s.num_players());
          },
          "Every player's score if the game ended now (final scoring B-8/B-9 on a copy).")
      // Inspection.
      .def(
          "supply",
          [](const State& s, int p, const std::string& kind) {
            return s.supply(checked_player(s, p), figure_kind_from_name(kind));
          },
          "player"_a, "kind"_a = "meeple", "Figures of one kind (meeple, mayor, wagon, barn) a player has in supply.")
      .def(
          "abbeys", [](const State& s, int p) { return s.abbeys(checked_player(s, p)); }, "player"_a,
          "Abbey tiles the player still holds (AM-A-1).")
      .def(
          "count", [](const State& s) { return std::string(kQuarterNames[int(s.count())]); },
          "The quarter of the City of Carcassonne where the Count stands (CK-2).")
      .def(
          "in_quarter",
          [](const State& s, int p, const std::string& quarter, const std::string& kind) {
            for (int q = 0; q < kNumQuarters; ++q)
              for (int k = 0; k < 3; ++k)
                if (quarter == kQuarterNames[q] && kind == figure_kind_name(FigureKind(k)))
                  return s.in_quarter(checked_player(s, p), Quarter(q), FigureKind(k));
            throw py::value_error("unknown quarter '" + quarter + "' or figure kind '" + kind + "'");
          },
          "player"_a, "quarter"_a, "kind"_a = "meeple", "The player's figures of this kind in a quarter of the City.")
      .def("king", &State::king, "The King's holder (KR-1), -1 for nobody.")
      .def("robber", &State::robber, "The Robber's holder (KR-1), -1 for nobody.")
      .def("river_left", &State::river_left, "River II tiles still to be drawn (RV-3).")
      .def("bag_size", &State::bag_size)
      .def(
          "bag_counts",
          [](const State& s) {
            py::dict out;
            for (const TileKind& k : catalogue().kinds())
              if (s.bag_count(k.id)) out[py::str(k.name)] = s.bag_count(k.id);
            return out;
          },
          "{tile kind: copies left in the bag}, kinds with none left omitted.")
      .def(
          "drawn_tile",
          [](const State& s) -> py::object {
            if (s.phase() != Phase::PlaceTile && s.phase() != Phase::PlaceFigure) return py::none();
            return py::str(catalogue().kind(s.drawn_tile()).name);
          },
          "The tile to place (or just placed, at a figure decision); None at a draw or the end.")
      .def("turn_number", &State::turn_number)
      .def("discarded", &State::discarded, "Unplaceable tiles removed from the game so far (B-4).")
      .def("seed", &State::seed)
      .def(
          "placed_tiles",
          [](const State& s) {
            py::list out;
            for (int i = 0; i < s.board().num_tiles(); ++i) {
              const PlacedTile& t = s.board().tile(i);
              out.append(py::make_tuple(catalogue().kind(t.kind).name, int(t.cell.x), int(t.cell.y), int(t.rotation)));
            }
            return out;
          },
          "(kind, x, y, rotation) of every tile on the board, in placement order.")
      .def(
          "placed_figures",
          [](const State& s) {
            py::list out;
            for (int i = 0; i < s.num_placed_figures(); ++i) {
              const PlacedFigure& f = s.placed_figure(i);
              const Segment& seg = s.features()[f.segment];
              Cell c = s.board().tile(seg.tile).cell;
              out.append(py::make_tuple(int(f.owner), figure_kind_name(f.kind), int(c.x), int(c.y), int(seg.local)));
            }
            return out;
          },
          "(player, kind, x, y, feature index) of every figure on the board.")
      // Strings and checks.
      .def(
          "action_to_string", [](const State& s, int64_t code) { return s.action_to_string(to_action(code)); },
          "code"_a)
      .def(
          "parse_action",
          [](const State& s, std::string_view text) {
            if (text.find('\0') != std::string_view::npos)  // the engine's message would be cut there
              throw IllegalActionError("cannot parse action '" + escaped(text) + "': it holds a NUL byte");
            return s.parse_action(text).code;
          },
          "text"_a, "Parses an action's string form; raises IllegalActionError if malformed (not if illegal).")
      .def("to_string", &State::to_string)
      .def("__str__", &State::to_string)
      .def("check_consistency", &State::check_consistency,
           "Recomputes every aggregate from scratch; raises RuntimeError on a mismatch.")
      .def("clone", &State::clone, "A copy of the state (a memcpy).")
      .def("same_position", &State::same_position, "other"_a,
           "True if both are the same game position: everything that shapes the game from here is equal,\n"
           "whatever the PRNG or the history that led here.")
      .def(
          "__eq__",
          [](const State& a, const py::object& b) -> py::object {
            if (!py::isinstance<State>(b)) return py::reinterpret_borrow<py::object>(Py_NotImplemented);
            return py::bool_(a.same_position(b.cast<const State&>()));
          },
          "other"_a, "same_position(other): states compare by position (not by PRNG or history).")
      .def("__copy__", &State::clone)
      .def(
          "__deepcopy__", [](const State& s, py::dict) { return s.clone(); }, "memo"_a);
}

}  // namespace carc::py_bindings
