"""Which weights a model holds, as a short text that is the same in every run of the app.

Why: the Sample tab's look-ahead rule (tutor.session.sample_sight) remembers what it showed per
model, so that opening a lesson later, even after a restart, can tell whether the distribution the
learner saw came from the very weights the lesson reads.  A label ("shipped default checkpoint",
"your run, 300 steps") can name two different models, and the hub's version counts only within one
run; a digest of the weights cannot confuse two models.  Cached per model object: the app never
changes a model's weights in place (training runs on a private copy and the hub swaps in a new one).
"""
from __future__ import annotations

import hashlib
import weakref

_CACHE: "weakref.WeakKeyDictionary[object, str]" = weakref.WeakKeyDictionary()


def model_identity(model) -> str:
    """A digest of the model's parameters and buffers, names included (32 hex digits)."""
    try:
        return _CACHE[model]
    except (KeyError, TypeError):
        pass
    digest = hashlib.blake2b(digest_size=16)
    for name, tensor in sorted(model.state_dict().items()):
        digest.update(name.encode("utf-8"))
        digest.update(str(tuple(tensor.shape)).encode("ascii"))
        digest.update(tensor.detach().cpu().float().contiguous().numpy().tobytes())
    identity = digest.hexdigest()
    try:
        _CACHE[model] = identity
    except TypeError:   # an object that cannot be weakly referenced: computed each time
        pass
    return identity
