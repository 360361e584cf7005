"""The digit tasks' text format (``3141>1134\\n``) and the loss's ignore index.

Kept free of torch so that lesson validation and the experiments' module level can name them
without importing it (first paint waits for nothing heavy).
"""
IGNORE = -100           # cross_entropy's ignore_index: positions that are not scored
TASKS = ("sort", "reverse")
DIGITS, SEPARATOR, END = "0123456789", ">", "\n"
