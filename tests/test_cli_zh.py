"""Issue 24: the command line in Chinese (argparse's own words too), and `tutor progress` by title."""
import pytest

from tutor.cli.main import main
from tutor.common.i18n import set_language
from tutor.progress.store import ProgressStore
from progress_helpers import answer_once


@pytest.fixture(autouse=True)
def back_to_english():
    yield
    set_language("en")


def run(capsys, *argv):
    try:
        code = main(list(argv))
    except SystemExit as exit:
        code = exit.code
    out, err = capsys.readouterr()
    return code, out, err


def test_help_is_chinese_down_to_argparses_own_words(capsys):
    code, out, _err = run(capsys, "--lang", "zh", "--help")
    assert code == 0
    for words in ("用法：tutor", "选项", "显示本帮助并退出", "列出、检查或新建课程文件", "查看、导出、导入或重置学习进度"):
        assert words in out, words
    for english in ("usage:", "options:", "show this help", "list, check or create"):
        assert english not in out, english


def test_a_subcommands_help_and_an_argparse_error_are_chinese(capsys):
    _code, out, _err = run(capsys, "--lang", "zh", "progress", "--help")
    assert "用法：tutor progress" in out and "把全部作答写入一个 JSON 文件" in out
    code, _out, err = run(capsys, "--lang", "zh", "progres")
    assert code == 2 and "错误" in err and "无效的选择" in err and "error" not in err


def test_progress_lists_lesson_titles_in_the_language(tmp_path, capsys):
    with ProgressStore(tmp_path) as store:
        answer_once(store, "la-ffn-shapes", "win-shape", "(1, 2)", True)
    code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path), "progress")
    assert code == 0 and "学习进度" in out and "前馈网络" in out and "la-ffn-shapes" not in out
    code, out, _err = run(capsys, "--lang", "en", "--home", str(tmp_path), "progress")
    assert "la-ffn-shapes" not in out and "Lesson" in out


def test_progress_export_import_and_reset_speak_chinese(tmp_path, capsys):
    with ProgressStore(tmp_path / "home") as store:
        answer_once(store, "la-ffn-shapes", "win-shape", "(1, 2)", True)
    export = tmp_path / "out.json"
    _code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "home"), "progress", "--export", str(export))
    assert out.startswith("已把 1 次作答")
    _code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "other"), "progress", "--import", str(export))
    assert out.startswith("已从") and "导入 1 条新作答" in out
    _code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "home"), "progress", "--reset", "--yes")
    assert out.startswith("进度已重置")


def test_lessons_check_summary_is_chinese(capsys):
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static")
    assert code == 0 and out.splitlines()[-1].startswith("检查了 ") and out.rstrip().endswith("全部有效")


def test_lessons_list_wraps_a_chinese_title_between_characters_not_at_its_space(capsys, monkeypatch):
    monkeypatch.setenv("COLUMNS", "80")
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "list")
    row = [line for line in out.splitlines() if "pr-softmax-stability" in line][0]
    # before: '数值稳定的' alone on the row, 'softmax：减去每行的最大值' below it
    assert "数值稳定的 softmax：" in row


def test_lessons_docs_in_chinese_shows_the_shipped_chinese_guide(capsys):
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "docs")
    assert out.startswith("# 编写课程：作者指南") and "format_version" in out and "symbolic_shape" in out
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "docs", "--path")
    assert out.strip().endswith("lessons.zh.md")
    _code, out, _err = run(capsys, "--lang", "en", "lessons", "docs")
    assert not out.startswith("# 编写课程")


def new_lesson(capsys, folder, *argv):
    code, out, _err = run(capsys, *argv, "lessons", "new", "my-check", "--dir", str(folder))
    assert code == 0
    return folder / "my-check.yaml", out


