"""The training-side experiments: documented names and shapes, the identity each one shows,
speed, and the rule that the shared trained model is never modified."""
import math

import numpy as np
import pytest

from conftest import experiment_context as context
import torch

from tutor.model import GPT, CharTokenizer, GPTConfig, run_with_probes
from tutor.model.train import TrainConfig, lr_at
from tutor.experiments import EXPERIMENTS

TRAINING_EXPERIMENTS = ["embedding", "svd", "dot_variance", "mlp_collapse", "next_token", "temperature", "nll",
                        "autoregressive", "ce_grad", "finite_diff", "autograd", "vanish", "gradient_descent",
                        "momentum", "adam", "lr_schedule", "landscape"]
TEXT = "3142>1234"
WRONG = "3142>1243"
V = 96




def small_model(seed=0):
    torch.manual_seed(seed)
    return GPT(GPTConfig(vocab_size=V, block_size=64, n_layer=1, n_head=2, d_model=8)).eval()


def run(name, ctx):
    return EXPERIMENTS[name](ctx)


@pytest.fixture(scope="module")
def small():
    return small_model()


@pytest.fixture(scope="module")
def trained_out(hub):
    """Every experiment once on the trained model (test_experiments_registry checks it is left as it was)."""
    return {name: run(name, context(hub.model, [TEXT])) for name in TRAINING_EXPERIMENTS}


EXPECTED_SHAPES = {   # on the trained model (D = 64, H = 4) with B = 1, L = 9
    "embedding": {"embedding.ids": (1, 9), "embedding.one_hot": (1, 9, V), "embedding.lookup": (1, 9, 64),
                  "embedding.digit_onehot_cos": (10, 10), "embedding.digit_cos": (10, 10),
                  "embedding.digit_W_E": (10, 64), "embedding.digit_norm": (10, 1),
                  "embedding.digit_nearest": (10,), "embedding.digit_neighbours": (1,), "embedding.onehot_macs": (1,), "embedding.lookup_macs": (1,),
                  "embedding.unseen_ids": (4,)},
    "svd": {"svd.U": (V, 64), "svd.S": (64,), "svd.Sigma": (64, 64), "svd.V": (64, 64), "svd.energy": (64,),
            "svd.digit_coords": (10, 2), "svd.stretch": (2,)},
    "dot_variance": {"dot_variance.d": (4,), "dot_variance.raw": (4,), "dot_variance.scaled": (4,)},
    "mlp_collapse": {"mlp_collapse.x": (1, 9, 64), "mlp_collapse.W": (64, 64), "mlp_collapse.xW": (1, 9, 64),
                     "mlp_collapse.linear_out": (1, 9, 64), "mlp_collapse.gap": (1, 9),
                     "mlp_collapse.b": (64,)},
    "next_token": {f"next_token.{n}": (1, 9, V) for n in ("probs", "shifted", "exp_shifted", "exp_big",
                                                           "naive_big", "stable_big")}
    | {"next_token.shift_gap": (1, 9), "next_token.top_ids": (1, 9, 5), "next_token.top_probs": (1, 9, 5),
       "next_token.top_logits": (1, 9, 5), "next_token.low_logit": (1, 9), "next_token.overflow_shift": (1, 9)},
    "temperature": {"temperature.T": (5,), "temperature.probs": (5, V), "temperature.top": (5,),
                    "temperature.winner": (5,), "temperature.hot_change": (1,), "temperature.lead": (5,),
                    "temperature.low": (5,), "temperature.even_T": (1,)},
    "nll": {"nll.targets": (1, 8), "nll.onehot": (1, 8, V), "nll.scored": (1, 8), "nll.p_true": (1, 8),
            "nll.loss": (1, 8), "nll.mean": (1,), "nll.answer_prob": (1, 1), "nll.cum_logp": (1, 8),
            "nll.random_p_true": (1, 8),
            "nll.random_loss": (1, 8), "nll.random_mean": (1,), "nll.perplexity": (1,),
            "nll.random_perplexity": (1,)},
    "autoregressive": {"autoregressive.tokens": (1, 9), "autoregressive.logits": (1, 9, V),
                       "autoregressive.change": (1, 9), "autoregressive.factor_change": (1, 8),
                       "autoregressive.step_p": (8,)},
    "ce_grad": {"ce_grad.loss": (1,), "ce_grad.N": (1,), "ce_grad.scored": (1, 8), "ce_grad.probs": (1, 8, V),
                "ce_grad.onehot": (1, 8, V), "ce_grad.dlogits": (1, 8, V), "ce_grad.x_final": (1, 8, 64),
                "ce_grad.dx_final": (1, 8, 64), "ce_grad.dW_U": (64, V),
                "ce_grad.dW_U_norm": (V,), "ce_grad.dprobs": (1, 8, V), "ce_grad.T": (1,),
                "ce_grad.probs_T": (1, 8, V), "ce_grad.dlogits_T": (1, 8, V)},
    "finite_diff": {"finite_diff.index": (4, 2), "finite_diff.partial": (4,), "finite_diff.loss_plus": (4,),
                    "finite_diff.loss_minus": (4,), "finite_diff.h": (1,), "finite_diff.gain": (9,),
                    "finite_diff.grad_norm": (1,), "finite_diff.cosine": (9,), "finite_diff.n_params": (1,)},
    "autograd": {"autograd.grad_before": (1,), "autograd.W_E_rows": (V,), "autograd.W_pos_rows": (9,),
                 "autograd.once": (64,), "autograd.twice": (64,), "autograd.then_triple": (64,), "autograd.scaled": (64,),
                 "autograd.graph_nodes": (1,), "autograd.dX": (1, 9, 64), "autograd.W_E_grad": (V, 64)},
    "vanish": {"vanish.pre": (1, 9, 256), "vanish.sigmoid_grad": (1, 9, 256), "vanish.gelu_grad": (1, 9, 256),
               "vanish.sigmoid_chain": (12,), "vanish.bound": (12,), "vanish.linear_chain": (2, 12)},
    "gradient_descent": {"gradient_descent.lr": (3,), "gradient_descent.curves": (3, 21),
                         "gradient_descent.grad_W_U": (64, V), "gradient_descent.W_U_after": (64, V)},
    "momentum": {"momentum.row_grads": (64 * V, 1), "momentum.full_grad": (64 * V, 1), "momentum.row_cos": (1,),
                 "momentum.grads": (6, 64 * V), "momentum.buffers": (6, 64 * V), "momentum.grad_cos": (5,),
                 "momentum.buffer_cos": (5,), "momentum.const_ratio": (100,)},
    "adam": {"adam.grads": (3, 64), "adam.exp_avg": (64,), "adam.exp_avg_sq": (64,), "adam.m_hat": (64,),
             "adam.v_hat": (64,), "adam.correction": (2,), "adam.first_ratio": (64,), "adam.first_step": (64,),
             "adam.first_move": (64,), "adam.first_move_in_lr": (64,), "adam.lr": (1,)},
    "lr_schedule": {"lr_schedule.warmup_steps": (4,), "lr_schedule.warmup": (4,), "lr_schedule.cosine_steps": (5,),
                    "lr_schedule.cosine": (5,), "lr_schedule.progress": (5,), "lr_schedule.curve": (1500,)},
    "landscape": {"landscape.alpha": (21,), "landscape.line": (21,), "landscape.t": (21,),
                  "landscape.path": (21,), "landscape.bend": (19,)},
}


