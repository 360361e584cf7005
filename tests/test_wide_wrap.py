"""Chinese lesson prose wraps between characters, as Chinese is set, and English at spaces."""
import io

from hypothesis import given, strategies as st
from rich.cells import cell_len
from rich.console import Console
from rich.text import Text

from tutor.common.wide_wrap import break_offsets, units
from tutor.ui.widgets.prose import Prose

ZH = ("单独一个数是标量（0 阶）。D 个数排成一列是向量（1 阶）：在这里，就是描述一个词元的 D 个特征。"
      "把一句话里 L 个词元的向量叠起来，得到形状为 (L, D) 的矩阵（2 阶）。")


def rendered(prose, width: int) -> list[str]:
    console = Console(width=width, file=io.StringIO(), record=True)
    console.print(prose)
    return console.export_text().rstrip("\n").split("\n")


def test_chinese_fills_every_line_but_the_last():
    lines = rendered(Prose(ZH), 40)
    assert all(cell_len(line) <= 40 for line in lines)
    assert all(cell_len(line) >= 37 for line in lines[:-1]), lines   # no ragged half-empty lines
    assert "".join(lines).replace(" ", "") == ZH.replace(" ", "")


def test_closing_punctuation_never_starts_a_line_and_opening_never_ends_one():
    for width in range(8, 60):
        for line in rendered(Prose(ZH), width):
            assert line[:1] not in "，。）：、", (width, line)
            assert line.rstrip()[-1:] not in "（", (width, line)


def test_english_still_breaks_only_at_spaces():
    text = "A single number is a scalar (rank 0). A list of D numbers is a vector (rank 1)."
    assert rendered(Prose(text), 30) == [line.rstrip() for line in rendered(Text(text), 30)]
    assert units("is a scalar") == ["is ", "a ", "scalar"]


def test_a_word_longer_than_the_line_is_folded():
    assert break_offsets("x" * 25, 10) == [10, 20]
    assert rendered(Prose("ab " + "x" * 12), 5) == ["ab", "xxxxx", "xxxxx", "xx"]


def test_styles_survive_the_wrapping():
    lines = Prose(Text.assemble(("张量", "bold"), "一个批次的句子")).lines(4)
    assert [line.plain for line in lines] == ["张量", "一个", "批次", "的句", "子"]
    assert [span.style for span in lines[0].spans] == ["bold"] and lines[1].spans == []


@given(st.text(alphabet="ab 张量（）。，\n", max_size=60), st.integers(min_value=2, max_value=30))
def test_no_line_is_wider_than_the_width_and_no_character_is_lost(text, width):
    lines = Prose(text).lines(width)
    assert all(cell_len(line.plain) <= width for line in lines)
    assert "".join(line.plain for line in lines).replace(" ", "") == text.replace(" ", "").replace("\n", "")
