#include "mcts.h"

#include <algorithm>
#include <cassert>
#include <chrono>
#include <cmath>
#include <map>
#include <optional>

#include "batched.h"
#include "network.h"
#include "parallel.h"
#include "tree.h"
#include "value.h"

namespace carc {

namespace {

using Clock = std::chrono::steady_clock;

constexpr int kMaxDepth = 1024;  // nodes on one path: more than any game has
constexpr int kReuseDepth = 12;  // plies below the old root searched for the new position
constexpr size_t kMinPoolNodes = 4 * kMaxActions;

// Salt of the search's per-thread streams (engine/rng.h's mix_seeds).
constexpr uint64_t kSearchSeedSalt = 0x632BE59BD9B4E019ull;
uint64_t mix(uint64_t a, uint64_t b) { return mix_seeds(a, b, kSearchSeedSalt); }

// Adds v to an atomic that only the calling thread writes: a load and a store, no locked
// read-modify-write.
template <class T>
void add_own(std::atomic<T>& a, T v) {
  a.store(a.load(std::memory_order_relaxed) + v, std::memory_order_relaxed);
}

// Adds v to a node's statistic: as add_own when the tree has one thread (`alone`; a locked
// read-modify-write costs tens of cycles, several a node of every iteration), else atomically.
template <class T>
void add_to_node(std::atomic<T>& a, T v, bool alone) {
  if (alone) {
    add_own(a, v);
  } else {
    a.fetch_add(v, std::memory_order_relaxed);
  }
}

// Win-share sums of one root child over one thread's iterations of this search (the analysis
// output; rewards other than the win share leave the node statistics unable to give it).
struct WinSum {
  std::array<float, kMaxPlayers> sum{};
  uint32_t count = 0;
};

// One thread's share of the root's statistics during a search. Every iteration passes the root:
// counters shared there would have the threads wait for each other's cache line at every
// update. Each thread writes its own share (whole cache lines), selection at the root reads them
// all, and the root node holds their sum between searches. The first share starts from the
// root's own figures, so that one thread adds its rewards up in the order one counter would.
struct alignas(64) RootShare {
  std::atomic<uint64_t> counts{0};  // as Node::counts
  std::array<std::atomic<float>, kMaxPlayers> value_sum{};
  std::vector<WinSum> wins;  // per root child; read after the threads have joined
};

// The nodes of one iteration, root first. Each adds a virtual loss (its in-flight count; the
// root's in the thread's RootShare); backup() turns them into visits, and the destructor takes
// them back if the iteration ends without one.
class Path {
 public:
  Path(Node& root, RootShare& share, bool alone) : share_(share), alone_(alone) {
    add_own(share_.counts, Node::kInFlight);
    nodes_[0] = &root;
  }
  Path(const Path&) = delete;
  Path& operator=(const Path&) = delete;
  ~Path() {
    if (backed_up_) return;
    add_own(share_.counts, -Node::kInFlight);
    for (int i = 1; i < size_; ++i) add_to_node(nodes_[size_t(i)]->counts, -Node::kInFlight, alone_);
  }
  // Returns false (and adds nothing) when the path is full.
  bool push(Node* n) {
    if (size_ == kMaxDepth) return false;
    add_to_node(n->counts, Node::kInFlight, alone_);
    nodes_[size_t(size_++)] = n;
    return true;
  }
  Node& back() const { return *nodes_[size_t(size_ - 1)]; }
  Node& operator[](int i) const { return *nodes_[size_t(i)]; }
  int size() const { return size_; }
  RootShare& share() const { return share_; }
  bool alone() const { return alone_; }
  // Called by backup(), which has turned the virtual losses into visits.
  void backed_up() { backed_up_ = true; }

 private:
  RootShare& share_;
  bool alone_;  // the tree's only thread: its nodes' statistics without locked instructions
  std::array<Node*, kMaxDepth> nodes_;
  int size_ = 1;
  bool backed_up_ = false;
};

// Per-thread scratch, kept between searches: the iteration loop allocates nothing.
struct Worker {
  explicit Worker(const State& s) : state(s) {}
  State state;
  Rng rng;
  int share = 0;  // its RootShare in its tree
  Action actions[kMaxActions];
  float probabilities[kMaxActions];
  double prior_seconds = 0;  // this search: time in the evaluator's priors (at expansions)
};

// When a search stops: an iteration budget shared by the threads of one tree, and a deadline.
struct Budget {
  uint64_t iterations = 0;  // 0: none
  uint64_t chunk = 1;       // iterations a thread claims at once (one shared write per chunk)
  std::optional<Clock::time_point> deadline;
  const std::atomic<bool>* cancel = nullptr;  // the caller's: set means stop now
  // Written during the search: on a cache line apart from the fields above, read at every
  // iteration.
  alignas(64) std::atomic<uint64_t> claimed{0};
  std::atomic<uint64_t> done{0};
  std::atomic<bool> stop{false};
  // With a BatchEvaluator (one thread): the evaluator calls that valued this tree's leaves, and
  // the leaves those calls held.
  uint64_t evaluator_calls = 0;
  uint64_t evaluator_leaves = 0;

  void count_call(size_t leaves) {
    ++evaluator_calls;
    evaluator_leaves += leaves;
  }

