"""Safe formulas: parsed without eval, evaluated on numpy arrays, rendered by SymPy."""