@pytest.mark.parametrize("name", TRAINING_EXPERIMENTS)
def test_names_and_shapes_are_as_documented(trained_out, name):
    out = trained_out[name]
    assert {k: v.shape for k, v in out.items()} == EXPECTED_SHAPES[name]
    assert all(isinstance(v, np.ndarray) for v in out.values())
    assert all(k.startswith(name + ".") for k in out)


@pytest.mark.parametrize("name", TRAINING_EXPERIMENTS)
def test_each_runs_on_a_small_random_batch_and_leaves_the_model_alone(small, name):
    before = {k: v.clone() for k, v in small.state_dict().items()}
    rng_state = torch.get_rng_state()
    threads = torch.get_num_threads()
    out = run(name, context(small, ["3142>1234", "8150>0158"]))
    assert out and all(np.asarray(v).size for v in out.values())
    assert all(torch.equal(before[k], v) for k, v in small.state_dict().items())
    assert torch.equal(rng_state, torch.get_rng_state()), "global torch RNG was disturbed"
    assert torch.get_num_threads() == threads


# ------------------------------------------------------------------------ the identities

def test_embedding_lookup_is_one_hot_times_W_E(hub, trained_out):
    out = trained_out["embedding"]
    W_E = hub.model.W_E.weight.detach().double().numpy()
    np.testing.assert_allclose(out["embedding.one_hot"] @ W_E, out["embedding.lookup"], atol=1e-12)
    _, probes = run_with_probes(hub.model, torch.tensor([CharTokenizer().encode(TEXT)]))
    np.testing.assert_allclose(out["embedding.lookup"], probes["embed"].numpy(), atol=1e-6)
    assert out["embedding.ids"][0, 0] == 17 + 3
    np.testing.assert_array_equal(out["embedding.digit_onehot_cos"], np.eye(10))
    # the product multiplies every one of the L·V·D pairs; the lookup multiplies nothing
    assert out["embedding.onehot_macs"][0] == 9 * V * 64
    assert out["embedding.lookup_macs"][0] == 0
    # la-one-hot-vs-dense unseen-chars: characters outside the vocabulary all share the id of '?'
    np.testing.assert_array_equal(out["embedding.unseen_ids"], [CharTokenizer().encode("?")[0]] * 4)
    cos = out["embedding.digit_cos"]
    np.testing.assert_allclose(np.diag(cos), 1.0, atol=1e-12)
    assert all(abs(int(np.argmax(np.where(np.eye(10, dtype=bool)[i], -9, cos[i]))) - i) == 1 for i in range(10)), \
        "the trained digits' nearest neighbours should be the digits next to them"
    assert [abs(int(n) - i) for i, n in enumerate(out["embedding.digit_nearest"])] == [1] * 10
    assert out["embedding.digit_neighbours"][0] == 10


