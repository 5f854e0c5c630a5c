"""Put on ``PYTHONPATH`` by tests/test_built.py: every Python process of a recipe (its Ray or Spark workers too)
leaves a file in ``$VECSCORE_TEST_WATCH`` when it imports numba or llvmlite (``jit-<pid>``, with the stack), and
when it opens a built kernel module under ``$VECSCORE_BUILT_DIR`` (``built-<pid>``).  Workers are often killed
rather than left to exit, so the files are written at the moment, not at exit."""
import os
import sys

_folder = os.environ.get("VECSCORE_TEST_WATCH")
_root = os.environ.get("VECSCORE_BUILT_DIR")


def _mark(kind: str, text: str) -> None:
    with open(os.path.join(_folder, f"{kind}-{os.getpid()}"), "a", encoding="utf-8") as f:
        f.write(text + "\n")


class _Watch:
    def find_spec(self, name, path=None, target=None):
        if name in ("numba", "llvmlite"):
            import traceback

            _mark("jit", "".join(traceback.format_stack()))
        return None  # the import itself goes on as usual


def _audit(event, args):
    if event == "open" and isinstance(args[0], str) and args[0].startswith(_root) and ".so" in args[0]:
        _mark("built", args[0])


if _folder:
    sys.meta_path.insert(0, _Watch())
    if _root:
        sys.addaudithook(_audit)
