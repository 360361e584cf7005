"""Safe lesson formulas: parse, pretty-print and evaluate author-written math.

Lesson YAML is untrusted, so author text is never given to ``eval``, ``exec``,
``sympify`` or ``parse_expr``.  It is parsed with ``ast.parse(mode="eval")``
and every node is checked against a whitelist; anything else is a
:class:`FormulaError` carrying a 1-based ``column``.

Formula syntax (plain ASCII, at most 500 characters)::

    names       Q, K, W_Q, d_k, x1, gamma   letters, digits, _ (no leading _ or __)
    numbers     2, 0.5, 1e-5, 10000         integers up to 1e6, finite floats
    operators   a + b  a - b  a * b  a / b  -a  +a   element-wise, broadcasting
                a @ b                       matrix product (batched np.matmul)
                a ** p                      power; p holds no **, |p| <= 100 if constant
                a.T                         transpose of the last two axes (also a.mT,
                                            a.transpose(-2, -1))
    functions   softmax causal_mask sqrt exp log log2 log10 sum prod mean var max
                relu gelu sigmoid tanh sin cos abs    one positional argument each (softmax, sum,
                                            prod, mean, var, max also take dim=-1)

``softmax``, ``sum``, ``prod`` (product of the entries), ``mean``, ``var`` (population) and ``max`` work on the
last axis and keep it; ``causal_mask`` sets entries above the diagonal to
-inf.  Names declared as ``matrices`` print as non-commutative symbols, so
``Q @ K.T`` renders as ``Q⋅Kᵀ`` and never reorders.  Limits: depth 30, 200
nodes; ``a**b**c`` and ``(a**b)**c`` are rejected.

Example: ``softmax(causal_mask(Q @ K.T / sqrt(d_k))) @ V``.

This module is the gate every formula passes; drawing lives in
:mod:`tutor.formulas.display` and numbers in :mod:`tutor.formulas.evaluate`, so the
code that decides what is allowed stays small enough to audit.
"""

from __future__ import annotations

import ast
import warnings
import math
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING

import numpy as np

from tutor.common.i18n import M_
from tutor.formulas.evaluate import FUNCTIONS, FormulaError, Node, compare, evaluate_tree, tree_names
from tutor.formulas.syntax_words import syntax_problem

if TYPE_CHECKING:
    import sympy as sp

__all__ = ["Formula", "FormulaError", "compare", "evaluate_formula", "formula_latex",
           "formula_symbols", "parse_formula", "render_formula"]

MAX_CHARS, MAX_DEPTH, MAX_NODES, MAX_INT, MAX_EXPONENT = 500, 30, 200, 10**6, 100
_NAME = re.compile(r"[A-Za-z][A-Za-z0-9_]*\Z")
# Harmless here, but a later lambdify/sympify of str(expr) would resolve them.
_RESERVED = {"eval", "exec", "compile", "open", "getattr", "setattr", "delattr", "globals",
             "locals", "vars", "input", "breakpoint", "help", "exit", "quit", "type", "object", "dir"}
_OPS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/", ast.Pow: "**", ast.MatMult: "@"}
_BAD_OPS = {ast.BitXor: "^", ast.FloorDiv: "//", ast.Mod: "%", ast.LShift: "<<", ast.RShift: ">>",
            ast.BitOr: "|", ast.BitAnd: "&", ast.Invert: "~", ast.Not: "not"}
_COMPREHENSION = M_("a comprehension")
_KINDS = {ast.Subscript: M_("indexing like x[0]"), ast.Lambda: M_("lambda"), ast.Compare: M_("a comparison"),
          ast.BoolOp: M_("and/or"), ast.IfExp: M_("if/else"), ast.JoinedStr: M_("an f-string"),
          ast.Tuple: M_("a tuple"), ast.List: M_("a list"), ast.Set: M_("a set"), ast.Dict: M_("a dict"),
          ast.ListComp: _COMPREHENSION, ast.SetComp: _COMPREHENSION, ast.DictComp: _COMPREHENSION,
          ast.GeneratorExp: _COMPREHENSION, ast.Starred: M_("unpacking with *"), ast.Slice: M_("a slice"),
          ast.Await: M_("await"), ast.NamedExpr: M_("assignment with :="), ast.Yield: M_("yield"),
          ast.YieldFrom: M_("yield")}
