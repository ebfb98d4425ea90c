// What a learner sees and does: an observation tensor per player and a fixed, dense action space.
//
// The observation's board planes are a square window of board cells that recentres on the play
// area at every node: its centre is the centre of the bounding box of the placed tiles. Action
// indexes come in two layouts (ActionLayout). In the window layout a placement's index is a
// window cell and a rotation, lined up with the planes; a board wider than the window leaves
// legal actions without an index (each placement reaches at most one cell beyond the tiles'
// bounding box), and such a node is reported, not hidden: ActionSpace::legal_mask returns how
// many legal actions it could not index (docs/observation.md gives the measured rate per rule
// mix). In the frontier layout a placement names a frontier cell and a figure elsewhere or an
// arrow a placed tile, so every legal action of every node has an index; write_action_cells
// gives those cells' positions in the planes.
//
// Observations are from one player's perspective: "relative player" r is the player r seats
// after the observer, so the observer is always 0. The layouts (plane and global names, in
// order) are in docs/observation.md and come from plane_names() / global_names(). Only State's
// public API is used. Versioned: kObservationVersion changes whenever a layout changes.
#pragma once

#include <array>
#include <cstdint>
#include <string>
#include <vector>

#include "action.h"
#include "board.h"
#include "game.h"
#include "types.h"

namespace carc {

inline constexpr int kObservationVersion = 1;
// The default window side: board cells per row and column (docs/observation.md: why this size).
inline constexpr int kDefaultWindow = 32;
inline constexpr int kMinWindow = 4;
inline constexpr int kMaxWindow = 2 * kCoordLimit - 2;

// A square of board cells: x0 .. x0 + size - 1 by y0 .. y0 + size - 1; cell index row-major.
struct Window {
  int x0 = 0;
  int y0 = 0;
  int size = kDefaultWindow;

  bool contains(Cell c) const { return c.x >= x0 && c.x < x0 + size && c.y >= y0 && c.y < y0 + size; }
  int index(Cell c) const { return (c.y - y0) * size + (c.x - x0); }
  Cell cell(int index) const { return Cell{int16_t(x0 + index % size), int16_t(y0 + index / size)}; }
};

// The window of this side centred on the bounding box of the state's placed tiles (an even side
// puts the centre just right of and below the middle). Throws std::invalid_argument for a side
// outside [kMinWindow, kMaxWindow].
Window observation_window(const State& state, int size = kDefaultWindow);

// What encode_update or encode_packed_update last wrote into one buffer of planes.
class PlaneCache {
 public:
  // Forgets the buffer: the next call rewrites it whole.
  void clear() { known_ = false; }
  // The window of the planes written last (observation_window of that node).
  const Window& window() const { return window_; }

 private:
  friend class ObservationEncoder;
  bool known_ = false;  // the buffer holds what the fields below say (else anything)
  Window window_;
  std::vector<PlacedTile> tiles_;  // the tiles whose fixed planes are written, by slot
  std::vector<uint32_t> flags_;    // per tile (by slot): its flag bits written (0 outside the window)
  std::vector<uint32_t> marks_;    // the offsets written for the node: last placed, focus, challenge, figures
};

// Encodes states for one player count and window side.
class ObservationEncoder {
 public:
  // Throws std::invalid_argument for players outside 1 .. kMaxPlayers or a bad window side.
  explicit ObservationEncoder(int players, int window = kDefaultWindow);

  int players() const { return players_; }
  int window() const { return window_; }
  int num_planes() const { return int(plane_names_.size()); }
  int num_globals() const { return int(global_names_.size()); }
  // Bytes of one observation's planes: num_planes() * window() * window().
  int plane_bytes() const { return num_planes() * window_ * window_; }
  const std::vector<std::string>& plane_names() const { return plane_names_; }
  const std::vector<std::string>& global_names() const { return global_names_; }

