"""Python builtins written as helper functions, inlined where a kernel calls the builtin.

``sum(x)`` of an array adds its elements one after another from ``start`` (``0``), as Python's
builtin does (not NumPy's pairwise ``np.sum``: the bits differ).  ``frontend/rewrite.py`` points
a call of the builtin (not shadowed by a local or global) at the helper here, which the inliner
then treats as any module-level helper.
"""


def builtin_sum(values, start=0):
    total = start
    for value in values:
        total = total + value
    return total


#: builtin name -> its helper
HELPERS = {"sum": builtin_sum}
