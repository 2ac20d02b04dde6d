"""``polyfuse bench``: the harness that times polyfuse against numba and numpy, and the embedded
kernel suite it runs.  Nothing in the compiler imports it.
"""
