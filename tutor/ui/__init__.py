"""The Textual app: screens, widgets, styles and the messages they exchange."""
