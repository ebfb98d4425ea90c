// The game as a tree of nodes: the decision API that players, search and bindings use.
//
// A State is one node. At a chance node (a draw) chance_outcomes() lists every tile kind left
// with its probability; at a decision node current_player() chooses one of legal_actions(). A
// turn of the base game is: draw (chance), place the tile, place a figure or pass, then scoring
// runs inside apply(). A figure decision with nothing to choose but "pass" is skipped.
//
// A State is a value: fixed-capacity arrays, no pointers, its PRNG inside. Copying it (clone())
// is a memcpy of sizeof(State) bytes, and the same seed and actions give the same game.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "action.h"
#include "board.h"
#include "catalogue.h"
#include "config.h"
#include "errors.h"
#include "explain.h"
#include "features.h"
#include "fixed_list.h"
#include "rng.h"
#include "types.h"

namespace carc {

inline constexpr int kChancePlayer = -1;
inline constexpr int kTerminalPlayer = -4;
inline constexpr int kMaxActions = 4 * kMaxFrontier + 16;
inline constexpr int kMeeplesPerPlayer = 7;
inline constexpr int kMaxPlacedFigures = kMaxPlayers * 10;  // 7 meeples, mayor, wagon, barn

// Where a node stands in the turn (RULES section 5).
enum class Phase : uint8_t {
  Draw,         // chance: the bag gives a tile
  AbbeyChoice,  // the turn player places the abbey or takes a tile (AM-A-1, AM-A-5)
  PlaceTile,    // the turn player places the drawn tile
  ArrowChoice,  // the placement would activate several arrows: the turn player picks one (XX-3)
  PlaceFigure,  // the turn player places a figure on the new tile (or elsewhere, XX-4/5), or passes
  CityMove,     // before a feature scores, a player moves figures from the City onto it (CK-4, CK-5)
  WagonMove,    // a wagon's owner moves it after its feature scored, or returns it (AM-W-2)
  CityPlace,    // the turn player may put a figure into the City (CK-3)
  CountMove,    // ... and then move the Count (CK-3, CK-7 free)
  MarketMove,   // game end: a player moves one meeple from the market to a field (CK-6)
  GameOver,
};
const char* phase_name(Phase p);

enum class AbbeyEndgame : uint8_t { Mandatory, FinalRound, None };  // RULES AM-A-5
enum class WagonRule : uint8_t { C2, C1 };                          // RULES AM-W-4

// The rules of one game, fixed at set-up (a validated Config, flattened into the state).
struct Rules {
  uint8_t players = 2;
  bool abbey_mayor = false;
  AbbeyEndgame abbey_endgame = AbbeyEndgame::Mandatory;
  WagonRule wagon_move = WagonRule::C2;
  bool anniv20 = false;
  bool king_robber = false;
  bool shrines = false;
  bool river = false;       // River II start (RV)
  bool city_block = false;  // the City of Carcassonne's squares start the game (CK-0, CK-1)
  bool count = false;       // ... with its quarters and the Count (start = city, CK-2 … CK-7)
  enum class CountMove : uint8_t { Free, Clockwise, Follow } count_move = CountMove::Free;
  bool custom = false;  // the tile file's tiles and counts (catalogue.h)
  // Variant points (VAR-POINTS): each seat's score starts here; the breakdown does not hold them.
  std::array<int16_t, kMaxPlayers> start_points{};

  bool operator==(const Rules&) const = default;
};

// A figure on the board.
struct PlacedFigure {
  uint16_t segment = kNoSegment;
  uint8_t owner = 0;
  FigureKind kind = FigureKind::Meeple;
  bool paired = false;  // one of two figures standing together after XX-4

