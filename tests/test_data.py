"""Built-in data: the task format, the scored positions, the split, and determinism."""
import pytest
import torch
import torch.nn as nn

from tutor.model import CharTokenizer
from tutor.model.data import IGNORE, SyntheticTask, TextCorpus, builtin_text, load_dataset

TOK = CharTokenizer()


def rows(task, n=64, seed=0, split="train"):
    x, y = task.get_batch(split, n, torch.Generator().manual_seed(seed))
    return x, y


@pytest.mark.parametrize("name", ["sort", "reverse"])
def test_rows_are_one_example_from_position_zero_and_only_answers_are_scored(name):
    task = SyntheticTask(name, 1, 6)
    x, y = rows(task)
    assert x.shape == y.shape == (64, task.seq_len)
    for xr, yr in zip(x, y):
        text = TOK.decode(xr)
        digits, rest = text.split(">", 1)
        assert digits.isdigit() and 1 <= len(digits) <= 6
        assert rest.startswith(task.answer(digits))
        assert rest[len(digits):] == "\n" * (len(rest) - len(digits))
        scored = "".join(TOK.decode([t]) for t in yr.tolist() if t != IGNORE)
        assert scored == task.answer(digits) + "\n"
        # every scored target is the token that really comes next
        full = TOK.encode(text + "\n")
        for i, t in enumerate(yr.tolist()):
            if t != IGNORE:
                assert t == full[i + 1]


def test_answers():
    assert SyntheticTask("sort").format("3141") == ("3141>", "1134\n")
    assert SyntheticTask("reverse").format("3141") == ("3141>", "1413\n")


def test_same_seed_same_batches_different_seed_different():
    task = SyntheticTask("sort")
    a, b, c = rows(task, seed=3), rows(task, seed=3), rows(task, seed=4)
    assert torch.equal(a[0], b[0]) and torch.equal(a[1], b[1])
    assert not torch.equal(a[0], c[0])


def test_train_and_validation_strings_never_overlap():
    task = SyntheticTask("sort", 1, 4)
    val = set(task.validation_examples(300))
    x, _ = rows(task, n=4000)
    train = {TOK.decode(r).split(">")[0] for r in x}
    assert val and train and not (val & train)
    assert task.validation_examples(50) == task.validation_examples(50)


class Oracle(nn.Module):
    """Puts all its logit on the right next token: a model with 100% exact match."""

    def __init__(self, task, wrong_every=0):
        super().__init__()
        self.task, self.wrong_every, self.w = task, wrong_every, nn.Parameter(torch.zeros(1))
        self.config = type("C", (), {"block_size": 64})

    def forward(self, idx):
        logits = torch.zeros(*idx.shape, TOK.vocab_size)
        for b, row in enumerate(idx):
            text = TOK.decode(row)
            digits, done = text.split(">", 1)
            target = (self.task.answer(digits) + "\n")[len(done)]
            if self.wrong_every and b % self.wrong_every == 0:
                target = "x"
            logits[b, -1, TOK.encode(target)[0]] = 10.0
        return logits


def test_accuracy_is_exact_match_of_the_greedy_answer():
    task = SyntheticTask("reverse", 1, 5)
    examples = task.validation_examples(40)
    assert task.accuracy(Oracle(task), examples=examples) == 1.0
    assert task.accuracy(Oracle(task, wrong_every=1), examples=examples) == 0.0
    assert 0.0 < task.accuracy(Oracle(task, wrong_every=2), examples=examples) < 1.0


def test_text_corpus_windows_shift_by_one_and_splits_are_disjoint_spans():
    text = "".join(f"line {i}: the quick brown fox.\n" for i in range(200))
    corpus = TextCorpus(text, block_size=16)
    x, y = corpus.get_batch("train", 8, torch.Generator().manual_seed(0))
    assert x.shape == y.shape == (8, 16)
    assert torch.equal(x[:, 1:], y[:, :-1])
    cut = int(len(text) * 0.9)
    xv, _ = corpus.get_batch("val", 32, torch.Generator().manual_seed(0))
    for r in xv:
        assert TOK.decode(r) in text[cut:]


def test_builtin_text_ships_with_python():
    text = builtin_text()
    assert len(text) > 100_000
    assert "the" in text


def test_load_dataset_choices_and_clear_errors(tmp_path):
    assert isinstance(load_dataset("sort"), SyntheticTask)
    f = tmp_path / "story.txt"
    f.write_text("once upon a time " * 50, encoding="utf-8")
    assert isinstance(load_dataset(str(f), block_size=16), TextCorpus)
    with pytest.raises(ValueError, match="neither sort"):
        load_dataset(str(tmp_path / "missing.txt"))
    (tmp_path / "short.txt").write_text("hi", encoding="utf-8")
    with pytest.raises(ValueError, match="split has"):
        load_dataset(str(tmp_path / "short.txt"))
    (tmp_path / "bin.txt").write_bytes(b"\xff\xfe\x00" * 100)
    with pytest.raises(ValueError, match="UTF-8"):
        load_dataset(str(tmp_path / "bin.txt"))
    with pytest.raises(ValueError, match="block_size"):
        load_dataset("sort", block_size=8, max_len=8)
