"""Fuzz control flow over scalar locals: polyfuse (python/cpu) vs the plain function (cp48).

``python tests/long/control_fuzz.py SEED COUNT python,cpu`` writes each program to $FUZZ_DIR
(/tmp/control_fuzz) and prints MISMATCH (written ``out`` or the returned value, its Python type
too), CRASH, and the counts per target and per shape.  Knobs (environment): SMALL=1 (shallower,
shorter blocks), AFFINE=1 (no break/continue/while/return: the if-converted path) or AFFINE=0,
PRE=p (chance each local is assigned before the loop), SHOW=1 (refusals), ONLY=k,k (rerun those).

Shapes: while loops with data-dependent exits, break/continue under data-dependent ifs, loops in
branches, early returns, int/float/bool locals, float32/int32 arrays, aug-assigns, locals in later
tests, elif chains, one-branch definitions, reductions under ifs, consecutive ifs on one local.
Choices (cf50; ``CHOICE=p``, the chance an assigned value is one, default 0.3): ``a if c else b``,
``max``/``min`` of two, ``a and b`` / ``a or b`` as values, their operands locals, constants (a
Python ``3`` beside floats), float32/int32 elements, ``np.float32(0.5)``; returned choices.
``SIZES=24,0,1``: the arrays' lengths (a call Python's own IndexError stops is left out)."""
import collections
import importlib.util
import os
import random
import sys

import numpy as np

import polyfuse

FL, IN, BO, F32, I32 = ["w", "s"], ["v"], ["u"], ["g"], ["q"]


SMALL = os.environ.get("SMALL") == "1"
CHOICE = float(os.environ.get("CHOICE", "0.3"))
SIZES = [int(x) for x in os.environ.get("SIZES", "24").split(",")]


