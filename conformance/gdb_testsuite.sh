#!/bin/bash
# Run gdb's own DejaGnu testsuite (Debian's gdb source package) against the installed gdb
# and against aliceserver, and print the pass counts side by side.
#
# usage: conformance/gdb_testsuite.sh [TESTS...]    e.g. gdb.mi/mi-break.exp gdb.base/list.exp
#   default: gdb.mi/*.exp less the excepted groups below.
#   GDB_TESTSUITE_ONLY=gdb|aliceserver   run one side only (the other's last results are kept)
#   GDB_TESTSUITE_RESULTS=DIR            where results go (default $cache/results)
# Results: DIR/{gdb,aliceserver}/gdb.{sum,log} and DIR/summary.txt (per .exp file).
# Needs root (apt) on Debian; no gdb build is needed: runtest drives the installed gdb.
set -euo pipefail

repo=$(cd "$(dirname "$0")/.." && pwd)
cache=${XDG_CACHE_HOME:-$HOME/.cache}/aliceserver/gdb-src
results=${GDB_TESTSUITE_RESULTS:-$cache/results}

# gdb.mi files not run by default: non-stop mode, reverse execution/record (aliceserver has
# neither); gdb_testsuite_sum.py also leaves out user-selected-context-sync.exp's non-stop
# half. Tracepoint and Python MI tests live in gdb.trace and gdb.python, not run here.
excepted="mi-nonstop.exp mi-nonstop-exit.exp mi-ns-stale-regcache.exp mi-nsintrall.exp
mi-nsmoribund.exp mi-nsthrexec.exp mi-watch-nonstop.exp interrupt-thread-group.exp
mi-reverse.exp mi-record-changed.exp"

setup() {
    if ! command -v runtest >/dev/null || ! command -v dpkg-source >/dev/null \
        || ! command -v gdb >/dev/null \
        || ! ls -d "$cache"/gdb-*/gdb/testsuite >/dev/null 2>&1; then
        # apt-get source needs deb-src entries: the deb ones already here, as deb-src
        if ! grep -rqsE '^(deb-src|Types:.*deb-src)' /etc/apt/sources.list /etc/apt/sources.list.d/; then
            for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
                if [ -f "$f" ]; then sed -n 's/^deb /deb-src /p' "$f"; fi
            done > /etc/apt/sources.list.d/aliceserver-deb-src.list
            for f in /etc/apt/sources.list.d/*.sources; do  # deb822 format
                if [ -f "$f" ]; then
                    sed 's/^Types:.*/Types: deb-src/' "$f" \
                        > "/etc/apt/sources.list.d/aliceserver-src-$(basename "$f")"
                fi
            done
        fi
        apt-get update -qq
        # dejagnu (runtest, expect); the tests compile their programs with gcc/g++;
        # gdb is the reference side
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq dejagnu dpkg-dev gcc g++ make gdb
    fi
    mkdir -p "$cache"
    if ! ls -d "$cache"/gdb-*/gdb/testsuite >/dev/null 2>&1; then
        (cd "$cache" && apt-get source -qq gdb >/dev/null)
    fi
    src=$(ls -d "$cache"/gdb-*/gdb/testsuite | head -1)
    # a configured testsuite directory per side: the tests build their programs in it
    for side in gdb aliceserver; do
        if [ ! -f "$cache/build-$side/site.exp" ]; then
            mkdir -p "$cache/build-$side"
            (cd "$cache/build-$side" && "$src/configure" -q && make -s site.exp) >/dev/null
        fi
    done
    # the testsuite runs GDB as one command: this one starts this checkout's aliceserver
    python=$repo/.venv/bin/python
    [ -x "$python" ] || python=python3
    printf '#!/bin/sh\nPYTHONPATH=%q${PYTHONPATH:+:$PYTHONPATH} exec %q -m aliceserver "$@"\n' \
        "$repo" "$python" > "$cache/aliceserver-gdb"
    chmod +x "$cache/aliceserver-gdb"
}

run_side() {  # SIDE GDB-COMMAND TESTS...
    local side=$1 gdb=$2; shift 2
    rm -rf "$results/$side" && mkdir -p "$results/$side"
    echo "== $side: ${#@} test files (log: $results/$side/gdb.log)"
    # runtest exits non-zero on any failure; the counts are what matter here
    (cd "$cache/build-$side" && nice -n 10 runtest --tool gdb --srcdir "$src" \
        --outdir "$results/$side" GDB="$gdb" "$@" >/dev/null 2>&1) || true
}

setup
if [ $# -gt 0 ]; then
    tests=("$@")
else
    tests=()
    for f in "$src"/gdb.mi/*.exp; do
        name=$(basename "$f")
        case " $(echo $excepted) " in *" $name "*) continue ;; esac
        tests+=("gdb.mi/$name")
    done
    echo "excepted (not run): $(echo $excepted)"
fi
only=${GDB_TESTSUITE_ONLY:-}
[ "$only" = aliceserver ] || run_side gdb "$(command -v gdb)" "${tests[@]}"
[ "$only" = gdb ] || run_side aliceserver "$cache/aliceserver-gdb" "${tests[@]}"
python3 "$repo/conformance/gdb_testsuite_sum.py" "$results/gdb/gdb.sum" \
    "$results/aliceserver/gdb.sum" | tee "$results/summary.txt"