  // Claims up to `want` more iterations, numbered from `first`; returns how many (0 once the
  // iteration budget is spent or the search has stopped).
  uint64_t claim(uint64_t want, uint64_t& first) {
    if (stop.load(std::memory_order_relaxed)) return 0;
    first = claimed.fetch_add(want, std::memory_order_relaxed);
    if (!iterations) return want;
    if (first >= iterations) {
      stop.store(true, std::memory_order_relaxed);
      return 0;
    }
    return std::min(want, iterations - first);
  }
  // Returns true (and stops the search) if iteration `index` is not to run: the deadline has
  // passed or the caller cancelled. Iteration 0 always runs.
  bool over(uint64_t index) {
    if (index == 0 || !((deadline && Clock::now() >= *deadline) || (cancel && cancel->load(std::memory_order_relaxed))))
      return false;
    stop.store(true, std::memory_order_relaxed);
    return true;
  }
  // Claims the next iteration; false once a limit is reached.
  bool claim() {
    uint64_t first = 0;
    return claim(1, first) && !over(first);
  }
};

// One group of a batched search (search/batched.h): its iterations, in flight with their virtual
// losses, and their distinct leaves. The slots are kept from group to group (a State is not
// small). reset() undoes what a group leaves incomplete (the evaluator threw, the search was
// cancelled): nodes it claimed for expansion go back to None, ~Path takes the virtual losses back.
struct LeafGroup {
  struct Slot {  // one distinct leaf
    explicit Slot(const State& s) : state(s), actions(kMaxActions), priors(kMaxActions) {}
    State state;
    std::vector<Action> actions;
    std::vector<float> priors;
    int num_actions = 0;
    bool want_priors = false;
    double prior_seconds = 0;  // the evaluator's time on its priors
    Evaluation value;
    Node* node = nullptr;  // its tree node
    bool expand = false;   // this group claimed the node (Busy) and expands it
  };
  struct Iteration {
    std::unique_ptr<Path> path;
    int slot = -1;  // -1: valued exactly (terminal)
    Evaluation exact;
  };
  std::vector<Slot> slots;
  size_t used = 0;  // slots of this group
  std::vector<Iteration> iterations;

  LeafGroup() = default;
  LeafGroup(const LeafGroup&) = delete;
  LeafGroup& operator=(const LeafGroup&) = delete;
  ~LeafGroup() { reset(); }
  void reset() {
    for (size_t i = 0; i < used; ++i)
      if (slots[i].expand) slots[i].node->expansion.store(Expansion::None, std::memory_order_relaxed);
    used = 0;
    iterations.clear();
  }
};

// Returns false if no sequence of actions leads from a to target (prunes the reuse search):
// tiles, scores and turns only grow, the bag only shrinks, and placed tiles never change.
bool may_lead_to(const State& a, const State& target) {
  int na = a.board().num_tiles(), nt = target.board().num_tiles();
  if (a.turn_number() > target.turn_number() || a.bag_size() < target.bag_size() || na > nt ||
      a.discarded() > target.discarded())
    return false;
  if (na > 0 && a.board().tile(na - 1) != target.board().tile(na - 1)) return false;
  if (a.phase() == Phase::PlaceTile && nt > na && target.board().tile(na).kind != a.drawn_tile()) return false;
  for (int p = 0; p < a.num_players(); ++p)
    if (a.score(p) > target.score(p)) return false;
  return true;
}

}  // namespace

// One search tree: its pool, the position at its root, and the search loop. Several threads run
// iterate() on one tree at once (tree parallelism); see tree.h for the rules on shared fields.
class SearchTree {
 public:
  SearchTree(const MctsConfig& config, const Evaluator& evaluator, size_t bytes)
      : config_(config),
        evaluator_(evaluator),
        batched_(dynamic_cast<const BatchEvaluator*>(&evaluator)),
        pool_(bytes),
        num_shares_(config.parallelism == Parallelism::Tree ? config.threads : 1),
        shares_(std::make_unique<RootShare[]>(size_t(num_shares_))) {}

  // Makes node 0 the node of `state`, keeping the old subtree if `state` lies in it; expands
  // the root unless `expand_root` is false (search_many: collect_root does). Single-threaded.
  // Returns the root's visits carried over.
  uint64_t set_root(const State& state, Worker& w, bool expand_root = true) {
    uint32_t found = NodePool::kNoNode;
    if (config_.reuse && root_state_ && pool_.size() > 0) found = find(state);
    if (found == NodePool::kNoNode) {
      reset_pool(state.num_players());
    } else if (found != 0) {
      compact(found);
    }
    root_state_ = state;
    if (pool_[0].expansion.load(std::memory_order_relaxed) != Expansion::Done) {
      pool_[0].expansion.store(Expansion::None, std::memory_order_relaxed);
      if (expand_root && expand(pool_[0], state, w) != Expansion::Done) {  // the kept subtree filled the pool
        reset_pool(state.num_players());
        expand(pool_[0], state, w);
      }
    }
    const Node& root = pool_[0];
    const int players = state.num_players();
    for (int t = 0; t < num_shares_; ++t) {
      RootShare& share = shares_[size_t(t)];
      share.counts.store(t == 0 ? root.visits() : 0, std::memory_order_relaxed);
      for (int p = 0; p < kMaxPlayers; ++p)
        share.value_sum[size_t(p)].store(t == 0 && p < players ? pool_.value(root, p) : 0.0f,
                                         std::memory_order_relaxed);
    }
    size_root_wins();
    return root.visits();
  }

  // Gives every share a win sum per root child (after the root's expansion).
  void size_root_wins() {
    for (int t = 0; t < num_shares_; ++t) shares_[size_t(t)].wins.assign(pool_[0].num_children, WinSum{});
  }

  // After a search: the root node takes the sum of the threads' shares (for the next search).
  void gather_root() {
    Node& root = pool_[0];
    root.counts.store(root_counts(), std::memory_order_relaxed);
    for (int p = 0; p < root_state_->num_players(); ++p)
      pool_.value_sum(root, p).store(root_value(p), std::memory_order_relaxed);
  }

  // Runs iterations until the budget says stop.
  void run(Worker& w, Budget& budget) {
    if (batched_) return run_batched(w, budget, *batched_);
    uint64_t done = 0, first = 0;
    for (uint64_t granted; (granted = budget.claim(budget.chunk, first)) > 0;) {
      for (uint64_t i = first; i < first + granted; ++i) {
        if (budget.over(i)) break;
        iterate(w);
        ++done;
      }
    }
    budget.done.fetch_add(done, std::memory_order_relaxed);
  }

