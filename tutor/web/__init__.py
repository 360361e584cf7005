"""The tutor served to web browsers through textual-serve: who may connect, the page, how many
sessions, the fork server tabs start from, and the launcher that registers it with
jupyter-server-proxy on a JupyterHub."""

# One learner rarely has more than a few tabs open; each session is a process of 70-250 MB, so
# eight stay well inside a laptop's memory while every tab keeps its speed on two cores.  Here,
# not in server.py: every ``tutor`` start builds the serve parser, which must not import aiohttp.
DEFAULT_MAX_SESSIONS = 8

# torch's intra-op threads for each served tab, unless the server's own environment sets
# OMP_NUM_THREADS.  torch's default is one thread per core, and OpenMP threads spin for a while
# after every operation: ten tabs of two spinning threads each kept two cores busy between
# keypresses.  The built-in models are too small for a second thread to help a lesson's tensors
# (the dashboard's training picks its own count: model.train.training_threads).
TAB_THREADS = "1"


def tab_threads(environment) -> int:
    """The intra-op thread count a served tab runs with: OMP_NUM_THREADS if it is a whole number."""
    value = str(environment.get("OMP_NUM_THREADS") or "").strip()
    return int(value) if value.isdigit() and int(value) > 0 else int(TAB_THREADS)
