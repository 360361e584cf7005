"""The fd_cost experiment: central differences against autograd, and operations counted, not assumed."""
from __future__ import annotations

import pytest
import torch

from conftest import experiment_context
from tutor.experiments import run_experiments
from tutor.live.hub import load_named

TEXT = "31415926535"


@pytest.fixture(scope="module")
def shipped_run():
    model, _, _ = load_named("sort")
    before = {name: t.clone() for name, t in model.state_dict().items()}
    out = run_experiments(["fd_cost"], experiment_context(model, [TEXT]))
    return model, before, out


def test_a_forward_pass_is_two_operations_per_matrix_weight_per_token(shipped_run):
    model, _, out = shipped_run
    matrix_weights = sum(m.weight.numel() for m in model.modules() if isinstance(m, torch.nn.Linear))
    assert out["fd_cost.forward_flops"][0] == 2 * len(TEXT) * matrix_weights
    assert out["fd_cost.backward_ratio"][0] == pytest.approx(2.0)


def test_finite_differences_cost_two_forward_passes_per_entry(shipped_run):
    model, _, out = shipped_run
    assert 1 <= out["fd_cost.n_entries"][0] <= model.config.d_model
    assert out["fd_cost.fd_flops"][0] == 2 * out["fd_cost.n_entries"][0] * out["fd_cost.forward_flops"][0]
    assert out["fd_cost.n_params"][0] == sum(p.numel() for p in model.parameters())
    ratio = 2 * out["fd_cost.n_params"][0] / 3
    assert out["fd_cost.whole_ratio"][0] == pytest.approx(ratio)


def test_the_step_size_trades_truncation_against_rounding(shipped_run):
    _, _, out = shipped_run
    error32, error64, steps = out["fd_cost.error32"], out["fd_cost.error64"], out["fd_cost.h"]
    best32 = int(error32.argmin())
    assert 0 < best32 < len(steps) - 1                        # neither the largest nor the smallest step
    assert error32[best32] < 1e-3 < error32[-1]               # at 1e-8 float32 rounding swamps the difference
    assert out["fd_cost.best_h64"][0] < out["fd_cost.best_h32"][0]
    assert error64.min() < 1e-8                               # float64 gets many more digits right


def test_the_shared_model_is_unchanged(shipped_run):
    model, before, _ = shipped_run
    assert all(torch.equal(before[name], t) for name, t in model.state_dict().items())
    assert all(p.grad is None for p in model.parameters())
