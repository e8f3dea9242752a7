#!/usr/bin/env bash
# Two builds of grotto side by side on one graph: each algorithm run by
# each binary in interleaved rounds (page cache dropped before every run),
# and the median wall time of each. For checking that a build change
# (profile, features, dependencies) slows nothing.
#
#   bash bench/ab.sh OLD_BIN NEW_BIN GRAPH [ROUNDS] [ALGORITHMS...]
#   bash bench/ab.sh /tmp/old/grotto target/release/grotto g.grotto 5 bfs wcc pagerank
set -euo pipefail
source "$(dirname "$0")/lib.sh"
a=$1 b=$2 g=$3 rounds=${4:-5}
shift $(( $# < 4 ? $# : 4 ))
algos=("$@")
[ ${#algos[@]} -gt 0 ] || algos=(bfs wcc pagerank)
declare -A times
for ((r = 0; r < rounds; r++)); do
  for algo in "${algos[@]}"; do
    for which in a b; do
      bin=${!which}
      drop
      t=$("$bin" run "$algo" "$g" --json --threads 2 | python3 -c 'import json,sys; print(json.load(sys.stdin)["metrics"]["wall_s"])')
      times[$algo.$which]+="$t "
    done
  done
done
printf "%-10s %10s %10s %8s\n" algorithm "old s" "new s" "new/old"
for algo in "${algos[@]}"; do
  ma=$(echo ${times[$algo.a]} | tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  mb=$(echo ${times[$algo.b]} | tr ' ' '\n' | sort -g | awk '{v[NR]=$1} END {print v[int((NR+1)/2)]}')
  printf "%-10s %10.3f %10.3f %8.3f\n" "$algo" "$ma" "$mb" "$(echo "$mb / $ma" | bc -l)"
done
