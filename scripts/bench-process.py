#!/usr/bin/env python3
"""Whole-process figures of `crew vault stats --json` against ripgrep (issue #34).

Usage: scripts/bench-process.py CREW_BINARY VAULT_COPY... [--runs 9]

Each VAULT_COPY must be a writable copy (it gains a `.crew/` folder and one note is appended
to). For every vault three cases are measured, each a median of RUNS runs taken in turns with
`rg -c '\\[\\[[^\\]]+\\]\\]' -g '*.md'` in the same folder (crew, rg, crew, rg, …), and the
ratio of the two medians is printed:

- cold: a vault crew has never indexed (no `.crew/`, the cache folder emptied before each run);
- cold, then warm from the cache: the same vault, not adopted, read a second time (its index in
  $XDG_CACHE_HOME, which this script points at a scratch folder);
- warm: adopted (`.crew/` present), its index written and nothing changed since;
- one changed: adopted, one note appended to before each run.

Every crew run is checked to exit 0 and print JSON with the same `notes` count.
"""

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

RG = ["rg", "-c", r"\[\[[^\]]+\]\]", "-g", "*.md"]


def run(cmd, cwd=None, env=None):
    # stdin closed: given no path, ripgrep searches its standard input when that is a pipe or
    # a file, and a benchmark started from a script or an agent's shell may hand it one
    t = time.perf_counter()
    out = subprocess.run(
        cmd, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE
    )
    return time.perf_counter() - t, out


def paired(crew_cmd, vault, env, runs, before=None):
    crew_t, rg_t, notes = [], [], set()
    for _ in range(runs):
        if before:
            before()
        t, out = run(crew_cmd, env=env)
        if out.returncode != 0:
            sys.exit(f"crew failed: {out.stderr.decode(errors='replace')}")
        notes.add(json.loads(out.stdout)["notes"])
        crew_t.append(t)
        t, _ = run(RG, cwd=vault)
        rg_t.append(t)
    assert len(notes) == 1, notes
    c, r = statistics.median(crew_t), statistics.median(rg_t)
    return c, r, notes.pop()


def main():
    args = sys.argv[1:]
    runs = 9
    if "--runs" in args:
        i = args.index("--runs")
        runs = int(args[i + 1])
        del args[i : i + 2]
    crew, vaults = os.path.abspath(args[0]), args[1:]
    cache = tempfile.mkdtemp(prefix="crew-bench-cache-")
    env = dict(os.environ, XDG_CACHE_HOME=cache)
    for k in ("CREW_VAULT", "CREW_DIR", "CREW_LOG"):
        env.pop(k, None)
    print("| vault | notes | case | crew | rg | crew / rg |")
    print("|---|---|---|---|---|---|")
    for vault in vaults:
        vault = os.path.abspath(vault)
        name = os.path.basename(vault.rstrip("/"))
        cmd = [crew, "--vault", vault, "--json", "vault", "stats"]
        state = os.path.join(vault, ".crew")
        shutil.rmtree(state, ignore_errors=True)

        def forget():
            shutil.rmtree(cache, ignore_errors=True)
            os.makedirs(cache)

        rows = []
        rows.append(("cold",) + paired(cmd, vault, env, runs, forget))
        # the cache may hold an index now: let the notes settle (the index trusts a note only
        # when it changed two seconds before the index was written), write it, then read it
        forget()
        time.sleep(2.1)
        run(cmd, env=env)
        rows.append(("not adopted, second read",) + paired(cmd, vault, env, runs))
        os.makedirs(state)
        time.sleep(2.1)
        run(cmd, env=env)
        rows.append(("warm (adopted, nothing changed)",) + paired(cmd, vault, env, runs))
        note = sorted(
            os.path.join(d, f)
            for d, _, fs in os.walk(vault)
            if "/." not in d
            for f in fs
            if f.endswith(".md")
        )[0]

        def touch():
            with open(note, "a") as f:
                f.write("\nA changed line.\n")

        rows.append(("one note changed",) + paired(cmd, vault, env, runs, touch))
        for case, c, r, notes in rows:
            print(f"| {name} | {notes:,} | {case} | {c*1000:.1f} ms | {r*1000:.1f} ms | {c/r:.2f}× |")
        sys.stdout.flush()
        shutil.rmtree(state, ignore_errors=True)
    shutil.rmtree(cache, ignore_errors=True)


if __name__ == "__main__":
    main()