_ALLOWED = ", ".join(FUNCTIONS)


@dataclass(frozen=True)
class Formula:
    """A validated formula: source text, eval tree, and its sympy expression (display, symbolic check)."""

    text: str
    tree: Node
    matrices: frozenset[str] = frozenset()

    @cached_property
    def expr(self) -> sp.Expr:
        """Built on first use: reading and validating lessons needs only the tree, so SymPy (tutor.formulas.display
        imports it) loads at the first formula drawn or graded, not when a tab starts."""
        from tutor.formulas.display import to_sympy

        return to_sympy(self.tree, self.matrices)


def parse_formula(text: str, matrices: Iterable[str] = (), scalars: Iterable[str] = ()) -> Formula:
    """Validate ``text`` and build both its sympy form and its evaluation tree."""
    matrices, scalars = frozenset(matrices), frozenset(scalars)
    if not isinstance(text, str):
        raise FormulaError(M_("formula must be a string, got {kind}", kind=type(text).__name__))
    if both := sorted(matrices & scalars):
        raise FormulaError(M_("'{name}' is declared both as a matrix and as a scalar", name=both[0]))
    if len(text) > MAX_CHARS:
        raise FormulaError(M_("formula is too long ({count} characters; the limit is {most})", count=len(text), most=MAX_CHARS))
    if not text.strip():
        raise FormulaError(M_("formula is empty"))
    depth = 0
    for i, ch in enumerate(text):  # ASCII only, so ast's byte offsets equal columns
        if not (" " <= ch <= "~" or ch in "\t\n"):
            raise FormulaError(M_("character {char!r} at column {col} is not allowed (plain ASCII only)", char=ch, col=i + 1), i + 1)
        depth += (ch in "([{") - (ch in ")]}")
        if depth > MAX_DEPTH:  # brackets add no AST nodes, so the depth check cannot see them
            raise FormulaError(M_("too many nested brackets at column {col} (limit {most})", col=i + 1, most=MAX_DEPTH), i + 1)
    try:  # one line keeps columns simple and lets YAML block scalars span lines
        with warnings.catch_warnings():
            # '1if' or '2e5for' parse with a SyntaxWarning that Python prints to stderr (over the
            # screen, with the formula's text): as errors they are refused with their words instead
            warnings.simplefilter("error", SyntaxWarning)
            tree = ast.parse(text.replace("\n", " ").replace("\t", " "), mode="eval")
    except SyntaxError as exc:
        col = exc.offset or 1
        if exc.msg == "invalid decimal literal":   # 2i, 1if: Python's words name no fix
            raise FormulaError(M_("syntax error at column {col}: a number runs into a name; write * between them "
                                  "(2*i, not 2i)", col=col), col) from None
        raise FormulaError(M_("syntax error at column {col}: {problem}", col=col, problem=syntax_problem(exc.msg)), col) from None
    except (ValueError, MemoryError, RecursionError) as exc:
        raise FormulaError(M_("cannot parse formula: {problem}", problem=str(exc))) from None
    if (count := sum(isinstance(n, ast.expr) for n in ast.walk(tree))) > MAX_NODES:
        raise FormulaError(M_("formula is too complex ({count} nodes; the limit is {most})", count=count, most=MAX_NODES))
    node = _Validator(text).convert(tree.body, 1)
    return Formula(text, node, matrices)


