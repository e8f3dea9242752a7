#!/usr/bin/env bash
# Triangle counting side by side: GAP's in-memory tc against grotto's
# out-of-core `grotto run tc` and `grotto run lcc`, on rmat22 made undirected.
#
#   bash bench/tc_vs_gap.sh > results.txt
#
# Env:
#   GROTTO   the grotto binary (default target/release/grotto, from the repository root)
#   GAP_DIR  GAP's checkout with tc and converter built (default /work/peers/gapbs;
#            ../shared/tools/peers/README.md says how to fetch and build it)
#   DATA     holds rmat22.el, and gets rmat22u.sg and rmat22u.grotto (default /work/peers/data)
#   RUNS     rounds; in each round every system runs once, in turn (default 5)
#   THREADS  worker threads for every system (default 2)
#   CACHE    grotto's buffer pool (default 10%, a share of its graph file)
#   MEMORY   grotto tc's memory for held lists in the third configuration (default 10%)
#   LOG_DIR  raw output of every run (default $DATA/logs/tc_vs_gap-<date>)
#
# Each round runs, in this order:
#   gap     tc   GAP's tc, one trial, OMP_NUM_THREADS=$THREADS
#   grotto  tc   grotto run tc  --cache $CACHE
#   grotto  tc-mem  grotto run tc  --cache $CACHE --memory $MEMORY (the lists cut into
#                sweeps instead of all held at once, the default being half the free memory)
#   grotto  lcc  grotto run lcc --cache $CACHE
#
# Standard output: one line per run,
#   system algo round seconds triangles bytes_read maxrss_kb
# then the medians per system and algorithm. Progress goes to standard error.
#
# What the columns mean:
#   seconds    GAP: its "Trial Time", the kernel alone; the graph is already in memory
#              (reading the .sg file is not counted), and the degree relabelling GAP does
#              on skewed graphs IS counted, as it happens inside the trial. The relabel
#              time is kept in details.tsv.
#              grotto: metrics.wall_s from --json, the whole run with its reads from disk
#              (opening the file and printing are not counted).
#   triangles  GAP prints it with -a; grotto in summary.triangles. The script warns
#              at the end when the systems disagree.
#   bytes_read GAP: the size of the .sg file, which it reads whole before the trial.
#              grotto: metrics.bytes_read.
#   maxrss_kb  peak resident memory of the process from /usr/bin/time -v; grotto
#              falls back to its own metrics.peak_rss_bytes when /usr/bin/time is missing.
#
# The page cache is dropped before every run (needs root). When it cannot be
# dropped, the script says so once and the runs start warm: GAP's timed trial
# is not affected (it runs after the load), grotto's is.
set -euo pipefail

# Paths given by the caller are taken from the caller's directory; the
# default binary is the repository's own release build.
GROTTO=$(readlink -m "${GROTTO:-$(dirname "$0")/../target/release/grotto}")
GAP_DIR=$(readlink -m "${GAP_DIR:-/work/peers/gapbs}")
DATA=$(readlink -m "${DATA:-/work/peers/data}")
RUNS=${RUNS:-5}
THREADS=${THREADS:-2}
CACHE=${CACHE:-10%}
MEMORY=${MEMORY:-10%}
LOG_DIR=$(readlink -m "${LOG_DIR:-$DATA/logs/tc_vs_gap-$(date +%Y%m%d-%H%M%S)}")

EL=$DATA/rmat22.el
SG=$DATA/rmat22u.sg
GR=$DATA/rmat22u.grotto

say() { echo "[tc_vs_gap] $*" >&2; }
die() { echo "bench/tc_vs_gap.sh: $*" >&2; exit 2; }

[ -x "$GROTTO" ] || die "no grotto binary at $GROTTO (set GROTTO, or cargo build --release)"
[ -x "$GAP_DIR/tc" ] || die "no GAP tc in $GAP_DIR (build it: make tc converter)"
command -v jq >/dev/null || die "jq is needed to read grotto's --json output"
mkdir -p "$LOG_DIR"