  bool operator==(const PlacedFigure&) const = default;
};

// What a figure of `player` standing on a feature adds to its root segment's aggregates
// (State::add_figure; search values a figure's feature with it without placing the figure).
inline void count_figure(Segment& feature, int player, FigureKind kind) {
  switch (kind) {
    case FigureKind::Meeple:
    case FigureKind::Wagon:
      ++feature.occupants;
      ++feature.meeples[size_t(player)];
      break;
    case FigureKind::Mayor:
      ++feature.occupants;
      feature.mayors |= uint8_t(1u << player);
      break;
    case FigureKind::Barn: ++feature.barns; break;
  }
}

// A game described at the start of a turn (tests, puzzles, analysis, saved games): what
// State::to_position writes and State::from_position reads. What a turn start needs and the
// board does not show is here; the rest follows from the tiles in their placement order: the
// features, the river's ends (RV-2), which arrows are spent (XX-1), the King's and the Robber's
// sizes (KR-1), and the shrine challenges under way (SH-4: between two unfinished, occupied
// neighbours there always is one). At a turn start no wagon waits and no arrow is active.
struct Position {
  struct Tile {
    std::string kind;
    Cell cell;
    int rotation = 0;
  };
  struct Figure {
    int player = 0;
    std::string kind = "meeple";  // meeple, mayor, wagon, barn
    Cell cell;
    int feature = 0;  // feature index on that tile; for a barn its corner (0 NE, 1 SE, 2 SW, 3 NW)
  };
  Config config;  // with draw_order set, those tiles are the bag, in order
  // In placement order; each after the first touches an earlier one. With the City, its squares
  // are laid first by the engine; with River II the spring comes first and the river tiles
  // before any land tile but abbeys.
  std::vector<Tile> tiles;
  // Two figures share a segment only as an XX-4 pair: the same player's, one a normal meeple.
  std::vector<Figure> figures;
  std::vector<int> scores;                  // per player; empty: the starting points (VAR-POINTS) + the breakdown
  std::vector<std::vector<int>> breakdown;  // per player, points per cause (B-11); empty: unknown
  std::vector<int> abbeys;                  // abbeys still held per player (0 or 1); empty: each holds one
  // With the City of Carcassonne (its squares are laid first): figures in its quarters, the Count.
  struct CityFigure {
    int player = 0;
    std::string kind = "meeple";
    std::string quarter = "castle";
  };
  std::vector<CityFigure> city;
  std::string count;  // the Count's quarter; empty: the castle (CK-2)
  // The tiles left (drawn at random), river tiles included; unset (and no draw_order): every
  // tile of the sets not placed.
  std::optional<std::vector<std::string>> bag;
  int current_player = 0;
  int king = -1, robber = -1;  // their holders (KR-1), -1 nobody
  bool extra_turn = false;     // this turn is an extra turn (XX-6, RV-6), which gives no other
  // Who placed the last tile or abbey (CK-6: the market moves start at their left); -1: the
  // player before current_player (current_player in an extra turn).
  int last_placer = -1;
  // AM-A-5 final_round, once the bag is empty: the players who still have their endgame turn,
  // current_player included (0: the round has not begun).
  int final_round_left = 0;
  // Abbey & Mayor: the turn player chose "take-tile" (AM-A-1) and the position is at the draw
  // that follows, not at the abbey choice.
  bool tile_taken = false;
  // The turns played so far (State::turn_number) and the unplaceable tiles removed from the game
  // (B-4, State::discarded); the observation reads both. At most the tiles of the bag neither
  // placed nor left can have been discarded.
  int turn_number = 0;
  int discarded = 0;
};

class State {
 public:
  // A new game: the start tile at (0, 0), the bag shuffled by config.seed. Throws ConfigError.
  explicit State(const Config& config);
  // A game set up from a described position, its next node the start of position.current_player's
  // turn. Throws ConfigError or PositionError (naming the offending tile or figure).
  static State from_position(const Position& position);
  // This game as a position, at the start of a turn (a draw, or the abbey choice); throws
  // PositionError elsewhere. from_position(to_position()) has the same legal actions and, with
  // the same draws, the same rest of the game; at a draw after "take-tile" the choice is kept
  // (Position::tile_taken).
  Position to_position() const;
  // The state as bytes: a header (format, size, tile catalogue) and its memory. Fast and exact,
  // for this build only (pickling, caches); game records (positions, actions) last across builds.
  std::string to_bytes() const;
  // A state from to_bytes(). Every field is checked before the state is used, indexes first:
  // bytes of another build, or damaged ones (an index out of range, a board or union-find that
  // its tiles do not give, a figure where none may stand, a phase with nothing to do, ...),
  // throw RecordError. state_bytes.cpp.
  static State from_bytes(std::string_view bytes);