  const Node& root() const { return pool_[0]; }
  const Node& child(int i) const { return pool_[pool_[0].first_child + uint32_t(i)]; }
  // Player p's reward sum of a node of this tree.
  float value(const Node& n, int p) const { return pool_.value(n, p); }
  // The win-share sums of root child i, all threads together.
  WinSum wins(int i) const {
    WinSum total;
    for (int t = 0; t < num_shares_; ++t) {
      const WinSum& w = shares_[size_t(t)].wins[size_t(i)];
      for (int p = 0; p < kMaxPlayers; ++p) total.sum[size_t(p)] += w.sum[size_t(p)];
      total.count += w.count;
    }
    return total;
  }
  size_t nodes() const { return pool_.size(); }
  void clear() {
    pool_.clear();
    root_state_.reset();
  }

 private:
  void reset_pool(int players) {
    pool_.clear();
    pool_.set_players(players);
    Action none;
    float one = 1.0f;
    pool_.allocate(1, &none, &one);
  }

  // One iteration: select down to a leaf (expanding it if it is due), evaluate, back up.
  void iterate(Worker& w) {
    State& s = w.state;
    s.copy_from(*root_state_);
    Path path(pool_[0], shares_[size_t(w.share)], alone());
    while (!s.is_terminal()) {
      Node& node = path.back();
      Expansion e = node.expansion.load(std::memory_order_acquire);
      const uint32_t visits = node.visits();
      if (e == Expansion::None && visits >= config_.expand_after) {
        e = expand(node, s, w);
        // expand=0 (AlphaZero's way): a node is expanded at its first visit and valued itself,
        // so a network's priors and value for it come from one forward pass.
        if (visits == 0 && e == Expansion::Done) break;
      }
      if (e != Expansion::Done) break;  // a leaf (or busy elsewhere, or no room): evaluate here
      Node& next = s.is_chance() ? select_outcome(node, w) : select_action(node, s.current_player());
      assert(s.is_legal(next.action));  // the tree's moves were listed in this very position
      prefetch_outcomes(next);
      s.apply_unchecked(next.action);
      if (!path.push(&next)) break;
    }
    Evaluation eval;
    evaluator_.evaluate(s, w.rng, eval);
    backup(path, eval);
  }

  // Starts loading the outcomes of `node`, an expanded chance node, into the cache: stratified
  // selection reads every one of them next (two dozen draws span 18 cache lines, mostly out of
  // cache in a large tree), and the move's apply_unchecked runs meanwhile. A decision node's
  // children as well (tens of placements) gave no more speed for more instructions.
  void prefetch_outcomes(const Node& node) const {
    if (node.expansion.load(std::memory_order_acquire) != Expansion::Done || node.mover != kChancePlayer) return;
    constexpr uintptr_t kLine = 64;
    const uintptr_t first = reinterpret_cast<uintptr_t>(&pool_[node.first_child]);
    const uintptr_t end = first + node.num_children * sizeof(Node);
    for (uintptr_t line = first & ~(kLine - 1); line < end; line += kLine)
      __builtin_prefetch(reinterpret_cast<const void*>(line));
  }

  // Adds one visit with `eval`'s rewards to every node of the path, in place of its virtual loss.
  void backup(Path& path, const Evaluation& eval) {
    const int players = root_state_->num_players();
    RootShare& share = path.share();
    for (int p = 0; p < players; ++p) add_own(share.value_sum[size_t(p)], eval.reward[size_t(p)]);
    add_own(share.counts, Node::kBackedUp);
    for (int i = 1; i < path.size(); ++i) {
      Node& n = path[i];
      for (int p = 0; p < players; ++p) add_to_node(pool_.value_sum(n, p), eval.reward[size_t(p)], path.alone());
      add_to_node(n.counts, Node::kBackedUp, path.alone());
    }
    if (path.size() > 1) {
      WinSum& stat = share.wins[size_t(&path[1] - &pool_[pool_[0].first_child])];
      for (int p = 0; p < players; ++p) stat.sum[size_t(p)] += eval.win[size_t(p)];
      ++stat.count;
    }
    path.backed_up();
  }

  // The root's visits and in-flight iterations (as Node::counts) and player p's reward sum,
  // all threads together.
  uint64_t root_counts() const {
    uint64_t sum = 0;
    for (int t = 0; t < num_shares_; ++t) sum += shares_[size_t(t)].counts.load(std::memory_order_relaxed);
    return sum;
  }
  float root_value(int p) const {
    float sum = shares_[0].value_sum[size_t(p)].load(std::memory_order_relaxed);
    for (int t = 1; t < num_shares_; ++t)
      sum += shares_[size_t(t)].value_sum[size_t(p)].load(std::memory_order_relaxed);
    return sum;
  }

  // run() with a BatchEvaluator (search/batched.h): iterations in groups, one evaluator call
  // per group. A group that fails (the evaluator throws) or is cancelled changes no statistics.
  void run_batched(Worker& w, Budget& budget, const BatchEvaluator& evaluator) {
    LeafGroup group;
    std::vector<LeafRequest> requests;
    while (collect(group, size_t(evaluator.batch_size()), w, budget)) {
      if (budget.cancel && budget.cancel->load(std::memory_order_relaxed)) return;  // ~LeafGroup
      requests.clear();
      add_requests(group, requests);
      if (!requests.empty()) {  // a group of finished games needs none
        evaluator.evaluate_batch(requests);
        budget.count_call(requests.size());
      }
      complete(group, w, budget);
    }
  }