def test_lessons_new_says_what_it_wrote_and_what_next_in_chinese(tmp_path, capsys):
    path, out = new_lesson(capsys, tmp_path, "--lang", "zh")
    # before: "wrote … (for editors with the YAML language server)\nnext: edit it …"
    assert out.startswith(f"已写入 {path} 和 ") and "下一步：编辑它" in out and f"tutor lessons check {path}" in out
    assert "wrote" not in out and "next:" not in out
    assert 'title: "新课程：my-check"' in path.read_text(encoding="utf-8")


def test_lessons_check_problems_are_chinese_after_the_machine_readable_prefix(tmp_path, capsys):
    path, _out = new_lesson(capsys, tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\ntitle:", "\ntitel:", 1), encoding="utf-8")
    line = 1 + text[: text.index("\ntitle:") + 1].count("\n")
    _code, english, _err = run(capsys, "--lang", "en", "lessons", "check", "--static", str(path))
    code, chinese, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static", str(path))
    assert code == 1
    assert f"{path}:{line}:1: titel: unknown field; did you mean 'title'?" in english.splitlines()
    # before: the same English line under --lang zh; the path:line:col: field: prefix is unchanged
    assert f"{path}:{line}:1: titel: 未知的字段；你是不是想写 'title'？" in chinese.splitlines()
    assert "缺少必填字段；请加上 'title:'" in chinese and "unknown field" not in chinese


def test_lessons_check_warnings_and_missing_paths_are_chinese(tmp_path, capsys):
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static", str(tmp_path / "nowhere"))
    assert code == 1 and f"{tmp_path / 'nowhere'}:1:1: (file): 没有这个文件或文件夹" in out.splitlines()
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static")
    warnings = [line for line in out.splitlines() if ": warning: " in line]
    # every built-in warning's message is Chinese (the formula-width one at least; the "N decimals" one where a
    # lesson's tolerance does not keep its prompt's decimals)
    assert any("公式显示宽度为" in line for line in warnings), warnings
    assert all("公式显示宽度为" in line or "题面要求保留" in line for line in warnings), warnings


def test_a_problem_made_in_english_is_shown_in_the_language_of_the_moment(tmp_path):
    from tutor.course.loader import read_yaml

    _data, _root, problems = read_yaml(tmp_path / "absent.yaml")
    assert "cannot read the file" in str(problems[0])
    set_language("zh")   # F4 after the problem was made: it is shown in Chinese all the same
    assert "无法读取文件" in str(problems[0]) and problems[0].message.startswith("cannot read the file")


def test_progress_optimize_speaks_chinese(tmp_path, capsys):
    code, out, _err = run(capsys, "--lang", "zh", "--home", str(tmp_path), "progress", "--optimize")
    # before: "0 reviews so far count for FSRS (…); it needs 400, so 400 more."
    assert code == 0 and out.startswith("到目前为止有 0 次复习可供 FSRS 使用") and "还差 400 次" in out


def test_train_progress_and_result_lines_speak_chinese(tmp_path, capsys):
    code, out, err = run(capsys, "--lang", "zh", "train", "--data", "reverse", "--steps", "4", "--batch-size", "8",
                         "--eval-interval", "2", "--max-len", "4", "--out", str(tmp_path / "m.pt"), "--device", "cpu")
    assert code == 0
    # before: "training … parameters on reverse (cpu); Ctrl+C stops and saves", "step      2  loss …"
    assert "个参数（cpu）；Ctrl+C 停止并保存" in err and "第      2 步  损失 " in err and "完全匹配 " in err
    assert out.startswith("完全匹配准确率：") and "4 步  训练损失 " in out and f"已保存 {tmp_path / 'm.pt'}" in out
    for english in ("training ", "step ", "exact-match", "saved"):
        assert english not in out + err, english


def test_help_section_headings_end_with_a_full_width_colon_in_chinese(capsys):
    _code, out, _err = run(capsys, "--lang", "zh", "serve", "--help")
    # before: "选项:" (argparse appends its own half-width colon)
    assert "\n选项：\n" in out and "选项:" not in out
    _code, out, _err = run(capsys, "--lang", "en", "--help")
    assert "\noptions:\n" in out


def test_a_validators_message_is_chinese_too(tmp_path, capsys):
    """Messages raised inside the schema (pydantic passes them on) are translated like the loader's own."""
    path, _out = new_lesson(capsys, tmp_path)
    text = path.read_text(encoding="utf-8")
    first_probe = text.index("probe: ", text.index("questions:")) + len("probe: ")
    path.write_text(text[:first_probe] + '"embed[]"' + text[text.index("\n", first_probe):], encoding="utf-8")
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static", str(path))
    # before: "questions.0.probe: 'embed[]': empty index []"
    assert code == 1 and "questions.0.probe: 'embed[]'：下标 [] 是空的" in out and "empty index" not in out


def test_lessons_concepts_names_the_tracks_in_chinese(capsys):
    _code, out, _err = run(capsys, "--lang", "zh", "lessons", "concepts")
    assert out.startswith("la  线性代数\n")   # before: "la  Linear algebra"


def test_progress_file_errors_are_chinese_os_reasons_included(tmp_path, capsys):
    code, _out, err = run(capsys, "--lang", "zh", "--home", str(tmp_path), "progress", "--import", str(tmp_path / "none"))
    # before: "tutor progress：错误：cannot read …/none: No such file or directory"
    assert code == 1 and err.strip() == f"tutor progress：错误：无法读取 {tmp_path / 'none'}：没有这个文件或目录"
    code, _out, err = run(capsys, "--lang", "zh", "--home", str(tmp_path), "progress", "--import", str(tmp_path))
    assert code == 1 and "它是一个文件夹；请给出一个普通进度导出文件" in err
    code, _out, err = run(capsys, "--lang", "en", "--home", str(tmp_path), "progress", "--import", str(tmp_path))
    assert "it is a folder; give a regular progress export" in err


def test_an_import_that_is_not_an_export_is_refused_in_chinese(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text('{"format": ', encoding="utf-8")
    code, _out, err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "home"), "progress", "--import", str(bad))
    # before: "…bad.json: is not a tutor progress export (invalid JSON at line 1, column 12: Expecting value)"
    assert code == 1 and f"无法读取 {bad}：第 1 行第 12 列不是有效的 JSON" in err