  // ---- Node queries -------------------------------------------------------------------------
  int num_players() const { return rules_.players; }
  // The player to decide, kChancePlayer at a draw, kTerminalPlayer once the game is over.
  int current_player() const;
  // The player whose turn it is (also at the draw that starts it).
  int turn_player() const { return turn_.player; }
  const Rules& rules() const { return rules_; }
  bool is_chance() const { return turn_.phase == Phase::Draw; }
  bool is_terminal() const { return turn_.phase == Phase::GameOver; }
  Phase phase() const { return turn_.phase; }

  // Writes the legal actions into out (capacity kMaxActions) in no particular order; returns
  // how many. At a chance node these are the possible draws. Never 0 before the end.
  int legal_actions(Action* out) const;
  // The legal actions, sorted by code, without duplicates.
  std::vector<Action> legal_actions() const;
  // At a chance node: (draw action, probability) for every tile kind left, sorted.
  std::vector<std::pair<Action, double>> chance_outcomes() const;
  bool is_legal(Action a) const;

  // Applies a legal action; throws IllegalActionError and changes nothing otherwise.
  void apply(Action a);
  // apply(a), and appends to `scorings` (if not null) a record of every scoring it made, in the
  // order they scored (explain.h). scoring.cpp.
  void apply(Action a, std::vector<ScoringRecord>* scorings);
  // Applies an action known to be legal (search and playouts); no checks in release builds.
  void apply_unchecked(Action a);
  // Draws a tile with the state's own PRNG (the bag's proportions) and returns the draw action.
  Action sample_chance();
  // At a decision node: a uniformly random legal action, found without listing them all
  // (playouts).
  Action sample_legal_action(Rng& rng) const;
  // At a PlaceFigure node: the legal actions but a meeple on a field of the tile just placed,
  // in legal_actions' order ("pass" first); returns how many. Rollouts that place no farmer
  // choose among these without listing the farmers.
  int legal_actions_without_farmers(Action* out) const;

  State clone() const { return *this; }
  // Makes this state a copy of `other`, as `*this = other` does, in fewer bytes: of the segment
  // array (most of a state) only the used part. For the hot copies of search.
  void copy_from(const State& other);
  // True if both are the same game position: everything that shapes the game from here is
  // equal, whatever the PRNG (a search draws with its own) or the history that led here.
  bool same_position(const State& other) const;

  // ---- Results ------------------------------------------------------------------------------
  int score(int player) const { return scores_[player]; }
  int score(int player, Cause cause) const { return breakdown_[player][int(cause)]; }
  // Win shares at the end: 1/k for each of the k players with the top score, else 0 (B-10).
  std::vector<double> returns() const;
  // Every player's score if the game ended now: final scoring (B-8, B-9) applied to a copy. A
  // cheap, exact valuation of unfinished features and fields for search.
  std::array<int, kMaxPlayers> scores_if_ended() const;

