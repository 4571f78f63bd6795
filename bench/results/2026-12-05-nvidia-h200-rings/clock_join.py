"""Joins clock_cases.json with nvidia-smi's samples (smi.csv: timestamp, clocks.sm, clocks.mem, power.draw,
temperature.gpu, clocks_event_reasons.active)."""
import csv, datetime, json, statistics, sys
cases = json.load(open(sys.argv[1]))
samples = []
for r in csv.reader(open(sys.argv[2])):
    if not r or r[0].startswith("timestamp"): continue
    ts = datetime.datetime.strptime(r[0].strip(), "%Y/%m/%d %H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
    def num(x):
        try: return float(x.strip().split()[0])
        except Exception: return float("nan")
    samples.append((ts, num(r[1]), num(r[2]), num(r[3]), num(r[4]), r[5].strip() if len(r) > 5 else ""))
off = float(sys.argv[3]) if len(sys.argv) > 3 else 0.0  # nvidia-smi local time minus UTC, seconds
for c in cases:
    t0, t1 = c["t0"] / 1e9 + 0.3, c["t1"] / 1e9  # skip the first 0.3 s
    s = [x for x in samples if t0 <= x[0] - off <= t1]
    if not s:
        print(c["case"], "no samples"); continue
    reasons = sorted(set(x[5] for x in s))
    print(f'{c["case"]}: {c["us_per_call"]:.1f} us/call (first fifth {c["first_s_us"]:.1f}, last {c["last_s_us"]:.1f}); '
          f'{len(s)} samples: SM clock median {statistics.median(x[1] for x in s):.0f} MHz (min {min(x[1] for x in s):.0f}, '
          f'max {max(x[1] for x in s):.0f}), mem {statistics.median(x[2] for x in s):.0f} MHz, power median '
          f'{statistics.median(x[3] for x in s):.0f} W (max {max(x[3] for x in s):.0f}), temp {max(x[4] for x in s):.0f} C, reasons {reasons}')
