"""Small helpers every layer may use: lazy imports, settings, terminal-safe text, safe file reads,
the interface language (gettext) and wrapping of wide (CJK) text."""
