"""The weights' digest the Sample tab's look-ahead rule keys its sightings by (tutor.live.model_identity):
the same weights give the same text in every run, other weights another.  Tiny models, milliseconds."""
from tutor.live.model_identity import model_identity
from tutor.model import GPTConfig
from tutor.model.copies import seeded_model

CONFIG = GPTConfig(vocab_size=12, block_size=8, n_layer=1, n_head=2, d_model=8)


def test_the_same_weights_have_one_identity_and_other_weights_another():
    one, twin, other = seeded_model(CONFIG, 1), seeded_model(CONFIG, 1), seeded_model(CONFIG, 2)
    assert model_identity(one) == model_identity(twin) == model_identity(one)   # cached, and stable
    assert len(model_identity(one)) == 32 and model_identity(one) != model_identity(other)


def test_one_changed_weight_is_another_identity():
    import torch

    model, changed = seeded_model(CONFIG, 1), seeded_model(CONFIG, 1)
    with torch.no_grad():
        next(changed.parameters()).view(-1)[0] += 1e-3
    assert model_identity(model) != model_identity(changed)
