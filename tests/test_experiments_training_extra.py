"""The training-side experiments of the deeper curriculum: clipping, mixed precision, curvature,
label smoothing, the KL penalty, dynamic graphs and the real learning-rate run.  Each test checks
the identity its lesson teaches, on the trained model or a small random one."""
import math

import numpy as np
import pytest
import torch
import torch.nn.functional as F

from conftest import experiment_context as context
from tutor.experiments import EXPERIMENTS
from tutor.model import GPT, GPTConfig
from tutor.model.train import TrainConfig, lr_at

NAMES = ["clipping", "mixed_precision", "curvature", "label_smoothing", "kl_penalty", "graphs", "lr_run"]
SORTED = ["3142>1234", "9075>0579"]
WRONG = ["3142>9999", "9075>1111"]


def small_model(seed=0, **config):
    torch.manual_seed(seed)
    return GPT(GPTConfig(**({"n_layer": 1, "n_head": 2, "d_model": 8} | config))).eval()


@pytest.fixture(scope="module")
def out(hub):
    """Every experiment on the trained model (test_experiments_registry checks it is left as it was)."""
    model = hub.model
    result = {name: EXPERIMENTS[name](context(model, SORTED)) for name in NAMES}
    result["clipping_wrong"] = EXPERIMENTS["clipping"](context(model, WRONG))
    result["kl_hedging"] = EXPERIMENTS["kl_penalty"](context(model, ["3142"]))
    return result


def test_clipping_caps_the_global_norm_at_the_trainers_threshold(out):
    for clip in (out["clipping"], out["clipping_wrong"]):
        before, after = clip["clipping.norm_before"][0], clip["clipping.norm_after"][0]
        assert clip["clipping.max_norm"][0] == TrainConfig().grad_clip
        assert after == pytest.approx(min(before, 1.0), rel=1e-5)
        np.testing.assert_allclose(clip["clipping.tensor_after"], clip["clipping.tensor_before"] * clip["clipping.factor"][0],
                                   rtol=1e-5, atol=1e-12)
        assert math.sqrt((clip["clipping.tensor_before"] ** 2).sum()) == pytest.approx(before, rel=1e-5)
    assert out["clipping_wrong"]["clipping.norm_before"][0] > 1 > out["clipping"]["clipping.norm_before"][0]


def test_clipping_by_value_turns_the_gradient_of_a_ten_times_larger_loss(out):
    """Entry-wise clipping caps more entries of 10·g than of g, so the two clipped vectors point apart."""
    for clip in (out["clipping"], out["clipping_wrong"]):
        assert -1.0 <= clip["clipping.value_cos"][0] <= 1.0 + 1e-12
    assert out["clipping_wrong"]["clipping.value_cos"][0] < 0.999


def test_clipping_leaves_adams_first_step_almost_as_it_was(out):
    """A clipped gradient is a shorter gradient, not a shorter AdamW step: the factor cancels in m/√v."""
    clip = out["clipping_wrong"]
    assert clip["clipping.factor"][0] < 0.5
    assert clip["clipping.adam_ratio"][0] == pytest.approx(1.0, abs=0.05)
    assert clip["clipping.adam_cos"][0] > 0.95
    assert clip["clipping.adam_ratio"].shape == clip["clipping.adam_cos"].shape == (3,)


def test_mixed_precision_leaves_out_float64_round_off(out):
    """contentB #11: the W_K biases' gradients (exactly 0 in exact arithmetic, ~1e-24 in float64) are not
    counted as small real gradients: every kept entry is above 1e-12 of the largest."""
    mp = out["mixed_precision"]
    assert mp["mixed_precision.smallest"][0] > 1e-12 * mp["mixed_precision.largest"][0]
    assert abs(mp["mixed_precision.example"][0]) == mp["mixed_precision.smallest"][0]


def test_mixed_precision_counts_agree_with_the_formats(out):
    mp = out["mixed_precision"]
    assert mp["mixed_precision.zero_bf16"][0] == 0
    assert mp["mixed_precision.zero_scaled"][0] <= mp["mixed_precision.zero_fp16"][0]
    assert mp["mixed_precision.inf_scaled"][0] == 0
    assert mp["mixed_precision.max"][0] == 65504 and mp["mixed_precision.tiny"][0] == 2.0 ** -14
    assert mp["mixed_precision.subnormal"][0] == 2.0 ** -24
    assert mp["mixed_precision.rel_err_bf16"][0] <= 2.0 ** -8
    # float16's worst kept gradient is a subnormal rounded up from just above 2⁻²⁵ (nu-mixed-precision fp16-worst)
    assert 2.0 ** -11 < mp["mixed_precision.rel_err_fp16"][0] <= 1.0
    assert mp["mixed_precision.unscale_error"][0] <= 2.0 ** -11
    example = torch.tensor(mp["mixed_precision.example"])
    np.testing.assert_array_equal(mp["mixed_precision.example_fp16"], example.half().double().numpy())
    np.testing.assert_array_equal(mp["mixed_precision.example_bf16"], example.bfloat16().double().numpy())
    assert mp["mixed_precision.normal_fp16"][0] + mp["mixed_precision.subnormal_fp16"][0] + \
        mp["mixed_precision.zero_fp16"][0] == mp["mixed_precision.n"][0]


