"""The model the learner has now and the lesson tensors computed from it."""
