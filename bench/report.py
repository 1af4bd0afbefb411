#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-only
"""Turns bench/run.sh's raw.jsonl into results.md, results.json and a plot.

Every number printed comes from raw.jsonl; ratios are taken between
variants measured in the same run (real traffic: in the same round).
"""
import json
import os
import platform
import shutil
import statistics
import subprocess
import sys
from collections import defaultdict


def q(xs, p):
    xs = sorted(xs)
    if not xs:
        return float("nan")
    k = (len(xs) - 1) * p
    lo = int(k)
    hi = min(lo + 1, len(xs) - 1)
    return xs[lo] + (xs[hi] - xs[lo]) * (k - lo)


def summ(xs):
    return {"median": q(xs, 0.5), "p25": q(xs, 0.25), "p75": q(xs, 0.75),
            "min": min(xs), "max": max(xs), "count": len(xs)}


def sh(cmd, cwd=None):
    try:
        return subprocess.run(cmd, cwd=cwd, capture_output=True, text=True,
                              check=True).stdout.strip()
    except (OSError, subprocess.CalledProcessError):
        return ""


def machine(src):
    cpu = ""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    debian = ""
    try:
        with open("/etc/debian_version") as f:
            debian = f.read().strip()
    except OSError:
        pass
    return {"cpu": cpu, "nproc": os.cpu_count(), "kernel": platform.release(),
            "debian": debian,
            "commit": os.environ.get("BENCH_COMMIT") or
            sh(["git", "rev-parse", "--short", "HEAD"], src),
            "dirty": bool(sh(["git", "status", "--porcelain", "--",
                              "xdp_tc", "maps", "loader", "cli"], src))}


def fmt(x, d=1):
    return "-" if x is None or x != x else f"{x:.{d}f}"