 public:
  // The steps of one group, for run_batched and search_many (which values the groups of many
  // trees in one call). collect() starts a group (dropping what the last one left incomplete):
  // up to `size` iterations descend to their leaves; false if the budget gives none.
  bool collect(LeafGroup& group, size_t size, Worker& w, Budget& budget) {
    group.reset();
    size_t collisions = 0;
    while (group.iterations.size() < size && collisions < size && budget.claim()) {
      LeafGroup::Iteration& it = group.iterations.emplace_back();
      it.path = std::make_unique<Path>(pool_[0], shares_[size_t(w.share)], alone());
      if (group.used == group.slots.size()) group.slots.emplace_back(*root_state_);
      State& s = group.slots[group.used].state;
      s.copy_from(*root_state_);
      bool claimed = descend_batched(s, *it.path, w);
      while (s.is_chance()) s.apply_unchecked(sample_draw(s, w.rng));  // a full chance node: one draw
      if (s.is_terminal()) {
        terminal_evaluation(s, config_.rollout, it.exact);
        continue;
      }
      Node* node = &it.path->back();
      bool collided = false;
      for (size_t i = 0; i < group.used && !collided; ++i)
        collided = group.slots[i].node == node && group.slots[i].state.same_position(s);
      if (collided) {  // a leaf already in this group: the iteration is dropped, and not counted
        group.iterations.pop_back();
        budget.claimed.fetch_sub(1, std::memory_order_relaxed);
        ++collisions;
        continue;
      }
      LeafGroup::Slot& slot = group.slots[group.used];
      slot.node = node;
      slot.expand = claimed;
      it.slot = int(group.used++);
    }
    return !group.iterations.empty();
  }

  // Expands a root that set_root left unexpanded: at once without an evaluator's priors, else
  // as a group of the root alone (no iterations), to be valued and completed as any group.
  // Returns true for the group.
  bool collect_root(LeafGroup& group, Worker& w) {
    group.reset();
    Node& root = pool_[0];
    if (config_.selection != SelectionRule::Puct) {
      expand(root, *root_state_, w);
      size_root_wins();
      return false;
    }
    Expansion none = Expansion::None;
    if (!root.expansion.compare_exchange_strong(none, Expansion::Busy)) return false;
    if (group.slots.empty()) group.slots.emplace_back(*root_state_);
    LeafGroup::Slot& slot = group.slots[0];
    slot.state.copy_from(*root_state_);
    slot.node = &root;
    slot.expand = true;
    group.used = 1;
    return true;
  }

  // Appends the requests of the group's leaves (valid until the group changes).
  void add_requests(LeafGroup& group, std::vector<LeafRequest>& requests) const {
    for (size_t i = 0; i < group.used; ++i) {
      LeafGroup::Slot& slot = group.slots[i];
      LeafRequest& r = requests.emplace_back();
      r.state = &slot.state;
      r.actions = slot.actions.data();
      r.num_actions = slot.num_actions = slot.state.legal_actions(slot.actions.data());
      r.want_priors = slot.want_priors = slot.expand && config_.selection == SelectionRule::Puct;
      r.priors = slot.priors.data();
      r.value = &slot.value;
      r.prior_seconds = &slot.prior_seconds;
      slot.prior_seconds = 0;
    }
  }

  // Once the evaluator has valued the group's leaves: expands those it claimed and backs up
  // every iteration.
  void complete(LeafGroup& group, Worker& w, Budget& budget) {
    for (size_t i = 0; i < group.used; ++i) {
      LeafGroup::Slot& slot = group.slots[i];
      if (!slot.expand) continue;
      const int n = slot.num_actions;
      std::copy_n(slot.actions.data(), n, w.actions);
      if (slot.want_priors) std::copy_n(slot.priors.data(), n, w.probabilities);
      else std::fill(w.probabilities, w.probabilities + n, 1.0f / float(n));
      w.prior_seconds += slot.prior_seconds;
      publish(*slot.node, slot.state, w, n);
      if (slot.node == &pool_[0]) size_root_wins();  // collect_root's group
      slot.expand = false;
    }
    for (LeafGroup::Iteration& it : group.iterations) {
      backup(*it.path, it.slot < 0 ? it.exact : group.slots[size_t(it.slot)].value);
      budget.done.fetch_add(1, std::memory_order_relaxed);
    }
    group.reset();
  }

 private:
  // The descent of run_batched: selects down to a leaf, expanding chance nodes on the way.
  // Returns true if it claimed the leaf, an unexpanded decision node, for expansion (Busy).
  bool descend_batched(State& s, Path& path, Worker& w) {
    while (!s.is_terminal()) {
      Node& node = path.back();
      Expansion e = node.expansion.load(std::memory_order_acquire);
      if (e == Expansion::None) {
        if (!s.is_chance()) return node.expansion.compare_exchange_strong(e, Expansion::Busy);
        e = expand(node, s, w);
      }
      if (e != Expansion::Done) break;  // claimed by this group already, or no room
      Node& next = s.is_chance() ? select_outcome(node, w) : select_action(node, s.current_player());
      s.apply_unchecked(next.action);
      if (!path.push(&next)) break;
    }
    return false;
  }

  // Expands `node` (the node of state s) if no other thread is: lists its children into a
  // block of the pool in random order (so unvisited children are tried in random order and
  // ties break at random) and publishes them. Returns the node's expansion state.
  Expansion expand(Node& node, const State& s, Worker& w) {
    Expansion expected = Expansion::None;
    if (!node.expansion.compare_exchange_strong(expected, Expansion::Busy, std::memory_order_acquire)) return expected;
    int n;
    if (s.is_chance()) {
      n = chance_outcomes(s, w.actions, w.probabilities);
    } else {
      n = s.legal_actions(w.actions);
      if (config_.selection == SelectionRule::Puct && batched_) {
        // The evaluator's call is its own time; it counts the priors it falls back to.
        batched_->priors(s, w.actions, n, w.probabilities, &w.prior_seconds);
      } else if (config_.selection == SelectionRule::Puct) {
        const Clock::time_point start = Clock::now();
        evaluator_.priors(s, w.actions, n, w.probabilities);
        w.prior_seconds += std::chrono::duration<double>(Clock::now() - start).count();
      } else {
        std::fill(w.probabilities, w.probabilities + n, 1.0f / float(n));
      }
    }
    return publish(node, s, w, n);
  }

