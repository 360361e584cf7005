"""Grading a learner's answer against live tensors: answer parsing, probe references, question kinds."""
