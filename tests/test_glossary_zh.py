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
    return value or ""


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


def test_no_translation_uses_an_avoided_form():
    found = [f"{lesson}: {avoid} (use {term['zh']})" for lesson, _, chinese in overlays()
             for term in GLOSSARY["terms"] for avoid in term.get("avoid", []) if avoid in chinese]
    assert found == []


def test_allow_list_names_real_lessons_and_terms():
    lessons = {lesson for lesson, _, _ in overlays()}
    english_terms = {term["en"][0] for term in GLOSSARY["terms"]}
    for lesson, terms in (GLOSSARY.get("allow") or {}).items():
        assert lesson in lessons and set(terms) <= english_terms, lesson


def test_the_docs_table_lists_the_same_terms():
    rows = {tuple(cell.strip() for cell in line.strip("|").split("|"))[:2]
            for line in DOC.splitlines() if line.startswith("| ") and not line.startswith("| English")}
    assert rows == {(", ".join(term["en"]), term["zh"]) for term in GLOSSARY["terms"]}


def test_the_terms_the_issue_names_are_in_the_glossary():
    chinese = {term["zh"] for term in GLOSSARY["terms"]}
    assert {"张量", "注意力", "因果掩码", "交叉熵", "困惑度", "束搜索", "词元", "嵌入", "残差流", "层归一化", "梯度",
            "学习率", "温度", "采样"} <= chinese
