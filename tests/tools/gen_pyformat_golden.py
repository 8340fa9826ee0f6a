#!/usr/bin/env python3
# SPDX-License-Identifier: MIT
"""Generate golden cases for tests/unit/test_pyformat.c from real numpy.

What jax.debug.print's _format_print_callback makes of fmt and its
arguments, each one a jax Array (whose __format__ formats the numpy value:
the 0-d one's scalar, the n-d array itself), inside np.printoptions:

    .../venv-jax12/bin/python tests/tools/gen_pyformat_golden.py OUT.txt [N]

The checked-in files, N = 1500 each: np2.txt from numpy 2.5.5 (venv-jax12),
np126.txt from numpy 1.26.4 (venv).  A case, every text field hex of its UTF-8:

    case <n>
    fmt <hex>
    opts <threshold> <precision> <linewidth> <edgeitems> <suppress>
    leaf <dtype> <ndim> [dims...] <data hex>     # one a leaf, flatten order
    expect <hex>        # or "expect error": Python raised, must be refused
    must 0|1            # 1: in the subset pyformat.h proves, must be made

The seed is fixed: regenerating with the same numpy gives the same file.
"""
import random
import sys

import numpy as np


class Leaf:
    """jax.Array.__format__ (jax/_src/array.py) over a numpy value."""

    def __init__(self, value):
        self.value = value

    def __format__(self, spec):
        v = self.value
        return format(v if v.ndim else v[()], spec)


DTYPES = ['bool', 'int8', 'int16', 'int32', 'int64', 'uint8', 'uint16', 'uint32',
          'uint64', 'float16', 'float32', 'float64']
ND_DTYPES = DTYPES + ['complex64', 'complex128']
SPECIALS = [0.0, -0.0, 0.1, -0.1, 1.0, 1e16, 9999000000000000.0, 1.5e-5, 1e-4,
            123456789.0, float('nan'), -float('nan'), float('inf'), -float('inf'),
            2.5, 0.125, 1e300, 5e-324, 65504.0, 3.0e38]


def rand_value(rng, dt):
    t = np.dtype(dt)
    if t.kind == 'b':
        return rng.random() < 0.5
    if t.kind in 'iu':
        info = np.iinfo(t)
        pick = rng.random()
        if pick < 0.2:
            return int(rng.choice([info.min, info.max, 0, -1 if t.kind == 'i' else 1]))
        if pick < 0.6:
            return rng.randint(max(-1000, int(info.min)), min(1000, int(info.max)))
        return rng.randint(int(info.min), int(info.max))
    pick = rng.random()
    if pick < 0.3:
        return rng.choice(SPECIALS)
    if pick < 0.6:
        return rng.uniform(-1000, 1000)
    bits = rng.getrandbits(8 * t.itemsize)
    return np.frombuffer(bits.to_bytes(t.itemsize, 'little'), t)[0]


def rand_array(rng, dt, shape):
    n = int(np.prod(shape)) if shape else 1
    with np.errstate(all='ignore'):
        vals = [rand_value(rng, dt) for _ in range(n)]
        if np.dtype(dt).kind == 'c':
            vals = [complex(rand_value(rng, 'float64'), rand_value(rng, 'float64'))
                    for _ in range(n)]
        return np.array(vals, dtype=dt).reshape(shape)


def rand_spec(rng, dt, good):
    """A spec for a 0-d leaf; good: one pyformat.h proves (if Python takes it)."""
    fill = rng.choice(['', '', '*', 'é', ' ', '€']) if good else rng.choice(['', '0'])
    align = rng.choice(['', '<', '>', '^'] if good else ['=', '<'])
    if not align:
        fill = ''
    sign = rng.choice(['', '+', '-', ' '])
    width = rng.choice(['', '', str(rng.randint(1, 30))])
    prec = rng.choice(['', '.' + str(rng.randint(0, 20))])
    types = ['', 'f', 'e', 'g', 'd', '%'] if good else ['x', 'E', 'n', ',', 'z', '#', 'F', 'G']
    typ = rng.choice(types)
    if not good and typ in (',', 'z', '#'):
        return fill + align + sign + typ + width + prec
    return fill + align + sign + width + prec + typ


