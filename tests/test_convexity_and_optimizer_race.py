"""The linreg and sgd_adam experiments against independent computations: numpy's least squares and
the closed-form Hessian for the regression, hand-written SGD and Adam updates for the race."""
import numpy as np
import pytest
import torch

from conftest import experiment_context as context
from tutor.course.catalog import load_catalog
from tutor.experiments import EXPERIMENTS
from tutor.grading.quiz import grade, truth_for
from tutor.live.compute import compute_live
from tutor.model import GPT, GPTConfig

ROWS = ["3142>1234", "9075>0579", "2718>1278", "5551>1555", "8260>0268"]


def small_model(d_model, seed=0):
    torch.manual_seed(seed)
    return GPT(GPTConfig(n_layer=1, n_head=2, d_model=d_model)).eval()


@pytest.fixture(scope="module")
def linreg():
    return EXPERIMENTS["linreg"](context(small_model(6), ROWS))


@pytest.fixture(scope="module")
def race():
    return EXPERIMENTS["sgd_adam"](context(small_model(8), ROWS[:3]))


def test_linreg_features_are_standardised_hidden_states_with_a_bias_column(linreg):
    X, y = linreg["linreg.X"], linreg["linreg.y"]
    assert X.shape == (45, 7) and y.shape == (45,)
    np.testing.assert_allclose(X[:, :-1].mean(axis=0), 0, atol=1e-12)
    np.testing.assert_allclose(X[:, :-1].std(axis=0), 1, atol=1e-12)
    assert (X[:, -1] == 1).all()
    np.testing.assert_array_equal(y[:9], np.arange(9))


def test_linreg_closed_form_and_every_descent_agree_with_numpys_least_squares(linreg):
    X, y = linreg["linreg.X"], linreg["linreg.y"]
    best = np.linalg.lstsq(X, y, rcond=None)[0]
    np.testing.assert_allclose(linreg["linreg.w_closed"], best, atol=1e-9)
    for w in linreg["linreg.gd_w"]:
        np.testing.assert_allclose(w, best, atol=1e-9)
    assert linreg["linreg.gd_spread"][0] < 1e-9
    assert linreg["linreg.start_loss"].min() > linreg["linreg.loss_closed"][0] + 1   # the starts were far off
    np.testing.assert_allclose(linreg["linreg.gd_loss"], ((X @ best - y) ** 2).mean(), rtol=1e-12)


def test_linreg_autograd_gradient_and_hessian_match_the_formulas(linreg):
    X, y, n = linreg["linreg.X"], linreg["linreg.y"], len(linreg["linreg.y"])
    w = linreg["linreg.starts"][1]
    np.testing.assert_allclose(linreg["linreg.grad0"], 2 * X.T @ (X @ w - y) / n, atol=1e-12)
    np.testing.assert_allclose(linreg["linreg.hessian"], 2 * X.T @ X / n, atol=1e-12)
    eig = linreg["linreg.hess_eig"]
    assert (np.diff(eig) >= 0).all() and eig[0] > 0.1        # positive definite: more tokens than columns


def test_linreg_two_trained_networks_differ_and_their_midpoint_is_worse(linreg):
    start, end = linreg["linreg.net_start_loss"], linreg["linreg.net_loss"]
    assert (end < start - 1).all() and abs(end[0] - end[1]) > 0.01
    assert linreg["linreg.net_spread"][0] > 1
    assert linreg["linreg.net_mid_loss"][0] > end.max()
    assert linreg["linreg.net_mid_excess"][0] == pytest.approx(linreg["linreg.net_mid_loss"][0] - end.mean())
    assert linreg["linreg.net_mid_over_start"][0] == pytest.approx(linreg["linreg.net_mid_loss"][0] - start.min())


def test_linreg_survives_fewer_tokens_than_features():
    """On the shipped-shape model (D = 64) two rows give 18 tokens for 65 columns: XᵀX is singular."""
    out = EXPERIMENTS["linreg"](context(small_model(64), ROWS[:2]))
    assert abs(out["linreg.hess_eig_min"][0]) < 1e-9
    np.testing.assert_allclose(out["linreg.gd_loss"], out["linreg.gd_loss"][0], atol=1e-6)  # one loss, a valley of w


def test_sgd_adam_first_steps_match_hand_written_updates(race):
    g, lr, eps = race["sgd_adam.grad_W_U"], race["sgd_adam.lr"][0], race["sgd_adam.eps"][0]
    np.testing.assert_allclose(race["sgd_adam.sgd_W_U1"], race["sgd_adam.W_U0"] - lr * g, atol=1e-12)
    np.testing.assert_allclose(race["sgd_adam.adam_step_scaled"], -lr * 1000 * g / (1000 * np.abs(g) + eps), atol=1e-12)
    assert race["sgd_adam.scale_ratio"][0] == pytest.approx(1000, rel=1e-9)
    assert race["sgd_adam.scale_ratio"][1] == pytest.approx(1, abs=1e-4)
    assert race["sgd_adam.step"][1, 0] == pytest.approx(lr * np.sqrt(np.sign(g).astype(bool).sum()), rel=1e-3)  # ε shortens a few steps
    assert race["sgd_adam.matching_lr"][0] == pytest.approx(race["sgd_adam.step"][1, 0] / np.linalg.norm(g), rel=1e-6)


def test_full_step_floor_is_where_adams_scaled_first_step_reaches_099_lr(race):
    """At |g| = the floor, Adam's first step on the loss times 1000 is 0.99 lr exactly; a tenth
    below it, the step is clearly shorter."""
    lr, eps, floor = race["sgd_adam.lr"][0], race["sgd_adam.eps"][0], race["sgd_adam.full_step_floor"][0]
    step = lambda g: lr * 1000 * g / (1000 * g + eps)                       # noqa: E731
    assert step(floor) == pytest.approx(0.99 * lr, rel=1e-12)
    assert step(0.9 * floor) < 0.989 * lr


def test_sgd_adam_curves_start_together_and_adam_wins_at_a_small_common_lr(race):
    curves = race["sgd_adam.curves"]
    assert curves.shape == (2, 31) and curves[0, 0] == curves[1, 0]
    assert race["sgd_adam.final_gap"][0] == pytest.approx(curves[0, -1] - curves[1, -1])
    assert curves[1, -1] < curves[0, -1] - 1
    travel = race["sgd_adam.travel"]
    assert travel.shape == (2, 5)
    assert race["sgd_adam.travel_spread"][0] > 100 * race["sgd_adam.travel_spread"][1]
    assert (travel[1] > 0.1).all() and (travel[1] < 1.0).all()    # about 30 steps of η = 0.01 each


@pytest.mark.parametrize("text", ["2 * X.T @ (X @ w - y) / n", "2/n * (X.T @ X @ w - X.T @ y)", "2 * (w @ X.T @ X - y @ X) / n"])
def test_linear_regression_grades_every_form_of_the_gradient_right(hub, text):
    """y is a vector: a scalar y made X.T @ y an entrywise product, refusing the normal equations' form."""
    lesson = load_catalog().lessons["op-linear-regression"].lesson
    live = compute_live(lesson, hub)
    question = next(q for q in lesson.questions if q.id == "gradient")
    assert grade(question, text, truth_for(question, live.tensors, live.sizes), live.sizes).correct