  // Lists the n children in w.actions / w.probabilities under `node` (Busy, the node of s) and
  // publishes them; Full if the pool has no room.
  Expansion publish(Node& node, const State& s, Worker& w, int n) {
    for (int i = n - 1; i > 0; --i) {
      int j = int(w.rng.below(uint32_t(i + 1)));
      std::swap(w.actions[i], w.actions[j]);
      std::swap(w.probabilities[i], w.probabilities[j]);
    }
    uint32_t first = pool_.allocate(uint32_t(n), w.actions, w.probabilities);
    if (first == NodePool::kNoNode) {
      node.expansion.store(Expansion::Full, std::memory_order_release);
      return Expansion::Full;
    }
    node.first_child = first;
    node.num_children = uint16_t(n);
    node.mover = int8_t(s.current_player());
    node.expansion.store(Expansion::Done, std::memory_order_release);
    return Expansion::Done;
  }

  // The child of decision node `node` that player p should try next (UCT or PUCT). Inline: GCC
  // otherwise left it out of line once the options moved to their own file (+0.5% instructions).
  [[gnu::always_inline]] Node& select_action(Node& node, int p) {
    Node* children = &pool_[node.first_child];
    const int n = node.num_children;
    const float vl = config_.virtual_loss;
    const bool root = &node == &pool_[0];
    const uint64_t counts = root ? root_counts() : node.counts.load(std::memory_order_relaxed);
    const uint32_t parent_visits = Node::visits_in(counts);
    const float parent = float(parent_visits) + vl * float(Node::in_flight_in(counts));
    const float c = float(config_.exploration);
    int best = 0;
    float best_score = -1e30f;
    if (config_.selection == SelectionRule::Uct) {
      const float c_log = c * std::sqrt(std::log(std::max(parent, 1.0f)));
      for (int i = 0; i < n; ++i) {
        const uint64_t ch_counts = children[i].counts.load(std::memory_order_relaxed);
        float visits = float(Node::visits_in(ch_counts)) + vl * float(Node::in_flight_in(ch_counts));
        if (visits == 0) return children[i];  // unvisited first, in the block's random order
        float score = pool_.value(children[i], p) / visits + c_log / std::sqrt(visits);
        if (score > best_score) best_score = score, best = i;
      }
    } else {
      const float sqrt_parent = std::sqrt(std::max(parent, 1.0f));
      const float value = root ? root_value(p) : pool_.value(node, p);
      const float fpu = (parent_visits ? value / float(parent_visits) : 0.5f) - float(config_.fpu_reduction);
      for (int i = 0; i < n; ++i) {
        const Node& ch = children[i];
        const uint64_t ch_counts = ch.counts.load(std::memory_order_relaxed);
        float visits = float(Node::visits_in(ch_counts)) + vl * float(Node::in_flight_in(ch_counts));
        float q = visits > 0 ? pool_.value(ch, p) / visits : fpu;
        float score = q + c * ch.prior * sqrt_parent / (1.0f + visits);
        if (score > best_score) best_score = score, best = i;
      }
    }
    return children[best];
  }

  // The outcome of chance node `node` to follow: sampled by probability, or (stratified) the
  // one furthest below its share of the visits.
  Node& select_outcome(Node& node, Worker& w) {
    Node* children = &pool_[node.first_child];
    const int n = node.num_children;
    if (config_.chance == ChanceMode::Sample) {
      float x = float(w.rng.below(1u << 24)) / float(1u << 24);
      for (int i = 0; i < n - 1; ++i) {
        x -= children[i].prior;
        if (x < 0) return children[i];
      }
      return children[n - 1];
    }
    // With one thread, the outcomes' visits are the node's own less this iteration and the
    // visits that ended here before the node was expanded: an iteration's search expands a
    // chance node as it does any leaf, a batched search at its first visit.
    const uint64_t counts = node.counts.load(std::memory_order_relaxed);
    const int64_t ended_here = batched_ ? 0 : std::max<int64_t>(config_.expand_after, 1);
    const int64_t expected = int64_t(Node::visits_in(counts)) + Node::in_flight_in(counts) - 1 - ended_here;
    return children[stratified_outcome(children, n, expected)];
  }

  // Returns the node of `target` among the nodes within kReuseDepth plies of the root, or kNoNode.
  uint32_t find(const State& target) {
    std::vector<State> levels(kReuseDepth + 1, *root_state_);
    return find_from(target, levels, 0, 0);
  }
  uint32_t find_from(const State& target, std::vector<State>& levels, uint32_t index, int depth) {
    const State& s = levels[size_t(depth)];
    if (s.same_position(target)) return index;
    const Node& node = pool_[index];
    if (depth == kReuseDepth || node.expansion.load(std::memory_order_relaxed) != Expansion::Done)
      return NodePool::kNoNode;
    for (uint32_t i = 0; i < node.num_children; ++i) {
      State& next = levels[size_t(depth + 1)];
      next = s;
      next.apply_unchecked(pool_[node.first_child + i].action);
      if (!may_lead_to(next, target)) continue;
      uint32_t found = find_from(target, levels, node.first_child + i, depth + 1);
      if (found != NodePool::kNoNode) return found;
    }
    return NodePool::kNoNode;
  }

