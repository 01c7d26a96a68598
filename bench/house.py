"""Measure the house: the package's modules, their sizes and their imports.

Reads the package's source as text (it imports nothing of it and needs no
build) and prints a markdown report of four parts:

1. **Modules and lines.** Every ``.py``, ``.pyx``, ``.pxd`` and ``.h`` file
   with its line count, largest first, and the total. ``reference/`` and
   ``datasets/`` are counted but listed as one row each. A module over
   ``--limit`` lines (900 by default) is flagged.
2. **Import graph.** Every import of one of the package's own modules, from
   ``import``, ``from ... import``, ``cimport``, ``from ... cimport`` and
   ``cdef extern from "x.h"``: read with :mod:`ast` for ``.py`` files and with
   regular expressions for ``.pyx`` and ``.pxd`` files. An import is *lazy*
   when it stands inside a function (it runs when the function is called),
   otherwise it is *module level* (it runs when the module is imported; a
   class body counts as module level). ``cimport`` resolves to the ``.pxd``
   file, a Python import of a compiled module to its ``.pyx`` file.
3. **Import cycles.** Strongly connected components of more than one module
   (or a module importing itself), first among module-level imports (a cycle
   there can break ``import``), then with lazy imports added (the circles of
   the design, which a lazy import only hides).
4. **Imports that run upward.** Each module has a layer, named in
   :data:`LAYERS`; every import from a lower layer to a higher one is listed
   with ``file:line``. The script stops with an error when a module has no
   layer, so that the table stays complete as the package changes.

Usage, from the repository root::

    python bench/house.py [--src src/fasttree] [--limit 900] > house.md

Nothing but the standard library is used. The exit status is 0 unless a
module is missing from :data:`LAYERS` (status 2).
"""

import argparse
import ast
import fnmatch
import re
import sys
from pathlib import Path

SUFFIXES = (".py", ".pyx", ".pxd", ".h")

#: Folders of the package counted in the total but shown as one row each.
GROUPS = ("reference", "datasets")

#: Layer names, lowest first. An import from a module of a lower layer to a
#: module of a higher one "runs upward".
LAYER_NAMES = (
    "kernels",      # 0: compiled code: Cython .pyx/.pxd and C headers
    "helpers",      # 1: low-level Python helpers that know no tree
    "container",    # 2: the fitted tree, its rules, and its persistence
    "estimators",   # 3: growth recipes and the estimators built on them
    "exports",      # 4: public namespace, command line, exports to other formats
)

