"""The Chinese glossary: one term per concept, used by every lesson overlay, and the docs in step."""
import re
from pathlib import Path

import yaml

from tutor.course.catalog import builtin_lessons_dir, load_catalog
from tutor.course.overlay import english_prose, load_overlay, overlay_files

ROOT = Path(__file__).resolve().parents[1]
GLOSSARY = yaml.safe_load((builtin_lessons_dir() / "zh" / "glossary.yaml").read_text(encoding="utf-8"))
DOC = (ROOT / "docs" / "glossary-zh.md").read_text(encoding="utf-8")


def flat(value) -> str:
    if isinstance(value, dict):
        return " ".join(flat(v) for v in value.values())
    if isinstance(value, list):
        return " ".join(flat(v) for v in value)
    return "" if value is None else str(value)


def mentions(text: str, words: list[str]) -> bool:
    return any(re.search(r"(?<![\w-])" + re.escape(word) + r"(?![\w-])", text, re.IGNORECASE) for word in words)


def overlays():
    catalog = load_catalog(language="en")
    for path in overlay_files(builtin_lessons_dir(), "zh"):
        overlay = load_overlay(path)
        translated = flat(overlay.model_dump(exclude={"format_version", "lesson", "source"}))
        yield overlay.lesson, flat(english_prose(catalog.get(overlay.lesson).lesson)), translated


def test_every_english_term_in_a_lesson_has_its_chinese_term_in_the_translation():
    allowed = GLOSSARY.get("allow") or {}
    missing = [f"{lesson}: '{term['en'][0]}' in the English, no {term['zh']} in the translation"
               for lesson, english, chinese in overlays() for term in GLOSSARY["terms"]
               if mentions(english, term["en"]) and term["zh"] not in chinese
               and term["en"][0] not in allowed.get(lesson, [])]
    assert missing == []


def avoided() -> list[tuple[str, str]]:
    """(form, what to write instead): the glossary terms' avoided forms and the avoided phrases."""
    return ([(avoid, term["zh"]) for term in GLOSSARY["terms"] for avoid in term.get("avoid", [])]
            + [(entry["phrase"], entry["use"]) for entry in GLOSSARY.get("avoid_phrases") or []])


def msgstrs(po: Path) -> str:
    """Only the translations: an avoided form may be quoted in an English msgid or a comment."""
    import babel.messages.pofile

    with po.open("rb") as handle:
        catalog = babel.messages.pofile.read_po(handle)
    return " ".join(flat(list(message.string) if isinstance(message.string, tuple) else message.string)
                    for message in catalog if message.id)


def other_chinese_texts():
    """The Chinese a learner reads outside the lesson overlays: concepts, interface, README, docs."""
    yield "lessons/zh/index.yaml", flat(yaml.safe_load((builtin_lessons_dir() / "zh" / "index.yaml")
                                                      .read_text(encoding="utf-8")))
    yield "tutor.po", msgstrs(ROOT / "tutor" / "locale" / "zh" / "LC_MESSAGES" / "tutor.po")
    for name in ("README.zh.md", "docs/lessons.zh.md"):
        yield name, (ROOT / name).read_text(encoding="utf-8")


def test_no_translation_uses_an_avoided_form():
    found = [f"{lesson}: {form} (use {use})" for lesson, _, chinese in overlays()
             for form, use in avoided() if form in chinese]
    assert found == []


def test_no_concept_interface_string_or_chinese_doc_uses_an_avoided_form():
    allowed = GLOSSARY.get("allow_forms") or {}
    found = [f"{name}: {form} (use {use})" for name, chinese in other_chinese_texts()
             for form, use in avoided() if form in chinese and form not in allowed.get(name, {})]
    assert found == []


def test_the_avoid_checks_see_each_text(tmp_path):
    """Each text the check reads is really read: a planted avoided form is found in it."""
    texts = dict(other_chinese_texts())
    assert set(texts) == {"lessons/zh/index.yaml", "tutor.po", "README.zh.md", "docs/lessons.zh.md"}
    assert all("的" in text for text in texts.values())
    po = tmp_path / "x.po"
    po.write_text('msgid ""\nmsgstr ""\n"Content-Type: text/plain; charset=UTF-8\\n"\n\n'
                  'msgid "perplexity is an effective branching factor"\nmsgstr "困惑度是一个等效分支数"\n',
                  encoding="utf-8")
    assert "等效分支数" in msgstrs(po) and "effective" not in msgstrs(po)


def test_allowed_forms_name_real_texts_and_avoided_forms():
    texts = {name for name, _ in other_chinese_texts()}
    forms = {form for form, _ in avoided()}
    for name, allowed in (GLOSSARY.get("allow_forms") or {}).items():
        assert name in texts and set(allowed) <= forms and all(allowed.values()), name


def test_allow_list_names_real_lessons_and_terms():
    lessons = {lesson for lesson, _, _ in overlays()}
    english_terms = {term["en"][0] for term in GLOSSARY["terms"]}
    for lesson, terms in (GLOSSARY.get("allow") or {}).items():
        assert lesson in lessons and set(terms) <= english_terms, lesson


def test_the_docs_list_the_avoided_phrases():
    assert all(entry["phrase"] in DOC and entry["use"] in DOC for entry in GLOSSARY["avoid_phrases"])


def test_the_docs_table_lists_the_same_terms():
    rows = {tuple(cell.strip() for cell in line.strip("|").split("|"))[:2]
            for line in DOC.splitlines() if line.startswith("| ") and not line.startswith("| English")}
    assert rows == {(", ".join(term["en"]), term["zh"]) for term in GLOSSARY["terms"]}


def test_the_terms_the_issue_names_are_in_the_glossary():
    chinese = {term["zh"] for term in GLOSSARY["terms"]}
    assert {"张量", "注意力", "因果掩码", "交叉熵", "困惑度", "束搜索", "词元", "嵌入", "残差流", "层归一化", "梯度",
            "学习率", "温度", "采样"} <= chinese
