"""The tutor served to web browsers through textual-serve: who may connect, the page, how many
sessions, and the launcher that registers it with jupyter-server-proxy on a JupyterHub."""
