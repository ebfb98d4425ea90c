// A state's bytes (game.h: to_bytes, from_bytes). A State is trivially copyable, so its bytes are
// its value; but bytes from outside (a damaged cache file, a hostile pickle) may hold anything,
// and the engine trusts its indexes on every hot path. from_bytes therefore checks every field
// before anything reads through it: the indexes and counts first (check_fields), the board and
// the union-find by rebuilding them from the tiles, then the aggregates (check_consistency).
#include <algorithm>
#include <cstring>
#include <memory>
#include <stdexcept>
#include <string>
#include <tuple>
#include <vector>

#include "game.h"
#include "game_internal.h"

namespace carc {

using namespace internal;

namespace {

// The header refuses bytes of another layout (size), format or tile catalogue.
constexpr char kStateMagic[8] = {'c', 'a', 'r', 'c', 'S', 'T', 'A', 'T'};
constexpr uint32_t kStateFormat = 5;  // 3: the segment aggregates in merge order; 4: the board's grid;
                                      // 5: a segment keeps its neighbouring cities
struct StateHeader {
  char magic[8];
  uint32_t format;
  uint32_t size;
  uint64_t catalogue;
};

// FNV-1a over every tile kind's name, count and features, and the tile file's text: kind ids
// index the state's arrays.
uint64_t catalogue_fingerprint() {
  static const uint64_t fingerprint = [] {
    uint64_t h = 1469598103934665603ull;
    auto mix = [&](uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    for (const TileKind& k : catalogue().kinds()) {
      for (char c : k.name) mix(uint8_t(c));
      mix(uint64_t(k.count));
      if (k.custom_count >= 0) mix(uint64_t(k.custom_count) << 32);  // a tile file's count line
      mix(uint64_t(k.num_segments));
    }
    if (catalogue().tile_file().error.empty())  // the tiles of a tile file, edited under the same names
      for (char c : catalogue().tile_file().text) mix(uint8_t(c));
    return h;
  }();
  return fingerprint;
}

[[noreturn]] void fail(const std::string& what) { throw RecordError("damaged State bytes: " + what); }

// A bool's byte, read without loading it as a bool (any byte but 0 and 1 is no bool).
template <class T>
void check_bool(const T& b, const char* name) {
  static_assert(sizeof(T) == 1);
  uint8_t byte;
  std::memcpy(&byte, &b, 1);
  if (byte > 1) fail(std::string(name) + " is not a bool");
}

template <class List>
void check_size(const List& list, const char* name) {
  if (list.size() < 0 || list.size() > list.capacity()) fail(std::string(name) + ": size out of range");
}

void check_range(int value, int low, int high, const char* name) {  // low <= value < high
  if (value < low || value >= high)
    fail(std::string(name) + " " + std::to_string(value) + " not in [" + std::to_string(low) + ", " +
         std::to_string(high) + ")");
}

}  // namespace

std::string State::to_bytes() const {
  std::string out(sizeof(StateHeader) + sizeof(State), '\0');
  StateHeader header{};
  std::memcpy(header.magic, kStateMagic, sizeof kStateMagic);
  header.format = kStateFormat;
  header.size = uint32_t(sizeof(State));
  header.catalogue = catalogue_fingerprint();
  std::memcpy(out.data(), &header, sizeof header);
  // The used parts of the board and the segments over zeros: the rest is never set (copy_from).
  std::unique_ptr<unsigned char[]> image(new unsigned char[sizeof(State)]());
  reinterpret_cast<State*>(image.get())->copy_from(*this);
  std::memcpy(out.data() + sizeof header, image.get(), sizeof(State));
  return out;
}

State State::from_bytes(std::string_view bytes) {
  StateHeader header{};
  if (bytes.size() >= sizeof header) std::memcpy(&header, bytes.data(), sizeof header);
  if (bytes.size() < sizeof header || std::memcmp(header.magic, kStateMagic, sizeof kStateMagic) != 0)
    throw RecordError("these bytes are not a pickled carcassonne State");
  // The message names the first difference (builds often differ only in their tile catalogue).
  std::string differs;
  if (header.format != kStateFormat)
    differs = "format " + std::to_string(header.format) + "; this build reads format " + std::to_string(kStateFormat);
  else if (header.size != sizeof(State))
    differs = "a State of " + std::to_string(header.size) + " bytes; this build's has " + std::to_string(sizeof(State));
  else if (header.catalogue != catalogue_fingerprint())
    differs = "another tile catalogue (fingerprint " + std::to_string(header.catalogue) + "; this build's is " +
              std::to_string(catalogue_fingerprint()) + ")";
  else if (bytes.size() != sizeof header + sizeof(State))
    differs =
        std::to_string(bytes.size()) + " bytes in all; a State's are " + std::to_string(sizeof header + sizeof(State));
  if (!differs.empty())
    throw RecordError("this pickled State comes from another build of carcassonne (" + differs +
                      "): keep game records (Game.to_json) across versions");
  State st;
  std::memcpy(static_cast<void*>(&st), bytes.data() + sizeof header, sizeof(State));  // bytes are the value
  st.check_fields();
  try {
    st.check_consistency();
  } catch (const std::logic_error& e) {
    fail(e.what());
  }
  Action buffer[kMaxActions];
  if (!st.is_terminal() && st.legal_actions(buffer) == 0)
    fail(std::string("nothing to do at ") + phase_name(st.turn_.phase));
  return st;
}

void State::check_fields() const {
  const Catalogue& cat = catalogue();
  // ---- The rules, first: the other checks read them.
  check_bool(rules_.abbey_mayor, "rules.abbey_mayor");
  check_bool(rules_.anniv20, "rules.anniv20");
  check_bool(rules_.king_robber, "rules.king_robber");
  check_bool(rules_.shrines, "rules.shrines");
  check_bool(rules_.river, "rules.river");
  check_bool(rules_.city_block, "rules.city_block");
  check_bool(rules_.count, "rules.count");
  check_bool(rules_.custom, "rules.custom");
  check_bool(fixed_order_, "fixed_order");
  check_range(rules_.players, 2, kMaxPlayers + 1, "players");
  check_range(int(rules_.abbey_endgame), 0, 3, "abbey_endgame");
  check_range(int(rules_.wagon_move), 0, 2, "wagon_move");
  check_range(int(rules_.count_move), 0, 3, "count_move");
  if (rules_.count && !rules_.city_block) fail("the Count without the City");
  for (int p = 0; p < kMaxPlayers; ++p)
    check_range(rules_.start_points[p], 0, p < rules_.players ? kMaxStartPoints + 1 : 1, "starting points");
  if (rules_.river && rules_.city_block) fail("River II with the City (CK-0)");
  if (abbey_kind_ >= cat.size() || !is_abbey(cat.kind(abbey_kind_))) fail("abbey kind");
  const int players = rules_.players;

  // ---- The board and the features, rebuilt from the tiles in placement order (each must
  // touch an earlier one and match its sides, as placements do): the bytes must be that board,
  // cell index and frontier, and that union-find (roots, member lists, structural aggregates).
  const int num_tiles = board_.num_tiles();
  check_range(num_tiles, 1, kMaxTiles + 1, "number of tiles");
  State fresh;
  fresh.rules_ = rules_;
  std::vector<int> used(cat.size(), 0);
  for (int slot = 0; slot < num_tiles; ++slot) {
    const PlacedTile& t = board_.tile(slot);
    const std::string where = "tile " + std::to_string(slot);
    if (t.kind >= cat.size() || t.rotation > 3) fail(where + ": kind or rotation out of range");
    const TileKind& kind = cat.kind(t.kind);
    if (++used[t.kind] > kind.copies(rules_.custom))
      fail(where + ": more copies of " + kind.name + " than the set has");
    if (std::abs(t.cell.x) >= kCoordLimit - 1 || std::abs(t.cell.y) >= kCoordLimit - 1)
      fail(where + ": cell out of range");
    if (t.first_segment != fresh.features_.size() || fresh.features_.size() + kind.num_segments > kMaxSegments)
      fail(where + ": first segment");
    if (slot > 0) {
      int f = fresh.board_.frontier_index(t.cell);
      if (f < 0) fail(where + ": not beside an earlier tile, or on one");
      bool fits = is_abbey(kind) ? fresh.board_.frontier_neighbours(f) == 0xF
                                 : fresh.board_.fits(f, kind.rotations[t.rotation].signature);
      if (!fits) fail(where + ": sides do not match its neighbours");
    }
    if (kind.cloister_segment >= 0 && fresh.open_cloisters_.full()) fail(where + ": too many cloisters");
    if (kind.river_sides && fresh.river_.tiles.full()) fail(where + ": too many river tiles");
    fresh.put_tile(t.cell, t.kind, t.rotation);
    if (rules_.river && kind.river_sides) fresh.extend_river(t.cell, kind, t.rotation);
    fresh.scoring_.pending.clear();
    fresh.scoring_.barn_fields.clear();
  }
  if (!fresh.board_.same_layout(board_)) fail("the board's index or frontier is not its tiles'");
  if (features_.size() != fresh.features_.size()) fail("number of segments");
  for (int s = 0; s < features_.size(); ++s) {
    const Segment &a = features_[s], &b = fresh.features_[s];
    check_bool(a.has_twin, "segment has_twin");
    if (std::tie(a.root, a.next, a.tile, a.local, a.type, a.has_twin, a.open, a.tiles, a.size, a.pennants, a.twins,
                 a.pig, a.carcassonne, a.cities) != std::tie(b.root, b.next, b.tile, b.local, b.type, b.has_twin,
                                                             b.open, b.tiles, b.size, b.pennants, b.twins, b.pig,
                                                             b.carcassonne, b.cities))
      fail("segment " + std::to_string(s) + " is not what its tiles give");
  }
  check_size(open_cloisters_, "open cloisters");
  check_size(river_.ends, "river ends");
  check_size(river_.tiles, "river tiles");
  if (!(open_cloisters_ == fresh.open_cloisters_) || !(river_.ends == fresh.river_.ends) ||
      !(river_.tiles == fresh.river_.tiles))
    fail("the open cloisters or the river's ends are not what the tiles give");

  // ---- Whose turn and where in it.
  check_bool(turn_.extra_turn, "turn.extra_turn");
  check_bool(turn_.in_extra_turn, "turn.in_extra_turn");
  check_bool(turn_.volcano, "turn.volcano");
  check_range(int(turn_.phase), 0, int(Phase::GameOver) + 1, "phase");
  check_range(turn_.player, 0, players, "turn player");
  check_range(turn_.drawn, 0, cat.size(), "drawn tile");
  if (turn_.last_slot != num_tiles - 1) fail("the last tile placed is not the last slot");
  check_range(turn_.number, 0, 1 << 15, "turn number");
  check_range(turn_.discarded, 0, kMaxTiles + 1, "discarded tiles");
  check_range(turn_.last_placer, -1, players, "last placer");
  check_range(turn_.endgame, 0, players + 2, "final round counter");

  // ---- Figures, supplies, the City: owners are players, segments exist, counts fit.
  check_size(figures_, "figures");
  for (const PlacedFigure& f : figures_) {
    check_bool(f.paired, "figure paired");
    check_range(f.segment, 0, features_.size(), "figure segment");
    check_range(f.owner, 0, players, "figure owner");
    check_range(int(f.kind), 0, kNumFigureKinds, "figure kind");
    if (!figure_in_play(f.kind)) fail("a figure not in play");
  }
  for (int p = 0; p < kMaxPlayers; ++p) {
    const bool seated = p < players;
    for (int k = 0; k < kNumFigureKinds; ++k)
      check_range(supply_[p][k], 0, 1 + (seated ? (k == 0 ? kMeeplesPerPlayer : rules_.abbey_mayor) : 0), "supply");
    check_range(abbeys_[p], 0, 1 + (seated && rules_.abbey_mayor), "abbeys held");
    for (int q = 0; q < kNumQuarters; ++q)
      for (int k = 0; k < 3; ++k)
        check_range(city_.quarters[p][q][k], 0, 1 + (seated && rules_.count ? kMeeplesPerPlayer : 0), "City figures");
    if (!seated && (scores_[p] || scoring_.start_scores[p] ||
                    std::any_of(breakdown_[p].begin(), breakdown_[p].end(), [](int16_t v) { return v != 0; })))
      fail("points of a player not in the game");
  }
  check_range(city_.count, 0, kNumQuarters, "the Count's quarter");
  check_range(city_.market_player, 0, players, "market player");
  check_range(king_robber_.king, -1, players, "king");
  check_range(king_robber_.robber, -1, players, "robber");
  check_size(wagons_, "wagons to move");
  for (const WagonToMove& w : wagons_) {
    check_range(w.owner, 0, players, "wagon owner");
    check_range(w.origin, 0, features_.size(), "wagon origin");
  }
  check_size(challenges_, "challenges");
  for (const Challenge& c : challenges_) {
    check_range(c.shrine, 0, features_.size(), "challenge shrine");
    check_range(c.cloister, 0, features_.size(), "challenge cloister");
  }

  // ---- Phase 3 under way, arrows, the bag.
  check_bool(scoring_.scored, "scoring.scored");
  check_size(scoring_.pending, "pending features");
  check_size(scoring_.barn_fields, "barn fields");
  for (uint16_t s : scoring_.pending) check_range(s, 0, features_.size(), "pending feature");
  for (const BarnField& b : scoring_.barn_fields) check_range(b.root, 0, features_.size(), "barn field");
  const int items = scoring_.pending.size() + scoring_.barn_fields.size();
  check_range(scoring_.next, 0, items + 1, "scoring step");
  check_range(scoring_.city_step, 0, players + 1, "City step");
  check_range(scoring_.moved_out, 0, 1 << players, "moved out of the City");
  check_size(arrows_.candidates, "arrow candidates");
  for (uint8_t slot : arrows_.candidates) check_range(slot, 0, num_tiles, "arrow candidate");
  check_range(int(arrows_.active), 0, int(ArrowKind::ExtraTurn) + 1, "active arrow");
  check_size(bag_, "bag");
  check_size(river_.stack, "river stack");
  std::vector<int> left(kMaxKinds, 0);
  for (KindId k : bag_) {
    check_range(k, 0, cat.size(), "tile in the bag");
    ++left[k];
  }
  for (KindId k : river_.stack) {
    check_range(k, 0, cat.size(), "tile in the river stack");
    if (!cat.kind(k).river_sides) fail("a land tile in the river stack");
    ++left[k];
  }
  for (int k = 0; k < kMaxKinds; ++k)
    if (bag_count_[k] != left[k]) fail("bag count of kind " + std::to_string(k));

  // ---- What each phase reads.
  const Phase phase = turn_.phase;
  const bool scoring = phase == Phase::ArrowChoice || phase == Phase::PlaceFigure || phase == Phase::CityMove;
  if (!scoring && (items || scoring_.next || scoring_.city_step)) fail("a scoring outside phase 3");
  if (!wagons_.empty() && phase != Phase::WagonMove && phase != Phase::CityMove) fail("wagons waiting out of turn");
  if (!arrows_.candidates.empty() && phase != Phase::ArrowChoice) fail("arrow candidates out of turn");
  const bool city_phase =
      phase == Phase::CityMove || phase == Phase::CityPlace || phase == Phase::CountMove || phase == Phase::MarketMove;
  if (city_phase && !rules_.count) fail(std::string(phase_name(phase)) + " without the Count");
  switch (phase) {
    case Phase::Draw:
      if (bag_.empty() && river_.stack.empty()) fail("a draw from an empty bag");
      break;
    case Phase::AbbeyChoice:
      if (!abbeys_[turn_.player]) fail("an abbey choice without an abbey");
      break;
    case Phase::ArrowChoice:
      if (!rules_.anniv20 || arrows_.candidates.empty()) fail("an arrow choice without arrows");
      break;
    case Phase::CityMove:
      if (scoring_.next >= items || scoring_.city_step >= players) fail("a City move with nothing to score");
      break;
    case Phase::WagonMove:
      if (wagons_.empty()) fail("a wagon move without a wagon");
      break;
    case Phase::MarketMove:
      if (!city_.quarters[city_.market_player][int(Quarter::Market)][0]) fail("a market move without a meeple there");
      break;
    default: break;
  }
}

}  // namespace carc
