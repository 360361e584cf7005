"""Experiments: what probes cannot show (gradients, optimiser state, decoding), run on the live model.

Importing the package registers every experiment; ``registry`` holds the decorator and the table.
Each experiment is registered by name and returns numpy arrays named ``<experiment>.<tensor>``
that lessons read like probes; single values have shape (1,) so that a formula's reductions can
reproduce them.  Each description declares its outputs' shapes, which name the reveal's axes
(``tutor.grading.declared_shapes``: ``temp_range.miss (7 temperature = .T,)`` heads the axis with
temp_range.T's values).  Experiments never change the lesson's model: see ``common``.
"""
# each module registers its experiments when imported
from tutor.experiments import attention_information, attention_masks, attention_scale, attention_variants, backprop, beam_length, calculus, \
    code_length, contextual, convexity, curvature, decoding, decoding_compare, dot_geometry, flash, gradient_cost, \
    graphs, information, initialisation, linear_algebra, minibatch, mutual_information, ngram, norm_gradients, normalisation, \
    numerics, objectives, optimization, optimizer_race, path_length, perplexity, positions, probability, saddles, \
    schedules, sequence_order, stability, temperature_range, word2vec  # noqa: F401
from tutor.experiments.registry import COSTS, DESCRIPTIONS, EXPERIMENTS, ExperimentContext, experiment, \
    one_torch_thread, run_experiments

__all__ = ["COSTS", "DESCRIPTIONS", "EXPERIMENTS", "ExperimentContext", "experiment", "one_torch_thread",
           "run_experiments"]