def main():
    out, src = sys.argv[1], sys.argv[2]
    rows = []
    with open(os.path.join(out, "raw.jsonl")) as f:
        rows = [json.loads(line) for line in f if line.strip()]
    by = defaultdict(list)
    for r in rows:
        by[r["part"]].append(r)
    res = {"machine": machine(src), "meta": (by["meta"] or [{}])[-1]}
    md = ["# classifier benchmarks", ""]
    m = res["machine"]
    md += [f"Machine: {m['cpu']}, {m['nproc']} CPUs, kernel {m['kernel']}, "
           f"Debian {m['debian']}; commit {m['commit']}"
           f"{' (data path modified)' if m['dirty'] else ''}; mode "
           f"{res['meta'].get('mode')}, {res['meta'].get('wall_s')} s.", ""]
    if os.environ.get("BENCH_NOTE"):  # how the run was made, by whoever ran it
        md[-1:-1] = ["", os.environ["BENCH_NOTE"]]
    targets = []

    # 1. program cost
    prog = defaultdict(list)
    for r in by["prog"]:
        prog[(r["family"], r["n"], r["case"])].append(r)
    pres = []
    fams = sorted({k[0] for k in prog})
    ns_ = sorted({k[1] for k in prog})
    cases = ["empty", "bare_hot", "full_hot", "full_hot_nostats",
             "bare_miss", "full_miss", "spread_floor", "spread_bare",
             "spread_full"]
    if prog:
        md += ["## 1. Program cost (BPF_PROG_TEST_RUN, ns per run, kernel-"
               "reported)", "",
               "median [min-max] over interleaved rounds. *spread*: a wrapper"
               " writes the next of 65536 destinations into the packet and "
               "tail-calls the program; *spread_floor* is the wrapper with an"
               " empty program, so spread_full - spread_floor is the classify"
               " cost with cold caches.", ""]
        md += ["| family | N | " + " | ".join(cases) + " | full/bare hot |",
               "|" + "---|" * (len(cases) + 3)]
        for fam in fams:
            for n in ns_:
                cells = []
                for c in cases:
                    xs = [r["ns"] for r in prog[(fam, n, c)]]
                    if xs:
                        s = summ(xs)
                        pres.append({"family": fam, "n": n, "case": c, **s})
                        cells.append(f"{fmt(s['median'], 0)} "
                                     f"[{s['min']}-{s['max']}]")
                    else:
                        cells.append("-")
                # paired by round: same round, same table
                full = {r["round"]: r["ns"] for r in prog[(fam, n, "full_hot")]}
                bare = {r["round"]: r["ns"] for r in prog[(fam, n, "bare_hot")]}
                rat = [full[k] / bare[k] for k in full if k in bare and bare[k]]
                ratio = q(rat, 0.5) if rat else float("nan")
                cells.append(fmt(ratio, 3))
                md.append(f"| {fam} | {n} | " + " | ".join(cells) + " |")
                if n == max(ns_) and rat:
                    targets.append({
                        "target": f"program cost {fam} N={n} hot: full "
                                  "classify within 10 % of bare LPM lookup",
                        "value": f"full/bare = {ratio:.3f} (median of per-"
                                 "round ratios)",
                        "met": ratio <= 1.10})
        md.append("")
    res["prog"] = pres
    fills = by["fill"]
    probe = (by["probe"] or [{}])[0]
    res["probe"] = probe
    res["fill"] = fills

    # 3. loading
    load = defaultdict(list)
    for r in by["load"]:
        load[(r["tool"], r["n"])].append(r)
    lres = []
    if load:
        md += ["## 3. Loading", "",
               f"BPF_MAP_UPDATE_BATCH on an LPM trie on this kernel: "
               f"**{probe.get('lpm_update_batch', '?')}** (so `route load` "
               "takes the batch path: 8192 prefixes per syscall; the kernel "
               "still inserts them one by one).  Reference: one "
               "bpf_map_update_elem syscall per prefix (progbench's fill "
               "loop) costs " + ", ".join(
                   f"{f['family']} N={f['n']}: {f['ns_per_prefix']:.0f} ns"
                   for f in fills if f["n"] >= 100000) + "; the same "
               "prefixes through BPF_MAP_UPDATE_BATCH, 8192 per call: " +
               ", ".join(
                   f"{f['family']} N={f['n']}: "
                   f"{f.get('batch_ns_per_prefix', float('nan')):.0f} ns"
                   for f in fills if f["n"] >= 100000) + " per prefix. "
               "`route_load_sorted`/`batch_route_add` use a file in `route "
               "list` order (address order, classes interleaved); "
               "`route_load` the same prefixes grouped by class, so "
               "unordered (the loader sorts them).", "",
               "| tool | N | intervals | reps | time s (median) | min-max s |"
               " prefixes/s | slab growth MB | bytes/prefix (slab) |",
               "|---|---|---|---|---|---|---|---|---|"]
        for (tool, n), rs in sorted(load.items(), key=lambda x: (x[0][1],
                                                                  x[0][0])):
            s = summ([r["ns"] / 1e9 for r in rs])
            slab = statistics.median([r["slab_kb"] for r in rs])
            vm = statistics.median([r["vmalloc_kb"] for r in rs])
            lres.append({"tool": tool, "n": n, "seconds": s,
                         "slab_kb_median": slab, "vmalloc_kb_median": vm,
                         "intervals": rs[0].get("intervals")})
            md.append(f"| {tool} | {n} | {rs[0].get('intervals', '-')} | "
                      f"{len(rs)} | "
                      f"{s['median']:.3f} | {s['min']:.3f}-{s['max']:.3f} | "
                      f"{n / s['median']:.0f} | {slab / 1024:.1f} | "
                      f"{slab * 1024 / n:.0f} |")
        md += ["", "Memory: growth of /proc/meminfo Slab across the load "
               "(machine-wide, so other activity adds noise; VmallocUsed "
               "growth: " + ", ".join(
                   f"{x['tool']} N={x['n']}: {x['vmalloc_kb_median']} kB"
                   for x in lres) + ").", ""]
        fillmap = {(f["family"], f["n"]): f["ns_per_prefix"] for f in fills}
        bfill = {(f["family"], f["n"]): f.get("batch_ns_per_prefix")
                 for f in fills}
        for x in lres:
            if x["tool"] == "route_load" and x["n"] >= 1000000:
                ref = fillmap.get(("v4", 1000000))
                if ref:
                    lim = ref * x["n"] / 1e9
                    targets.append({
                        "target": "load 1M prefixes faster than one syscall"
                                  " per prefix",
                        "value": f"route load {x['seconds']['median']:.2f} s"
                                 f" vs {lim:.2f} s for 1M single-element "
                                 "updates (trie insert only, no parsing); "
                                 "batch fill alone "
                                 f"{(bfill.get(('v4', 1000000)) or 0) * x['n'] / 1e9:.2f} s",
                        "met": x["seconds"]["median"] < lim})
    res["load"] = lres

    # 2. real packets
    real = defaultdict(dict)  # (n, dests, round) -> variant -> row
    for r in by["real"]:
        real[(r["n"], r["dests"], r["round"])][r["variant"]] = r
    rres = []
    cost = defaultdict(list)
    absv = defaultdict(list)
    for (n, d, rnd), vs in real.items():
        base = vs.get("none")
        for v, r in vs.items():
            if not r["packets"]:
                continue
            c = r["cpu_ns"] / r["packets"]
            absv[(v, n, d)].append(c)
            if base and base["packets"] and v != "none":
                cost[(v, n, d)].append(c - base["cpu_ns"] / base["packets"])
    variants = ["cls", "cls_nostats", "cls_trie", "u32", "nft"]
    if real:
        md += ["## 2. Real packets (veth + HTB, UDP sendmmsg, sender CPU "
               "time per packet)", "",
               "Cost = sender CPU ns/packet minus the no-classifier run of "
               "the same round; median [p25-p75] over rounds. Base = no "
               "classifier, absolute ns/packet. cls: `classifier table on` "
               "(the default, auto, would leave N < 1024 to the trie); "
               "cls_trie: a second classifier with `classifier "
               "table off` (trie only).", ""]
        ds = sorted({k[1] for k in real})
        ns2 = sorted({k[0] for k in real})
        md += ["| N | dests | base ns/pkt | " + " | ".join(variants) +
               " | cls/nft |", "|" + "---|" * (len(variants) + 4)]
        for d in ds:
            for n in ns2:
                b = absv.get(("none", n, d), [])
                cells = [fmt(q(b, 0.5)) if b else "-"]
                for v in variants:
                    xs = cost.get((v, n, d))
                    if xs:
                        s = summ(xs)
                        rres.append({"variant": v, "n": n, "dests": d,
                                     "cost_ns": s,
                                     "abs_ns": summ(absv[(v, n, d)])})
                        cells.append(f"{fmt(s['median'])} "
                                     f"[{fmt(s['p25'])}-{fmt(s['p75'])}]")
                    else:
                        cells.append("-")
                cm = q(cost.get(("cls", n, d), []), 0.5)
                nm = q(cost.get(("nft", n, d), []), 0.5)
                ratio = cm / nm if nm and nm == nm and nm > 0 else float("nan")
                cells.append(fmt(ratio, 2))
                md.append(f"| {n} | {d} | " + " | ".join(cells) + " |")
                if n >= 100 and ratio == ratio:
                    targets.append({
                        "target": f"real traffic N={n}, {d} dests: classifier"
                                  " cost <= 1/2 nftables",
                        "value": f"cls {cm:.1f} ns, nft {nm:.1f} ns, "
                                 f"ratio {ratio:.2f}",
                        "met": ratio <= 0.5})
        c10 = q(cost.get(("cls", min(ns2), 16), []), 0.5)
        cbig = q(cost.get(("cls", max(ns2), 16), []), 0.5)
        iq10 = cost.get(("cls", min(ns2), 16), [])
        noisy = c10 == c10 and iq10 and (c10 <= 0 or q(iq10, 0.25) <= 0)
        if max(ns2) >= 100000 and c10 == c10 and noisy:
            targets.append({
                "target": "real traffic, 16 dests: classifier at N=100k <= "
                          "1.5x its N=10 cost",
                "value": f"undecidable from sender CPU time: N={min(ns2)} "
                         f"cost {c10:.1f} ns, IQR reaches <= 0 (below the "
                         f"noise); N={max(ns2)}: {cbig:.1f} ns",
                "met": None})
        elif max(ns2) >= 100000 and c10 == c10:
            targets.append({
                "target": "real traffic, 16 dests: classifier at N=100k <= "
                          "1.5x its N=10 cost",
                "value": f"N={min(ns2)}: {c10:.1f} ns, N={max(ns2)}: "
                         f"{cbig:.1f} ns (x{cbig / c10 if c10 > 0 else float('nan'):.2f})",
                "met": c10 > 0 and cbig <= 1.5 * c10})
        md.append("")
        ks = by["kstats"]
        kper = {(r["n"], r["dests"]): r["prog_run_time_ns"] /
                r["prog_run_cnt"] for r in ks
                if r["prog_run_cnt"] and r.get("variant", "cls") == "cls"}
        lo, hi = kper.get((min(ns2), 16)), kper.get((max(ns2), 16))
        if lo and hi and max(ns2) >= 100000:
            targets.append({
                "target": "same, by the kernel's run_time_ns/run_cnt of "
                          "the classifier (one run each, stats held)",
                "value": f"N={min(ns2)}: {lo:.1f} ns, N={max(ns2)}: "
                         f"{hi:.1f} ns (x{hi / lo:.2f})",
                "met": hi <= 1.5 * lo})
        if ks:
            md += ["Kernel's own accounting (BPF_ENABLE_STATS held during "
                   "one extra classifier run; run_time_ns / run_cnt):", "",
                   "| variant | N | dests | run_cnt | ns/run |",
                   "|---|---|---|---|---|"]
            for r in sorted(ks, key=lambda r: (r["dests"], r["n"],
                                               r.get("variant", "cls"))):
                per = (r["prog_run_time_ns"] / r["prog_run_cnt"]
                       if r["prog_run_cnt"] else float("nan"))
                md.append(f"| {r.get('variant', 'cls')} | {r['n']} | "
                          f"{r['dests']} | {r['prog_run_cnt']}"
                          f" | {fmt(per)} |")
            md.append("")
        st = by["setup"]
        if st:
            md += ["Setup time of each contender (s): " + "; ".join(
                f"{r['variant']} N={r['n']}: {r['ns'] / 1e9:.2f}"
                for r in st), ""]
    res["real"] = rres
    res["kstats"] = by["kstats"]
    res["setup"] = by["setup"]

    # 4. counters
    cnt = defaultdict(list)
    for r in by["counters"]:
        cnt[r["op"]].append(r["ns"] / 1e6)
    if cnt:
        md += ["## 4. Counters", "", "| operation | median ms | min-max ms |"
               " n |", "|---|---|---|---|"]
        for op, xs in cnt.items():
            s = summ(xs)
            md.append(f"| {op} | {s['median']:.3f} | {s['min']:.3f}-"
                      f"{s['max']:.3f} | {s['count']} |")
        md += ["", "CLI timings include fork/exec; `true_exec` (classifier "
               "--version) is that floor. Per-packet cost of counters: "
               "full_hot vs full_hot_nostats in section 1, cls vs "
               "cls_nostats in section 2.", ""]
    res["counters"] = {k: summ(v) for k, v in cnt.items()}

    tres = table_section(by, md, targets, res)
    table6_section(by, md, targets, res)

    if targets:
        md += ["## Targets", "", "| target | measured | met |",
               "|---|---|---|"]
        for t in targets:
            md.append(f"| {t['target']} | {t['value']} | "
                      f"{'-' if t['met'] is None else 'yes' if t['met'] else '**no**'} |")
        md.append("")
    res["targets"] = targets

    with open(os.path.join(out, "results.json"), "w") as f:
        json.dump(res, f, indent=1)
    with open(os.path.join(out, "results.md"), "w") as f:
        f.write("\n".join(md))
    plot(out, rres, pres, tres)
    print("\n".join(md))


