"""`tutor --lang zh lessons probes`: every description in Chinese, the English text still what code reads."""
import re

import pytest
from rich.cells import cell_len

from tutor.authoring.probe_listing import Entry, listing, render
from tutor.cli.main import main
from tutor.common import i18n_tools
from tutor.common.i18n import M_, set_language, translated
from tutor.experiments import DESCRIPTIONS
from tutor.grading.declared_shapes import declared_axes
from tutor.model import describe_probe
from tutor.model.probes import PROBE_DESCRIPTIONS


@pytest.fixture(autouse=True)
def _english_afterwards():
    yield
    set_language("en")


@pytest.fixture(scope="module")
def entries():
    return listing(run_experiments=False)


def _line(out: str, name: str) -> str:
    return next(line for line in out.splitlines() if re.match(rf"  {re.escape(name)}\s", line))


def test_lessons_probes_in_chinese_describes_probes_weights_and_experiments(capsys, tmp_path):
    assert main(["--lang", "zh", "--home", str(tmp_path), "lessons", "probes"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"  embed\s+\(B, L, D\)\s+从 W_E 查出的词元嵌入", _line(out, "embed"))
    assert _line(out, "blocks.0.attn.pattern").endswith("掩码后分数的 softmax：每行之和为 1")
    assert _line(out, "params.blocks.0.mlp.W_in").endswith("权重矩阵，按 (in, out) 存放，公式因此写作 x @ W")
    assert _line(out, "vocab.chars").endswith("词汇表，每个词元 id 对应一个码位（'| token' 读取它）")
    sgd_adam = _line(out, "sgd_adam")
    assert "两份副本" in sgd_adam and "sgd_adam.curves (2 优化器 = SGD|Adam, 31 步)" in sgd_adam
    for english in ("token embeddings looked up from W_E", "weight matrix, stored", "two copies of the lesson"):
        assert english not in out


def test_the_english_listing_keeps_its_words(capsys, tmp_path):
    assert main(["--lang", "en", "--home", str(tmp_path), "lessons", "probes"]) == 0
    out = capsys.readouterr().out
    assert re.fullmatch(r"  embed\s+\(B, L, D\)\s+token embeddings looked up from W_E", _line(out, "embed"))
    assert re.fullmatch(r"  sgd_adam\s+" + re.escape(DESCRIPTIONS["sgd_adam"]), _line(out, "sgd_adam"))
    assert _line(out, "params.W_U").endswith("unembedding matrix, (in, out): turns the final LayerNorm's output into logits")


def test_code_reads_the_english_description_while_the_listing_shows_chinese():
    set_language("zh")
    assert declared_axes("sgd_adam.curves") == ("optimizer", "step")
    assert declared_axes("padding.pattern") == (None, "head", "position", "position")
    assert DESCRIPTIONS["sgd_adam"].startswith("two copies of the lesson's model")
    assert translated(DESCRIPTIONS["sgd_adam"]).startswith("课程模型的两份副本")
    assert describe_probe("blocks.3.attn.q") == "queries, one row per position per head"
    assert translated(describe_probe("blocks.3.attn.q")) == "查询，每个头的每个位置一行"


def test_a_description_that_quotes_a_constant_is_translated_with_its_value():
    from tutor.experiments.attention_variants import WINDOW

    set_language("zh")
    assert f"w = {WINDOW} keys" in DESCRIPTIONS["attn_window"]
    assert translated(DESCRIPTIONS["attn_window"]).startswith(f"块 0 上宽 w = {WINDOW} 个键的滑动窗口")


def test_every_experiment_and_probe_description_has_a_chinese_translation():
    """A new experiment whose description is not extracted as written (an f-string, say) or not translated
    would show English in the Chinese listing."""
    extracted = {message.id for message in i18n_tools.extract_catalog() if message.id}
    catalog = i18n_tools.read_po("zh")
    described = {f"experiment {name!r}": text for name, text in DESCRIPTIONS.items()}
    described |= {f"probe {name!r}": text for name, text in PROBE_DESCRIPTIONS.items()}
    problems = []
    for what, text in sorted(described.items()):
        if text.template not in extracted:
            problems.append(f"{what}: its description is not extracted as written (write a literal string, or "
                            f"M_(template, **values) when it quotes a constant)")
        elif not (catalog.get(text.template) and catalog.get(text.template).string):
            problems.append(f"{what}: no Chinese in tutor/locale/zh/LC_MESSAGES/tutor.po "
                            f"(python -m tutor.common.i18n_tools update, translate, compile)")
    assert len(described) > 70 and not problems, "\n".join(problems)


def test_a_terminal_wide_listing_wraps_each_description_under_its_column(entries):
    set_language("zh")
    for width in (80, 120):
        lines = render(entries, width).splitlines()
        assert max(cell_len(line) for line in lines) <= width
        experiments = lines[lines.index("实验（在 model.experiments 下写出名字）") + 1:]
        first = next(i for i, line in enumerate(experiments) if line.startswith("  sgd_adam "))
        column = cell_len(experiments[first]) - cell_len(experiments[first].split("  ")[-1])
        rest = []
        for line in experiments[first + 1:]:
            if not line.startswith(" " * column):
                break
            rest.append(line.strip())
        assert rest, "sgd_adam's description should run on to more lines"
        joined = experiments[first][column:] + "".join(rest)
        assert joined.replace(" ", "") == translated(DESCRIPTIONS["sgd_adam"]).replace(" ", "")


def test_columns_line_up_by_cells_when_a_shape_note_is_chinese():
    set_language("zh")
    varying = M_("{shape} (the number of axes depends on the sizes)", shape="(2, 3)")
    group = [Entry("a.x", varying, "experiment", "甲"), Entry("a.longer_name", "(B, L)", "experiment", "乙")]
    lines = render(group).splitlines()[1:]
    assert "（轴数取决于尺寸）" in lines[0]
    assert {cell_len(line) - 1 for line in lines} == {cell_len(lines[0]) - 1}   # each description starts at one column


def test_the_prose_around_the_listing_fits_the_terminal_too(entries):
    from tutor.authoring.probe_listing import fit, trained_sizes

    set_language("zh")
    text = fit(trained_sizes(), 60)
    assert max(cell_len(line) for line in text.splitlines()) <= 60
    assert text.replace("\n", "").replace(" ", "") == trained_sizes().replace(" ", "")
    assert fit("一\n\n二", None) == "一\n\n二"


def test_an_experiment_that_cannot_run_at_the_listing_sizes_says_why_in_chinese():
    from tutor.authoring.probe_listing import RUNS, _experiment_entries
    from tutor.experiments.word2vec import WINDOW
    from tutor.live.hub import ModelHub

    set_language("zh")
    entry, = _experiment_entries("w2v", ModelHub(), {}, None)
    assert entry.name == "w2v.*" and RUNS[0]["L"] < 2 * WINDOW + 1
    assert translated(entry.description) == \
        f"（在这些尺寸下没有运行：w2v 需要每行至少 {2 * WINDOW + 1} 个字符，实际只有 {RUNS[0]['L']} 个）"
