#!/usr/bin/env python3
"""Runs one of the Aparapi backend's OpenCL element kernels through CUDA, so that Nsight Compute can profile it.

NVIDIA's OpenCL driver compiles our kernels to PTX (lobatto-bench kernel-info --binary-out writes it), but ncu sees no
OpenCL launch. This rewrites that PTX for CUDA, builds it with the toolkit's ptxas (CuPy's loader refuses the PTX
itself), loads the cubin with CuPy, gives every argument a buffer of the
size the kernel indexes, and launches it as the backend would: one group of LB_THREADS_PER_ELEM * LB_ELEMS_PER_GROUP
work-items per LB_ELEMS_PER_GROUP elements, the local array `lds` as dynamic shared memory. Data are synthetic but
shaped like the op suite's: a K^3 box of elements of degree N = LB_NQ - 1, the scatter ids of its global numbering (so
the atomic adds into y_G collide as in a real mesh), positive factors. Timing only: the output is not checked.

usage: ptxprof.py SOURCE.cl PTXDIR LABEL_SUBSTRING [--k K] [--reps R] [--maxnreg N] [--list]
The __local pointer parameter is rewritten to a dynamic .shared array (its ld.param becomes a mov of the array's address)
so that no shared-window offset is assumed. --maxnreg inserts PTX's .maxnreg as the backend's register cap does.
"""
import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np


def blocks(source):
    """(label, text) of each kernel in kernel-info's --source-out file."""
    parts = re.split(r"^// ===== (.*)$", source, flags=re.M)
    return [(parts[i].strip(), parts[i + 1]) for i in range(1, len(parts) - 1, 2)]


def defines(text):
    return {m.group(1): int(m.group(2)) for m in re.finditer(r"#define (LB_\w+) \((-?\d+)\)", text)}


def kernel_args(text):
    """[(kind, type, name)] of the __kernel's parameters: kind global / local / scalar."""
    m = re.search(r"__kernel\b.*?\bvoid\s+run\s*\((.*?)\)\s*\{", text, flags=re.S)
    if not m:
        raise SystemExit("no __kernel run( in the source block")
    out = []
    for raw in m.group(1).split(","):
        p = " ".join(raw.split())
        name = p.replace("*", " ").split()[-1]
        kind = "global" if "__global" in p else "local" if "__local" in p else "scalar"
        typ = "double" if "double" in p else "int" if "int" in p else "float" if "float" in p else "long" if "long" in p else p
        out.append((kind, typ, name))
    return out


def ptx_params(ptx):
    m = re.search(r"\.entry\s+run\s*\((.*?)\)", ptx, flags=re.S)
    if not m:
        raise SystemExit("no .entry run( in the PTX")
    return [" ".join(p.split()) for p in m.group(1).split(",") if p.strip()]


def prepare_ptx(ptx, local_index, maxnreg):
    params = ptx_params(ptx)
    pname = params[local_index].split()[-1]
    ptype = params[local_index].split()[1]          # .u64 or .u32
    width = "u64" if "64" in ptype else "u32"
    decl = ".extern .shared .align 16 .b8 lb_lds[];\n"
    # OpenCL's PTX asks for the independent texture mode, which CUDA's loader refuses (CUDA_ERROR_INVALID_IMAGE); the
    # element kernels use no texture or sampler
    ptx = ptx.replace(", texmode_independent", "")
    # OpenCL's extensions of PTX that CUDA's loader does not know: the kernel-attribute metadata (the work-group size is
    # given at the launch here) and the environment registers (%envreg0: the group offset, 0 without a global offset)
    ptx = re.sub(r"\.metadata_section\s*\{.*\Z", "", ptx, flags=re.S)
    ptx = re.sub(r"%envreg\d+", "0", ptx)
    # and the pointer attributes of the parameters (.ptr .shared for the __local one is OpenCL's): plain .u64 / .u32
    ptx = re.sub(r"(\.param\s+\.[us](?:64|32))\s+\.ptr\s+\.\w+\s+\.align\s+\d+", r"\1", ptx)
    # module scope: after the .address_size line
    ptx = re.sub(r"(\.address_size\s+\d+\s*\n)", r"\1" + decl, ptx, count=1)
    n = 0

    def repl(mm):
        nonlocal n
        n += 1
        return "mov.%s %s, lb_lds;" % (width, mm.group(1))
    ptx = re.sub(r"ld\.param\.(?:u64|u32|b64|b32)\s+(%\w+),\s*\[" + re.escape(pname) + r"\];", repl, ptx)
    if n == 0:
        raise SystemExit("the local parameter %s is never loaded: cannot rewrite it" % pname)
    if maxnreg:
        # after the launch-bound directives (.reqntid), before the body, as PtxRegisterCap does
        ptx = re.sub(r"(\.entry\s+run\s*\(.*?\)[^{]*?)\{", lambda m: m.group(1) + ".maxnreg %d\n{" % maxnreg, ptx,
                     count=1, flags=re.S)
    return ptx


