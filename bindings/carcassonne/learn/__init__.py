"""A learned evaluator for the search: a small policy/value network (PyTorch, the `learn`
extra), trained from self-play games, exported to a CARCNET file (docs/network.md) that the
C++ search runs with Eigen (`mcts:eval=net`, search/network.h).

    python -m carcassonne train --dir runs/base2p     # resumable; Ctrl-C and rerun continues

Modules: `net` (the network and its export), `data` (training samples from trajectories),
`loop` (self-play, training, arena gating, the log and its plot).
"""
