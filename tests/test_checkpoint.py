"""Checkpoints: round trip, atomic saves, untrusted or broken files, and the shipped default."""
import os
import pickle

import pytest
import torch

from tutor.model import GPT, GPTConfig, CharTokenizer
from tutor.model.checkpoint import (CheckpointError, default_checkpoint_path, describe_checkpoint, load_checkpoint,
                              load_default_model, save_checkpoint)
from tutor.model.data import SyntheticTask

TOK = CharTokenizer()
META = {"data": "sort", "steps": 3, "train_loss": 1.5, "val_loss": 1.6, "accuracy": 0.25, "seed": 0,
        "created": "2025-01-01T00:00:00+00:00", "nested": {"a": [1, 2.5, None, "x"]}}


@pytest.fixture
def tiny():
    torch.manual_seed(0)
    return GPT(GPTConfig(vocab_size=TOK.vocab_size, block_size=16, n_layer=1, n_head=2, d_model=8))


def test_round_trip_keeps_config_vocab_weights_and_meta(tmp_path, tiny):
    path = save_checkpoint(tmp_path / "sub" / "m.pt", tiny, TOK, {**META, "path": tmp_path})
    model, tok, meta = load_checkpoint(path)
    assert model.config == tiny.config and tok == TOK and not model.training
    assert meta["nested"] == META["nested"] and meta["path"] == str(tmp_path)
    x = torch.tensor([TOK.encode("3141>")])
    torch.testing.assert_close(model(x), tiny.eval()(x))
    assert [p.name for p in path.parent.iterdir()] == ["m.pt"]     # no temp file left behind


def test_a_failed_save_leaves_the_old_file_intact(tmp_path, tiny, monkeypatch):
    path = save_checkpoint(tmp_path / "m.pt", tiny, TOK, META)
    before = path.read_bytes()

    def broken_save(obj, f):
        f.write(b"half a checkpoint")
        raise OSError("disk full")
    monkeypatch.setattr(torch, "save", broken_save)
    with pytest.raises(OSError):
        save_checkpoint(path, tiny, TOK, META)
    assert path.read_bytes() == before and os.listdir(tmp_path) == ["m.pt"]


def test_truncated_garbage_missing_and_directory_are_clear_errors(tmp_path, tiny):
    path = save_checkpoint(tmp_path / "m.pt", tiny, TOK, META)
    data = path.read_bytes()
    (tmp_path / "cut.pt").write_bytes(data[: len(data) // 2])
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint at all")
    for name, words in [("cut.pt", "corrupt"), ("junk.pt", "corrupt"), ("nope.pt", "no such"), ("", "not a file")]:
        with pytest.raises(CheckpointError, match=words) as info:
            load_checkpoint(tmp_path / name)
        assert str(tmp_path / name) in str(info.value)


class Evil:
    def __reduce__(self):
        return (os.system, ("echo pwned > pwned.txt",))


def test_a_pickle_with_code_is_refused_not_run(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    torch.save({"format": "transformer-tutor/gpt", "evil": Evil()}, tmp_path / "evil.pt", pickle_protocol=2)
    with pytest.raises(CheckpointError, match="not a readable checkpoint"):
        load_checkpoint(tmp_path / "evil.pt")
    assert not (tmp_path / "pwned.txt").exists()
    (tmp_path / "plain.pt").write_bytes(pickle.dumps([1, 2, 3], protocol=2))
    with pytest.raises(CheckpointError):
        load_checkpoint(tmp_path / "plain.pt")


def _tampered(tmp_path, tiny, change):
    path = save_checkpoint(tmp_path / "m.pt", tiny, TOK, META)
    payload = torch.load(path, weights_only=True)
    change(payload)
    torch.save(payload, path)
    return path


@pytest.mark.parametrize("change, words", [
    (lambda p: p.update(format="something else"), "not a transformer-tutor"),
    (lambda p: p.update(version=99), "version 99"),
    (lambda p: p["config"].update(d_model=12), "do not match"),
    (lambda p: p["config"].update(n_head=3), "invalid config"),
    (lambda p: p["config"].update(wings=2), "unknown fields"),
    (lambda p: p.update(vocab=p["vocab"][:-1]), "vocab_size"),
    (lambda p: p.update(vocab=None), "vocabulary is missing"),
    (lambda p: p["state_dict"].pop("W_U.weight"), "do not match"),
    (lambda p: p["state_dict"]["W_E.weight"].fill_(float("nan")), "NaN"),
])
def test_mismatches_are_reported(tmp_path, tiny, change, words):
    with pytest.raises(CheckpointError, match=words):
        load_checkpoint(_tampered(tmp_path, tiny, change))


def test_an_expected_vocabulary_must_match(tmp_path, tiny):
    path = save_checkpoint(tmp_path / "m.pt", tiny, TOK, META)
    other = CharTokenizer("?" + TOK.chars.replace("?", "")[:-1] + "é")
    with pytest.raises(CheckpointError, match="vocabulary mismatch"):
        load_checkpoint(path, expected_tokenizer=other)
    load_checkpoint(path, expected_tokenizer=CharTokenizer())


def test_the_shipped_default_is_small_trained_and_sorts():
    path = default_checkpoint_path()
    assert path.is_file() and path.stat().st_size <= 3 * 1024 * 1024
    model, tok, meta = load_default_model()
    for key in ("data", "steps", "train_loss", "val_loss", "accuracy", "seed", "created", "command", "stop"):
        assert key in meta, key
    assert meta["data"] == "sort" and meta["accuracy"] >= 0.95
    assert model.config.d_model == 64 and model.config.n_head == 4 and model.config.positions == "learned"
    task = SyntheticTask("sort", meta["dataset"]["min_len"], meta["dataset"]["max_len"], tok)
    assert task.accuracy(model, n=200) >= 0.95
    assert describe_checkpoint("shipped", meta).startswith("shipped (trained on sort, 1500 steps, accuracy")
