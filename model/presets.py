"""Training presets: model sizes and batch sizes for ``tutor train`` and the dashboard.

They live in ``model`` rather than in the CLI because both the CLI (``tutor train``) and
the dashboard's Train tab use them; importing them from the CLI module made the dashboard
depend on the CLI and created an import cycle.  Plain data, no torch import.
"""
from __future__ import annotations

SIZES = {  # d_model, n_head, n_layer, block_size
    "tiny": dict(d_model=64, n_head=4, n_layer=2, block_size=64),
    "small": dict(d_model=128, n_head=4, n_layer=4, block_size=128),
}
TASK_BATCH, TEXT_BATCH = 128, 32   # sequences per step: synthetic tasks, text
