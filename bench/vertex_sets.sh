#!/usr/bin/env bash
# What the vertex-set rule costs (issue 45): rmat scale S relabelled so
# that 30% of the ids in its range never occur (id v becomes v + v*3/7),
# converted twice by the same binary: as the ids that occur (the default:
# an id map) and as the dense range 0..max (`--vertices`, what builds
# before session 34 did with such gaps). Reported per file: vertices,
# in-memory index and id-table bytes per vertex, open time (`grotto info`), and BFS
# and PageRank times at --cache 3%, page cache dropped before each
# command, RUNS interleaved rounds, medians.
#
#   bash bench/vertex_sets.sh [SCALE] [RUNS] [WORKDIR]
#
# GROTTO_BIN selects the binary (default target/release/grotto).
set -euo pipefail
cd "$(dirname "$0")/.."
SCALE=${1:-22}
RUNS=${2:-3}
W=$(readlink -m "${3:-bench-data/vertex_sets}")
G=${GROTTO_BIN:-target/release/grotto}
mkdir -p "$W"
EL="$W/rmat$SCALE.el"
RL="$W/rmat$SCALE-gaps.el"
[ -f "$EL" ] || "$G" generate rmat --scale "$SCALE" --edge-factor 16 --seed 1 -o "$EL" -q
[ -f "$RL" ] || awk '!/^#/ { a = $1 + int($1 * 3 / 7); b = $2 + int($2 * 3 / 7); print a, b }' "$EL" > "$RL"
MAXID=$(awk 'BEGIN{m=0} { if ($1>m) m=$1; if ($2>m) m=$2 } END { print m }' "$RL")
"$G" convert "$RL" "$W/ids.grotto" --undirected -q
"$G" convert "$RL" "$W/dense.grotto" --undirected --vertices $((MAXID + 1)) -q

drop() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
secs() { local t0 t1; t0=$(date +%s.%N); "$@" > /dev/null; t1=$(date +%s.%N); echo "$t1 - $t0" | bc; }

declare -A T
for r in $(seq "$RUNS"); do
  for kind in ids dense; do
    f="$W/$kind.grotto"
    drop; T[$kind,open]+="$(secs "$G" info "$f") "
    drop; T[$kind,bfs]+="$(secs "$G" run bfs "$f" --source 1 --cache 3% -q) "
    drop; T[$kind,pr]+="$(secs "$G" run pagerank "$f" --cache 3% -q) "
  done
done
median() { tr ' ' '\n' | grep -v '^$' | sort -g | awk '{a[NR]=$1} END {print (NR%2 ? a[(NR+1)/2] : (a[NR/2]+a[NR/2+1])/2)}'; }
printf "%-6s %10s %9s %9s %8s %8s %8s\n" file vertices "index B/v" "ids B/v" "open s" "bfs s" "pr s"
for kind in ids dense; do
  f="$W/$kind.grotto"
  j=$("$G" info "$f" --json)
  n=$(echo "$j" | python3 -c 'import json,sys; print(json.load(sys.stdin)["vertices"])')
  ix=$(echo "$j" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["index_bytes_per_vertex"], 2))')
  im=$(echo "$j" | python3 -c 'import json,sys; print(round(json.load(sys.stdin)["id_table_bytes_per_vertex"], 2))')
  printf "%-6s %10s %9s %9s %8s %8s %8s\n" "$kind" "$n" "$ix" "$im" \
    "$(echo "${T[$kind,open]}" | median)" "$(echo "${T[$kind,bfs]}" | median)" "$(echo "${T[$kind,pr]}" | median)"
done
