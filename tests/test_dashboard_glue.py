"""The dashboard's plain-Python parts: presets, the metrics relay, sampling, attention, the chart."""
import math
from types import SimpleNamespace

import pytest

from tutor.training import runs as dt
from tutor.training.sampling import SampleRequest, attention_pattern, sample_steps, validate
from tutor.ui.widgets.loss_chart import LossChart, _fmt, linear_ticks, log_ticks


def test_the_relay_hands_on_ten_times_a_second_but_keeps_every_loss():
    now = [0.0]
    sent = []
    relay = dt.MetricsRelay(lambda m, losses: sent.append((m.step, losses)), interval=10, clock=lambda: now[0])
    for step in range(1, 31):
        now[0] += 1                                     # ten steps per interval
        relay(SimpleNamespace(step=step, loss=1.0 / step, evaluated=step == 25))
    steps = [s for s, _ in sent]
    assert steps == [1, 11, 21, 25]                     # once an interval, and the evaluation at once
    assert [s for _, losses in sent for s, _ in losses] == list(range(1, 26))
    relay(SimpleNamespace(step=30, loss=0.1, evaluated=True))   # the trainer's final re-emit: no duplicate
    assert [s for s, _ in sent[-1][1]] == list(range(26, 31))


def test_presets_keep_the_shape_the_lessons_are_written_for():
    from tutor.model import GPT, CharTokenizer, GPTConfig

    assert dt.shape_problem(dt.shipped_config()) is None
    wrong = GPTConfig(vocab_size=CharTokenizer().vocab_size, d_model=32, n_head=2, n_layer=2, block_size=64)
    problem = dt.shape_problem(wrong)
    assert "d_model 32 (need 64)" in problem and "n_head 2 (need 4)" in problem
    with pytest.raises(ValueError, match="learning rate must be a positive number"):
        dt.parse_lr("-1")
    run = dt.TrainingRun(dt.TrainRequest(preset="quick", data="reverse"), device="cpu")
    assert run.trainer.model.config == dt.shipped_config() and run.trainer.config.steps == 300
    assert run.label() == "your model: reverse, 0 steps, training, 300 steps to go"
    continued = dt.TrainingRun(dt.TrainRequest(preset="quick", start="current"), current=GPT(dt.shipped_config()),
                               current_label="shipped", device="cpu")
    assert "continued from shipped" in continued.label(status="finished")
    with pytest.raises(ValueError, match="cannot continue"):
        dt.TrainingRun(dt.TrainRequest(start="current"), current=GPT(wrong))
    with pytest.raises(ValueError, match="type the path"):
        dt.TrainingRun(dt.TrainRequest(data="file", path="  "))


def test_text_runs_use_a_quarter_of_the_rows():
    assert dt.PRESETS["standard"].text_batch == 32 and dt.PRESETS["quick"].text_batch == 16


@pytest.fixture(scope="module")
def shipped():
    from tutor.model.checkpoint import load_default_model

    model, tokenizer, _ = load_default_model()
    return model, tokenizer


def test_top_k_1_and_a_beam_of_1_are_greedy(shipped):
    model, tokenizer = shipped
    greedy = [s.text for s in sample_steps(model, tokenizer, SampleRequest("52817>", "greedy"))]
    top1 = [s.text for s in sample_steps(model, tokenizer, SampleRequest("52817>", "top-k", 1.7, top_k=1, seed=3))]
    beam1 = [s.text for s in sample_steps(model, tokenizer, SampleRequest("52817>", "beam", beam=1))]
    assert "".join(greedy) == "12578\n" and top1 == greedy == beam1


def test_each_step_carries_the_distribution_before_and_after_the_filters(shipped):
    model, tokenizer = shipped
    steps = list(sample_steps(model, tokenizer, SampleRequest("the ", "top-p", 2.0, top_p=0.5, max_new=3,
                                                              stop_at_newline=False)))
    assert len(steps) == 3
    for step in steps:
        before = [c.before for c in step.candidates]
        assert before == sorted(before, reverse=True)
        assert sum(c.after for c in step.candidates) <= 1 + 1e-6
    with pytest.raises(ValueError, match="type a prompt"):
        validate(SampleRequest(""))
    with pytest.raises(ValueError, match="temperature"):
        validate(SampleRequest("1>", "temperature", temperature=-1))


def test_attention_rows_sum_to_one_and_the_future_is_masked(shipped):
    model, tokenizer = shipped
    pattern, labels = attention_pattern(model, tokenizer, "31 4>", 1, 2)
    assert labels == ["3", "1", "␣", "4", ">"] and pattern.shape == (5, 5)
    assert abs(pattern.sum(axis=1) - 1).max() < 1e-5 and pattern[0, 1:].max() == 0
    with pytest.raises(ValueError, match="layers 0-1 and heads 0-3"):
        attention_pattern(model, tokenizer, "1", 2, 0)


def test_nice_ticks():
    assert linear_ticks(800, 6) == [0, 200, 400, 600, 800]
    assert linear_ticks(1500, 6) == [0, 500, 1000, 1500]
    assert log_ticks(math.log10(0.001), math.log10(4.6), 5) == [0.001, 0.01, 0.1, 1.0]
    assert log_ticks(math.log10(0.05), math.log10(4.6), 6) == [0.05, 0.1, 0.2, 0.5, 1.0, 2.0]
    assert log_ticks(math.log10(1.2), math.log10(1.8), 4) == [1.2, 1.4, 1.6, 1.8]


async def test_the_chart_draws_both_series_on_a_log_axis():
    from textual.app import App

    class ChartApp(App):
        def compose(self):
            yield LossChart()

    app = ChartApp()
    async with app.run_test(size=(60, 12)) as pilot:
        chart = app.query_one(LossChart)
        assert "No training yet" in chart.render().plain
        chart.set_data([(s, 4.6 * math.exp(-s / 30)) for s in range(1, 301)] + [(301, float("nan"))],
                       [(100, 0.2), (200, 0.01)], 300)
        await pilot.pause()
        lines = chart.render().plain.splitlines()
        assert len(lines) == 12 and all(len(line) <= 60 for line in lines)
        y_labels = [line.split("┤")[0].strip() for line in lines[:-2] if "┤" in line]
        assert len(y_labels) >= 3 and all(label in ("5", "2", "1", "0.5", "0.2", "0.1", "0.05", "0.02", "0.01", "0.001")
                                          for label in y_labels), y_labels     # round numbers only
        assert lines[-2].split() == ["0", "100", "200", "300"]
        assert "⠤⠒ train" in lines[-1] and "◆ validation" in lines[-1]     # told apart without colour
        assert sum(line.count("◆") for line in lines[:-2]) == 2
        assert any(ch != " " and 0x2800 <= ord(ch) <= 0x28FF for ch in lines[5])
    assert [_fmt(v) for v in (4.56, 0.0934, 0.00123)] == ["4.56", "0.0934", "1.2e-3"]