class G:
    def __init__(self, r, mode):
        self.r, self.mode, self.tags = r, mode, set()
        self.nloop = 0

    def fexpr(self, avail, idx):
        r = self.r
        opts = [f"a[{idx}]", f"a[{idx}] - b[{idx}]", "1.5", "-2.0", f"a[{idx}] * 2.0"] + [n for n in avail if n in FL]
        if any(n in IN for n in avail):
            opts.append("v * 0.5")
        c = r.choice(opts)
        if r.random() < 0.3:
            c = f"({c} + {r.choice([f'a[{idx}]', '0.5'] + [n for n in avail if n in FL])})"
        return c

    def iexpr(self, avail, idx):
        r = self.r
        opts = ["1", "0", "3", f"{idx}", "int(c[i])"] + [n for n in avail if n in IN]
        c = r.choice(opts)
        if r.random() < 0.4:
            c = f"{c} + {r.choice(['1', 'int(c[i])', idx] + [n for n in avail if n in IN])}"
        return c

    def gexpr(self, avail, idx):
        r = self.r
        opts = [f"b[{idx}]", f"b[{idx}] * 0.5"] + (["g * 0.5", f"g - b[{idx}]", "g + 1.0"] if "g" in avail else [])
        return r.choice(opts)

    def qexpr(self, avail, idx):
        r = self.r
        opts = ["c[i]", f"c[{idx}] + 1"] + (["q - c[i]", "q + c[i]", "q * 2 - 1"] if "q" in avail else [])
        return r.choice(opts)

    def kexpr(self, n, avail, idx):
        if self.r.random() < CHOICE:
            return self.choice(n, avail, idx)
        return self.plain(n, avail, idx)

    def operand(self, n, avail, idx):
        """One side of a choice: the kind's own expression, or a neighbour kind's (an int constant
        beside floats, a float32 element beside float64, a local of another kind)."""
        r = self.r
        if r.random() < 0.6:
            return self.plain(n, avail, idx)
        opts = ["3", "0", "1.5", f"a[{idx}]", f"b[{idx}]", f"c[{idx}]", "np.float32(0.5)"]
        opts += [x for x in avail if x != "u" or n in BO]
        return r.choice(opts)

    def choice(self, n, avail, idx):
        """A conditional expression, max/min of two, or a value-returning and/or (cf50)."""
        r = self.r
        x, y = self.operand(n, avail, idx), self.operand(n, avail, idx)
        k = r.random()
        if k < 0.4:
            self.tags.add("choice_ifexp")
            return f"({x} if {self.cond(avail, idx)} else {y})"
        if k < 0.8:
            self.tags.add("choice_maxmin")
            return f"{r.choice(['max', 'min'])}({x}, {y})"
        self.tags.add("choice_andor")
        return f"({x} {r.choice(['and', 'or'])} {y})"

    def plain(self, n, avail, idx):
        if n in FL:
            return self.fexpr(avail, idx)
        if n in IN:
            return self.iexpr(avail, idx)
        if n in F32:
            return self.gexpr(avail, idx)
        if n in I32:
            return self.qexpr(avail, idx)
        return self.bexpr(avail, idx)

    def bexpr(self, avail, idx):
        r = self.r
        opts = [f"a[{idx}] > 0.2", f"b[{idx}] < 0.0", "c[i] > 2", "True", "False"] + [n for n in avail if n in BO]
        c = r.choice(opts)
        if "u" in avail and r.random() < 0.3:
            c = r.choice(["not u", f"u and a[{idx}] > 0.0", "u or c[i] == 1"])
        return c

    def cond(self, avail, idx):
        r = self.r
        opts = [f"a[{idx}] > 0.3", f"b[{idx}] > -0.2", f"a[{idx}] - b[{idx}] > 0.0", "c[i] > 2", f"c[i] == {r.randint(0, 4)}"]
        loc = []
        for n in avail:
            if n in FL:
                loc.append(f"{n} > {r.choice(['0.0', '0.5', '-1.0', 'a[' + idx + ']'])}")
            if n in IN:
                loc.append(f"{n} {r.choice(['>', '<', '=='])} {r.choice(['2', '3', 'c[i]'])}")
            if n in BO:
                loc.append(r.choice(["u", "not u"]))
            if n in F32:
                loc.append(f"g > {r.choice(['0.0', 'b[' + idx + ']'])}")
            if n in I32:
                loc.append(f"q {r.choice(['>', '<', '!='])} {r.choice(['2', 'c[i]'])}")
        if loc and r.random() < 0.5:
            self.tags.add("local_test")
            return r.choice(loc)
        return r.choice(opts)

    def assign(self, ind, avail, assigned, idx):
        r = self.r
        n = r.choice(FL + IN + BO + F32 + I32)
        if n in assigned and n not in BO and r.random() < 0.35:
            self.tags.add("augassign")
            op = r.choice(["+=", "-=", "*="]) if n in FL + F32 else r.choice(["+=", "-="])
            e = self.fexpr(avail, idx) if n in FL else self.iexpr(avail, idx) if n in IN \
                else f"b[{idx}]" if n in F32 else "c[i]"
            line = f"{ind}{n} {op} {e}"
        else:
            line = f"{ind}{n} = {self.kexpr(n, avail, idx)}"
        if n in F32 + I32:
            self.tags.add("f32_i32_local")
        assigned.add(n)
        return [line]

    def avail(self, assigned):
        # mostly definitely-assigned names; sometimes maybe-assigned ones (Python decides)
        return sorted(assigned | (self.maybe if self.r.random() < 0.2 else set()))

    def block(self, depth, ind, assigned, idx, inloop):
        r = self.r
        lines = []
        for _ in range(r.randint(1, 2 if SMALL else 3)):
            k = r.random()
            av = self.avail(assigned)
            if k < 0.28 and depth < (3 if SMALL else 4):
                lines += self.ifstmt(depth, ind, assigned, idx, inloop)
            elif k < 0.55:
                lines += self.assign(ind, av, assigned, idx)
            elif k < 0.63 and depth < 3 and self.nloop < 3:
                lines += self.forloop(depth, ind, assigned, idx)
            elif k < 0.68 and depth < 3 and self.nloop < 3 and not self.affine:
                lines += self.whileloop(depth, ind, assigned, idx)
            elif k < 0.74 and inloop and not self.affine:
                self.tags.add("break" if r.random() < 0.5 else "continue")
                kw = "break" if "break" in self.tags and r.random() < 0.5 else "continue"
                self.tags.add(kw)
                lines += [f"{ind}if {self.cond(av, idx)}:", f"{ind}    {kw}"]
            elif k < 0.78 and self.mode == "ret" and not self.affine:
                n = r.choice([x for x in av if x in self.rkind] or [self.rlit])
                self.tags.add("early_return")
                if r.random() < CHOICE:
                    self.tags.add("choice_return")
                    n = f"{self.operand(self.rkind[0], av, idx)} if {self.cond(av, idx)} else {n}"
                lines += [f"{ind}if {self.cond(av, idx)}:", f"{ind}    return {n}"]
            elif k < 0.84:
                self.tags.add("argmax")
                m = r.choice(FL)
                if m in assigned:
                    lines += [f"{ind}if a[{idx}] > {m}:", f"{ind}    {m} = a[{idx}]", f"{ind}    v = {idx}"]
                    self.maybe.add("v")
                else:
                    lines += self.assign(ind, av, assigned, idx)
            elif k < 0.9:
                self.tags.add("consecutive_ifs")
                n = r.choice(FL + IN + F32 + I32)
                first, second = self.kexpr(n, av, idx), self.kexpr(n, av, idx)
                lines += [f"{ind}if {self.cond(av, idx)}:", f"{ind}    {n} = {first}",
                          f"{ind}if {self.cond(av, idx)}:", f"{ind}    {n} = {second}"]
                self.maybe.add(n)
            else:
                if self.mode == "out" and av:
                    n = r.choice(av)
                    lines.append(f"{ind}out[i] += {n}")
                elif av:
                    lines += self.assign(ind, av, assigned, idx)
                else:
                    lines.append(f"{ind}pass")
        return lines

    def ifstmt(self, depth, ind, assigned, idx, inloop):
        r = self.r
        av = self.avail(assigned)
        lines = [f"{ind}if {self.cond(av, idx)}:"]
        sets = []
        a1 = set(assigned)
        lines += self.block(depth + 1, ind + "    ", a1, idx, inloop)
        sets.append(a1)
        nelif = 0
        while r.random() < 0.3 and nelif < 4:
            nelif += 1
            lines.append(f"{ind}elif {self.cond(self.avail(assigned), idx)}:")
            a2 = set(assigned)
            lines += self.block(depth + 1, ind + "    ", a2, idx, inloop)
            sets.append(a2)
        if nelif >= 2:
            self.tags.add("elif_chain")
        if r.random() < 0.6:
            lines.append(f"{ind}else:")
            a3 = set(assigned)
            lines += self.block(depth + 1, ind + "    ", a3, idx, inloop)
            sets.append(a3)
            common = set.intersection(*sets)
        else:
            common = set(assigned)
        union = set.union(*sets)
        if union - common:
            self.tags.add("one_branch_def")
        self.maybe |= union - common
        assigned |= common
        self.tags.add("nested_if" if depth > 1 else "if")
        return lines

    def forloop(self, depth, ind, assigned, idx):
        self.nloop += 1
        self.tags.add("loop_in_branch" if depth > 1 else "inner_for")
        j = f"j{self.nloop}"
        lines = [f"{ind}for {j} in range({self.r.choice(['3', 'i', 'n - i', '(i + 1) % 3', 'i % 2 + 1', '2'] if self.affine else ['3', 'c[i]', 'i % 4'])}):"]
        if "i % 4" in lines[0] or "c[i]" in lines[0]:
            self.tags.add("data_trip")
        a = set(assigned)
        lines += self.block(depth + 1, ind + "    ", a, self.r.choice([idx, f"({idx} + {j}) % n"]), True)
        self.maybe |= a - assigned
        return lines

    def whileloop(self, depth, ind, assigned, idx):
        r = self.r
        self.nloop += 1
        self.tags.add("while")
        t = f"t{self.nloop}"
        form = r.random()
        a = set(assigned)
        if form < 0.2 and any(x in assigned for x in FL):
            x = r.choice([x for x in FL if x in assigned])
            lines = [f"{ind}while {x} > 1.0 or {x} < -8.0:", f"{ind}    {x} = {x} * 0.5 + {r.choice(['0.1', '-0.3'])}"]
            lines += self.block(depth + 1, ind + "    ", a, idx, True) if r.random() < 0.5 else []
            self.tags.add("while_local")
            self.maybe |= a - assigned
            return lines
        if form < 0.55:
            lines = [f"{ind}{t} = 0", f"{ind}while {t} < 5:", f"{ind}    {t} += 1"]
            body = self.block(depth + 1, ind + "    ", a, idx, True)
            lines += body + [f"{ind}    if {self.cond(self.avail(a), idx)}:", f"{ind}        break"]
            self.tags.add("while_break")
        else:
            lines = [f"{ind}{t} = 0", f"{ind}while {t} < 6 and a[({idx} + {t}) % n] > {r.choice(['-0.5', '0.0', '-1.0'])}:",
                     f"{ind}    {t} += 1"]
            lines += self.block(depth + 1, ind + "    ", a, idx, True)
            self.tags.add("while_data_exit")
        self.maybe |= a - assigned
        return lines


