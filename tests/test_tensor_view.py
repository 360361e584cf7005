"""The reveal's tensor view: one number format per tensor, opened on the asked cells, fitted
to its width, scrollable with the keyboard; and the live reveals named in issue 11."""
import numpy as np
import pytest

from journey_helpers import open_live_lesson, type_answer, wait_for_live
from tutor.grading.reveal_focus import axis_names, reveal_for
from tutor.grading.tensor_format import NumberFormat, centred_start, column_capacity, fit_window
from tutor.ui.app import TutorApp
from tutor.common.i18n import _, set_language
from tutor.ui.widgets.tensor_view import TensorView, axis_word


def cells(array):
    fmt = NumberFormat.for_array(np.asarray(array))
    return fmt, [fmt.cell(float(v)) for v in np.asarray(array).ravel()]


def test_one_format_and_a_shared_scale_for_tiny_numbers():
    fmt, shown = cells([0.001, 8.5e-4, -8.8e-4, 0])     # the mixed table from issue 11
    assert fmt.scale_note == "× 1e-3"
    assert shown == ["1.000", "0.850", "-0.880", "0"]    # three significant digits, one format


def test_ordinary_numbers_keep_three_significant_digits():
    assert cells([0.95, 0.03, 0.02])[1] == ["0.9500", "0.0300", "0.0200"]
    assert cells([26.16, -3.5])[1] == ["26.16", "-3.50"]
    assert cells([12345.6, 200.0])[0].scale_note == "× 1e4"


def test_integers_zeros_and_infinities():
    assert cells([0, 1, 0, 0])[1] == ["0", "1", "0", "0"]
    assert cells([-np.inf, 0.5, np.nan])[1] == ["-inf", "0.500", "nan"]


def test_a_nonzero_value_that_would_round_to_zero_is_written_in_e_notation():
    """Before: pr-softmax's smallest probability, 7.5e-08, read 0.00000 among its 96 (issue 31)."""
    fmt, shown = cells([0.9, 0.05, 7.5e-8, 0.0])
    assert shown == ["0.9000", "0.0500", "7.5e-08", "0"]
    assert fmt.width(np.array([0.9, 0.05, 7.5e-8])) == len("7.5e-08")
    assert NumberFormat(3).cell(-1e-7) == "-1.0e-07" and NumberFormat(3).cell(0.00049) == "4.9e-04"
    assert NumberFormat(3).cell(0.0005) == "0.001"                      # rounds up: fixed point stays
    assert NumberFormat(3, exponent=-3).cell(2e-9) == "2.0e-06"         # in the tensor's shared scale
    assert NumberFormat(3).cell(0.0) == "0" and NumberFormat(3).cell(-0.0) == "0"


def test_windows_centre_on_the_focus_and_stay_inside():
    assert column_capacity(96, 60, 3) == 18
    start = centred_start(96, 18, (20, 20))
    window = fit_window(96, 18, start)
    assert window.start <= 20 < window.stop and window.hidden_before and window.hidden_after
    assert fit_window(96, 18, 500).stop == 96
    assert column_capacity(4, 60, 6) == 4


def test_argmax_marks_only_the_winning_cell():
    import tutor.experiments  # noqa: F401  (declares embedding.one_hot's axes; alone, this file had not)

    one_hot = np.zeros((1, 9, 96))
    one_hot[0, 0, 20] = 1
    sizes = {"B": 1, "L": 9, "V": 96, "D": 64, "H": 4}
    reveal = reveal_for({"embedding.one_hot": one_hot}, "embedding.one_hot[0, 0]", sizes, [list("3142>1234")],
                        reduce="argmax")
    assert reveal.focus == (0, 0, 20) and reveal.asked.sum() == 1
    assert reveal.axis_names == ("batch", "position", "vocabulary")
    assert reveal.labels_for(1, (0,)) == tuple("3142>1234")


def test_axis_names_of_model_probes():
    assert axis_names("blocks.1.attn.pattern", (2, 4, 5, 5), {}) == ("batch", "head", "query", "key")
    assert axis_names("params.blocks.0.attn.W_Q", (64, 64), {}) == ("in", "out")
    assert axis_names("embedding.digit_cos", (10, 10), {"L": 9}) == ("axis 0", "axis 1")