def test_the_translation_language_of_lessons_new_is_not_the_interface_language(tmp_path, capsys):
    run(capsys, "lessons", "new", "my-own", "--dir", str(tmp_path))
    code, out, _err = run(capsys, "--lang", "en", "lessons", "new", "my-own", "--lang", "zh", "--dir", str(tmp_path))
    # before: the second --lang (the translation to write) switched the interface to Chinese too
    assert code == 0 and out.startswith(f"wrote {tmp_path / 'zh' / 'my-own.yaml'}\nnext: translate each field")
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "new", "my-own", "--lang", "zh", "--dir", str(tmp_path),
                          "--force")
    assert code == 0 and out.startswith("已写入 ") and "下一步：翻译每个字段" in out


def test_the_command_names_the_language_is_read_before_are_the_parsers(capsys):
    from tutor.cli.main import COMMAND_NAMES

    _code, out, _err = run(capsys, "--lang", "en", "--help")
    listed = [line.split()[0] for line in out.splitlines() if line.startswith("    ") and line[4] != " "]
    assert tuple(listed) == COMMAND_NAMES


def test_the_live_checks_problems_are_chinese(tmp_path, capsys):
    path, _out = new_lesson(capsys, tmp_path)
    text = path.read_text(encoding="utf-8")
    text = text.replace('probe: "blocks.0.attn.pattern"\n', 'probe: "blocks.0.attn.patternx"\n', 1)
    path.write_text(text.replace('answer: "(B, H, L, L)"', 'answer: "(B, H, L, H)"', 1), encoding="utf-8")
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", "--variants", "0", str(path))
    # before: "questions.0.probe: unknown probe 'blocks.0.attn.patternx'; did you mean …? valid probes for this model: …"
    assert code == 1
    line = next(line for line in out.splitlines() if "questions.0.probe: " in line)
    assert "未知的探针 'blocks.0.attn.patternx'；你是不是想写 'blocks.0.attn.pattern'？这个模型可用的探针：" in line
    # a question kind's own check: the symbolic answer does not fit the probe's shape
    assert "questions.1.answer: answer (B, H, L, H) 给出 " in out and "但 blocks.0.attn.pattern 的形状是 " in out


