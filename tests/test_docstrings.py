"""Every public estimator documents itself in full, in numpydoc form.

``help()`` and the guide are where users learn what an estimator takes and
what it leaves behind, so every parameter of ``__init__`` needs an entry in
the class docstring's Parameters section and every fitted attribute one in
its Attributes section. numpydoc is not a dependency: the few rules of its
format these tests rely on are parsed here.
"""

import inspect
import re
import warnings

import numpy as np
import pandas as pd
import pytest

import fasttree

ESTIMATORS = sorted(
    (obj for obj in (getattr(fasttree, name) for name in fasttree.__all__)
     if inspect.isclass(obj) and hasattr(obj, "get_params")),
    key=lambda cls: cls.__name__)

UNDERLINE = re.compile(r"-{3,}")


def numpydoc_sections(doc):
    """{title: lines} of a numpydoc docstring: a section starts at a title
    line underlined by as many dashes and runs to the next title."""
    lines = inspect.cleandoc(doc or "").splitlines()
    sections, title, underline = {}, None, None
    for index, line in enumerate(lines):
        below = lines[index + 1].strip() if index + 1 < len(lines) else ""
        if line.strip() and UNDERLINE.fullmatch(below) and len(below) == len(line.strip()):
            title, underline = line.strip(), index + 1
            sections[title] = []
        elif title is not None and index != underline:
            sections[title].append(line)
    return sections


def numpydoc_entries(section_lines):
    """The entries of a Parameters-like section, as (names, type, description):
    an entry starts unindented, ``name : type`` (numpydoc also lets one entry
    name several, ``x1, x2 : type``); its description is the indented lines
    below it. The type is None where the entry gives none."""
    entries = []
    for line in section_lines:
        if not line.strip():
            continue
        if not line[0].isspace():
            head, colon, kind = line.partition(" : ")
            names = [name.strip().lstrip("*") for name in head.split(",")]
            entries.append((names, kind.strip() if colon else None, []))
        elif entries:
            entries[-1][2].append(line.strip())
    return entries


def entries_of(doc, title):
    return numpydoc_entries(numpydoc_sections(doc).get(title, []))


def documented_names(doc, title):
    return {name for names, _, _ in entries_of(doc, title) for name in names}


def init_parameters(cls):
    return [name for name, parameter in inspect.signature(cls.__init__).parameters.items()
            if name != "self" and parameter.kind not in (parameter.VAR_POSITIONAL,
                                                         parameter.VAR_KEYWORD)]


def training_data(cls, n_samples=80):
    """A small DataFrame with a numeric column holding NaN and a text column,
    and targets for ``cls``'s task, so that the fit sets the attributes that
    name features and categories."""
    rng = np.random.default_rng(0)
    size = rng.normal(size=n_samples)
    size[::9] = np.nan
    weight = rng.normal(size=n_samples)
    colour = rng.choice(["red", "green", "blue"], size=n_samples)
    X = pd.DataFrame({"size": size, "weight": weight, "colour": colour})
    if getattr(cls, "_estimator_type", None) == "classifier":
        y = np.where((weight > 0) | (colour == "red"), "yes", "no")
    else:
        y = 2.0 * weight + (colour == "red")
    return X, y


def fitted(cls):
    """``cls`` fitted with the options that add attributes (out-of-bag
    estimates need a bootstrap), kept small."""
    params = init_parameters(cls)
    options = {"n_estimators": 8} if "n_estimators" in params else {}
    if "oob_score" in params:
        options.update(oob_score=True, bootstrap=True)
    if "random_state" in params:
        options["random_state"] = 0
    estimator = cls(**options)
    with warnings.catch_warnings():
        # Eight members leave some rows in every draw; the warning says so.
        warnings.simplefilter("ignore")
        estimator.fit(*training_data(cls))
    return estimator


def fitted_attributes(estimator):
    """Public names ending in ``_`` that the fit set, and public properties
    ending in ``_`` that answer once fitted (``feature_importances_``)."""
    names = {name for name in vars(estimator)
             if name.endswith("_") and not name.startswith("_")}
    for name in dir(type(estimator)):
        if (name.endswith("_") and not name.startswith("_")
                and isinstance(inspect.getattr_static(type(estimator), name), property)):
            try:
                getattr(estimator, name)
            except (AttributeError, ValueError):
                continue
            names.add(name)
    return names


estimators = pytest.mark.parametrize("cls", ESTIMATORS, ids=lambda cls: cls.__name__)


def test_the_parser_reads_numpydoc_sections_and_entries():
    doc = """Summary.

    Parameters
    ----------
    alpha : float, default=1.0
        What it does.
    beta, gamma : int
        Two at once.
    **kwargs : dict
        Passed on.

    Attributes
    ----------
    fitted_ : ndarray
    """
    assert [entry[0] for entry in entries_of(doc, "Parameters")] == [
        ["alpha"], ["beta", "gamma"], ["kwargs"]]
    assert entries_of(doc, "Parameters")[0][1:] == ("float, default=1.0", ["What it does."])
    assert documented_names(doc, "Attributes") == {"fitted_"}