def test_svd_reconstructs_W_E_with_orthonormal_directions(hub, trained_out):
    out = trained_out["svd"]
    W_E = hub.model.W_E.weight.detach().double().numpy()
    np.testing.assert_allclose(out["svd.U"] @ out["svd.Sigma"] @ out["svd.V"].T, W_E, atol=1e-10)
    np.testing.assert_allclose(out["svd.V"].T @ out["svd.V"], np.eye(64), atol=1e-10)
    assert np.all(np.diff(out["svd.S"]) <= 0)
    assert out["svd.energy"][-1] == pytest.approx(1.0)
    coords = out["svd.digit_coords"][:, 0]
    assert coords[9] > coords[5] > coords[0], "the first direction should order the digits"
    S = out["svd.S"]
    # a unit vector along v1 comes out sigma_1 long; halfway between v1 and v2, the root mean square
    np.testing.assert_allclose(out["svd.stretch"], [S[0], np.sqrt((S[0] ** 2 + S[1] ** 2) / 2)], rtol=1e-10)


def test_dot_products_have_variance_d(trained_out):
    out = trained_out["dot_variance"]
    np.testing.assert_allclose(out["dot_variance.raw"], out["dot_variance.d"], rtol=0.15)
    np.testing.assert_allclose(out["dot_variance.scaled"], 1.0, rtol=0.15)


def test_two_linear_maps_collapse_but_not_through_gelu(hub, trained_out):
    out = trained_out["mlp_collapse"]
    mlp = hub.model.blocks[0].mlp
    W_in = mlp.W_in.weight.detach().double().numpy().T
    W_out = mlp.W_out.weight.detach().double().numpy().T
    x = out["mlp_collapse.x"]
    np.testing.assert_allclose(x @ W_in @ W_out, out["mlp_collapse.xW"], atol=1e-9)
    b_in, b_out = mlp.W_in.bias.detach().double().numpy(), mlp.W_out.bias.detach().double().numpy()
    np.testing.assert_allclose((x @ W_in + b_in) @ W_out + b_out, out["mlp_collapse.linear_out"], atol=1e-9)
    assert out["mlp_collapse.gap"].min() > 0.1
    # without GELU the MLP is x·W + b, and b is what the two Linear modules give a zero input
    np.testing.assert_allclose(b_in @ W_out + b_out, out["mlp_collapse.b"], atol=1e-5)


def test_stable_softmax(trained_out):
    out = trained_out["next_token"]
    np.testing.assert_allclose(out["next_token.probs"].sum(-1), 1.0, atol=1e-12)
    assert np.all(out["next_token.shifted"].max(-1) == 0)
    assert np.all(out["next_token.exp_shifted"] <= 1)
    assert np.isinf(out["next_token.exp_big"][0, 4]).all()
    assert np.isnan(out["next_token.naive_big"][0, 4]).all()
    assert out["next_token.shift_gap"].max() < 1e-5
    assert out["next_token.top_ids"][0, 4, 0] == 18    # '1' after '3142>'
    # float32 exp overflows just above ln(3.4e38) = 88.72: the first whole shift past it
    high = out["next_token.top_logits"][..., 0]
    np.testing.assert_array_equal(out["next_token.overflow_shift"], np.ceil(88.7228391 - high))
    np.testing.assert_allclose(out["next_token.low_logit"], out["next_token.shifted"].min(-1) + high, atol=1e-5)


