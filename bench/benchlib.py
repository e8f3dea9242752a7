"""What the benchmark scripts share."""
import os
import sys

_warned = False


def drop_caches():
    """Writes dirty pages back and drops the page cache, so the next run
    reads from the device; says once (on stderr) when it cannot (not
    root)."""
    global _warned
    os.sync()
    try:
        with open("/proc/sys/vm/drop_caches", "w") as f:
            f.write("3\n")
    except OSError as e:
        if not _warned:
            print(f"warning: cannot drop the page cache ({e}): runs may read from memory",
                  file=sys.stderr)
            _warned = True