WIDE_ROUTES = 500000  # maps/table6.c
T6HOT = ["empty", "v4_table_hot", "v4_table_inner_hot", "trie_hot",
         "table_hot", "table8_hot", "table32_hot", "table_fx_hot",
         "table_wide_hot", "lookup_wide_hot",
         "bare_trie_hot", "lookup_hot", "lookup8_hot", "lookup32_hot",
         "lookup_fx_hot", "bpf_loop_hot", "direct_hot", "poptrie_hot"] + \
    [f"lookup_nodes{k}_hot" for k in range(7)] + \
    [f"lookup_fx_nodes{k}_hot" for k in range(7)]
T6SPREAD = ["spread64k_floor", "trie_spread64k", "table_spread64k",
            "table8_spread64k", "table32_spread64k", "table_fx_spread64k",
            "table_wide_spread64k", "lookup_wide_spread64k",
            "bare_trie_spread64k", "lookup_spread64k", "lookup8_spread64k",
            "lookup32_spread64k", "lookup_fx_spread64k",
            "bpf_loop_spread64k", "direct_spread64k", "poptrie_spread64k"]


def t6cell(s, d=0):
    return f"{fmt(s['median'], d)} [{fmt(s['min'], d)}-{fmt(s['max'], d)}]"


def table6_section(by, md, targets, res):
    """Issue 14: the IPv6 table against the trie and the IPv4 table."""
    rows = defaultdict(list)
    for r in by["t6prog"]:
        rows[r["n"]].append(r)
    if not rows:
        return
    md += ["## 6. IPv6 table (issue 14)", "",
           "`progbench --table6`: sets from bench/gen6.c (the shape of a "
           "global table: registry allocations /19-/32 in the RIR pools of "
           "2000::/3, mostly /29-/48, a few percent /56 and /64, a tail to "
           "/128, nested prefixes common; `--table6 2`: bench/gen.c's "
           "scattered /48s instead).  Program cost by BPF_PROG_TEST_RUN, "
           "rounds interleaved, case order rotated.  *table*: cls_egress "
           "with the IPv6 table (maps/mbt6.c, xdp_tc/lookup6.h) in front "
           "of the trie, the table an inner map of a two-slot "
           "ARRAY_OF_MAPS of 4 MiB values (the data path's shape since "
           "layout 5); *table8*/*table32*: the same table in 8-byte "
           "(layout 4's) / 32-byte values; *table_fx*: the same table in "
           "an inner map of a fixed "
           "size (2^25 8-byte values) without BPF_F_INNER_MAP, whose "
           "lookups the verifier inlines (no helper call a read; every "
           "table of that outer map must then be that size); "
           "*table_wide*: the table with a 24-bit first level (format "
           "3, the data path's from 500k routes); "
           "*lookup*/*lookup8*/*lookup32*/*lookup_wide*: the table "
           "lookup alone; "
           "*bpf_loop*: the same walk with bpf_loop() (8-byte values, as "
           "*direct*, *lookup_nodesK*); *direct*: the table with DIRECT "
           "nodes only; *poptrie*: a Poptrie (bench/poptrie6.c) lookup "
           "alone; *lookup_nodesK*: the lookup alone for a destination whose walk "
           "reads K DIRECT or RANGE nodes (RANGE: the slot inside, one "
           "read) after the first level; *lookup_fx_nodesK*: the same in "
           "the fixed-size map; "
           "*trie*: cls_egress on the trie; *v4_table*: cls_egress with "
           "the IPv4 DIR-24-8 table of the largest IPv4 set of "
           "bench/gen.c (in table_v4's slot, an inner map, as the "
           "library publishes it), *v4_table_inner*: the bench's own copy "
           "of that lookup over an inner map of the IPv6 table's shape.  "
           "Before round 0 "
           "every structure and program must agree on 4097 destinations.",
           ""]
    t6 = {}
    for n in sorted(rows):
        rs = rows[n]
        cases = defaultdict(list)
        for r in rs:
            cases[r["case"]].append(r["ns"])
        md += [f"### N={n}: ns per run, median [min-max] over "
               f"{max(r['round'] for r in rs) + 1} rounds", "",
               "| case | raw | above the floor |", "|---|---|---|"]
        out = {}
        for c in T6HOT + T6SPREAD:
            if not cases[c]:
                continue
            floor = "empty" if c in T6HOT else "spread64k_floor"
            d = paired(rs, c, floor, sub) if c != floor else None
            out[c] = {"raw": summ(cases[c]), "over": d}
            md.append(f"| {c} | {t6cell(summ(cases[c]))} | "
                      f"{t6cell(d) if d else '-'} |")
        md.append("")
        t6[str(n)] = out
        if n != max(rows):
            continue
        # The data path's table for n routes (maps/table6.c): a 24-bit
        # first level from 500k.
        prod = "table_wide" if n >= WIDE_ROUTES else "table"
        hot = paired(rs, prod + "_hot", "empty", sub)
        v4 = paired(rs, "v4_table_hot", "empty", sub)
        v4in = paired(rs, "v4_table_inner_hot", "empty", sub)
        if hot and v4:
            lim = v4["median"] + 15
            targets.append({
                "target": f"IPv6 table, N={n}: full classify hot <= the "
                          "IPv4 table's + 15 ns (above the floor), "
                          f"*{prod}*",
                "value": f"{fmt(hot['median'], 0)} ns against "
                         f"{fmt(v4['median'], 0)} + 15 = {fmt(lim, 0)} "
                         "(IPv4 table in an inner map: "
                         f"{fmt(v4in['median'] if v4in else None, 0)})",
                "met": hot["median"] <= lim})
            narrow = paired(rs, "table_hot", "empty", sub)
            if prod != "table" and narrow:
                targets.append({
                    "target": "(not the product at this N) the same with "
                              "a 16-bit first level, *table*",
                    "value": f"{fmt(narrow['median'], 0)} ns against "
                             f"{fmt(lim, 0)}",
                    "met": None})
            fx = paired(rs, "table_fx_hot", "empty", sub)
            if fx:
                targets.append({
                    "target": f"(not the product) the same with the "
                              "table's lookups inlined: a fixed-size "
                              "inner map, *table_fx*",
                    "value": f"{fmt(fx['median'], 0)} ns against "
                             f"{fmt(lim, 0)}",
                    "met": None})
        spread = paired(rs, prod + "_spread64k", "spread64k_floor", sub)
        paths = [p for p in by["t6path"] if p["n"] == n]
        lines = paths[-1]["spread_distinct_lines"] if paths else None
        lat = [r["ns"] for r in by["memlat"] if r.get("lines") == lines]
        if spread and lat:
            lim = 3 * q(lat, 0.5)
            targets.append({
                "target": f"IPv6 table, N={n}: full classify spread over "
                          "64k destinations <= 3 random cache lines of "
                          f"its working set ({lines} lines, bench/memlat), "
                          f"*{prod}*",
                "value": f"{fmt(spread['median'], 0)} ns against 3 x "
                         f"{fmt(q(lat, 0.5), 0)} = {fmt(lim, 0)}",
                "met": spread["median"] <= lim})
    res["table6_prog"] = t6
    trie = {r["n"]: r for r in by["t6trie"]}
    md += ["### Building and memory", "",
           "*trie*: the set into a fresh LPM trie, 8192 prefixes a "
           "BPF_MAP_UPDATE_BATCH, and the growth of /proc/meminfo Slab; "
           "*count*: the one-pass fill without memory, which sizes the "
           "map; *fill*: the one-pass fill into the map (sized by the "
           "count plus 1/8 room for changes); *used*: what the nodes take "
           "(bytes of the map with no room left).", "",
           "| N | shape | table | count ms | fill ms | DIRECT | RANGE | TINY |"
           " RANGE2 | used MB | map MB | used B/prefix | trie ms | trie slab "
           "B/prefix |", "|" + "---|" * 14]
    for b in by["t6build"]:
        t = trie.get(b["n"], {})
        used = b.get("used_bytes", b["bytes"])
        md.append(
            f"| {b['n']} | {t.get('shape', '-')} | {b['table']} | "
            f"{fmt(b.get('count_ms'))} | {fmt(b['fill_ms'])} | "
            f"{b.get('direct', '-')} | {b.get('range', '-')} | "
            f"{b.get('tiny', '-')} | {b.get('range2', '-')} | "
            f"{fmt(used / 1e6)} | "
            f"{fmt(b['bytes'] / 1e6)} | {fmt(used / b['n'])} | "
            f"{fmt(t.get('fill_ms'))} | "
            f"{fmt(t['slab_kb'] * 1024 / b['n']) if t else '-'} |")
        prod = "mbt6_wide" if b["n"] >= WIDE_ROUTES else "mbt6"
        if b["table"] != prod or b["n"] != max(trie or [0]) or not t:
            continue
        total = t["fill_ms"] + b["count_ms"] + b["fill_ms"]
        targets.append({
            "target": f"IPv6, N={b['n']}: trie + table loaded <= 2 s",
            "value": f"{fmt(total / 1e3, 2)} s one after the other (trie "
                     f"{fmt(t['fill_ms'] / 1e3, 2)} s, count "
                     f"{fmt(b['count_ms'] / 1e3, 2)} s, fill "
                     f"{fmt(b['fill_ms'] / 1e3, 2)} s)",
            "met": total <= 2000})
        per, tper = used / b["n"], t["slab_kb"] * 1024 / b["n"]
        targets.append({
            "target": f"IPv6, N={b['n']}: table memory per prefix <= 2x "
                      f"the trie's, {prod}",
            "value": f"{fmt(per)} B used ({fmt(b['bytes'] / b['n'])} with "
                     f"room) against {fmt(tper)} B (trie slab growth)",
            "met": per <= 2 * tper})
    md += ["", "Lookups of the 65536 spread destinations (and the hot one): "
           "nodes read, entries read, distinct cache lines per lookup and "
           "for all of them (the working set):", "",
           "| N | hot D/R/T | hot reads | spread D/R/T per lookup | "
           "reads | lines | distinct lines |", "|" + "---|" * 7]
    for p in by["t6path"]:
        md.append(f"| {p['n']} | {p['hot_direct']}/{p['hot_range']}/"
                  f"{p['hot_tiny']} | {p['hot_reads']} | "
                  f"{p['spread_direct']:.2f}/{p['spread_range']:.2f}/"
                  f"{p['spread_tiny']:.2f} | {p['spread_reads']:.2f} | "
                  f"{p['spread_lines']:.2f} | {p['spread_distinct_lines']} |")
    md += ["", "Verifier (processed instructions, xlated and JITed size):",
           "", "| program | processed | xlated insns | JITed bytes |",
           "|---|---|---|---|"]
    seen = set()
    for v in by["t6verifier"]:
        if v["prog"] in seen:
            continue
        seen.add(v["prog"])
        md.append(f"| {v['prog']} | {v['insns']} | {v['xlated']} | "
                  f"{v['jited']} |")
    md += ["", "Single changes on the live table of the largest set "
           "(maps/mbt6.c in process, then mbt6_reclaim; the data path "
           "checked after each), microseconds:", "",
           "| op | len | n | median | p90 | max |", "|---|---|---|---|---|---|"]
    for c in by["t6change"]:
        md.append(f"| {c['op']} | {c['len']} | {c['n']} | "
                  f"{c['median_us']:.2f} | {c['p90_us']:.2f} | "
                  f"{c['max_us']:.2f} |")
    md.append("")