def test_temperature_divides_the_real_logits(hub, trained_out):
    out = trained_out["temperature"]
    with torch.no_grad():
        z = hub.model(torch.tensor([CharTokenizer().encode(TEXT)]))[0, -1].double().numpy()
    for T, row in zip(out["temperature.T"], out["temperature.probs"]):
        expected = np.exp(z / T - np.max(z / T))
        np.testing.assert_allclose(row, expected / expected.sum(), atol=1e-9)
    assert len(set(out["temperature.winner"].tolist())) == 1
    assert out["temperature.top"][-1] == pytest.approx(1 / V, abs=0.001)
    assert np.all(np.diff(out["temperature.top"]) <= 1e-12)
    assert out["temperature.hot_change"][0] == pytest.approx(out["temperature.top"][3] - out["temperature.top"][1])
    second = np.sort(out["temperature.probs"], axis=-1)[:, -2]                               # (5,)
    np.testing.assert_allclose(out["temperature.lead"], out["temperature.top"] / second)
    np.testing.assert_allclose(out["temperature.lead"][2], np.sqrt(out["temperature.lead"][1]))   # ratio ** (1/T)
    np.testing.assert_allclose(out["temperature.low"], out["temperature.probs"].min(axis=-1))
    # at T = even_T the favourite is exactly twice the least likely token: (top/low at T = 1) ** (1/T) = 2
    ratio = out["temperature.top"][1] / out["temperature.low"][1]
    assert ratio ** (1 / out["temperature.even_T"][0]) == pytest.approx(2.0)


def test_nll_is_minus_log_p_of_the_true_token(hub):
    out = run("nll", context(hub.model, [TEXT, WRONG]))
    np.testing.assert_allclose(out["nll.loss"], -np.log(out["nll.p_true"]), atol=1e-9)
    np.testing.assert_array_equal(out["nll.scored"], [[0, 0, 0, 0, 1, 1, 1, 1]] * 2)
    scored = out["nll.scored"] == 1
    assert out["nll.mean"][0] == pytest.approx(out["nll.loss"][scored].mean())
    np.testing.assert_allclose(out["nll.answer_prob"][:, 0], np.prod(np.where(scored, out["nll.p_true"], 1), axis=1))
    # the chain rule in logs: log P of the first j+1 next tokens is the sum of their logs
    np.testing.assert_allclose(out["nll.cum_logp"], np.cumsum(np.log(out["nll.p_true"]), axis=1), atol=1e-9)
    assert out["nll.loss"][0, 4:8].max() < 0.01                    # confident and right
    assert out["nll.loss"][1, 6] > 8 > out["nll.random_loss"][1, 6]  # confident and wrong costs more than ignorance
    assert out["nll.random_mean"][0] == pytest.approx(math.log(V), abs=0.2)
    # perplexity is e to the trainer's loss, the mean over both rows' scored targets
    for prefix in ("nll.", "nll.random_"):
        assert out[prefix + "perplexity"][0] == pytest.approx(math.exp(out[prefix + "loss"][scored].mean()))


def test_autoregressive_edit_changes_only_the_last_position(trained_out):
    change = trained_out["autoregressive"]["autoregressive.change"][0]
    assert np.all(change[:-1] == 0) and change[-1] > 0


def test_the_edit_changes_only_the_last_factor_though_its_logits_stay(trained_out):
    """pr-autoregressive's trap: the last factor changes through its target, not through its logits."""
    factor = trained_out["autoregressive"]["autoregressive.factor_change"][0]       # (L-1,)
    change = trained_out["autoregressive"]["autoregressive.change"][0]              # (L,)
    assert np.all(factor[:-1] == 0) and factor[-1] > 0
    assert change[-2] == 0   # the position that scores the last factor saw no change in its logits


def test_token_by_token_factors_through_the_kv_cache_match_the_one_pass_probabilities(trained_out):
    """pr-autoregressive multiplies generation's own factors and compares them with one forward pass."""
    step_p = trained_out["autoregressive"]["autoregressive.step_p"]
    one_pass = trained_out["nll"]["nll.p_true"][0]
    np.testing.assert_allclose(step_p, one_pass, atol=1e-5)
    assert not np.array_equal(step_p, one_pass)   # another code path: equal only to float32 rounding


