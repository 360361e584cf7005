"""Text typed for the model to read (a sample prompt, the Attention tab's text), as token ids.

A Chinese input method types ３１４２＞ for 3142>; the model's vocabulary is newline and
printable ASCII, so the full-width forms are folded to the characters they stand for (only
the full-width ASCII block and the ideographic space: NFKC would also turn ² into 2 and ﬁ
into fi, which are not what was typed).  Any character still outside the vocabulary is
named to the learner and the text refused: the tokenizer would silently read it as '?', and
the model would continue a prompt nobody typed.
"""
from __future__ import annotations

from tutor.common.i18n import _
from tutor.common.safe_text import one_line

FULL_WIDTH_OFFSET = 0xFEE0                       # ！ (U+FF01) .. ～ (U+FF5E) -> ! .. ~
_FOLD = {code: code - FULL_WIDTH_OFFSET for code in range(0xFF01, 0xFF5F)} | {0x3000: ord(" ")}
MAX_NAMED = 5


def fold_full_width(text: str) -> str:
    """``text`` with full-width ASCII forms and the ideographic space as their ASCII twins."""
    return text.translate(_FOLD)


def outside_vocabulary(text: str, vocabulary: str) -> list[str]:
    """The distinct characters of ``text`` the vocabulary lacks, in the order they appear."""
    known = set(vocabulary)
    return list(dict.fromkeys(ch for ch in text if ch not in known))


def describe_chars(chars: list[str]) -> str:
    """'中' (U+4E2D), 'é' (U+00E9): each shown inert with its code point, since one may be invisible."""
    shown = [f"{one_line(ch)!r} (U+{ord(ch):04X})" for ch in chars[:MAX_NAMED]]
    more = len(chars) - MAX_NAMED
    return ", ".join(shown) + (" " + _("and {count} more").format(count=more) if more > 0 else "")


def prompt_ids(tokenizer, text: str) -> list[int]:
    """Token ids of the folded text; ValueError naming every character the model cannot read."""
    folded = fold_full_width(text)
    unknown = outside_vocabulary(folded, tokenizer.chars)
    if unknown:
        raise ValueError(_("the model cannot read {chars}: its vocabulary is the newline and printable "
                           "ASCII; type them another way").format(chars=describe_chars(unknown)))
    return tokenizer.encode(folded)
