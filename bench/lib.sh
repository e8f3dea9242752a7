# Shared by the bench scripts (sourced, not run).

# Drops the page cache before a run (needs root); otherwise says once
# that runs start warm.
drop() {
  sync
  if ! echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
    [ -n "${WARNED:-}" ] || echo "# cannot drop the page cache: runs start warm" >&2
    WARNED=1
  fi
}