def test_ce_grad_is_p_minus_y_over_n_and_chains_into_W_U(hub):
    out = run("ce_grad", context(hub.model, [WRONG]))
    N = out["ce_grad.N"][0]
    assert N == 4
    expected = (out["ce_grad.probs"] - out["ce_grad.onehot"]) / N * out["ce_grad.scored"][..., None]
    np.testing.assert_allclose(out["ce_grad.dlogits"], expected, atol=1e-12)
    np.testing.assert_allclose(out["ce_grad.dlogits"].sum(-1), 0, atol=1e-12)
    assert out["ce_grad.dlogits"][0, 6, 20] == pytest.approx(0.25, abs=0.01)
    assert out["ce_grad.dlogits"][0, 6, 21] == pytest.approx(-0.25, abs=0.01)
    np.testing.assert_allclose(out["ce_grad.x_final"][0].T @ out["ce_grad.dlogits"][0], out["ce_grad.dW_U"], atol=1e-12)
    np.testing.assert_allclose(np.linalg.norm(out["ce_grad.dW_U"], axis=0), out["ce_grad.dW_U_norm"], atol=1e-12)
    W_U = hub.model.W_U.weight.detach().double().numpy().T                 # (D, V)
    np.testing.assert_allclose(out["ce_grad.dlogits"][0] @ W_U.T, out["ce_grad.dx_final"][0], atol=1e-12)
    nll = run("nll", context(hub.model, [WRONG]))
    assert out["ce_grad.loss"][0] == pytest.approx(nll["nll.mean"][0], rel=1e-6)
    # one step before the logits: dL/dp = -y / (N p), zero off the scored targets, and huge where p_t is tiny
    probs, onehot = out["ce_grad.probs"], out["ce_grad.onehot"]
    np.testing.assert_allclose(out["ce_grad.dprobs"], -onehot / (N * probs), rtol=1e-9, atol=0)
    assert abs(out["ce_grad.dprobs"][0, 6, 21]) > 1000 * np.linalg.norm(out["ce_grad.dlogits"][0, 6])


def test_ce_grad_at_a_temperature_is_the_softmax_gap_over_n_t(hub):
    """ca-softmax-ce-grad's logit-grad-row-temp: autograd through logits / T gives (q − y)/(N·T) with
    q = softmax(z/T), not the T = 1 row: the 1/T the learner must find is in the data."""
    out = run("ce_grad", context(hub.model, [WRONG]))
    N, T = out["ce_grad.N"][0], out["ce_grad.T"][0]
    assert T == 2
    q, onehot, scored = out["ce_grad.probs_T"], out["ce_grad.onehot"], out["ce_grad.scored"][..., None]
    np.testing.assert_allclose(q.sum(-1), 1, atol=1e-12)
    np.testing.assert_allclose(out["ce_grad.dlogits_T"], (q - onehot) / (N * T) * scored, atol=1e-12)
    assert not np.allclose(out["ce_grad.dlogits_T"], out["ce_grad.dlogits"], atol=1e-6)


def test_finite_differences_match_backward_and_the_gradient_is_steepest(small):
    out = run("finite_diff", context(small, [TEXT]))
    fd = (out["finite_diff.loss_plus"] - out["finite_diff.loss_minus"]) / (2 * out["finite_diff.h"][0])
    np.testing.assert_allclose(fd, out["finite_diff.partial"], atol=1e-6)
    gain = out["finite_diff.gain"]
    assert int(np.argmax(gain)) == 0 and gain[0] > 10 * np.abs(gain[1:]).max()
    # ca-gradient's largest-rise: a step of 1e-3 along the unit gradient changes the loss by 1e-3 * |grad|
    assert gain[0] / 1e-3 == pytest.approx(out["finite_diff.grad_norm"][0], rel=0.02)
    # ca-gradient's random-cosine: the cosines come from the directions, and the gains follow them
    cosine, n = out["finite_diff.cosine"], out["finite_diff.n_params"][0]
    assert cosine[0] == pytest.approx(1.0) and n == sum(p.numel() for p in small.parameters())
    np.testing.assert_allclose(gain, 1e-3 * out["finite_diff.grad_norm"][0] * cosine, atol=0.05 * gain[0])
    assert np.abs(cosine[1:]).max() < 5 / np.sqrt(n)    # random directions in n dimensions: |cos| ~ 1/sqrt(n)


def test_minibatch_costs_follow_rows_and_its_error_shrinks_with_the_batch(small):
    """op-minibatch: a batch of b of the 64 rows costs b/64 of a full pass (counted), its expected
    error falls with b as sqrt((N - b) / (b (N - 1))) and is 0 for the whole set, whose cosine is 1."""
    out = run("minibatch", context(small, [TEXT]))
    np.testing.assert_array_equal(out["minibatch.sizes"], [1, 4, 16, 64])
    np.testing.assert_allclose(out["minibatch.cost_ratio"], [64, 16, 4, 1])
    error = out["minibatch.error"]
    assert error[0] > error[1] > error[2] > error[3] == 0
    shrink = np.sqrt((64 - out["minibatch.sizes"]) / (out["minibatch.sizes"] * 63))
    np.testing.assert_allclose(error, error[0] * shrink, rtol=1e-9)
    assert out["minibatch.draw_cos"][3] == pytest.approx(1.0) and out["minibatch.draw_cos"][0] < 1