def test_pydantics_own_words_for_common_mistakes_are_chinese(tmp_path, capsys):
    path, _out = new_lesson(capsys, tmp_path)
    text = path.read_text(encoding="utf-8")
    path.write_text(text.replace("\nformat_version: 1\n", "\nformat_version: 1\nattempts: 0\n", 1), encoding="utf-8")
    _code, english, _err = run(capsys, "--lang", "en", "lessons", "check", "--static", str(path))
    _code, chinese, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static", str(path))
    assert ": attempts: Input should be greater than or equal to 1" in english   # pydantic's words, unchanged
    assert ": attempts: 应当大于或等于 1" in chinese   # before: pydantic's English under --lang zh


# --- model/'s errors (model/messages.py): the CLI shows them in the interface's language ---

def test_a_missing_checkpoint_is_refused_in_chinese_and_unchanged_in_english(capsys):
    code, _out, err = run(capsys, "--lang", "zh", "sample", "--checkpoint", "/nonexistent/x.pt", "31")
    assert code == 1 and "错误：/nonexistent/x.pt：没有这个检查点文件" in err and "no such" not in err
    code, _out, err = run(capsys, "--lang", "en", "sample", "--checkpoint", "/nonexistent/x.pt", "31")
    assert code == 1 and "error: /nonexistent/x.pt: no such checkpoint file" in err


def test_a_junk_checkpoint_nests_the_archives_reason_in_chinese(tmp_path, capsys):
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"not a checkpoint at all")
    code, _out, err = run(capsys, "--lang", "zh", "sample", "--checkpoint", str(junk), "31")
    assert code == 1 and "不是可读的检查点" in err and "它不是 zip 压缩包" in err
    assert "not a zip archive" not in err and "readable" not in err
    code, _out, err = run(capsys, "--lang", "zh", "lessons", "check", "--checkpoint", str(junk))
    assert code == 1 and "不是可读的检查点" in err and "not a readable" not in err


def test_a_checkpoint_with_a_hostile_config_is_refused_in_chinese(tmp_path, capsys):
    import torch

    from tutor.model.checkpoint import FORMAT

    bad = tmp_path / "bad.pt"
    torch.save({"format": FORMAT, "version": 1, "config": {"\x1b[31mevil": 1}}, bad)
    code, _out, err = run(capsys, "--lang", "zh", "train", "--checkpoint", str(bad), "--steps", "1")
    assert code == 1 and "配置里有未知字段" in err and "\x1b" not in err
    code, _out, err = run(capsys, "--lang", "en", "train", "--checkpoint", str(bad), "--steps", "1")
    assert code == 1 and "config has unknown fields" in err


def test_a_training_file_that_is_not_there_is_named_in_chinese(tmp_path, capsys):
    code, _out, err = run(capsys, "--lang", "zh", "train", "--data", str(tmp_path / "none.txt"), "--steps", "1")
    assert code == 2 and "既不是 sort、reverse、text，也不是已有的文件" in err and "neither" not in err


