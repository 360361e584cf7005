"""The attention experiments of the deeper curriculum: the padding mask, √d_k on the model's own
scores, and contextual embeddings.  Each test checks the identity its lesson teaches."""
import math

import numpy as np
import pytest
import torch

from conftest import experiment_context as context
from tutor.experiments import EXPERIMENTS
from tutor.experiments.attention_scale import softmax_jacobian_norm
from tutor.model import GPT, GPTConfig

ROWS = ["3142>1234", "9075>0579", "8610>0168"]
NAMES = ["padding", "attn_scale", "contextual"]


@pytest.fixture(scope="module")
def out(hub):
    """Every experiment once on the trained model (test_experiments_registry checks it is left as it was)."""
    return {name: EXPERIMENTS[name](context(hub.model, ROWS)) for name in NAMES}


def test_padding_masks_combine_causal_and_real_keys(out):
    pad = out["padding"]
    length, n_pad = 9, 4
    assert pad["padding.tokens"].shape == (2, length) and pad["padding.n_pad"][0] == n_pad
    assert pad["padding.lengths"].tolist() == [length, length - n_pad]
    assert pad["padding.key_real"][1].tolist() == [0] * n_pad + [1] * (length - n_pad)
    np.testing.assert_array_equal(pad["padding.mask"], pad["padding.causal"][None] * pad["padding.key_real"][:, None])
    assert np.isneginf(pad["padding.masked"][1, :, -1, :n_pad]).all()
    assert pad["padding.empty_rows"][1].sum() == n_pad and pad["padding.empty_rows"][0].sum() == 0


def test_padding_removes_the_pads_from_every_real_query(out):
    pad = out["padding"]
    n_pad = int(pad["padding.n_pad"][0])
    assert np.abs(pad["padding.leak_masked"]).max() == 0
    assert pad["padding.leak"][1, :, n_pad:].min() > 0, "without the padding mask real queries see the pads"
    assert np.abs(pad["padding.leak"][0]).max() == 0                          # row 0 has no pads
    sums = pad["padding.pattern"].sum(-1)                                     # (2, H, L)
    np.testing.assert_allclose(sums[1][:, n_pad:], 1.0, atol=1e-12)
    assert np.abs(pad["padding.pattern"][1][:, :n_pad]).max() == 0            # 0/0 rows are 0, not NaN
    scores = pad["padding.scores"][1, 0, -1, n_pad:]                          # the real keys of the last query
    expected = np.exp(scores - scores.max()) / np.exp(scores - scores.max()).sum()
    np.testing.assert_allclose(pad["padding.pattern"][1, 0, -1, n_pad:], expected, atol=1e-10)


def test_unguarded_softmax_leaves_the_pad_queries_rows_nan_and_matches_the_pattern_elsewhere(out):
    """pr-padding-mask asks what plain softmax makes of a row of only -inf: the output keeps it as is."""
    pad = out["padding"]
    n_pad = int(pad["padding.n_pad"][0])
    raw = pad["padding.unguarded"]                                            # (2, H, L, L)
    assert np.isnan(raw[1, :, :n_pad]).all()                                  # 0/0 on every pad query's row
    np.testing.assert_allclose(raw[1, :, n_pad:], pad["padding.pattern"][1, :, n_pad:], atol=1e-6)
    np.testing.assert_allclose(raw[0], pad["padding.pattern"][0], atol=1e-6)


def test_padding_keeps_row0_and_reads_the_models_own_scores(hub, out):
    from tutor.model import run_with_probes

    pad = out["padding"]
    ids = torch.tensor(pad["padding.tokens"], dtype=torch.long)
    _, probes = run_with_probes(hub.model, ids)
    np.testing.assert_allclose(pad["padding.scores"], probes["blocks.0.attn.scores"].double().numpy(), atol=1e-6)
    np.testing.assert_allclose(pad["padding.causal_pattern"][0], probes["blocks.0.attn.pattern"][0].double().numpy(),
                               atol=1e-6)


def test_left_padding_moves_the_real_tokens_until_position_ids_are_shifted(out):
    """Masking the pads is not enough with learned positions: the real tokens sit in later
    columns; shifting their position ids back by the pad count gives the unpadded weights."""
    pad = out["padding"]
    n_pad = int(pad["padding.n_pad"][0])
    assert pad["padding.alone"].shape == (pad["padding.pattern"].shape[1], 9 - n_pad)
    assert pad["padding.gap"].min() > 0.01
    assert pad["padding.shifted_gap"].max() < 1e-6
    np.testing.assert_allclose(pad["padding.gap"], np.abs(pad["padding.pattern"][1, :, -1, n_pad:]
                                                          - pad["padding.alone"]).max(-1), atol=1e-12)


