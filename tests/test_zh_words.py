"""The last English in ``tutor --lang zh``: grading feedback, weights labels, the dashboard after F4."""
import re

import numpy as np
import pytest
from textual.widgets import Button, Input, Select, Static

from tutor.common.i18n import set_language
from tutor.grading.kinds.number import NumberQuestion
from tutor.grading.kinds.shape import ShapeQuestion
from tutor.grading.kinds.values import ValuesQuestion
from tutor.grading.answers import AnswerError, parse_number, parse_shape
from tutor.grading.attempts import Outcome
from tutor.grading.number_format import tolerance_in_words
from tutor.grading.quiz import grade, truth_for
from tutor.live.weights_label import localized_label
from tutor.ui.app import TutorApp
from tutor.ui.screens.dashboard import DashboardScreen

TENSORS = {"blocks.0.attn.pattern": np.array([[[[1.0, 0.0], [0.25, 0.75]]]]), "logits": np.zeros((1, 3, 4))}
SIZES = {"B": 1, "H": 1, "L": 2, "D": 4, "D_head": 4}


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    set_language("en")


def _graded(question, text):
    return grade(question, text, truth_for(question, TENSORS, SIZES), SIZES).feedback


def test_feedback_is_chinese_with_its_numbers_kept():
    shape = ShapeQuestion(kind="shape", id="s", prompt="shape?", probe="logits")
    number = NumberQuestion(kind="number", id="n", prompt="p?", probe="blocks.0.attn.pattern[0, 0, 1, 1]",
                            tolerance=0.005)
    values = ValuesQuestion(kind="values", id="v", prompt="row?", probe="blocks.0.attn.pattern[0, 0, 1]",
                            tolerance=0.01)
    english = [_graded(shape, "4, 3, 1"), _graded(shape, "1, 3, 5"), _graded(number, "0.9"), _graded(number, "3/4"),
               _graded(values, "0.5, 0.5")]
    assert english == ["Not quite. The right sizes, in the wrong order.", "Not quite. 1 of the 3 sizes is off.",
                       "Not quite. Too high.", "Right (to 2 decimals).", "Not quite. 2 of the 2 values are off."]
    set_language("zh")
    assert [_graded(shape, "4, 3, 1"), _graded(shape, "1, 3, 5"), _graded(number, "0.9"), _graded(number, "3/4"),
            _graded(values, "0.5, 0.5")] == ["不太对。尺寸对了，顺序错了。", "不太对。3 个尺寸中有 1 个不对。",
                                             "不太对。太大了。", "正确（精确到 2 位小数）。", "不太对。2 个值中有 2 个不对。"]
    assert tolerance_in_words(0.05, True) == "误差约 5% 以内"
    assert Outcome.FIRST_TRY.label == "一次答对"


def test_unreadable_answers_are_explained_in_chinese_quoting_what_was_typed():
    set_language("zh")
    with pytest.raises(AnswerError, match=r"^'4abc' 不是尺寸；形状由整数组成"):
        parse_shape("2, 4abc")
    with pytest.raises(AnswerError, match=r"^'x/2' 不是 1/4 这样的分数$"):
        parse_number("x/2")


@pytest.mark.parametrize("label, chinese", [
    ("shipped default checkpoint (trained on sort, 1500 steps, accuracy 100%)",
     "内置默认检查点（在排序任务上训练，1500 步，准确率 100%）"),
    ("random initial weights (seed 3, untrained)", "随机初始权重（种子 3，未训练）"),
    ("your model: sort, 800 steps, accuracy 93%, training, 200 steps to go",
     "你的模型（排序任务，800 步，准确率 93%，训练中，还剩 200 步）"),
    ("your model: reverse, 40 steps, continued from shipped default checkpoint",
     "你的模型（反转任务，40 步，接着 内置默认检查点 训练）"),
    ("checkpoint my run.pt (trained on text, 12 steps)", "检查点 my run.pt（在 Python 文档文本上训练，12 步）"),
    ("shipped text model (trained on text)", "内置的文本模型（在 Python 文档文本上训练）"),
    ("something nobody wrote (odd, 5 steps)", "something nobody wrote（odd，5 步）"),   # unknown words pass as they are
])
def test_weights_labels_are_worded_in_the_language_with_numbers_and_names_kept(label, chinese):
    assert localized_label(label) == label      # English: the label itself, which the code also reads
    set_language("zh")
    assert localized_label(label) == chinese