def test_a_model_message_keeps_its_english_text_and_translates_with_its_nested_values():
    from tutor.common.i18n import message_of, translated
    from tutor.model.archive import ArchiveError
    from tutor.model.messages import M_

    inner = M_("its data.pkl is not a readable pickle ({kind})", kind="EOFError")
    outer = M_("{path}: refused before loading: {problem}", path="a.pt", problem=inner)
    assert outer == "a.pt: refused before loading: its data.pkl is not a readable pickle (EOFError)"
    assert message_of(ArchiveError(inner)) is inner
    set_language("zh")
    assert translated(outer) == "a.pt：加载前已拒绝：它的 data.pkl 不是可读的 pickle（EOFError）"


def test_every_error_model_raises_with_text_is_marked_for_translation():
    """A plain f-string in a raise would reach `tutor --lang zh` in English (issue 24)."""
    import ast
    from pathlib import Path

    unmarked = []
    for path in sorted((Path(__file__).resolve().parents[1] / "model").glob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            call = node.exc if isinstance(node, ast.Raise) else None
            if not (isinstance(call, ast.Call) and isinstance(call.func, ast.Name) and call.args):
                continue
            if call.func.id == "AttributeError" or call.func.id.startswith("_"):
                continue   # module __getattr__'s protocol (never shown); a helper that builds a marked message
            first = call.args[0]
            if not (isinstance(first, ast.Call) and isinstance(first.func, ast.Name) and first.func.id == "M_"):
                unmarked.append(f"{path.name}:{node.lineno}")
    assert not unmarked, unmarked


def test_a_checkpoint_of_the_wrong_shape_is_explained_in_chinese_part_by_part():
    from tutor.common.i18n import translated
    from tutor.model import CharTokenizer, GPTConfig
    from tutor.training.runs import shape_problem

    wrong = GPTConfig(vocab_size=CharTokenizer().vocab_size, d_model=32, n_head=2, n_layer=2, block_size=64)
    problem = shape_problem(wrong)
    assert problem.endswith("this model has d_model 32 (need 64), n_head 2 (need 4)")
    set_language("zh")
    shown = translated(problem)
    assert "这个模型的 d_model 为 32（需要 64），n_head 为 2（需要 4）" in shown and "need" not in shown


def test_a_broken_placeholder_is_explained_in_chinese_and_its_english_is_unchanged():
    from tutor.common.i18n import translated
    from tutor.course.placeholders import preview, syntax_errors

    text = "the model hedges {{ decode.probs[0, 20] | .2x }}"
    error, = syntax_errors(text)
    assert str(error).startswith("placeholder {{ decode.probs[0, 20] | .2x }}: format '.2x' is not allowed; use .2f")
    assert "⟨error: placeholder" in preview(text)
    set_language("zh")
    shown = translated(error.args[0])
    assert shown.startswith("占位符 {{ decode.probs[0, 20] | .2x }}：不允许格式 '.2x'；可用 .2f（固定小数位）")
    assert "⟨错误：占位符" in preview(text)


def exported(tmp_path, capsys):
    """A learner's export of one answer: (the file, its parsed document) to break and import."""
    import json

    with ProgressStore(tmp_path / "home") as store:
        answer_once(store, "la-ffn-shapes", "win-shape", "(1, 2)", True)
    export = tmp_path / "out.json"
    run(capsys, "--lang", "en", "--home", str(tmp_path / "home"), "progress", "--export", str(export))
    return export, json.loads(export.read_text(encoding="utf-8"))


def test_an_import_with_a_bad_record_is_refused_in_chinese(tmp_path, capsys):
    import json

    export, doc = exported(tmp_path, capsys)
    doc["answers"][0] = "not an object"
    export.write_text(json.dumps(doc), encoding="utf-8")
    _code, out, err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "other"), "progress", "--import", str(export))
    assert "第 1 条作答无效：不是对象" in out + err and "invalid" not in out + err
    _code, out, err = run(capsys, "--lang", "en", "--home", str(tmp_path / "other"), "progress", "--import", str(export))
    assert "answer #1 is invalid: not an object" in out + err


