"""Where the modules of gilbench's former flat layout went: importing one
by its old name fails with an ImportError naming the new one."""
import sys

# The declaration vocabulary (axes, registry, tables, findings, record)
# keeps its old names as modules of their own; gilbench.api is the way in.
MOVED = dict(
    [(name, "gilbench.model." + name) for name in (
        "casehelpers", "drivers", "modules", "resultformat", "timeitspec")]
    + [(name, "gilbench.measure." + name) for name in (
        "fanout", "gilguard", "interpreterpool", "lifelines",
        "loopcalibration", "metrics", "pinning", "procs", "statement",
        "timeitcase", "timeitprobe", "workerindex")]
    + [(name, "gilbench.runner." + name) for name in (
        "calibration", "child", "cli", "journal", "progress", "results",
        "run", "runoptions", "timeitcmd", "timing")]
    + [("bench", "gilbench.measure.program"),
       ("listing", "gilbench.runner.listcmd")])


def new_name(fullname):
    """The new name of ``gilbench.<old>``, or None."""
    package, _, old = fullname.rpartition(".")
    return MOVED.get(old) if package == "gilbench" else None


class MovedFinder(object):
    """Last on sys.meta_path: reached only when no module has the name."""

    def find_spec(self, fullname, path=None, target=None):
        self.find_module(fullname, path)

    def find_module(self, fullname, path=None):  # Python 2.7
        new = new_name(fullname)
        if new is not None:
            raise ImportError("%s has moved: import %s (case modules: "
                              "gilbench.api)" % (fullname, new))


def install():
    if not any(isinstance(finder, MovedFinder) for finder in sys.meta_path):
        sys.meta_path.append(MovedFinder())
