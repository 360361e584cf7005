"""How a validated formula is drawn: sympy expressions built for display only.

Lessons teach that ``Q @ K.T`` is not ``K.T @ Q`` and that ``(Q @ K.T) @ V``
groups differently from ``Q @ (K.T @ V)``, but sympy's printers reorder,
flatten and mis-draw non-commutative (matrix) terms. The classes below keep
the author's order and grouping in Unicode, LaTeX and ``str`` output. Nothing
here is ever evaluated: numbers come from :mod:`tutor.formulas.evaluate`, and the
expressions are built from an already validated :class:`Node` tree, never
from text, so no ``sympify`` is needed.
"""

from __future__ import annotations

import sympy as sp
from sympy.codegen.cfunctions import log2, log10
from sympy.printing.conventions import split_super_sub
from sympy.printing.precedence import PRECEDENCE
from sympy.printing.pretty.pretty import PrettyPrinter
from sympy.printing.pretty.pretty_symbology import pretty_symbol, pretty_use_unicode
from sympy.printing.pretty.stringpict import prettyForm, stringPict

from tutor.formulas.evaluate import FUNCTIONS, Node

_ALIASES = {"eps": "epsilon", "lam": "lambda"}  # sympy knows the long Greek names only


class _Display(sp.Function):
    """Base for display-only nodes sympy cannot draw for non-commutative args."""

    def _sympystr(self, p):
        return f"{self.func.__name__.strip('_').lower()}({', '.join(p._print(a) for a in self.args)})"

    def _latex(self, p, exp=None):  # sympy passes exp= when the node is a power's base
        tex = self._tex(p)
        return rf"\left({tex}\right)^{{{exp}}}" if exp else tex


class _Named(_Display):
    """softmax & co.: printed by name (default pretty would subscript 'causal_mask')."""

    nargs = 1

    def _pretty(self, p):
        args = prettyForm(*p._print(self.args[0]).parens())
        return prettyForm(*stringPict.next(self.func.__name__, args))

    def _tex(self, p):
        name = self.func.__name__.replace("_", "\\_")
        return rf"\operatorname{{{name}}}{{\left({p._print(self.args[0])} \right)}}"


class _Pair(_Display):
    """max(a, b) and min(a, b), drawn as written: SymPy's Max would sort its arguments and capitalise."""

    nargs = 2

    def _pretty(self, p):
        inside = prettyForm(*p._print(self.args[0]).right(", "))
        inside = prettyForm(*inside.right(p._print(self.args[1])))
        return prettyForm(*stringPict.next(self.func.__name__, prettyForm(*inside.parens())))

    def _tex(self, p):
        return rf"\{self.func.__name__}\left({p._print(self.args[0])}, {p._print(self.args[1])}\right)"


_PAIRS = {n: type(n, (_Pair,), {}) for n in ("max", "min")}


class _Transpose(_Display):
    nargs, precedence = 1, PRECEDENCE["Pow"]

    def _pretty(self, p):
        arg = p._print(self.args[0])
        if not (p._use_unicode and arg.height() == 1):
            return arg ** prettyForm("T")
        if arg.binding > prettyForm.FUNC:
            arg = prettyForm(*arg.parens())
        return prettyForm(*arg.right("ᵀ"))

    def _tex(self, p):
        return f"{p.parenthesize(self.args[0], PRECEDENCE['Pow'])}^{{T}}"

    def _sympystr(self, p):
        return f"{p.parenthesize(self.args[0], PRECEDENCE['Func'], strict=True)}.T"


class _Hadamard(_Display):
    """Element-wise ``*`` of two matrices, drawn as ⊙ so it is not read as ``@``."""

    precedence = PRECEDENCE["Mul"] - 1  # bracketed inside a product, not inside a sum

    def _pretty(self, p):
        forms = [p._print(a) for a in self.args]
        forms = [prettyForm(*f.parens()) if f.binding > prettyForm.MUL else f for f in forms]
        pieces = [forms[0]] + [x for f in forms[1:] for x in (" ⊙ " if p._use_unicode else " o ", f)]
        return prettyForm(*stringPict.next(*pieces), binding=prettyForm.ADD)

    def _tex(self, p):
        return r" \odot ".join(p.parenthesize(a, PRECEDENCE["Mul"], strict=True) for a in self.args)

    def _sympystr(self, p):
        return "*".join(p.parenthesize(a, PRECEDENCE["Mul"], strict=True) for a in self.args)


class _Divide(_Display):
    """``a / B`` for matrix B: sympy only stacks fractions with commutative denominators."""

    nargs, precedence = 2, PRECEDENCE["Mul"]

    def _pretty(self, p):
        return p._print(self.args[0]) / p._print(self.args[1])

    def _tex(self, p):
        return rf"\frac{{{p._print(self.args[0])}}}{{{p._print(self.args[1])}}}"

    def _sympystr(self, p):
        num, den = self.args
        return f"{p.parenthesize(num, PRECEDENCE['Mul'], strict=True)}/{p.parenthesize(den, PRECEDENCE['Mul'])}"