def test_autograd_accumulates_and_skips_unused_rows(small):
    out = run("autograd", context(small, [TEXT]))
    assert out["autograd.grad_before"][0] == 1
    np.testing.assert_allclose(out["autograd.twice"], 2 * out["autograd.once"], atol=1e-15)
    np.testing.assert_allclose(out["autograd.then_triple"], 5 * out["autograd.once"], atol=1e-14)
    np.testing.assert_allclose(out["autograd.scaled"], 3 * out["autograd.once"], atol=1e-14)   # ca-autograd's box
    ids = set(CharTokenizer().encode(TEXT[:8]))                            # what the scored predictions see
    assert set(np.nonzero(out["autograd.W_E_rows"])[0].tolist()) == ids
    rows = out["autograd.W_pos_rows"]
    assert rows[-1] == 0 and np.all(rows[:-1] > 0)


def test_a_row_looked_up_twice_gets_the_sum_of_its_two_positions_gradients(small):
    """la-embedding-lookup's evidence: dL/dW_E[t] = Σ over t's positions of dL/dX (torch's scatter-add)."""
    out = run("autograd", context(small, ["3142>1234"]))
    dX, grad = out["autograd.dX"][0], out["autograd.W_E_grad"]                  # (L, D), (V, D)
    one = CharTokenizer().encode("1")[0]
    np.testing.assert_allclose(grad[one], dX[1] + dX[5], atol=1e-15)
    assert not np.allclose(grad[one], dX[1]) and not np.allclose(grad[one], (dX[1] + dX[5]) / 2)
    np.testing.assert_allclose(np.linalg.norm(grad, axis=-1), out["autograd.W_E_rows"])


def test_vanish_products_of_derivatives(trained_out):
    out = trained_out["vanish"]
    s = 1 / (1 + np.exp(-out["vanish.pre"]))
    np.testing.assert_allclose(out["vanish.sigmoid_grad"], s * (1 - s), atol=1e-12)
    assert out["vanish.sigmoid_grad"].max() <= 0.25
    assert out["vanish.gelu_grad"].max() > 1
    assert np.all(out["vanish.sigmoid_chain"] <= out["vanish.bound"] + 1e-15)
    assert out["vanish.sigmoid_chain"][0] == pytest.approx(0.25)
    n = np.arange(1, 13)
    np.testing.assert_allclose(out["vanish.linear_chain"], [0.5 ** n, 1.5 ** n], rtol=1e-12)


def test_gradient_descent_step_and_learning_rates(small):
    out = run("gradient_descent", context(small, [TEXT]))
    W_U = small.W_U.weight.detach().double().numpy().T
    np.testing.assert_allclose(W_U - 1.0 * out["gradient_descent.grad_W_U"], out["gradient_descent.W_U_after"],
                               atol=1e-6)
    curves = out["gradient_descent.curves"]
    assert curves[0, 0] == pytest.approx(math.log(V), abs=0.1)
    assert curves[0, 0] > curves[0, -1] > 3.5                              # lr 0.01 crawls
    assert curves[1, -1] < 0.1                                             # lr 1 learns
    assert np.isinf(curves[2, -1])                                         # lr 10 diverges
    assert int(np.argmin(curves[:, -1])) == 1


def test_momentum_buffer_and_mini_batches(small):
    rows = ["3142>1234", "8150>0158", "7363>3367", "2209>0229"]
    out = run("momentum", context(small, rows))
    np.testing.assert_allclose(out["momentum.row_grads"].mean(axis=1, keepdims=True), out["momentum.full_grad"],
                               atol=1e-12)
    assert np.all(out["momentum.row_cos"] < 0.99)
    grads, buffers = out["momentum.grads"], out["momentum.buffers"]
    np.testing.assert_allclose(buffers[0], grads[0], atol=1e-15)
    for k in range(1, len(grads)):
        np.testing.assert_allclose(buffers[k], 0.9 * buffers[k - 1] + grads[k], atol=1e-12)
    expected = np.cumsum(0.9 ** np.arange(100))
    np.testing.assert_allclose(out["momentum.const_ratio"], expected, rtol=1e-12)
    assert out["momentum.buffer_cos"].mean() > out["momentum.grad_cos"].mean()


