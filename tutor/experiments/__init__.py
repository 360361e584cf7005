"""Experiments: what probes cannot show (gradients, optimiser state, decoding), run on the live model.

Importing the package registers every experiment; ``registry`` holds the decorator and the table.
"""
from tutor.experiments import structure, training  # noqa: F401  (each registers its experiments)
from tutor.experiments import attention_masks, attention_scale, contextual, curvature, decoding_compare, graphs, \
    objectives, schedules, stability  # noqa: F401
from tutor.experiments.registry import DESCRIPTIONS, EXPERIMENTS, ExperimentContext, experiment, one_torch_thread, \
    run_experiments

__all__ = ["DESCRIPTIONS", "EXPERIMENTS", "ExperimentContext", "experiment", "one_torch_thread", "run_experiments"]
