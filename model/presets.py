"""Training presets that the ``tutor train`` command and the dashboard share.

They live beside the model, not in either caller, so the UI never imports the CLI to learn a
shape: both read the same table here.
"""
SIZES = {  # d_model, n_head, n_layer, block_size
    "tiny": dict(d_model=64, n_head=4, n_layer=2, block_size=64),
    "small": dict(d_model=128, n_head=4, n_layer=4, block_size=128),
}
TASK_BATCH, TEXT_BATCH = 128, 32   # sequences per step: short task strings vs 64-character text windows
