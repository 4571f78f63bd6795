"""A happens-before model of the fused kernel's synchronisation (src/kernels/fused.cuh), to check a
change of its rings before it reaches a GPU. CPU only.

    python3 scripts/fused_protocol_model.py [--slots 2] [--raw 2] [--stages 2] [--kq 3] [--blocks 8]

The model follows each role's order of waits, arrivals, reads and writes per block, for the three
forms (1, the pair form: a cluster of two CTAs of one consumer each, two solvers of two halves each;
2, two consumers: one CTA, two solvers of two warps each, whose warps swap partial sums of A and P
through the solver's own Smem::ap_part; 3, the GVA pair: a cluster of two CTAs of two consumers
each, each CTA's v and w loaded into its slot by the forming CTA), over 1 ..
--blocks blocks and every mix of
tensor-core and exact blocks. In the pair form each CTA forms the blocks n with n % 2 = its rank
(its raw stages and staging tiles by its own block count m), with twice the slots and --pair-kq kq
buffers, and copies them into the other CTA: the producer's part once it has stored it, the
solver's once it is complete here; a copy reads its source and writes its destination from
its issue to its completion, which counts on the other CTA's `full` beside that consumer's one
arrival (in the GVA pair the solver's copy on its `solved`, beside the consumers' one arrival
there); the consumers release a slot on the forming CTA's `empty`. The rings are the slots
of factors (full/solved/empty: the producer's part, with one consumer the solver's too; the
solver's, with two; the consumers' release), the raw stages (raw_full, TMA requested `raw` blocks
ahead) and the staging tiles (formed/stage_empty and the vote); the kq buffers ([Kb; Qg], written
by the producer as it forms a block, read by its solver and consumers) have no barrier of their
own. A wait on an mbarrier happens after every arrival of the phase it waits for; a TMA's writes
last from its issue to its completion. It reports:
  - an arrival count that differs from the barrier's init count;
  - a deadlock (a cycle of waits);
  - a parity wait that may pass early (the phase before the awaited one may still be open) or
    whose barrier may complete the next phase before it (the parity would alias);
  - an arrival that may land in the previous phase;
  - a race: an access to a buffer entry not ordered before a later block's write of it, or a read
    not ordered after its own block's write.
It models the protocol, not the code: a change of fused.cuh's order of waits must be made here too.
"""

import argparse
import dataclasses
from collections import defaultdict

PRODUCER_THREADS = CONSUMER_THREADS = 128


@dataclasses.dataclass(frozen=True)
class Protocol:
    slots: int = 2   # slots of factors (full/solved/empty)
    raw: int = 2     # raw stages (raw_full)
    stages: int = 2  # staging tiles (formed/stage_empty/vote)
    kq: int = 3      # [Kb; Qg] buffers
    # Deliberate faults, for the model's own tests:
    raw_lookahead: int = 0               # blocks ahead the raw inputs are requested (0: `raw`, as the kernel)
    producer_waits_slot: bool = True     # the producer's wait for the slot's release before its stores
    producer_waits_stage: bool = True    # its wait for the staging tile's release before it forms
    request_before_exact_read: bool = False  # two consumers: the request before the exact path reads raw
    consumer_waits_solved: bool = True   # two consumers' wait for the solver's part before T and P
    pair_kq: int = 4                     # kq buffers of the pair form (its slots: 2 slots)
    pair_producer_waits_before_kq: bool = True  # the pair form's producer waits for the slot before kq
    pair_solver_waits_full: bool = True  # its solver sends T and P once the block is complete here
    partials_swap_waits: bool = True     # two consumers: the solver warps' barrier between the partials' writes and reads
    partials_per_solver: bool = True     # two consumers: each solver its own partials (Smem::ap_part.v[w])