def box_ids(k, n):
    """Scatter ids e * (N+1)^3 + (a + (N+1)(b + (N+1)c)) -> global id of a k^3 box of degree n (lexicographic)."""
    q = n + 1
    g = n * k + 1
    e = np.arange(k ** 3)
    ex, ey, ez = e % k, (e // k) % k, e // (k * k)
    a = np.arange(q)
    ids = ((ex[:, None, None, None] * n + a[None, None, None, :])
           + g * ((ey[:, None, None, None] * n + a[None, None, :, None])
                  + g * (ez[:, None, None, None] * n + a[None, :, None, None])))
    return ids.reshape(-1).astype(np.int32), g ** 3


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("source")
    ap.add_argument("ptxdir")
    ap.add_argument("label")
    ap.add_argument("--k", type=int, default=0, help="elements per direction (default: about 8M DOFs)")
    ap.add_argument("--reps", type=int, default=20)
    ap.add_argument("--maxnreg", type=int, default=0)
    ap.add_argument("--list", action="store_true", help="print each kernel's label and LB_FROM_GLOBAL, then stop")
    ap.add_argument("--from-global", type=int, default=None, help="only kernels with this LB_FROM_GLOBAL (5: the op's atomic PTX form)")
    ap.add_argument("--index", type=int, default=0, help="the index-th kernel that matches (exit 3 when there is none)")
    o = ap.parse_args()
    src = Path(o.source).read_text()
    found = [(l, t) for l, t in blocks(src) if o.label in l
             and (o.from_global is None or defines(t).get("LB_FROM_GLOBAL") == o.from_global)]
    if o.list:
        for l, t in blocks(src):
            print("%s | LB_FROM_GLOBAL %s" % (l, defines(t).get("LB_FROM_GLOBAL")))
        return
    if o.index >= len(found):
        print("no kernel %d with %r in its label (LB_FROM_GLOBAL %s)" % (o.index, o.label, o.from_global))
        sys.exit(3)
    label, text = found[o.index]
    d = defines(text)
    args = kernel_args(text)
    ptxfile = Path(o.ptxdir) / (re.sub(r"[^A-Za-z0-9=.]+", "_", label) + ".ptx")
    ptx = ptxfile.read_bytes().rstrip(b"\0").decode()
    local_index = [i for i, a in enumerate(args) if a[0] == "local"]
    if len(local_index) != 1 or len(ptx_params(ptx)) != len(args):
        raise SystemExit("expected one __local parameter and as many PTX parameters (%d) as OpenCL ones (%d)"
                         % (len(ptx_params(ptx)), len(args)))
    ptx = prepare_ptx(ptx, local_index[0], o.maxnreg)

    import cupy as cp
    nq = d["LB_NQ"]
    n = nq - 1
    P = d.get("LB_PTS", nq)
    k = o.k or max(1, round((8e6 ** (1 / 3) - 1) / n))
    ids_np, ng = box_ids(k, n)
    e = k ** 3
    p3 = P ** 3
    epg = d["LB_ELEMS_PER_GROUP"]
    group = int(re.search(r"reqd_work_group_size\((\d+)", text).group(1))
    per_group = epg * max(1, d.get("LB_SWEEP", 0))       # ElementPlan.groups
    groups = (e + per_group - 1) // per_group
    lds_doubles = d["LB_LDS_MAT"] + nq * d.get("LB_D_STRIDE", nq)   # ElementPlan.localDoubles: D after the elements
    big = max(e * p3, ng) + 1024
    rng = np.random.default_rng(1)
    path = Path("/tmp") / ("ptxprof-" + ptxfile.name)
    path.write_text(ptx)
    ptxas = shutil.which("ptxas") or ("/usr/local/cuda/bin/ptxas" if Path("/usr/local/cuda/bin/ptxas").exists() else None)
    if ptxas:
        # CuPy's loader refused the PTX (CUDA_ERROR_INVALID_IMAGE) where ptxas took it: load ptxas's cubin instead
        cubin = path.with_suffix(".cubin")
        r = subprocess.run([ptxas, "-arch=sm_90", "-v", "-o", str(cubin), str(path)], capture_output=True, text=True)
        print("ptxas exit %d: %s" % (r.returncode, " ".join((r.stdout + r.stderr).split())[-300:]), flush=True)
        if r.returncode == 0:
            path = cubin
    mod = cp.RawModule(path=str(path))
    fn = mod.get_function("run")
    if lds_doubles * 8 > 48 * 1024:
        fn.max_dynamic_shared_size_bytes = lds_doubles * 8
    call = []
    buffers = {}
    for kind, typ, name in args:
        if kind == "local":
            call.append(None)  # set below, to the PTX parameter's width
        elif kind == "global":
            if name == "ids":
                buf = cp.asarray(ids_np)
            elif typ == "int":
                buf = cp.zeros(big, dtype=cp.int32)
            elif name in ("G00", "G11", "G22", "wJ"):
                # 256 elements more: factors blocked by a group's elements fill the last block (FactorLayout)
                buf = cp.asarray(1 + 0.1 * rng.random((e + 256) * p3))
            elif name in ("G01", "G02", "G12"):
                buf = cp.asarray(0.05 * rng.random((e + 256) * p3))
            elif name in ("x", "dirG"):
                buf = cp.asarray(rng.random(ng + 8))
            elif name in ("matD", "matI"):
                buf = cp.asarray(rng.random(4 * P * P) - 0.5)
            else:
                buf = cp.zeros(big, dtype=cp.float64)
            buffers[name] = buf
            call.append(buf)
        else:
            v = {"elems": e, "firstElem": 0, "passid": 0}.get(name, 0)
            call.append(np.float64(v) if typ == "double" else np.int32(v))
    # the local pointer: PTX reads it no more (rewritten), any value of its width does
    lp = ptx_params(ptx)[local_index[0]]
    call[local_index[0]] = np.uint64(0) if "64" in lp.split()[1] else np.uint32(0)
    print("kernel %s: N = %d, P = %d, %d^3 = %d elements, N_G = %d, %d groups of %d, %d B shared, maxnreg %s, params %d"
          % (label, n, P, k, e, ng, groups, group, lds_doubles * 8, o.maxnreg or "-", len(args)), flush=True)
    yg = buffers.get("yG")
    start, stop = cp.cuda.Event(), cp.cuda.Event()
    times = []
    for _ in range(o.reps):
        if yg is not None:
            yg.fill(0)
        start.record()
        fn((groups,), (group,), tuple(call), shared_mem=lds_doubles * 8)
        stop.record()
        stop.synchronize()
        times.append(cp.cuda.get_elapsed_time(start, stop) * 1e3)
    t = float(np.median(times[1:] if len(times) > 1 else times))
    print("median %.1f us (min %.1f), %.2f GDOF/s (N_G / time), %.2f G local nodes/s"
          % (t, min(times), ng / t * 1e-3, e * p3 / t * 1e-3), flush=True)
    print("registers %s, local (spill) bytes %s, static shared %s" % (getattr(fn, "num_regs", "?"),
                                                                      getattr(fn, "local_size_bytes", "?"),
                                                                      getattr(fn, "shared_size_bytes", "?")))


if __name__ == "__main__":
    main()
