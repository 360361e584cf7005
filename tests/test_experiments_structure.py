"""The structure-side experiments (it, co, nu, de tracks): documented names and shapes, the
identity each one shows, and the rule that the shared trained model is never modified."""
import math

import numpy as np
import pytest

from conftest import experiment_context as context
import torch

from tutor.model import GPT, CharTokenizer, GPTConfig, run_with_probes, sinusoidal_table
from tutor.model.sample import beam_search, generate
from tutor.experiments import attention_variants, decoding
from tutor.experiments import EXPERIMENTS

STRUCTURE_EXPERIMENTS = ["shuffle", "sinusoid", "pe_shift", "attn_window", "path_length", "linear_attn", "heads",
                         "fp16", "norm_axes", "residual_grad", "activations", "info", "kl", "decode", "generate", "beam",
                         "attn_mi", "temp_range"]
V = 96
TOKENIZER = CharTokenizer()




def small_model(seed=0, **config):
    torch.manual_seed(seed)
    settings = dict(vocab_size=V, block_size=64, n_layer=1, n_head=2, d_model=8) | config
    return GPT(GPTConfig(**settings)).eval()


def run(name, ctx):
    return EXPERIMENTS[name](ctx)


@pytest.fixture(scope="module")
def trained_out(hub):
    """Every experiment once on the trained model (B = 1, L = 9); test_experiments_registry checks
    that each leaves the shared model as it was."""
    return {name: run(name, context(hub.model, ["3142>1234"])) for name in STRUCTURE_EXPERIMENTS}


