"""Path length: how many steps separate token 0 from the last token, in attention and in an RNN.

Attention's side is measured on the lesson's model: the Jacobian of block 0's attention output
with respect to block 0's input, taken by autograd on a float64 copy, says which positions each
token reads directly; the fewest layers for token 0 to reach the last one follow from that table.
The RNN is not part of the model, so the experiment builds the simplest one that shows the point:
a linear recurrence h_t = ρ·Q·h_{t−1} + x_t with Q a rotation drawn from the lesson's seed.  Its
gradients are also taken by autograd, so the ρ^(L−1) a lesson asks for is measured, not assumed.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.attention_variants import hops
from tutor.experiments.common import private_copy, probe_tensors, scalar, to_numpy
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

RHO = 0.9             # the RNN's recurrent gain: below 1, so a signal shrinks at every step
HALF = 0.5            # rnn_half: how far back a token's effect on the last state falls below this
ROUNDING = 1e-12      # a Jacobian block below this share of the largest counts as no edge


@experiment("path_length", "how far token 0 is from the last token, batch row 0: path_length.length (1,) = L; "
                           "path_length.attn_reach (L,) the norm of d(block 0's attention output at the last "
                           "position)/d(block 0's input at position j), autograd on a float64 copy; "
                           "path_length.attn_edges (L, L) 1 where attention output i depends on input j; "
                           "path_length.far_over_near (1,) attn_reach at j = 0 over attn_reach at j = L-2; "
                           "path_length.attn_steps (1,) the fewest stacked attention layers after which the last "
                           "token can depend on token 0; a linear RNN h_t = rho·Q·h_(t-1) + x_t on the same "
                           "inputs (Q a random rotation, path_length.rho (1,) = 0.9): path_length.rnn_edges (L, L) "
                           "1 where h_i reads h_j or x_j directly, path_length.rnn_steps (1,) the fewest recurrent "
                           "steps from token 0 to the last state, path_length.rnn_reach (L,) the spectral norm of "
                           "dh_(L-1)/dx_j by autograd, path_length.rnn_far (1,) its value at j = 0, and path_length.rnn_half "
                           "(1,) the fewest steps back from the last position at which that norm is below 1/2 (L if none)",
            passes=3, copies=1)
@one_torch_thread
def path_length(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    x = probe_tensors(context)["blocks.0.resid_pre"][0]                      # (L, D) batch row 0
    length, d_model = x.shape
    block = private_copy(context.model).blocks[0]

    def attention_out(inputs):
        out, _ = block.attn(block.ln1(inputs[None]))                         # (1, L, D)
        return out[0]                                                        # (L, D)

    with torch.enable_grad():
        jac = torch.autograd.functional.jacobian(attention_out, x)           # (L, D, L, D)
    norms = jac.pow(2).sum(dim=(1, 3)).sqrt()                                # (L, L) out i, in j
    attn_edges = norms > ROUNDING * norms.max()                              # (L, L)

    generator = torch.Generator().manual_seed(context.seed or 0)
    rotation, _ = torch.linalg.qr(torch.randn(d_model, d_model, generator=generator, dtype=torch.float64))

    def last_state(inputs):
        h = torch.zeros(d_model, dtype=torch.float64)                        # (D,)
        for t in range(length):
            h = RHO * rotation @ h + inputs[t]                               # (D,)
        return h

    with torch.enable_grad():
        rnn_jac = torch.autograd.functional.jacobian(last_state, x)          # (D, L, D)
    rnn_reach = torch.linalg.matrix_norm(rnn_jac.permute(1, 0, 2), ord=2)    # (L,) spectral norm per j
    below_half = torch.nonzero(rnn_reach.flip(0) < HALF)                     # (n, 1) steps back k
    half_steps = int(below_half[0, 0]) if len(below_half) else length
    i = torch.arange(length)[:, None]                                        # (L, 1)
    j = torch.arange(length)[None, :]                                        # (1, L)
    rnn_edges = (j == i) | (j == i - 1)                                      # (L, L): x_i and h_(i-1)
    return {
        "path_length.length": scalar(length),
        "path_length.attn_reach": to_numpy(norms[-1]),
        "path_length.attn_edges": to_numpy(attn_edges.double()),
        "path_length.far_over_near": scalar(norms[-1, 0] / norms[-1, -2]),        # token 0 against the one before last
        "path_length.attn_steps": scalar(hops(attn_edges)),
        "path_length.rho": scalar(RHO),
        "path_length.rnn_edges": to_numpy(rnn_edges.double()),
        "path_length.rnn_steps": scalar(hops(rnn_edges)),
        "path_length.rnn_reach": to_numpy(rnn_reach),
        "path_length.rnn_far": scalar(rnn_reach[0]),
        "path_length.rnn_half": scalar(half_steps),
    }
