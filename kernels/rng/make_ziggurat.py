#!/usr/bin/env python3
"""Writes kernels/rng/rng_zig_tables.h, the ziggurat tables of the normal
and exponential samplers (rng_rejection.c), run by hand when they change.

The samplers must give NumPy 1.24's values bit for bit, so they must use
NumPy's tables: 12 tables of 256 entries, {k, w, f} x {normal, exponential}
x {double, float}. For each, this script computes the table from the
method's defining constants (Marsaglia and Tsang's ziggurat with 256 layers:
the tail start r and the layer area v) with the recipe below, reads NumPy's
own table from the compiled NumPy (the static library libnpyrandom.a that
NumPy ships, whose distributions.o holds the tables as local data symbols),
and prints how many entries agree. A table the recipe reproduces in all 256
entries is written as computed; any other is written as NumPy's data, with
its origin named in the header.

The recipe, in double arithmetic throughout (Python floats are IEEE
doubles and math.exp/log/sqrt are the C library's):
    x[255] = r; x[i] = pdf^-1(pdf(x[i+1]) + v / x[i+1]) for i = 254 .. 1
    k[0] = round(r * pdf(r) / v * 2^b), k[1] = 0,
    k[i+1] = round(x[i] / x[i+1] * 2^b)
    w[0] = v / pdf(r) / 2^b, w[i] = x[i] / 2^b
    f[0] = 1, f[i] = pdf(x[i])
with pdf(x) = exp(-x^2/2) (normal) or exp(-x) (exponential), b the bits of
the uniform the sampler compares with k (double: 52 normal, 53
exponential; float: 23 both) and the float tables' w and f rounded to
float. It reproduces the float tables but for 4 entries of the exponential
ones (one w, three f). The double tables were made some other way. Each is
self-consistent in double arithmetic (normal: f[i] = exp(-x*x/2) and k from
the ratio of neighbouring x = w * 2^52 in all but one entry), but no
precision of the recursion tried (double, x87 extended, binary128, 200
bits) with the values of v tried (0.00492867323399, the one above, and v
from r in high precision) gives the normal x[i]: the double recursion is
off by up to 76 ulp at the top layers. For the exponential, the recursion
in high precision with v = e^-r (r + 1) gives w and f exactly, but k
agrees with neither rounding of the exact ratios (54 and 124 of 254
entries for nearest and down). So the double tables are NumPy's data.

Usage: make_ziggurat.py [--lib PATH] [--out PATH] [--check]
  --lib    NumPy's libnpyrandom.a (default: the one of the numpy package
           this interpreter imports, <numpy>/random/lib/libnpyrandom.a)
  --out    the header to write (default: rng_zig_tables.h beside this file)
  --check  write nothing; exit 1 when the header differs from what would
           be written
Needs only the standard library (not NumPy itself, given --lib).
"""

import argparse
import importlib.util
import math
import os
import struct
import sys
import textwrap

# The defining constants: the tail start r and the area v of each of the
# 256 layers, for pdf(x) = exp(-x^2/2) and exp(-x) (NumPy 1.24.2's
# ziggurat_constants.h for r; v as in the recipe that reproduces NumPy's
# float tables).
NOR_R = 3.6541528853610087963519472518
NOR_V = 0.0049286732339746519
EXP_R = 7.6971174701310497140446280481
EXP_V = 0.0039496598225815571993

NLAYERS = 256

# name -> (family, kind, bits, struct format, C type)
TABLES = [
    ("ki_double", "nor", "k", 52, "Q", "uint64_t"),
    ("wi_double", "nor", "w", 52, "d", "double"),
    ("fi_double", "nor", "f", 52, "d", "double"),
    ("ke_double", "exp", "k", 53, "Q", "uint64_t"),
    ("we_double", "exp", "w", 53, "d", "double"),
    ("fe_double", "exp", "f", 53, "d", "double"),
    ("ki_float", "nor", "k", 23, "I", "uint32_t"),
    ("wi_float", "nor", "w", 23, "f", "float"),
    ("fi_float", "nor", "f", 23, "f", "float"),
    ("ke_float", "exp", "k", 23, "I", "uint32_t"),
    ("we_float", "exp", "w", 23, "f", "float"),
    ("fe_float", "exp", "f", 23, "f", "float"),
]

# What the kernels call each table: ncl_zig_<k|w|f><n|e>_<f64|f32>.
def c_name(name):
    base, prec = name.split("_")
    return "ncl_zig_%s_%s" % (base, "f64" if prec == "double" else "f32")


def to_f32(v):
    return struct.unpack("<f", struct.pack("<f", v))[0]