EXPECTED_SHAPES = {   # trained model: D = 64, H = 4, D_head = 16, 4D = 256; B = 1, L = 9
    "shuffle": {"shuffle.perm": (9,), "shuffle.P": (9, 9), "shuffle.q": (1, 4, 9, 16), "shuffle.k": (1, 4, 9, 16),
                "shuffle.v": (1, 4, 9, 16), "shuffle.out": (1, 9, 64), "shuffle.out_shuffled": (1, 9, 64),
                "shuffle.same_token": (1, 9), "shuffle.last_change": (1,), "shuffle.last_change_deep": (1,),
                "shuffle.last_change_pe": (1,), "shuffle.full_z": (1, 4, 9, 16),
                "shuffle.full_z_shuffled": (1, 4, 9, 16), "shuffle.full_z_permuted": (1, 4, 9, 16),
                "shuffle.full_same": (1, 9)},
    "sinusoid": {"sinusoid.pos": (9, 1), "sinusoid.i": (32,), "sinusoid.sin": (9, 32), "sinusoid.cos": (9, 32),
                 "sinusoid.table": (9, 64), "sinusoid.similarity": (9,), "sinusoid.pair_gap": (9, 32)},
    "pe_shift": {"pe_shift.k": (1,), "pe_shift.M": (64, 64), "pe_shift.shifted": (9, 64),
                 "pe_shift.rotated": (9, 64), "pe_shift.omega": (32,), "pe_shift.period": (32,)},
    "attn_window": {"attn_window.mask": (9, 9), "attn_window.bias": (9, 9), "attn_window.pattern": (1, 4, 9, 9),
                    "attn_window.kept": (1,), "attn_window.causal_kept": (1,), "attn_window.full": (1,),
                    "attn_window.global_pos": (1,), "attn_window.global_mask": (9, 9),
                    "attn_window.global_bias": (9, 9), "attn_window.global_kept": (1,),
                    "attn_window.global_pattern": (1, 4, 9, 9), "attn_window.hops": (1,),
                    "attn_window.global_hops": (1,), "attn_window.global_gain": (1,),
                    "attn_window.far_vs_even": (1,),
                    "attn_window.reader_hops": (1,)},
    "path_length": {"path_length.length": (1,), "path_length.attn_reach": (9,), "path_length.attn_edges": (9, 9),
                    "path_length.far_over_near": (1,),
                    "path_length.attn_steps": (1,), "path_length.rho": (1,), "path_length.rnn_edges": (9, 9),
                    "path_length.rnn_steps": (1,), "path_length.rnn_reach": (9,), "path_length.rnn_far": (1,),
                    "path_length.rnn_half": (1,)},
    "linear_attn": {"linear_attn.qk": (1, 4, 9, 9), "linear_attn.kv": (1, 4, 16, 16),
                    "linear_attn.qk_v": (1, 4, 9, 16), "linear_attn.q_kv": (1, 4, 9, 16),
                    "linear_attn.max_diff": (1,), "linear_attn.cost_qk_v": (1,), "linear_attn.cost_q_kv": (1,),
                    "linear_attn.phi_q": (1, 4, 9, 16), "linear_attn.phi_k": (1, 4, 9, 16),
                    "linear_attn.phi_out": (1, 4, 9, 16)},
    "heads": {"heads.ablated": (1,), "heads.merged": (1, 9, 64), "heads.merged_ablated": (1, 9, 64),
              "heads.changed": (64,), "heads.out_changed": (64,), "heads.out_rank": (1,), "heads.favourite": (4, 9),
              "heads.qk_rank": (4,), "heads.qk_blind": (4,), "heads.qk_blind_axes": (4,)},
    "fp16": {"fp16.row": (V,), "fp16.exp16": (V,), "fp16.overflow": (1,), "fp16.naive_sum": (1,),
             "fp16.naive": (V,), "fp16.stable": (V,), "fp16.limit": (1,), "fp16.max": (3,),
             "fp16.bf16_row": (V,), "fp16.bf16_overflow": (1,), "fp16.f32_sum": (1,), "fp16.bf16_sum": (1,),
             "fp16.sum_gap": (1,), "fp16.top_below": (1,)},
    "norm_axes": {"norm_axes.ln_mean": (1, 9, 1), "norm_axes.bn_mean": (1, 1, 64), "norm_axes.bn": (1, 9, 64),
                  "norm_axes.bn_row_mean": (1, 9), "norm_axes.ln_var": (1, 9), "norm_axes.scaled_changed": (1,),
                  "norm_axes.bn_scaled_changed": (1,), "norm_axes.scaled_shift": (1,)},
    "residual_grad": {"residual_grad.with_skip": (2,), "residual_grad.without_skip": (2,),
                      "residual_grad.input_with_skip": (9, 64), "residual_grad.input_without_skip": (9, 64)},
    "activations": {"activations.phi": (1, 9, 256), "activations.relu": (1, 9, 256), "activations.dead": (1,),
                    "activations.pdf": (1, 9, 256), "activations.gelu_grad": (1, 9, 256),
                    "activations.pre_min": (1,), "activations.phi_at_min": (1,), "activations.pdf_at_min": (1,),
                    "activations.grad_at_min": (1,), "activations.falling": (1, 9, 256)},
    "info": {"info.probs": (1, 9, V), "info.surprisal": (1, 9, V), "info.entropy": (1, 9),
             "info.perplexity": (1, 9), "info.max_entropy": (1,), "info.next_surprisal": (1, 8)},
    "kl": {f"kl.{n}": (V,) for n in ("p", "q", "grad_z", "grad_z_rev", "p_T", "q_T", "grad_z_T")}
          | {f"kl.{n}": (1,) for n in ("H_p", "H_q", "H_pq", "H_qp", "KL_pq", "KL_qp", "KL_gap", "KL_pu", "KL_up",
                                       "H_pq_bits", "T", "top_ratio", "top_ratio_T", "KL_T")} | {"kl.top_ids": (2,)},
    "decode": {f"decode.{n}": (V,) for n in ("logits", "probs", "probs_T2", "topk_kept", "topk_probs",
                                              "topp_kept", "topp_probs", "sample_counts")}
              | {f"decode.{n}": (10,) for n in ("sorted_ids", "sorted_probs", "cumsum")}
              | {"decode.ratio": (2,), "decode.greedy_token": (1,), "decode.topk_ratio_shift": (1,),
                 "decode.topp_over_topk": (1,), "decode.topp_wide_count": (1,)},
    "generate": {"generate.greedy": (decoding.N_NEW,), "generate.greedy_rerun_diff": (1,),
                 "generate.sampled": (2, decoding.N_NEW), "generate.sampled_diff": (1,),
                 "generate.input_greedy": (decoding.N_NEW,), "generate.runner_up_greedy": (decoding.N_NEW,)},
    "beam": {"beam.step1_tokens": (3,), "beam.step1_scores": (3,), "beam.step1_probs": (3,), "beam.next_best": (3,),
             "beam.candidates": (3, V),
             "beam.step2_tokens": (3, 2), "beam.step2_scores": (3,), "beam.p_first": (3,), "beam.p_second": (3,),
             "beam.parents": (3,), "beam.seq_logprob": (3,), "beam.best": (6,), "beam.greedy": (6,), "beam.best_score": (1,), "beam.greedy_score": (1,),
             "beam.stop_plain": (1,), "beam.stop_norm": (1,), "beam.stop_lengths": (2,), "beam.stop_sums": (2,),
             "beam.stop_means": (2,), "beam.stop_length_gain": (1,)},
    "attn_mi": {"attn_mi.I": (4,), "attn_mi.uniform": (1,), "attn_mi.max": (1,), "attn_mi.key_share": (4, 9),
                "attn_mi.pmi": (4, 9, 9), "attn_mi.top_weight": (4, 9), "attn_mi.top_pmi": (4, 9),
                "attn_mi.agree": (4,)},
    "temp_range": {"temp_range.T": (7,), "temp_range.miss": (7,), "temp_range.tail": (7,), "temp_range.tail_size": (1,),
                   "temp_range.tail_growth": (1,), "temp_range.sampled": (7, 40), "temp_range.sampled_implausible": (7,),
                   "temp_range.hot_expected": (1,), "temp_range.hot_excess": (1,), "temp_range.hot_seeds": (20,),
                   "temp_range.hot_mean_excess": (1,), "temp_range.tempered_last": (V,)},
}


@pytest.mark.parametrize("name", STRUCTURE_EXPERIMENTS)
def test_documented_names_and_shapes_on_the_trained_model(trained_out, name):
    out = trained_out[name]
    assert {k: v.shape for k, v in out.items()} == EXPECTED_SHAPES[name]
    assert all(isinstance(v, np.ndarray) for v in out.values())