  // Moves the subtree under node `top` to the front of the pool (breadth first, so every
  // children block stays contiguous) and drops the rest. Single-threaded, between searches.
  void compact(uint32_t top) {
    const int players = root_state_->num_players();  // the old root's game, the new root's too
    struct Copy {
      Action action;
      float prior;
      uint32_t first_child;
      uint16_t num_children;
      int8_t mover;
      bool expanded;
      uint32_t visits;
      std::array<float, kMaxPlayers> sums;
    };
    auto copy_of = [&](uint32_t i) {
      const Node& n = pool_[i];
      Copy c{n.action,   n.prior, 0, 0, n.mover, n.expansion.load(std::memory_order_relaxed) == Expansion::Done,
             n.visits(), {}};
      for (int p = 0; p < players; ++p) c.sums[size_t(p)] = pool_.value(n, p);
      return c;
    };
    std::vector<Copy> out{copy_of(top)};
    std::vector<uint32_t> old{top};
    for (size_t i = 0; i < out.size(); ++i) {
      if (!out[i].expanded) continue;
      const Node& n = pool_[old[i]];
      out[i].first_child = uint32_t(out.size());
      out[i].num_children = n.num_children;
      for (uint32_t k = 0; k < n.num_children; ++k) {
        old.push_back(n.first_child + k);
        out.push_back(copy_of(n.first_child + k));
      }
    }
    pool_.clear();
    for (const Copy& c : out) {
      uint32_t i = pool_.allocate(1, &c.action, &c.prior);
      Node& n = pool_[i];
      n.first_child = c.first_child;
      n.num_children = c.num_children;
      n.mover = c.mover;
      n.expansion.store(c.expanded ? Expansion::Done : Expansion::None, std::memory_order_relaxed);
      n.counts.store(c.visits, std::memory_order_relaxed);
      for (int p = 0; p < players; ++p) pool_.value_sum(n, p).store(c.sums[size_t(p)], std::memory_order_relaxed);
    }
  }