#: The layer of each module, by its path below the package folder. Exact
#: names win over patterns; patterns are matched with :mod:`fnmatch` in the
#: order given. Every module must match, or the script stops.
LAYERS = {
    # --- 0 kernels: everything compiled sits lowest, whatever it holds. ---
    "*.pyx": 0,
    "*.pxd": 0,
    "*.h": 0,
    # --- 1 helpers: validation, conversion, threads, targets, features:
    # tools that the tree and the estimators use, which use neither. ---
    "_frames.py": 1,        # data-frame detection and conversion
    "_validation.py": 1,    # checks of arrays and parameters, sparse inputs
    "_threads.py": 1,       # thread pools, interrupts
    "_progress.py": 1,      # progress reporting
    "_docstrings.py": 1,    # shared docstring fragments
    "_targets.py": 1,       # encoding of targets and class weights
    "_features.py": 1,      # feature ranks and columns, feature sampling
    "_categories.py": 1,    # categorical encoding of columns
    "_tables.py": 1,        # reading and writing tables (CSV, Parquet)
    "_routing.py": 1,       # metadata routing of fit parameters
    "_version.py": 1,       # the package's version
    "reference/*": 1,       # pure-Python oracles of the tests; standalone
    "datasets/*": 1,        # bundled data sets and their loaders; standalone
    # --- 2 container: the fitted tree and everything that reads or stores
    # it without growing it. ---
    "_structure.py": 2,     # the Tree container, its views, prediction dispatch
    "_tree_state.py": 2,    # a tree's saved state: format versions, checks of arrays read back
    "_multiway_trees.py": 2,  # walks and prunes of fitted multiway (C4.5-style) trees
    "_model_file.py": 2,    # the model-file format: save and load, the classes it holds
    "_state_checks.py": 2,  # the checks of a loaded estimator's state
    "_forest_layout.py": 2,  # a forest's trees laid out back to back for prediction
    "rules.py": 2,          # a tree read as rules, text and graphviz views
    # --- 3 estimators: how trees are grown and the estimators that grow them.
    "_base.py": 3,          # BaseEstimator and the mixins
    "_c45.py": 3,           # C4.5 / multiway growth
    "_error_pruning.py": 3, # pessimistic and reduced-error pruning
    "_growth.py": 3,        # the growth recipe: fit checks, criteria, limits, one tree
    "tree.py": 3,           # the single-tree estimators
    "_ensemble.py": 3,      # what every ensemble shares
    "_out_of_bag.py": 3,    # out-of-bag values, sums, curve, scores, importance
    "forest.py": 3,         # random forests and extra trees
    "bagging.py": 3,        # bagging
    "boosting.py": 3,       # AdaBoost
    "rule_list.py": 3,      # the rule-list classifier
    # --- 4 exports: the public namespace and what turns fitted estimators
    # into something else (a command line, ONNX, SHAP, plots). ---
    "__init__.py": 4,       # the public namespace
    "__main__.py": 4,       # python -m fasttree
    "_cli.py": 4,           # the command line
    "_onnx.py": 4,          # ONNX export
    "_shap.py": 4,          # SHAP export
    "_plots.py": 4,         # plots of importances and curves
}


def layer_of(module):
    """The layer of ``module`` (a path below the package), or None."""
    if module in LAYERS:
        return LAYERS[module]
    for pattern, layer in LAYERS.items():
        if any(c in pattern for c in "*?[") and fnmatch.fnmatchcase(module, pattern):
            return layer
    return None


# --------------------------------------------------------------------------
# Finding modules


def find_modules(src):
    """Map each module's path below ``src`` (posix form) to its Path."""
    modules = {}
    for path in sorted(src.rglob("*")):
        if (path.is_file() and path.suffix in SUFFIXES
                and "__pycache__" not in path.parts):
            modules[path.relative_to(src).as_posix()] = path
    return modules


def count_lines(path):
    with open(path, encoding="utf-8", errors="replace") as f:
        return sum(1 for _ in f)


def group_of(module):
    head = module.split("/", 1)[0]
    return head if "/" in module and head in GROUPS else None


# --------------------------------------------------------------------------
# Reading imports. Each import is a dict: line, target (a dotted name, with
# leading dots when relative), names, kind ("import", "cimport" or
# "extern"), lazy (bool).