async def reveal_text(lesson: str, question: int, answer: str, size=(80, 24)) -> tuple[str, TensorView]:
    app = TutorApp(watch_interval=None)
    async with app.run_test(size=size) as pilot:
        screen = await open_live_lesson(pilot, lesson, question)
        await type_answer(pilot, answer)
        await pilot.pause()
        view = screen.query_one("#real-tensor", TensorView)
        first = view.content.plain
        view.focus()
        await pilot.press("end")
        await pilot.pause()
        return first, view.content.plain


@pytest.mark.asyncio
async def test_one_hot_reveal_shows_the_one_at_index_20_at_80_columns():
    first, after_end = await reveal_text("la-embedding-lookup", 0, "20")
    header = next(line for line in first.splitlines() if " 20 " in line)
    row = next(line for line in first.splitlines() if line.startswith("▸"))   # show: the one-hot row alone
    column = header.index(" 20 ") + 2   # cells are right-aligned under their index
    assert row[column] == "1", first            # the 1 sits under its index
    assert "⋯" in row and "cols" in first       # and the hidden columns are said to be hidden
    assert " 95" in after_end                   # End scrolls to the last column


@pytest.mark.asyncio
async def test_masked_softmax_reveal_marks_the_asked_row():
    """Row 2's question reveals the head's whole causal pattern, row 2 marked."""
    app = TutorApp(watch_interval=None)
    async with app.run_test(size=(80, 24)) as pilot:
        screen = await open_live_lesson(pilot, "pr-masked-softmax", 0)
        await pilot.press("ctrl+g")
        await pilot.pause()
        first = screen.query_one("#real-tensor", TensorView).content.plain
    marked = [line for line in first.splitlines() if line.startswith("▸")]
    assert len(marked) == 1 and marked[0].startswith("▸ 2 '4'"), first
    assert "query × key" in first


def test_experiment_outputs_are_named_by_their_declared_axes_not_by_coincident_sizes():
    """A top-5 axis is not a position when L = 5, a stage axis is not a batch when N + 1 = B, and a
    padded batch's columns are not the lesson's tokens (issue 21)."""
    import tutor.experiments  # noqa: F401  (registers the descriptions that declare the axes)

    sizes = {"B": 1, "L": 5, "V": 96, "D": 64, "H": 4}
    assert axis_names("next_token.top_probs", (1, 5, 5), sizes) == ("batch", "position", "axis 2")
    assert axis_names("contextual.cos_static", (3, 3), {"B": 3, "L": 9}) == ("axis 0", "batch")
    assert axis_names("padding.gap", (4,), {"B": 2, "L": 4, "H": 4}) == ("head",)
    pattern = np.zeros((2, 4, 9, 9))
    padded = reveal_for({"padding.pattern": pattern}, "padding.pattern[1, 0, -1]", {"B": 2, "L": 9, "H": 4},
                        [list("3142>1234"), list("9075>0579")])
    assert padded.labels_for(3, (1, 0)) is None          # the padded row is not '9075>0579'
    top = reveal_for({"next_token.top_probs": np.zeros((1, 5, 5))}, "next_token.top_probs[0, 4, 0]", sizes,
                     [list("3142>")])
    assert top.labels_for(1, (0,)) == tuple("3142>") and top.labels_for(2, (0, 4)) is None


def test_an_axis_that_is_no_size_is_named_by_the_word_its_experiment_declares():
    """Before: op-sgd-vs-adam's two loss curves were labelled "axis 0 × axis 1"."""
    import tutor.experiments  # noqa: F401  (registers the descriptions that declare the axes)

    assert axis_names("sgd_adam.curves", (2, 31), {"B": 3, "L": 9}) == ("optimizer", "step")
    assert axis_names("sgd_adam.travel", (2, 5), {"B": 3, "L": 5}) == ("optimizer", "tensor")
    assert axis_word("step") == "step"
    set_language("zh")
    try:
        assert axis_word("optimizer") == "优化器" and axis_word("step") == "步"
    finally:
        set_language("en")


def test_a_slice_reveal_heads_with_the_slice_shape_and_keeps_it_whole_at_80_columns():
    """Before: `real embed[0, 1]  shape (2, 4, 8)` right after a `(8,)` answer, and the shape was
    cut at the right edge when the name was long (Chinese at 80 columns)."""
    tensors = {"embed": np.zeros((2, 4, 8)), "blocks.0.attn.masked_scores": np.zeros((2, 4, 7, 7))}
    view = TensorView()
    view.show(reveal_for(tensors, "embed[0, 1]", {}))
    first = view.build(80).plain.split("\n")[0]
    assert first == "real embed[0, 1]  shape (8,) (the whole tensor: (2, 4, 8))"
    view.show(reveal_for(tensors, "blocks.0.attn.masked_scores[0, 0, 0, 3]", {}))
    title, shape = view.build(50).plain.split("\n")[:2]
    assert title == "real blocks.0.attn.masked_scores[0, 0, 0, 3]"
    assert shape == "shape () (the whole tensor: (2, 4, 7, 7))"
    view.show(reveal_for(tensors, "embed", {}))
    assert view.build(80).plain.split("\n")[0] == "real embed  shape (2, 4, 8)"


