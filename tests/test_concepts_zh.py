"""Issue 24: the concept descriptions (`tutor lessons concepts`) translated through the index overlay."""
import re
from pathlib import Path

import pytest
import yaml
from rich.cells import cell_len

from tutor.authoring.check import check_paths
from tutor.cli.main import main
from tutor.common.i18n import set_language
from tutor.course.catalog import builtin_lessons_dir, load_catalog, load_index
from tutor.course.overlay import UNTRANSLATED, index_source_hash, load_index_overlay, translate_index

ZH = builtin_lessons_dir() / "zh"
GLOSSARY = yaml.safe_load((ZH / "glossary.yaml").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def back_to_english():
    yield
    set_language("en")


def write_index_overlay(folder: Path, concepts: str, source: str | None = None) -> Path:
    """An index overlay in ``folder``/zh with every track of the shipped one and the given concepts."""
    shipped = yaml.safe_load((ZH / "index.yaml").read_text(encoding="utf-8"))
    tracks = "".join(f"  {track}:\n    title: {words['title']}\n" for track, words in shipped["tracks"].items())
    path = folder / "zh" / "index.yaml"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(f'format_version: 1\nsource: "{source or index_source_hash(load_index())}"\n'
                    f"tracks:\n{tracks}concepts:\n{concepts}", encoding="utf-8")
    return path


def line_of(path: Path, start: str) -> int:
    return 1 + next(i for i, line in enumerate(path.read_text(encoding="utf-8").splitlines()) if line.startswith(start))


def test_the_overlay_translates_concepts_and_marks_the_rest(tmp_path):
    write_index_overlay(tmp_path, '  la.scaled-scores: "除以 √d_k：单位方差向量的点积，方差为 d_k"\n')
    english = load_index()
    index = translate_index(english, tmp_path, "zh")
    assert index.concepts["la.scaled-scores"] == "除以 √d_k：单位方差向量的点积，方差为 d_k"
    assert index.concepts["pr.softmax"] == UNTRANSLATED + english.concepts["pr.softmax"]
    assert list(index.concepts) == list(english.concepts)
    assert translate_index(english, tmp_path, "en") is english   # no overlay: the English as it is


def test_an_unknown_concept_id_is_an_error_at_its_line(tmp_path):
    path = write_index_overlay(tmp_path, '  pr.softmax: "先取指数，再归一化"\n  la.attention-bias: "注意力偏置"\n')
    report = check_paths([path.parent], live=False)
    found = [p for p in report.problems if p.field == "concepts.la.attention-bias"]
    assert len(found) == 1 and (found[0].path, found[0].line, found[0].column) == (str(path), line_of(path, "  la.attention-bias:"), 3)
    assert "unknown concept id 'la.attention-bias'" in found[0].message and "did you mean" in found[0].message
    assert "tutor lessons concepts" in str(found[0])


def test_a_changed_number_in_a_concept_is_an_error(tmp_path):
    path = write_index_overlay(tmp_path, '  ca.vanishing-exploding: "导数连乘会缩小或爆炸（sigmoid′ ≤ 0.5）"\n')
    report = check_paths([path.parent], live=False)
    assert [(p.field, p.line) for p in report.problems] == [("concepts.ca.vanishing-exploding", line_of(path, "  ca.vanishing"))]
    assert "missing 0.25; extra 0.5" in report.problems[0].message


def test_an_untranslated_concept_is_a_warning_and_the_check_passes(tmp_path):
    path = write_index_overlay(tmp_path, '  pr.softmax: "先取指数，再归一化；每一行都是一个分布；exp 会放大差距"\n')
    report = check_paths([path.parent], live=False)
    assert report.ok and report.problems == []
    missing = [w for w in report.warnings if w.field == "concepts"]
    assert len(missing) == len(load_index().concepts) - 1
    assert {(w.path, w.line, w.field) for w in missing} == {(str(path), line_of(path, "concepts:"), "concepts")}
    assert any(w.message.startswith("la.tensors not translated yet") for w in missing)


def test_an_index_overlay_of_older_english_is_stale(tmp_path, capsys):
    path = write_index_overlay(tmp_path, '  de.top-k: "只在最可能的 k 个词元中采样"\n', source="00000000")
    report = check_paths([path.parent], live=False)
    stale = [w for w in report.warnings if w.field == "source"]
    assert len(stale) == 1 and stale[0].line == line_of(path, "source:")
    assert f"set source: {index_source_hash(load_index())}" in stale[0].message
    code = main(["--lang", "zh", "lessons", "check", "--static", str(path.parent)])
    out = capsys.readouterr().out
    assert code == 0 and "已过期" in out and "还没有翻译" in out


def test_every_shipped_concept_is_translated_fresh_and_checked():
    overlay = load_index_overlay(builtin_lessons_dir(), "zh")
    english = load_index()
    assert overlay is not None and list(overlay.concepts) == list(english.concepts)
    assert overlay.source == index_source_hash(english)
    report = check_paths([ZH / "index.yaml"], live=False)
    assert report.problems == [] and report.warnings == [], report.text()


def test_concept_translations_use_the_glossary():
    overlay = load_index_overlay(builtin_lessons_dir(), "zh")
    english = load_index().concepts
    missing, avoided = [], []
    for concept, chinese in overlay.concepts.items():
        for term in GLOSSARY["terms"]:
            if any(re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", english[concept], re.IGNORECASE)
                   for word in term["en"]) and term["zh"] not in chinese:
                missing.append(f"{concept}: {term['en'][0]} -> {term['zh']}")
            avoided += [f"{concept}: {word}" for word in term.get("avoid", []) if word in chinese]
    assert missing == [] and avoided == []


def test_the_catalog_in_chinese_carries_translated_concepts():
    assert load_catalog(language="zh").index.concepts["de.top-k"] == "只在最可能的 k 个词元中采样"
    assert load_catalog(language="en").index.concepts["de.top-k"] == "sample among the k most likely tokens only"


def test_lessons_concepts_prints_chinese_descriptions(capsys):
    assert main(["--lang", "zh", "lessons", "concepts"]) == 0
    out = capsys.readouterr().out
    assert "la  线性代数" in out and "  pr.masked-softmax " in out
    assert "因果掩码写入 −∞（而不是 0），这样 e^−∞ = 0 就去掉了未来的位置" in out
    assert UNTRANSLATED not in out and "the causal mask writes" not in out
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("  ")]
    assert set(listed) == set(load_index().concepts)   # piped: one line per concept


def test_on_a_terminal_descriptions_wrap_under_themselves(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    monkeypatch.setattr("sys.stdout.isatty", lambda: True)
    assert main(["--lang", "zh", "lessons", "concepts"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert max(map(cell_len, lines)) <= 80
    width = max(map(len, load_index().concepts))
    continued = [line for line in lines if line.startswith(" " * (4 + width))]
    assert continued and all(not line[4 + width].isspace() for line in continued)
    start = lines.index(next(line for line in lines if line.startswith("  pr.ngram-markov ")))
    joined = lines[start][4 + width:] + "".join(line[4 + width:] for line in lines[start + 1:start + 3])
    assert joined.startswith("N-gram 模型靠计数；马尔可夫假设只保留 N − 1 个词元的历史")