def test_the_formula_checks_verdict_is_worded_in_chinese():
    import numpy as np

    from tutor.common.i18n import translated
    from tutor.course.schema import FormulaSpec
    from tutor.live.formula_check import check_formula

    tensors = {"embed": np.ones((1, 2, 3))}
    spec = FormulaSpec(expr="2 * x", translation="twice x", bind={"x": "embed"}, reproduces="embed")
    differ = check_formula(spec, tensors, {})
    assert not differ.ok and differ.message == "formula and model DISAGREE: max |difference| = 1 on embed (tolerance 0.0001)"
    broken = check_formula(spec.model_copy(update={"bind": {"x": "nowhere"}}), tensors, {})
    assert broken.max_error is None and broken.message.startswith("formula check failed: unknown probe 'nowhere'")
    set_language("zh")
    assert translated(differ.message) == "公式与模型不一致：在 embed 上最大 |差值| = 1（容差 0.0001）"
    assert translated(broken.message).startswith("公式检查失败：未知的探针 'nowhere'；可用的探针：embed")


def test_a_number_in_a_model_message_keeps_its_format_spec_in_chinese():
    from tutor.common.i18n import translated
    from tutor.model.archive import MAX_PICKLE_BYTES
    from tutor.model.messages import M_

    message = M_("its data.pkl declares {size:,} bytes, more than the {most:,} a checkpoint's needs",
                 size=5_000_000, most=MAX_PICKLE_BYTES)
    set_language("zh")
    assert translated(message) == "它的 data.pkl 声明有 5,000,000 字节，超过检查点所需的 4,194,304 字节"


def test_a_formula_that_does_not_parse_is_explained_in_chinese():
    from tutor.common.i18n import message_of, translated
    from tutor.formulas.parse import FormulaError, parse_formula

    with pytest.raises(FormulaError) as caught:
        parse_formula("x ^ 2")
    assert str(caught.value) == "operator '^' is not allowed at column 3; use ** for powers"
    set_language("zh")
    assert translated(message_of(caught.value)) == "第 3 列的运算符 '^' 不允许使用；乘方请用 **"


def test_a_probe_slice_with_too_many_indices_is_explained_in_chinese(tmp_path, capsys):
    """Before: the reference's own message was turned into plain English text on its way up."""
    run(capsys, "lessons", "new", "bad-ref", "--dir", str(tmp_path))
    path = tmp_path / "bad-ref.yaml"
    text = path.read_text(encoding="utf-8")
    assert 'reproduces: "blocks.0.attn.pattern[0, 0]"' in text
    path.write_text(text.replace('reproduces: "blocks.0.attn.pattern[0, 0]"',
                                 'reproduces: "blocks.0.attn.pattern[0, 0, 0, 0, 0, 0]"'), encoding="utf-8")
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", str(path))
    assert code == 1 and "blocks.0.attn.pattern[0, 0, 0, 0, 0, 0] 索引了 6 个轴，但 blocks.0.attn.pattern 只有 4 个" in out
    code, out, _err = run(capsys, "--lang", "en", "lessons", "check", str(path))
    assert code == 1 and "indexes 6 axes but blocks.0.attn.pattern has 4" in out


def test_an_import_whose_record_breaks_a_field_rule_is_refused_in_chinese(tmp_path, capsys):
    """Before: the rule itself ('is not an ISO 8601 time …', pydantic's 'Input should be …') stayed English."""
    import json

    export, doc = exported(tmp_path, capsys)
    for field, value, english, chinese in (
            ("timestamp", "yesterday", "timestamp: is not an ISO 8601 time", "timestamp：不是 ISO 8601 时间"),
            ("timestamp", "1900-01-01T00:00:00+00:00", "timestamp: must be between 1970 and 2200",
             "timestamp：必须在 1970 年到 2200 年之间"),
            ("hints_used", "two", "hints_used: Input should be a valid integer", "hints_used：应当是一个整数"),
            ("lesson_id", "la\x1b[31m", "lesson_id: holds the control character", "lesson_id：含有控制字符")):
        broken = json.loads(json.dumps(doc))
        broken["answers"][0][field] = value
        export.write_text(json.dumps(broken), encoding="utf-8")
        _code, out, err = run(capsys, "--lang", "zh", "--home", str(tmp_path / "other"), "progress", "--import",
                              str(export))
        assert f"第 1 条作答无效：{chinese}" in out + err, out + err
        assert "\x1b" not in out + err
        _code, out, err = run(capsys, "--lang", "en", "--home", str(tmp_path / "other"), "progress", "--import",
                              str(export))
        assert f"answer #1 is invalid: {english}" in out + err, out + err


