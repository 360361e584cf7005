"""Wide (Chinese) characters stay whole where an overlay lies over other widgets.

Textual's compositor cuts every screen line at every visible widget's left and right edge, those
under an overlay included, and divides each widget's line at those cuts.  A cut that falls inside
a double-width character splits it, and Rich writes each half as a space: the open Select menu at
80×24 showed "课程用的模型" as "程用  模型" and "贪婪搜索" as "婪搜索", because the edges of the
boxes beneath it fell inside 课, 的 and 贪 (Textual 8.2.8; upstream Textualize/textual#6357).

The fix here: a cut inside one of a line's wide characters is not used to divide that line when
the same widget is the one seen on both sides of it (nothing in front claimed either piece), so
the character is painted whole in the left piece; the right piece's place holds an empty strip,
so nothing behind paints there.  A partial update then needs each piece's real end, which it
takes from the pieces rather than from the cuts.  Lines without a straddled wide character are
divided exactly as Textual does.
"""
from __future__ import annotations

from rich.cells import cell_len
from textual._compositor import ChopsUpdate, Compositor
from textual.geometry import Region
from textual.strip import Strip

_EMPTY = Strip([], 0)


def _inner_offsets(strip: Strip) -> set[int]:
    """Cell offsets that fall inside a double-width character of ``strip`` (its second cell)."""
    text = strip.text
    if cell_len(text) == len(text):
        return set()
    inner, x = set(), 0
    for char in text:
        width = cell_len(char)
        if width == 2:
            inner.add(x + 1)
        x += width
    return inner


def _render_chops(self: Compositor, crop: Region, is_rendered_line) -> list[dict[int, Strip | None]]:
    """Textual's ``Compositor._render_chops``, except that a wide character straddling a cut is
    kept whole when this widget wins the pieces on both sides of the cut."""
    cuts = self.cuts
    chops: list[dict[int, Strip | None]] = [dict.fromkeys(cut_set[:-1]) for cut_set in cuts]
    for region, clip, strips in self._get_renders(crop):
        render_region = Region.intersection(region, clip)
        render_x = render_region.x
        first_cut, last_cut = render_region.column_span
        for y, strip in zip(render_region.line_range, strips):
            if not is_rendered_line(y):
                continue
            line = chops[y]
            final_cuts = [cut for cut in cuts[y] if last_cut >= cut >= first_cut]
            inner = _inner_offsets(strip)
            # a straddling cut whose two pieces both go to this widget is not a place to divide
            kept = [cut for index, cut in enumerate(final_cuts)
                    if index == 0 or index == len(final_cuts) - 1 or cut - render_x not in inner
                    or line.get(final_cuts[index - 1]) is not None or line.get(cut) is not None]
            pieces = strip.divide([cut - render_x for cut in kept[1:]])
            for cut, piece in zip(kept, pieces):
                if line.get(cut) is None:
                    line[cut] = piece
            for cut in final_cuts[:-1]:
                if cut not in kept and line.get(cut) is None:
                    line[cut] = _EMPTY   # painted by the piece to its left
    return chops


def _render_partial_update(self: Compositor) -> ChopsUpdate | None:
    """Textual's ``render_partial_update``, with each piece ending where its strip ends (a piece
    that kept a wide character whole reaches past its cut)."""
    update = _textual_render_partial_update(self)
    if update is not None:
        update.chop_ends = [[x + strip.cell_length if strip is not None else end
                             for (x, strip), end in zip(line.items(), ends)]
                            for line, ends in zip(update.chops, update.chop_ends)]
    return update


_textual_render_partial_update = Compositor.render_partial_update


def keep_wide_characters_whole() -> None:
    """Install the two methods above on Textual's compositor (once; the app calls it at start)."""
    if Compositor._render_chops is not _render_chops:
        Compositor._render_chops = _render_chops
        Compositor.render_partial_update = _render_partial_update
