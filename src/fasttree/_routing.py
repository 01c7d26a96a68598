"""scikit-learn's metadata routing for the meta-estimators (bagging).

Extra keyword arguments of ``fit`` and the prediction methods go to the
members' methods when the user has turned scikit-learn's routing on
(``sklearn.set_config(enable_metadata_routing=True)``) and requested them
on the member (``set_fit_request`` and the like). scikit-learn is imported
only when such arguments are passed or the routing is asked for: the
setting is scikit-learn's, so routing without it cannot have been meant.
"""

import numpy as np


def routed_member_params(ensemble, method, params):
    """What the members' methods get from ``params``, the extra keyword
    arguments of ``ensemble.method``.

    Returns
    -------
    dict
        Member method name -> its keyword arguments; empty without params.

    Raises
    ------
    TypeError
        When scikit-learn is not installed (nothing can route them).
    ValueError
        When routing is off, or the members did not request them.
    """
    if not params:
        return {}
    name = f"{type(ensemble).__name__}.{method}"
    try:
        from sklearn import get_config
        from sklearn.utils.metadata_routing import process_routing
    except ImportError:
        raise TypeError(f"{name}() got unexpected keyword argument(s) {sorted(params)}; "
                        "they are passed on only through scikit-learn's metadata "
                        "routing, and scikit-learn is not installed") from None
    if not get_config().get("enable_metadata_routing", False):
        raise ValueError(f"{name}() got extra keyword argument(s) {sorted(params)}; they "
                         "are passed on to the members only with scikit-learn's metadata "
                         "routing on: sklearn.set_config(enable_metadata_routing=True)")
    return dict(process_routing(ensemble, method, **params).estimator)


def metadata_router(ensemble, template, callees):
    """The ensemble's ``MetadataRouter``: each of its methods (keys of
    ``callees``) routes to the member method named by the value."""
    from sklearn.utils.metadata_routing import MetadataRouter, MethodMapping

    mapping = MethodMapping()
    for caller, callee in callees.items():
        mapping.add(caller=caller, callee=callee)
    return MetadataRouter(owner=ensemble).add(estimator=template, method_mapping=mapping)


def rows_of(params, rows, n_samples):
    """``params`` for a member fit on ``rows``: the values with one entry per
    training row are taken at those rows, the others passed as they are."""
    taken = {}
    for key, value in params.items():
        if (not np.isscalar(value) and hasattr(value, "__len__") and not isinstance(value, dict)
                and len(value) == n_samples):
            value = value.iloc[rows] if hasattr(value, "iloc") else np.asarray(value)[rows]
        taken[key] = value
    return taken