# /usr/bin/time -v gives the peak resident memory of each run; without it
# the GAP column shows "-" and grotto reports its own peak.
if [ -x /usr/bin/time ]; then HAVE_TIME=1; else HAVE_TIME=0; say "no /usr/bin/time: GAP's maxrss_kb will be '-'"; fi

# Try dropping the page cache once; remember whether it works.
if [ "${NO_DROP:-0}" != 1 ] && sync && (echo 3 > /proc/sys/vm/drop_caches) 2>/dev/null; then
  DROP=1
else
  DROP=0
  say "cannot drop the page cache (not root, or NO_DROP=1): runs start with a warm cache"
fi
drop_cache() {
  if [ "$DROP" = 1 ]; then sync; echo 3 > /proc/sys/vm/drop_caches; fi
}

# ---------- inputs ----------
[ -f "$EL" ] || die "missing $EL (an rmat scale-22 edge list, 'u v' per line)"

# GAP's serialized undirected graph. GAP's text reader stops silently at the
# first line it cannot parse, so comment lines are stripped first.
if [ ! -f "$SG" ]; then
  [ -x "$GAP_DIR/converter" ] || die "no $SG and no GAP converter in $GAP_DIR to make it"
  src=$EL
  if grep -q '^#' <(head -n 100 "$EL"); then
    src=$LOG_DIR/rmat22-nocomments.el
    grep -v '^#' "$EL" > "$src"
  fi
  say "converting $src to $SG with GAP's converter (-s: symmetrize)"
  "$GAP_DIR/converter" -f "$src" -s -b "$SG" > "$LOG_DIR/convert_gap.txt" 2>&1
  [ "$src" = "$EL" ] || rm -f "$src"
fi

# grotto's undirected file (grotto skips comment lines itself).
if [ ! -f "$GR" ]; then
  say "converting $EL to $GR with grotto convert --undirected"
  "$GROTTO" convert "$EL" "$GR" --undirected -q
fi
SG_BYTES=$(stat -c %s "$SG")

# ---------- one run of each system ----------
RESULTS=$LOG_DIR/results.txt     # the lines printed on standard output
DETAILS=$LOG_DIR/details.tsv     # extra timings per run
: > "$RESULTS"
printf 'system\talgo\tround\tprocess_wall_s\tgap_read_s\tgap_relabel_s\tgrotto_algo_s\n' > "$DETAILS"

# Run a command under /usr/bin/time -v when available: stdout to $1.out,
# its own stderr to $1.err, time's report to $1.time.
timed() {
  local base=$1; shift
  if [ "$HAVE_TIME" = 1 ]; then
    /usr/bin/time -v -o "$base.time" "$@" > "$base.out" 2> "$base.err"
  else
    "$@" > "$base.out" 2> "$base.err"
    : > "$base.time"
  fi
}
# Peak RSS (kB) and wall clock (s) from a /usr/bin/time -v report ("-" if absent).
time_rss() { awk -F': ' '/Maximum resident set size/{v=$2} END{print (v==""?"-":v)}' "$1"; }
time_wall() {
  awk -F': ' '/Elapsed \(wall clock\)/{v=$2} END{print v}' "$1" |
    awk -F: '{ if (NF==3) print $1*3600+$2*60+$3; else if (NF==2) print $1*60+$2; else print "-" }'
}

emit() {  # system algo round seconds triangles bytes_read maxrss_kb
  echo "$*" | tee -a "$RESULTS"
}

run_gap() {
  local round=$1 base=$LOG_DIR/gap_tc_$1
  drop_cache
  # -n 1: one trial; -a: print the triangle count after it (outside the timer).
  if ! OMP_NUM_THREADS=$THREADS timed "$base" "$GAP_DIR/tc" -f "$SG" -n 1 -a; then
    say "GAP tc failed in round $round (see $base.*)"; return 1
  fi
  local secs tri relabel load rss
  # GAP prints "Label:" padded, then the value: take the last field.
  secs=$(awk '/^Trial Time:/{v=$NF} END{print (v==""?"-":v)}' "$base.out")
  load=$(awk '/^Read Time:/{v=$NF} END{print (v==""?"-":v)}' "$base.out")
  relabel=$(awk '/^Relabel:/{v=$NF} END{print (v==""?"-":v)}' "$base.out")
  tri=$(awk '$2=="triangles"{v=$1} END{print (v==""?"-":v)}' "$base.out")
  rss=$(time_rss "$base.time")
  emit gap tc "$round" "$secs" "$tri" "$SG_BYTES" "$rss"
  printf 'gap\ttc\t%s\t%s\t%s\t%s\t-\n' "$round" "$(time_wall "$base.time")" "$load" "$relabel" >> "$DETAILS"
}

