"""Every registered experiment, not a list kept by hand: it leaves the shared model, its gradients,
torch's random state and thread count as they were, it is described and costed, and the
course's index (what lesson validation and the compute budget read) matches the decorators."""
import pytest
import torch

from conftest import experiment_context as context
from tutor.course.experiment_index import EXPERIMENT_COSTS
from tutor.experiments import COSTS, DESCRIPTIONS, EXPERIMENTS
from tutor.experiments.index import INDEX, render

ROWS = ["3142>1234", "9075>0579"]   # two rows of the task the shipped model was trained on (B = 2, L = 9)


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_the_experiment_never_changes_the_shared_model(hub, name):
    model = hub.model
    before = {key: value.clone() for key, value in model.state_dict().items()}
    rng, threads = torch.random.get_rng_state(), torch.get_num_threads()
    out = EXPERIMENTS[name](context(model, ROWS))
    after = model.state_dict()
    assert before.keys() == after.keys()
    changed = [key for key in before if not torch.equal(before[key], after[key])]
    assert changed == [], f"{name} modified the shared model: {changed}"
    assert all(p.grad is None for p in model.parameters()), f"{name} left gradients on the shared model"
    assert not model.training, f"{name} left the shared model in training mode"
    assert torch.equal(torch.random.get_rng_state(), rng), f"{name} moved torch's global random state"
    assert torch.get_num_threads() == threads
    assert out and all(key.startswith(f"{name}.") for key in out), f"{name} returned tensors outside {name}.*"


@pytest.mark.parametrize("name", sorted(EXPERIMENTS))
def test_the_experiment_is_described_and_costed(name):
    assert len(DESCRIPTIONS[name]) > 40
    passes, copies = COSTS[name]
    assert passes >= 1 and copies >= 1


def test_the_course_index_is_written_from_the_decorators():
    assert INDEX.read_text(encoding="utf-8") == render(), "stale: run python -m tutor.experiments.index"
    assert EXPERIMENT_COSTS == COSTS
