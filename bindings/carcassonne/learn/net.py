"""The policy/value network (PyTorch) and its export to the CARCNET file the C++ evaluator reads
(search/network.h; the format: docs/network.md).

The network is tiny on purpose: the search calls it at every leaf, where rollouts cost ~15 us.

```text
  planes [P, W, W] --1x1 conv (+ a per-channel bias from the globals)--> h1 [C1, W, W]
  h1 --3x3 stride 2--> [C2, W/2, W/2] --3x3 stride 2--> [C3, W/4, W/4] --mean--> [C3]
  [C3 + globals] --fc--> hidden --> win logits [players] (softmax: win share per relative seat)
                                --> margin [players] (sigmoid: the search's margin reward)
                                --> dense logits [58]: figure 40, pass, take-tile, quarter 12, count 4
  h1 --3x3 conv--> cell logits [36, W, W]: place 4 rotations, figure_at 30, abbey, arrow
```

Policy logits are looked up by action index (docs/observation.md's blocks), never all computed
in C++: only the legal actions' cells are.
"""

from __future__ import annotations

import os
from pathlib import Path

import numpy as np
import torch
from torch import nn
from torch.nn import functional as F  # noqa: N812

from .. import ConfigError
from .._core import OBSERVATION_VERSION
from ..rl import action_space, encoder

MAGIC = b"CARCNET\0"
FORMAT_VERSION = 1
CELL_OUTPUTS = 36  # place 4, figure_at 30, abbey 1, arrow 1
DENSE_OUTPUTS = 58  # figure 40, pass 1, take-tile 1, quarter 12, count 4


class PolicyValueNet(nn.Module):
    global_scale: torch.Tensor  # a buffer: saved with the weights, not trained

    def __init__(
        self,
        players: int = 2,
        window: int = 32,
        channels: tuple[int, int, int] = (16, 16, 32),
        hidden: int = 64,
        global_scale: np.ndarray | None = None,
    ) -> None:
        super().__init__()
        enc = encoder(players, window)
        self.players, self.window = players, window
        self.num_planes, self.num_globals = enc.num_planes, enc.num_globals
        self.channels, self.hidden = tuple(channels), hidden
        c1, c2, c3 = channels
        scale = np.ones(self.num_globals, np.float32) if global_scale is None else global_scale
        self.register_buffer("global_scale", torch.as_tensor(scale, dtype=torch.float32))
        self.conv1 = nn.Conv2d(self.num_planes, c1, 1)
        self.conv1_globals = nn.Linear(self.num_globals, c1, bias=False)
        self.conv2 = nn.Conv2d(c1, c2, 3, stride=2, padding=1)
        self.conv3 = nn.Conv2d(c2, c3, 3, stride=2, padding=1)
        self.fc = nn.Linear(c3 + self.num_globals, hidden)
        self.win = nn.Linear(hidden, players)
        self.margin = nn.Linear(hidden, players)
        self.dense = nn.Linear(hidden, DENSE_OUTPUTS)
        self.cell = nn.Conv2d(c1, CELL_OUTPUTS, 3, padding=1)

    def forward(self, planes: torch.Tensor, globals_: torch.Tensor) -> tuple[torch.Tensor, ...]:
        """planes float [N, P, W, W], raw globals [N, G] -> (win logits [N, players], margin
        [N, players] in (0, 1), policy logits [N, actions] over the whole action space)."""
        g = globals_ * self.global_scale
        h1 = F.relu(self.conv1(planes) + self.conv1_globals(g)[:, :, None, None])
        h3 = F.relu(self.conv3(F.relu(self.conv2(h1))))
        hidden = F.relu(self.fc(torch.cat([h3.mean(dim=(2, 3)), g], dim=1)))
        return (
            self.win(hidden),
            torch.sigmoid(self.margin(hidden)),
            self._policy(self.dense(hidden), self.cell(h1)),
        )

    def _policy(self, dense: torch.Tensor, cell: torch.Tensor) -> torch.Tensor:
        """The logits of every action index, in the action space's block order (draws: 0)."""
        n, cells = dense.shape[0], self.window * self.window
        per_cell = cell.flatten(2).transpose(1, 2)  # [N, cells, 36]
        blocks = {
            "draw": dense.new_zeros(n, action_space(self.window, "window").blocks[0][2]),
            "place": per_cell[:, :, 0:4].reshape(n, cells * 4),
            "figure": dense[:, 0:40],
            "figure_at": per_cell[:, :, 4:34].reshape(n, cells * 30),
            "pass": dense[:, 40:41],
            "take-tile": dense[:, 41:42],
            "abbey": per_cell[:, :, 34],
            "arrow": per_cell[:, :, 35],
            "quarter": dense[:, 42:54],
            "count": dense[:, 54:58],
        }
        names = [block[0] for block in action_space(self.window, "window").blocks]
        if names != list(blocks):
            raise ConfigError(f"the action space's blocks changed ({names}): update the policy head")
        return torch.cat([blocks[name] for name in names], dim=1)


def _tensors(net: PolicyValueNet) -> list[tuple[str, np.ndarray]]:
    """Every tensor of the file, in the file's order (docs/network.md)."""
    p = {name: t.detach().cpu().numpy().astype("<f4") for name, t in net.state_dict().items()}
    return [
        ("global_scale", p["global_scale"]),
        ("conv1.weight", p["conv1.weight"][:, :, 0, 0]),
        ("conv1.bias", p["conv1.bias"]),
        ("conv1.globals", p["conv1_globals.weight"]),
        ("conv2.weight", p["conv2.weight"]),
        ("conv2.bias", p["conv2.bias"]),
        ("conv3.weight", p["conv3.weight"]),
        ("conv3.bias", p["conv3.bias"]),
        ("fc.weight", p["fc.weight"]),
        ("fc.bias", p["fc.bias"]),
        ("win.weight", p["win.weight"]),
        ("win.bias", p["win.bias"]),
        ("margin.weight", p["margin.weight"]),
        ("margin.bias", p["margin.bias"]),
        ("dense.weight", p["dense.weight"]),
        ("dense.bias", p["dense.bias"]),
        ("cell.weight", p["cell.weight"]),
        ("cell.bias", p["cell.bias"]),
    ]


def export(net: PolicyValueNet, path: str | os.PathLike[str]) -> Path:
    """Writes the network as a CARCNET file (docs/network.md) for search/network.h."""
    tensors = _tensors(net)
    lines = [
        f"observation_version {OBSERVATION_VERSION}",
        f"players {net.players}",
        f"window {net.window}",
        f"planes {net.num_planes}",
        f"globals {net.num_globals}",
        f"channels {' '.join(map(str, net.channels))}",
        f"hidden {net.hidden}",
        f"tensors {len(tensors)}",
    ] + [f"tensor {name} {' '.join(map(str, array.shape))}" for name, array in tensors]
    header = ("\n".join(lines) + "\n").encode()
    out = Path(path)
    tmp = out.with_name(out.name + ".tmp")
    with open(tmp, "wb") as f:
        f.write(MAGIC)
        f.write(np.array([FORMAT_VERSION, len(header)], dtype="<u4").tobytes())
        f.write(header)
        for _, array in tensors:
            f.write(np.ascontiguousarray(array).tobytes())
    os.replace(tmp, out)  # never a half-written network under the real name
    return out