run_grotto() {  # round label algo extra-flags...
  local round=$1 label=$2 algo=$3; shift 3
  local base=$LOG_DIR/grotto_${label}_$round
  drop_cache
  if ! timed "$base" "$GROTTO" run "$algo" "$GR" --threads "$THREADS" --cache "$CACHE" "$@" -q --json; then
    say "grotto run $algo failed in round $round (see $base.*)"; return 1
  fi
  local secs tri bytes rss algo_s
  secs=$(jq -r '.metrics.wall_s' "$base.out")
  algo_s=$(jq -r '.metrics.algo_s' "$base.out")
  tri=$(jq -r '.summary.triangles' "$base.out")
  bytes=$(jq -r '.metrics.bytes_read' "$base.out")
  rss=$(time_rss "$base.time")
  [ "$rss" != "-" ] || rss=$(jq -r '.metrics.peak_rss_bytes / 1024 | floor' "$base.out")
  emit grotto "$label" "$round" "$secs" "$tri" "$bytes" "$rss"
  printf 'grotto\t%s\t%s\t%s\t-\t-\t%s\n' "$label" "$round" "$(time_wall "$base.time")" "$algo_s" >> "$DETAILS"
}

say "GAP: $GAP_DIR ($(git -C "$GAP_DIR" rev-parse --short HEAD 2>/dev/null || echo 'commit unknown'))"
say "grotto: $GROTTO ($("$GROTTO" --version 2>/dev/null || echo 'version unknown'))"
say "graphs: $SG, $GR; $RUNS rounds, $THREADS threads, cache $CACHE, memory $MEMORY; logs in $LOG_DIR"
echo "# system algo round seconds triangles bytes_read maxrss_kb"
for round in $(seq 1 "$RUNS"); do
  say "round $round of $RUNS"
  run_gap "$round" || true
  run_grotto "$round" tc tc || true
  run_grotto "$round" tc-mem tc --memory "$MEMORY" || true
  run_grotto "$round" lcc lcc || true
done

# ---------- medians per system and algorithm ----------
echo "# medians: system algo runs seconds triangles bytes_read maxrss_kb"
# For each (system, algo) sort each numeric column and take the middle value
# (the mean of the two middle values for an even count); "-" entries are skipped.
awk -v CONVFMT=%.9g -v OFMT=%.9g '
  function median(key, col,    n, i, j, t, a) {
    n = split(vals[key, col], a, " ")
    for (i = 2; i <= n; i++) { t = a[i] + 0; for (j = i - 1; j >= 1 && a[j] + 0 > t; j--) a[j + 1] = a[j]; a[j + 1] = t }
    if (n == 0) return "-"
    return (n % 2) ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
  }
  {
    key = $1 " " $2
    if (!(key in runs)) order[++nk] = key
    runs[key]++
    for (c = 4; c <= 7; c++) if ($c != "-" && $c != "null") vals[key, c] = vals[key, c] (vals[key, c] == "" ? "" : " ") $c
  }
  END {
    for (k = 1; k <= nk; k++) {
      key = order[k]
      printf "median %s %d %s %s %s %s\n", key, runs[key], median(key, 4), median(key, 5), median(key, 6), median(key, 7)
    }
  }' "$RESULTS"

# Every system should find the same number of triangles.
distinct=$(awk '$5 != "-" && $5 != "null" {print $5}' "$RESULTS" | sort -u | wc -l)
if [ "$distinct" -gt 1 ]; then
  say "WARNING: the triangle counts differ between runs or systems:"
  awk '{print $1, $2, $5}' "$RESULTS" | sort | uniq -c >&2
fi
say "raw output of every run: $LOG_DIR"
