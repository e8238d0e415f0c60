#!/usr/bin/env python3
"""Benchmark peer: canonicalize + hash a JSON Lines file with the Python standard library.

Per line: json.loads, then json.dumps(sort_keys=True, separators=(",", ":"), ensure_ascii=False)
and "\\n"; SHA-256 over the concatenated output, fed in ~1 MB batches (as the Node rows do).
The file is read in 1 MiB chunks. Timed inside Python with time.perf_counter; prints one JSON
object on stdout: {"bytes", "seconds", "mbps", "digest", "maxRssKb"}.

Usage: python3 bench/peers/python_hash.py FILE
"""

import hashlib
import json
import resource
import sys
import time

CHUNK = 1 << 20
BATCH = 1 << 20


def main(path: str) -> None:
    started = time.perf_counter()
    digest = hashlib.sha256()
    dumps = json.dumps
    loads = json.loads
    batch = []
    batch_len = 0
    total = 0
    with open(path, "rb", buffering=CHUNK) as f:
        for line in f:
            total += len(line)
            if not line.strip(b" \t\r\n"):
                continue
            out = dumps(loads(line), sort_keys=True, separators=(",", ":"), ensure_ascii=False)
            batch.append(out)
            batch_len += len(out) + 1
            if batch_len >= BATCH:
                batch.append("")
                digest.update("\n".join(batch).encode("utf-8"))
                batch = []
                batch_len = 0
    if batch:
        batch.append("")
        digest.update("\n".join(batch).encode("utf-8"))
    seconds = time.perf_counter() - started
    result = {
        "bytes": total,
        "seconds": seconds,
        "mbps": total / 1e6 / seconds,
        "digest": "sha256:" + digest.hexdigest(),
        "maxRssKb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }
    sys.stdout.write(json.dumps(result) + "\n")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python_hash.py FILE")
    main(sys.argv[1])
