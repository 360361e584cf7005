"""A checkpoint is untrusted: hostile configs, weights and meta fail fast with one clear line."""
import resource
from dataclasses import fields

import pytest
import torch

import tutor.model.checkpoint as ckpt
from tutor.model import GPT, GPTConfig, CharTokenizer
from tutor.model.checkpoint import CheckpointError, load_checkpoint, load_default_model, save_checkpoint

TOK = CharTokenizer()


@pytest.fixture
def payload(tmp_path):
    torch.manual_seed(0)
    model = GPT(GPTConfig(vocab_size=TOK.vocab_size, block_size=16, n_layer=1, n_head=2, d_model=8))
    path = save_checkpoint(tmp_path / "good.pt", model, TOK, {"data": "sort", "steps": 3, "accuracy": 0.5})
    return torch.load(path, weights_only=True)


@pytest.fixture
def built(monkeypatch):
    """The device type of every GPT the loader builds: 'meta' allocates nothing."""
    devices, real = [], ckpt.GPT

    def spy(config):
        devices.append(torch.get_default_device().type)
        return real(config)
    monkeypatch.setattr(ckpt, "GPT", spy)
    return devices


def write(tmp_path, payload, name="hostile.pt"):
    torch.save(payload, tmp_path / name)
    return tmp_path / name


def refused(path, words: str) -> str:
    with pytest.raises(CheckpointError, match=words) as info:
        load_checkpoint(path)
    message = str(info.value)
    assert "\n" not in message and str(path) in message and len(message) < 400 + len(str(path))
    return message


def test_a_huge_layer_count_fails_before_anything_is_built(tmp_path, payload, built):
    payload["config"]["n_layer"] = 10**7
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    message = refused(write(tmp_path, payload), "n_layer")
    assert "1 to 16" in message and built == []
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024   # KiB: < 100 MB


@pytest.mark.parametrize("field, value, words", [
    ("d_model", 64.0, r"d_model must be a whole number from 1 to 1024, not float 64\.0"),
    ("n_head", True, "n_head must be a whole number .* not bool"),
    ("vocab_size", "96", "vocab_size must be a whole number .* not str"),
    ("block_size", -1, r"block_size=-1 is out of range \(allowed: 1 to 4096\)"),
    ("block_size", 0, "out of range"),
    ("d_model", 2048, r"d_model=2048 is out of range \(allowed: 1 to 1024\)"),
    ("n_head", 65, "n_head=65 is out of range"),
    ("mlp_ratio", None, "mlp_ratio must be a whole number"),
    ("vocab_size", 2**100, r"vocab_size=1267650600228229401496703205376 is out of range"),
    ("positions", "rotary", "positions must be one of learned, sinusoidal, none, not 'rotary'"),
    ("positions", ["learned"], "positions must be one of"),
    ("bias", 1, "bias must be true or false, not 1"),
    ("fused_attention", "yes", "fused_attention must be true or false"),
    ("d_model", 9, "d_model=9 must be divisible by n_head=2"),
])
def test_bad_config_values_name_the_field_and_the_allowed_values(tmp_path, payload, built, field, value, words):
    payload["config"][field] = value
    message = refused(write(tmp_path, payload), words)
    assert "invalid config" in message and built == []


def test_missing_extra_and_non_text_config_fields(tmp_path, payload, built):
    config = payload["config"]
    del config["mlp_ratio"]
    refused(write(tmp_path, payload), r"missing fields \['mlp_ratio'\]")
    config["mlp_ratio"], config["wings"] = 4, 2
    refused(write(tmp_path, payload), "unknown fields.*wings")
    del config["wings"]
    config[3] = 4
    refused(write(tmp_path, payload), "field names must be text")
    payload["config"] = [1, 2]
    refused(write(tmp_path, payload), "config is missing")
    assert built == []


@pytest.mark.parametrize("change, words", [
    (lambda s: s.update({"W_E.weight": torch.zeros(96, 16)}),
     r"W_E.weight has shape \(96, 16\), the config needs \(96, 8\)"),
    (lambda s: s.update({"blocks.0.mlp.W_in.weight": torch.zeros(8, 8)}), r"W_in.weight has shape \(8, 8\)"),
    (lambda s: s.pop("W_U.weight"), r"missing \['W_U.weight'\]"),
    (lambda s: s.update({"blocks.1.ln1.weight": torch.zeros(8)}), r"unexpected \['blocks.1.ln1.weight'\]"),
    (lambda s: s.update({"W_E.weight": torch.zeros(96, 8, dtype=torch.int64)}), "W_E.weight is not a float tensor"),
    (lambda s: s.update({"W_E.weight": "weights"}), "W_E.weight is not a float tensor"),
    # refused by the size survey before loading: it knows only what torch.save writes for dense tensors
    (lambda s: s.update({"W_E.weight": torch.zeros(96, 8).to_sparse()}),
     "_rebuild_sparse_tensor, which a checkpoint never"),
    (lambda s: s["W_U.weight"].fill_(float("inf")), "NaN or inf"),
])
def test_weights_are_checked_against_the_config_without_building_it(tmp_path, payload, built, change, words):
    change(payload["state_dict"])
    message = refused(write(tmp_path, payload), words)
    assert "weights" in message
    assert set(built) <= {"meta"}      # the shapes came from a model on the meta device


