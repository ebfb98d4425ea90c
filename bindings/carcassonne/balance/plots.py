"""What every plot of the balance report shares: line-up names, cause colours, estimates as text,
estimates with their intervals by mix, and saving a figure."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt
import numpy as np
import pandas as pd

from .. import CAUSES
from .stats import Estimate

LINEUP_NAMES = {
    "greedy": "all greedy",
    "mcts": "all MCTS",
    "rollout": "all MCTS on rollouts",
    "mcts+greedy": "one MCTS among greedy",
}
# One colour per cause, fixed by its place in CAUSES: the same cause looks the same in every report.
_PALETTE = [plt.get_cmap("tab20")(i) for i in range(20)] + [plt.get_cmap("tab20b")(i) for i in range(20)]
CAUSE_COLORS = {cause: _PALETTE[i % len(_PALETTE)] for i, cause in enumerate(CAUSES)}


def _lineup_name(lineup: str) -> str:
    if lineup.startswith("mcts@"):
        return f"all MCTS at {lineup[len('mcts@') :]} iterations"
    if lineup.startswith("rollout@"):
        return f"all MCTS on rollouts at {lineup[len('rollout@') :]} iterations"
    return LINEUP_NAMES.get(lineup, lineup)


def _cells_text(frame: pd.DataFrame, percent: tuple[str, ...] = (), digits: int = 1) -> pd.DataFrame:
    """A table with its Estimates as "value [low, high]" text."""
    out = frame.copy()
    for col in out.columns:
        if len(out) and isinstance(out[col].iloc[0], Estimate):
            out[col] = [
                e.text(digits=3 if col in percent else digits, percent=col in percent) for e in out[col]
            ]
    if "fair" in out.columns:
        out["fair"] = [f"{100 * f:.0f}%" for f in out["fair"]]
    if "lineup" in out.columns:
        out["lineup"] = out["lineup"].map(_lineup_name)
    return out


def _deals_label(part: pd.DataFrame, column: str = "deals") -> str:
    """A series' group sizes for a legend: "20 deals" or "8-20 deals"."""
    lo, hi = int(part[column].min()), int(part[column].max())
    return f"{lo} deals" if lo == hi else f"{lo}-{hi} deals"


def _errorbar_by_mix(
    ax: plt.Axes,
    frame: pd.DataFrame,
    column: str,
    label_of: str,
    scale: float = 1.0,
    fair: bool = False,
    sizes: str = "deals",
) -> None:
    """One series per value of `label_of` (e.g. players): estimates with their 95% intervals over
    the mixes on the x axis, side by side, the group sizes in the legend. An estimate without a
    usable interval (too few deals, no spread) is drawn as an open marker without bars. With `fair`, a
    dashed line in the series' colour at its fair share (1/players)."""
    mixes = list(dict.fromkeys(frame["mix"]))
    groups = list(dict.fromkeys(frame[label_of]))
    width = 0.8 / max(len(groups), 1)
    for i, g in enumerate(groups):
        part = frame[frame[label_of] == g]
        estimates = part.set_index("mix").reindex(mixes)[column]
        x = np.arange(len(mixes)) + (i - (len(groups) - 1) / 2) * width
        ok = [isinstance(e, Estimate) and e.has_interval for e in estimates]
        values = np.array([e.value * scale if isinstance(e, Estimate) else np.nan for e in estimates])
        # A percentile interval may miss its estimate (a biased statistic): no negative bars.
        low = [max(0.0, (e.value - e.low) * scale) if k else 0.0 for e, k in zip(estimates, ok, strict=True)]
        high = [
            max(0.0, (e.high - e.value) * scale) if k else 0.0 for e, k in zip(estimates, ok, strict=True)
        ]
        label = f"{g} {label_of}".strip() + f" ({_deals_label(part, sizes)})"  # label_of "": g alone
        bars = ax.errorbar(
            x[ok],
            values[ok],
            yerr=[np.array(low)[ok], np.array(high)[ok]],
            fmt="o",
            capsize=3,
            label=label if any(ok) else None,
        )
        color = bars.lines[0].get_color()
        if not all(ok):
            bad = [not k for k in ok]
            ax.plot(x[bad], values[bad], "o", mfc="none", color=color, label=f"{label}: no interval")
        if fair:
            ax.axhline(scale / int(g), color=color, lw=0.8, ls="--")
    ax.set_xticks(np.arange(len(mixes)), mixes, rotation=30, ha="right")
    ax.set_xlim(-0.6, len(mixes) - 0.4)
    ax.grid(axis="y", alpha=0.3)


def _save(fig: plt.Figure, folder: Path, name: str) -> str:
    fig.tight_layout()
    fig.savefig(folder / name, dpi=110)
    plt.close(fig)
    return name
