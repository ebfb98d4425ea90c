// The search tree's storage: compact nodes in one pool, shared lock-free by all search threads.
//
// A node stands for one game node (decision, chance or terminal) and also holds the edge from
// its parent (the action and its prior or probability). A node's children are one contiguous
// block of the pool, allocated and filled by the one thread that expands the node.
//
// Concurrency rules (tree parallelism; the fields are grouped by them):
//   * Constant once published: `action`, `prior`. They are written by the thread that expands
//     the parent, before that thread's release store of the parent's `expansion` = Done.
//   * Written once, by the thread that wins the None -> Busy CAS on `expansion`, before its
//     release store of Done: `first_child`, `num_children`, `mover`. Readers must see Done from
//     an acquire load of `expansion` before reading them (and before touching the children).
//   * `expansion` only moves forward: None -> Busy -> Done, or None -> Busy -> Full when the
//     pool has no room (the node then stays a leaf; a compaction after reuse resets it to None).
//     A thread that finds a node Busy evaluates it as a leaf instead of waiting.
//   * Statistics, updated by every thread with relaxed atomic read-modify-writes (in a tree that
//     one thread searches, a relaxed load and store: mcts.cpp's add_to_node) and read with
//     relaxed loads: `counts` (visits and in-flight iterations), `value_sum` (and MoreValues,
//     for the players a node does not hold). They are racy by design: a reader may see a visit
//     count and value sums from slightly different moments, which only nudges one selection;
//     no invariant depends on them. After all threads have joined, they are exact. The root's
//     are kept per thread during a search (mcts.cpp's RootShare: every iteration passes the
//     root) and summed into its node at the end.
//   * The in-flight count is the virtual loss: iterations currently below this node. Selection
//     counts them as visits with reward 0 for the mover, which steers concurrent threads apart.
//     It is only ever changed by the RAII guard Path (mcts.cpp), so it returns to 0 on every
//     exit path; an iteration that backs up adds its visit and takes its virtual loss back in
//     one write.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <memory>
#include <new>
#include <type_traits>

#include "engine/action.h"
#include "engine/types.h"

namespace carc {

enum class Expansion : uint8_t { None, Busy, Done, Full };

struct Node {
  static constexpr int kNodePlayers = 2;  // the players whose reward sums the node holds itself

  Node(Action a, float p) : action(a), prior(p) {}

  // Constant once published.
  Action action;    // the move from the parent: a player's action or a chance outcome
  float prior = 0;  // decision: PUCT prior; chance outcome: its probability
  // Written once before `expansion` = Done (release).
  uint32_t first_child = 0;
  uint16_t num_children = 0;
  int8_t mover = 0;  // current_player() here: a player, kChancePlayer or kTerminalPlayer
  std::atomic<Expansion> expansion{Expansion::None};
  // Statistics (relaxed): visits in the low half of `counts`, in-flight iterations in the high.
  std::atomic<uint64_t> counts{0};
  // The sums of the rewards backed up of players 0 and 1; those of players 2 and up are kept
  // beside the node (NodePool::value_sum), so that the node of a 2-player game fills half a
  // cache line.
  std::array<std::atomic<float>, kNodePlayers> value_sum{};

  static constexpr uint64_t kInFlight = uint64_t(1) << 32;  // one in-flight iteration in `counts`
  static constexpr uint64_t kBackedUp = 1 - kInFlight;      // added: one visit more, one in flight less
  static uint32_t visits_in(uint64_t counts) { return uint32_t(counts); }
  static uint32_t in_flight_in(uint64_t counts) { return uint32_t(counts >> 32); }
  uint32_t visits() const { return visits_in(counts.load(std::memory_order_relaxed)); }
};
// Small and fixed: selection scans a children block linearly, two nodes a cache line.
static_assert(sizeof(Node) == 32, "Node layout changed: check the pool's memory arithmetic");
static_assert(std::atomic<float>::is_always_lock_free && std::atomic<uint32_t>::is_always_lock_free);
static_assert(std::is_trivially_destructible_v<Node>);

// The reward sums of players 2 and up of one node, at the node's index in their own array.
struct MoreValues {
  std::array<std::atomic<float>, kMaxPlayers - Node::kNodePlayers> sum{};
};
static_assert(std::is_trivially_destructible_v<MoreValues>);

// A fixed-capacity array of nodes. The memory is reserved once and touched only as nodes are
// allocated, so a large cap costs nothing until the tree grows into it.
class NodePool {
 public:
  static constexpr uint32_t kNoNode = 0xFFFFFFFFu;
  // The bytes a node takes in a game of `players`.
  static constexpr size_t node_bytes(int players) {
    return sizeof(Node) + (players > Node::kNodePlayers ? sizeof(MoreValues) : 0);
  }

