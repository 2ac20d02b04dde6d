"""Parsing and checking einsum subscripts against the operands (the first stage of a call).

Takes the subscripts string and the operands' shapes; gives a :class:`_Structure`: every
ellipsis expanded into extra labels, size-1 axes that broadcast marked ``None``, each label's
size and where it comes from.  Every user error of a call (bad subscripts, shapes that do not
match) is raised here, as an :class:`polyfuse.ArgumentError` pointing at the position in the
string, so the later stages (order, code generation, BLAS dispatch) can assert instead of
re-checking.  Separate because it is the one checker; it knows nothing of how a call runs.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass, field

from polyfuse.errors import ArgumentError
from polyfuse.tensor.codegen import Caret

_ELLIPSIS = "..."
_LETTERS = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


@dataclass(frozen=True)
class _Token:
    label: str  # a letter or "..."
    pos: int


@dataclass(frozen=True)
class _Parsed:
    subscripts: str
    terms: tuple[tuple[_Token, ...], ...]
    term_pos: tuple[tuple[int, int], ...]  # (start, end) of each input term
    output: tuple[_Token, ...] | None  # None: implicit output
    output_pos: int


def _error(subscripts: str, pos: int, width: int, message: str) -> ArgumentError:
    caret = Caret(subscripts, max(0, min(pos, max(0, len(subscripts) - 1))), width).render()
    return ArgumentError(f"einsum subscripts {subscripts!r}, position {pos}: {message}\n{caret}")


@functools.lru_cache(maxsize=512)
def _parse(subscripts: str, noperands: int) -> _Parsed:
    if not isinstance(subscripts, str):
        raise ArgumentError(f"einsum subscripts must be a string, got {type(subscripts).__name__}")
    arrow = subscripts.find("->")
    for pos, ch in enumerate(subscripts):
        if ch == "-" and subscripts[pos:pos + 2] != "->":
            raise _error(subscripts, pos, 1, "'-' must be followed by '>' (the output arrow '->')")
        if ch == ">" and subscripts[pos - 1:pos + 1] != "->":
            raise _error(subscripts, pos, 1, "'>' must follow '-' (the output arrow '->')")
    if arrow >= 0 and subscripts.find("->", arrow + 2) >= 0:
        second = subscripts.find("->", arrow + 2)
        raise _error(subscripts, second, 2, "subscripts may contain only one '->'")
    inputs = subscripts if arrow < 0 else subscripts[:arrow]
    terms: list[tuple[_Token, ...]] = []
    term_pos: list[tuple[int, int]] = []
    start = 0
    for part in inputs.split(","):
        terms.append(_tokens(subscripts, part, start))
        term_pos.append((start, start + len(part)))
        start += len(part) + 1
    if len(terms) != noperands:
        if len(terms) > noperands:
            pos = term_pos[noperands][0]
            raise _error(subscripts, pos, max(1, term_pos[-1][1] - pos),
                         f"the subscripts name {len(terms)} operands but {noperands} were given "
                         "(fewer operands provided to einstein sum function than specified)")
        raise _error(subscripts, len(inputs), 1,
                     f"the subscripts name {len(terms)} operands but {noperands} were given "
                     "(more operands provided to einstein sum function than specified)")
    output = None
    if arrow >= 0:
        if "," in subscripts[arrow:]:
            pos = subscripts.index(",", arrow)
            raise _error(subscripts, pos, 1, "',' in the output subscripts")
        output = _tokens(subscripts, subscripts[arrow + 2:], arrow + 2)
        seen: dict[str, int] = {}
        in_inputs = {t.label for term in terms for t in term}
        for tok in output:
            if tok.label in seen:
                raise _error(subscripts, tok.pos, len(tok.label),
                             f"output subscript '{tok.label}' appears more than once in the output")
            seen[tok.label] = tok.pos
            if tok.label != _ELLIPSIS and tok.label not in in_inputs:
                raise _error(subscripts, tok.pos, 1,
                             f"output subscript '{tok.label}' never appeared in an input")
    return _Parsed(subscripts, tuple(terms), tuple(term_pos), output, arrow + 2 if arrow >= 0 else len(subscripts))


def _tokens(subscripts: str, part: str, offset: int) -> tuple[_Token, ...]:
    tokens: list[_Token] = []
    i = 0
    while i < len(part):
        ch = part[i]
        if ch == " ":
            i += 1
            continue
        if ch == ".":
            if part[i:i + 3] != _ELLIPSIS:
                raise _error(subscripts, offset + i, 1, "'.' must be part of an ellipsis '...'")
            if any(t.label == _ELLIPSIS for t in tokens):
                raise _error(subscripts, offset + i, 3, "more than one ellipsis '...' in one term")
            tokens.append(_Token(_ELLIPSIS, offset + i))
            i += 3
            continue
        if ch not in _LETTERS:
            raise _error(subscripts, offset + i, 1,
                         f"invalid subscript {ch!r}: subscripts must be letters (a-z, A-Z), '...', ',' or '->'")
        tokens.append(_Token(ch, offset + i))
        i += 1
    return tuple(tokens)


def _ellipsis_symbol(p: int) -> str:
    return chr(0x100 + p)  # outside the letters, accepted by opt_einsum


@dataclass(frozen=True)
class _Structure:
    """The call's contraction with every ellipsis expanded and broadcasting resolved."""

    accesses: tuple[tuple[str | None, ...], ...]  # per operand axis: label, or None (size 1, broadcast)
    output: tuple[str, ...]
    sizes: dict[str, int] = field(compare=False, hash=False)
    source: dict[str, tuple[int, int]] = field(compare=False, hash=False)  # label -> (operand, axis)