  // ---- Inspection ---------------------------------------------------------------------------
  const Board& board() const { return board_; }
  const Features& features() const { return features_; }
  int num_placed_figures() const { return figures_.size(); }
  const PlacedFigure& placed_figure(int i) const { return figures_[i]; }
  int supply(int player, FigureKind kind = FigureKind::Meeple) const { return supply_[player][int(kind)]; }
  int abbeys(int player) const { return abbeys_[player]; }
  // SH-4: the challenges under way, each a shrine's and a monastery's or abbey's segment.
  int num_challenges() const { return challenges_.size(); }
  std::pair<uint16_t, uint16_t> challenge(int i) const { return {challenges_[i].shrine, challenges_[i].cloister}; }
  // At a WagonMove node: the segment the wagon stood on when its feature scored.
  uint16_t wagon_origin() const { return wagons_[0].origin; }
  // At a CityMove node: the root segment of the feature (or barn field) about to score (CK-4).
  uint16_t scoring_item() const { return item_root(); }
  // The arrow activated this turn (XX-1), ArrowKind::None if none.
  ArrowKind active_arrow() const { return arrows_.active; }
  // Returns true if the arrow of the tile in this slot can still activate.
  bool arrow_armed(int slot) const { return arrows_.armed[slot / 64] >> (slot % 64) & 1; }
  bool in_extra_turn() const { return turn_.in_extra_turn; }
  // King & Robber (KR-1): the holder (-1: nobody yet) and the size that took it.
  int king() const { return king_robber_.king; }
  // River II: river tiles still to come (they are drawn before any land tile, RV-3).
  int river_left() const { return river_.stack.size(); }
  // The City of Carcassonne: the Count's quarter, and a player's figures of a kind in a quarter.
  Quarter count() const { return Quarter(city_.count); }
  int in_quarter(int player, Quarter q, FigureKind kind = FigureKind::Meeple) const {
    return int(kind) < 3 ? city_.quarters[player][int(q)][int(kind)] : 0;
  }
  int robber() const { return king_robber_.robber; }
  int bag_size() const { return bag_.size() + river_.stack.size(); }  // the river stack included
  int bag_count(KindId kind) const { return bag_count_[kind]; }
  // Every kind's count in the bag (kinds beyond the catalogue's are 0): for reading many at once.
  const std::array<uint8_t, kMaxKinds>& bag_counts() const { return bag_count_; }
  // True if a draw may take any tile in the bag: no fixed order and no river tiles to come first.
  bool draws_any_tile() const { return !fixed_order_ && river_.stack.size() == 0; }
  // The tile to place at a PlaceTile node, the one just placed at a PlaceFigure node.
  KindId drawn_tile() const { return turn_.drawn; }
  int last_slot() const { return turn_.last_slot; }
  int turn_number() const { return turn_.number; }
  int discarded() const { return turn_.discarded; }  // unplaceable tiles removed (B-4)
  uint64_t seed() const { return seed_; }

  std::string action_to_string(Action a) const;
  // Parses an action's string form; throws IllegalActionError if malformed (not if illegal).
  Action parse_action(std::string_view text) const;
  // Returns true if figure kind f is in play.
  bool figure_in_play(FigureKind f) const { return f == FigureKind::Meeple || rules_.abbey_mayor; }
  // A short text picture of the game (scores, phase, tiles).
  std::string to_string() const;
  // Recomputes every aggregate from scratch and compares; throws std::logic_error on a mismatch.
  // Bounds-checked: a damaged state is reported, never dereferenced out of range.
  void check_consistency() const;

 private:
  State() { board_.clear(); }  // an empty game for the set-ups of positions and bytes to fill

  // ---- Set-up, turn flow, placements and legal actions: game.cpp ---------------------------
  void init(const Config& config);
  void put_tile(Cell c, KindId kind, int rotation);  // board + features; completions to scoring_.pending
  void add_pending(uint16_t root);
  void add_figure(int player, FigureKind kind, uint16_t segment, bool from_supply);
  bool placeable(KindId kind) const;
  void enter_figure_phase();
  // After a tile: true if one of its features that a figure may stand on has no figure (the
  // test for a meeple option when meeples are the only figures).
  bool tile_has_free_feature() const;
  // After a tile: true if figure_options lists any. Out of line, so that enter_figure_phase's
  // frame holds no list.
  [[gnu::noinline]] bool any_figure_option() const;
  // The figure choices after a tile, without "pass"; stops once it has `limit` of them. Without
  // `fields`, none on a field of the tile (a barn at its corner and arrows' options are kept).
  // Inline in game.cpp, its only caller.
  int figure_options(Action* out, int limit = kMaxActions, bool fields = true) const;
  // sample_legal_action at PlaceTile without listing the placements (no cult limit, no river).
  Action sample_placement(const TileKind& kind, Rng& rng) const;
  // Returns true if no lower segment of s's tile belongs to s's feature. Two segments of one tile
  // in one feature are one choice for any figure: the rules see features and tiles, not segments.
  bool first_on_its_tile(uint16_t s) const {
    return !features_[s].has_twin || first_of_twins(s);  // most segments have no twin on their tile
  }
  bool first_of_twins(uint16_t s) const {
    const Segment& seg = features_[s];
    for (int o = s - seg.local; o < s; ++o)  // the tile's segments are consecutive
      if (features_[o].root == seg.root) return false;
    return true;
  }
  void start_turn();
  void finish_turn();
  void remove_from_bag(KindId kind);
  // apply_unchecked's phases of the base game (out of line, so that its dispatch saves nothing).
  [[gnu::noinline]] void draw_tile(KindId kind);
  [[gnu::noinline]] void place_drawn_tile(Cell c, int rotation);
  [[gnu::noinline]] void place_figure(Action a);
  std::string why_illegal(Action a) const;
  Action checked(Action a) const;

