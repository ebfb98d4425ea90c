// Long C++ calls that Ctrl-C can stop. The work runs on its own thread with the GIL released,
// while the calling thread runs Python's signal handlers every 50 ms (PyErr_CheckSignals; only
// the main thread receives signals). When a handler raises (KeyboardInterrupt), the work's cancel
// flag is set, the work is awaited (it stops at its next check: an MCTS iteration, an arena move)
// and the Python error is raised. Objects the work used are left consistent.
#pragma once

#include <pybind11/pybind11.h>

#include <atomic>
#include <chrono>
#include <future>

namespace carc::py_bindings {

// Call with the GIL held; `work(const std::atomic<bool>* cancel)` must not touch Python objects.
// `stop`, if given, is a second way to cancel (set from another thread, e.g. Mcts.stop()): the
// work then ends early and its result is returned as usual.
template <class Work>
auto run_interruptible(Work&& work, const std::atomic<bool>* stop = nullptr) {
  std::atomic<bool> cancel{false};
  pybind11::gil_scoped_release release;
  auto done = std::async(std::launch::async, [&] { return work(&cancel); });
  while (done.wait_for(std::chrono::milliseconds(50)) != std::future_status::ready) {
    if (stop != nullptr && stop->load()) cancel.store(true);  // the work sees it at its next check
    pybind11::gil_scoped_acquire acquire;
    if (PyErr_CheckSignals() != 0) {
      cancel.store(true);
      {
        pybind11::gil_scoped_release wait;  // the work may need a moment; don't hold the GIL
        done.wait();
      }
      throw pybind11::error_already_set();  // the handler's exception, e.g. KeyboardInterrupt
    }
  }
  return done.get();  // the work's result, or its exception
}

}  // namespace carc::py_bindings