def test_an_unknown_probe_in_a_placeholder_is_named_shortly_on_screen_in_chinese():
    """Before: the screen's short form ('did you mean …') was cut out of the English text, so it stayed English."""
    import numpy as np

    from tutor.course.placeholders import fill_report

    tensors = {"decode.probs": np.ones((2, 3)), "embed": np.zeros((1, 2, 4))}
    text, errors = fill_report("p = {{ decode.prob[0, 1] }}", tensors, {"D": 4})
    assert "did you mean 'decode.probs'? Valid probes: decode.probs, embed (or a size name:" in str(errors[0])
    assert "⟨error: placeholder {{ decode.prob[0, 1] }}: unknown probe 'decode.prob'; did you mean " \
           "'decode.probs'?⟩" in text
    set_language("zh")
    text, _errors = fill_report("p = {{ decode.prob[0, 1] }}", tensors, {"D": 4})
    assert "⟨错误：占位符 {{ decode.prob[0, 1] }}：未知的探针 'decode.prob'；你是不是想写 'decode.probs'？⟩" in text


def test_an_error_from_a_library_names_its_type_and_ours_is_translated():
    from tutor.common.i18n import M_, error_text

    assert error_text(RuntimeError("mat1 and mat2 shapes cannot be multiplied")) == \
        "RuntimeError: mat1 and mat2 shapes cannot be multiplied"
    assert error_text(MemoryError()) == "MemoryError"
    set_language("zh")
    assert error_text(ValueError(M_("unknown probe {name!r}", name="x"))) == "未知的探针 'x'"


@pytest.mark.parametrize("text, english, chinese", [
    ("id: x\ntitle\nbody: 1\n", "YAML syntax: could not find expected ':'", "YAML 语法错误：没有找到应有的 ':'"),
    ("id: x\n- a\n", "YAML syntax: did not find expected key", "YAML 语法错误：没有找到应有的键"),
    ("id: \"x\ntitle: y\n", "YAML syntax: found unexpected end of stream", "YAML 语法错误：文件意外结束"),
    ("format_version: 1\nposition: 1.5\n", "Input should be a valid integer, got a number with a fractional part",
     "应当是一个整数，这里是带小数部分的数"),
    ("format_version: 1\nposition: abc\n", "Input should be a valid integer, unable to parse string as an integer",
     "应当是一个整数，这段文字读不成整数"),
])
def test_yaml_s_and_pydantic_s_own_words_for_a_broken_lesson_are_worded_in_chinese(tmp_path, capsys, text, english,
                                                                                    chinese):
    """Before: libyaml's 'could not find expected ':'' and pydantic's parsing rules stayed English under --lang zh."""
    path = tmp_path / "broken.yaml"
    path.write_text(text, encoding="utf-8")
    code, out, _err = run(capsys, "--lang", "zh", "lessons", "check", "--static", str(path))
    assert code == 1 and chinese in out and english not in out, out
    code, out, _err = run(capsys, "--lang", "en", "lessons", "check", "--static", str(path))
    assert code == 1 and english in out, out


