"""A clone works as it stands: run from its root, its own ``tutor/`` (which has no ``model/``) must still
find ``tutor.model``, ``tutor.lessons`` and ``tutor.docs`` beside it, whatever is installed."""
from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# Drop the editable install's finders, so only the checkout on sys.path can answer, as after `pip install .`
# followed by `python -m tutor` in the clone's root (the installed copy is shadowed by the clone's tutor/).
PROBE = """
import sys
sys.meta_path[:] = [f for f in sys.meta_path if 'editable' not in str(getattr(f, '__module__', '')).lower()]
sys.path[:] = [p for p in sys.path if '__editable__' not in p]
sys.path.insert(0, {root!r})
import tutor, tutor.model.gpt, tutor.lessons, tutor.docs
from tutor.cli.main import main
print(tutor.model.gpt.__file__)
"""


def test_checkout_root_imports_model_lessons_and_docs() -> None:
    out = subprocess.run([sys.executable, "-c", PROBE.format(root=str(ROOT))], cwd=ROOT, capture_output=True,
                         text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert Path(out.stdout.strip()).resolve() == ROOT / "model" / "gpt.py"