class Graph:
    def __init__(self):
        self.ops, self.succ, self.threads = [], defaultdict(set), defaultdict(list)

    def node(self, op):
        self.ops.append(op)
        return len(self.ops) - 1

    def edge(self, a, b):
        self.succ[a].add(b)

    def push(self, thread, op):  # op: a new op, or an existing node (a join of several threads)
        n = op if isinstance(op, int) else self.node(op)
        if self.threads[thread]:
            self.edge(self.threads[thread][-1], n)
        self.threads[thread].append(n)
        return n


def build(p, form, blocks, exact_mask):
    """The roles' operations: `blocks` blocks, block n exact where bit n of exact_mask is set; the
    pair form (1: two CTAs of one consumer), one CTA of two consumers (2) or the GVA pair (3: two
    CTAs of two consumers)."""
    g = Graph()
    consumers, ctas = (1, 2) if form == 1 else (2, 1) if form == 2 else (2, 2)
    solver_threads = 128 if consumers == 1 else 64
    split = consumers == 2  # the solver's part of a slot on its own barrier (Roles::kSplitSlot)
    slots, kqs = (2 * p.slots, p.pair_kq) if ctas == 2 else (p.slots, p.kq)
    start = g.node(("init",))
    tma_done = {}
    ahead = p.raw_lookahead or p.raw
    init = {}

    def name(x, c):  # a barrier or buffer of CTA c
        return x if ctas == 1 else f"{x}@{c}"

    for c in range(ctas):
        init.update({name("full", c): PRODUCER_THREADS + (0 if split else solver_threads),
                     name("empty", c): ctas * consumers * CONSUMER_THREADS, name("formed", c): PRODUCER_THREADS,
                     name("stage_empty", c): solver_threads, name("raw_full", c): 1})
        if split:
            init[name("solved", c)] = solver_threads
        if ctas == 2:  # the other CTA's slots: the consumers' arrival and the copies
            init[name("fullin", c)] = 2 if split else 3  # the producer's (with one consumer the solver's too)
            if split:
                init[name("solvedin", c)] = 2  # the solver's

    def issue(thread, c, m, blk):  # the TMA copies of block blk (CTA c's own block m) into raw stage m % raw
        op = ("issue", name("raw_full", c), m % p.raw, blk)
        n = g.push(thread, op) if thread else g.node(op)
        if thread is None:
            g.edge(start, n)
        done = g.node(("tma_done", name("raw_full", c), m % p.raw, blk))
        g.edge(n, done)
        tma_done[blk] = done

    def access(th, kind, buf, idx, blk, field):
        g.push(th, (kind, buf, idx, blk, field))

    def send(th, c, blk, fields, bar="fullin"):  # the pair forms: a copy of block blk's fields from CTA c into the other
        issued = g.push(th, ("send", c, blk))
        done = g.node(("arrive", name(bar, 1 - c), blk % slots, 1, blk))
        for buf, field in fields:
            idx = blk % (kqs if buf == "kq" else slots)
            for cc, kind in ((c, "R"), (1 - c, "W")):
                a = g.node((kind, name(buf, cc), idx, blk, field))
                g.edge(issued, a)
                g.edge(a, done)

    def arrive(th, bar, idx, count, blk):
        g.push(th, ("arrive", bar, idx, count, blk))

    def wait(th, bar, idx, blk):
        g.push(th, ("wait", bar, idx, blk))

    def join(*threads):  # a named barrier among these threads
        n = g.node(("join",))
        for th in threads:
            g.push(th, n)

    own = [[n for n in range(blocks) if n % ctas == c] for c in range(ctas)]  # each CTA's own blocks
    for c in range(ctas):
        for m, blk in enumerate(own[c][:p.raw]):
            issue(None, c, m, blk)
    for c in range(ctas):
        for m, n in enumerate(own[c]):  # the producer
            P, s, sl, r = ("producer", c), m % p.stages, n % slots, m % p.raw
            wait(P, name("raw_full", c), r, n)
            if m >= p.stages and p.producer_waits_stage:
                wait(P, name("stage_empty", c), s, own[c][m - p.stages])
            access(P, "R", name("raw", c), r, n, "raw")
            access(P, "W", name("stage", c), s, n, "tiles")
            slot_wait = n >= slots and p.producer_waits_slot
            if ctas == 2 and slot_wait and p.pair_producer_waits_before_kq:
                wait(P, name("empty", c), sl, n - slots)
            access(P, "W", name("kq", c), n % kqs, n, "rows")
            access(P, "W", name("stage", c), s, n, "vote")
            arrive(P, name("formed", c), s, PRODUCER_THREADS, n)
            if slot_wait and not (ctas == 2 and p.pair_producer_waits_before_kq):
                wait(P, name("empty", c), sl, n - slots)
            fields = ("kend", "d", "wv")  # in the GVA pair "wv" is v and w, loaded by TMA into both CTAs
            for field in fields:
                access(P, "W", name("slot", c), sl, n, field)
            arrive(P, name("full", c), sl, PRODUCER_THREADS, n)
            if ctas == 2:
                send(P, c, n, [("kq", "rows")] + [("slot", f) for f in fields])
    for c in range(ctas):
        for m, n in enumerate(own[c]):
            build_solver(p, g, c, m, n, own[c], consumers, ctas, blocks, exact_mask, slots, kqs, ahead, split, name,
                         issue, access, arrive, wait, join, send)
    for c in range(ctas):
        for ci in range(consumers):
            C = ("consumer", c, ci)
            for n in range(blocks):
                o, sl = n % ctas, n % slots
                if o == c:
                    wait(C, name("full", c), sl, n)  # the first product and w*v
                else:
                    if ci == 0:  # the expected bytes
                        arrive(C, name("fullin", c), sl, 1, n)
                        if split:
                            arrive(C, name("solvedin", c), sl, 1, n)
                    wait(C, name("fullin", c), sl, n)
                access(C, "R", name("kq", c), n % kqs, n, "rows")
                access(C, "R", name("slot", c), sl, n, "wv")
                if split and p.consumer_waits_solved:
                    wait(C, name("solved" if o == c else "solvedin", c), sl, n)
                for field in ("t", "p", "kend", "d"):
                    access(C, "R", name("slot", c), sl, n, field)
                arrive(C, name("empty", o), sl, CONSUMER_THREADS, n)
    for ops in g.threads.values():
        g.edge(start, ops[0])
    return g, init, tma_done


