"""Shared test setup."""
import pytest


@pytest.fixture(autouse=True)
def _private_tutor_home(tmp_path_factory, monkeypatch):
    """Every test gets its own empty TUTOR_HOME: an app built without home= must never read or
    write the developer's real progress (and a reopened lesson would change what tests see)."""
    monkeypatch.setenv("TUTOR_HOME", str(tmp_path_factory.mktemp("tutor-home")))