def test_mixed_precision_scale_all_is_the_smallest_power_of_two_saving_every_gradient(out):
    """nu-mixed-precision scale-for-all: S saves the smallest |g| from 0 in float16, S/2 does not."""
    mp = out["mixed_precision"]
    scale, smallest = mp["mixed_precision.scale_all"][0], torch.tensor(mp["mixed_precision.smallest"][0])
    assert float(scale).is_integer() and math.log2(scale).is_integer()
    assert float((smallest * scale).half()) != 0 and (scale == 1 or float((smallest * scale / 2).half()) == 0)
    example = torch.tensor(mp["mixed_precision.example"])
    np.testing.assert_array_equal(mp["mixed_precision.example_scaled_all"], (example * scale).half().double().numpy() / scale)
    assert (mp["mixed_precision.example_scaled_all"] != 0).all()


def test_curvature_hessian_vector_product_matches_finite_differences(out):
    cv = out["curvature"]
    assert cv["curvature.uHu"][0] == pytest.approx(cv["curvature.fd"][0], rel=0.05)
    assert cv["curvature.predicted"][0] == pytest.approx(cv["curvature.actual"][0], rel=1e-4)
    assert cv["curvature.predicted_drop"][0] == pytest.approx(cv["curvature.actual_drop"][0], rel=0.01)
    assert cv["curvature.stable_lr"][0] == pytest.approx(2 / cv["curvature.lambda_max"][0])
    assert abs(cv["curvature.lambda_max"][0]) >= abs(cv["curvature.uHu"][0]) * 0.99  # the sharpest direction
    assert cv["curvature.line"][2] == pytest.approx(cv["curvature.loss"][0])
    # the best step of the parabola: there the curvature takes back half of the linear gain
    assert cv["curvature.best_eta"][0] == pytest.approx(1 / cv["curvature.uHu"][0])
    linear = cv["curvature.best_eta"][0] * cv["curvature.grad_norm"][0] ** 2
    assert cv["curvature.best_predicted_drop"][0] == pytest.approx(linear / 2)
    assert cv["curvature.best_actual_drop"][0] > 0


def test_curvature_of_a_quadratic_is_exact():
    """On a small random model the HVP along u equals the finite difference to high precision."""
    cv = EXPERIMENTS["curvature"](context(small_model(), ["3142>1234"]))
    assert cv["curvature.uHu"][0] == pytest.approx(cv["curvature.fd"][0], rel=1e-3, abs=1e-6)


def test_label_smoothing_splits_into_hard_and_uniform_parts(out):
    ls = out["label_smoothing"]
    eps = ls["label_smoothing.eps"][0]
    assert ls["label_smoothing.ce_smooth"][0] == pytest.approx(
        (1 - eps) * ls["label_smoothing.ce_hard"][0] + eps * ls["label_smoothing.ce_uniform"][0], rel=1e-9)
    assert ls["label_smoothing.target"].sum() == pytest.approx(1.0)
    assert ls["label_smoothing.on"][0] == pytest.approx(1 - eps + eps / 96)
    target = torch.tensor(ls["label_smoothing.target"])
    assert float(-(target * target.log()).sum()) == pytest.approx(ls["label_smoothing.floor"][0])
    assert ls["label_smoothing.ce_smooth"][0] >= ls["label_smoothing.floor"][0]


def test_label_smoothing_gradient_is_prediction_minus_smoothed_target(out):
    """Autograd's gradient of the smoothed loss is what the lesson's formula question asks for."""
    ls = out["label_smoothing"]
    onehot = ls["label_smoothing.onehot"]
    assert onehot.sum() == 1 and onehot[int(ls["label_smoothing.true"][0])] == 1
    np.testing.assert_allclose(ls["label_smoothing.dlogits"],
                               ls["label_smoothing.probs"] - ls["label_smoothing.target"], atol=1e-12)