  // ---- Phase 3 and the final scoring: scoring.cpp -------------------------------------------
  // Phase 3: a turn that completed nothing ends at once (game.cpp), else score_completed().
  void after_figure();
  // Phase 3 when the placement completed something: sorts and scores it.
  void score_completed();
  // Phase 3 as a resumable loop (the City's moves interrupt it before each scoring, CK-4/CK-5).
  void continue_scoring();
  void score_feature(uint16_t root, bool final);
  // Runs score(tally), a scoring's code: the tally (game_internal.h) adds up its points and, when
  // apply was given a list of scorings, writes the scoring's record (of the feature at `root`, if
  // any); else it is search's, which writes nothing.
  template <class Score>
  void tallied(ScoringKind kind, uint16_t root, bool final, Score&& score);
  ScoringRecord* write_record(ScoringKind kind, uint16_t root, bool final) const;
  // Gives the tally's points to the players of highest strength (> 0); mayor_cause for those
  // whose strength includes their mayor.
  template <class Tally>
  void award(const std::array<int, kMaxPlayers>& strength, const Tally& tally, Cause cause, uint8_t mayors = 0,
             Cause mayor_cause = Cause::City);
  // Returns the figures on a scored feature to supply; wagons queue up for their move
  // (AM-W-2). Barns stay.
  void return_figures(uint16_t root);
  // Books the tally's points for one player under their cause (B-11), in its record if kept.
  template <class Tally>
  void add_points(int player, const Tally& tally, Cause cause);
  void final_scoring();
  // Adds a field's terms to `tally`: `each` per completed city it touches, the City of
  // Carcassonne included (CK-1), and `pig` more per city (RV-4).
  template <class Tally>
  void count_fed_cities(uint16_t field_root, int each, int pig, Tally& tally) const;
  // Where apply(a, scorings) writes, for the duration of that call on this thread; null
  // otherwise. Not a member of the state: states are copied flat in search, which never asks.
  static thread_local std::vector<ScoringRecord>* scorings_;

  // ---- Abbey & Mayor (AM): rules_abbey_mayor.cpp --------------------------------------------
  bool barn_corner_ok(Cell c, int corner, uint16_t* field) const;
  bool has_hole() const;
  int abbey_options(Action* out) const;
  int wagon_targets(Action* out) const;  // the moves of the wagon at the head of the queue
  void next_wagon();
  void choose_abbey(Action a);  // AM-A-1: the abbey, a tile, or (final round) neither
  void place_barn(int corner);  // AM-B-1, AM-B-3
  void move_wagon(Action a);    // AM-W-2

  // ---- The City of Carcassonne and the Count (CK): rules_city.cpp --------------------------
  void lay_city_block();
  bool start_city_round();  // the next player to move figures onto the item being scored
  int city_move_options(Action* out) const;
  Quarter item_quarter() const;
  uint16_t item_root() const;
  void end_of_phase3();  // CK-3, then the next turn
  int city_place_options(Action* out) const;
  void begin_game_end();  // CK-6 market moves, then final scoring
  void next_market_player(int from);
  int market_options(Action* out) const;
  void enter_quarter(int player, FigureKind kind, Quarter q);
  void move_from_city(Action a);    // CK-4, CK-5
  void place_in_city(Action a);     // CK-3, then the Count (CK-7)
  void move_from_market(Action a);  // CK-6

  // ---- River II (RV): rules_river.cpp --------------------------------------------------------
  // RV-1, RV-2: the placements of a river tile, and the river's ends after one.
  int river_placements(const TileKind& kind, Action* out) const;
  bool river_placeable(const TileKind& kind) const;  // out of line: placeable stays small
  void extend_river(Cell c, const TileKind& kind, int rotation);
  // After a river tile is put: its ends, and RV-6 (the volcano lake: no figure, another turn).
  // Returns true if the figure decision follows.
  bool after_river_tile(Cell c, const TileKind& kind, int rotation);
  int river_draws(Action* out) const;  // RV-3: the draws while river tiles are left

