"""torch's library mapped off the GIL before torch is imported (tutor/live/torch_preload.py)."""
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tutor.live import torch_preload

MAPPED_FIRST = """
import sys
from tutor.live import torch_preload
torch_preload.start()
torch_preload.wait()
assert "torch" not in sys.modules
with open("/proc/self/maps") as maps:
    assert any(line.rstrip().endswith("/libtorch_cpu.so") for line in maps), "libtorch_cpu.so is not mapped"
import torch
print(torch.nn.Linear(3, 2)(torch.ones(1, 3)).shape, torch.ones(4).sum().item())
"""


def test_it_maps_torchs_global_deps_globally_then_libtorch_cpu_as_the_import_would():
    import torch

    libraries = torch_preload.torch_libraries()
    if not libraries:
        pytest.skip("this torch keeps its libraries elsewhere: nothing to map (the import does it all)")
    folder = Path(torch.__file__).parent / "lib"
    assert all(path.parent == folder for path, _mode in libraries)
    *deps, (library, mode) = libraries
    assert library.name in torch_preload.LIBRARIES and not mode & os.RTLD_GLOBAL and mode & os.RTLD_NOW
    assert all(path.name in torch_preload.GLOBAL_DEPS and flags & os.RTLD_GLOBAL for path, flags in deps)


@pytest.mark.skipif(not Path("/proc/self/maps").exists(), reason="reads what is mapped from /proc")
def test_the_library_is_mapped_before_the_import_and_torch_then_imports_and_runs():
    if not torch_preload.torch_libraries():
        pytest.skip("nothing to map here")
    done = subprocess.run([sys.executable, "-c", MAPPED_FIRST], capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["torch.Size([1,", "2])", "4.0"]

