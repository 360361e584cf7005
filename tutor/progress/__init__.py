"""The learner's progress: the SQLite store, export/import, statistics and the review schedule."""