TCASES = ["empty", "trie_hot", "dir24_hot", "trie_miss", "dir24_miss",
          "spread64k_floor", "trie_spread64k", "dir24_spread64k",
          "spread1m_floor", "trie_spread1m", "dir24_spread1m",
          "read_spread64k", "lookup_spread64k"]


def paired(rows, a, b, op):
    """Median over rounds of op(a, b), both from the same round."""
    x = {r["round"]: r["ns"] for r in rows if r["case"] == a}
    y = {r["round"]: r["ns"] for r in rows if r["case"] == b}
    v = [op(x[k], y[k]) for k in x if k in y and (op is sub or y[k])]
    return summ(v) if v else None


def sub(a, b):
    return a - b


def div(a, b):
    return a / b


def table_section(by, md, targets, res):
    """Issue 5: the IPv4 DIR-24-8 table against the trie."""
    tp = defaultdict(list)
    for r in by["tprog"]:
        tp[r["n"]].append(r)
    tres = []
    if tp:
        md += ["## 5. IPv4 DIR-24-8 table vs LPM trie", "",
               "### 5.1 Program cost (BPF_PROG_TEST_RUN, ns per run)", "",
               "The real cls_egress, IPv4, no table in the generation's slot (`trie_*`)"
               " or DIR24 (`dir24_*`), same maps and trie, stats on; the "
               "table filled by maps/dir24.c (one pass in address order, as "
               "cls_dir24_fill) over the mmap of the skeleton's dir24 map, "
               "refilled before every round; rounds interleaved, case "
               "order rotated.  *spread64k*: 65536 destinations cycled, "
               "every one equally often; *spread1m*: the next `repeat` of "
               "a cycle of 1048576 destinations (none repeats within a "
               "run); `*_floor`: the wrapper with the empty program; "
               "`read_spread64k`: the wrapper with a program that only "
               "reads the table's first-level entry for the destination "
               "(bench_table_read: the one memory access a DIR-24-8 "
               "lookup cannot avoid); `lookup_spread64k`: the same with "
               "the whole table lookup (first level, then the group if "
               "any: bench_table_lookup).  "
               "Before the first round, 4096 destinations are checked to "
               "get the same skb->priority in both modes.  median "
               "[min-max].", "",
               "| N | " + " | ".join(TCASES) + " |",
               "|" + "---|" * (len(TCASES) + 1)]
        for n in sorted(tp):
            cells = []
            for c in TCASES:
                xs = [r["ns"] for r in tp[n] if r["case"] == c]
                if xs:
                    sm = summ(xs)
                    tres.append({"n": n, "case": c, **sm})
                    cells.append(f"{fmt(sm['median'], 0)} "
                                 f"[{sm['min']}-{sm['max']}]")
                else:
                    cells.append("-")
            md.append(f"| {n} | " + " | ".join(cells) + " |")
        md += ["", "Above the floor (median of per-round differences "
               "against the same round's empty program or spread wrapper "
               "[min-max]), and trie/table (median of per-round ratios of "
               "the raw numbers):", "",
               "| N | hot: trie | hot: table | hot trie/table | miss: trie |"
               " miss: table | 64k: trie | 64k: table | 64k trie/table | "
               "1M: trie | 1M: table | 1M trie/table | 64k: one table read |"
               " 64k: table lookup alone |",
               "|" + "---|" * 14]
        derived = {}
        for n in sorted(tp):
            rows = tp[n]
            d = {
                "hot_trie": paired(rows, "trie_hot", "empty", sub),
                "hot_dir24": paired(rows, "dir24_hot", "empty", sub),
                "hot_ratio": paired(rows, "trie_hot", "dir24_hot", div),
                "miss_trie": paired(rows, "trie_miss", "empty", sub),
                "miss_dir24": paired(rows, "dir24_miss", "empty", sub),
                "s64_trie": paired(rows, "trie_spread64k",
                                   "spread64k_floor", sub),
                "s64_dir24": paired(rows, "dir24_spread64k",
                                    "spread64k_floor", sub),
                "s64_ratio": paired(rows, "trie_spread64k",
                                    "dir24_spread64k", div),
                "s1m_trie": paired(rows, "trie_spread1m", "spread1m_floor",
                                   sub),
                "s1m_dir24": paired(rows, "dir24_spread1m",
                                    "spread1m_floor", sub),
                "s1m_ratio": paired(rows, "trie_spread1m", "dir24_spread1m",
                                    div),
                "s64_read": paired(rows, "read_spread64k",
                                   "spread64k_floor", sub),
                "s64_lookup": paired(rows, "lookup_spread64k",
                                     "spread64k_floor", sub)}
            derived[n] = d

            def cell(k):
                x = d[k]
                if not x:
                    return "-"
                if k.endswith("ratio"):
                    return f"{x['median']:.2f}"
                return f"{x['median']:.0f} [{x['min']:.0f}-{x['max']:.0f}]"
            md.append(f"| {n} | " + " | ".join(cell(k) for k in d) + " |")
        res["table_prog_over_floor"] = {str(n): d for n, d in
                                        derived.items()}
        tb = defaultdict(list)
        for r in by["table"]:
            tb[r["n"]].append(r)
        if tb:
            md += ["", "Table per set (groups = capacity of the map, "
                   "needed = /24s holding a longer prefix; ask_trie = /24s "
                   "left to the trie for want of a group; paint = "
                   "the one-pass fill of every prefix, in progbench, "
                   "median [min-max] over rounds; in groups = how many of "
                   "the 65536 spread destinations fall in a /24 with a "
                   "group, so take a second memory read):", "",
                   "| N | groups | needed | used | ask_trie | paint ms | "
                   "64k dests in groups |",
                   "|---|---|---|---|---|---|---|"]
            for n in sorted(tb):
                rs = tb[n]
                pm = summ([r["paint_ms"] for r in rs])
                md.append(f"| {n} | {rs[0]['groups']} | "
                          f"{rs[0]['groups_needed']} | {rs[-1]['used']} | "
                          f"{max(r['ask_trie'] for r in rs)} | "
                          f"{pm['median']:.0f} [{pm['min']:.0f}-"
                          f"{pm['max']:.0f}] | "
                          f"{rs[0].get('spread64k_in_groups', '-')} |")
            res["table_paint"] = {str(n): {"groups": rs[0]["groups"],
                                           "needed": rs[0]["groups_needed"],
                                           "used": rs[-1]["used"],
                                           "ask_trie": max(r["ask_trie"]
                                                           for r in rs),
                                           "paint_ms": summ(
                                               [r["paint_ms"] for r in rs])}
                                  for n, rs in tb.items()}
        ml = by["memlat"]
        if ml:
            md += ["", "Memory latency of this machine (bench/memlat: user "
                   "space, a dependent chase through N random cache lines "
                   "of a 128 MiB buffer of 4 KiB pages, run right after "
                   "the table cases; 64k spread destinations touch about "
                   "64k lines of the first level):", "",
                   "| lines | working set KiB | ns per line |",
                   "|---|---|---|"]
            for r in ml:
                md.append(f"| {r['lines']} | {r['kib']} | {r['ns']:.0f} |")
            res["memlat"] = ml
        md.append("")
        big = max(tp)
        raw = {r["case"]: r["median"] for r in tres if r["n"] == big}
        d = derived[big]
        for what, case, key, lim in (
                ("hot", "dir24_hot", "hot_dir24", 32),
                ("spread over 64k destinations", "dir24_spread64k",
                 "s64_dir24", 100)):
            if case not in raw:
                continue
            floor = raw["empty" if what == "hot" else "spread64k_floor"]
            targets.append({
                "target": f"table, N={big}, full classify {what} <= {lim} ns"
                          " (program time)",
                "value": f"{raw[case]:.0f} ns (floor of the same run: "
                         f"{floor:.0f} ns)",
                "met": raw[case] <= lim})
            if d[key]:
                targets.append({
                    "target": f"same, floor subtracted (<= {lim} ns above "
                              "the floor)",
                    "value": f"{d[key]['median']:.0f} ns "
                             f"[{d[key]['min']:.0f}-{d[key]['max']:.0f}]",
                    "met": d[key]["median"] <= lim})
            lat = [r for r in by["memlat"] if r["lines"] == 65536]
            if key == "s64_dir24" and lat:
                targets.append({
                    "target": "same, for reference: one random cache line "
                              "of a 4 MiB working set (64k lines) on this "
                              "machine (bench/memlat)",
                    "value": f"{lat[0]['ns']:.0f} ns", "met": None})
            for k2, what2 in (("s64_read", "one read of the table's first "
                               "level alone (bench_table_read)"),
                              ("s64_lookup", "the table lookup alone, both "
                               "levels (bench_table_lookup)")):
                if key != "s64_dir24" or not d[k2]:
                    continue
                rd = d[k2]
                targets.append({
                    "target": f"same, of which {what2}, above the floor",
                    "value": f"{rd['median']:.0f} ns "
                             f"[{rd['min']:.0f}-{rd['max']:.0f}]",
                    "met": None})

    # loading with the table
    loads = [r for r in by["load"]
             if r["tool"] in ("route_load", "route_load_sorted")
             and r["n"] >= 100000]
    lib = defaultdict(list)
    for r in by["lib"]:
        lib[(r["op"], r.get("len"))].append(r)
    incr = defaultdict(list)
    for r in by["incr"]:
        incr[(r["op"], r.get("len"))].append(r)
    if loads or lib or incr:
        md += ["### 5.2 Loading and changes with the table", ""]
    if loads:
        md += ["`classifier route load` (trie + IPv4 table, the CLI's "
               "default table) and what the table looked like after; file "
               "*by class*: grouped by class, so not in address order (the "
               "loader sorts it); *ordered*: as `route list` prints it:", "",
               "| N | file | reps | time s median | min-max s | groups | "
               "used | ask_trie |", "|---|---|---|---|---|---|---|---|"]
        per = defaultdict(list)
        for r in loads:
            per[(r["n"], r["tool"])].append(r)
        for (n, tool) in sorted(per):
            rs = per[(n, tool)]
            sm = summ([r["ns"] / 1e9 for r in rs])
            t = rs[-1].get("table", {})
            what = "ordered" if tool == "route_load_sorted" else "by class"
            md.append(f"| {n} | {what} | {len(rs)} | {sm['median']:.3f} | "
                      f"{sm['min']:.3f}-{sm['max']:.3f} | "
                      f"{t.get('groups', '-')} | {t.get('groups_used', '-')}"
                      f" | {t.get('ask_trie', '-')} |")
            if n >= 1000000:
                targets.append({
                    "target": f"route load of {n} prefixes (trie + table) "
                              f"<= 1.5 s, file {what}",
                    "value": f"{sm['median']:.2f} s ({len(rs)} run(s), "
                             f"{sm['min']:.2f}-{sm['max']:.2f})",
                    "met": sm["median"] <= 1.5})
        md.append("")
    if lib or incr:
        loaded = (by["lib"] or by["incr"] or [{}])[0]
        loaded = loaded.get("loaded", loaded.get("n", "?"))
        md += [f"With N={loaded} loaded: single changes through the CLI "
               "(one process each, fork/exec included; `cli_version` is "
               "`classifier --version`, the exec floor) and in-process "
               "through the maps library (routebench: cls_route_set / "
               "cls_route_del, which journal the change and repaint the table; `dump_v4` + "
               "`table_rebuild` = a full table rebuild from the trie ("
               "cls_table_rebuild: the dump again, a new table filled and "
               "published through the generation slot).  Prefixes in 10.0.0.0/8 (outside the "
               "set), each added then deleted.", "",
               "| operation | prefix len | n | median ms | p25-p75 ms | "
               "min-max ms |", "|---|---|---|---|---|---|"]
        res["table_ops"] = []
        for (op, ln), rs in sorted(list(incr.items()) + list(lib.items()),
                                   key=lambda x: (x[0][0], x[0][1] or 0)):
            sm = summ([r["ns"] / 1e6 for r in rs])
            res["table_ops"].append({"op": op, "len": ln, "ms": sm})
            md.append(f"| {op} | {ln if ln else '-'} | {sm['count']} | "
                      f"{sm['median']:.3f} | {sm['p25']:.3f}-"
                      f"{sm['p75']:.3f} | {sm['min']:.3f}-"
                      f"{sm['max']:.3f} |")
        cli = by["cli"]
        if cli:
            md += ["", "Reads through the CLI with the same set loaded (one "
                   "process each): `status` (counts kept by the library, "
                   "no walk over the routes) and `-batch` of 100k `lookup` "
                   "lines (destinations inside the set):", "",
                   "| command | runs | median ms | min-max ms | per second |",
                   "|---|---|---|---|---|"]
            per = defaultdict(list)
            for r in cli:
                per[r["op"]].append(r)
            res["cli_reads"] = {}
            for op in sorted(per):
                rs = per[op]
                sm = summ([r["ns"] / 1e6 for r in rs])
                rate = "-"
                if "lookups" in rs[0]:
                    rate = f"{rs[0]['lookups'] / (sm['median'] / 1e3):.0f}"
                res["cli_reads"][op] = {"ms": sm, "per_second": rate}
                md.append(f"| {op} | {len(rs)} | {sm['median']:.1f} | "
                          f"{sm['min']:.1f}-{sm['max']:.1f} | {rate} |")
                if op == "status":
                    targets.append({
                        "target": f"status with {rs[0]['n']} routes <= 50 ms",
                        "value": f"{sm['median']:.1f} ms",
                        "met": sm["median"] <= 50})
                if op.startswith("lookup_batch"):
                    targets.append({
                        "target": f"-batch of lookups ({op}) >= 50000/s",
                        "value": f"{rate}/s",
                        "met": float(rate) >= 50000})
        lt = by["lib_table"]
        if lt:
            md += ["", "Table seen by routebench: " + "; ".join(
                f"{r['when']}: {r['used']} of {r['groups']} groups used, "
                f"{r['ask_trie']} /24s left to the trie" for r in lt) + "."]
        md.append("")
    res["table_prog"] = tres
    return tres


