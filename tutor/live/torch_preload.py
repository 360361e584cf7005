"""torch's native library mapped beside the UI thread, without taking the GIL from it.

Why: about a fifth of ``import torch`` is the dynamic loader mapping and relocating
libtorch_cpu (430 MB), and Python's import does that holding the GIL, so the UI thread stood
still meanwhile and none of it could happen before the first paint.  A plain foreign call
through ctypes lets the GIL go, so the loader can do that work on the other core while the UI
thread draws the roadmap; the import then finds the library in place.

Not started before the UI thread has imported what it needs to draw (``TutorApp.on_mount``): the
loader holds one lock for the whole mapping, and any other thread's dlopen (any C extension's
import) waits on it, the GIL in its hand.  For the same reason ``wait`` comes before the import.
Everything here is best effort: where the library is not found, or there is no ``dlopen``
(Windows), nothing is mapped and ``import torch`` does all the work as before.
"""
from __future__ import annotations

import os
import threading
from importlib.util import find_spec
from pathlib import Path

_started: threading.Thread | None = None
# mapped first with RTLD_GLOBAL, as torch's own _load_global_deps does, so the OpenMP runtime
# stays shared; then the library itself, as torch._C's import would load it
GLOBAL_DEPS = ("libtorch_global_deps.so", "libtorch_global_deps.dylib")
LIBRARIES = ("libtorch_cpu.so", "libtorch_cpu.dylib")


def torch_libraries() -> list[tuple[Path, int]]:
    """(library, dlopen mode) in the order to map them; empty when torch's lib folder is not found."""
    if not hasattr(os, "RTLD_NOW"):
        return []
    try:
        spec = find_spec("torch")
    except (ImportError, ValueError):
        return []
    folders = [Path(folder) / "lib" for folder in (spec.submodule_search_locations or [])] if spec else []
    found = []
    for names, mode in ((GLOBAL_DEPS, os.RTLD_NOW | os.RTLD_GLOBAL), (LIBRARIES, os.RTLD_NOW)):
        path = next((folder / name for folder in folders for name in names if (folder / name).is_file()), None)
        if path is not None:
            found.append((path, mode))
    return found if found and found[-1][0].name in LIBRARIES else []


def _map() -> None:
    libraries = torch_libraries()
    try:
        import ctypes

        dlopen = ctypes.CDLL(None).dlopen   # a foreign function: ctypes releases the GIL for the call
        dlopen.restype = ctypes.c_void_p
        dlopen.argtypes = (ctypes.c_char_p, ctypes.c_int)
        for path, mode in libraries:
            if not dlopen(os.fsencode(path), mode):   # NULL: left to the import, which says why
                return
    except (OSError, AttributeError, ImportError):
        pass


def start() -> None:
    """Map torch's library on a daemon thread, once per process."""
    global _started
    if _started is None:
        _started = threading.Thread(target=_map, name="torch-preload", daemon=True)
        _started.start()


def wait() -> None:
    """Until the mapping is done (at once when none was started); the GIL is free meanwhile."""
    if _started is not None:
        _started.join()
