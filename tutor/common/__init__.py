"""Small helpers every layer may use: lazy imports and the learner's settings file."""