class _Validator:
    """Whitelist walk from Python's AST to :class:`Node`; everything else fails."""

    def __init__(self, text: str) -> None:
        self.text = text.replace("\n", " ")  # comments run to the end, never between operands

    @staticmethod
    def fail(message: str, col: int) -> FormulaError:
        """``message`` names the column itself: a whole sentence translates, fragments do not."""
        return FormulaError(message, col)

    def convert(self, node: ast.expr, depth: int) -> Node:
        col = node.col_offset + 1
        if depth > MAX_DEPTH:
            raise self.fail(M_("formula is nested too deeply at column {col} (limit {most})", col=col, most=MAX_DEPTH), col)
        if isinstance(node, ast.Name):
            return self.name(node.id, col)
        if isinstance(node, ast.Constant):
            return Node("num", self.number(node.value, col), col=col)
        if isinstance(node, ast.UnaryOp) and isinstance(node.op, (ast.UAdd, ast.USub)):
            inner = self.convert(node.operand, depth + 1)
            if isinstance(node.op, ast.UAdd):
                return inner
            if inner.kind == "num":
                return Node("num", -inner.value, col=col)  # type: ignore[operator]
            return Node("neg", None, (inner,), col)
        if isinstance(node, ast.BinOp):
            # Point at the operator itself: only spaces and brackets sit around it.
            symbol = _OPS.get(type(node.op)) or _BAD_OPS.get(type(node.op), "")
            col = self.text.find(symbol, node.left.end_col_offset or 0) + 1 or col
        if isinstance(node, (ast.UnaryOp, ast.BinOp)) and type(node.op) in _BAD_OPS:
            op = _BAD_OPS[type(node.op)]
            raise self.fail(M_("operator '{op}' is not allowed at column {col}; use ** for powers", op=op, col=col)
                            if isinstance(node.op, ast.BitXor) else
                            M_("operator '{op}' is not allowed at column {col}", op=op, col=col), col)
        if isinstance(node, ast.BinOp):
            left, right = self.convert(node.left, depth + 1), self.convert(node.right, depth + 1)
            op = _OPS[type(node.op)]
            if op == "**":
                self.check_power(left, right, col)
            return Node("op", op, (left, right), col)
        if isinstance(node, ast.Call):
            return self.call(node, depth, col)
        if isinstance(node, ast.Attribute):
            if node.attr not in ("T", "mT"):   # torch's .mT is the transpose of the last two axes too
                raise self.attribute_error(node)
            return Node("T", None, (self.convert(node.value, depth + 1),), self.attr_col(node))
        raise self.fail(M_("{kind} is not allowed at column {col}", kind=_KINDS.get(type(node), type(node).__name__), col=col),
                        col)

    @staticmethod
    def attr_col(node: ast.Attribute) -> int:
        return (node.end_col_offset or 0) - len(node.attr) + 1

    def attribute_error(self, node: ast.Attribute) -> FormulaError:
        col = self.attr_col(node)
        return FormulaError(M_("attribute '.{attr}' at column {col} is not allowed (only .T)", attr=node.attr, col=col), col)

    def name(self, name: str, col: int) -> Node:
        if not _NAME.match(name) or "__" in name:
            raise self.fail(M_("name '{name}' at column {col} is not allowed (use letters, digits and single _)",
                               name=name, col=col), col)
        if name in _RESERVED:
            raise self.fail(M_("name '{name}' at column {col} is reserved", name=name, col=col), col)
        if name in FUNCTIONS:
            raise self.fail(M_("'{name}' at column {col} is a function; call it like {name}(x)", name=name, col=col), col)
        return Node("name", name, col=col)

    def number(self, value: object, col: int) -> int | float:
        if isinstance(value, bool) or not isinstance(value, (int, float)):
            raise self.fail(M_("constant {value!r} at column {col} is not allowed (numbers only)", value=value, col=col), col)
        if isinstance(value, int) and abs(value) > MAX_INT:
            raise self.fail(M_("integer {value} at column {col} is too large (limit {most})", value=value, col=col,
                               most=MAX_INT), col)
        if not math.isfinite(value):
            raise self.fail(M_("number at column {col} is too large (not finite)", col=col), col)
        return value

    def call(self, node: ast.Call, depth: int, col: int) -> Node:
        if isinstance(node.func, ast.Attribute) and node.func.attr == "transpose" and _last_two(node):
            return Node("T", None, (self.convert(node.func.value, depth + 1),), self.attr_col(node.func))
        if isinstance(node.func, ast.Attribute) and node.func.attr != "T":
            raise self.attribute_error(node.func)
        if not isinstance(node.func, ast.Name):
            raise self.fail(M_("call at column {col} is not allowed; only these functions can be called: {allowed}",
                               col=col, allowed=_ALLOWED), col)
        fn = node.func.id
        if fn in PAIRWISE and len(node.args) == 2 and not node.keywords and \
                not any(isinstance(a, ast.Starred) for a in node.args):
            # "the larger of m1 and m2" (r7co6: FlashAttention's merged max): elementwise, as torch.maximum
            left, right = (self.convert(a, depth + 1) for a in node.args)
            return Node("op", fn, (left, right), col)
        if fn not in FUNCTIONS:
            raise self.fail(M_("unknown function '{name}' at column {col}; allowed: {allowed}", name=fn, col=col,
                               allowed=_ALLOWED), col)
        if node.keywords or len(node.args) > 1:
            if fn not in LAST_AXIS or not _last_axis_only(node):
                raise self.fail(M_("{name}() at column {col} works on the last axis only: write {name}(x) (dim=-1 "
                                   "is allowed, no other argument)", name=fn, col=col), col)
        if not node.args or isinstance(node.args[0], ast.Starred):
            raise self.fail(M_("{name}() at column {col} takes exactly one argument", name=fn, col=col), col)
        return Node("call", fn, (self.convert(node.args[0], depth + 1),), col)

    def check_power(self, base: Node, exponent: Node, col: int) -> None:
        """Bound powers up front: sympy's printers may evaluate nested numeric powers (2**3**9 is a huge
        integer). A power of symbols inside, as in a standard deviation ``mean((x - m)**2) ** 0.5``, stays symbolic."""
        if _has_numeric_power(base) or _has_numeric_power(exponent):
            raise self.fail(M_("nested power at column {col} is not allowed (no a**b**c or (a**b)**c with numbers)",
                               col=col), col)
        if not tree_names(exponent):
            value = evaluate_tree(exponent, {})
            if not np.all(np.abs(value) <= MAX_EXPONENT):
                raise self.fail(M_("exponent at column {col} must be between -{most} and {most}", col=col,
                                   most=MAX_EXPONENT), col)