  // Writes the observation of `state` from `observer`'s seat: planes (plane_bytes(), as
  // [plane][row][column], the window's rows from its top, y0) and globals (num_globals()). Every
  // value is written. Plane values are small counts (0/1 flags, figures, pennants), so bytes hold
  // them exactly at a quarter of the memory traffic of floats; globals (scores, bag counts) are
  // floats. The state must have players() players and observer be one of them
  // (std::invalid_argument otherwise).
  void encode(const State& state, int observer, uint8_t* planes, float* globals) const;

  // Bytes of one observation's bit-packed planes: plane_bytes() / 8, rounded up.
  int packed_bytes() const { return (plane_bytes() + 7) / 8; }
  // encode()'s planes bit-packed as numpy.packbits(planes, bitorder="little") (plane byte i is
  // bit i % 8 of byte i / 8; a count above 1 is a 1), every byte of packed_bytes() written.
  void encode_packed(const State& state, int observer, uint8_t* bits, float* globals) const;
  // encode()'s planes (as bytes, or bit-packed as encode_packed) into a buffer that holds the
  // planes of an earlier node, rewriting only what changed since: the tiles placed since, the
  // flags of each tile (features completed, held, armed arrows) that differ, the figures and the
  // marks of the node. `cache` remembers what the last call wrote into `planes`: pass the same
  // buffer and cache every time (nodes of one game or another). A new cache, one cleared, a
  // window that moved or another game (tiles other than those the cache lists) makes the call
  // zero the buffer and write it whole. The fixed planes depend only on the tiles and the window;
  // the flags and the marks are read from the state at every call.
  void encode_update(const State& state, int observer, uint8_t* planes, PlaneCache& cache, float* globals) const;
  void encode_packed_update(const State& state, int observer, uint8_t* bits, PlaneCache& cache, float* globals) const;

 private:
  void check(const State& state, int observer) const;
  template <class Writer>
  void write_planes(const State& state, int observer, Writer& out) const;
  template <class Writer>
  void update_planes(const State& state, int observer, Writer& out, PlaneCache& cache) const;
  template <class Writer>
  void write_node_marks(const State& state, int observer, const Window& w, Writer& out) const;
  void write_globals(const State& state, int observer, float* globals) const;

  int players_;
  int window_;
  std::array<int, 32> flag_offsets_{};  // the offset of the plane of each tile flag (TileFlags)
  std::vector<std::string> plane_names_;
  std::vector<std::string> global_names_;
};

// How an action index names cells (docs/observation.md, "The action space"):
//   Window    a cell of the observation window, row-major: the planes line up with the
//             indexes, but a placement beyond the window has no index (a board wider than W - 2).
//   Frontier  a placement or an abbey names a frontier cell (an empty cell next to a tile) by its
//             rank in row-major order; a figure elsewhere or an arrow names a placed tile by its
//             slot (the order the tiles were placed, the start first). Every legal action of every
//             node has an index (a board holds at most kMaxFrontier frontier cells and kMaxTiles
//             tiles); the cells' positions are given beside the observation (write_action_cells).
enum class ActionLayout : uint8_t { Window, Frontier };

const char* layout_name(ActionLayout layout);
// "window" or "frontier"; std::invalid_argument for another name.
ActionLayout parse_layout(const std::string& name);

// The cells one node's action indexes name: the window (window layout), or the frontier cells in
// row-major order as pack_cell keys (frontier layout; the tiles are the state's, by slot).
struct ActionFrame {
  Window window;
  std::vector<uint32_t> frontier;
  std::vector<int16_t> rank;  // frontier layout: the rank of the board's frontier cell i (Board::frontier_index)
};

// Written for each frontier cell and tile beyond the board's count (write_action_cells).
inline constexpr int16_t kNoCell = INT16_MIN;

// The dense action space: every action of any rule mix (chance draws included) as an index in
// [0, size()). Index blocks, in order (K tile kinds in the catalogue; C the cells a placement may
// name, W^2 in the window layout and kMaxFrontier in the frontier layout, c one of them; T the
// tiles a figure elsewhere or an arrow may name, W^2 or kMaxTiles, t one of them):
//   draw       K          tile kind id                                          chance only
//   place      4 C        c * 4 + rotation
//   figure     40         figure kind * 10 + feature index (barn: its corner)   on the new tile
//   figure_at  30 T       (t * 3 + figure kind) * 10 + feature index            meeple, mayor, wagon
//   pass       1
//   take-tile  1
//   abbey      C          c
//   arrow      T          t
//   quarter    12         figure kind * 4 + quarter                            meeple, mayor, wagon
//   count      4          quarter
// The draw block first means a draw's index is its tile kind id (OpenSpiel's chance outcomes).
class ActionSpace {
 public:
  struct Block {
    const char* name;
    int start;
    int size;
  };

