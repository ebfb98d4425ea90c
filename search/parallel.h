// The one place search/ starts threads: oneTBB when the build has it, else std::thread.
//
// ThreadSanitizer cannot see the synchronisation inside libtbb (it is not instrumented), so it
// reports every hand-over of work to a TBB worker (and TBB's partitioner) as a race; a TSan build
// therefore runs the very same bodies on std::thread, which TSan understands, and checks what
// matters here: our own shared data (the tree's lock-free protocol, tree.h; the arena's results).
#pragma once

#include <functional>

namespace carc {

// Runs fn(i) for every i in [0, n) on up to `threads` threads (0: one per core) and returns when
// all have run; the calling thread takes part. With one thread (or n <= 1) the calls run in
// order on the calling thread. Which thread runs which i is unspecified: fn must not care.
void parallel_for(int n, int threads, const std::function<void(int)>& fn);

}  // namespace carc
