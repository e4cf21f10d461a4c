#!/usr/bin/env python3
"""Instructions per handler step of 03_raft_election and 04_raft_chaos, of
the Asio ceilings they are compared with, and where 03's and 04's go.

    python3 bench/instructions.py [BUILD_DIR]    (default: build-bench)

Runs BUILD_DIR/bench/simasio_instructions under callgrind (Debian:
valgrind), which measures each piece after an unmeasured first run, then
prints a table of instructions per unit and, for the two samples, the
split of their instructions by whose code runs them. Instruction counts
do not move with the machine's speed, as the timings of simasio_bench do.
"""
import os
import re
import subprocess
import sys
import tempfile

# Whose code a function is, by the first name in its signature that says so.
OWNERS = [
    ("malloc/free", re.compile(r"^(malloc|free|cfree|calloc|realloc|_int_malloc|_int_free|tcache|unlink_chunk|"
                               r"malloc_consolidate|operator new|operator delete|__libc_malloc|__libc_free)")),
    ("the sample's own code", re.compile(r"\b(raft_election|raft_chaos)::")),
    ("simasio", re.compile(r"\bsimasio::")),
    ("Boost.Asio (coroutines, composed operations)", re.compile(r"\bboost::")),
    ("libstdc++ (std::)", re.compile(r"\bstd::|__gnu_cxx::")),
]


def owner(function):
    # A function template's name starts with its return type: the owner is
    # the first owner named from the function's own name on.
    name = function.split("(")[0]
    best = None
    for label, pattern in OWNERS:
        m = pattern.search(name)
        if m and (best is None or m.start() < best[0]):
            best = (m.start(), label)
    return best[1] if best else "other (libc, the loader, ...)"


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build-bench"
    program = os.path.join(build, "bench", "simasio_instructions")
    if not os.access(program, os.X_OK):
        sys.exit(f"instructions.py: no {program}: configure {build} with -DSIMASIO_BUILD_BENCH=ON and build "
                 "simasio_instructions")
    with tempfile.TemporaryDirectory() as out:
        base = os.path.join(out, "cg.out")
        run = subprocess.run(["valgrind", "--tool=callgrind", "--instr-atstart=no", f"--callgrind-out-file={base}",
                              program], capture_output=True, text=True)
        if run.returncode != 0:
            sys.exit(f"instructions.py: {program} under callgrind failed:\n{run.stderr}")
        counts = {}
        for line in run.stdout.splitlines():
            parts = line.split()
            if len(parts) == 4 and parts[0] == "piece":
                counts[parts[1]] = (int(parts[2]), parts[3])
        totals, files = {}, {}
        for name in sorted(os.listdir(out)):
            path = os.path.join(out, name)
            text = open(path, encoding="utf-8", errors="replace").read()
            trigger = re.search(r"^desc: Trigger: Client Request: (\S+)", text, re.M)
            summary = re.search(r"^totals: (\d+)", text, re.M)
            if trigger and summary and trigger.group(1) in counts:
                totals[trigger.group(1)] = int(summary.group(1))
                files[trigger.group(1)] = path
        missing = [p for p in counts if p not in totals]
        if missing or not counts:
            sys.exit(f"instructions.py: no callgrind dump for {missing or 'any piece'}")

        print("| piece | instructions | per |")
        print("|---|---|---|")
        for name, (count, unit) in counts.items():
            print(f"| {name} ({count:,} {unit}) | {totals[name]:,} | {totals[name] / count:,.0f} per {unit[:-1]} |")
        for sample in ("03_raft_election", "04_raft_chaos"):
            annotate = subprocess.run(["callgrind_annotate", "--inclusive=no", "--threshold=100", files[sample]],
                                      capture_output=True, text=True, check=True).stdout
            split = {}
            functions = []
            for line in annotate.splitlines():
                m = re.match(r"^\s*([\d,]+)\s+(?:\([^)]*\)\s+)?(\S.*?)(?:\s+\[[^\]]*\])?$", line)
                if not m or ":" not in m.group(2):
                    continue
                ir = int(m.group(1).replace(",", ""))
                function = m.group(2).split(":", 1)[1]
                split[owner(function)] = split.get(owner(function), 0) + ir
                functions.append((ir, function))
            total = totals[sample]
            print(f"\n{sample}: whose code runs its instructions")
            print("| code | share |")
            print("|---|---|")
            for label, ir in sorted(split.items(), key=lambda x: -x[1]):
                print(f"| {label} | {100 * ir / total:.1f}% |")
            print(f"\n{sample}: the ten functions with most instructions of their own")
            for ir, function in sorted(functions, reverse=True)[:10]:
                print(f"  {100 * ir / total:5.1f}%  {function[:150]}")


if __name__ == "__main__":
    main()
