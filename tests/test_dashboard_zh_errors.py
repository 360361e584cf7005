"""Issue 24: a checkpoint the dashboard refuses is explained in Chinese after F4, down to model/'s reason."""
from contextlib import asynccontextmanager

from textual.widgets import Input

from journey_helpers import wait_until
from test_dashboard import click, message, open_dashboard, tiny_preset  # noqa: F401 (its presets)
from tutor.common.i18n import current_language, set_language
from tutor.ui.app import TutorApp


@asynccontextmanager
async def chinese_dashboard(tmp_path):
    """The dashboard after F4 has switched the app to Chinese: (pilot, screen); English again after."""
    app = TutorApp(preload_model=False, home=tmp_path, watch_interval=None)
    try:
        async with app.run_test(size=(100, 30)) as pilot:
            await pilot.press("f4")
            await wait_until(pilot, lambda: current_language() == "zh", "the language toggle")
            yield pilot, await open_dashboard(pilot, app)
    finally:
        set_language("en")


async def test_a_refused_checkpoint_is_explained_in_chinese(tmp_path):
    from tutor.model import GPT, CharTokenizer, GPTConfig, save_checkpoint

    tok = CharTokenizer()
    save_checkpoint(tmp_path / "wide.pt", GPT(GPTConfig(vocab_size=tok.vocab_size, d_model=32, n_head=4)), tok, {})
    (tmp_path / "junk.pt").write_bytes(b"not a checkpoint")
    async with chinese_dashboard(tmp_path) as (pilot, screen):
        path = screen.query_one("#train-path", Input)
        for name, expected in (("junk.pt", "不是 torch.save 写出的那种 zip 压缩包"),
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

    monkeypatch.setattr(Trainer, "step", lambda self: (_ for _ in ()).throw(RuntimeError("CUDA error: boom")))
    async with chinese_dashboard(tmp_path) as (pilot, screen):
        screen.query_one("#dash-tabs").active = "tab-train"
        await pilot.pause()
        await train(pilot, screen)
        expected = "训练 0 步后失败：RuntimeError: CUDA error: boom"
        await wait_until(pilot, lambda: expected in message(screen), expected, busy=True)
