"""A checkpoint's declared sizes are checked before torch.load reads any weight.

A 1.48 MB file holding one deflated extra tensor once made the loader allocate 1.36 GB before
refusing it; here torch.load is made to fail, so each refusal is proven to come first.
"""
import zipfile

import pytest
import torch

import model.checkpoint as checkpoint
from model.checkpoint import CheckpointError, default_checkpoint_path, load_checkpoint

REAL_LOAD = torch.load   # the fixture below replaces torch.load; the tests still need it to build files


@pytest.fixture
def no_torch_load(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("torch.load ran before the archive's sizes were checked")

    monkeypatch.setattr(checkpoint.torch, "load", refuse)


def shipped_payload() -> dict:
    return REAL_LOAD(default_checkpoint_path(), weights_only=True)


def save_deflated(payload: dict, path) -> None:
    """torch.save, then every big record deflated, as a hostile file would be."""
    plain = path.with_suffix(".plain")
    torch.save(payload, plain)
    with zipfile.ZipFile(plain) as src, zipfile.ZipFile(path, "w") as dst:
        for entry in src.infolist():
            info = zipfile.ZipInfo(entry.filename)
            info.compress_type = zipfile.ZIP_DEFLATED if entry.file_size > 1 << 20 else zipfile.ZIP_STORED
            dst.writestr(info, src.read(entry))


def test_a_deflated_extra_weight_is_refused_before_loading(tmp_path, no_torch_load):
    payload = shipped_payload()
    payload["state_dict"]["extra"] = torch.zeros(4_000_000)   # 16 MB that deflates to a few KB
    save_deflated(payload, tmp_path / "bomb.pt")
    assert (tmp_path / "bomb.pt").stat().st_size < 1_000_000
    with pytest.raises(CheckpointError, match=r"refused before loading: .*unexpected \['extra'\]"):
        load_checkpoint(tmp_path / "bomb.pt")


def test_a_tensor_outside_the_weights_is_refused_before_loading(tmp_path, no_torch_load):
    payload = shipped_payload()
    payload["meta"]["notes"] = [torch.zeros(4_000_000)]
    save_deflated(payload, tmp_path / "meta.pt")
    with pytest.raises(CheckpointError, match=r"meta\['notes'\]\[0\] holds a Tensor"):
        load_checkpoint(tmp_path / "meta.pt")


def test_a_weight_over_a_larger_storage_is_refused_before_loading(tmp_path, no_torch_load):
    payload = shipped_payload()
    name, weight = next(iter(payload["state_dict"].items()))
    big = torch.zeros(weight.numel() * 100)
    payload["state_dict"][name] = big[: weight.numel()].view(weight.shape)   # torch.save keeps all of `big`
    save_deflated(payload, tmp_path / "view.pt")
    with pytest.raises(CheckpointError, match=f"its weight {name} declares"):
        load_checkpoint(tmp_path / "view.pt")


def test_a_record_smaller_than_its_tensor_declares_is_refused(tmp_path, no_torch_load):
    save_deflated(shipped_payload(), tmp_path / "ok.pt")
    with zipfile.ZipFile(tmp_path / "ok.pt") as src, zipfile.ZipFile(tmp_path / "cut.pt", "w") as dst:
        for entry in src.infolist():
            data = src.read(entry)
            dst.writestr(entry.filename, data[:-4] if entry.filename.endswith("/data/0") else data)
    with pytest.raises(CheckpointError, match="does not have the size its tensor declares"):
        load_checkpoint(tmp_path / "cut.pt")


def test_names_that_torch_save_never_writes_are_refused(tmp_path, no_torch_load):
    payload = shipped_payload()
    payload["meta"]["when"] = __import__("datetime").date(2024, 1, 1)
    torch.save(payload, tmp_path / "odd.pt")
    with pytest.raises(CheckpointError, match="datetime.date, which a checkpoint never holds"):
        load_checkpoint(tmp_path / "odd.pt")


def test_the_shipped_checkpoint_still_loads(tmp_path):
    save_deflated(shipped_payload(), tmp_path / "copy.pt")
    model, tokenizer, meta = load_checkpoint(tmp_path / "copy.pt")
    assert model.config.vocab_size == tokenizer.vocab_size


def test_checking_shapes_on_the_meta_device_does_not_import_dynamo():
    """normal_ on a meta tensor imports torch._dynamo (as long as torch's own import): the model
    was ready seconds after the first paint because of it.  No clock: what is imported is checked."""
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    code = ("import sys\nfrom model.checkpoint import load_default_model\nload_default_model()\n"
            "print('torch._dynamo' in sys.modules)")
    done = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, timeout=300)
    assert done.stdout.strip() == "False", done.stderr