def test_kl_penalty_is_the_closed_form_optimum(out):
    kl = out["kl_hedging"]
    p, betas = kl["kl_penalty.p_ref"][0], kl["kl_penalty.betas"]
    expected = p * np.exp(1 / betas) / (p * np.exp(1 / betas) + 1 - p)
    np.testing.assert_allclose(kl["kl_penalty.p_rewarded"], expected, rtol=1e-9)
    assert (np.diff(kl["kl_penalty.kl"]) < 0).all(), "a stronger penalty keeps the policy closer"
    np.testing.assert_allclose(kl["kl_penalty.objective"], betas * kl["kl_penalty.log_z"], rtol=1e-9)
    np.testing.assert_allclose(kl["kl_penalty.policy"].sum(-1), 1.0)
    ref = kl["kl_penalty.ref"]
    assert kl["kl_penalty.rewarded"][0] == np.argsort(-ref)[1]


def test_kl_penalty_climbing_the_objective_finds_the_closed_form(out):
    """kl_penalty.ascent is found numerically, so it-kl-penalty's formula check is not its own arithmetic."""
    kl = out["kl_hedging"]
    np.testing.assert_allclose(kl["kl_penalty.ascent"], kl["kl_penalty.policy"][2], atol=1e-5)


def test_dynamic_graph_grows_by_block_not_by_length(out):
    gr = out["graphs"]
    nodes = gr["graphs.nodes"]
    assert nodes.tolist() == [nodes[0] + k * gr["graphs.per_block"][0] for k in range(3)]
    assert gr["graphs.nodes_long"][0] == nodes[-1]
    assert gr["graphs.length_long"][0] == 2 * gr["graphs.length"][0]


def test_a_reused_block_records_its_operations_again_and_its_weights_once(out):
    """ca-dynamic-graphs tied-block: block 0 applied twice records its operations twice, its weights once."""
    gr = out["graphs"]
    assert gr["graphs.block_weights"][0] > 0
    assert gr["graphs.nodes_tied"][0] == gr["graphs.nodes"][-1] - gr["graphs.block_weights"][0]


def test_lr_run_reports_the_trainers_schedule_and_step_decay():
    from tutor.experiments import schedules as s

    run = EXPERIMENTS["lr_run"](context(small_model(), ["3142"]))
    config = TrainConfig(steps=s.RUN_STEPS, lr=s.RUN_LR, warmup_steps=s.RUN_WARMUP, min_lr_ratio=s.RUN_FLOOR)
    np.testing.assert_allclose(run["lr_run.lr"], [lr_at(i, config) for i in range(s.RUN_STEPS)], rtol=1e-12)
    expected = [s.RUN_LR * s.DECAY_GAMMA ** (i // s.DECAY_EVERY) for i in range(s.RUN_STEPS)]
    np.testing.assert_allclose(run["lr_run.step_decay"], expected, rtol=1e-12)
    assert np.isfinite(run["lr_run.loss"]).all()
    assert run["lr_run.progress"][s.RUN_WARMUP] == 0 and run["lr_run.progress"][-1] == 1


def test_init_scale_gradients_grow_most_in_the_block_furthest_from_the_loss():
    """nu-init-scale's gradient question: in a 2-block random model scaled ×50, block 0's weight
    gradients grow by more than block 1's, and both grow; the shared model is left untouched."""
    model = small_model(seed=3, n_layer=2, n_head=4, d_model=64)
    before = [p.detach().clone() for p in model.parameters()]
    out = EXPERIMENTS["init_scale"](context(model, ["31415", "27182"]))
    norms, ratio = out["init_scale.grad_norm"], out["init_scale.grad_ratio"]
    assert norms.shape == (2, 2) and ratio.shape == (2,)
    np.testing.assert_allclose(ratio, norms[1] / norms[0])
    assert (ratio > 1).all() and ratio[0] > ratio[1]
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))
    assert all(p.grad is None for p in model.parameters())


def test_init_scale_unit_sigma_gives_queries_of_std_one():
    """nu-init-scale's unit-sigma question: the queries are linear in W_Q, so drawing W_Q with
    init_scale.unit_sigma instead of 1 gives queries of std exactly 1, and that σ is near 1/√D
    (LayerNorm hands W_Q unit-variance features)."""
    model = small_model(seed=3, n_layer=2, n_head=4, d_model=64)
    out = EXPERIMENTS["init_scale"](context(model, ["31415", "27182"]))
    sigma = float(out["init_scale.unit_sigma"][0])
    np.testing.assert_allclose((out["init_scale.q"] * sigma).std(ddof=1), 1.0, rtol=1e-12)   # torch.std: n - 1
    assert abs(sigma - 1 / np.sqrt(64)) < 0.1 * (1 / np.sqrt(64))