def program(r):
    mode = r.choice(["out", "ret"])
    g = G(r, mode)
    g.affine = os.environ.get("AFFINE") == "1" or (os.environ.get("AFFINE") != "0" and r.random() < 0.5)
    if g.affine:
        g.tags.add("affine_only")
    g.maybe = set()
    g.rkind, g.rlit = r.choice([(FL, "0.5"), (IN, "7"), (BO, "True"), (F32, "b[1]"), (I32, "c[1]")])
    assigned = set()
    pre = []
    for n, init in (("w", "0.0"), ("s", "1.0"), ("v", "0"), ("u", "False"), ("g", "b[0]"), ("q", "c[0]")):
        if r.random() < float(os.environ.get("PRE", "0.5")):
            pre.append(f"    {n} = {init}")
            assigned.add(n)
    head = "import numpy as np\n\n\ndef f(a, b, c, out):\n    n = a.shape[0]\n" + "\n".join(pre) + ("\n" if pre else "") + "    for i in range(n):\n"
    body = g.block(1, "        ", assigned, "i", True)
    if mode == "out":
        tail = [f"        out[i] += {x}" for x in sorted(assigned) if r.random() < 0.7]
        end = ""
    else:
        tail = []
        cands = sorted(x for x in assigned | g.maybe if x in g.rkind)
        ret = r.choice(cands) if cands else g.rlit
        if r.random() < CHOICE:
            g.tags.add("choice_return")
            other = r.choice([ret, g.rlit, "a[0]", "b[0]", "1", "c[0]"])
            k = r.random()
            if k < 0.5:
                ret = f"{ret} if {ret} > 1 else {other}" if ret != "u" else f"{ret} if {ret} else {other}"
            elif k < 0.8:
                ret = f"{r.choice(['max', 'min'])}({ret}, {other})"
            else:
                ret = f"{ret} {r.choice(['and', 'or'])} {other}"
        end = f"    return {ret}\n"
    return mode, g.tags, head + "\n".join(body + tail) + "\n" + end


