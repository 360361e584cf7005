"""A formula that reproduces an experiment's own arithmetic on its own inputs is reported (issue 21)."""
import tutor.experiments  # noqa: F401  (registers every experiment and its derived outputs)
from tutor.authoring.check import KNOWN_SIZES
from tutor.authoring.formula_provenance import redone_arithmetic
from tutor.course.schema import FormulaSpec


def spec(reproduces, **bind):
    return FormulaSpec(expr=" + ".join(bind) or "x", translation="t", bind=bind, reproduces=reproduces)


def test_reproducing_an_output_computed_from_a_bound_input_is_reported():
    message = redone_arithmetic(spec("attn_scale.scaled[0, 0]", S="attn_scale.raw[0, 0]", d_k="D_head"), KNOWN_SIZES)
    assert message and "attn_scale.raw" in message and "redoes" in message


def test_binding_an_input_computed_from_the_reproduced_tensor_is_reported():
    message = redone_arithmetic(spec("contextual.stream[0, 0]", c="contextual.cos_static"), KNOWN_SIZES)
    assert message and "'c'" in message


def test_a_tensor_the_model_computed_passes():
    assert redone_arithmetic(spec("blocks.0.attn.pattern[0, 0]", Q="blocks.0.attn.q[0, 0]",
                                  K="blocks.0.attn.k[0, 0]", d_k="D_head"), KNOWN_SIZES) is None
    assert redone_arithmetic(spec("contextual.stream[0, 0]", e="contextual.static", p="pos_embed[0, -1]"),
                             KNOWN_SIZES) is None
    assert redone_arithmetic(FormulaSpec(expr="x", translation="t"), KNOWN_SIZES) is None