def build_solver(p, g, c, m, n, own, consumers, ctas, blocks, exact_mask, slots, kqs, ahead, split, name, issue, access,
                 arrive, wait, join, send):
    """Solver m % 2 of CTA c on its own block m (block n)."""
    w, s, sl, r, exact = m % 2, m % p.stages, n % slots, m % p.raw, (exact_mask >> n) & 1
    kq, solved = n % kqs, name("solved" if split else "full", c)

    def wait_slot(th):
        if n >= slots:
            wait(th, name("empty", c), sl, n - slots)

    def request(th):
        if m + ahead < len(own):
            issue(th, c, m + ahead, own[m + ahead])

    if consumers == 1:  # warps 0-1 (A, then T) and warps 2-3 (P, the request)
        A, B = ("solver", c, w, "A"), ("solver", c, w, "B")
        for th in (A, B):
            wait(th, name("formed", c), s, n)
            access(th, "R", name("stage", c), s, n, "vote")
        if not exact:
            for th in (A, B):
                access(th, "R", name("stage", c), s, n, "tiles")
                access(th, "R", name("kq", c), kq, n, "rows")
            wait_slot(B)
            access(B, "W", name("slot", c), sl, n, "p")
        else:
            wait_slot(A)
            wait_slot(B)
            join(A, B)
            for th in (A, B):
                access(th, "R", name("raw", c), r, n, "raw")
                access(th, "W", name("slot", c), sl, n, "p")
            join(A, B)
        arrive(A, name("stage_empty", c), s, 64, n)
        wait_slot(A)
        access(A, "W", name("slot", c), sl, n, "t")
        request(B)
        arrive(B, name("stage_empty", c), s, 64, n)
        for th in (A, B):
            wait_slot(th)
            arrive(th, solved, sl, 64, n)
        # T and P into the other CTA (one consumer: the pair form)
        if p.pair_solver_waits_full:
            wait(A, name("full", c), sl, n)
        send(A, c, n, [("slot", "t"), ("slot", "p")])
    else:  # two warps h: A and P over half the key channels each, the partials' swap, the staging's release, T
        S = [("solver", c, w, h) for h in (0, 1)]
        part = name("partials", c), (w if p.partials_per_solver else 0)
        for th in S:
            wait(th, name("formed", c), s, n)
            access(th, "R", name("stage", c), s, n, "vote")
        if not exact:
            request(S[0])
            for h, th in enumerate(S):
                access(th, "R", name("stage", c), s, n, "tiles")
                access(th, "R", name("kq", c), kq, n, "rows")
                access(th, "W", *part, n, f"warp {h}")
            if p.partials_swap_waits:
                join(*S)
            for h, th in enumerate(S):
                access(th, "R", *part, n, f"warp {1 - h}")
                wait_slot(th)
                access(th, "W", name("slot", c), sl, n, "p")
        else:
            for th in S:
                wait_slot(th)
            join(*S)
            if p.request_before_exact_read:
                request(S[0])
            for th in S:
                access(th, "R", name("raw", c), r, n, "raw")
                access(th, "W", name("slot", c), sl, n, "p")
            join(*S)
            if not p.request_before_exact_read:
                request(S[0])
        for th in S:
            arrive(th, name("stage_empty", c), s, 32, n)
        for th in S:  # the inverse: each warp's part of T, one barrier of the two
            wait_slot(th)
            access(th, "W", name("slot", c), sl, n, "t")
        join(*S)
        for th in S:
            arrive(th, solved, sl, 32, n)
        if ctas == 2:  # T and P into the other CTA (the GVA pair), counted on its `solved`
            if p.pair_solver_waits_full:
                wait(S[0], solved, sl, n)
            send(S[0], c, n, [("slot", "t"), ("slot", "p")], "solvedin")