def vocabulary_tensors(chars: str, **probes) -> dict:
    """Live tensors as compute_live hands them on: the probes and the run's vocabulary."""
    return {"vocab.chars": np.array([ord(ch) for ch in chars], dtype=float), **probes}


def character_line(text: str) -> str:
    """The header line that labels the columns with characters (under the index line)."""
    return next(line for line in text.splitlines() if line.strip(" ⋯").startswith("'"))


def test_a_logits_row_labels_its_vocabulary_axis_with_characters_aligned_over_their_columns():
    """Before: a logits row's columns read 17, 18, … with nothing saying that 17 is '0' (issue 31,
    2026-12-newcomer P10); a newline or a checkpoint's control character must show visibly and inert."""
    from tutor.model.tokenizer import DEFAULT_CHARS

    logits = np.zeros((1, 5, len(DEFAULT_CHARS)))
    logits[0, 4, 19] = 7.5
    sizes = {"B": 1, "L": 5, "V": len(DEFAULT_CHARS), "D": 64, "H": 4}
    reveal = reveal_for(vocabulary_tensors(DEFAULT_CHARS, logits=logits), "logits[0, 4]", sizes, [list("3142>")],
                        reduce="argmax")
    assert reveal.labels_for(2, (0,))[:3] == ("\\n", "␣", "!") and reveal.labels_for(2, (0,))[19] == "2"
    assert reveal.labels_for(1, (0,)) == tuple("3142>")          # the positions keep the input's characters
    view = TensorView()
    view.show(reveal)
    lines = view.build(80).plain.split("\n")
    index = next(line for line in lines if " 19 " in line)
    chars = character_line("\n".join(lines))
    row = next(line for line in lines if line.startswith("▸"))
    column = index.index(" 19 ") + 2                              # cells are right-aligned under their index
    assert chars[column] == "'" and chars[column - 1] == "2", chars
    assert row[column] == "0" and "7.50" in row                   # the value sits under its character

    # a sort model's vocabulary is not the text model's: the labels follow the run's own vocabulary
    odd = "?ab\x07\x1b[2J"[:6] + "字"
    wide = reveal_for(vocabulary_tensors(odd, logits=np.arange(7.0)[None, None]), "logits[0, 0]", {"V": 7})
    text = TensorView()
    text.show(wide)
    built = text.build(80).plain
    assert "\x07" not in built and "\x1b" not in built and "'␇'" in built and "'␛'" in built
    index, chars = built.split("\n")[2], character_line(built)
    assert [chars[index.index(f" {j}") + 1 + len(str(j)) - 1] for j in range(6)] == ["'"] * 6   # ends line up
    assert "'字'" in chars


def test_a_show_slice_of_the_vocabulary_keeps_its_characters_and_a_toy_axis_gets_none():
    """`ce_grad.dlogits[0, 4, 17:27]` shows ids 17–26 as columns 0–9: their characters are '0'…'9'.
    A five-entry distribution declared over "V" is not the model's vocabulary: no characters."""
    from tutor.model.tokenizer import DEFAULT_CHARS
    import tutor.experiments  # noqa: F401  (registers the descriptions that declare the axes)

    sizes = {"B": 1, "L": 9, "V": len(DEFAULT_CHARS), "D": 64, "H": 4}
    tensors = vocabulary_tensors(DEFAULT_CHARS, **{"ce_grad.dlogits": np.zeros((1, 8, len(DEFAULT_CHARS))),
                                                   "kl.p": np.full(5, 0.2)})
    part = reveal_for(tensors, "ce_grad.dlogits[0, 4, 17:27]", sizes, [list("3142>1234")], limit=True)
    assert part.labels_for(0, ()) == tuple("0123456789")
    assert reveal_for(tensors, "kl.p", sizes).labels_for(0, ()) is None
    whole = reveal_for(tensors, "ce_grad.dlogits[0, 4, 17:27]", sizes)
    assert whole.labels_for(2, (0,))[17] == "0" and whole.labels_for(1, (0,)) is None   # 8 targets are no input row