  // ---- Cult places (SH): rules_shrines.cpp ---------------------------------------------------
  // SH-2: may a tile of this kind go on c as far as the cult-place limit is concerned?
  bool cult_limit_ok(Cell c, const TileKind& kind) const;
  // The class of a cloister-like tile for SH-2 and SH-4: 1 shrine, 2 monastery or abbey, 0 none.
  int cult_class(int slot) const;
  // SH-4: `segment` (cloister-like) just became occupied; store a challenge with each unfinished,
  // occupied neighbour of the other kind, if `segment` is unfinished too.
  void start_challenges(uint16_t segment);
  // SH-5: `completed` (cloister-like) was completed and scored; its challenge ends, and the
  // other side's figures return with no points unless it was completed in this phase too.
  void resolve_challenge(uint16_t completed);

  // ---- 20th Anniversary arrows (XX): rules_anniversary.cpp -----------------------------------
  void after_placement(Cell c);  // arrows (XX-1 .. XX-3), then the figure decision
  void activate_arrow(int slot);
  void choose_arrow(Cell c);                         // XX-3
  void place_figure_elsewhere(Cell c, int feature);  // XX-4, XX-5: a normal meeple
  int arrow_figure_options(Action* out) const;
  void set_arrow_armed(int slot, bool armed) {
    arrows_.armed[slot / 64] = (arrows_.armed[slot / 64] & ~(1ull << (slot % 64))) | uint64_t(armed) << (slot % 64);
  }

  // A new game of a validated config (seed included); State(config) copies the one set_up keeps.
  struct SetUpTag {};
  State(const Config& config, SetUpTag);
  // The game of config's rules with seed 0, set up once per thread (a copy per new game).
  static const State& set_up(const Config& config);

  // from_bytes' checks of every field but the aggregates (state_bytes.cpp); throws RecordError.
  void check_fields() const;

  // Positions: position.cpp. Action text: action_text.cpp. copy_from, same_position and
  // check_consistency: consistency.cpp.

  // The members are grouped by concern; each group compares with a defaulted == (its lists up to
  // their length, FixedList), so that same_position (consistency.cpp) names groups, not fields.
  // A new member goes into a group; sizeof(State) is checked below the class so that one added
  // outside them cannot go unnoticed there.

  // Rules (constant after construction).
  Rules rules_;
  bool fixed_order_ = false;  // the bag is drawn from its end, in order
  uint64_t seed_ = 0;
  KindId abbey_kind_ = 0;

  // Whose turn and where in it.
  struct Turn {
    Phase phase = Phase::Draw;
    uint8_t player = 0;
    KindId drawn = 0;
    int16_t last_slot = -1;
    int16_t number = 0;
    int16_t discarded = 0;
    int8_t last_placer = -1;     // who placed the last tile or abbey (CK-6)
    bool extra_turn = false;     // XX-6: the turn player plays again after this turn
    bool in_extra_turn = false;  // this turn is an extra turn (XX-6 or RV-6): no third in a row
    bool volcano = false;        // RV-6: the placer of the volcano lake plays again at once
    // The abbey endgame (AM-A-5): 0 before the bag ran out; then final_round counts turns left + 1.
    uint8_t endgame = 0;

    bool operator==(const Turn&) const = default;
  };
  Turn turn_;

  // Figures on the board and in supply.
  FixedList<PlacedFigure, kMaxPlacedFigures> figures_;
  std::array<std::array<uint8_t, kNumFigureKinds>, kMaxPlayers> supply_{};
  std::array<uint8_t, kMaxPlayers> abbeys_{};
  // Wagons whose feature scored this turn, in the order their owners decide (AM-W-3).
  struct WagonToMove {
    uint8_t owner = 0;
    uint16_t origin = kNoSegment;  // the segment it stood on

    bool operator==(const WagonToMove&) const = default;
  };
  FixedList<WagonToMove, kMaxPlayers> wagons_;

  // Phase 3 (scoring) of this turn: what to score, how far it got, and the City's bookkeeping
  // (CK-3, CK-4) that goes with it.
  struct BarnField {
    uint16_t root = kNoSegment;
    uint8_t points = 0;  // per completed city: 3 after a barn placement (AM-B-3), 1 after a join (AM-B-5)

