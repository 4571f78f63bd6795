#!/usr/bin/env python3
"""Builds cuLA's GDN2 prefill kernel (cuLA PR #113, CuTe DSL) ahead of time, for bench.py --cula.

    python3 bench/cula_export.py --cula-src CULA_CHECKOUT --out DIR

cuLA compiles its kernel on the first call of each specialisation (tens of seconds each, in
`cula/ops/gdn2/sm90/prefill.py`). This script runs the same `cute.compile` on this machine (no GPU
needed: CUTE_DSL_ARCH=sm_90a) with CuTe DSL's TVM-FFI ahead-of-time export, and links all 19
specialisations (about 5 s each here) into one shared library, DIR/libcula_gdn2.so, with a
manifest DIR/cula_gdn2.json. On the GPU machine bench.py loads it with `tvm_ffi.load_module` and
needs only apache-tvm-ffi there (no CuTe DSL, no compilation inside the benchmark).

Each specialisation is cuLA's own compile key, `(Hv, has_initial_state, output_final_state,
use_n1_hv16_v64, retain_final_tail)`; bench.py derives a row's key from its shape with
`compile_key` below, as cuLA's `_compile` does. Each is compiled with the tensors cuLA passes (mode 0 dynamic, the others static,
16-byte aligned; `q` stands in for an absent initial state and the two factor capsules, `output`
for an absent final state). The stream is the caller's current stream (TVM-FFI's environment
stream: bench.py calls inside `tvm_ffi.use_torch_stream()`).

Needs: nvidia-cutlass-dsl in cuLA's range (>= 4.5.1, < 4.7), apache-tvm-ffi, a C++ compiler and
the CUDA toolkit's static runtime (`--cuda-lib`, default /usr/local/cuda/lib64). cuLA's source is
not part of this repository: pass a checkout of the PR with --cula-src.
"""

import argparse
import json
import os
import subprocess
import sys
import time
from pathlib import Path

os.environ.setdefault("CUTE_DSL_ARCH", "sm_90a")

REPO = Path(__file__).resolve().parents[1]
HEAD_DIM = 128
QUERY_HEADS = 16  # cuLA's contract: Hq = 16, Hv in {16, 32, 64}, N <= 32, g in [-5, 0]
VALUE_HEADS = (16, 32, 64)
MAX_SEQUENCES = 32


def compile_key(tokens, sequences, hv, initial_state, final_state):
    """cuLA's specialisation of a call (cula/ops/gdn2/sm90/prefill.py, _compile)."""
    v64 = sequences == 1 and hv == 16 and initial_state and final_state and tokens > 64
    tail = final_state and not (sequences == 1 and tokens <= 64)
    return (hv, bool(initial_state), bool(final_state), v64, tail)


def function_name(key):
    hv, h0, final, v64, tail = key
    return f"cula_gdn2_hv{hv}_h{int(h0)}_f{int(final)}_v{64 if v64 else 128}_t{int(tail)}"


def in_contract(hq, hv, sequences):
    return hq == QUERY_HEADS and hv in VALUE_HEADS and 1 <= sequences <= MAX_SEQUENCES


def every_key():
    """cuLA's 19 specialisations: per Hv, the four state modes, with and without the retained
    final tail where a final state is stored, and the V64 route of Hv = 16."""
    keys = []
    for hv in VALUE_HEADS:
        for h0 in (False, True):
            for final in (False, True):
                for tokens, n in ((64, 1), (65, 1), (1024, 2)):
                    key = compile_key(tokens, n, hv, h0, final)
                    if key not in keys:
                        keys.append(key)
    return keys


