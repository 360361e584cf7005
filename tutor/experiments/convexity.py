"""A convex model beside the network: a linear readout of the residual stream fitted by least squares.

Seed 002 contrasts linear regression (convex: one minimum, found from any start) with a deep net
(non-convex: where training ends depends on where it starts).  Both halves run on the lesson's own
model: the regression reads its real hidden states, and the network half trains two fresh copies
of the same shape from two seeds.
"""
from __future__ import annotations

from tutor.common.lazy_import import numpy as np  # numpy loads on first use, not at lesson validation

from tutor.experiments.common import fresh_model, loss_on, probe_tensors, scored_targets, to_numpy, tokens_on_device
from tutor.experiments.registry import ExperimentContext, experiment, one_torch_thread

GD_START_SCALES = (0.0, 1.0, 10.0)   # zeros, then random starts of growing size
GD_MAX_STEPS = 20000
GD_TOLERANCE = 1e-12                 # stop once the gradient's largest entry is below this
NET_STEPS = 40
NET_LR = 0.01


def readout_data(context: ExperimentContext):
    """X (n, D+1): the last block's output per token, each feature standardised, then a column of
    ones for the bias; y (n,): each token's position in its row, the quantity the readout predicts.

    Standardising is the usual preprocessing for least squares: the raw residual stream at
    initialisation is 50 times smaller than the bias column, which makes gradient descent crawl."""
    probes = probe_tensors(context)
    last = context.model.config.n_layer - 1
    hidden = probes[f"blocks.{last}.resid_post"].numpy()                     # (B, L, D)
    B, L, D = hidden.shape
    H = hidden.reshape(B * L, D)                                              # (n, D)
    H = (H - H.mean(axis=0)) / np.maximum(H.std(axis=0), 1e-12)
    X = np.hstack([H, np.ones((B * L, 1))])                                   # (n, D+1)
    y = np.tile(np.arange(L, dtype=np.float64), B)                            # (n,)
    return X, y


def descend(X, y, starts, lr):
    """Plain gradient descent on mean((X w - y)^2) from every start at once; returns the weights
    (k, D+1) and the number of steps taken."""
    n = X.shape[0]
    W = starts.T.copy()                                                       # (D+1, k)
    for step in range(GD_MAX_STEPS):
        grad = 2.0 / n * X.T @ (X @ W - y[:, None])                           # (D+1, k)
        if np.abs(grad).max() < GD_TOLERANCE:
            return W.T, step
        W -= lr * grad
    return W.T, GD_MAX_STEPS


def mse(X, y, W):
    return ((X @ W.T - y[:, None]) ** 2).mean(axis=0)                        # (k,)


def train_fresh(context: ExperimentContext, seed: int):
    """A fresh model of the lesson's shape from ``seed``, trained NET_STEPS Adam steps on the lesson's rows."""
    import torch

    tokens, targets = tokens_on_device(context), scored_targets(context)
    model = fresh_model(context.model.config, seed).double().to(tokens.device)
    model.train(False)
    optimizer = torch.optim.Adam(model.parameters(), lr=NET_LR)
    with torch.enable_grad():
        for _ in range(NET_STEPS):
            optimizer.zero_grad(set_to_none=True)
            loss_on(model, tokens, targets).backward()
            optimizer.step()
    return model