@pytest.mark.parametrize("name", STRUCTURE_EXPERIMENTS)
def test_every_experiment_runs_on_a_small_random_model_with_odd_sizes(name):
    """The probe listing runs every experiment on D = 12, H = 3, B = 2, L = 5: nothing may assume 2 or 4 heads."""
    model = small_model(d_model=12, n_head=3)
    out = run(name, context(model, ["01234", "56789"]))
    assert out and all(k.startswith(name + ".") for k in out)
    assert all(np.all(np.isfinite(v)) for k, v in out.items() if k not in ("fp16.naive", "attn_window.bias", "attn_window.global_bias",
                                                                      "attn_mi.pmi"))


# --- co: permutations and positions -------------------------------------------------------------


def test_shuffle_causal_last_position_is_invariant_and_full_attention_is_equivariant(trained_out):
    out = trained_out["shuffle"]
    perm = out["shuffle.perm"].astype(int)
    assert list(perm) == [7, 6, 5, 4, 3, 2, 1, 0, 8]
    assert np.allclose(out["shuffle.P"] @ np.arange(9), perm)
    assert out["shuffle.last_change"][0] < 1e-5                    # one causal layer, no positions
    assert out["shuffle.last_change_pe"][0] > 1e-2                 # the model's own positions break it
    assert out["shuffle.last_change_deep"][0] > 1e-2               # and so does a second causal layer
    assert list(out["shuffle.same_token"][0]) == [0] * 8 + [1]
    assert list(out["shuffle.full_same"][0]) == [1] * 9
    assert np.allclose(out["shuffle.full_z_shuffled"], out["shuffle.full_z_permuted"], atol=1e-9)
    # the shuffled model's queries are the original queries, permuted
    q = out["shuffle.q"][0, 0]
    assert np.allclose(out["shuffle.P"] @ q, q[perm])


def test_shuffle_on_a_model_without_positions_uses_sinusoidal_for_the_comparison():
    model = small_model(positions="none", d_model=8)
    out = run("shuffle", context(model, ["3142"]))
    assert out["shuffle.last_change"][0] < 1e-6
    assert out["shuffle.full_same"].all()


def test_sinusoid_parts_are_the_model_table():
    model = small_model(positions="sinusoidal")
    out = run("sinusoid", context(model, ["31415926"]))
    pos, i = out["sinusoid.pos"], out["sinusoid.i"]
    assert np.allclose(np.sin(pos / 10000 ** (2 * i / 8)), out["sinusoid.sin"], atol=1e-6)
    assert np.allclose(np.cos(pos / 10000 ** (2 * i / 8)), out["sinusoid.cos"], atol=1e-6)
    assert np.allclose(out["sinusoid.table"], model.pe_table[:8].numpy())


def test_sinusoid_similarity_is_a_sum_of_cosines_of_the_offset():
    """PE(0)·PE(pos) = Σ_i cos(pos·ω_i): least alike at pos = 3 for D = 8, and 6 is nearer 0 than 1 is
    (co-sinusoidal-pe least-similar); in pairs, 0 and 6 differ most in pair 1 (which-pair)."""
    out = run("sinusoid", context(small_model(positions="sinusoidal"), ["31415926"]))
    pos, omega = np.arange(8)[:, None], 1 / 10000 ** (2 * np.arange(4) / 8)
    assert np.allclose(out["sinusoid.similarity"], np.cos(pos * omega).sum(axis=1), atol=1e-6)
    assert out["sinusoid.similarity"].argmin() == 3 and out["sinusoid.similarity"][6] > out["sinusoid.similarity"][1]
    assert np.allclose(out["sinusoid.pair_gap"], 2 * np.abs(np.sin(pos * omega / 2)), atol=1e-6)
    assert out["sinusoid.pair_gap"][6].argmax() == 1


def test_pe_shift_is_a_rotation_that_moves_the_table_k_positions():
    model = small_model(positions="sinusoidal")
    out = run("pe_shift", context(model, ["31415926"]))
    M = out["pe_shift.M"]
    assert np.allclose(M @ M.T, np.eye(8), atol=1e-12)
    assert np.count_nonzero(M) == 16
    k = int(out["pe_shift.k"][0])
    table = sinusoidal_table(8 + k, 8).double().numpy()
    assert np.allclose(table[:8] @ M, table[k:], atol=1e-6)
    assert np.allclose(out["pe_shift.rotated"], out["pe_shift.shifted"], atol=1e-6)


# --- co: cost, windows, linear attention, heads ------------------------------------------------


def test_window_counts_and_pattern(trained_out):
    out = trained_out["attn_window"]
    L, w = 9, attention_variants.WINDOW
    assert out["attn_window.kept"][0] == L * w - w * (w - 1) // 2 == out["attn_window.mask"].sum()
    assert out["attn_window.causal_kept"][0] == 45 and out["attn_window.full"][0] == 81
    pattern = out["attn_window.pattern"]
    assert np.allclose(pattern.sum(-1), 1.0)
    assert np.all(pattern[..., out["attn_window.mask"] == 0] == 0)
    assert np.all(np.isneginf(out["attn_window.bias"][out["attn_window.mask"] == 0]))


