"""Learned evaluators for the search, trained from self-play games (PyTorch, the `learn` extra).

Two families:
- a small policy/value network exported to a CARCNET file (docs/network.md) that the C++ search
  runs with Eigen (`mcts:eval=net`, search/network.h):

      python -m carcassonne train --dir runs/base2p     # resumable; Ctrl-C and rerun continues

- the learned value of the default search: a per-seat MLP over the engine's feature summaries,
  exported to a VALUE file (docs/value.md) that `mcts` reads where one fits the table
  (`eval=value`, search/value.h):

      python -m carcassonne value-train --dir runs/closing-2p --players 2 ...
      python -m carcassonne value-serve IN.value --mixes base,river2 --players 2 --out OUT.value

Modules: `net` (the policy/value network and its export), `data` (training samples from
trajectories), `loop` (its self-play, training, arena gating, the log and its plot); `value`
(the learned value's samples, model, training and VALUE export), `value_loop` (its generations
of self-play), `value_file` (the VALUE header without PyTorch: which tables a file serves);
`cli` (the command lines).
"""