def test_every_public_estimator_is_checked():
    names = {cls.__name__ for cls in ESTIMATORS}
    assert {"DecisionTreeClassifier", "ExtraTreeRegressor", "RandomForestClassifier",
            "ExtraTreesRegressor", "BaggingClassifier", "AdaBoostRegressor",
            "RuleListClassifier"} <= names


@estimators
def test_every_init_parameter_has_an_entry_in_parameters(cls):
    missing = set(init_parameters(cls)) - documented_names(cls.__doc__, "Parameters")
    assert not missing, f"{cls.__name__} does not document {sorted(missing)}"


@estimators
def test_parameters_section_names_only_init_parameters(cls):
    unknown = documented_names(cls.__doc__, "Parameters") - set(init_parameters(cls))
    assert not unknown, f"{cls.__name__} documents parameters it lacks: {sorted(unknown)}"


@estimators
def test_every_parameter_entry_gives_a_type_and_a_description(cls):
    bare = [", ".join(names) for names, kind, description in
            entries_of(cls.__doc__, "Parameters") if not kind or not description]
    assert not bare, f"{cls.__name__}: entries without a type or a description: {bare}"


@estimators
def test_documented_defaults_are_the_signature_defaults(cls):
    signature = inspect.signature(cls.__init__).parameters
    wrong = []
    for names, kind, _ in entries_of(cls.__doc__, "Parameters"):
        stated = re.search(r"default=(.+)$", kind or "")
        if stated is None:
            continue
        for name in names:
            if name not in signature:
                continue
            # The documented defaults are literals, or 1/3: numbers to evaluate.
            value = eval(stated.group(1), {"__builtins__": {}})
            default = signature[name].default
            if not (value is default or (type(value) is type(default) and value == default)):
                wrong.append(f"{name}: documented {stated.group(1)}, is {default!r}")
    assert not wrong, f"{cls.__name__}: {wrong}"


@estimators
def test_every_parameter_is_documented_with_a_default(cls):
    # Every parameter is keyword-or-positional with a default, so help()
    # should show each one.
    undefaulted = [", ".join(names) for names, kind, _ in entries_of(cls.__doc__, "Parameters")
                   if "default=" not in (kind or "")]
    assert not undefaulted, f"{cls.__name__}: no default given for {undefaulted}"


@estimators
def test_criterion_entry_lists_every_accepted_criterion(cls):
    if "criterion" not in init_parameters(cls):
        return
    kind = next(kind for names, kind, _ in entries_of(cls.__doc__, "Parameters")
                if "criterion" in names)
    listed = set(re.findall(r"'(\w+)'", kind.split("default=")[0]))
    accepted = set(cls._criteria)
    assert listed == accepted, (f"{cls.__name__}: criterion lists {sorted(listed)}, "
                                f"accepts {sorted(accepted)}")


@estimators
def test_every_fitted_attribute_has_an_entry_in_attributes(cls):
    missing = fitted_attributes(fitted(cls)) - documented_names(cls.__doc__, "Attributes")
    assert not missing, f"{cls.__name__} does not document {sorted(missing)}"


@estimators
def test_attributes_section_names_only_attributes_a_fit_sets(cls):
    # The fit above turns on every option that adds an attribute.
    unknown = documented_names(cls.__doc__, "Attributes") - fitted_attributes(fitted(cls))
    assert not unknown, f"{cls.__name__} documents attributes it never sets: {sorted(unknown)}"


@estimators
def test_every_attribute_entry_gives_a_type_and_a_description(cls):
    bare = [", ".join(names) for names, kind, description in
            entries_of(cls.__doc__, "Attributes") if not kind or not description]
    assert not bare, f"{cls.__name__}: entries without a type or a description: {bare}"


@estimators
def test_fit_docstring_documents_every_fit_parameter(cls):
    expected = {name for name in inspect.signature(cls.fit).parameters if name != "self"}
    assert documented_names(cls.fit.__doc__, "Parameters") == expected


@estimators
def test_fit_docstring_describes_the_inputs_x_may_hold(cls):
    entry = next((kind, description) for names, kind, description in
                 entries_of(cls.fit.__doc__, "Parameters") if names == ["X"])
    text = " ".join([entry[0] or "", *entry[1]])
    assert "Numbers; converted once to float32" not in text
    # X may be an array, a sparse matrix or a DataFrame, hold categorical
    # columns and NaN as missing values: the entry must say so.
    for needed in ("array-like", "sparse", "DataFrame", "categor", "NaN"):
        assert needed in text, f"{cls.__name__}.fit: X's entry does not mention {needed!r}"