def test_attention_reaches_token_0_in_one_layer_and_the_rnn_in_l_minus_1_shrinking_steps(trained_out):
    """L = 9: causal attention's dependency table is the whole lower triangle (path length 1); the
    linear RNN's is a band of two diagonals (8 steps), and with a rotation times rho every step
    multiplies the gradient's spectral norm by exactly rho."""
    out = trained_out["path_length"]
    assert np.array_equal(out["path_length.attn_edges"], np.tril(np.ones((9, 9))))
    assert out["path_length.attn_steps"][0] == 1 and out["path_length.rnn_steps"][0] == 8
    assert np.allclose(out["path_length.rnn_reach"], 0.9 ** np.arange(8, -1, -1))
    assert out["path_length.rnn_far"][0] == out["path_length.rnn_reach"][0]
    assert np.isclose(out["path_length.far_over_near"][0],
                      out["path_length.attn_reach"][0] / out["path_length.attn_reach"][-2])
    assert out["path_length.rnn_half"][0] == 7          # 0.9^6 = 0.53 is not below 1/2, 0.9^7 = 0.48 is


def test_a_global_token_shortens_every_path_and_only_gains_weight(trained_out):
    """L = 9, w = 3, hub at 4: the window needs ceil(8 / 2) = 4 layers to carry token 0 to token 8,
    the hub 2; its row adds keys 0-1 and its column rows 7-8 (4 entries); dropping keys can only
    raise a kept weight."""
    out = trained_out["attn_window"]
    assert out["attn_window.global_pos"][0] == 4
    assert out["attn_window.hops"][0] == 4 and out["attn_window.global_hops"][0] == 2
    assert out["attn_window.reader_hops"][0] == 1 + 2        # reads token 0, then 4 -> 8 through the window
    assert out["attn_window.global_kept"][0] == out["attn_window.kept"][0] + 4 == out["attn_window.global_mask"].sum()
    pattern = out["attn_window.global_pattern"]
    assert np.allclose(pattern.sum(-1), 1.0) and np.all(pattern[..., out["attn_window.global_mask"] == 0] == 0)
    assert out["attn_window.global_gain"][0] > 0



def test_far_vs_even_is_the_dropped_keys_weight_against_an_even_spread(hub, trained_out):
    """co-attention-cost's window-vs-even reads it: the trained head's last query leans back to the prompt."""
    from tutor.experiments.common import probe_tensors

    out = trained_out["attn_window"]
    causal = probe_tensors(context(hub.model, ["3142>1234"]))["blocks.0.attn.pattern"].numpy()   # (1, H, 9, 9)
    far = 9 - 3                                                          # L - w keys more than w - 1 back
    assert out["attn_window.mask"][-1, :far].sum() == 0 and out["attn_window.mask"][-1, far:].all()
    assert np.isclose(out["attn_window.far_vs_even"][0], causal[0, 0, -1, :far].sum() - far / 9, atol=1e-6)


def test_linear_attention_orders_agree(trained_out):
    out = trained_out["linear_attn"]
    assert out["linear_attn.max_diff"][0] < 1e-9
    assert np.allclose(out["linear_attn.qk_v"], out["linear_attn.q_kv"], atol=1e-9)


def test_linear_attention_costs_and_the_regrouped_phi_form(hub, trained_out):
    """phi_out is computed the quadratic way; the linear order with its normaliser (what
    co-linear-attention asks for) must give the same numbers."""
    out = trained_out["linear_attn"]
    L, d = 9, 16
    assert out["linear_attn.cost_qk_v"][0] == 2 * L * L * d and out["linear_attn.cost_q_kv"][0] == 2 * L * d * d
    phi_q, phi_k = out["linear_attn.phi_q"], out["linear_attn.phi_k"]                   # (1, 4, 9, 16) each
    assert (phi_q > 0).all() and (phi_k > 0).all()
    _, probes = run_with_probes(hub.model, torch.tensor([TOKENIZER.encode("3142>1234")]))
    v = probes["blocks.0.attn.v"].double().numpy()                                      # (1, 4, 9, 16)
    phi_k_t = np.swapaxes(phi_k, -1, -2)                                                # (1, 4, 16, 9)
    linear = (phi_q @ (phi_k_t @ v)) / (phi_q @ phi_k_t.sum(-1, keepdims=True))         # (1, 4, 9, 16)
    assert np.allclose(linear, out["linear_attn.phi_out"], atol=1e-6)


def test_switching_off_a_head_changes_its_slice_only_until_w_o(hub, trained_out):
    out = trained_out["heads"]
    assert out["heads.ablated"][0] == 2
    changed = out["heads.changed"]
    assert changed.sum() == 16 and changed[32:48].all()
    assert out["heads.out_changed"].sum() == 64
    assert out["heads.out_rank"][0] == 9                   # a (9 × 16)(16 × 64) change: all 64 features, rank min(L, D_head)
    assert np.all(out["heads.merged_ablated"][..., 32:48] == 0)
    _, probes = run_with_probes(hub.model, torch.tensor([CharTokenizer().encode("3142>1234")]))
    assert np.array_equal(out["heads.favourite"], probes["blocks.0.attn.pattern"][0].argmax(dim=-1).numpy())
    assert list(out["heads.qk_rank"]) == [16] * 4          # a (64 × 16)(16 × 64) product: rank D_head
    assert list(out["heads.qk_blind"]) == [48] * 4         # rank-nullity: D − rank directions the head ignores
    assert list(out["heads.qk_blind_axes"]) == [0] * 4     # ... yet every single feature reaches its scores


