"""Probes a formula question is graded against come from their own computation, not the answer's (issue 21).

A formula question's truth that its experiment works out with the answer's arithmetic would grade
the learner against a copy of the answer.  Each probe here is computed another way (torch's own
function, a sum taken without the running update), agrees with the answer's arithmetic to rounding,
and is not declared as derived from the symbols its question binds.
"""
import numpy as np
import pytest

from conftest import experiment_context as context
import tutor.experiments  # noqa: F401  (registers every experiment and its derived outputs)
from tutor.authoring.check import KNOWN_SIZES
from tutor.authoring.formula_provenance import redone_in_questions
from tutor.experiments import EXPERIMENTS
from tutor.grading.kinds.formula import FormulaQuestion


def formula_question(answer, probe, **bind):
    return FormulaQuestion(id="q", kind="formula", prompt="p", answer=answer, bind=bind, probe=probe)


def test_a_formula_question_graded_against_its_own_arithmetic_is_reported():
    circular = formula_question("l1 * exp(m1 - m) + l2 * exp(m2 - m)", "flash.l[1]", l1="flash.l[0]",
                                m1="flash.m[0]", l2="flash.tile_sum[1]", m2="flash.tile_max[1]", m="flash.m[1]")
    independent = formula_question("l1 * exp(m1 - m) + l2 * exp(m2 - m)", "flash.l_direct[1]", l1="flash.l[0]",
                                   m1="flash.m[0]", l2="flash.tile_sum[1]", m2="flash.tile_max[1]", m="flash.m[1]")
    found = redone_in_questions([independent, circular], KNOWN_SIZES)
    assert [index for index, _ in found] == [1] and "flash.l[1]" in found[0][1]


def test_qk_cosines_are_torchs_and_equal_the_dot_products_over_the_lengths(hub):
    from tutor.model import run_with_probes

    ctx = context(hub.model, ["3142>1243"])
    out = EXPERIMENTS["qk_geometry"](ctx)
    _, probes = run_with_probes(hub.model, ctx.tokens)
    q, k = (probes[f"blocks.0.attn.{n}"].double().numpy() for n in "qk")   # (B, H, L, D_head) each
    expected = (q @ k.swapaxes(-1, -2)) / (out["qk_geometry.q_len"] * out["qk_geometry.k_len"])   # (B, H, L, L)
    np.testing.assert_allclose(out["qk_geometry.cos"], expected, atol=1e-6)
    rounded = np.concatenate([out["qk_geometry.Q2"].ravel(), out["qk_geometry.K2"].ravel()])
    assert not np.signbit(rounded[rounded == 0]).any()                         # never printed as -0.0


def test_flash_sum_taken_at_once_equals_the_running_sum_after_every_tile(hub):
    out = EXPERIMENTS["flash"](context(hub.model, ["3142>1243"]))
    np.testing.assert_allclose(out["flash.l_direct"], out["flash.l"], rtol=1e-12)
    assert len(out["flash.l_direct"]) == 3                                     # 9 keys in tiles of 4


def test_bigram_loglik_by_cross_entropy_on_log_counts_is_the_chain_rule_product(hub):
    text = hub.named("text")
    out = EXPERIMENTS["bigram"](context(text.model, ["in th", "which"]))
    chain = np.log(out["bigram.first_p"]) + np.log(out["bigram.pair_p"]).sum(axis=-1)
    np.testing.assert_allclose(out["bigram.loglik"], chain, rtol=1e-10)
    assert np.all(np.isfinite(out["bigram.loglik"])) and np.all(out["bigram.loglik"] < 0)


@pytest.mark.parametrize("lesson_probe", ["qk_geometry.cos", "bigram.loglik", "flash.l_direct", "nll.loss",
                                          "beam.seq_logprob", "embedding.digit_cos", "decoding_compare.logprob"])
def test_the_probes_lessons_compare_with_are_not_declared_derived(lesson_probe):
    from tutor.experiments.registry import DERIVED_FROM

    assert lesson_probe not in DERIVED_FROM


def test_torchs_attention_with_identity_values_returns_the_masked_softmax_and_zero_for_empty_rows():
    import torch

    from tutor.experiments.common import attention_weights

    generator = torch.Generator().manual_seed(0)
    q, k = (torch.randn(1, 2, 4, 3, generator=generator, dtype=torch.float64) for _ in range(2))   # (B, H, L, D_head)
    allowed = torch.ones(4, 4, dtype=torch.bool).tril()
    allowed[0, 0] = False                                                      # query 0 may see nothing
    scores = q @ k.transpose(-2, -1) / 3 ** 0.5                                # (B, H, L, L)
    expected = torch.softmax(scores.masked_fill(~allowed, float("-inf")), -1).nan_to_num(0.0)
    weights = attention_weights(q, k, allowed)
    torch.testing.assert_close(weights, expected)
    assert (weights[..., 0, :] == 0).all()


@pytest.mark.parametrize("experiment, rows, output, kind", [
    ("kl", ["3142>1234"], "kl.H_pq", "cross-entropy"), ("kl", ["3142>1234"], "kl.KL_qp", "divergence"),
    ("info", ["3142>1234"], "info.entropy", "entropy")])
def test_information_quantities_from_torchs_functions_equal_the_sums_the_formulas_write(hub, experiment, rows, output,
                                                                                          kind):
    out = EXPERIMENTS[experiment](context(hub.model, rows))
    if experiment == "kl":
        p, q = out["kl.p"], out["kl.q"]
        expected = -(p * np.log(q)).sum() if kind == "cross-entropy" else (q * (np.log(q) - np.log(p))).sum()
    else:
        p = out["info.probs"]
        expected = -(p * np.log(np.where(p > 0, p, 1))).sum(-1)
    np.testing.assert_allclose(out[output], np.atleast_1d(expected), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("weights", ["shipped", "fresh"])
def test_the_by_hand_product_needs_the_transpose_and_is_not_all_zeros(hub, weights):
    """la-dot-geometry's 2×2 Q·Kᵀ (tolerance 0.011) refuses Q·K, the product transposed and 0 0 0 0."""
    from tutor.experiments.common import fresh_model

    model = hub.model if weights == "shipped" else fresh_model(hub.model.config, 0)
    out = EXPERIMENTS["qk_geometry"](context(model, ["3142>1243"]))
    q2, k2, truth = out["qk_geometry.Q2"], out["qk_geometry.K2"], out["qk_geometry.QK2"]
    np.testing.assert_allclose(truth, q2 @ k2.T, atol=1e-12)
    for wrong in (q2 @ k2, truth.T, np.zeros_like(truth)):
        assert np.abs(wrong - truth).max() > 0.011