def in_subset(value, spec):
    """Whether pyformat.h promises this leaf's text (when Python makes one)."""
    if value.ndim:
        return spec == '' and value.dtype.kind in 'biufc'
    if value.dtype.kind == 'c':
        return False
    if spec == '':
        return True
    is_float = value.dtype.kind == 'f'
    typ = spec[-1] if spec[-1] in 'fegd%' else ''
    has_prec = '.' in spec
    if is_float and (typ == 'd' or (not typ and has_prec)):
        return False
    if not is_float and not typ and has_prec:
        return False
    if not is_float and typ == 'd' and has_prec:
        return False
    return True


def rand_case(rng):
    nargs = rng.randint(1, 4)
    names = sorted(rng.sample(['a', 'b', 'x', 'val', 'zz', 'B'], rng.randint(0, 2)))
    mode = rng.choice(['auto', 'manual'])
    fields, leaves, must = [], [], True
    keys = list(range(nargs)) + names
    for k in keys:
        nd = rng.random() < 0.35
        dt = rng.choice(ND_DTYPES if nd else DTYPES)
        shape = tuple(rng.randint(0, 4) for _ in range(rng.randint(1, 3))) if nd else ()
        if nd and rng.random() < 0.2:
            shape = (rng.randint(5, 40),)
        v = rand_array(rng, dt, shape)
        good = rng.random() < 0.85
        spec = '' if nd and good else rand_spec(rng, dt, good)
        if rng.random() < 0.3 and not nd:
            spec = ''
        must = must and good and in_subset(v, spec)
        leaves.append(v)
        fields.append((k, spec))
    # each argument used: auto numbering takes the positional ones once
    # each in order, manual ones and names may repeat in any order
    pos = [fk for fk in fields if isinstance(fk[0], int)]
    named = [fk for fk in fields if not isinstance(fk[0], int)]
    if mode == 'auto':
        order = list(pos)
        for fk in named + rng.sample(named, rng.randint(0, len(named))):
            order.insert(rng.randint(0, len(order)), fk)
    else:
        order = fields + rng.sample(fields, rng.randint(0, len(fields)))
        rng.shuffle(order)
    lits = ['', ' ', 'x=', ' é ', '{{', '}}', ': ', '日本 ', '\t']
    out = [rng.choice(lits)]
    for k, spec in order:
        name = '' if mode == 'auto' and isinstance(k, int) else str(k)
        out.append('{' + name + (':' + spec if spec else '') + '}' + rng.choice(lits))
    fmt = ''.join(out)
    return fmt, leaves[:nargs], dict(zip(names, leaves[nargs:])), must


def rand_opts(rng):
    return {
        'threshold': rng.choice([1000, 1000, 5, 20]),
        'precision': rng.choice([8, 8, 3, 0, 12]),
        'linewidth': rng.choice([75, 75, 20, 120]),
        'edgeitems': rng.choice([3, 3, 1, 2]),
        'suppress': rng.random() < 0.2,
    }


def leaf_line(v):
    dims = ' '.join(str(d) for d in v.shape)
    data = np.ascontiguousarray(v).astype(v.dtype.newbyteorder('<')).tobytes().hex()
    return f'leaf {v.dtype.name} {v.ndim}{" " + dims if dims else ""} {data or "-"}'


def main():
    out = sys.argv[1]
    n = int(sys.argv[2]) if len(sys.argv) > 2 else 3000
    rng = random.Random(39)
    with open(out, 'w') as f:
        f.write(f'# numpy {np.__version__}, python {sys.version.split()[0]}\n')
        for i in range(n):
            fmt, args, kwargs, must = rand_case(rng)
            opts = rand_opts(rng)
            try:
                with np.printoptions(**opts), np.errstate(all='ignore'):
                    text = fmt.format(*[Leaf(a) for a in args],
                                      **{k: Leaf(v) for k, v in kwargs.items()})
                expect = text.encode().hex() or '-'
            except (ValueError, TypeError, KeyError, IndexError, OverflowError):
                expect, must = 'error', False
            f.write(f'case {i}\nfmt {fmt.encode().hex() or "-"}\n')
            f.write('opts {threshold} {precision} {linewidth} {edgeitems} {s}\n'.format(
                s=int(opts['suppress']), **opts))
            for v in args + [kwargs[k] for k in sorted(kwargs)]:
                f.write(leaf_line(v) + '\n')
            f.write(f'expect {expect}\nmust {int(must)}\n')


main()