def test_a_heads_bilinear_form_has_rank_at_most_d_head_on_random_weights():
    out = run("heads", context(small_model(d_model=12, n_head=3), ["3142>"]))
    assert list(out["heads.qk_rank"]) == [4, 4, 4]
    assert list(out["heads.qk_blind"]) == [8, 8, 8]        # D = 12 minus the rank
    assert out["heads.out_rank"][0] == 4                   # L = 5 positions, but only D_head = 4 numbers reach W_O
    assert list(out["heads.qk_blind_axes"]) == [0, 0, 0]


def test_a_feature_that_feeds_no_query_is_the_one_axis_a_head_ignores():
    model = small_model(d_model=12, n_head=3)
    with torch.no_grad():
        model.blocks[0].attn.W_Q.weight[:, 5] = 0.0                    # input feature 5 reaches no head's queries
    out = run("heads", context(model, ["3142>"]))
    assert list(out["heads.qk_blind_axes"]) == [1, 1, 1]
    assert list(out["heads.qk_blind"]) == [8, 8, 8]                     # still D − rank: feature 5 is one of those 8


# --- nu ------------------------------------------------------------------------------------------


def test_fp16_overflow_and_the_max_subtraction_fix(hub):
    out = run("fp16", context(hub.model, ["3142>12"]))
    row = out["fp16.row"]
    assert out["fp16.limit"][0] == pytest.approx(math.log(65504))
    assert out["fp16.overflow"][0] == np.sum(row.astype(np.float16) > out["fp16.limit"][0]) == 1
    assert math.isinf(out["fp16.naive_sum"][0])
    assert np.isnan(out["fp16.naive"]).sum() == 1
    exact = np.exp(row - row.max()) / np.exp(row - row.max()).sum()
    assert np.allclose(out["fp16.stable"], exact, atol=1e-3)
    assert list(out["fp16.max"]) == [65504.0, pytest.approx(3.3895e38, rel=1e-3), pytest.approx(3.4028e38, rel=1e-3)]
    # bfloat16 keeps float32's range (nothing overflows) but rounds the logit 13.8 to a multiple of 1/16,
    # and exp turns that rounding into a gap of a few percent in the sum (nu-float-precision's bf16-sum)
    assert out["fp16.bf16_overflow"][0] == 0
    assert np.all(np.abs(out["fp16.bf16_row"] - row) <= np.abs(row) * 2.0 ** -8 + 1e-12)
    assert out["fp16.f32_sum"][0] == pytest.approx(np.exp(row.astype(np.float64)).sum(), rel=1e-5)
    gap = abs(out["fp16.bf16_sum"][0] - out["fp16.f32_sum"][0]) / out["fp16.f32_sum"][0]
    assert out["fp16.sum_gap"][0] == pytest.approx(gap) and 0.005 < gap < 0.05
    top = np.float16(out["fp16.stable"].max())                   # the float16 number just below it
    assert out["fp16.top_below"][0] == np.nextafter(top, np.float16(0)) < top


def test_norm_axes(trained_out):
    out = trained_out["norm_axes"]
    assert np.allclose(out["norm_axes.bn"].mean(axis=(0, 1)), 0, atol=1e-9)
    assert np.abs(out["norm_axes.bn_row_mean"]).max() > 1e-3     # BatchNorm does not centre each token
    # one token times 10: LayerNorm moves it only through ε and no other token; BatchNorm moves them all
    assert out["norm_axes.scaled_changed"][0] == 0 and 0 < out["norm_axes.scaled_shift"][0] < 0.05
    assert out["norm_axes.bn_scaled_changed"][0] > 64
    # x̂'s variance is σ²/(σ² + ε) per token: just under 1 on a stream whose σ² is many times ε
    assert (out["norm_axes.ln_var"] < 1).all() and (out["norm_axes.ln_var"] > 0.9).all()


def test_residual_gradient_survives_with_skips_and_vanishes_without():
    model = small_model(n_layer=6)
    before = [p.detach().clone() for p in model.parameters()]
    out = run("residual_grad", context(model, ["3142"]))
    with_skip, without = out["residual_grad.with_skip"], out["residual_grad.without_skip"]
    assert with_skip.shape == (6,)
    assert np.all(with_skip > 2.5)                               # ≈ √8 from the identity path
    assert without[0] < 0.01 * with_skip[0]
    assert all(p.grad is None for p in model.parameters())
    assert all(torch.equal(a, b) for a, b in zip(before, model.parameters()))


