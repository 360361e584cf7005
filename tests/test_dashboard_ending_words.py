"""Issue 32: how a training run ended is named in the interface language, and stays named after F4.

Before: "■ stopped · 第 115/800 步" (the run's status word itself was printed)."""
from journey_helpers import wait_until
from test_dashboard import key, message, train, tiny_preset  # noqa: F401 (its presets)
from test_dashboard_zh_errors import chinese_dashboard
from tutor.common.i18n import set_language


async def test_a_stopped_run_says_so_in_chinese_and_again_in_english_after_f4(tmp_path):
    async with chinese_dashboard(tmp_path, (80, 24)) as (pilot, app, screen):
        panel = screen.train_panel
        await train(pilot, screen, "long")
        await wait_until(pilot, lambda: panel.state == "training" and panel.metrics is not None,
                         "a training step", busy=True)
        await key(pilot, "f7")
        await wait_until(pilot, lambda: panel.state == "idle" and "■" in message(screen, "#train-status"),
                         "the run to stop", busy=True)
        status = message(screen, "#train-status").splitlines()[0]
        assert status.startswith("■ 已停止 · 第 ") and "stopped" not in status, status
        set_language("en")
        panel.relabel()
        await pilot.pause()
        status = message(screen, "#train-status").splitlines()[0]
        assert status.startswith("■ stopped · step "), status
