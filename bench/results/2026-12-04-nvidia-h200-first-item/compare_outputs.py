"""Experiment: whether two dumps of dump_outputs.py are bit for bit equal."""
import sys
import torch
a, b = torch.load(sys.argv[1]), torch.load(sys.argv[2])
ok = True
for name in a:
    for i, what in enumerate(("o", "ht")):
        x, y = a[name][i], b[name][i]
        same = torch.equal(x.view(torch.int16) if x.dtype == torch.bfloat16 else x.view(torch.int32),
                           y.view(torch.int16) if y.dtype == torch.bfloat16 else y.view(torch.int32))
        diff = (x.double() - y.double()).abs().max().item()
        print(f"{name:8s} {what:3s} bit-identical={same} max|diff|={diff:.3e}")
        ok = ok and same
print("ALL BIT-IDENTICAL" if ok else "DIFFERENT")
