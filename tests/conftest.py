"""Shared test setup."""
import pytest


@pytest.fixture(scope="session")
def _warm_lesson_cache(tmp_path_factory):
    """The built-in lessons' cache (tutor/course/cache.py), built once per test session (per xdist
    worker) in both languages: without it every app a test builds reads and validates all the
    lesson files again (seconds each on the shared two cores).  Sharing it is safe because the
    cache is used only when its key matches every lesson file's stamp, the code and the language;
    a test of the cache itself passes its own ``cache_dir``."""
    from tutor.course.cache import open_catalog

    cache_home = tmp_path_factory.mktemp("cache")
    for language in ("en", "zh"):
        open_catalog(cache_dir=cache_home / "tutor", language=language)
    return cache_home


@pytest.fixture(autouse=True)
def _private_tutor_home(tmp_path_factory, monkeypatch, _warm_lesson_cache):
    """Every test gets its own empty TUTOR_HOME: an app built without home= must never read or
    write the developer's real progress (and a reopened lesson would change what tests see)."""
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path_factory.mktemp("tutor-home")))
    # the lesson cache lives in the user cache dir, which platformdirs reads from here: the warm one
    monkeypatch.setenv("XDG_CACHE_HOME", str(_warm_lesson_cache))
    # Choices are shuffled per learner, seeded by a random id made with the home: one fixed id makes
    # every test and snapshot see the same order.  This one happens to keep the author's order for
    # the journey lesson's pick, which tests answer by letter (pr-masked-softmax's question 2, a
    # snapshot, is answered by the letter this id shows); tests/test_session_choices.py tests the shuffle.
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


# What makes a test slow, read from the test itself so a new one is marked without anyone
# remembering: the shipped model run over lessons (the ``hub`` fixture, the built-in lessons
# checked live), a training run, or another Python process.  ``-m "not slow"`` is the quick
# run while editing; the default run (the README's command, CI) runs everything.
SLOW_WORDS = {
    "content": ("builtin_lessons_dir()", "check_paths(", "every_built_in", "compute_live("),
    "training": ("Trainer", "train(pilot", "run_training(", "train_command"),
    "subprocess": ("subprocess.", "sys.executable", "Popen(", "serve_process"),
}


def pytest_collection_modifyitems(config, items):
    import inspect

    for item in items:
        function = getattr(item, "function", None)
        try:
            source = inspect.getsource(function) if function else ""
        except (OSError, TypeError):
            source = ""
        why = [kind for kind, words in SLOW_WORDS.items() if any(word in source for word in words)]
        if "hub" in getattr(item, "fixturenames", ()):
            why.append("content")
        if why:
            item.add_marker(pytest.mark.slow(*sorted(set(why))))


@pytest.fixture(scope="module")
def scores(hub):
    """la-scaled-scores' formula question on its live tensors (d_k is 4 at the lesson's sizes):
    (question, live result, truth)."""
    from pathlib import Path

    import yaml

    from tutor.course.schema import Lesson
    from tutor.grading.quiz import truth_for
    from tutor.live.compute import compute_live

    path = Path(__file__).resolve().parents[1] / "lessons" / "la-scaled-scores.yaml"
    lesson = Lesson.model_validate(yaml.safe_load(path.read_text(encoding="utf-8")))
    live = compute_live(lesson, hub)
    question = next(q for q in lesson.questions if q.kind == "formula")
    return question, live, truth_for(question, live.tensors, live.sizes)