  // The window layout of this side (std::invalid_argument outside [kMinWindow, kMaxWindow]).
  explicit ActionSpace(int window = kDefaultWindow);
  // `window` is the window layout's side; the frontier layout has none (window() is 0).
  ActionSpace(ActionLayout layout, int window);

  ActionLayout layout() const { return layout_; }
  int window() const { return window_; }
  int size() const { return size_; }
  const std::vector<Block>& blocks() const { return blocks_; }

  // The cells of s's action indexes, into `frame` (its vectors' memory reused).
  void frame(const State& s, ActionFrame& frame) const;
  ActionFrame frame(const State& s) const;

  // The index of action a at s (frame: frame(s)), or -1 if a's cell has none (outside the window;
  // not a frontier cell or a tile) or a is not a well formed action of a kind the space holds.
  int index(const State& s, const ActionFrame& frame, Action a) const;
  // The action at `index` at s; throws std::out_of_range for an index outside [0, size()), a cell
  // beyond the board's coordinate range, or a frontier cell or tile the board does not have.
  Action action(const State& s, const ActionFrame& frame, int index) const;
  // The indexes of s's legal actions, ascending, into `indices` (cleared first). Returns how many
  // distinct legal actions have no index (0 in the frontier layout; in the window layout, those
  // outside the window).
  int legal_indices(const State& s, const ActionFrame& frame, std::vector<int>& indices) const;
  // Sets mask[index] = 1 for every legal action of s (mask: size() bytes, zeroed first). Returns
  // legal_indices' count of the legal actions without an index.
  int legal_mask(const State& s, const ActionFrame& frame, uint8_t* mask) const;

  // The window layout in window w (the search's network uses these; w.size must be window()).
  int index(const Window& w, Action a) const;
  Action action(const Window& w, int index) const;

  // The frontier layout's cells as an observation in window w shows them: (row, column) relative
  // to w's top-left (y - y0, x - x0; beyond [0, w.size) for a cell outside it) of each frontier
  // cell in frame order into frontier[2 * kMaxFrontier], and of each placed tile by slot into
  // tiles[2 * kMaxTiles]; the rows past the board's counts hold kNoCell. Rows from frontier_rows
  // and tile_rows on are left as they are (a caller that knows they hold kNoCell already).
  static void write_action_cells(const State& s, const ActionFrame& frame, const Window& w, int16_t* frontier,
                                 int16_t* tiles, int frontier_rows = kMaxFrontier, int tile_rows = kMaxTiles);

 private:
  template <class Cells>
  int index_in(const Cells& cells, Action a) const;
  template <class Cells>
  Action action_in(const Cells& cells, int index) const;
  template <class Cells>
  int legal_indices_in(const State& s, const Cells& cells, std::vector<int>& indices) const;

  ActionLayout layout_;
  int window_;
  int kinds_;
  int size_;
  int place_, figure_, figure_at_, pass_, take_tile_, abbey_, arrow_, quarter_, count_;
  std::vector<Block> blocks_;
};

}  // namespace carc