  // A pool of `bytes`: bytes / 32 nodes for games of 2 players, bytes / 48 for more.
  explicit NodePool(size_t bytes)
      : nodes_cap_(std::min<size_t>(bytes / node_bytes(Node::kNodePlayers), kNoNode - 1)),
        more_cap_(std::min<size_t>(bytes / node_bytes(kMaxPlayers), kNoNode - 1)),
        capacity_(nodes_cap_),
        nodes_(static_cast<Node*>(lines(nodes_cap_ * sizeof(Node)))) {}

  // Sets the players of the games the pool holds; only while it is empty.
  void set_players(int players) {
    players_ = players;
    capacity_ = players > Node::kNodePlayers ? more_cap_ : nodes_cap_;
    if (players > Node::kNodePlayers && !more_) {
      more_.reset(static_cast<MoreValues*>(lines(more_cap_ * sizeof(MoreValues))));
    }
  }

  // Returns the index of `count` consecutive nodes, constructed from actions[i] and priors[i],
  // or kNoNode when the pool is full. Thread-safe: one relaxed fetch_add claims the block (the
  // nodes are published by the caller's release store of the parent's `expansion`).
  uint32_t allocate(uint32_t count, const Action* actions, const float* priors) {
    size_t first = used_.fetch_add(count, std::memory_order_relaxed);
    if (first + count > capacity_) return kNoNode;  // used_ overshoots; size() clamps
    for (uint32_t i = 0; i < count; ++i) new (&nodes_.get()[first + i]) Node(actions[i], priors[i]);
    if (players_ > Node::kNodePlayers)
      for (uint32_t i = 0; i < count; ++i) new (&more_.get()[first + i]) MoreValues();
    return uint32_t(first);
  }
  // Makes the pool empty. Not thread-safe: only between searches.
  void clear() { used_.store(0, std::memory_order_relaxed); }

  Node& operator[](uint32_t i) { return nodes_.get()[i]; }
  const Node& operator[](uint32_t i) const { return nodes_.get()[i]; }
  // Player p's reward sum of node n, a node of this pool: to add to, and its value.
  std::atomic<float>& value_sum(Node& n, int p) {
    return p < Node::kNodePlayers ? n.value_sum[size_t(p)]
                                  : more_.get()[&n - nodes_.get()].sum[size_t(p - Node::kNodePlayers)];
  }
  float value(const Node& n, int p) const {
    return const_cast<NodePool*>(this)->value_sum(const_cast<Node&>(n), p).load(std::memory_order_relaxed);
  }
  size_t size() const { return std::min(used_.load(std::memory_order_relaxed), capacity_); }
  size_t capacity() const { return capacity_; }

 private:
  struct Free {
    void operator()(void* p) const { std::free(p); }
  };
  // Memory for `bytes` from the start of a cache line, so that two nodes share each line
  // (malloc's large blocks start 16 bytes into a page).
  static void* lines(size_t bytes) {
    void* p = std::aligned_alloc(64, std::max<size_t>((bytes + 63) / 64 * 64, 64));
    if (!p) throw std::bad_alloc();
    return p;
  }
  size_t nodes_cap_, more_cap_;  // the capacities for 2 players and for more
  size_t capacity_;
  int players_ = Node::kNodePlayers;
  std::unique_ptr<Node, Free> nodes_;
  std::unique_ptr<MoreValues, Free> more_;  // with more than 2 players
  // On a cache line of its own: every expansion writes it, and the lines around it are read by
  // every node access of every thread.
  alignas(64) std::atomic<size_t> used_{0};
};

// The outcome of a chance node that stratified selection follows: the index of the one whose
// visits (with the iterations in flight) are furthest below its probability's share of their
// total + 1 (the first of equals). `expected_total` is the caller's guess of that total: one
// pass over the outcomes sums it and finds the outcome for the guess; a second pass, for the sum,
// only when the guess is wrong (other threads in flight, a node expanded late). Either way the
// choice is the sum's, bit for bit.
inline int stratified_outcome(const Node* outcomes, int n, int64_t expected_total) {
  // The visits are summed as integers: the float sum of the same counts is equal (exact below
  // 2^24), without a float add's latency chained through the pass.
  auto most_behind = [&](float total, int64_t& sum) {
    const float share = total + 1.0f;
    int best = 0;
    float best_gap = -1e30f;
    for (int i = 0; i < n; ++i) {
      const uint64_t counts = outcomes[i].counts.load(std::memory_order_relaxed);
      const uint32_t visits = Node::visits_in(counts) + Node::in_flight_in(counts);
      sum += visits;
      const float gap = outcomes[i].prior * share - float(visits);
      // Without a branch: which outcome is furthest behind changes from one visit to the next.
      const bool behind = gap > best_gap;
      best = behind ? i : best;
      best_gap = behind ? gap : best_gap;
    }
    return best;
  };
  int64_t total = 0, unused = 0;
  const int best = most_behind(float(expected_total), total);
  return total == expected_total ? best : most_behind(float(total), unused);
}

}  // namespace carc
