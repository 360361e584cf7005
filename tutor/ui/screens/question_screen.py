"""A question on screen with its lesson: explanation, formula, question; predict first, then see
the real tensor.  The lesson screen and Review are both this screen; each only says which
question comes next (and whether its place is remembered).

The screen has three bands so that a 24-line terminal shows the question, the answer box
and the formula together: the prose scrolls in its own pane (PageUp/PageDown scroll it even
while typing an answer), the formula and its "in words" line stay fixed under it, and the
question with its answer box sits at the bottom, growing upwards for feedback and the reveal.
"""
from __future__ import annotations

import random

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.reactive import reactive
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import Screen
from textual.widgets import Header, Input, OptionList, Static

from tutor.ui.footer import Footer
from tutor.live.lesson_claims import BrokenClaims
from tutor.common.i18n import N_, _
from tutor.course.catalog import LoadedLesson
from tutor.course.placeholders import preview
from tutor.progress.records import Mode
from tutor.session.formula_fold import formula_fold
from tutor.session.question import QuestionSession
from tutor.ui.localize import localize_bindings
from tutor.ui.screens.lesson_live import LiveMixin, reflow
from tutor.ui.screens.lesson_quiz import QuizMixin, answer_seen_text, seen_text
from tutor.ui.widgets.answer_input import AnswerInput
from tutor.ui.widgets.answer_preview import AnswerPreview
from tutor.ui.widgets.formula_box import FormulaBox
from tutor.ui.widgets.prose import Prose
from tutor.ui.widgets.tensor_view import TensorView

__all__ = ["QuestionScreen", "reflow"]

QUIZ_MIN_LINES = 6   # the question's first line, the answer box and a line of feedback
QUIZ_ASKING_LINES = 7   # the quiz pane before an answer: its rule, a two-line question, the answer box
# Below this many rows the screen is compact: no header (the title is the text's first line),
# the formula on one row with its words moved into the text, a one-line answer box, and the
# text keeps TEXT_LINES rows while a question is open.  At 80x24 the text had 0 to 6 rows.
COMPACT_BELOW = 30
TEXT_LINES = 8


class QuizPane(VerticalScroll, inherit_bindings=False):
    """The question, answer box and reveal. It scrolls (the mouse, or the reveal bringing itself
    into view) but binds no keys, so PageUp/PageDown pressed in the answer box reach the screen,
    which scrolls the prose instead."""

    can_focus = False


class FormulaRow(Horizontal):
    """The formula and its words; its height changes when SymPy's rendering replaces the source
    text, and the quiz pane below is sized from it."""

    def on_resize(self) -> None:
        self.screen.fit_quiz()


class RevealRow(Horizontal):
    """Your answer beside the real tensor; once laid out (its size known), the quiz pane scrolls
    so the verdict above it is at the top."""

    def on_resize(self) -> None:
        if self.display:
            self.screen.show_reveal()


class RevealTable(TensorView):
    """The reveal's table as the lesson uses it: Tab into it to look around, then Enter moves on as
    it does in the answer box, and the footer names the key back to the answer box."""

    BINDINGS = [
        Binding("enter", "screen.move_on", N_("Next"), show=False),
        Binding("shift+tab", "screen.focus_answer", N_("Answer box")),
    ]

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        localize_bindings(self)


