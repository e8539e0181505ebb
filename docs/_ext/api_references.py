"""Sphinx extension: which unresolved Python cross-references in docstrings are errors.

``nitpicky`` makes every unresolved reference a warning, and ``make docs`` turns warnings into
errors. The docstrings name many modules and objects that the API reference does not document
(internal helpers, other projects' classes); those stay plain code, as Sphinx shows them without
``nitpicky``. A reference into a module that the reference does document is an error: there the
target is either misspelt or missing from the page's member list.
"""


def full_target(node) -> str:
    """The dotted name a Python reference points at: absolute names as written, a bare name
    inside the class and module it was written in (where Python's domain looks first)."""
    target = node["reftarget"].lstrip("~")
    if "." in target and not target.startswith("."):
        return target
    scope = [part for part in (node.get("py:module"), node.get("py:class")) if part]
    return ".".join(scope + [target.lstrip(".")])


def inside(name: str, modules) -> bool:
    """Whether ``name`` is one of ``modules`` or lies in one of them."""
    return any(name == module or name.startswith(module + ".") for module in modules)


def on_warn_missing_reference(app, domain, node) -> bool:
    """``warn-missing-reference``: True (no warning) for a Python reference outside the documented
    modules; None leaves the warning to Sphinx."""
    if domain is None or domain.name != "py":
        return None
    documented = domain.modules.keys()
    if inside(full_target(node), documented):
        return None
    return True


def setup(app):
    """Register the event handler."""
    app.connect("warn-missing-reference", on_warn_missing_reference)
    return {"parallel_read_safe": True, "parallel_write_safe": True}
