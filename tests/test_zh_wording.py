"""Issue 24, the reviewer's wording notes on the Chinese edition, kept fixed."""
import re
from pathlib import Path

import pytest

from tutor.authoring.check_overlay import _numbers
from tutor.common.i18n import _, set_language

ROOT = Path(__file__).resolve().parents[1]
OVERLAYS = sorted((ROOT / "lessons" / "zh").glob("*.yaml"))


def overlay(name: str) -> str:
    return (ROOT / "lessons" / "zh" / f"{name}.yaml").read_text(encoding="utf-8")


def test_chinese_writes_thousands_without_spaces():
    grouped = re.compile(r"(?<![\d.])\d{1,3}(?: \d{3})+(?!\d)")
    found = {path.name: grouped.findall(path.read_text(encoding="utf-8")) for path in OVERLAYS}
    assert {name: hits for name, hits in found.items() if hits} == {}


@pytest.mark.parametrize("lesson, phrase", [
    ("la-linear-composition", "相比较"), ("ca-gradient", "相比较"), ("op-gradient-descent", "相比较"),
    ("it-information-entropy", "新闻"), ("it-information-entropy", "一个个数"), ("de-top-k-top-p", "一个个数"),
    ("de-top-k-top-p", "，……"), ("de-greedy", "开始，（"), ("co-linear-attention", "million"),
    ("nu-residual", "反向传递"), ("nu-residual", "跳跃连接"), ("nu-mixed-precision", "这笔交易"),
    ("op-curvature", "廉价替身"), ("op-curvature", "地图"), ("la-scaled-scores", "推到角落"),
    ("ca-vanishing-exploding", "补数之积"), ("la-embedding-lookup", "多告诉我们"),
])
def test_the_reviewers_phrases_are_reworded(lesson, phrase):
    assert phrase not in overlay(lesson)


def test_interface_words_follow_the_glossary():
    set_language("zh")
    try:
        assert _("vocabulary") == "词汇表"          # 词表 is on the glossary's avoid list
        assert _("In words: ") == "【含义】"   # most translations open "均方误差：…": no second colon after a 含义：
        assert _("temperature") == "温度采样"        # the strategy's name, as greedy is 贪婪搜索
        assert "题所属的题目" not in _("; {count} more for questions no longer in the course (not shown in review)")
        assert _("Keep (k)") == "保留（k）"          # full-width brackets in running Chinese, as elsewhere
    finally:
        set_language("en")


def test_the_overlay_number_check_reads_grouped_and_scaled_numbers_as_one():
    assert _numbers("at most 65 504; 10 000 tokens; 100 million") == _numbers("最大为 65504；10000 个词元；1 亿")
    assert _numbers("65 504") != _numbers("65 505")