def test_gelu_is_x_times_phi(hub):
    from tutor.model import run_with_probes

    ctx = context(hub.model, ["3142>1234"])
    out = run("activations", ctx)
    _, probes = run_with_probes(hub.model, ctx.tokens)
    pre, post = probes["blocks.0.mlp.pre"].double().numpy(), probes["blocks.0.mlp.post"].double().numpy()
    assert np.allclose(pre * out["activations.phi"], post, atol=1e-5)
    assert np.array_equal(out["activations.relu"], np.maximum(pre, 0))
    assert out["activations.dead"][0] == np.sum(np.all(pre <= 0, axis=(0, 1)))


# --- it ------------------------------------------------------------------------------------------


def test_information_and_entropy(trained_out):
    out = trained_out["info"]
    p = out["info.probs"]
    assert np.allclose(p.sum(-1), 1)
    assert np.allclose(out["info.entropy"], -(p * np.log(p)).sum(-1))
    assert np.allclose(out["info.perplexity"], np.exp(out["info.entropy"]))
    assert out["info.max_entropy"][0] == pytest.approx(math.log(V))
    assert np.all(out["info.entropy"] <= math.log(V) + 1e-9)
    ids = TOKENIZER.encode("3142>1234")
    assert np.allclose(out["info.next_surprisal"][0], [out["info.surprisal"][0, i, ids[i + 1]] for i in range(8)])


def test_cross_entropy_is_entropy_plus_kl_and_kl_is_not_symmetric(trained_out):
    out = trained_out["kl"]
    value = {k.split(".")[1]: v[0] for k, v in out.items() if v.shape == (1,)}
    assert value["H_pq"] == pytest.approx(value["H_p"] + value["KL_pq"], abs=1e-9)
    assert value["H_qp"] == pytest.approx(value["H_q"] + value["KL_qp"], abs=1e-9)
    assert value["KL_pq"] > 0 and value["KL_qp"] > 0
    assert abs(value["KL_pq"] - value["KL_qp"]) > 0.5
    assert value["KL_gap"] == pytest.approx(value["KL_qp"] - value["KL_pq"], abs=1e-12)
    # against the uniform 1/V every -ln q is ln V, so torch's kl_div must give ln V - H(p)
    assert value["KL_pu"] == pytest.approx(math.log(out["kl.p"].size) - value["H_p"], abs=1e-9)
    assert np.allclose(out["kl.p"].sum(), 1) and np.allclose(out["kl.q"].sum(), 1)
    # the teacher's entropy is a constant, so autograd finds the soft-target cross-entropy's gradient
    np.testing.assert_allclose(out["kl.grad_z"], out["kl.q"] - out["kl.p"], atol=1e-12)
    # the reverse KL(u ‖ p) weighs every ln(u/p) by 1/V: -ln V minus the mean of ln p
    assert value["KL_up"] == pytest.approx(-math.log(out["kl.p"].size) - np.log(out["kl.p"]).mean(), abs=1e-9)
    # d KL(q ‖ p)/dz_i = q_i (ln q_i - ln p_i - KL(q ‖ p)): the softmax Jacobian subtracts the q-weighted mean
    log_ratio = np.log(out["kl.q"]) - np.log(out["kl.p"])
    np.testing.assert_allclose(out["kl.grad_z_rev"], out["kl.q"] * (log_ratio - value["KL_qp"]), atol=1e-9)


def test_gelu_slope_from_autograd_is_phi_plus_x_times_density(hub, trained_out):
    """nu-activations asks for GELU′ = Φ(x) + x·φ(x); the experiment's slope comes from autograd through F.gelu."""
    out = trained_out["activations"]
    _, probes = run_with_probes(hub.model, torch.tensor([TOKENIZER.encode("3142>1234")]))
    x = probes["blocks.0.mlp.pre"].double().numpy()                                     # (1, 9, 256)
    np.testing.assert_allclose(out["activations.gelu_grad"], out["activations.phi"] + x * out["activations.pdf"],
                               atol=1e-6)
    assert out["activations.pre_min"][0] == pytest.approx(x.min())
    low = out["activations.pre_min"][0]
    expected = out["activations.phi_at_min"][0] + low * out["activations.pdf_at_min"][0]
    assert out["activations.grad_at_min"][0] == pytest.approx(expected, abs=1e-6)
    # falling marks GELU's falling branch, left of its dip at x ≈ -0.7518 (where Φ(x) + x·φ(x) = 0)
    np.testing.assert_array_equal(out["activations.falling"], (out["activations.gelu_grad"] < 0).astype(float))
    away = np.abs(x + 0.7518) > 1e-3
    np.testing.assert_array_equal(out["activations.falling"][away], (x < -0.7518)[away].astype(float))


def test_bits_and_the_softened_distillation_gradient(trained_out):
    """H in bits is H in nats / ln 2; at temperature T autograd's gradient is (q_T - p_T) / T, and
    softening divides the teacher's log-ratio of its two favourites by T."""
    out = trained_out["kl"]
    assert out["kl.H_pq_bits"][0] == pytest.approx(out["kl.H_pq"][0] / math.log(2), rel=1e-9)
    t = out["kl.T"][0]
    np.testing.assert_allclose(out["kl.grad_z_T"], (out["kl.q_T"] - out["kl.p_T"]) / t, atol=1e-12)
    assert out["kl.top_ratio_T"][0] == pytest.approx(out["kl.top_ratio"][0] ** (1 / t), rel=1e-9)
    p_t, q_t = out["kl.p_T"], out["kl.q_T"]                                           # (V,) each
    assert out["kl.KL_T"][0] == pytest.approx(float((p_t * np.log(p_t / q_t)).sum()), rel=1e-6)
    first, second = out["kl.top_ids"].astype(int)
    assert out["kl.p"][first] >= out["kl.p"][second] >= np.delete(out["kl.p"], [first, second]).max()


