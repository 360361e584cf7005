"""Issue 24: a checkpoint the dashboard refuses is explained in Chinese after F4, down to model/'s reason."""
from contextlib import asynccontextmanager

from textual.widgets import Input

from journey_helpers import wait_until
from test_dashboard import click, message, open_dashboard, tiny_preset  # noqa: F401 (its presets)
from tutor.common.i18n import current_language, set_language
from tutor.ui.app import TutorApp


@asynccontextmanager
async def chinese_dashboard(tmp_path, size):
    """The app switched to Chinese with F4, on the dashboard; English again afterwards."""
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    try:
        async with app.run_test(size=size) as pilot:
            await pilot.press("f4")
            await wait_until(pilot, lambda: current_language() == "zh", "the language toggle")
            yield pilot, app, await open_dashboard(pilot, app)
    finally:
        set_language("en")


async def test_a_refused_checkpoint_is_explained_in_chinese(tmp_path):
    from tutor.model import GPT, CharTokenizer, GPTConfig, save_checkpoint

    tok = CharTokenizer()
    save_checkpoint(tmp_path / "wide.pt", GPT(GPTConfig(vocab_size=tok.vocab_size, d_model=32, n_head=4)), tok, {})
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    async with chinese_dashboard(tmp_path, (100, 30)) as (pilot, app, screen):
        path = screen.query_one("#train-path", Input)
        for name, expected in (("junk.pt", "它不是 zip 压缩包"),
                               ("missing.pt", "没有这个检查点文件"),
                               ("wide.pt", "d_model 为 32（需要 64）")):
            path.value = str(tmp_path / name)
            await click(pilot, "#train-load")
            await wait_until(pilot, lambda: expected in message(screen), expected, busy=True)
            assert "checkpoint" not in message(screen).replace(str(tmp_path), "")


async def test_a_training_run_that_fails_says_so_in_chinese_and_names_a_library_error(tmp_path, monkeypatch):
    """Before: "RuntimeError after 0 steps. boom": the sentence was built around the exception's type name."""
    from test_dashboard import train
    from tutor.model.train import Trainer
    from tutor.ui.widgets.train_panel import TrainPanel

    monkeypatch.setattr(Trainer, "step", lambda self: (_ for _ in ()).throw(RuntimeError("CUDA error: boom")))
    monkeypatch.setattr(TrainPanel, "in_process", True)   # a spawned process would not see the patch
    async with chinese_dashboard(tmp_path, (100, 30)) as (pilot, app, screen):
        screen.query_one("#dash-tabs").active = "tab-train"
        await pilot.pause()
        await train(pilot, screen)
        expected = "训练 0 步后失败：RuntimeError: CUDA error: boom"
        await wait_until(pilot, lambda: expected in message(screen), expected, busy=True)


async def test_the_training_status_line_reads_chinese_and_fits_80_columns(tmp_path):
    """Before: "● 训练中 · 第 112/800 步 · 50.4k tok/s · lr 3.0e-03 · grad 2.44 · ETA 0:31", under a
    box labelled 学习率."""
    from rich.cells import cell_len

    from test_dashboard import key, train

    async with chinese_dashboard(tmp_path, (80, 24)) as (pilot, app, screen):
        panel = screen.train_panel
        await train(pilot, screen, "long")
        await wait_until(pilot, lambda: panel.state == "training" and panel.metrics is not None
                         and "剩 " in message(screen, "#train-status"), "a training step", busy=True)
        first_line = message(screen, "#train-status").splitlines()[0]
        await key(pilot, "f7")
        # the key handled before the app closes (under load it came after, with no screen left)
        await wait_until(pilot, lambda: not panel.training_active, "the run to stop", busy=True)
        assert "词元/秒 · 学习率 " in first_line and " · 梯度 " in first_line, first_line
        assert not any(word in first_line for word in ("tok/s", "lr ", "grad", "ETA")), first_line
        assert cell_len(first_line) <= 78, first_line


async def test_two_sentences_in_a_row_join_as_chinese_does(tmp_path):
    """Before: "已训练 30 步. 课程现在使用这些权重…" (an English full stop) and "已加载。 课程现在使用：…"
    (a space after 。)."""
    from tutor.model import GPT, CharTokenizer, GPTConfig, save_checkpoint

    from test_dashboard import train

    tok = CharTokenizer()
    save_checkpoint(tmp_path / "mine.pt", GPT(GPTConfig(vocab_size=tok.vocab_size, d_model=64, n_head=4)), tok, {})
    async with chinese_dashboard(tmp_path, (100, 30)) as (pilot, app, screen):
        screen.query_one("#train-path", Input).value = str(tmp_path / "mine.pt")
        await click(pilot, "#train-load")
        await wait_until(pilot, lambda: "已加载" in message(screen), "the load", busy=True)
        assert "已加载。课程现在使用：" in message(screen), message(screen)
        await train(pilot, screen)
        expected = "已训练 30 步。课程现在使用这些权重"
        await wait_until(pilot, lambda: expected in message(screen), expected, busy=True)


async def test_a_sampling_knob_that_is_not_a_number_is_named_without_a_stray_space(tmp_path):
    """Before: "随机种子 必须是整数，不能是 'x'": the space a Latin name (top-k) needs, after a Chinese one."""
    async with chinese_dashboard(tmp_path, (100, 30)) as (pilot, app, screen):
        screen.query_one("#dash-tabs").active = "tab-sample"
        await pilot.pause()
        for knob, value, expected in (("seed", "x", "随机种子：必须是整数，不能是 'x'"),
                                      ("top-k", "x", "top-k：必须是整数，不能是 'x'")):
            screen.query_one(f"#sample-{knob}", Input).value = value
            await click(pilot, "#sample-go")
            await wait_until(pilot, lambda: expected in message(screen, "#sample-message"), expected)
            screen.query_one(f"#sample-{knob}", Input).value = "5"
