"""A training text outside the model's vocabulary is refused, or its replaced characters named.

Every character the vocabulary lacks is encoded as '?', so a Chinese text once trained a model
on nothing but '?' without a word.
"""
import argparse

import pytest

from model.data import load_dataset
from tutor.cli import train as train_command

CHINESE = "中文汉字测试文本。" * 400
ACCENTED = ("héllo wörld, naïve café " * 100 + "\n") * 4


def call(*argv):
    parser = argparse.ArgumentParser(prog="tutor")
    train_command.add_parser(parser.add_subparsers(dest="command", required=True))
    args = parser.parse_args(list(argv))
    return args.func(args)


def test_a_text_mostly_outside_the_vocabulary_is_refused(tmp_path):
    (tmp_path / "zh.txt").write_text(CHINESE, encoding="utf-8")
    with pytest.raises(ValueError, match=r"3,600 of its 3,600 characters are outside the model's vocabulary"):
        load_dataset(str(tmp_path / "zh.txt"))


def test_replaced_characters_are_counted_and_named(tmp_path):
    (tmp_path / "fr.txt").write_text(ACCENTED, encoding="utf-8")
    dataset = load_dataset(str(tmp_path / "fr.txt"))
    assert dataset.describe()["replaced"] == 1600
    assert dataset.replaced_note() == ("1,600 characters outside the model's vocabulary (U+00E9 é, U+00F6 ö, "
                                       "U+00EF ï) are trained on as '?'")
    assert load_dataset("sort").describe().get("replaced") is None


def test_train_says_so(tmp_path, capsys):
    (tmp_path / "zh.txt").write_text(CHINESE, encoding="utf-8")
    assert call("train", "--data", str(tmp_path / "zh.txt"), "--steps", "1") == 2
    assert "outside the model's vocabulary" in capsys.readouterr().err
    (tmp_path / "fr.txt").write_text(ACCENTED, encoding="utf-8")
    assert call("train", "--data", str(tmp_path / "fr.txt"), "--steps", "1", "--batch-size", "2",
                "--out", str(tmp_path / "fr.pt")) == 0
    assert "note: 1,600 characters outside the model's vocabulary" in capsys.readouterr().err
