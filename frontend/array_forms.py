"""The NumPy forms that modules building on ``frontend.arrays`` lower (its FormRules, handed in
by frontend.lift): calls with a static shape (array_idioms), unpacking an array value and
np.meshgrid (array_unpack), np.array of list comprehensions (array_comprehension),
np.linalg.norm with ord= (array_norms), np.max/np.min of booleans (array_ufunc_formulas)."""

from __future__ import annotations

from .array_comprehension import comprehension_stmts
from .array_idioms import idiom_value
from .array_norms import norm_with_order
from .array_ufunc_formulas import bool_extreme
from .array_unpack import unpack_array
from .arrays import FormRules

FORM_RULES = FormRules(idiom_value, unpack_array, comprehension_stmts, norm_with_order, bool_extreme)

__all__ = ["FORM_RULES"]