def _resolve(parsed: _Parsed, shapes: tuple[tuple[int, ...], ...]) -> _Structure:
    sub = parsed.subscripts
    labels_per_op: list[list[str]] = []
    positions: list[list[tuple[int, int]]] = []
    n_ellipsis = []
    for k, (term, shape) in enumerate(zip(parsed.terms, shapes)):
        letters = [t for t in term if t.label != _ELLIPSIS]
        has_ellipsis = len(letters) != len(term)
        start, end = parsed.term_pos[k]
        if (not has_ellipsis and len(letters) != len(shape)) or len(letters) > len(shape):
            raise _error(sub, start, max(1, end - start),
                         f"operand {k} has {len(shape)} dimensions but its subscripts name {len(letters)}"
                         + ("" if has_ellipsis else " (use '...' to broadcast extra dimensions)"))
        n_ellipsis.append(len(shape) - len(letters) if has_ellipsis else 0)
    width = max(n_ellipsis, default=0)
    for k, term in enumerate(parsed.terms):
        labels: list[str] = []
        where: list[tuple[int, int]] = []
        for tok in term:
            if tok.label == _ELLIPSIS:
                for p in range(width - n_ellipsis[k], width):
                    labels.append(_ellipsis_symbol(p))
                    where.append((tok.pos, 3))
            else:
                labels.append(tok.label)
                where.append((tok.pos, 1))
        labels_per_op.append(labels)
        positions.append(where)
    ell = [_ellipsis_symbol(p) for p in range(width)]
    if parsed.output is None:
        counts: dict[str, int] = {}
        for labels in labels_per_op:
            for lab in labels:
                if lab not in ell:
                    counts[lab] = counts.get(lab, 0) + 1
        output = ell + sorted(lab for lab, c in counts.items() if c == 1)
    else:
        output = []
        for tok in parsed.output:
            output.extend(ell if tok.label == _ELLIPSIS else [tok.label])
        if width and not any(t.label == _ELLIPSIS for t in parsed.output):
            raise _error(sub, parsed.output_pos, 1,
                         "the operands have dimensions matched by '...' but the output has no '...' "
                         "to broadcast them into")
    # sizes: equal within one operand; equal or 1 across operands (1 broadcasts)
    sizes: dict[str, int] = {}
    first: dict[str, tuple[int, int]] = {}
    for k, (labels, shape) in enumerate(zip(labels_per_op, shapes)):
        own: dict[str, int] = {}
        for axis, (lab, extent) in enumerate(zip(labels, shape)):
            if lab in own and shape[own[lab]] != extent:
                pos, w = positions[k][axis]
                raise _error(sub, pos, w,
                             f"dimensions in operand {k} for collapsing index '{lab}' don't match "
                             f"({shape[own[lab]]} != {extent})")
            own.setdefault(lab, axis)
            if lab not in sizes or (sizes[lab] == 1 and extent != 1):
                sizes[lab] = extent
                first[lab] = (k, axis)
            elif extent not in (1, sizes[lab]):
                pos, w = positions[k][axis]
                k0, a0 = first[lab]
                name = "the dimension under '...'" if lab in ell else f"label '{lab}'"
                raise _error(sub, pos, w,
                             f"operands could not be broadcast together: {name} has size {sizes[lab]} "
                             f"in operand {k0} (axis {a0}) but {extent} in operand {k} (axis {axis})")
    accesses = tuple(
        tuple(None if extent == 1 and sizes[lab] != 1 else lab for lab, extent in zip(labels, shape))
        for labels, shape in zip(labels_per_op, shapes)
    )
    return _Structure(accesses, tuple(output), sizes, first)


def _show(label: str | None) -> str:
    """A label as a step's subscripts show it: "1" for a broadcast axis (None, or "0" in a
    :class:`_Term`), "." for an ellipsis dimension."""
    if label is None or label == "0":
        return "1"
    return label if label in _LETTERS else "."


def _plain(access: tuple[str | None, ...]) -> tuple[str, ...] | None:
    """An access's labels, or None when one of its axes is a size-1 broadcast (None)."""
    labels = tuple(lab for lab in access if lab is not None)
    return labels if len(labels) == len(access) else None
