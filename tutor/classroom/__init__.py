"""A teacher's view of a class: learners' progress exports merged into where the class goes wrong."""
