"""Shared test setup."""
import pytest


@pytest.fixture(autouse=True)
def _private_tutor_home(tmp_path_factory, monkeypatch):
    """Every test gets its own empty TUTOR_HOME: an app built without home= must never read or
    write the developer's real progress (and a reopened lesson would change what tests see)."""
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path_factory.mktemp("tutor-home")))
    # the lesson cache (tutor/course/cache.py) lives in the user cache dir, which platformdirs reads from here
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("cache")))
    # Choices are shuffled per learner, seeded by a random id made with the home: one fixed id makes
    # every test and snapshot see the same order.  This one happens to keep the author's order for
    # the two choice questions that tests answer by letter (the journey lesson's pick and
    # pr-masked-softmax's question 2, a snapshot); tests/test_session_choices.py tests the shuffle.
    monkeypatch.setattr("tutor.progress.store.new_learner_id", lambda: "tests0021")


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