@experiment("linreg", "least squares on the lesson's model: linreg.X (n, D+1) the last block's output "
                      "per token (n = B*L), each feature standardised, and a column of ones; linreg.y (n,) "
                      "each token's position in its row; linreg.n (1,) = n; linreg.w_closed (D+1,) the "
                      "solution of the normal equations X^T X w = X^T y; linreg.loss_closed (1,) its mean "
                      "squared error; linreg.starts (3, D+1) three starts (zeros, random, 10x random); "
                      "linreg.start_loss (3,); linreg.grad0 (D+1,) autograd's gradient of the loss at "
                      "the second start; linreg.hessian (D+1, D+1) autograd's Hessian; linreg.hess_eig "
                      "(D+1,) its eigenvalues, ascending; linreg.hess_eig_min (1,); linreg.gd_w (3, D+1) "
                      "gradient descent's weights from each start (lr 1/largest eigenvalue, until the "
                      "gradient is below 1e-12); linreg.gd_loss (3,); linreg.gd_steps (1,); "
                      "linreg.gd_spread (1,) the largest distance between two of its results; "
                      "linreg.net_loss (2,) the training loss of two fresh copies of the network (seeds "
                      "s, s+1) after 40 Adam steps (lr 0.01) on the lesson's rows; linreg.net_start_loss "
                      "(2,) before; linreg.net_spread (1,) the distance between their weights; "
                      "linreg.net_mid_loss (1,) the loss at the midpoint of their weights; "
                      "linreg.net_mid_excess (1,) that loss minus the mean of the two; "
                      "linreg.net_mid_over_start (1,) that loss minus the lower of the two starts",
            passes=150, copies=6,
            derived={"linreg.loss_closed": ("linreg.X", "linreg.y", "linreg.w_closed"),
                     "linreg.start_loss": ("linreg.X", "linreg.y", "linreg.starts"),
                     "linreg.gd_loss": ("linreg.X", "linreg.y", "linreg.gd_w"),
                     "linreg.hess_eig": ("linreg.hessian",), "linreg.hess_eig_min": ("linreg.hessian",),
                     "linreg.net_mid_excess": ("linreg.net_mid_loss", "linreg.net_loss"),
                     "linreg.net_mid_over_start": ("linreg.net_mid_loss", "linreg.net_start_loss")})
@one_torch_thread
def linreg(context: ExperimentContext) -> dict[str, np.ndarray]:
    import torch

    X, y = readout_data(context)
    n, p = X.shape
    w_closed = np.linalg.lstsq(X.T @ X, X.T @ y, rcond=None)[0]              # (D+1,) the normal equations
    generator = np.random.default_rng(context.seed)
    starts = np.stack([scale * generator.standard_normal(p) + 0.0 for scale in GD_START_SCALES])  # (3, D+1)

    Xt, yt = torch.from_numpy(X), torch.from_numpy(y)
    loss_of = lambda w: ((Xt @ w - yt) ** 2).mean()                          # noqa: E731
    w0 = torch.from_numpy(starts[1].copy()).requires_grad_(True)
    with torch.enable_grad():
        grad0, = torch.autograd.grad(loss_of(w0), w0)                         # (D+1,)
        hessian = torch.autograd.functional.hessian(loss_of, w0.detach())     # (D+1, D+1)
    eig = np.linalg.eigvalsh(to_numpy(hessian))                               # (D+1,) ascending

    gd_w, steps = descend(X, y, starts, lr=1.0 / max(eig[-1], 1e-12))
    gaps = np.abs(gd_w[:, None, :] - gd_w[None, :, :]).max(axis=2)           # (3, 3)

    nets = [train_fresh(context, context.seed + k) for k in range(2)]
    tokens, targets = tokens_on_device(context), scored_targets(context)
    start_nets = [fresh_model(context.model.config, context.seed + k).double().to(tokens.device) for k in range(2)]
    with torch.no_grad():
        net_loss = np.array([float(loss_on(m, tokens, targets)) for m in nets])
        net_start = np.array([float(loss_on(m.eval(), tokens, targets)) for m in start_nets])
        flat = [torch.cat([q.flatten() for q in m.parameters()]) for m in nets]
        spread = float((flat[0] - flat[1]).norm())
        for q_mid, q_b in zip(nets[0].parameters(), nets[1].parameters()):
            q_mid.copy_((q_mid + q_b) / 2)                                    # net 0 becomes the midpoint
        mid = float(loss_on(nets[0], tokens, targets))
    return {
        "linreg.X": X, "linreg.y": y, "linreg.n": np.array([float(n)]),
        "linreg.w_closed": w_closed, "linreg.loss_closed": mse(X, y, w_closed[None]),
        "linreg.starts": starts, "linreg.start_loss": mse(X, y, starts),
        "linreg.grad0": to_numpy(grad0), "linreg.hessian": to_numpy(hessian),
        "linreg.hess_eig": eig, "linreg.hess_eig_min": eig[:1].copy(),
        "linreg.gd_w": gd_w, "linreg.gd_loss": mse(X, y, gd_w), "linreg.gd_steps": np.array([float(steps)]),
        "linreg.gd_spread": np.array([gaps.max()]),
        "linreg.net_loss": net_loss, "linreg.net_start_loss": net_start,
        "linreg.net_spread": np.array([spread]), "linreg.net_mid_loss": np.array([mid]),
        "linreg.net_mid_excess": np.array([mid - net_loss.mean()]),
        "linreg.net_mid_over_start": np.array([mid - net_start.min()]),   # below 0: some training survives
    }