def recipe(family, bits, is_float):
    """The k, w, f tables of one family at one precision, by the recipe."""
    if family == "nor":
        pdf = lambda x: math.exp(-0.5 * x * x)
        inv = lambda y: math.sqrt(-2.0 * math.log(y))
        r, v = NOR_R, NOR_V
    else:
        pdf = lambda x: math.exp(-x)
        inv = lambda y: -math.log(y)
        r, v = EXP_R, EXP_V
    scale = 2.0 ** bits
    rnd = to_f32 if is_float else (lambda t: t)
    x = [0.0] * NLAYERS
    x[NLAYERS - 1] = r
    for i in range(NLAYERS - 2, 0, -1):
        x[i] = inv(pdf(x[i + 1]) + v / x[i + 1])
    k = [0] * NLAYERS
    w = [0.0] * NLAYERS
    f = [0.0] * NLAYERS
    k[0] = round(r * pdf(r) / v * scale)
    w[0] = rnd(v / pdf(r) / scale)
    f[0] = 1.0
    for i in range(1, NLAYERS):
        w[i] = rnd(x[i] / scale)
        f[i] = rnd(pdf(x[i]))
        if i + 1 < NLAYERS:
            k[i + 1] = round(x[i] / x[i + 1] * scale)
    return {"k": k, "w": w, "f": f}


# ---- reading NumPy's tables from the static library --------------------------

def ar_members(data):
    """The members of a System V / GNU ar archive, name -> bytes."""
    if data[:8] != b"!<arch>\n":
        raise ValueError("not an ar archive")
    pos, names, out = 8, b"", {}
    while pos + 60 <= len(data):
        hdr = data[pos:pos + 60]
        name = hdr[:16].decode("ascii").strip()
        size = int(hdr[48:58])
        body = data[pos + 60:pos + 60 + size]
        if name == "//":
            names = body
        elif name.startswith("/") and name[1:].isdigit():
            off = int(name[1:])
            out[names[off:names.index(b"/\n", off)].decode()] = body
        elif name not in ("/", "/SYM64/"):
            out[name.rstrip("/")] = body
        pos += 60 + size + (size & 1)
    return out