def inputs(k, variant, size=24):
    rng = np.random.default_rng(k * 7 + variant)
    a = rng.standard_normal(size)
    b = rng.standard_normal(size).astype(np.float32)
    c = rng.integers(0, 5, size).astype(np.int32)
    if variant == 1:
        a = -np.abs(a)
    return a, b, c


def same(x, y):
    if type(x) is not type(y):
        return False
    if isinstance(x, np.ndarray):
        return x.dtype == y.dtype and np.array_equal(x, y, equal_nan=True)
    return x == y or (x != x and y != y)


def main(seed, count, targets):
    stats = collections.Counter()
    shape_counts = collections.Counter()
    only = os.environ.get("ONLY")
    for k in ([int(x) for x in only.split(",")] if only else range(count)):
        r = random.Random(seed * 100000 + k)
        mode, tags, src = program(r)
        folder = os.environ.get("FUZZ_DIR", "/tmp/control_fuzz")
        os.makedirs(folder, exist_ok=True)
        path = f"{folder}/p{seed}_{k}.py"
        open(path, "w").write(src)
        spec = importlib.util.spec_from_file_location(f"p{seed}_{k}", path)
        m = importlib.util.module_from_spec(spec)
        spec.loader.exec_module(m)
        refs = {}
        runs = [(variant, size) for size in SIZES for variant in range(3)]
        try:
            for variant, size in runs:
                a, b, c = inputs(k, variant, size)
                out = np.zeros(size)
                try:
                    refs[variant, size] = (m.f(a, b, c, out), out)
                except IndexError:  # b[1] at n = 1: that call is left out
                    pass
        except (UnboundLocalError, NameError):
            stats["skipped"] += 1
            continue
        if not refs:
            stats["skipped"] += 1
            continue
        if any(np.abs(o).max(initial=0.0) > 1e15 or (isinstance(x, (int, np.integer)) and abs(int(x)) > 2**31) for x, o in refs.values()):
            stats["overflow"] += 1
            continue
        for t in tags:
            shape_counts[t] += 1
        for t in targets:
            try:
                kern = polyfuse.kernel(target=t)(m.f)
                for (variant, size), (rret, rout) in refs.items():
                    a, b, c = inputs(k, variant, size)
                    out = np.zeros(size)
                    ret = kern(a, b, c, out)
                    if not np.array_equal(out, rout, equal_nan=True):
                        stats["bad_" + t] += 1
                        print("MISMATCH out", t, path, variant, size, np.nonzero(out != rout)[0][:5], flush=True)
                        break
                    if not same(ret, rret):
                        kind = "type" if ret == rret else "value"
                        stats[f"bad{kind}_" + t] += 1
                        print(f"MISMATCH ret-{kind}", t, path, variant, size, repr(ret), repr(rret), flush=True)
                        break
                else:
                    stats["ok_" + t] += 1
            except polyfuse.UnsupportedError as e:
                stats["refused_" + t] += 1
                if os.environ.get("SHOW"):
                    print("REFUSED", t, path, str(e).splitlines()[0][:200], flush=True)
            except Exception as e:
                stats["crash_" + t] += 1
                print("CRASH", t, path, type(e).__name__, str(e).splitlines()[0][:200] if str(e) else "", flush=True)
    print(f"seed {seed}:", dict(stats))
    print("shapes:", dict(shape_counts), flush=True)


if __name__ == "__main__":
    main(int(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(","))
