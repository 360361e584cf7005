"""A formula as people write it, folded to the lesson formula syntax (tutor.formulas.parse).

Lessons print ``Q @ K.T / sqrt(d_k)`` as ``Q⋅Kᵀ/√d_k``, and a learner (or a lesson's prose)
writes it either way, with full-width characters from a Chinese input method, Greek letters
for ``beta1`` or ``eps``, superscripts for powers.  Folding maps every character to the ASCII
the safe parser reads and remembers where each folded character came from, so the parser's
column and the leak check's match point back into the text as written.  Nothing is evaluated
here: the folded text goes through the same whitelisting parser as a lesson's formula.

Folds: ``⋅ · ∙`` -> ``@`` (a product; between scalars the formula kind reads it as ``*``),
``× ⊙ ∘`` -> ``*``, ``÷ ∕ ⁄`` -> ``/``, ``− – ⁻`` -> ``-``, ``^`` -> ``**``, ``ᵀ`` -> ``.T``,
``√x`` -> ``sqrt(x)`` (``√(…)`` -> ``sqrt(…)``), superscript digits ``x²`` -> ``x**2``,
subscripts ``dₖ``/``β₁`` -> ``d_k``/``beta_1`` (``log₂`` -> ``log2``), superscript letters ``βᵗ`` -> ``beta**t``, Greek
letters -> their names (``λ`` -> ``lam``, which prints as λ), and NFKC for the rest (full-width ``Ｑ＠Ｋ`` -> ``Q@K``).
"""
from __future__ import annotations

import re
import unicodedata

from tutor.formulas.evaluate import FUNCTIONS

_SYMBOLS = {"⋅": "@", "·": "@", "∙": "@", "×": "*", "⊙": "*", "∘": "*", "÷": "/", "∕": "/", "⁄": "/",
            "−": "-", "–": "-", "^": "**", "ᵀ": ".T", "、": ",", "【": "(", "】": ")", "〔": "(", "〕": ")"}
_SUPERSCRIPTS = dict(zip("⁰¹²³⁴⁵⁶⁷⁸⁹⁻ᵃᵇᶜᵈᵉᶠᵍʰⁱʲᵏˡᵐⁿᵒᵖʳˢᵗᵘᵛʷˣʸᶻ", "0123456789-abcdefghijklmnoprstuvwxyz"))
_SUBSCRIPTS = dict(zip("₀₁₂₃₄₅₆₇₈₉ₐₑₒₓₕₖₗₘₙₚₛₜᵢⱼ", "0123456789aeoxhklmnpstij"))
_LOG_BEFORE = re.compile(r"(?<![\w.])log\Z")
_ROOT_OPERAND = re.compile(r"\s*(?:[A-Za-z\u0370-\u03ff][\w\u0370-\u03ff₀-₉ₐ-ₜᵢⱼ]*|\d+(?:\.\d+)?)")


def _greek(ch: str) -> str | None:
    """β -> beta, Λ -> Lambda (sympy prints the names back as the letters)."""
    name = unicodedata.name(ch, "")
    for prefix, case in (("GREEK SMALL LETTER ", str.lower), ("GREEK CAPITAL LETTER ", str.capitalize)):
        if name.startswith(prefix) and " " not in name[len(prefix):]:
            word = name[len(prefix):].replace("LAMDA", "LAM")   # lambda is a keyword; lam prints as λ
            return case(word)
    return None


def fold(text: str) -> tuple[str, list[int]]:
    """(the ASCII formula text, for each of its characters the index of the character it came from)."""
    out: list[str] = []
    origin: list[int] = []

    def emit(piece: str, at: int) -> None:
        out.append(piece)
        origin.extend([at] * len(piece))

    i = 0
    while i < len(text):
        ch = text[i]
        if ch == "√":
            operand = _ROOT_OPERAND.match(text, i + 1)
            if operand and not text[i + 1:].lstrip().startswith("("):
                inner, inner_origin = fold(operand.group(0).strip())
                start = i + 1 + operand.group(0).index(operand.group(0).strip()[0])
                emit("sqrt(", i)
                out.append(inner)
                origin.extend(start + k for k in inner_origin)
                emit(")", operand.end() - 1)
                i = operand.end()
                continue
            emit("sqrt", i)
        elif ch in _SUPERSCRIPTS:
            j = i
            while j < len(text) and text[j] in _SUPERSCRIPTS:
                j += 1
            power = "".join(_SUPERSCRIPTS[c] for c in text[i:j])
            emit(f"**{power}" if power.isdigit() or (power.isalpha() and len(power) == 1) else f"**({power})", i)
            i = j
            continue
        elif ch in _SUBSCRIPTS:
            j = i
            while j < len(text) and text[j] in _SUBSCRIPTS:
                j += 1
            digits = "".join(_SUBSCRIPTS[c] for c in text[i:j])
            # log₂(x) and log₁₀(x), as the preview draws log2 and log10, are those functions
            emit(digits if digits in ("2", "10") and _LOG_BEFORE.search("".join(out)) else "_" + digits, i)
            i = j
            continue
        elif ch in _SYMBOLS:
            emit(_SYMBOLS[ch], i)
        elif (word := _greek(ch)) is not None:
            emit(word, i)
        else:
            emit(unicodedata.normalize("NFKC", ch), i)
        i += 1
    return _juxtaposed("".join(out), origin)


_FUNCTION_NAMES = frozenset(FUNCTIONS)
# an operand's end, then an operand's start: `Xᵀ(P - Y)` (folded X.T(P - Y)) or `Q Kᵀ`
_TOUCHING = re.compile(r"(?<=\.T)(?=[A-Za-z0-9_(])|(?<=[A-Za-z0-9_)])\s+(?=[A-Za-z(])")
_WORD_BEFORE = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\s*\Z")


def _juxtaposed(text: str, origin: list[int]) -> tuple[str, list[int]]:
    """Two operands side by side are a product, as on paper (``·`` where one side is a number means
    ``*``): ``@`` is put between them.  A function name before a bracket stays a call: ``sqrt (x)``."""
    out, kept, last = [], [], 0
    for found in _TOUCHING.finditer(text):
        before = _WORD_BEFORE.search(text, 0, found.start())
        word = before.group(1) if before and before.end() == found.start() else ""
        if text[found.end():found.end() + 1] == "(" and word in _FUNCTION_NAMES and not text[:found.start()].endswith(".T"):
            continue
        out.append(text[last:found.end()] + "@")
        kept.extend(origin[last:found.end()] + [origin[found.start() - 1] if found.start() else 0])
        last = found.end()
    out.append(text[last:])
    kept.extend(origin[last:])
    return "".join(out), kept


def fold_formula(text: str) -> str:
    """The learner's formula in the syntax the parser reads (surrounding space dropped)."""
    return fold(text.strip())[0].strip()
