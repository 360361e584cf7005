"""Kinds are found by scanning tutor/grading/kinds (issue 29: "a kind is one typed unit"): a new kind's
module is all the registry needs, with no list to edit.  Milliseconds: a throwaway package on sys.path."""
import sys

import pytest

from tutor.grading.kinds import KINDS, _scanned

KIND_MODULE = '''
from tutor.grading.kinds.number import NumberKind


class SignKind(NumberKind):
    name = "{name}"


KIND = SignKind()
'''


def scratch_package(tmp_path, package, modules):
    folder = tmp_path / package
    folder.mkdir()
    (folder / "__init__.py").write_text("", encoding="utf-8")
    for name, text in modules.items():
        (folder / f"{name}.py").write_text(text, encoding="utf-8")
    sys.path.insert(0, str(tmp_path))
    return [str(folder)]


def test_the_built_in_kinds_are_found_in_their_order():
    """(A kind added later comes after them: this test need not change for it.)"""
    assert list(KINDS)[:6] == ["shape", "values", "number", "choice", "symbolic_shape", "formula"]


def test_a_new_module_with_a_kind_is_found_and_a_helper_module_is_not(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    path = scratch_package(tmp_path, "scratchkinds_a", {"sign": KIND_MODULE.format(name="sign"),
                                                        "helper": "TABLE = {'not': 'a kind'}\n",
                                                        "_private": KIND_MODULE.format(name="private")})
    found = _scanned(path, "scratchkinds_a")
    assert list(found) == ["sign"] and found["sign"].answer_format() == KINDS["number"].answer_format()


def test_two_kinds_with_one_name_are_refused(tmp_path, monkeypatch):
    monkeypatch.setattr(sys, "path", list(sys.path))
    path = scratch_package(tmp_path, "scratchkinds_b", {"one": KIND_MODULE.format(name="sign"),
                                                        "two": KIND_MODULE.format(name="sign")})
    with pytest.raises(ImportError, match="two question kinds are named 'sign'"):
        _scanned(path, "scratchkinds_b")