    bool operator==(const BarnField&) const = default;
  };
  struct Scoring {
    FixedList<uint16_t, 16> pending;  // features the last placement completed
    FixedList<BarnField, 8> barn_fields;
    uint8_t next = 0;       // the item being scored: pending, then barn_fields
    uint8_t city_step = 0;  // CK-4 round: 1 + how many players have decided, 0 not begun
    uint8_t moved_out = 0;  // bit p: player p moved figures out of the City this phase
    bool scored = false;    // a scoring happened this phase (CK-3 a)
    std::array<int16_t, kMaxPlayers> start_scores{};

    bool operator==(const Scoring&) const = default;
  };
  Scoring scoring_;

  // 20th Anniversary arrows: which placed tiles' arrows can still activate, the candidates of
  // this placement when there are several (XX-3), the arrow active this turn.
  struct Arrows {
    std::array<uint64_t, (kMaxTiles + 63) / 64> armed{};
    FixedList<uint8_t, 5> candidates;
    ArrowKind active = ArrowKind::None;

    bool operator==(const Arrows&) const = default;
  };
  Arrows arrows_;

  // River II: the river tiles left (the fork first, the volcano lake last, RV-3), the river's
  // open ends with their branch (0 before the fork) and last turn (-1 left, 1 right, 0 none),
  // and the river tiles placed with their branch (RV-2).
  struct RiverEnd {
    Cell cell;
    uint8_t side = 0;
    uint8_t branch = 0;
    int8_t turn = 0;

    bool operator==(const RiverEnd&) const = default;
  };
  struct RiverTile {
    Cell cell;
    uint8_t branch = 0;

    bool operator==(const RiverTile&) const = default;
  };
  struct River {
    FixedList<KindId, 16> stack;
    FixedList<RiverEnd, 4> ends;
    FixedList<RiverTile, 16> tiles;

    bool operator==(const River&) const = default;
  };
  River river_;

  // The City of Carcassonne (CK): figures per player, quarter and kind (meeple, mayor, wagon),
  // the Count's quarter, and who moves from the market at the game end (CK-6).
  struct City {
    std::array<std::array<std::array<uint8_t, 3>, kNumQuarters>, kMaxPlayers> quarters{};
    uint8_t count = 0;
    uint8_t market_player = 0;

    bool operator==(const City&) const = default;
  };
  City city_;

  // King & Robber (KR-1): holders (-1 nobody) and the sizes they took them with.
  struct KingRobber {
    int8_t king = -1;
    int8_t robber = -1;
    uint16_t king_size = 0;
    uint16_t robber_size = 0;

    bool operator==(const KingRobber&) const = default;
  };
  KingRobber king_robber_;

  // Cult-place challenges under way (SH-4), stored when they begin. SH-2 allows a cloister
  // at most one neighbour of the other kind, so there are at most as many as shrines.
  struct Challenge {
    uint16_t shrine = kNoSegment;
    uint16_t cloister = kNoSegment;  // a monastery or abbey

    bool operator==(const Challenge&) const = default;
  };
  FixedList<Challenge, 8> challenges_;

  std::array<int16_t, kMaxPlayers> scores_{};
  std::array<std::array<int16_t, kNumCauses>, kMaxPlayers> breakdown_{};

  // The bag: kind ids (their order matters only with fixed_order_) and counts per kind.
  FixedList<KindId, kMaxTiles, int16_t> bag_;
  std::array<uint8_t, kMaxKinds> bag_count_{};

  // Cloister-like segments not yet completed (their `open` counts empty neighbours), with the
  // cell of their tile.
  struct OpenCloister {
    uint16_t segment = kNoSegment;
    Cell cell;

    bool operator==(const OpenCloister&) const = default;
  };
  FixedList<OpenCloister, 64> open_cloisters_;

  Rng rng_;

  // Last, so that copy_from can copy the members before them whole and of them the used parts.
  Board board_{Board::kUninitialized};  // State(config) copies a set-up, init() clears it
  Features features_;
};

// clone() is a memcpy: the state must stay a flat value.
static_assert(std::is_trivially_copyable_v<State>);
// A member added to State outside its groups changes its size: compare it in same_position
// (consistency.cpp) and set the new size here (on x86-64 and AArch64 with GCC or Clang).
static_assert(sizeof(void*) != 8 || sizeof(State) == 35960, "State changed: see same_position");

}  // namespace carc
