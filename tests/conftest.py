"""Shared test setup."""
import pytest


@pytest.fixture(autouse=True)
def _private_tutor_home(tmp_path_factory, monkeypatch):
    """Every test gets its own empty TUTOR_HOME: an app built without home= must never read or
    write the developer's real progress (and a reopened lesson would change what tests see)."""
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path_factory.mktemp("tutor-home")))
    # the lesson cache (tutor/course/cache.py) lives in the user cache dir, which platformdirs reads from here
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))


@pytest.fixture(autouse=True, scope="module")
def _one_torch_thread():
    """Tiny models run faster on one thread, and the test machine's two cores are shared."""
    import torch

    before = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(before)


@pytest.fixture(scope="module")
def hub():
    """The app's model hub with the shipped checkpoint loaded."""
    from tutor.live.hub import ModelHub

    loaded = ModelHub()
    loaded.ensure_loaded()
    return loaded


def experiment_context(model, rows, seed=0):
    """An ExperimentContext for text rows, as compute_live would build it."""
    import torch

    from tutor.model import CharTokenizer
    from tutor.experiments import ExperimentContext

    tokenizer = CharTokenizer()
    tokens = torch.tensor([tokenizer.encode(row) for row in rows])                 # (B, L)
    sizes = {"B": len(rows), "L": len(rows[0]), "D": model.config.d_model, "H": model.config.n_head}
    return ExperimentContext(model, tokens, tokenizer, sizes, seed)