def plot(out, rres, pres, tres=()):
    if not shutil.which("gnuplot"):
        print("report: gnuplot missing, no plot", file=sys.stderr)
        return
    series = []
    # cls_nostats is mostly within the noise (<= 0): left to the table.
    for v in ["cls", "cls_trie", "u32", "nft"]:
        for d in sorted({r["dests"] for r in rres}):
            pts = sorted((r["n"], r["cost_ns"]["median"]) for r in rres
                         if r["variant"] == v and r["dests"] == d)
            if pts:
                series.append((f"{v}, {d} dests (real, over base)", pts))
    # v4: section 5's trie_* curves are the same path, measured beside
    # the table's.
    for fam in ["v6"] if tres else ["v4", "v6"]:
        for c in ["full_hot", "spread_full"]:
            pts = sorted((r["n"], r["median"]) for r in pres
                         if r["family"] == fam and r["case"] == c)
            if pts:
                series.append((f"prog {c} {fam} (test_run)", pts))
    for c in ["trie_hot", "dir24_hot", "trie_spread64k", "dir24_spread64k"]:
        pts = sorted((r["n"], r["median"]) for r in tres if r["case"] == c)
        if pts:
            series.append((f"prog {c} v4 (test_run)", pts))
    if not series:
        return
    dat = os.path.join(out, "plot.dat")
    with open(dat, "w") as f:
        for name, pts in series:
            f.write(f"# {name}\n")
            for n, y in pts:
                f.write(f"{n} {y}\n")
            f.write("\n\n")
    plots = ", ".join(
        f"'{dat}' index {i} with linespoints title '{name}'"
        for i, (name, _) in enumerate(series))
    script = (f"set terminal png size 1100,700 noenhanced\nset output '{out}/"
              "ns_per_packet.png'\nset logscale x\nset logscale y\n"
              "set xlabel 'prefixes (N)'\nset ylabel 'ns per packet'\n"
              "set key outside right\nset grid\n"
              "set title 'classifier (IPv4 table on: cls, dir24; off: cls_trie, "
              "trie) vs tc u32 vs nftables'\n"
              f"plot {plots}\n")
    subprocess.run(["gnuplot"], input=script, text=True, check=False)


if __name__ == "__main__":
    main()
