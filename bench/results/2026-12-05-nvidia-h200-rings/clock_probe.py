"""SM clock and power while a row runs back to back (CUDA-graph replays for ~2.5 s per case), sampled by
nvidia-smi every 50 ms (started by the caller: smi.csv). Prints each case's window (unix ns) and median
graph time per call; a post-step joins them with the samples."""
import json, os, statistics, sys, time
sys.path.insert(0, "bench"); sys.path.insert(0, "python")
import torch, gdn2
from gdn2 import testing
from bench import scale_rows
rows = {r.name: r for r in list(testing.CANONICAL_ROWS) + list(scale_rows(testing.Row, testing.random_lengths))}
cases = [("B8x2K-MHA", "fused"), ("N64-MIXED-MHA", "fused"), ("S2-MHA-T1024", "fused"), ("B8x2K-MHA", "auto"),
         ("S2-MHA-T1024", "auto"), ("copy", None), ("B8x2K-MHA", "fused")]
out = []
for name, alg in cases:
    if name == "copy":
        src = torch.empty(2 << 30, dtype=torch.uint8, device="cuda"); dst = torch.empty_like(src)
        fn = lambda: dst.copy_(src)
    else:
        row = rows[name]
        inp = testing.row_inputs(row, gen_device="cuda")
        fn = lambda: gdn2.chunk_gdn2(inp["q"], inp["k"], inp["v"], inp["g"], inp["b"], inp["w"], cu_seqlens=inp["cu_seqlens"],
                                     initial_state=inp["initial_state"], output_final_state=row.final_state, algorithm=alg)
    graph, _ = testing.capture_graph(fn, 10)
    graph.replay(); torch.cuda.synchronize()
    time.sleep(0.3)
    t0 = time.time_ns(); times = []
    while time.time_ns() - t0 < 2.5e9:
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); graph.replay(); b.record(); b.synchronize()
        times.append(a.elapsed_time(b) / 10 * 1e3)
    t1 = time.time_ns()
    line = {"case": f"{name}/{alg}", "t0": t0, "t1": t1, "us_per_call": statistics.median(times),
            "first_s_us": statistics.median(times[:max(1, len(times) // 5)]), "last_s_us": statistics.median(times[-max(1, len(times) // 5):])}
    out.append(line); print(json.dumps(line), flush=True)
    del graph
    time.sleep(0.5)
json.dump(out, open(os.path.join(os.environ.get("OUT", "/tmp"), "clock_cases.json"), "w"), indent=1)