LAST_AXIS = ("softmax", "sum", "prod", "mean", "var", "max")
PAIRWISE = ("max", "min")   # with two arguments: the elementwise larger / smaller, a binary operator


def _minus_one(node: ast.expr) -> bool:
    return isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.USub) and \
        isinstance(node.operand, ast.Constant) and node.operand.value == 1 and type(node.operand.value) is int


def _last_axis_only(node: ast.Call) -> bool:
    """``softmax(x, dim=-1)``, ``sum(x, -1)``, ``mean(x, axis=-1, keepdim=True)``: torch's and numpy's
    spelling of what these functions do anyway (the last axis, kept)."""
    extra = node.args[1:]
    if len(extra) > 1 or (extra and not _minus_one(extra[0])):
        return False
    for keyword in node.keywords:
        if keyword.arg in ("dim", "axis") and not extra and _minus_one(keyword.value):
            continue
        if keyword.arg in ("keepdim", "keepdims") and isinstance(keyword.value, ast.Constant) and \
                keyword.value.value is True:
            continue
        return False
    return True


def _last_two(node: ast.Call) -> bool:
    """``x.transpose(-2, -1)`` (either order): the transpose of the last two axes, as ``.T`` is."""
    if node.keywords or len(node.args) != 2:
        return False
    pair = []
    for arg in node.args:
        if isinstance(arg, ast.UnaryOp) and isinstance(arg.op, ast.USub) and isinstance(arg.operand, ast.Constant) \
                and type(arg.operand.value) is int:
            pair.append(-arg.operand.value)
    return sorted(pair) == [-2, -1]


def _has_numeric_power(node: Node) -> bool:
    return (node.kind == "op" and node.value == "**" and not tree_names(node)) or any(map(_has_numeric_power, node.args))


def render_formula(f: Formula) -> str:
    """Multi-line Unicode drawing for the terminal, in the author's term order."""
    from tutor.formulas.display import expr_unicode

    return expr_unicode(f.expr)


def formula_latex(f: Formula) -> str:
    from tutor.formulas.display import expr_latex

    return expr_latex(f.expr)


def formula_symbols(f: Formula) -> set[str]:
    """Symbol names as the author wrote them (``eps``, not ``epsilon``)."""
    return tree_names(f.tree)


def evaluate_formula(f: Formula, values: Mapping[str, np.ndarray | float]) -> np.ndarray:
    """Evaluate on real tensors (numpy semantics; see the module docstring)."""
    return evaluate_tree(f.tree, values)

