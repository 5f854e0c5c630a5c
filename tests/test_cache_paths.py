"""A JIT kernel cache built by ``vecscore warmup --jit`` travels to another install path; ``--portable`` (a cache
for another CPU model) is refused with the fix.

Each test runs fresh processes on a copy of the package and one tiny kernel (``ngrams.table_bits``, about 2 s to
compile), and reads numba's own counters of cache hits and misses.
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

from vecscore import cache_dir
from vecscore.cli.main import main

ROOT = Path(__file__).resolve().parents[1]

#: ``python -c SCRIPT``: call the tiny kernel; ``python -c SCRIPT warmup``: through ``vecscore
#: warmup`` with the tiny kernel as its only group.  numba is imported after the kernel ran (vecscore imports it).
SCRIPT = """
import json
import sys

import vecscore
from vecscore import cache_dir, warmup
from vecscore.kernels import ngrams

if sys.argv[1:2] == ["warmup"]:
    warmup.GROUPS["tiny"] = lambda: ngrams.table_bits(100)
    from vecscore.cli.main import main
    assert main(["warmup", "--jit", "--only", "tiny", *sys.argv[2:]]) == 0
else:
    assert ngrams.table_bits(100) == 8
import numba
from numba.core.registry import cpu_target

stats = ngrams.table_bits.stats
print(json.dumps({"package": vecscore.__file__, "path": stats.cache_path, "hits": sum(stats.cache_hits.values()),
                  "misses": sum(stats.cache_misses.values()), "cpu": numba.config.CPU_NAME,
                  "magic": list(cpu_target.target_context.codegen().magic_tuple()),
                  "key": cache_dir.kernel_key()}))
"""


def _run(site: Path, cache: Path, *args: str, **env: str) -> dict:
    full = {k: v for k, v in os.environ.items() if not k.startswith(("NUMBA_", "VECSCORE_"))}
    full.update(PYTHONPATH=str(site), VECSCORE_CACHE_DIR=str(cache), **env)
    out = subprocess.run([sys.executable, "-c", SCRIPT, *args], env=full, capture_output=True, text=True,
                         timeout=600, cwd=site.parent)
    assert out.returncode == 0, out.stderr
    got = json.loads(out.stdout.splitlines()[-1])
    assert Path(got["package"]).is_relative_to(site), got  # the copy, not the editable install
    return got


def _copy_package(site: Path) -> None:
    shutil.copytree(ROOT / "vecscore", site / "vecscore", ignore=shutil.ignore_patterns("__pycache__"))


def test_a_cache_built_by_warmup_loads_from_another_install_path(tmp_path):
    """Build with the package at one path and the cache in folder A; move both (the package to another path, as
    another virtual environment or image layer has it); the kernel is loaded, not compiled."""
    site1, a = tmp_path / "env1" / "site-packages", tmp_path / "a"
    _copy_package(site1)
    built = _run(site1, a, "warmup")
    assert (built["misses"], built["hits"]) == (1, 0)
    assert built["path"] == str(a / built["key"] / "vecscore.kernels")  # not named after site1's absolute path

    site2, b = tmp_path / "env2" / "lib" / "python" / "site-packages", tmp_path / "copied" / "b"
    shutil.move(site1, site2)
    shutil.move(a, b)
    for path in (site2 / "vecscore").rglob("*.py"):  # another install writes the files at another time
        os.utime(path, (1_000_000_000, 1_000_000_000))
    used = _run(site2, b)
    assert (used["hits"], used["misses"]) == (1, 0), used
    assert used["path"] == str(b / built["key"] / "vecscore.kernels")
    assert used["magic"] == built["magic"]


def test_numba_still_checks_each_kernel_source_file(tmp_path):
    """The folder no longer names the source's path, but numba's stamp of the file's content still keeps a
    kernel built from other code out: an edited ngrams.py under the old kernels' folder compiles again."""
    site, cache = tmp_path / "site", tmp_path / "cache"
    _copy_package(site)
    built = _run(site, cache)
    source = site / "vecscore" / "kernels" / "ngrams.py"
    source.write_text(source.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    edited_key = _run(site, tmp_path / "elsewhere")["key"]
    assert edited_key != built["key"]
    shutil.copytree(cache / built["key"], cache / edited_key)  # the old kernels where the new sources look
    again = _run(site, cache)
    assert (again["key"], again["misses"], again["hits"]) == (edited_key, 1, 0)


def test_package_folder_names():
    package = Path(cache_dir.__file__).resolve().parent
    assert cache_dir.package_folder(str(package / "kernels" / "ngrams.py")) == "vecscore.kernels"
    assert cache_dir.package_folder(str(package / "_jit.py")) == "vecscore"
    assert cache_dir.package_folder(str(package / "rouge" / "rouge155" / "kernels.py")) == "vecscore.rouge.rouge155"
    assert cache_dir.package_folder(str(ROOT / "tests" / "test_portable_cache.py")) is None
    assert cache_dir.package_folder(str(package.parent / "vecscore-other" / "x.py")) is None


def test_portable_is_refused_with_the_fix(capsys):
    assert main(["warmup", "--portable"]) == 2
    err = capsys.readouterr().err
    assert "--portable" in err and "VECSCORE_CPU_LEVEL=x86-64-v2 vecscore warmup" in err