def test_a_show_slice_numbers_its_entries_as_the_probe_does():
    """r9it: a reveal of query rows 4-13 numbered them 0-9, so its text had to say "row 0 is query 4"."""
    pattern = np.random.default_rng(0).random((1, 4, 14, 14))                      # (B, H, L, L)
    part = reveal_for({"blocks.0.attn.pattern": pattern}, "blocks.0.attn.pattern[0, 2, 4:14, 2:9]",
                      {"B": 1, "H": 4, "L": 14}, limit=True)
    assert [part.index_number(0, i) for i in (0, 9)] == [4, 13]
    assert [part.index_number(1, j) for j in (0, 1, 6)] == [2, 3, 8]
    view = TensorView()
    view.show(part)
    text = view.build(80).plain
    header = next(line for line in text.splitlines() if line.split()[:2] == ["2", "3"])
    assert header.split()[-1] == "8" and "0" not in header.split()
    rows = [line.split()[0] for line in text.splitlines() if line[:1] in (" ", "▶") and line.split()[:1]]
    assert "4" in rows and "13" in rows and "0" not in rows
    labelled = reveal_for({"blocks.0.attn.pattern": pattern}, "blocks.0.attn.pattern[0, 2, 4:14, 2:9]",
                          {"B": 1, "H": 4, "L": 14}, [list("abcdefghijklmn")], limit=True)
    assert labelled.labels_for(0, ()) == tuple("efghijklmn") and labelled.labels_for(1, ()) == tuple("cdefghi")


@pytest.mark.asyncio
@pytest.mark.parametrize("language", ["en", "zh"])
async def test_a_live_probability_reveal_names_its_tokens_by_character(tmp_path, language):
    """de-sampling's first question counts the tokens its draws hit; its reveal shows the counts of
    ids 10-39 (every token drawn, the digits 17-26 among them), and the vocabulary axis says '2' over
    id 19's column, in the English and the Chinese screen alike."""
    set_language(language)
    try:
        app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
        async with app.run_test(size=(80, 24)) as pilot:
            screen = await open_live_lesson(pilot, "de-sampling", 0)
            await pilot.press("ctrl+g")
            await pilot.pause()
            shown = screen.query_one("#real-tensor", TensorView).content.plain
    finally:
        set_language("en")
    index = next(line for line in shown.splitlines() if line.split()[:3] == ["10", "11", "12"])   # ids, not 0, 1, 2
    chars = character_line(shown)
    end = index.index(" 19") + 3                                  # the cell's right edge: id 19
    assert chars[end - 3:end] == "'2'", shown
    assert "'1'" in chars and "'3'" in chars


def test_a_one_number_reveal_reads_as_that_number_with_its_expression_not_as_a_table():
    """Before: it-bits' fixed-code and co-*'s counts revealed "the real values  shape (1,)", then
    "index: axis 0", a header "0" and the number under it: a count shown as a tensor of one entry."""
    tensors = {"bits.fixed": np.array([7.0]), "cost.scores": np.array([[9248.0]]), "embed": np.ones((2, 4, 8)) / 3}
    view = TensorView()
    view.show(reveal_for(tensors, "bits.fixed", {}))
    assert view.build(80).plain == "real bits.fixed = 7"
    view.show(reveal_for(tensors, "cost.scores", {}))                      # (1, 1) is one number too
    assert view.build(80).plain == "real cost.scores = 9248"
    view.show(reveal_for(tensors, "embed[0, 1, 2]", {}, limit=True))      # a show: slice of one cell
    assert view.build(80).plain == "real embed[0, 1, 2] = 0.3333"
    view.show(reveal_for(tensors, "embed[0, 1, 2]", {}))                   # one asked cell of a whole tensor
    assert "(the whole tensor: (2, 4, 8))" in view.build(80).plain         # stays a table


@pytest.mark.asyncio
async def test_a_live_count_reveal_reads_as_a_number():
    """it-bits fixed-code in the app: the reveal is the number of bits, not a one-entry table."""
    first, _ = await reveal_text("it-bits", 0, "7")
    assert first.strip() == "real bits.fixed = 7", first
    assert "shape" not in first and "index" not in first


