"""Stray bytes from the terminal become U+FFFD instead of ending the app.

Textual's Linux driver decodes what the terminal sends as strict UTF-8: one byte that is not
UTF-8 (a paste of binary, ``tmux paste-buffer`` of a Latin-1 file, a terminal set to another
encoding) raised UnicodeDecodeError in its input thread and the tutor quit with a traceback.
The driver takes its decoder from ``codecs.getincrementaldecoder`` by the name it imported,
so giving that name a decoder that replaces bad bytes is the one place to change it; what the
learner typed then reaches the answer box as a visible U+FFFD, which grading refuses like any
other character it cannot read.
"""
from __future__ import annotations

import codecs


def replacing_decoder(encoding: str):
    """``codecs.getincrementaldecoder`` whose decoders replace bad bytes unless told otherwise."""
    factory = codecs.getincrementaldecoder(encoding)

    def make(errors: str = "replace"):
        return factory(errors)

    return make


def tolerate_stray_input_bytes() -> None:
    try:
        from textual.drivers import linux_driver
    except ImportError:   # Windows: its driver reads key events, not bytes
        return
    linux_driver.getincrementaldecoder = replacing_decoder
    if not getattr(linux_driver.XTermParser, "paste_safe", False):   # a paste is text (tutor.ui.paste_input)
        from tutor.ui.paste_input import paste_safe_parser

        linux_driver.XTermParser = paste_safe_parser(linux_driver.XTermParser)
        linux_driver.XTermParser.paste_safe = True
