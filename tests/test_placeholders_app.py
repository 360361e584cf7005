"""The lesson screen fills {{ placeholders }} from the live model, and refills them for new sizes."""
from pathlib import Path

from textual.widgets import Input

from journey_helpers import graded, text_of, wait_until
from tutor.ui.app import TutorApp
from tutor.cli.lessons import template_text
from tutor.ui.screens.lesson import LessonScreen


def _text(screen, selector: str) -> str:
    """What a Static shows, on one line (the terminal's wrapping removed)."""
    return " ".join(text_of(screen, selector, width=200).split())


def _lesson() -> str:
    text = template_text("ph-app", "Placeholders", "pr", 5, Path("ph-app.yaml"), ["pr"])
    edits = [
        ("  Here: the attention pattern",
         "  Live: L = {{ L }}, and row 1 gives column 0 the weight {{ blocks.0.attn.pattern[0, 0, 1, 0] | .4f }}.\n"
         "  Here: the attention pattern"),
        ('translation: "Hide the future', 'translation: "Broken {{ blocks.0.attn.nope[0] }}. Hide the future'),
        ('prompt: "What is the shape of the attention pattern (probe blocks.0.attn.pattern)?"',
         'prompt: "D = {{ D }} here. What is the shape of the attention pattern (probe blocks.0.attn.pattern)?"'),
        ('      - "One row of weights per query position, one column per key position."',
         '      - "There are {{ L }} query positions."'),
    ]
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new, 1)
    return text


async def test_a_lesson_shows_live_numbers_and_refills_them_for_new_sizes(tmp_path):
    (tmp_path / "lessons").mkdir()
    (tmp_path / "lessons" / "ph-app.yaml").write_text(_lesson(), encoding="utf-8")
    app = TutorApp(lesson_dirs=[tmp_path / "lessons"], home=tmp_path / "home", preload_model=False,
                   watch_interval=None)
    async with app.run_test(size=(120, 40)) as pilot:
        app.open_lesson("ph-app")
        await pilot.pause()
        screen = app.screen
        assert isinstance(screen, LessonScreen)
        await wait_until(pilot, lambda: screen.live is not None, "the live tensors")

        live = screen.live
        weight = f"{live.tensors['blocks.0.attn.pattern'][0, 0, 1, 0]:.4f}"
        explanation = _text(screen, "#explanation")
        assert f"Live: L = {live.sizes['L']}, and row 1 gives column 0 the weight {weight}." in explanation
        assert "{{" not in explanation
        assert f"D = {live.sizes['D']} here." in _text(screen, "#question")

        # a placeholder that cannot be filled: shown in place, and named in the status line
        assert "Broken ⟨error: placeholder {{ blocks.0.attn.nope[0] }}: unknown probe 'blocks.0.attn.nope'" \
            in _text(screen, "#translation")
        status = _text(screen, "#live-status")
        assert "could not be filled" in status and "formula.translation: placeholder {{ blocks.0.attn.nope[0] }}" \
            in status

        await pilot.press("ctrl+t")
        assert f"Hint 1: There are {live.sizes['L']} query positions." in _text(screen, "#hints")

        # the template's row-sum question reveals the live weights of row 1
        await pilot.press("ctrl+n", "ctrl+n", "ctrl+n")
        screen.query_one(Input).value = "1"
        await pilot.press("enter")
        await graded(pilot)
        await pilot.pause()
        row = live.tensors["blocks.0.attn.pattern"][0, 0, 1, 0:2]
        assert f"1: its two weights, {row[0]:.3f}, {row[1]:.3f}, always add up to 1." in _text(screen, "#feedback")

        # before the tensors arrive the numbers are not shown
        screen.live = None
        screen.show_texts()
        assert "Live: L = …, and row 1 gives column 0 the weight …." in _text(screen, "#explanation")

        # new sizes: the numbers follow the new tensors
        screen.variant_seed = 7
        screen.load_live()
        await wait_until(pilot, lambda: screen.live is not None, "the new sizes")
        new = screen.live
        assert new is not live
        weight = f"{new.tensors['blocks.0.attn.pattern'][0, 0, 1, 0]:.4f}"
        assert f"Live: L = {new.sizes['L']}, and row 1 gives column 0 the weight {weight}." \
            in _text(screen, "#explanation")
