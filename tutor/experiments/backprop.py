"""Experiment: backpropagation by hand, checked against autograd, through block 0's MLP hidden layer
and into its query projection W_Q.

Why hooks on a private copy: the lesson's probes are recorded without gradients, and the shared
model must not be touched; the hooks catch the exact tensors that enter and leave W_Q and W_out
in the trainer's loss, so every gradient here is autograd's own, not one recomputed from a formula.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import loss_on, private_copy, scalar, scored_targets, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

ROUNDING = 1e-12   # a query gradient below this fraction of the largest one is float64 rounding (a
                   # one-key softmax gives about 1e-18), not a path from the loss


@experiment("attn_grad", "one backward pass of the trainer's loss on a float64 copy, rows of all B·L tokens: "
                         "attn_grad.loss (1,); attn_grad.x (B*L, D) the input of block 0's W_Q (LayerNorm "
                         "output with gain and shift); attn_grad.dq (B*L, D) dL/d(x W_Q + b_Q), heads side by "
                         "side; attn_grad.dk, attn_grad.dv (B*L, D) the same for the keys and the values; attn_grad.dx "
                         "(B*L, D) dL/dx, through all three projections; attn_grad.reached (B, L) 1 where a token's query gradient is above rounding "
                         "(1e-12 of the largest); attn_grad.dq_heads (B, H, L, D_head) the same split by head; attn_grad.dW_Q "
                         "(D, D) in the (in, out) layout; attn_grad.dW_Q_head0 (D, D_head) its columns that make head 0's "
                         "queries; attn_grad.rank (1,) the rank of dW_Q; "
                         "attn_grad.dY (B*L, D) dL/d(MLP output) of block 0; attn_grad.pre (B*L, 4D) the MLP's "
                         "pre-activation; attn_grad.gelu_grad (B*L, 4D) GELU'(pre); attn_grad.dpre (B*L, 4D) "
                         "dL/dpre; through block 0's attention, batch row by row and head by head: "
                         "attn_grad.A (B, H, L, L) the attention pattern, attn_grad.V (B, H, L, D_head) the "
                         "values, attn_grad.dz_heads (B, H, L, D_head) dL/dz, attn_grad.dv_heads "
                         "(B, H, L, D_head) dL/dv, both from backward(); attn_grad.dS (B, H, L, L) dL/d(scores), "
                         "autograd through the masked softmax from dL/dz; attn_grad.Q, attn_grad.K (B, H, L, D_head) block 0's "
                         "queries and keys; attn_grad.dk_heads (B, H, L, D_head) dL/d(x W_K + b_K) from backward(), "
                         "split by head", passes=2.2, copies=3)
@one_torch_thread
def attention_gradient(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch
    import torch.nn.functional as F

    model = private_copy(context.model)
    block = model.blocks[0]
    caught: dict = {}

    def keep(name_in, name_out, input_grad=False):
        def hook(module, inputs, output):
            caught[name_in], caught[name_out] = inputs[0], output
            output.retain_grad()
            if input_grad:
                inputs[0].retain_grad()
        return hook

    def keep_input(name):
        def hook(module, inputs, output):
            caught[name] = inputs[0]
            inputs[0].retain_grad()
        return hook

    handles = [block.attn.W_Q.register_forward_hook(keep("x", "q", input_grad=True)),
               block.attn.W_K.register_forward_hook(keep("xk", "k")),
               block.attn.W_V.register_forward_hook(keep("xv", "v")),
               block.attn.W_O.register_forward_hook(keep_input("merged")),
               block.mlp.W_in.register_forward_hook(keep("mlp_in", "pre")),
               block.mlp.W_out.register_forward_hook(keep("post", "y"))]
    try:
        with torch.enable_grad():
            loss = loss_on(model, tokens_on_device(context).cpu(), scored_targets(context).cpu())
            loss.backward()
    finally:
        for handle in handles:
            handle.remove()
    batch, length, d_model = caught["q"].shape
    n_head = model.config.n_head

    def flat(t):
        return t.reshape(batch * length, -1)                                # (B, L, F) -> (B*L, F)

    pre = caught["pre"].detach().requires_grad_(True)                       # (B, L, 4D)
    with torch.enable_grad():
        gelu_grad, = torch.autograd.grad(F.gelu(pre).sum(), pre)             # (B, L, 4D): GELU'(pre)
    dq = caught["q"].grad                                                   # (B, L, D)
    attention = attention_backward(model, context, caught, n_head)
    d_w_q = block.attn.W_Q.weight.grad.T                                    # (D, D) as (in, out)
    norms = dq.norm(dim=-1)                                                 # (B, L)
    reached = norms > ROUNDING * norms.max()                                # (B, L): above float64 rounding
    return {
        "attn_grad.loss": scalar(loss),
        "attn_grad.x": to_numpy(flat(caught["x"])),
        "attn_grad.dq": to_numpy(flat(dq)),
        "attn_grad.dk": to_numpy(flat(caught["k"].grad)),
        "attn_grad.dv": to_numpy(flat(caught["v"].grad)),
        "attn_grad.dx": to_numpy(flat(caught["x"].grad)),     # the three paths, q, k and v, summed
        "attn_grad.dq_heads": to_numpy(dq.view(batch, length, n_head, d_model // n_head).transpose(1, 2)),
        "attn_grad.reached": to_numpy(reached.double()),
        "attn_grad.dW_Q": to_numpy(d_w_q),
        "attn_grad.dW_Q_head0": to_numpy(d_w_q[:, : d_model // n_head]),    # (D, D_head)
        "attn_grad.rank": scalar(torch.linalg.matrix_rank(d_w_q)),
        "attn_grad.dY": to_numpy(flat(caught["y"].grad)),
        "attn_grad.pre": to_numpy(flat(pre)),
        "attn_grad.gelu_grad": to_numpy(flat(gelu_grad)),
        "attn_grad.dpre": to_numpy(flat(caught["pre"].grad)),
    } | attention


def attention_backward(model, context, caught, n_head) -> dict[str, np.ndarray]:
    """Block 0's attention gradients head by head: dL/dz and dL/dv from the backward pass above,
    the pattern from the model's own explicit forward path, and dL/dscores by autograd through a
    masked softmax fed dL/dz (no closed form here: that is what a lesson asks the learner for)."""
    import math

    import torch

    from tutor.model import run_with_probes

    batch, length, d_model = caught["q"].shape
    d_head = d_model // n_head

    def heads(t):
        return t.reshape(batch, length, n_head, d_head).transpose(1, 2)    # (B, L, D) -> (B, H, L, D_head)

    with torch.no_grad():
        _, probes = run_with_probes(model, tokens_on_device(context).cpu())
    pattern = probes["blocks.0.attn.pattern"].double()                      # (B, H, L, L)
    q, k, v = (heads(caught[n]).detach() for n in ("q", "k", "v"))         # (B, H, L, D_head) each
    dz = heads(caught["merged"].grad)                                       # (B, H, L, D_head)
    future = torch.ones(length, length, dtype=torch.bool).triu(1)           # (L, L)
    scores = (q @ k.transpose(-2, -1) / math.sqrt(d_head)).requires_grad_(True)  # (B, H, L, L)
    with torch.enable_grad():
        z = torch.softmax(scores.masked_fill(future, float("-inf")), dim=-1) @ v   # (B, H, L, D_head)
        d_scores, = torch.autograd.grad(z, scores, grad_outputs=dz)          # (B, H, L, L)
    return {
        "attn_grad.A": to_numpy(pattern),
        "attn_grad.V": to_numpy(v),
        "attn_grad.dz_heads": to_numpy(dz),
        "attn_grad.dv_heads": to_numpy(heads(caught["v"].grad)),
        "attn_grad.dS": to_numpy(d_scores),
        "attn_grad.Q": to_numpy(q),
        "attn_grad.K": to_numpy(k),
        "attn_grad.dk_heads": to_numpy(heads(caught["k"].grad)),
    }