def test_an_experiment_axis_declared_with_its_values_is_headed_by_them_not_counted():
    """Before: de-temperature-range's cold-miss reveal headed its temperature axis 0 … 6 and
    pr-temperature's winners 0 … 4; the declaration ``(7 temperature = .T,)`` names temp_range.T
    as that axis's labels, so the view heads it 0.1 … 2 (a show: range keeps its own values)."""
    import tutor.experiments  # noqa: F401  (registers the descriptions that declare the axes)
    from tutor.grading.declared_shapes import declared_labels

    assert declared_labels("temp_range.miss") == ("temp_range.T",)
    assert declared_labels("temperature.probs") == ("temperature.T", None)
    assert declared_labels("sgd_adam.curves") == (("SGD", "Adam"), None)   # names; a counted axis without labels
    assert declared_labels("saddle.grad_norm") == ("saddle.t",)        # op-saddles-plateaus: t = 0 … 1 (read4 row 35)
    tensors = {"temp_range.T": np.array([0.1, 0.5, 0.8, 1, 1.2, 1.5, 2]),
               "temp_range.miss": np.array([0.001, 0.02, 0.1, 0.2, 0.3, 0.4, 0.5]),
               "temperature.T": np.array([0.5, 1, 2, 5, 1000]), "temperature.winner": np.full(5, 17.0)}
    view = TensorView()
    view.show(reveal_for(tensors, "temp_range.miss[0]", {"L": 7}))
    lines = view.build(80).plain.split("\n")
    assert lines[1].startswith("index: temperature")
    assert lines[3].split() == ["0.1", "0.5", "0.8", "1", "1.2", "1.5", "2"], lines
    view.show(reveal_for(tensors, "temp_range.miss[2:5]", {"L": 7}, limit=True))
    assert view.build(80).plain.split("\n")[3].split() == ["0.8", "1", "1.2"]
    view.show(reveal_for(tensors, "temperature.winner", {"L": 5}, limit=True))
    assert view.build(80).plain.split("\n")[3].split() == ["0.5", "1", "2", "5", "1000"]
    del tensors["temp_range.T"]                                          # no labels' output: counted as before
    view.show(reveal_for(tensors, "temp_range.miss", {"L": 7}))
    assert view.build(80).plain.split("\n")[2].split() == list("0123456")


def test_a_declared_axis_word_reads_in_chinese_as_the_quantity_not_the_sampling_mode():
    """Before: the zh view headed temp_range.miss 'index: temperature' in English; the word's one
    translation, 温度采样, is the sample panel's mode (temperature sampling), not the axis's quantity."""
    tensors = {"temp_range.T": np.array([0.1, 0.5, 0.8, 1, 1.2, 1.5, 2]),
               "temp_range.miss": np.array([0.001, 0.02, 0.1, 0.2, 0.3, 0.4, 0.5])}
    import tutor.experiments  # noqa: F401  (registers the descriptions that declare the axes)

    view = TensorView()
    set_language("zh")
    try:
        view.show(reveal_for(tensors, "temp_range.miss", {"L": 7}))
        assert view.build(80).plain.split("\n")[1].startswith("下标：温度"), view.build(80).plain
        assert _("temperature") == "温度采样"             # the sample panel's mode keeps its own word
    finally:
        set_language("en")


def test_an_axis_of_things_is_headed_by_the_names_its_experiment_declares():
    """Before: op-sgd-vs-adam's travel table headed its five tensors 0 … 4 and its rows 0, 1, and the
    lesson's reveal had to spell out which column was which; ``5 tensor = W_E|W_Q|W_in|gain|W_U``
    heads them by name.  A declaration whose names do not match the axis's length is not used."""
    import tutor.experiments  # noqa: F401  (registers the descriptions that declare the axes)
    from tutor.grading.declared_shapes import _named, declared_axes

    assert declared_axes("sgd_adam.travel") == ("optimizer", "tensor")
    travel = np.array([[0.02, 1e-5, 0.003, 0.01, 0.09], [0.3, 0.28, 0.3, 0.29, 0.3]])
    view = TensorView()
    view.show(reveal_for({"sgd_adam.travel": travel}, "sgd_adam.travel", {"L": 9}))
    lines = view.build(80).plain.split("\n")
    assert lines[3].split() == ["W_E", "W_Q", "W_in", "gain", "W_U"], lines
    assert lines[4].split()[:2] == ["0", "SGD"] and lines[5].split()[:2] == ["1", "Adam"], lines
    assert _named("3 optimizer = SGD|Adam") is None and _named("2 optimizer = SGD|Adam") == ("optimizer", ("SGD", "Adam"))