def test_a_training_file_too_short_names_its_split_in_chinese(tmp_path, capsys):
    """Before: "错误：….txt：train 部分只有 4 个字符": the split's English name inside the sentence."""
    short = tmp_path / "short.txt"
    short.write_text("abcde", encoding="utf-8")
    code, _out, err = run(capsys, "--lang", "zh", "--home", str(tmp_path), "train", "--steps", "5",
                          "--data", str(short), "--out", str(tmp_path / "x.pt"))
    assert code != 0 and "训练集只有 4 个字符" in err and "train" not in err.replace(str(tmp_path), "")


def test_json_s_and_zipfile_s_own_words_are_worded_in_chinese(tmp_path, capsys):
    """Before: '…不是有效的 JSON（Expecting value）' and '…：'不是 torch.save 写出的那种 zip 压缩包（File is not a
    zip file）'' (English inside, and quotes around a sentence of ours)."""
    bad = tmp_path / "bad.json"
    bad.write_text('{"a":', encoding="utf-8")
    junk = tmp_path / "junk.pt"
    junk.write_bytes(b"junk")
    _code, out, err = run(capsys, "--lang", "zh", "--home", str(tmp_path), "progress", "--import", str(bad))
    assert "不是有效的 JSON（这里应当有一个值）" in out + err
    _code, out, err = run(capsys, "--lang", "en", "--home", str(tmp_path), "progress", "--import", str(bad))
    assert "invalid JSON at line 1, column 6 (Expecting value)" in out + err
    _code, out, err = run(capsys, "--lang", "zh", "sample", "--checkpoint", str(junk), "3142>")
    assert err.rstrip().endswith("：它不是 zip 压缩包，而 torch.save 写出的正是 zip 压缩包"), err
    _code, out, err = run(capsys, "--lang", "en", "sample", "--checkpoint", str(junk), "3142>")
    assert err.rstrip().endswith("): it is not a zip archive, which is what torch.save writes"), err


def test_on_a_terminal_a_long_title_in_progress_ends_in_an_ellipsis_and_in_a_pipe_stays_whole():
    """Before: at 80 columns '静态嵌入与上下文嵌入：一个词元，许多向' then '量' alone on the next line."""
    import io

    from rich.console import Console

    from tutor.cli.progress import lesson_table

    title = "静态嵌入与上下文嵌入：一个词元，许多向量"
    rows = [[title, "1/2", "100%", "0", "0", "2026-12-02"]]
    shown = {}
    for terminal in (True, False):
        out = io.StringIO()
        console = Console(file=out, width=80, force_terminal=terminal, color_system=None, soft_wrap=True)
        console.print(lesson_table(rows, console))
        shown[terminal] = out.getvalue().splitlines()
    row = next(line for line in shown[True] if line.startswith("静态"))
    assert "…" in row and "1/2" in row and len(shown[True]) == 4, shown[True]
    for shift in ("", "x"):   # zh review U18: Rich padded a wide character that did not fit with a space
        out = io.StringIO()
        console = Console(file=out, width=80, force_terminal=True, color_system=None)
        console.print(lesson_table([[shift + title + title, *rows[0][1:]]], console))
        row = next(line for line in out.getvalue().splitlines() if "…" in line)
        assert " …" not in row, row
    assert "量" in "".join(shown[False]) and "…" not in "".join(shown[False])


def test_a_token_placeholder_that_cannot_be_spelt_is_explained_in_chinese():
    """Before: "'| token' names token ids, whole numbers from 0 to 2; this slice holds 2.5" stayed English."""
    import numpy as np

    from tutor.course.placeholders import fill_report

    tensors = {"vocab.chars": np.array([ord("a"), ord("b"), ord("c")], dtype=float), "ids": np.array([2.5, 1.0])}
    _text, errors = fill_report("top: {{ ids[0] | token }}", tensors, {})
    assert "'| token' names token ids, whole numbers from 0 to 2; this slice holds 2.5" in str(errors[0])
    set_language("zh")
    text, _errors = fill_report("top: {{ ids[0] | token }}", tensors, {})
    assert "'| token' 表示词元 id，即 0 到 2 的整数；这个切片里是 2.5" in text, text
