"""Issue 33: lesson prose that holds a small table and displayed lines (docs/lessons.md, "Prose").

Before, every line of a paragraph was joined, so nu-float-precision's float32/float16/bfloat16
rows ran into one paragraph.
"""
from rich.cells import cell_len

from journey_helpers import text_of
from tutor.common.reflow import reflow
from tutor.ui.app import TutorApp


def test_plain_lines_join_indented_lines_and_table_rows_keep_their_own():
    text = ("The range\nand the precision:\n    x̂ = (x − μ) / σ\nafter it,\njoined.\n\n"
            "| a | bb |\n|---|---|\n| 格式 | 1 |\nthen prose\nagain")
    assert reflow(text).split("\n") == [
        "The range and the precision:", "    x̂ = (x − μ) / σ", "after it, joined.", "",
        "a     bb", "────────", "格式  1", "then prose again"]


def test_table_columns_line_up_in_terminal_cells():
    lines = reflow("| 格式 | 指数位 |\n| float32 | 8 |\n| x | 12345678 |").split("\n")
    starts = {cell_len(line[:line.index(word)]) for line, word in zip(lines, ("指数位", "8", "12345678"))}
    assert starts == {9}, lines


async def test_the_float_formats_show_as_a_table_at_80x24(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        app.open_lesson("nu-float-precision")
        await pilot.pause()
        lines = [line.rstrip() for line in text_of(app.screen, "#explanation").split("\n")]
        top = next(i for i, line in enumerate(lines) if line.startswith("format"))
        rows = lines[top:top + 1] + lines[top + 2:top + 5]   # the header, then the three rows under the rule
        assert set(lines[top + 1]) == {"─"}
        assert [row.split()[0] for row in rows] == ["format", "float32", "float16", "bfloat16"], lines
        assert len({row.index(row.split()[1]) for row in rows[1:]}) == 1   # the exponent bits line up
        assert "Question 1" in rows[2] and "bfloat16" not in rows[2]   # float16's largest is question 1's answer