def export(key, cula_src, out_dir):
    """Compiles one specialisation and writes its object file; returns its path."""
    import cutlass
    import cutlass.cute as cute
    from cutlass.cute.runtime import make_fake_compact_tensor, make_fake_stream

    if str(cula_src) not in sys.path:
        sys.path.insert(0, str(cula_src))
    from cula.ops.gdn2.sm90.prefill_kernel import GDN2PrefillKernel

    hv, h0, final, v64, tail = key

    def tensor(dtype, *static):  # mode 0 dynamic (tokens or sequences), row-major, 16-byte aligned
        shape = (cute.sym_int(),) + static
        return make_fake_compact_tensor(dtype, shape, stride_order=tuple(range(len(shape) - 1, -1, -1)),
                                        assumed_align=16)

    bf16, f32 = cutlass.BFloat16, cutlass.Float32
    q = tensor(bf16, QUERY_HEADS, HEAD_DIM)
    k = tensor(bf16, QUERY_HEADS, HEAD_DIM)
    v = tensor(bf16, hv, HEAD_DIM)
    b = tensor(bf16, QUERY_HEADS, HEAD_DIM)
    w = tensor(bf16, hv, HEAD_DIM)
    cu = tensor(cutlass.Int64)
    g = tensor(f32, QUERY_HEADS, HEAD_DIM)
    capsule_aqk = tensor(bf16, QUERY_HEADS, HEAD_DIM)
    capsule_akk = tensor(bf16, QUERY_HEADS, HEAD_DIM)
    h0_t = tensor(f32, hv, HEAD_DIM, HEAD_DIM) if h0 else tensor(bf16, QUERY_HEADS, HEAD_DIM)
    out = tensor(bf16, hv, HEAD_DIM)
    ht = tensor(f32, hv, HEAD_DIM, HEAD_DIM) if final else tensor(bf16, hv, HEAD_DIM)
    kernel = GDN2PrefillKernel(has_initial_state=h0, store_final_state=final,
                               value_tile=64 if v64 else 128, single_state_owner=v64,
                               retain_final_tail=tail)
    compiled = cute.compile(kernel, q, k, v, b, w, cu, g, capsule_aqk, capsule_akk, h0_t, out, ht,
                            cutlass.Int32(1), cutlass.Int32(QUERY_HEADS), cutlass.Int32(hv),
                            cutlass.Int32(1), cutlass.Float32(HEAD_DIM ** -0.5),
                            make_fake_stream(use_tvm_ffi_env_stream=True),
                            options="--enable-tvm-ffi")
    obj = out_dir / f"{function_name(key)}.o"
    compiled.export_to_c(str(obj), function_name=function_name(key))
    return obj


def link(objects, out_dir, cuda_lib):
    import tvm_ffi
    import nvidia_cutlass_dsl
    dsl = Path(nvidia_cutlass_dsl.__path__[0])
    runtime = next(dsl.glob("cu*/lib/libcuda_dialect_runtime_static.a"))
    ffi_lib = Path(tvm_ffi.__file__).parent / "lib"
    lib = out_dir / "libcula_gdn2.so"
    cmd = (["g++", "-shared", "-o", str(lib)] + [str(o) for o in objects]
           + ["-Wl,--whole-archive", str(runtime), "-Wl,--no-whole-archive",
              f"-L{ffi_lib}", "-ltvm_ffi", f"-L{cuda_lib}", "-lcudart_static", "-ldl", "-lpthread", "-lrt"])
    subprocess.run(cmd, check=True)
    return lib


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cula-src", type=Path, required=True, help="a checkout of cuLA at PR #113")
    p.add_argument("--out", type=Path, required=True, help="output folder")
    p.add_argument("--cuda-lib", default="/usr/local/cuda/lib64")
    args = p.parse_args()
    if not (args.cula_src / "cula" / "ops" / "gdn2" / "sm90" / "prefill_kernel.py").is_file():
        p.error(f"--cula-src: no cula/ops/gdn2/sm90/prefill_kernel.py under {args.cula_src}")
    args.out.mkdir(parents=True, exist_ok=True)
    objects, manifest = [], []
    for key in every_key():
        t0 = time.time()
        objects.append(export(key, args.cula_src, args.out))
        manifest.append({"function": function_name(key), "hv": key[0], "initial_state": key[1],
                         "final_state": key[2], "value_tile": 64 if key[3] else 128,
                         "retain_final_tail": key[4], "compile_s": round(time.time() - t0, 1)})
        print(f"{function_name(key)}: {manifest[-1]['compile_s']} s", flush=True)
    lib = link(objects, args.out, args.cuda_lib)
    import cutlass
    info = {"library": lib.name, "cutlass_dsl": cutlass.__version__, "arch": os.environ["CUTE_DSL_ARCH"],
            "cula_src": str(args.cula_src), "functions": manifest}
    (args.out / "cula_gdn2.json").write_text(json.dumps(info, indent=1) + "\n")
    print(f"wrote {lib} and {args.out / 'cula_gdn2.json'}")


if __name__ == "__main__":
    main()
