"""Dynamic graphs: PyTorch records the graph while the Python code runs, one call at a time.

The experiment runs the lesson's model with a depth chosen at run time (a plain Python loop over
the first k blocks) and counts the autograd nodes each call recorded.  The count grows with k
and not with the input's length: the graph is made of the operations that ran, each of which
handles a whole tensor.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread
from tutor.experiments.common import private_copy, tokens_on_device


def count_nodes(output) -> int:
    """Nodes of the autograd graph that ``backward()`` would walk from ``output``."""
    seen, stack = set(), [output.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        stack.extend(child for child, _ in node.next_functions)
    return len(seen)


def run_first_blocks(model, tokens, depth: int, tied: bool = False):
    """Logits (B, L, V) after only the first ``depth`` blocks: the depth is ordinary Python.

    ``tied`` applies block 0 ``depth`` times instead, one block's weights reused at every step
    (as a weight-tied or recurrent model does): each use records its operations again, while a
    weight stays one leaf node of the graph."""
    x = model.W_E(tokens)                                                    # (B, L, D)
    pos = model.position_embedding(0, tokens.shape[1], tokens.device)        # (L, D) or None
    if pos is not None:
        x = x + pos                                                          # (B, L, D)
    for block in ([model.blocks[0]] * depth if tied else model.blocks[:depth]):
        x, _ = block(x)                                                      # (B, L, D)
    return model.W_U(model.ln_final(x))                                      # (B, L, V)


@experiment("graphs", "the autograd graph recorded by a forward pass whose depth is chosen at run time "
                      "(the first k blocks, then the final LayerNorm and W_U; the output is summed), on a "
                      "float64 copy: graphs.depth (N+1,) = 0..N, graphs.nodes (N+1,) the graph's nodes for "
                      "each depth (parameters count as one node each), graphs.per_block (1,) the nodes of "
                      "block 0's own graph, recorded on its own from a detached input (without the final sum), "
                      "graphs.nodes_long (1,) nodes at full depth for the input repeated to twice its "
                      "length (within the block size), graphs.length / .length_long (1,) the two lengths, "
                      "graphs.nodes_tied (1,) nodes when block 0 is applied N times (its weights reused), "
                      "graphs.block_weights (1,) the weight tensors of block 0",
            passes=1, copies=1)
@one_torch_thread
def graphs(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    model = private_copy(context.model)
    tokens = tokens_on_device(context)                                                # (B, L)
    n_layer, block = model.config.n_layer, model.config.block_size
    long = torch.cat([tokens, tokens], dim=1)[:, :block]                     # (B, ≤2L)
    with torch.enable_grad():
        nodes = [count_nodes(run_first_blocks(model, tokens, k).sum()) for k in range(n_layer + 1)]
        nodes_long = count_nodes(run_first_blocks(model, long, n_layer).sum())
        nodes_tied = count_nodes(run_first_blocks(model, tokens, n_layer, tied=True).sum())
        per_block = count_nodes(model.blocks[0](model.W_E(tokens).detach())[0].sum()) - 1 if n_layer else 0
    return {
        "graphs.depth": np.arange(n_layer + 1, dtype=float),
        "graphs.nodes": np.array(nodes, dtype=float),
        "graphs.per_block": np.array([float(per_block)]),   # measured apart, not nodes[1] - nodes[0]
        "graphs.nodes_long": np.array([float(nodes_long)]),
        "graphs.length": np.array([float(tokens.shape[1])]),
        "graphs.length_long": np.array([float(long.shape[1])]),
        "graphs.nodes_tied": np.array([float(nodes_tied)]),
        "graphs.block_weights": np.array([float(sum(1 for w in model.blocks[0].parameters() if w.requires_grad)
                                                if n_layer else 0)]),
    }