  const MctsConfig& config_;
  const Evaluator& evaluator_;
  const BatchEvaluator* batched_;  // the evaluator, when it values leaves in batches
  NodePool pool_;
  std::optional<State> root_state_;
  // The root's statistics during a search: one share per thread of this tree.
  int num_shares_;
  // One thread searches this tree (one share): its nodes need no locked instructions.
  bool alone() const { return num_shares_ == 1; }
  std::unique_ptr<RootShare[]> shares_;
};

struct MctsImpl {
  std::shared_ptr<const Evaluator> evaluator;
  std::vector<std::unique_ptr<SearchTree>> trees;  // one, or one per thread (root parallelism)
  std::vector<std::unique_ptr<Worker>> workers;
};

void validate(const MctsConfig& c) {
  auto fail = [](const std::string& what) { throw SearchError("MctsConfig: " + what); };
  if (c.iterations == 0 && !(c.seconds > 0)) fail("set a budget: iterations > 0 or seconds > 0");
  if (c.seconds < 0 || !std::isfinite(c.seconds)) fail("seconds must be >= 0");
  if (c.threads < 1 || c.threads > 256) fail("threads must be 1 to 256, got " + std::to_string(c.threads));
  if (!(c.virtual_loss >= 0)) fail("virtual_loss must be >= 0");
  if (!(c.exploration >= 0)) fail("exploration must be >= 0");
  if (!std::isfinite(c.fpu_reduction)) fail("fpu_reduction must be finite");
  if (!(c.rollout.greedy_eps >= 0 && c.rollout.greedy_eps <= 1)) fail("rollout.greedy_eps must be in [0, 1]");
  if (c.rollout.cutoff_turns < 0) fail("rollout.cutoff_turns must be >= 0");
  if (!(c.rollout.margin_scale > 0)) fail("rollout.margin_scale must be > 0");
  if (!(c.rollout.margin_weight >= 0 && c.rollout.margin_weight <= 1)) fail("rollout.margin_weight must be in [0, 1]");
  if (!(c.rollout.supply_value >= 0)) fail("rollout.supply_value must be >= 0");
  if (c.rollout.endgame_tiles < 0) fail("rollout.endgame_tiles must be >= 0");
  if (!(c.rollout.cutoff_temperature > 0)) fail("rollout.cutoff_temperature must be > 0");
  if (!(c.rollout.field_weight >= 0)) fail("rollout.field_weight must be >= 0");
  if (!(c.rollout.prior_field_weight >= 0)) fail("rollout.prior_field_weight must be >= 0");
  if (!(c.rollout.network_mix >= 0 && c.rollout.network_mix <= 1)) fail("rollout.network_mix must be in [0, 1]");
  if (c.rollout.policy == RolloutPolicy::None && c.rollout.heuristic != Heuristic::Value)
    fail("rollout policy none (no rollout) needs the learned value (eval=value)");
  int trees = c.parallelism == Parallelism::Root ? c.threads : 1;
  const size_t node = NodePool::node_bytes(kMaxPlayers);  // the most a node takes
  if (!(c.memory_mb > 0) || c.memory_mb * 1048576.0 / double(node) / trees < double(kMinPoolNodes))
    fail("memory_mb too small: each tree needs at least " + std::to_string(kMinPoolNodes * node / 1024) + " KB");
}

Mcts::Mcts(const MctsConfig& config) : config_(config), impl_(std::make_unique<MctsImpl>()) {
  validate(config_);
  impl_->evaluator = config_.evaluator ? config_.evaluator : make_evaluator(config_.rollout);
  if (dynamic_cast<const BatchEvaluator*>(impl_->evaluator.get()) && config_.threads != 1)
    throw SearchError("MctsConfig: a batched evaluator searches on one thread (threads=1, got " +
                      std::to_string(config_.threads) + "); its batch size sets how many leaves one call values");
  int trees = config_.parallelism == Parallelism::Root ? config_.threads : 1;
  const size_t bytes = size_t(config_.memory_mb * 1048576.0) / size_t(trees);
  for (int t = 0; t < trees; ++t)
    impl_->trees.push_back(std::make_unique<SearchTree>(config_, *impl_->evaluator, bytes));
}

Mcts::~Mcts() = default;

void Mcts::clear() {
  for (auto& tree : impl_->trees) tree->clear();
}

namespace {

// One search in progress (Mcts::search, search_many): its start and a budget per tree.
struct SearchRun {
  Clock::time_point start;
  std::vector<std::unique_ptr<Budget>> budgets;
  std::vector<uint64_t> reused;  // root visits each tree kept (set_root)
};

// Checks `state`, seeds the workers and sets the budgets of a search of `state`; the trees' roots
// are not set yet.
SearchRun begin_search(const MctsConfig& config, MctsImpl& m, const State& state, uint64_t seed,
                       const std::atomic<bool>* cancel) {
  if (state.is_terminal() || state.is_chance())
    throw SearchError("Mcts::search: the state must be a decision node (player " +
                      std::to_string(state.current_player()) + " to move)");
  m.evaluator->check(state);
  SearchRun run;
  run.start = Clock::now();
  const int threads = config.threads;
  const uint64_t base = mix(config.seed, seed);
  while (int(m.workers.size()) < threads) m.workers.push_back(std::make_unique<Worker>(state));
  for (auto& w : m.workers) w->prior_seconds = 0;
  for (int t = 0; t < threads; ++t) {
    m.workers[size_t(t)]->rng.reseed(mix(base, uint64_t(t)));
    m.workers[size_t(t)]->share = int(m.trees.size()) == 1 ? t : 0;
  }

  std::optional<Clock::time_point> deadline;
  if (config.seconds > 0)
    deadline = run.start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(config.seconds));
  const int trees = int(m.trees.size());
  run.reused.assign(size_t(trees), 0);
  for (int i = 0; i < trees; ++i) {
    auto b = std::make_unique<Budget>();
    b->iterations = config.iterations / uint64_t(trees) + (uint64_t(i) < config.iterations % uint64_t(trees) ? 1 : 0);
    if (config.iterations && b->iterations == 0) b->iterations = 1;
    // A few iterations at a time: enough to make the shared count rare, few enough to share a
    // small budget evenly.
    const uint64_t per_thread = b->iterations / uint64_t(trees == 1 ? threads : 1);
    b->chunk = b->iterations ? std::clamp<uint64_t>(per_thread / 8, 1, 16) : 16;
    b->deadline = deadline;
    b->cancel = cancel;
    run.budgets.push_back(std::move(b));
  }
  return run;
}

// The statistics of a finished search of `state`: the root statistics of every tree, summed by
// action.
SearchResult search_result(const MctsImpl& m, const State& state, const SearchRun& run) {
  const int trees = int(m.trees.size());
  const int players = state.num_players();
  const int me = state.current_player();
  struct Sum {
    uint64_t visits = 0;
    double value = 0, prior = 0;
    std::array<double, kMaxPlayers> win{}, reward{};  // sums of win shares (this search's) and of rewards (every visit)
    uint64_t win_count = 0;
  };
  std::map<uint32_t, Sum> sums;
  SearchResult result;
  result.player = me;
  result.evaluator = m.evaluator->describe(state);
  for (const auto& w : m.workers) result.prior_seconds += w->prior_seconds;
  for (int t = 0; t < trees; ++t) {
    const SearchTree& tree = *m.trees[size_t(t)];
    const Budget& budget = *run.budgets[size_t(t)];
    result.iterations += budget.done.load();
    result.evaluator_calls += budget.evaluator_calls;
    result.evaluator_leaves += budget.evaluator_leaves;
    result.nodes += tree.nodes();
    result.reused_visits += run.reused[size_t(t)];
    for (int i = 0; i < tree.root().num_children; ++i) {
      const Node& ch = tree.child(i);
      Sum& s = sums[ch.action.code];
      uint32_t v = ch.visits();
      s.visits += v;
      s.value += tree.value(ch, me);
      s.prior += ch.prior / float(trees);
      const WinSum w = tree.wins(i);
      s.win_count += w.count;
      for (int p = 0; p < players; ++p) {
        s.win[size_t(p)] += w.sum[size_t(p)];
        s.reward[size_t(p)] += tree.value(ch, p);
      }
    }
  }
  std::array<double, kMaxPlayers> root_win{}, root_reward{};
  uint64_t root_count = 0, root_visits = 0;
  for (const auto& [code, s] : sums) {
    ActionStats a;
    a.action = Action{code};
    a.text = state.action_to_string(a.action);
    a.visits = uint32_t(std::min<uint64_t>(s.visits, UINT32_MAX));
    a.value = s.visits ? s.value / double(s.visits) : 0.0;
    a.prior = s.prior;
    for (int p = 0; p < players; ++p) {
      // Win shares seen in this search; else (reused, unvisited now) the mean rewards.
      double win = s.win_count ? s.win[size_t(p)] / double(s.win_count)
                   : s.visits  ? s.reward[size_t(p)] / double(s.visits)
                               : 1.0 / players;
      a.win.push_back(win);
      root_win[size_t(p)] += s.win[size_t(p)];
      root_reward[size_t(p)] += s.reward[size_t(p)];
    }
    root_count += s.win_count;
    root_visits += s.visits;
    result.actions.push_back(std::move(a));
  }
  for (int p = 0; p < players; ++p) {
    result.win.push_back(root_count ? root_win[size_t(p)] / double(root_count) : 1.0 / players);
    result.reward.push_back(root_visits ? root_reward[size_t(p)] / double(root_visits) : 0.5);
  }
  std::stable_sort(result.actions.begin(), result.actions.end(), [](const ActionStats& a, const ActionStats& b) {
    return a.visits != b.visits ? a.visits > b.visits : a.value > b.value;
  });
  result.best = result.actions.front().action;
  result.seconds = std::chrono::duration<double>(Clock::now() - run.start).count();
  return result;
}

}  // namespace