def test_single_row_input_pads_a_copy_of_itself(hub):
    pad = EXPERIMENTS["padding"](context(hub.model, ["3142>1"]))
    assert pad["padding.tokens"][1, -3:].tolist() == pad["padding.tokens"][0, :3].tolist()


def test_attn_scale_divides_by_sqrt_dk_and_saturates_without_it(out):
    scale = out["attn_scale"]
    d_k = scale["attn_scale.d_k"][0]
    assert d_k == 16
    np.testing.assert_allclose(scale["attn_scale.raw"] / math.sqrt(d_k), scale["attn_scale.scaled"], atol=1e-12)
    assert scale["attn_scale.std_raw"][0] == pytest.approx(4 * scale["attn_scale.std_scaled"][0])
    # softmax(c·s) has no more entropy than softmax(s) for c > 1: row by row
    assert (scale["attn_scale.entropy_raw"] <= scale["attn_scale.entropy_scaled"] + 1e-12).all()
    assert scale["attn_scale.mean_top_raw"][0] > scale["attn_scale.mean_top_scaled"][0]
    assert (scale["attn_scale.entropy_raw"][..., 0] == 0).all()               # the first query sees one key


def test_trained_queries_and_keys_spread_wider_than_independent_entries_would(out):
    """pr-scale-saturation's prediction: σ_q·σ_k·√d_k is the spread of q·k for vectors with independent
    entries; the trained model's products spread about twice as wide, and so do the pairs the mask hides,
    which no query attends to: the excess is shared directions, not queries aimed at their keys."""
    scale = out["attn_scale"]
    independent = scale["attn_scale.q_std"][0] * scale["attn_scale.k_std"][0] * 4
    assert scale["attn_scale.independent_std"][0] == pytest.approx(independent)
    assert scale["attn_scale.spread_ratio"][0] == pytest.approx(scale["attn_scale.std_raw"][0] / independent)
    assert scale["attn_scale.spread_ratio"][0] > 1.25
    length = scale["attn_scale.raw"].shape[-1]
    hidden = scale["attn_scale.raw"][..., np.triu_indices(length, 1)[0], np.triu_indices(length, 1)[1]]
    assert scale["attn_scale.hidden_ratio"][0] == pytest.approx(hidden.std() / independent)
    assert scale["attn_scale.hidden_ratio"][0] > 1.25


def test_attn_scale_scores_are_the_models_own(hub, out):
    from tutor.model import run_with_probes

    tokens = context(hub.model, ROWS).tokens
    _, probes = run_with_probes(hub.model, tokens)
    np.testing.assert_allclose(out["attn_scale"]["attn_scale.scaled"], probes["blocks.0.attn.scores"].double(),
                               atol=1e-5)
    np.testing.assert_allclose(out["attn_scale"]["attn_scale.pattern_scaled"], probes["blocks.0.attn.pattern"].double(),
                               atol=1e-5)


def test_softmax_jacobian_norm_matches_the_explicit_matrix():
    torch.manual_seed(1)
    p = torch.softmax(torch.randn(5, 7, dtype=torch.float64), dim=-1)
    explicit = torch.stack([torch.linalg.matrix_norm(torch.diag(row) - torch.outer(row, row)) for row in p])
    torch.testing.assert_close(softmax_jacobian_norm(p), explicit)
    assert float(softmax_jacobian_norm(torch.tensor([1.0, 0.0, 0.0]))) == 0
    assert float(softmax_jacobian_norm(torch.tensor([0.5, 0.5]))) == pytest.approx(0.5)


def test_contextual_vectors_start_equal_and_part_with_context(out):
    ctx = out["contextual"]
    assert ctx["contextual.stream"].shape == (3, 3, 64)                       # N + 1 stages, B rows, D
    assert ctx["contextual.distinct_embed"][0] == 1 and ctx["contextual.distinct"][0] == 1
    assert ctx["contextual.distinct"][1:].tolist() == [3, 3]
    assert ctx["contextual.cos_rows"][0] == pytest.approx(1.0)
    assert ctx["contextual.cos_rows"][1:].max() < 1 - 1e-6
    np.testing.assert_allclose(ctx["contextual.embed"], np.tile(ctx["contextual.static"], (3, 1)), atol=1e-7)
    token = ctx["contextual.token"][0]
    assert (ctx["contextual.tokens"][:, -1] == token).all()


def test_contextual_with_one_row_reports_cosine_one():
    torch.manual_seed(0)
    model = GPT(GPTConfig(n_layer=1, n_head=2, d_model=8)).eval()
    ctx = EXPERIMENTS["contextual"](context(model, ["3142"]))
    assert ctx["contextual.cos_rows"].tolist() == [1.0, 1.0]
    assert ctx["contextual.distinct"].tolist() == [1.0, 1.0]
