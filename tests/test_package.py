"""The installed package: its version, its public names, its dependencies."""

import importlib.metadata
import subprocess
import sys

import fasttree


def test_version_matches_the_installed_metadata():
    assert fasttree.__version__ == importlib.metadata.version("fasttree")


def test_public_names_are_the_estimators_the_tree_readers_and_model_files():
    assert set(fasttree.__all__) == {
        "AdaBoostClassifier", "AdaBoostRegressor", "BaggingClassifier", "BaggingRegressor",
        "DecisionTreeClassifier",
        "ConvergenceWarning", "DataConversionWarning", "DecisionTreeRegressor", "ExtraTreeClassifier",
        "ExtraTreeRegressor", "ExtraTreesClassifier", "ExtraTreesRegressor",
            "ExtraTreesQuantileRegressor", "RandomForestQuantileRegressor", "InvalidParameterError",
        "LinearExpert", "LogisticExpert", "MixtureOfExpertsClassifier",
        "MixtureOfExpertsRegressor", "ModelFileError", "NotFittedError",
        "RandomForestClassifier", "RandomForestRegressor", "RuleListClassifier",
        "__version__", "export_graphviz", "export_onnx", "export_shap", "export_text", "load",
        "merge_forests",
        "onnx_rows", "plot_importances", "plot_oob_curve", "plot_staged_scores", "plot_tree",
        "tree_rules"}
    for name in fasttree.__all__:
        assert hasattr(fasttree, name)


def test_import_needs_only_numpy():
    # Optional libraries must not be imported by `import fasttree`.
    code = ("import sys, fasttree; "
            "print(','.join(m for m in ('sklearn', 'pandas', 'scipy', 'hypothesis', 'matplotlib') "
            "if m in sys.modules))")
    result = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                            check=True)
    assert result.stdout.strip() == ""


def test_demo_prints_accuracy_of_the_bundled_data():
    result = subprocess.run([sys.executable, "-m", "fasttree", "--max-depth", "3"],
                            capture_output=True, text=True, check=True)
    assert "accuracy:" in result.stdout
    accuracy = float(result.stdout.split("accuracy:")[1].split()[0])
    assert accuracy > 0.9
    assert "Wolberg" in result.stdout