async def test_f4_relabels_the_open_dashboard_and_keeps_what_the_learner_set(tmp_path):
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    app.hub.ensure_loaded()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.press("d")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, DashboardScreen)
        screen.query_one("#dash-tabs").active = "tab-sample"
        await pilot.pause()
        screen.query_one("#sample-prompt", Input).value = "2718>"
        screen.query_one("#sample-strategy", Select).value = "beam"
        screen.query_one("#train-preset", Select).value = "quick"
        await pilot.pause()
        await pilot.press("f4")
        await pilot.pause()
        assert app.dashboard_screen(create=False) is screen            # kept, not rebuilt
        assert app.screen is screen and screen.title == "仪表盘"          # and still on screen
        tabs = screen.query_one("#dash-tabs")
        assert [str(tabs.get_tab(pane).label) for pane in ("tab-train", "tab-sample", "tab-attention")] == \
            ["训练", "采样", "注意力"]
        assert str(screen.query_one("#sample-go", Button).label) == "采样"
        assert str(screen.query_one("#train-save", Button).label) == "保存"
        assert screen.query_one("#train-path", Input).placeholder.startswith("检查点路径")
        strategy = screen.query_one("#sample-strategy", Select)
        assert strategy.value == "beam"
        assert str(strategy.query_one("#label", Static).render()) == "束搜索"    # what the box shows
        assert screen.query_one("#train-preset", Select).value == "quick"
        assert screen.query_one("#sample-prompt", Input).value == "2718>"
        weights = str(screen.query_one("#dash-weights", Static).render())
        assert weights.startswith("权重：内置默认检查点（") and "步" in weights
        shown = {key for key, active in screen.active_bindings.items() if active.binding.show}
        assert "f6" not in shown and "f7" not in shown and "f5" in shown   # the footer fits 80 columns


def test_a_track_has_one_chinese_name_everywhere():
    """Before: the roadmap said 路线 (8 条路线), the CLI said 方向 in four messages and 课程线 in two."""
    from babel.messages.pofile import read_po

    from tutor.common.i18n import LOCALE_DIR

    with open(LOCALE_DIR / "zh" / "LC_MESSAGES" / "tutor.po", "rb") as po:
        catalog = read_po(po)
    about_tracks = [message for message in catalog if message.id and isinstance(message.id, str)
                    and re.search(r"\btracks?\b", re.sub(r"\{[^}]*\}", "", message.id))]   # the word, not a {track} field
    assert len(about_tracks) >= 6
    for message in about_tracks:
        assert "路线" in message.string and "方向" not in message.string and "课程线" not in message.string, message.id


async def test_a_chinese_choice_in_the_reveal_box_breaks_between_characters(tmp_path):
    """Before: at 80×24 the box under 正确答案 showed "b) 阶段" alone, then "1，经过块 0 之后": the
    choice broke only at its spaces, as English does.  The right choice of after-block0 (the lesson's second
    question since issue 31's fourth pass) is "低于 0.5：块 0 已经把它们转开了", and its letter depends on the
    learner's shuffle."""
    from journey_helpers import given_up_in_chinese, text_of

    async with given_up_in_chinese(tmp_path, "la-contextual-embeddings", (80, 24), 1) as (pilot, screen):
        lines = text_of(screen, "#your-answer", width=16).splitlines()
        answer = lines[lines.index("正确答案") + 1:]
        assert answer[0][:3] in ("a) ", "b) ", "c) ", "d) ") and answer[0][3:] == "低于 0.5：块"
        assert answer[1:] == ["0 已经把它们转开", "了"]   # the last character on a line of its own
