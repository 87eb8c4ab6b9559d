"""gilbench's modules import one another without a cycle: every import,
at module level or inside a function, is an edge; an import inside a
function is there for start-up cost, never to hide a cycle."""
import ast
import os

from helpers import ROOT, package_dirs


def _module_files():
    """{dotted module name: path} of every module under gilbench (the
    repository's directories, setup.py's PACKAGE_DIRS, and their
    subpackages)."""
    found = {}
    for package, directory in package_dirs().items():
        top = os.path.join(ROOT, directory)
        for here, dirs, files in os.walk(top):
            dirs[:] = [d for d in dirs if os.path.isfile(
                os.path.join(here, d, "__init__.py"))]
            relative = os.path.relpath(here, top)
            dotted = package if relative == "." else ".".join(
                [package] + relative.split(os.sep))
            for name in files:
                if name.endswith(".py"):
                    module = name[:-3]
                    found[dotted if module == "__init__"
                          else "%s.%s" % (dotted, module)] = os.path.join(
                              here, name)
    return found


def imports_of(path, dotted, modules):
    """The gilbench modules ``path`` imports, anywhere in it."""
    tree = ast.parse(open(path).read(), path)
    package = dotted if path.endswith("__init__.py") \
        else dotted.rpartition(".")[0]
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            if node.level:
                parts = package.split(".")[:len(package.split(".")) -
                                            node.level + 1]
                base = ".".join(parts + ([base] if base else []))
            names = [base] + ["%s.%s" % (base, a.name) for a in node.names]
        else:
            continue
        found.update(name for name in names if name in modules)
    found.discard(dotted)
    return found


def cycles(graph):
    """Every cycle of ``graph`` ({node: set of nodes}) as a list of nodes
    from its smallest node round to it, once each."""
    found = set()

    def visit(node, path, on_path):
        for nxt in sorted(graph.get(node, ())):
            if nxt in on_path:
                loop = path[path.index(nxt):]
                start = loop.index(min(loop))
                found.add(tuple(loop[start:] + loop[:start]))
            elif nxt not in done:
                visit(nxt, path + [nxt], on_path | {nxt})
        done.add(node)

    done = set()
    for node in sorted(graph):
        if node not in done:
            visit(node, [node], {node})
    return sorted(found)


def import_graph():
    modules = _module_files()
    return {name: imports_of(path, name, modules)
            for name, path in modules.items()}


def test_gilbench_has_no_import_cycle():
    graph = import_graph()
    assert len(graph) > 40  # it read the whole package
    assert "gilbench.report.pages.plots" in graph["gilbench.report.pages.html"]
    assert cycles(graph) == []


def test_a_planted_cycle_is_found():
    graph = import_graph()
    graph["gilbench.model.tables"] = (graph["gilbench.model.tables"]
                                      | {"gilbench.runner.cli"})
    found = cycles(graph)
    assert found and all("gilbench.model.tables" in loop for loop in found)
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [
        ("a", "b", "c")]


# A layer may import those after it, never one before it.
LAYERS = ["gilbench.runner", "gilbench.measure", "gilbench.model"]


def layer_breaches(graph):
    """(importer, imported) pairs where a layer imports one above it."""
    def rank(name):
        for index, layer in enumerate(LAYERS):
            if name.startswith(layer + "."):
                return index
        return None
    return sorted((a, b) for a, imported in graph.items() for b in imported
                  if rank(a) is not None and rank(b) is not None
                  and rank(b) < rank(a))


def test_imports_go_one_way_through_the_layers():
    graph = import_graph()
    assert any(name.startswith("gilbench.measure.") for name in graph)
    assert layer_breaches(graph) == []
    graph["gilbench.model.registry"] = {"gilbench.measure.procs"}
    assert layer_breaches(graph) == [("gilbench.model.registry",
                                      "gilbench.measure.procs")]