def python_imports(path):
    """Imports of a .py file, read with ast."""
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []

    def visit(node, lazy):
        for child in ast.iter_child_nodes(node):
            inner = lazy or isinstance(
                child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
            if isinstance(child, ast.Import):
                for alias in child.names:
                    found.append({"line": child.lineno, "target": alias.name, "names": [],
                                  "kind": "import", "lazy": lazy})
            elif isinstance(child, ast.ImportFrom):
                found.append({"line": child.lineno,
                              "target": "." * child.level + (child.module or ""),
                              "names": [a.name for a in child.names],
                              "kind": "import", "lazy": lazy})
            visit(child, inner)

    visit(tree, False)
    return found


_STRING = re.compile(r'''("""|\'\'\'|"|')''')
_FROM = re.compile(r"^from\s+([.\w]+)\s+(c?import)\s+(.*)$", re.DOTALL)
_IMPORT = re.compile(r"^(c?import)\s+(.*)$", re.DOTALL)
_EXTERN = re.compile(r'^cdef\s+extern\s+from\s+"([^"]+)"')
_FUNCTION = re.compile(r"^(?:async\s+def|def|cpdef|cdef)\b")
_NOT_FUNCTION = re.compile(
    r"^(?:cdef|cpdef)\s+(?:(?:public|api|readonly|packed)\s+)*"
    r"(?:class|extern|struct|union|enum|cppclass|fused)\b")


def logical_lines(text):
    """Yield (first line number, indent, code) of each logical line of
    Cython source: comments dropped, string contents blanked (quotes kept,
    so that ``extern from "x.h"`` still reads), bracketed and backslashed
    continuations joined."""
    lines = text.splitlines()
    code, start, indent, depth, quote = [], None, 0, 0, None
    for number, line in enumerate(lines, 1):
        out, i = [], 0
        if quote is None and depth == 0 and not code:
            stripped = line.lstrip()
            if not stripped or stripped.startswith("#"):
                continue
            start, indent = number, len(line) - len(stripped)
        while i < len(line):
            if quote is not None:
                end = line.find(quote, i)
                while end > 0 and line[end - 1] == "\\" and len(quote) == 1:
                    end = line.find(quote, end + 1)
                if end < 0:
                    i = len(line)
                    if len(quote) == 1:   # an unterminated short string
                        quote = None
                    continue
                # keep the text of short strings (header names), drop docstrings
                out.append(line[i:end] if len(quote) == 1 else "")
                out.append(quote)
                i, quote = end + len(quote), None
                continue
            c = line[i]
            if c == "#":
                break
            m = _STRING.match(line, i)
            if m:
                quote = m.group(1)
                out.append(quote)
                i += len(quote)
                continue
            if c in "([{":
                depth += 1
            elif c in ")]}":
                depth = max(depth - 1, 0)
            out.append(c)
            i += 1
        piece = "".join(out).rstrip()
        continued = piece.endswith("\\")
        code.append(piece[:-1] if continued else piece)
        if depth == 0 and quote is None and not continued:
            joined = " ".join(p.strip() for p in code).strip()
            code = []
            if joined:
                yield start, indent, joined


def _names(text):
    text = text.strip().strip("()").replace("\n", " ")
    names = []
    for part in text.split(","):
        part = part.strip().split(" as ")[0].strip()
        if part:
            names.append(part)
    return names


def cython_imports(path):
    """Imports of a .pyx or .pxd file, read with regular expressions."""
    found = []
    blocks = []   # (indent, opens a function)
    for line, indent, code in logical_lines(path.read_text(encoding="utf-8")):
        while blocks and blocks[-1][0] >= indent:
            blocks.pop()
        lazy = any(is_function for _, is_function in blocks)
        m = _FROM.match(code)
        if m:
            found.append({"line": line, "target": m.group(1), "names": _names(m.group(3)),
                          "kind": m.group(2), "lazy": lazy})
        else:
            m = _IMPORT.match(code)
            if m:
                for name in _names(m.group(2)):
                    found.append({"line": line, "target": name, "names": [],
                                  "kind": m.group(1), "lazy": lazy})
            else:
                m = _EXTERN.match(code)
                if m:
                    found.append({"line": line, "target": m.group(1), "names": [],
                                  "kind": "extern", "lazy": lazy})
        if code.endswith(":"):
            blocks.append((indent, bool(_FUNCTION.match(code))
                           and not _NOT_FUNCTION.match(code)))
    return found


def resolve(importer, record, modules, package):
    """The modules of the package that one import statement reaches: a list
    of (module, names)."""
    kind, target = record["kind"], record["target"]
    if kind == "extern":
        folder = importer.rsplit("/", 1)[0] + "/" if "/" in importer else ""
        for candidate in (folder + target, target):
            if candidate in modules:
                return [(candidate, [])]
        return []
    # to a dotted name below the package ("" is the package itself)
    if target.startswith("."):
        level = len(target) - len(target.lstrip("."))
        parts = importer.split("/")[:-1]
        if level > 1:
            parts = parts[:len(parts) - (level - 1)]
        rest = target[level:]
        dotted = ".".join(parts + ([rest] if rest else []))
    elif target == package or target.startswith(package + "."):
        dotted = target[len(package) + 1:]
    else:
        return []

    def file_of(name):
        base = name.replace(".", "/") if name else ""
        if kind == "cimport":
            suffixes = [".pxd", ".pyx"]
        else:
            suffixes = [".py", ".pyx"]
        for suffix in suffixes:
            if base and base + suffix in modules:
                return base + suffix
        init = (base + "/" if base else "") + "__init__.py"
        if init in modules:
            return init
        init = (base + "/" if base else "") + "__init__.pxd"
        return init if init in modules else None

    names = record["names"]
    # "from . import a, b": a name that is a submodule reaches that module
    if names and names != ["*"]:
        reached, rest = [], []
        for name in names:
            sub = file_of((dotted + "." if dotted else "") + name)
            if sub is not None and sub != file_of(dotted):
                reached.append((sub, [name]))
            else:
                rest.append(name)
        own = file_of(dotted)
        if rest and own is not None:
            reached.append((own, rest))
        return reached
    own = file_of(dotted)
    return [(own, names)] if own is not None else []


def read_edges(modules, package):
    """Every import between the package's modules: dicts of source, target,
    line, kind, lazy, names."""
    edges = []
    for module, path in modules.items():
        if path.suffix == ".py":
            records = python_imports(path)
        elif path.suffix in (".pyx", ".pxd"):
            records = cython_imports(path)
        else:
            continue
        for record in records:
            for target, names in resolve(module, record, modules, package):
                edges.append({"source": module, "target": target, "line": record["line"],
                              "kind": record["kind"], "lazy": record["lazy"],
                              "names": names})
    return edges


# --------------------------------------------------------------------------
# Cycles


def strongly_connected(nodes, edges):
    """Tarjan's algorithm, iterative. ``edges`` maps a node to its successors.
    Returns the components of more than one node, or of one node with an edge
    to itself, each sorted, largest first."""
    index, low, on_stack, stack, components = {}, {}, set(), [], []
    counter = 0
    for root in nodes:
        if root in index:
            continue
        work = [(root, iter(sorted(edges.get(root, ()))))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, successors = work[-1]
            advanced = False
            for nxt in successors:
                if nxt not in index:
                    index[nxt] = low[nxt] = counter
                    counter += 1
                    stack.append(nxt)
                    on_stack.add(nxt)
                    work.append((nxt, iter(sorted(edges.get(nxt, ())))))
                    advanced = True
                    break
                if nxt in on_stack:
                    low[node] = min(low[node], index[nxt])
            if advanced:
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1 or node in edges.get(node, ()):
                    components.append(sorted(component))
    return sorted(components, key=lambda c: (-len(c), c))


# --------------------------------------------------------------------------
# Report


def plural(n, word):
    return f"{n} {word}" + ("" if n == 1 else "s")


def fmt_names(names, most=4):
    if not names:
        return ""
    shown = ", ".join(f"`{n}`" for n in names[:most])
    return shown + (f" (+{len(names) - most})" if len(names) > most else "")


def report(src, limit, out):
    src = Path(src)
    package = src.name
    modules = find_modules(src)
    if not modules:
        sys.exit(f"house.py: no modules below {src}")
    missing = [m for m in modules if layer_of(m) is None]
    if missing:
        sys.stderr.write(
            "house.py: these modules have no layer in LAYERS (bench/house.py); "
            "add each, with its reason:\n" + "".join(f"  {m}\n" for m in missing))
        sys.exit(2)
    stale = [k for k in LAYERS if not any(c in k for c in "*?[") and k not in modules]
    for name in stale:
        sys.stderr.write(f"house.py: LAYERS names {name}, which is not in {src}\n")

    lines = {m: count_lines(p) for m, p in modules.items()}
    edges = read_edges(modules, package)
    w = out.write

    # 1. modules and lines
    rows = []   # (lines, name, kind, flag)
    grouped = {}
    for module, n in lines.items():
        group = group_of(module)
        if group:
            grouped.setdefault(group, []).append(module)
        else:
            rows.append((n, f"`{module}`", LAYER_NAMES[layer_of(module)],
                         f"**over {limit}**" if n > limit else ""))
    for group, members in grouped.items():
        total = sum(lines[m] for m in members)
        over = [m for m in members if lines[m] > limit]
        largest = max(members, key=lambda m: lines[m])
        flag = (f"**over {limit}:** " + ", ".join(f"`{m}`" for m in over)) if over else ""
        name = (f"`{group}/` ({plural(len(members), 'module')}, largest "
                f"`{largest}` {lines[largest]:,})")
        rows.append((total, name, "group", flag))
    rows.sort(key=lambda r: (-r[0], r[1]))
    proper = [m for m in modules if not group_of(m)]
    over = [m for m in proper if lines[m] > limit]
    by_suffix = {}
    for m in proper:
        s = Path(m).suffix
        by_suffix.setdefault(s, [0, 0])
        by_suffix[s][0] += 1
        by_suffix[s][1] += lines[m]

    w(f"# The house: `{src.as_posix()}`\n\n")
    w(f"Measured by `python bench/house.py --src {src.as_posix()}`.\n\n")
    w("## Summary\n\n")
    w(f"- modules: **{len(modules)}** files, **{sum(lines.values()):,}** lines "
      f"(.py, .pyx, .pxd, .h; all of `{package}/`)\n")
    w(f"- outside {', '.join(g + '/' for g in GROUPS)}: **{len(proper)}** modules, "
      f"**{sum(lines[m] for m in proper):,}** lines ("
      + ", ".join(f"{s}: {c} / {n:,}" for s, (c, n) in sorted(by_suffix.items()))
      + ")\n")
    for group, members in sorted(grouped.items()):
        w(f"- `{group}/`: {plural(len(members), 'module')}, "
          f"{sum(lines[m] for m in members):,} lines\n")
    w(f"- modules over {limit} lines: **{len(over)}**"
      + (" (" + ", ".join(f"`{m}` {lines[m]:,}" for m in
                          sorted(over, key=lambda m: -lines[m])) + ")" if over else "")
      + "\n")

    module_level = {}
    every = {}
    for e in edges:
        if e["source"] == e["target"]:
            continue
        every.setdefault(e["source"], set()).add(e["target"])
        if not e["lazy"]:
            module_level.setdefault(e["source"], set()).add(e["target"])
    cycles = strongly_connected(sorted(modules), module_level)
    circles = strongly_connected(sorted(modules), every)
    upward = [e for e in edges
              if layer_of(e["target"]) > layer_of(e["source"])]
    upward.sort(key=lambda e: (e["source"], e["line"], e["target"]))
    lazy_up = sum(1 for e in upward if e["lazy"])
    w(f"- imports between the package's modules: {len(edges)} "
      f"({sum(1 for e in edges if e['lazy'])} lazy), between "
      f"{len({(e['source'], e['target']) for e in edges})} pairs of modules\n")
    w(f"- import cycles among module-level imports: **{len(cycles)}**\n")
    w(f"- import cycles counting lazy imports too: **{len(circles)}**"
      + (" (" + "; ".join(", ".join(c) for c in circles) + ")" if circles else "")
      + "\n")
    w(f"- imports that run upward: **{len(upward)}** ({lazy_up} lazy, "
      f"{len(upward) - lazy_up} at module level), from "
      f"{len({e['source'] for e in upward})} modules\n\n")

    w("## Modules and lines\n\n")
    w("| lines | module | layer | |\n|---:|---|---|---|\n")
    for n, name, layer, flag in rows:
        w(f"| {n:,} | {name} | {layer} | {flag} |\n")
    w(f"| **{sum(lines.values()):,}** | **total, {len(modules)} modules** | | |\n\n")

    # 2. import graph
    w("## Import graph\n\n")
    w("Imports of the package's own modules, by importing module. `cimport` "
      "reaches a `.pxd`, `extern` a C header; *lazy* imports stand inside a "
      "function. A number after a module is the line.\n\n")
    w("| module | layer | module-level imports | lazy imports |\n|---|---|---|---|\n")
    by_source = {}
    for e in edges:
        by_source.setdefault(e["source"], []).append(e)
    for module in sorted(modules, key=lambda m: (layer_of(m), m)):
        own = by_source.get(module, [])
        if not own:
            continue
        cells = []
        for lazy in (False, True):
            seen = {}
            for e in own:
                if e["lazy"] == lazy:
                    seen.setdefault(e["target"], []).append(e)
            cells.append(", ".join(
                f"`{t}`:" + ",".join(str(x["line"]) for x in es)
                + (" (c)" if all(x["kind"] == "cimport" for x in es) else "")
                + (" (h)" if all(x["kind"] == "extern" for x in es) else "")
                for t, es in sorted(seen.items())) or "")
        w(f"| `{module}` | {LAYER_NAMES[layer_of(module)]} | {cells[0]} | {cells[1]} |\n")
    unimported = sorted(set(modules) - {e["target"] for e in edges}
                        - {m for m in modules if group_of(m) and not m.endswith("__init__.py")})
    w("\n(c): by `cimport` only; (h): a C header by `cdef extern from`. "
      "Not imported by any module of the package: "
      + (", ".join(f"`{m}`" for m in unimported) or "none") + ".\n\n")

    # 3. cycles
    w("## Import cycles\n\n")
    for title, found, graph_edges in (
            ("Among module-level imports", cycles, [e for e in edges if not e["lazy"]]),
            ("Counting lazy imports too", circles, edges)):
        w(f"### {title}: {len(found)}\n\n")
        for i, component in enumerate(found, 1):
            members = set(component)
            inside = sorted((e for e in graph_edges
                             if e["source"] in members and e["target"] in members
                             and e["source"] != e["target"]),
                            key=lambda e: (e["source"], e["line"]))
            w(f"{i}. {len(component)} modules: "
              + ", ".join(f"`{m}`" for m in component) + "\n")
            for e in inside:
                w(f"   - `{e['source']}:{e['line']}` -> `{e['target']}`"
                  f"{' (lazy)' if e['lazy'] else ''} {fmt_names(e['names'])}\n")
        w("\n" if found else "None.\n\n")

    # 4. upward
    w("## Imports that run upward\n\n")
    w("Layers, lowest first: "
      + "; ".join(f"{i} {name}" for i, name in enumerate(LAYER_NAMES))
      + " (the table `LAYERS` in `bench/house.py` gives each module's). "
      "One row per import statement and module reached.\n\n")
    if upward:
        w("| # | where | from layer | imports | to layer | names | when |\n"
          "|---:|---|---|---|---|---|---|\n")
        for i, e in enumerate(upward, 1):
            w(f"| {i} | `{e['source']}:{e['line']}` | {LAYER_NAMES[layer_of(e['source'])]} "
              f"| `{e['target']}` | {LAYER_NAMES[layer_of(e['target'])]} "
              f"| {fmt_names(e['names'], 6)} | {'lazy' if e['lazy'] else 'module level'} |\n")
        w("\n")
    else:
        w("None.\n\n")


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Modules, lines, import graph, cycles and upward imports "
                    "of a package, as markdown.")
    parser.add_argument("--src", default="src/fasttree",
                        help="the package folder (default: src/fasttree)")
    parser.add_argument("--limit", type=int, default=900,
                        help="flag modules over this many lines (default: 900)")
    args = parser.parse_args(argv)
    src = Path(args.src)
    if not src.is_dir():
        sys.exit(f"house.py: {src} is not a folder")
    report(src, args.limit, sys.stdout)


if __name__ == "__main__":
    main()
