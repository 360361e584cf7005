"""The tutor served to web browsers through textual-serve: who may connect, the page, how many
sessions, the fork server tabs start from, and the launcher that registers it with
jupyter-server-proxy on a JupyterHub."""

# One learner rarely has more than a few tabs open; each session is a process of 70-250 MB, so
# eight stay well inside a laptop's memory while every tab keeps its speed on two cores.  Here,
# not in server.py: every ``tutor`` start builds the serve parser, which must not import aiohttp.
DEFAULT_MAX_SESSIONS = 8