def check(p, form, blocks, exact_mask):
    """The faults of one configuration (an empty list where there are none)."""
    return check_graph(*build(p, form, blocks, exact_mask))


def check_graph(g, init, tma_done):
    """The faults of a built graph (Graph: every thread's ops in order; init: each barrier's arrival
    count; tma_done: the completion node of each block's raw-stage copy). Ops: ("arrive", barrier,
    index, count, block), ("wait", barrier, index, block), ("R" or "W", buffer, index, block,
    field), ("issue", raw barrier, index, block) and others that only order (joins, copies). Also
    used by scripts/state_pass_protocol_model.py."""
    ops, errors = g.ops, []
    arrivals, waits = defaultdict(list), []
    for i, op in enumerate(ops):
        if op[0] == "arrive":
            arrivals[(op[1], op[2], op[4])].append(i)
        elif op[0] == "issue":
            arrivals[(op[1], op[2], op[3])].append(i)
        elif op[0] == "wait":
            waits.append(i)
    completion = {}  # (barrier, index, block) -> the nodes after which its phase is complete
    for key, nodes in arrivals.items():
        if key[0].startswith("raw_full"):
            completion[key], total = [tma_done[key[2]]], 1
        else:
            completion[key], total = nodes, sum(ops[x][3] for x in nodes)
        if total != init[key[0]]:
            errors.append(f"arrivals on {key}: {total}, init {init[key[0]]}")
    for w in waits:
        key = ops[w][1:]
        if key not in completion:
            errors.append(f"a wait for a phase without arrivals: {ops[w]}")
            continue
        for a in completion[key]:
            g.edge(a, w)
    indegree = [0] * len(ops)
    for a in range(len(ops)):
        for b in g.succ[a]:
            indegree[b] += 1
    order = [i for i in range(len(ops)) if indegree[i] == 0]
    for a in order:  # grows while iterated: a topological order
        for b in g.succ[a]:
            indegree[b] -= 1
            if indegree[b] == 0:
                order.append(b)
    if len(order) < len(ops):
        stuck = [ops[i] for i in range(len(ops)) if indegree[i] > 0][:6]
        return errors + [f"deadlock: {stuck}"]
    reach = [0] * len(ops)
    for a in reversed(order):
        r = 1 << a
        for b in g.succ[a]:
            r |= reach[b]
        reach[a] = r

    def before(a, b):
        return a != b and (reach[a] >> b) & 1

    phases = defaultdict(list)  # (barrier, index) -> its phases' blocks in order
    for bar, idx, blk in completion:
        phases[(bar, idx)].append(blk)
    for blks in phases.values():
        blks.sort()
    for (bar, idx), blks in phases.items():
        for prev, blk in zip(blks, blks[1:]):
            if any(not before(c, a) for a in arrivals[(bar, idx, blk)] for c in completion[(bar, idx, prev)]):
                errors.append(f"an arrival for block {blk} may land in block {prev}'s phase of {bar}[{idx}]")
    for w in waits:
        bar, idx, blk = ops[w][1:]
        if (bar, idx, blk) not in completion:
            continue  # reported above: it would never pass
        blks = phases[(bar, idx)]
        i = blks.index(blk)
        if i > 0 and any(not before(c, w) for c in completion[(bar, idx, blks[i - 1])]):
            errors.append(f"{ops[w]} may pass before block {blks[i - 1]}'s phase completes")
        if i + 1 < len(blks) and not any(before(w, a) for a in arrivals[(bar, idx, blks[i + 1])]):
            errors.append(f"{bar}[{idx}] may complete block {blks[i + 1]}'s phase before {ops[w]}")
    accesses = defaultdict(list)  # (buffer, index, field) -> (node, kind, block)
    for i, op in enumerate(ops):
        if op[0] in ("R", "W"):
            accesses[(op[1], op[2], op[4])].append((i, op[0], op[3]))
        elif op[0] == "issue":
            accesses[(op[1].replace("raw_full", "raw"), op[2], "raw")] += [(i, "W", op[3]), (tma_done[op[3]], "W done", op[3])]
    for key, items in accesses.items():
        for i, ki, bi in items:
            for j, kj, bj in items:
                if bi < bj and kj == "W" and not before(i, j):
                    errors.append(f"race on {key}: {ki} of block {bi} and the write of block {bj}")
                elif bi == bj and ki == "R" and kj != "R" and not before(j, i):
                    errors.append(f"race on {key}: block {bi} read before its write")
    return sorted(set(errors))


def sweep(p, max_blocks=8, forms=(1, 2, 3)):
    """(configurations, the first faulty one with its faults or None) over the forms (build), 1..max_blocks
    blocks and every exact mask."""
    count, first = 0, None
    for form in forms:
        for blocks in range(1, max_blocks + 1):
            for mask in range(1 << blocks):
                count += 1
                faults = check(p, form, blocks, mask)
                if faults and first is None:
                    first = (form, blocks, mask, faults[:4])
    return count, first


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--slots", type=int, default=2)
    ap.add_argument("--raw", type=int, default=2)
    ap.add_argument("--stages", type=int, default=2)
    ap.add_argument("--kq", type=int, default=3)
    ap.add_argument("--blocks", type=int, default=8)
    a = ap.parse_args()
    p = Protocol(slots=a.slots, raw=a.raw, stages=a.stages, kq=a.kq)
    count, first = sweep(p, a.blocks)
    print(f"{p}: {count} configurations, " + ("no fault" if first is None else f"fault: {first}"))
    return 0 if first is None else 1


if __name__ == "__main__":
    raise SystemExit(main())
