#include "parallel.h"

#include <algorithm>
#include <atomic>
#include <thread>
#include <vector>

#if defined(CARC_HAVE_TBB) && !defined(__SANITIZE_THREAD__)
#define CARC_PARALLEL_TBB 1
#include <tbb/parallel_for.h>
#include <tbb/task_arena.h>
#endif

namespace carc {

void parallel_for(int n, int threads, const std::function<void(int)>& fn) {
  if (threads <= 0) threads = int(std::max(1u, std::thread::hardware_concurrency()));
  threads = std::min(threads, std::max(n, 1));
  if (threads == 1) {
    for (int i = 0; i < n; ++i) fn(i);
    return;
  }
#ifdef CARC_PARALLEL_TBB
  tbb::task_arena arena(threads);
  arena.execute([&] { tbb::parallel_for(0, n, fn); });
#else
  std::atomic<int> next{0};
  auto work = [&] {
    for (int i; (i = next.fetch_add(1)) < n;) fn(i);
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(work);
  work();
  for (std::thread& th : pool) th.join();
#endif
}

}  // namespace carc