class _Sqrt(_Display):
    """sqrt of a matrix: sympy draws non-commutative ``x**(1/2)`` without a root sign."""

    nargs = 1

    def _pretty(self, p):
        return p._print_nth_root(self.args[0], sp.Integer(2))

    def _tex(self, p):
        return rf"\sqrt{{{p._print(self.args[0])}}}"


class _Group(_Display):
    """A product grouped to the right, ``Q @ (K.T @ V)``: sympy would flatten it to Q·Kᵀ·V."""

    nargs = 1

    def _pretty(self, p):
        return prettyForm(*p._print(self.args[0]).parens())

    def _tex(self, p):
        return rf"\left({p._print(self.args[0])}\right)"

    def _sympystr(self, p):
        return f"({p._print(self.args[0])})"


_NAMED = {n: type(n, (_Named,), {}) for n in FUNCTIONS}
# log2 and log10 are SymPy's own (drawn log₂(x), log₁₀(x)); the symbolic check rewrites them as ln ratios
_SYMPY_FUNCS = {"exp": sp.exp, "log": sp.log, "log2": log2, "log10": log10, "tanh": sp.tanh, "sin": sp.sin,
                "cos": sp.cos, "abs": sp.Abs, "sqrt": sp.sqrt}


def _to_sympy(node: Node, matrices: frozenset[str]) -> tuple[sp.Expr, bool]:
    """Return (expression, is_matrix); must run under ``sympy.evaluate(False)``."""
    if node.kind == "num":
        v = node.value
        return (sp.Integer(v) if isinstance(v, int) else sp.Float(repr(v), "")), False
    if node.kind == "name":
        name = str(node.value)
        base, sep, rest = name.partition("_")
        shown = _ALIASES.get(base, base) + sep + rest
        return sp.Symbol(shown, commutative=name not in matrices), name in matrices
    parts = [_to_sympy(a, matrices) for a in node.args]
    (x, x_mat), is_mat = parts[0], any(m for _, m in parts)
    if node.kind == "neg":
        return sp.Mul(sp.S.NegativeOne, x), x_mat
    if node.kind == "T":
        return _Transpose(x), x_mat
    if node.kind == "call":
        fn = str(node.value)
        if fn in _SYMPY_FUNCS and not (fn == "sqrt" and x_mat):
            return _SYMPY_FUNCS[fn](x), x_mat
        return (_Sqrt(x) if fn == "sqrt" else _NAMED[fn](x)), x_mat
    y, y_mat = parts[1]
    op = node.value
    if op in ("max", "min"):
        return _PAIRS[op](x, y), is_mat
    if op == "+":
        return sp.Add(x, y), is_mat
    if op == "-":
        return sp.Add(x, sp.Mul(sp.S.NegativeOne, y)), is_mat
    if op == "@":
        right = node.args[1]
        grouped = right.kind == "op" and right.value == "@"   # the order of products is the lesson
        return sp.Mul(x, _Group(y) if grouped else y), is_mat
    if op == "*" and x_mat and y_mat:
        args = (*x.args, y) if isinstance(x, _Hadamard) else (x, y)
        return _Hadamard(*args), True
    if op == "*":
        return sp.Mul(x, y), is_mat
    if op == "/":
        if y_mat:
            return _Divide(x, y), True
        inverse = sp.Pow(y, sp.S.NegativeOne)
        return (inverse if x == sp.S.One else sp.Mul(x, inverse)), is_mat
    return sp.Pow(x, y), is_mat


class _Pretty(PrettyPrinter):
    """Unicode has no subscript Q, K, V, E, O…: ``W_Q`` stays as authors and the prose write it,
    on the formula's row.  Drawn as W with a Q lowered onto the row below, learners read the Q as
    a line that had wrapped (issue 33: "Xₒₙₑₕₒₜ⋅W" over a lone "E").  Symbol names cannot hold
    ``|``, so a ``given`` between subscripts draws as the conditioning bar: ``H_x|y``."""

    def _print_Symbol(self, e, bold_name=False):
        form = super()._print_Symbol(e, bold_name)
        if not self._use_unicode or "_" not in str(form):
            return form
        name, _, subs = split_super_sub(e.name)
        return prettyForm(f"{pretty_symbol(name)}_" + ",".join(pretty_symbol(s) for s in subs).replace(",given,", "|"))


def to_sympy(node: Node, matrices: frozenset[str]) -> sp.Expr:
    """Names in ``matrices`` become non-commutative symbols, so sympy keeps their order."""
    with sp.evaluate(False):  # never let sympy simplify, reorder or compute powers
        expr, _ = _to_sympy(node, matrices)
    return expr


def expr_unicode(expr: sp.Expr) -> str:
    old = pretty_use_unicode(True)  # pretty_symbol reads this global, not the settings
    try:
        printer = _Pretty({"use_unicode": True, "order": "none", "wrap_line": False})
        return printer.doprint(expr)
    finally:
        pretty_use_unicode(old)


def expr_latex(expr: sp.Expr) -> str:
    return sp.latex(expr, order="none")