def test_the_kl_student_is_the_same_for_the_same_seed(hub):
    a = run("kl", context(hub.model, ["3142"], seed=7))
    b = run("kl", context(hub.model, ["3142"], seed=7))
    c = run("kl", context(hub.model, ["3142"], seed=8))
    assert np.array_equal(a["kl.q"], b["kl.q"]) and not np.array_equal(a["kl.q"], c["kl.q"])


# --- de ------------------------------------------------------------------------------------------


def test_decode_filters_on_the_real_distribution(hub):
    out = run("decode", context(hub.model, ["3142"]))
    logits, probs = out["decode.logits"], out["decode.probs"]
    assert out["decode.greedy_token"][0] == np.argmax(logits) == TOKENIZER.encode("2")[0]
    hot = np.exp(logits / 2 - (logits / 2).max())
    assert np.allclose(out["decode.probs_T2"], hot / hot.sum(), atol=1e-6)
    assert np.count_nonzero(out["decode.topk_probs"]) == decoding.TOP_K
    assert np.count_nonzero(out["decode.topp_probs"]) == 2       # 0.58 + 0.42 reach 0.9
    for name in ("topk", "topp"):
        kept = out[f"decode.{name}_kept"]
        assert np.allclose(kept / kept.sum(), out[f"decode.{name}_probs"], atol=1e-6)
    assert out["decode.sample_counts"].sum() == decoding.N_DRAWS
    assert np.allclose(np.cumsum(out["decode.sorted_probs"]), out["decode.cumsum"])
    assert out["decode.ratio"][1] == pytest.approx(math.sqrt(out["decode.ratio"][0]))
    assert abs(out["decode.topk_ratio_shift"][0]) < 1e-4                  # renormalising keeps every ratio
    top = int(out["decode.sorted_ids"][0])                                # both filters always keep the likeliest token
    assert out["decode.topp_over_topk"][0] == pytest.approx(
        math.log(out["decode.topp_probs"][top] / out["decode.topk_probs"][top]), abs=1e-5)
    ranked = np.sort(probs)[::-1]                                         # top-p keeps the shortest prefix reaching p
    wide = int(out["decode.topp_wide_count"][0])
    assert ranked[:wide].sum() >= decoding.TOP_P_WIDE - 1e-6 > ranked[:wide - 1].sum()


def test_generate_is_model_sample_generate(hub):
    ctx = context(hub.model, ["3142>12"])
    out = run("generate", ctx)
    ids = ctx.tokens[0].tolist()
    assert list(out["generate.greedy"]) == generate(hub.model, ids, decoding.N_NEW, temperature=0)
    assert out["generate.greedy"][0] == TOKENIZER.encode("3")[0]
    assert out["generate.greedy_rerun_diff"][0] == 0
    assert list(out["generate.input_greedy"]) == generate(hub.model, TOKENIZER.encode("3142"), decoding.N_NEW,
                                                         temperature=0)
    prompt = TOKENIZER.encode("3142")                                     # the runner-up forced, then greedy
    with torch.no_grad():
        second = int(torch.topk(hub.model(torch.tensor([prompt]))[0, -1], 2).indices[1])
    forced = list(out["generate.runner_up_greedy"])
    assert forced[0] == second != out["generate.input_greedy"][0]
    assert forced[1:] == generate(hub.model, prompt + [second], decoding.N_NEW - 1, temperature=0)


def test_beam_scores_add_log_probabilities_and_beat_greedy_here(hub):
    ctx = context(hub.model, ["5024>8"])
    out = run("beam", ctx)
    assert np.allclose(np.log(out["beam.p_first"]) + np.log(out["beam.p_second"]), out["beam.step2_scores"])
    assert np.all(np.diff(out["beam.step1_scores"]) <= 0) and np.all(np.diff(out["beam.step2_scores"]) <= 0)
    assert np.allclose(out["beam.candidates"].max(), out["beam.step2_scores"][0])
    assert np.allclose(np.log(out["beam.step1_probs"]), out["beam.step1_scores"])
    assert np.allclose(out["beam.candidates"].max(axis=1), out["beam.step1_scores"] + np.log(out["beam.next_best"]))
    assert list(out["beam.best"]) == beam_search(hub.model, ctx.tokens[0].tolist(), 6, beam_width=3)
    assert out["beam.step2_tokens"][0, 0] == TOKENIZER.encode("\n")[0]   # the runner-up first token wins
    assert out["beam.best_score"][0] > out["beam.greedy_score"][0] + 0.1


