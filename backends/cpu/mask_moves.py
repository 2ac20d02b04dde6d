"""A guard against LLVM 22's EVEX compression of sign masks (llvm/llvm-project#191304).

LLVM 22.1.0, the LLVM of llvmlite 0.50, added to its X86CompressEVEX pass a rewrite of
``vpmov{b,d,q}2m %xmmN/%ymmN, %k`` followed by ``kmov %k, %eax`` into the VEX instruction
``vpmovmskb`` / ``vmovmskp{s,d} %xmmN/%ymmN, %eax``, without checking that N < 16.  VEX cannot
name xmm16-31: the encoder drops the register's top bit, and the machine code reads
xmm(N - 16), another value (the assembly printer shows the right register; only the object
code is wrong).  Upstream fixed the pass (llvm/llvm-project#191760) after 22.1.0.

It hit a vectorized gather ``v[1:][J]``: the run-time index check wraps a negative index
(``icmp slt <4 x i64> %j, zeroinitializer``) and sends each lane to a predicated store of the
index-error flag, so the sign mask went to a general register; at ``opt_level=1`` its vector
was in ymm23 and the code read ymm7's sign bits, a constant of the inline ``tanh``: an
IndexError for indices in range (cpu_campaign.py --style numpy-extra --options, seed 35351).

The guard: a function whose optimised IR holds both halves of the pattern, an integer vector's
sign test (which instruction selection makes a ``vpmov*2m``) and a lane mask moved to a scalar
(a ``kmov``), is generated without AVX512DQ and AVX512BW, which the ``vpmov*2m`` instructions
need (its own ``"target-features"``): its sign tests become ``vpcmpgt`` into a mask, which the
pass leaves alone.  Every other function keeps every feature.  ``POLYFUSE_MASK_MOVES_GUARD=0``
turns the guard off (A/B); it is on where llvmlite's LLVM is a 22.
"""

from __future__ import annotations

import re

import llvmlite.binding as llvm

from polyfuse.options import mask_moves_guard

#: what instruction selection makes a ``vpmov*2m`` of: a sign test of an integer vector (x < 0,
#: x >= 0 and their unsigned forms against the sign bit), or a truncation to a vector of i1
_SIGN_TEST = re.compile(
    r"icmp (?:slt|sge) <\d+ x i\d+> [^,]+, zeroinitializer"
    r"|icmp (?:sgt|sle) <\d+ x i\d+> [^,]+, splat \(i\d+ -1\)"
    r"|icmp (?:ult|uge|ugt|ule) <\d+ x i\d+> [^,]+, splat \(i\d+ -?(?:128|127|32768|32767|2147483648"
    r"|2147483647|9223372036854775808|9223372036854775807)\)"
    r"|trunc <\d+ x i\d+> [^ ]+ to <\d+ x i1>")
#: what makes a ``kmov`` of a lane mask into a general register: a lane or the whole mask as a
#: scalar, a reduction of it, a mask stored, or a masked gather/scatter the code generator splits
_MASK_MOVE = re.compile(
    r"extractelement <\d+ x i1>|bitcast <\d+ x i1> [^ ]+ to i\d+|@llvm\.vector\.reduce\.\w+\.v\d+i1\b"
    r"|store <\d+ x i1>|@llvm\.masked\.(?:gather|scatter|expandload|compressstore)\.")
_DEFINE = re.compile(r"^define [^\n]*\{\n", re.M)
#: the features the ``vpmov*2m`` instructions need (and what needs them goes with them)
WITHOUT = ",-avx512dq,-avx512bw"


def active() -> bool:
    """Is the guard on: the knob, and llvmlite's LLVM a 22 (the releases with the rewrite)?"""
    return mask_moves_guard() and llvm.llvm_version_info[0] == 22


def at_risk(body: str) -> bool:
    """Does this function's optimised IR hold both halves of the pattern?"""
    # (the mask moves first: rarer, and their search ~30x cheaper, 0.03 ms on a 175 KB function)
    return _MASK_MOVE.search(body) is not None and _SIGN_TEST.search(body) is not None


def guarded(text: str, features: str) -> str:
    """``text`` (optimised IR) with ``"target-features"`` = ``features`` (the target machine's)
    without AVX512DQ and AVX512BW on each function definition ``at_risk``; ``text`` itself where
    the guard is off or no function is at risk."""
    if "+avx512f" not in features.split(",") or not active():
        return text
    pieces, end = [], 0
    for match in _DEFINE.finditer(text):
        close = text.find("\n}\n", match.end())
        body = text[match.end():close if close >= 0 else len(text)]
        if '"target-features"' in match.group(0) or not at_risk(body):
            continue
        head = match.group(0)[:-len("{\n")].rstrip()
        pieces += [text[end:match.start()], f'{head} "target-features"="{features}{WITHOUT}" {{\n']
        end = match.end()
    return "".join(pieces) + text[end:] if pieces else text