SearchResult Mcts::search(const State& state, uint64_t seed, const std::atomic<bool>* cancel) {
  MctsImpl& m = *impl_;
  SearchRun run = begin_search(config_, m, state, seed, cancel);
  const int threads = config_.threads;
  // A root takes its threads' statistics when its search ends, by an exception too (an
  // evaluator's): a tree kept for reuse holds them.
  struct GatherRoot {
    SearchTree& tree;
    ~GatherRoot() { tree.gather_root(); }
  };
  if (m.trees.size() == 1) {
    run.reused[0] = m.trees[0]->set_root(state, *m.workers[0]);
    GatherRoot gather{*m.trees[0]};
    parallel_for(threads, threads, [&](int t) { m.trees[0]->run(*m.workers[size_t(t)], *run.budgets[0]); });
  } else {
    parallel_for(threads, threads, [&](int t) {
      run.reused[size_t(t)] = m.trees[size_t(t)]->set_root(state, *m.workers[size_t(t)]);
      GatherRoot gather{*m.trees[size_t(t)]};
      m.trees[size_t(t)]->run(*m.workers[size_t(t)], *run.budgets[size_t(t)]);
    });
  }
  SearchResult result = search_result(m, state, run);
  if (!config_.reuse) clear();
  return result;
}

std::vector<SearchResult> search_many(const std::vector<State>& states, const MctsConfig& config,
                                      const std::vector<uint64_t>& seeds, const std::atomic<bool>* cancel) {
  if (states.empty()) throw SearchError("search_many: no states to search");
  if (seeds.size() != states.size())
    throw SearchError("search_many: " + std::to_string(seeds.size()) + " seeds for " + std::to_string(states.size()) +
                      " states (one seed a state)");
  const auto* evaluator = dynamic_cast<const BatchEvaluator*>(config.evaluator.get());
  if (!evaluator)
    throw SearchError(
        "search_many: the config's evaluator must be a BatchEvaluator (one call values the leaves of "
        "every search)");
  MctsConfig fresh = config;
  fresh.reuse = false;
  // Every check (config, states) before the first search starts.
  std::vector<std::unique_ptr<Mcts>> searches;
  std::vector<SearchRun> runs;
  for (size_t i = 0; i < states.size(); ++i) {
    if (states[i].is_terminal() || states[i].is_chance())
      throw SearchError("search_many: state " + std::to_string(i) + " is not a decision node (a draw or the end)");
    searches.push_back(std::make_unique<Mcts>(fresh));  // validates the config, and threads == 1
    try {
      runs.push_back(begin_search(fresh, *searches[i]->impl_, states[i], seeds[i], cancel));
    } catch (const SearchError& e) {
      throw SearchError("search_many: state " + std::to_string(i) + ": " + e.what());
    }
  }
  // Declared after the searches: a group left incomplete gives its tree back what it took.
  std::vector<LeafGroup> groups(states.size());
  std::vector<LeafRequest> requests;
  // The roots' priors in one call too (a single search asks for its root's alone).
  for (size_t i = 0; i < states.size(); ++i) {
    MctsImpl& m = *searches[i]->impl_;
    runs[i].reused[0] = m.trees[0]->set_root(states[i], *m.workers[0], false);
    if (m.trees[0]->collect_root(groups[i], *m.workers[0])) m.trees[0]->add_requests(groups[i], requests);
  }
  if (!requests.empty()) evaluator->evaluate_batch(requests);
  for (size_t i = 0; i < states.size(); ++i) {
    MctsImpl& m = *searches[i]->impl_;
    m.trees[0]->complete(groups[i], *m.workers[0], *runs[i].budgets[0]);
  }
  std::vector<size_t> ends(states.size());  // search i's requests end at ends[i]
  const size_t size = size_t(evaluator->batch_size());
  while (true) {
    requests.clear();
    bool any = false;
    for (size_t i = 0; i < states.size(); ++i) {
      MctsImpl& m = *searches[i]->impl_;
      if (m.trees[0]->collect(groups[i], size, *m.workers[0], *runs[i].budgets[0])) {
        any = true;
        m.trees[0]->add_requests(groups[i], requests);
      }
      ends[i] = requests.size();
    }
    if (!any || (cancel && cancel->load(std::memory_order_relaxed))) break;
    if (!requests.empty()) evaluator->evaluate_batch(requests);
    for (size_t i = 0; i < states.size(); ++i) {
      MctsImpl& m = *searches[i]->impl_;
      if (ends[i] > (i ? ends[i - 1] : 0)) runs[i].budgets[0]->count_call(requests.size());
      m.trees[0]->complete(groups[i], *m.workers[0], *runs[i].budgets[0]);
    }
  }
  std::vector<SearchResult> results;
  for (size_t i = 0; i < states.size(); ++i) {
    groups[i].reset();
    results.push_back(search_result(*searches[i]->impl_, states[i], runs[i]));
  }
  return results;
}

SearchResult analyse(const State& state, const MctsConfig& config, uint64_t seed, const std::atomic<bool>* cancel) {
  MctsConfig fresh = config;
  fresh.reuse = false;
  Mcts mcts(fresh);
  return mcts.search(state, seed, cancel);
}

Action MctsAgent::choose(const State& state, Rng& rng) {
  Action buffer[kMaxActions];
  uint64_t seed = rng.next();
  if (state.legal_actions(buffer) == 1) {
    last_ = SearchResult{};
    return buffer[0];
  }
  last_ = mcts_.search(state, seed);
  total_iterations_ += last_.iterations;
  ++searches_;
  return last_.best;
}

}  // namespace carc