def test_adam_moments_match_a_hand_computation(small):
    out = run("adam", context(small, [TEXT]))
    b1, b2, lr, eps = 0.9, 0.99, out["adam.lr"][0], 1e-8
    m = np.zeros(8)
    v = np.zeros(8)
    for g in out["adam.grads"]:
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g ** 2
    np.testing.assert_allclose(out["adam.exp_avg"], m, rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(out["adam.exp_avg_sq"], v, rtol=1e-5, atol=1e-14)
    np.testing.assert_allclose(out["adam.correction"], [1 / (1 - b1 ** 3), 1 / (1 - b2 ** 3)])
    np.testing.assert_allclose(out["adam.m_hat"], m / (1 - b1 ** 3), rtol=1e-5, atol=1e-12)
    np.testing.assert_allclose(out["adam.v_hat"], v / (1 - b2 ** 3), rtol=1e-5, atol=1e-14)
    np.testing.assert_allclose(out["adam.first_ratio"], 0.1, rtol=1e-5)
    g1 = out["adam.grads"][0]
    np.testing.assert_allclose(out["adam.first_step"], -lr * g1 / (np.abs(g1) + eps), rtol=1e-4)
    np.testing.assert_allclose(out["adam.first_move"], lr, rtol=1e-3)
    np.testing.assert_allclose(out["adam.first_move_in_lr"], 1.0, rtol=1e-3)


def test_lr_schedule_is_the_trainers(trained_out):
    out = trained_out["lr_schedule"]
    config = TrainConfig(steps=1500)
    np.testing.assert_allclose(out["lr_schedule.curve"], [lr_at(s, config) for s in range(1500)])
    np.testing.assert_allclose(out["lr_schedule.warmup"], 3e-3 * (out["lr_schedule.warmup_steps"] + 1) / 100)
    p = out["lr_schedule.progress"]
    np.testing.assert_allclose(out["lr_schedule.cosine"], 3e-4 + (3e-3 - 3e-4) * (1 + np.cos(np.pi * p)) / 2)
    assert out["lr_schedule.cosine"][-1] == pytest.approx(3e-4)


def test_landscape_lines(hub, trained_out):
    out = trained_out["landscape"]
    loss_here = run("nll", context(hub.model, [TEXT]))["nll.mean"][0]
    assert out["landscape.line"][10] == pytest.approx(loss_here, rel=1e-4, abs=1e-9)
    assert out["landscape.path"][-1] == pytest.approx(loss_here, rel=1e-4, abs=1e-9)
    assert out["landscape.path"][0] == pytest.approx(math.log(V), abs=0.2)
    assert int(np.argmin(out["landscape.line"])) == 10
    path = out["landscape.path"]
    np.testing.assert_allclose(out["landscape.bend"], path[:-2] + path[2:] - 2 * path[1:-1])
    assert out["landscape.bend"].min() < 0, "the path from init to trained weights is not convex"


@pytest.fixture(scope="module")
def catalog():
    from tutor.course.catalog import load_catalog

    return load_catalog()


@pytest.mark.parametrize("lesson_id", [
    "la-tensors", "la-embedding-lookup", "la-one-hot-vs-dense", "la-qkv-projection", "la-scaled-scores",
    "la-multi-head", "la-ffn-shapes", "la-linear-composition", "la-svd",
    "pr-softmax", "pr-masked-softmax", "pr-softmax-stability", "pr-temperature", "pr-autoregressive",
    "pr-cross-entropy", "pr-confident-wrong",
    "ca-gradient", "ca-chain-rule", "ca-softmax-ce-grad", "ca-autograd", "ca-vanishing-exploding",
    "op-gradient-descent", "op-sgd-momentum", "op-adam", "op-lr-schedule"])   # op-landscape's bend is only shown
def test_lesson_formula_agrees_with_the_model(hub, catalog, lesson_id):
    from tutor.live.formula_check import check_formula
    from tutor.live.compute import compute_live
    from tutor.grading.quiz import truth_for

    lesson = catalog.get(lesson_id).lesson
    live = compute_live(lesson, hub)
    check = check_formula(lesson.formula, live.tensors, live.sizes)
    assert check.ok and check.max_error is not None, check.message
    for question in lesson.questions:
        truth_for(question, live.tensors, live.sizes)   # every question can be answered


def test_attention_backward_gives_dv_and_the_softmax_jacobian(hub):
    """dL/dv and dL/dscores come from autograd; the closed forms a lesson asks for must match them."""
    out = run("attn_grad", context(hub.model, [WRONG, WRONG]))
    A, V, dz = out["attn_grad.A"], out["attn_grad.V"], out["attn_grad.dz_heads"]      # (B, H, L, ·)
    assert A.shape == (2, 4, 9, 9) and V.shape == dz.shape == out["attn_grad.dv_heads"].shape == (2, 4, 9, 16)
    np.testing.assert_allclose(np.swapaxes(A, -1, -2) @ dz, out["attn_grad.dv_heads"], atol=1e-12)
    dA = dz @ np.swapaxes(V, -1, -2)                                          # (B, H, L, L)
    np.testing.assert_allclose(A * (dA - (A * dA).sum(-1, keepdims=True)), out["attn_grad.dS"], atol=1e-12)
    assert np.all(out["attn_grad.dS"][..., np.triu_indices(9, 1)[0], np.triu_indices(9, 1)[1]] == 0)  # masked keys
    assert np.abs(out["attn_grad.dS"]).max() > 1e-3                          # a real signal, not zeros
    # ca-attention-dq: through S = Q·Kᵀ/√d_k into the queries and keys, checked against backward()'s own
    Q, K, dS = out["attn_grad.Q"], out["attn_grad.K"], out["attn_grad.dS"]          # (B, H, L, D_head), (B, H, L, L)
    np.testing.assert_allclose(dS @ K / np.sqrt(16), out["attn_grad.dq_heads"], atol=1e-10)
    np.testing.assert_allclose(np.swapaxes(dS, -1, -2) @ Q / np.sqrt(16), out["attn_grad.dk_heads"], atol=1e-10)
    X = out["attn_grad.x"].reshape(2, 9, -1)                                 # (B, L, D)
    head0 = sum(X[b].T @ out["attn_grad.dq_heads"][b, 0] for b in range(2))  # (D, D_head): Xᵀ·dQ of head 0
    assert out["attn_grad.dW_Q_head0"].shape == (64, 16)
    np.testing.assert_allclose(out["attn_grad.dW_Q_head0"], head0, atol=1e-10)
    np.testing.assert_allclose(out["attn_grad.dW_Q_head0"], out["attn_grad.dW_Q"][:, :16], atol=0)
    # ca-backprop-attention input-grad: x feeds q, k and v, and its gradient is the sum of the three paths
    W = {name: hub.model.blocks[0].attn.__getattr__(name).weight.detach().double().numpy().T for name in ("W_Q", "W_K", "W_V")}
    paths = out["attn_grad.dq"] @ W["W_Q"].T + out["attn_grad.dk"] @ W["W_K"].T + out["attn_grad.dv"] @ W["W_V"].T
    np.testing.assert_allclose(paths, out["attn_grad.dx"], atol=1e-10)
    assert np.abs(out["attn_grad.dv"] @ W["W_V"].T).max() > 1e-3 and np.abs(out["attn_grad.dk"] @ W["W_K"].T).max() > 1e-3


def test_saddle_walks_from_fresh_to_trained_weights(hub):
    """The path's endpoints are the fresh and the trained loss; at its top the loss curves down
    along the path while some random direction curves up: both signs, a saddle."""
    out = run("saddle", context(hub.model, [TEXT]))
    assert out["saddle.t"].shape == out["saddle.loss"].shape == out["saddle.grad_norm"].shape == (11,)
    assert out["saddle.loss"][0] == pytest.approx(math.log(V), abs=0.2) and out["saddle.loss"][-1] < 0.01
    top = int(round(out["saddle.top"][0] * 10))
    assert 0 < top < 10 and out["saddle.loss"][top] > out["saddle.loss"][top - 1]
    assert out["saddle.path_curv"][0] < 0 < out["saddle.random_curv"].max()
    assert out["saddle.down_count"][0] == (out["saddle.random_curv"] < 0).sum()
    # the loss's own finite difference in t is the unit-direction curvature times the path's length squared
    length = out["saddle.length"][0]
    assert length > 1
    assert out["saddle.t_curv"][0] == pytest.approx(out["saddle.path_curv"][0] * length ** 2, rel=0.01)
    norms = out["saddle.grad_norm"]
    assert out["saddle.top_grad"][0] == norms[top]
    assert out["saddle.gain"][0] == pytest.approx((norms.max() / norms[0]) ** 2)


def test_order_scores_each_row_whole_and_their_gap(hub):
    """pr-sequence-order grades e^(Σ log p − Σ log q) against this ratio, taken from the loss, not from p."""
    out = run("order", context(hub.model, [TEXT, "1234>3142"]))
    nll = run("nll", context(hub.model, [TEXT, "1234>3142"]))
    np.testing.assert_allclose(out["order.logp"], nll["nll.cum_logp"][:, -1], atol=1e-9)
    logs = np.log(nll["nll.p_true"]).sum(-1)                                  # (2,)
    assert out["order.gap"][0] == pytest.approx(logs[0] - logs[1], abs=1e-6)
    assert out["order.ratio"][0] == pytest.approx(math.exp(out["order.gap"][0]), rel=1e-9)
    with pytest.raises(ValueError, match="two rows"):
        run("order", context(hub.model, [TEXT]))