class QuestionScreen(LiveMixin, QuizMixin, Screen):
    wanted_mode = Mode.SCORED   # a question not yet resolved is scored; Review asks for review
    checking = reactive(False, init=False)   # an answer is being graded (QuizMixin): Enter waits for its verdict
    DEFAULT_CSS = """
    QuestionScreen { overflow: hidden; }   /* the panes scroll, never the screen (its scrollbar would shift every line) */
    #lesson-body { height: 1fr; min-height: 1; padding: 0 1; }
    #live-status { border-left: thick $primary; padding-left: 1; margin: 1 0; }
    #formula-row { height: auto; max-height: 12; padding: 0 1; border-top: hkey $primary; }
    #formula { border: round $accent; padding: 0 1; width: auto; min-width: 9; max-width: 50%; height: auto; }
    #formula-side { width: 1fr; height: auto; padding-left: 1; }
    #translation { color: $text-muted; }
    #formula-check { display: none; }   /* until the live tensors have checked the formula */
    #quiz { height: auto; max-height: 65%; border-top: hkey $primary; padding: 0 1; }   /* until fit_quiz measures */
    #body-translation { display: none; color: $text-muted; margin-top: 1; }
    QuestionScreen.-compact Header { display: none; }
    QuestionScreen.-compact #live-status { margin: 0; }
    QuestionScreen.-compact #formula { border: none; padding: 0; max-width: 100%; }
    QuestionScreen.-compact #formula-side { display: none; }
    QuestionScreen.-compact #body-translation { display: block; }
    QuestionScreen.-compact #answer { border: none; height: 1; padding: 0 1; background: $boost; }
    QuestionScreen.-compact #answer:focus { background: $accent 30%; }
    QuestionScreen.-compact #choices { border: none; max-height: 6; }
    #formula-fold { display: none; color: $text-muted; text-style: italic; }
    /* the box rule (tutor.session.formula_fold): a box that would answer an unfinished question is a fold line */
    QuestionScreen.-folded #formula, QuestionScreen.-folded #formula-side { display: none; }
    QuestionScreen.-folded #body-translation { display: none; }
    QuestionScreen.-folded #formula-fold { display: block; }
    #answer { margin: 0; }
    #answer.-checking { color: $text-muted; }   /* graded now: Enter waits for the verdict */
    #choices { height: auto; max-height: 10; margin: 0; }
    #feedback, #hints { margin: 0 1; }
    #reveal { height: auto; }
    #your-answer { width: 1fr; min-width: 20; padding: 0 1; border: round $secondary; height: auto; }
    #real-tensor { width: 3fr; padding: 0 1; height: auto; }
    """
    BINDINGS = [
        Binding("escape", "back", N_("Roadmap")),
        Binding("ctrl+t", "hint", N_("Hint")),
        Binding("ctrl+g", "give_up", N_("Give up")),
        Binding("ctrl+n", "next_question", N_("Next")),
        Binding("ctrl+b", "previous_question", N_("Previous question"), show=False),
        Binding("ctrl+r", "new_sizes", N_("New sizes"), show=False),   # the question says so where it applies
        Binding("pageup", "scroll_prose(-1)", N_("Scroll the text up"), show=False),
        Binding("pagedown", "scroll_prose(1)", N_("Scroll the text down"), show=False),
        # the answer box leaves ↑ ↓ alone: they scroll the question, feedback, hints and reveal
        Binding("up", "scroll_quiz(-1)", N_("Scroll the question, hints and answer up"), show=False),
        Binding("down", "scroll_quiz(1)", N_("Scroll the question, hints and answer down"), show=False),
        Binding("ctrl+o", "on_shipped", N_("Shipped model"), show=False),
    ]

    def __init__(self, item: LoadedLesson, variant_seed: int | None = None, question_index: int = 0) -> None:
        super().__init__()
        localize_bindings(self)
        self.item = item
        self.lesson = item.lesson
        self.variant_seed = variant_seed
        self.live = None
        self.box_answers = None   # the questions the formula box answers on the live draw (tutor.live.box_leaks)
        self.question_index = max(0, min(question_index, len(self.lesson.questions) - 1))
        self.session: QuestionSession | None = None   # the question on screen: its rules and record (open_session)
        self.seen_here: tuple[int, ...] = ()   # untried questions whose answer this question's text just showed
        self.opened_at = None                    # the app's clock when the lesson opened
        self.generation = 0   # bumped when the lesson file reloads: older live results are dropped
        self.check_problems: list = []   # what the live check found in the file on screen (hot reload)
        self.on_shipped = False   # the learner chose the shipped model for a lesson their model does not fit
        self.revealed_answer: str | None = None   # the answer the reveal on screen shows beside the truth
        self.claims = BrokenClaims()   # where the lesson's text may not hold on the learner's own model
        self.look_ahead = None   # what each question's screen shows of the others' answers, for the live draw
        self.formula_check = None   # the live check of the formula against the model (its mark's words follow F4)

    def compose(self) -> ComposeResult:
        lesson = self.lesson
        yield Header()
        with VerticalScroll(id="lesson-body"):
            yield Static(Prose(Text(lesson.title, style="bold")), id="lesson-title")
            # which weights and input the tensors come from: first, so small terminals show it too
            yield Static(Prose(_("Loading the model… the question opens when the live tensors are ready.")),
                         id="live-status")
            yield Static(Prose(reflow(preview(lesson.explanation))), id="explanation")
            yield Static(Prose(_("In words: ") + preview(lesson.formula.translation)), id="body-translation")
        with FormulaRow(id="formula-row"):
            yield Static(id="formula-fold")
            yield FormulaBox(lesson.formula.expr, id="formula")
            with Vertical(id="formula-side"):
                yield Static(Prose(_("In words: ") + preview(lesson.formula.translation)), id="translation")
                yield Static(id="formula-check")
        with QuizPane(id="quiz"):
            yield Static(id="question")
            yield AnswerInput(placeholder=_("your prediction, then Enter"), id="answer")   # capped, keys in order
            yield AnswerPreview(id="answer-preview")   # how a formula being typed reads (the kind's preview hook)
            yield OptionList(id="choices")
            yield Static(id="feedback")
            yield Static(id="hints")
            with RevealRow(id="reveal"):
                yield Static(id="your-answer")
                yield RevealTable(id="real-tensor")
        yield Footer(show_command_palette=False)   # room for the lesson's keys at 80 columns; ctrl+p still works

    def on_mount(self) -> None:
        self.title = self.lesson.title
        self.opened_at = self.app.clock()
        self.query_one("#answer", Input).focus()
        self.show_question()
        self.load_live()
        self.app.model_signal.subscribe(self, lambda _label: self.model_changed(), immediate=True)
        self.app.lessons_signal.subscribe(self, self.lessons_changed, immediate=True)

    def on_resize(self) -> None:
        self.set_class(self.size.height < COMPACT_BELOW, "-compact")
        self.fit_quiz()

    @property
    def compact(self) -> bool:
        return self.has_class("-compact")

    def fit_quiz(self) -> None:
        """The quiz pane grows (feedback, hints, the reveal) into what the header, the footer, the
        formula row and the text leave, and scrolls beyond that (↑ ↓); a fixed percentage would
        push its last lines under the footer when the formula is tall.  The text keeps one line,
        or TEXT_LINES on a compact screen, where it had been squeezed to nothing."""
        used = sum(self.query_one(selector).outer_size.height for selector in ("Header", "Footer", "#formula-row"))
        text = TEXT_LINES if self.compact else 1
        self.query_one("#quiz").styles.max_height = max(QUIZ_MIN_LINES, self.size.height - used - text)
        self.fit_formula()

    def fit_formula(self) -> None:
        """A tall formula may take what is left once the prose shows its first explanation line
        and the quiz its question and answer box; beyond that the box draws the formula on one line.
        Sized from the pane before an answer, so the formula does not change shape on answering."""
        row, box = self.query_one("#formula-row"), self.query_one("#formula", FormulaBox)
        if self.compact:
            box.max_rows = 1
            return
        chrome = sum(self.query_one(selector).outer_size.height for selector in ("Header", "Footer"))
        prose = self.query_one("#explanation").virtual_region.y + 1   # title, weights and input, one line
        rows = self.size.height - chrome - QUIZ_ASKING_LINES - prose - row.styles.gutter.height - box.styles.gutter.height
        if row.styles.max_height is not None:
            rows = min(rows, int(row.styles.max_height.value) - row.styles.gutter.height - box.styles.gutter.height)
        box.max_rows = rows

    @property
    def question(self):
        return self.lesson.questions[self.question_index]

    def show_question(self) -> None:
        self.remember_position()
        self.checking = False   # a verdict still being graded belongs to the session replaced here
        self.open_session()
        self.show_prompt()
        self.feedback("")
        self.say("#hints", "")
        self.query_one("#your-answer", Static).update("")
        self.query_one("#real-tensor", TensorView).clear()
        self.preview_answer(self.query_one("#answer", Input).value)
        self.query_one("#reveal").display = False   # nothing to compare yet
        self.show_record()
        self.show_formula_fold()
        self.model_changed()   # weights replaced while the learner was on the last question

    def show_formula_fold(self) -> None:
        """The box rule (tutor.session.formula_fold): the formula and its words, or one line saying
        after which question they open.  Asked again after every step, since a try opens it."""
        session = self.session
        reviewing = self.question_index if session.mode is Mode.REVIEW and not session.revealed else None
        fold = formula_fold(self.app.progress, self.lesson, self.box_answers, reviewing)
        self.set_class(not fold.shown, "-folded")
        if fold.shown:
            return
        text = _("Formula shown once the live tensors are ready") if fold.after is None else \
            _("Formula shown after question {number}").format(number=fold.after + 1)
        self.query_one("#formula-fold", Static).update(Text("▸ " + text))

    def question_label(self) -> str:
        return _("Question {number}/{total}").format(number=self.question_index + 1, total=len(self.lesson.questions))

    def show_prompt(self) -> None:
        """The question's line (and its choices), in the lesson's language; the attempt state and the
        question's record stay as they are (F4 rewords them, it does not show the question again)."""
        text = Text(self.question_label() + "  ", style="bold")
        text.append(self.live_text(self.question.prompt))
        if self.session.seen_in is not None:
            text.append("\n  " + answer_seen_text(self.lesson, self.session.seen_in), style="bold magenta")
        elif self.session.mode is Mode.PRACTICE:
            text.append("\n  " + _("Practice: this question is already scored; answers here are graded but "
                                   "change neither your score nor review."), style="bold magenta")
        if self.seen_here:
            text.append("\n  ").append(seen_text(self.seen_here))
        self.show_choices()
        if self.live is not None and self.lesson.model.vary:
            text.append("\n  " + _("sizes now: {sizes} · ctrl+r draws new ones").format(sizes=self.live.variant),
                        style="italic")
        self.query_one("#question", Static).update(Prose(text))

    def change_language(self, item: LoadedLesson) -> None:
        """F4 while in the lesson: the same lesson (from the catalog in the new language), question,
        typed answer, tries and reveal; only the words change, the reveal's box and tensor too.  What
        was already said under the answer box (a verdict, hints) stays in the language it was said in.
        The question's record is not asked for again: the session on screen goes on."""
        self.item, self.lesson = item, item.lesson
        if self.session is not None:
            self.session.relabel(self.lesson)
        localize_bindings(self)
        localize_bindings(self.query_one("#real-tensor", RevealTable))
        self.title = self.lesson.title
        self.query_one("#lesson-title", Static).update(Prose(Text(self.lesson.title, style="bold")))
        self.query_one("#answer", Input).placeholder = _("your prediction, then Enter")
        if self.live is not None:
            self.show_live_status()
            self.show_formula_mark()
        self.show_texts()
        self.show_prompt()
        self.show_formula_fold()
        self.analyse_box()   # the words the box shows now may answer another question
        self.reword_reveal()
        self.refresh_bindings()

    def remember_position(self) -> None:
        """Where the learner is, for the next start: a lesson saves it, Review does not."""
        raise NotImplementedError

    def action_next_question(self) -> None:
        raise NotImplementedError   # the next question in this screen's order (the lesson's, or Review's queue)

    def action_previous_question(self) -> None:
        raise NotImplementedError

    def action_focus_answer(self) -> None:
        self.query_one("#answer", Input).focus()

    def action_move_on(self) -> None:
        """Enter in the reveal table: what Enter in the answer box does after a reveal."""
        self.action_focus_answer()
        self.action_next_question()

    def action_scroll_prose(self, pages: int) -> None:
        body = self.query_one("#lesson-body", VerticalScroll)
        if pages < 0:
            body.scroll_page_up()
        else:
            body.scroll_page_down()

    def action_scroll_quiz(self, lines: int) -> None:
        """↑ ↓: a hint or a reveal taller than the pane is read line by line, without the mouse."""
        self.query_one("#quiz", QuizPane).scroll_relative(y=lines, animate=False)

    def action_new_sizes(self) -> None:
        if not self.lesson.model.vary:
            self.feedback(Text(_("This lesson uses fixed sizes."), style="dim"))
            return
        self.variant_seed = random.randrange(1, 2**31)
        self.live = self.box_answers = None   # the box rule waits for the new draw's analysis
        self.status(_("Drawing new sizes…"))
        self.load_live()

    def action_on_shipped(self) -> None:
        """Show a lesson on the shipped model, leaving the hub alone: for a lesson the current model
        does not fit, or whose text does not hold on it (the screen says which)."""
        if self.on_shipped or self.lesson.model.weights != "trained":
            return
        self.on_shipped = True
        self.generation += 1
        self.live = self.box_answers = None   # the box rule waits for the new draw's analysis
        self.status(_("Loading the shipped model for this lesson…"))
        self.load_live()

    def action_back(self) -> None:
        """Escape: the roadmap, however the lesson was opened (roadmap, palette, summary, review)."""
        self.app.show_roadmap()