def elf_data_symbols(obj):
    """The bytes of every sized symbol of a little-endian ELF64 object."""
    if obj[:4] != b"\x7fELF" or obj[4] != 2 or obj[5] != 1:
        raise ValueError("not a little-endian ELF64 object")
    shoff, = struct.unpack_from("<Q", obj, 0x28)
    shentsize, shnum = struct.unpack_from("<HH", obj, 0x3A)
    # sh_name, sh_type, sh_flags, sh_addr, sh_offset, sh_size, sh_link,
    # sh_info, sh_addralign, sh_entsize
    secs = [struct.unpack_from("<IIQQQQIIQQ", obj, shoff + i * shentsize) for i in range(shnum)]
    syms = {}
    for sec in secs:
        if sec[1] != 2:  # SHT_SYMTAB
            continue
        strtab = secs[sec[6]]
        for j in range(sec[5] // 24):
            st_name, _, _, shndx, value, size = struct.unpack_from("<IBBHQQ", obj, sec[4] + j * 24)
            if not st_name or not size or shndx == 0 or shndx >= len(secs):
                continue
            start = strtab[4] + st_name
            name = obj[start:obj.index(b"\0", start)].decode()
            home = secs[shndx]
            if home[1] == 8:  # SHT_NOBITS
                continue
            syms[name] = obj[home[4] + value:home[4] + value + size]
    return syms


def numpy_tables(lib):
    with open(lib, "rb") as fh:
        members = ar_members(fh.read())
    if "distributions.o" not in members:
        raise SystemExit("%s has no distributions.o" % lib)
    syms = elf_data_symbols(members["distributions.o"])
    out = {}
    for name, _, _, _, fmt, _ in TABLES:
        raw = syms.get(name)
        if raw is None or len(raw) != NLAYERS * struct.calcsize(fmt):
            raise SystemExit("%s: distributions.o has no 256-entry %s" % (lib, name))
        out[name] = list(struct.unpack("<%d%s" % (NLAYERS, fmt), raw))
    return out


def default_lib():
    spec = importlib.util.find_spec("numpy")
    if spec is None or not spec.submodule_search_locations:
        raise SystemExit("this interpreter has no numpy: pass --lib <numpy>/random/lib/libnpyrandom.a")
    root = list(spec.submodule_search_locations)[0]
    try:
        from importlib import metadata
        version = metadata.version("numpy")
    except Exception:  # no metadata: the version is only printed
        version = "(version unknown)"
    print("numpy %s at %s" % (version, root))
    return os.path.join(root, "random", "lib", "libnpyrandom.a")


# ---- writing the header --------------------------------------------------------

def literal(v, ctype):
    if ctype == "uint64_t":
        return "0x%016Xull" % v
    if ctype == "uint32_t":
        return "0x%08Xu" % v
    if ctype == "float":
        return "%sf" % float.hex(v)
    return float.hex(v)


def render(tables, provenance):
    out = []
    w = out.append
    w("/*")
    w(" * rng_zig_tables.h: the ziggurat tables of the standard normal and")
    w(" * exponential samplers (rng_rejection.c), NumPy 1.24.2's, entry for entry.")
    w(" * Written by make_ziggurat.py (beside this file); do not edit by hand.")
    w(" *")
    w(" * k: the acceptance bound of each layer in units of the uniform's last")
    w(" * bit, w: the layer's width per unit, f: the density at its edge. Index")
    w(" * 0 is the base layer with the tail; k[1] = 0.")
    w(" *")
    computed = [c_name(n) for n, *_ in TABLES if provenance[n][0] == "computed"]
    carried = [c_name(n) for n, *_ in TABLES if provenance[n][0] == "data"]
    para = lambda text: [w(" * " + line) for line in textwrap.wrap(text, 72)]
    para("Computed (make_ziggurat.py's recipe gives NumPy's table in all 256 "
         "entries): %s." % (", ".join(computed) or "none"))
    w(" *")
    para("Carried data, NumPy 1.24.2's tables as compiled into its libnpyrandom.a "
         "(numpy/random/src/distributions/ziggurat_constants.h, BSD-3-Clause, "
         "Copyright (c) 2005-2017 NumPy Developers; derived, by NumPy's own note, "
         "from Julia's, MIT): %s." % (", ".join(carried) or "none"))
    w(" *")
    para("Entries of each table the recipe reproduces: %s." %
         ", ".join("%s %d" % (c_name(n)[len("ncl_zig_"):], provenance[n][1]) for n, *_ in TABLES))
    w(" */")
    w("#ifndef NCL_RNG_ZIG_TABLES_H")
    w("#define NCL_RNG_ZIG_TABLES_H")
    w("")
    w("#include <stdint.h>")
    w("")
    w("/* The tail starts and 1/r as NumPy writes them (decimal literals: the")
    w("   float ones are rounded from the decimal, not from the double). */")
    w("#define NCL_ZIG_NOR_R 3.6541528853610087963519472518")
    w("#define NCL_ZIG_NOR_INV_R 0.27366123732975827203338247596")
    w("#define NCL_ZIG_EXP_R 7.6971174701310497140446280481")
    w("#define NCL_ZIG_NOR_R_F 3.6541528853610087963519472518f")
    w("#define NCL_ZIG_NOR_INV_R_F 0.27366123732975827203338247596f")
    w("#define NCL_ZIG_EXP_R_F 7.6971174701310497140446280481f")
    for name, family, kind, bits, fmt, ctype in TABLES:
        how, good = provenance[name]
        w("")
        w("/* %s: %s */" % (name, "computed" if how == "computed" else
                            "NumPy's data (the recipe gives %d of 256)" % good))
        w("static const _Alignas(64) %s %s[256] = {" % (ctype, c_name(name)))
        per = 3 if ctype in ("double", "uint64_t") else 4
        vals = [literal(v, ctype) for v in tables[name]]
        for i in range(0, NLAYERS, per):
            w("    " + ", ".join(vals[i:i + per]) + ",")
        w("};")
    w("")
    w("#endif /* NCL_RNG_ZIG_TABLES_H */")
    return "\n".join(out) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--lib")
    ap.add_argument("--out", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "rng_zig_tables.h"))
    ap.add_argument("--check", action="store_true")
    args = ap.parse_args()

    lib = args.lib or default_lib()
    theirs = numpy_tables(lib)
    ours = {}
    for name, family, kind, bits, fmt, ctype in TABLES:
        is_float = name.endswith("_float")
        ours[name] = recipe(family, bits, is_float)[kind]

    chosen, provenance = {}, {}
    for name, *_ in TABLES:
        good = sum(1 for a, b in zip(ours[name], theirs[name]) if a == b)
        how = "computed" if good == NLAYERS else "data"
        provenance[name] = (how, good)
        chosen[name] = ours[name] if how == "computed" else theirs[name]
        print("%-10s recipe matches NumPy in %3d of 256 entries -> %s" % (name, good, how))

    text = render(chosen, provenance)
    if args.check:
        try:
            with open(args.out) as fh:
                same = fh.read() == text
        except OSError:
            same = False
        print("header %s" % ("up to date" if same else "differs"))
        return 0 if same else 1
    with open(args.out, "w") as fh:
        fh.write(text)
    print("wrote %s" % args.out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