def test_plain_sum_beam_stops_at_once_and_length_normalised_goes_on(hub):
    """de-beam's length bias: after '5024>8' ending the line now (p ≈ 0.46) beats every longer
    answer by the plain sum; dividing by the length picks a 4-token answer instead."""
    out = run("beam", context(hub.model, ["5024>8"]))
    newline = TOKENIZER.encode("\n")[0]
    assert list(out["beam.stop_plain"]) == [newline]
    assert out["beam.stop_norm"][-1] == newline and out["beam.stop_lengths"].tolist() == [1, 4]
    assert out["beam.stop_length_gain"][0] == 3
    assert out["beam.stop_sums"][0] > out["beam.stop_sums"][1]                # the sum prefers the short answer
    assert out["beam.stop_means"][1] > out["beam.stop_means"][0]              # the mean prefers the long one
    np.testing.assert_allclose(out["beam.stop_means"], out["beam.stop_sums"] / out["beam.stop_lengths"])


def test_beam_kept_pairs_read_back_in_one_pass_score_what_beam_search_summed(hub):
    """The lesson's formula ln p1 + ln p2 is compared with a separate pass over prompt + pair, not its own sum."""
    out = run("beam", context(hub.model, ["5024>8"]))
    assert np.allclose(out["beam.seq_logprob"], out["beam.step2_scores"], atol=1e-5)
    assert not np.array_equal(out["beam.seq_logprob"], out["beam.step2_scores"])   # computed apart, float32 noise
    assert out["beam.parents"].sum() == 3 and list(out["beam.parents"]) == [2, 1, 0]   # '0' fills two places here


def test_the_length_penalty_switch_found_on_the_search_is_where_the_scores_tie(hub):
    """de-beam-length: after '5024>8' the plain sum ends at once, α = 0.5 and 1 return the 4-token answer,
    and the α where beam_search's answer switches (bisection on the search) solves S0/n0^α = S1/n1^α."""
    out = run("beam_length", context(hub.model, ["5024>8"]))
    newline = TOKENIZER.encode("\n")[0]
    assert out["beam_length.answers"][0, 0] == newline and out["beam_length.lengths"].tolist() == [1, 4, 4]
    s0, s1 = out["beam_length.sums"][[0, 2]]
    n0, n1 = out["beam_length.lengths"][[0, 2]]
    assert out["beam_length.alpha_star"][0] == pytest.approx(math.log(s1 / s0) / math.log(n1 / n0), abs=1e-4)
    assert np.prod(out["beam_length.p"]) == pytest.approx(math.exp(out["beam_length.sums"][1]), rel=1e-9)
    assert out["beam_length.plain_extra"][0] == 0 and out["beam_length.length_gain"][0] == 3


# --- attention as a joint distribution; sampling temperatures ---------------------------------------


def test_attention_information_is_h_k_minus_h_k_given_q():
    """ln L when each query reads only itself, 0 when every query reads the same keys, and above 0 for
    an even spread under the causal mask (it-mutual-information mask-alone)."""
    from tutor.experiments.attention_information import _information

    length = 6
    diagonal = torch.eye(length, dtype=torch.float64)[None]                          # (1, L, L)
    same = torch.full((1, length, length), 1 / length, dtype=torch.float64)
    assert float(_information(diagonal)[0][0]) == pytest.approx(math.log(length))
    assert float(_information(same)[0][0]) == pytest.approx(0, abs=1e-12)
    visible = torch.ones(length, length, dtype=torch.float64).tril()
    even = float(_information((visible / visible.sum(-1, keepdim=True))[None])[0][0])
    assert 0 < even < math.log(length)


def test_attn_mi_on_the_trained_model(trained_out):
    out = trained_out["attn_mi"]
    assert np.all(out["attn_mi.I"] >= 0)
    assert np.all(out["attn_mi.I"] <= out["attn_mi.max"][0] + 1e-9)
    assert np.allclose(out["attn_mi.key_share"].sum(-1), 1)
    assert np.all((1 <= out["attn_mi.agree"]) & (out["attn_mi.agree"] <= 9))        # query 0 has one key


def test_temperature_range_tail_and_misses_grow_with_t(hub, trained_out):
    out = trained_out["temp_range"]
    assert list(out["temp_range.T"]) == [0.1, 0.5, 0.8, 1.0, 1.2, 1.5, 2.0]
    assert np.all(np.diff(out["temp_range.tail"]) >= -1e-12) and np.all(np.diff(out["temp_range.miss"]) >= -1e-12)
    assert out["temp_range.tail_growth"][0] == pytest.approx(out["temp_range.tail"][6] / out["temp_range.tail"][3])
    assert np.all(out["temp_range.sampled_implausible"] <= 40)
    assert out["temp_range.hot_excess"][0] == pytest.approx(
        out["temp_range.sampled_implausible"][6] - out["temp_range.hot_expected"][0])
    assert np.all((out["temp_range.hot_seeds"] >= 0) & (out["temp_range.hot_seeds"] <= 40))
    assert out["temp_range.hot_mean_excess"][0] == pytest.approx(
        out["temp_range.hot_seeds"].mean() - out["temp_range.hot_expected"][0])
    with torch.no_grad():
        logits = hub.model(torch.tensor([TOKENIZER.encode("3142>1234")]))[0, -1].double()   # (V,)
    assert np.allclose(out["temp_range.tempered_last"], torch.softmax(logits / 2, -1).numpy(), atol=1e-6)