def test_a_big_but_allowed_config_with_small_weights_fails_on_the_meta_device(tmp_path, payload, built):
    payload["config"].update(n_layer=16, d_model=1024, n_head=16, block_size=4096)
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    refused(write(tmp_path, payload), "weights do not match the config")
    assert built == ["meta"]
    assert resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before < 100 * 1024


def test_not_a_checkpoint_payload(tmp_path, payload):
    refused(write(tmp_path, [1, 2, 3]), "not a transformer-tutor checkpoint")
    refused(write(tmp_path, "text"), "not a transformer-tutor checkpoint")
    refused(write(tmp_path, {**payload, "format": torch.zeros(3)}), "not a transformer-tutor checkpoint")
    refused(write(tmp_path, {**payload, "version": torch.ones(2)}), r"version holds a Tensor")
    refused(write(tmp_path, {**payload, "version": True}), "checkpoint version True")
    refused(write(tmp_path, {**payload, "state_dict": [1]}), "weights are missing")


def test_truncated_and_empty_files(tmp_path, payload):
    data = write(tmp_path, payload).read_bytes()
    for size in (0, 10, len(data) // 3, len(data) - 1):
        (tmp_path / "cut.pt").write_bytes(data[:size])
        refused(tmp_path / "cut.pt", "not a readable checkpoint")


@pytest.mark.parametrize("meta, words", [
    ([1, 2], "meta must be a dict, not list"),
    ({"data": "x" * 5000}, r"meta\['data'\] is 5000 characters long \(at most 4096\)"),
    ({"steps": "many"}, r"meta\['steps'\] must be int, not str"),
    ({"steps": 2.5}, r"meta\['steps'\] must be int, not float"),
    ({"accuracy": True}, r"meta\['accuracy'\] must be int or a number, not bool"),
    ({"stop": 10}, r"meta\['stop'\] must be str, not int"),
    ({"dataset": "sort"}, r"meta\['dataset'\] must be dict"),
    ({"weights": torch.zeros(2)}, r"meta\['weights'\] holds a Tensor"),
    ({"list": list(range(300))}, "more than 256 items"),
    ({"n": {"a": {"b": {"c": {"d": {"e": {"f": 1}}}}}}}, "nested deeper than 6"),
    ({"x" * 200: 1}, "field name that is not short text"),
    ({"big": 2**70}, "too large"),
])
def test_meta_is_untrusted(tmp_path, payload, built, meta, words):
    payload["meta"] = meta
    refused(write(tmp_path, payload), words)
    assert set(built) <= {"meta"}


def test_vocabulary_is_checked_before_use(tmp_path, payload):
    vocab = payload["vocab"]
    refused(write(tmp_path, {**payload, "vocab": vocab[:-1] + "\x1b"}), "control character U\\+001B")
    refused(write(tmp_path, {**payload, "vocab": vocab[:-1] + "\u202e"}), "control character U\\+202E")
    refused(write(tmp_path, {**payload, "vocab": vocab * 2}), "192 characters but the config says vocab_size=96")
    refused(write(tmp_path, {**payload, "vocab": list(vocab)}), "vocabulary is missing")


def test_good_checkpoints_still_load(tmp_path, payload):
    payload["meta"] = {"data": "text", "steps": None, "accuracy": 1, "nested": {"a": [1, 2.5, None, "x"]}}
    model, tok, meta = load_checkpoint(write(tmp_path, payload))
    assert tok == TOK and meta["accuracy"] == 1 and not model.training
    payload["meta"] = None
    assert load_checkpoint(write(tmp_path, payload))[2] == {}
    for kind in ("sinusoidal", "none"):
        m = GPT(GPTConfig(vocab_size=TOK.vocab_size, block_size=8, n_layer=1, n_head=1, d_model=4,
                          positions=kind, bias=False))
        loaded, _, _ = load_checkpoint(save_checkpoint(tmp_path / f"{kind}.pt", m, TOK))
        assert loaded.config == m.config
    model, _, meta = load_default_model()
    assert meta["data"] == "sort" and model.config.n_layer == 2


def test_the_bounds_cover_every_config_field_and_the_presets():
    covered = set(ckpt.INT_BOUNDS) | set(ckpt.CHOICES) | set(ckpt.BOOLS)
    assert covered == {f.name for f in fields(GPTConfig)}
    defaults = GPTConfig()
    for name, (low, high) in ckpt.INT_BOUNDS.items():
        assert low <= getattr(defaults, name) <= high


def test_what_save_writes_load_reads_even_for_oversized_meta(tmp_path):
    model = GPT(GPTConfig(vocab_size=TOK.vocab_size, block_size=8, n_layer=1, n_head=1, d_model=4))
    deep = {"a": {"b": {"c": {"d": {"e": {"f": {"g": 1}}}}}}}
    meta = {"command": "tutor train --data " + "x" * 9000, "many": list(range(1000)), "deep": deep,
            "k" * 300: 1, "big": 2**80, "path": tmp_path}
    _, _, loaded = load_checkpoint(save_checkpoint(tmp_path / "m.pt", model, TOK, meta))
    assert len(loaded["command"]) == ckpt.MAX_TEXT and loaded["command"].startswith("tutor train --data x")
    assert loaded["many"] == list(range(ckpt.MAX_ITEMS)) and loaded["big"] == str(2**80)
    assert loaded["path"] == str(tmp_path) and "k" * ckpt.MAX_KEY in loaded
