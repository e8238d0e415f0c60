#!/usr/bin/env python3
"""Independent oracle for the `replaykit` canonical profile.

Written from the rules in ../shared/specs/HASHING-NOTES.md (not from ReplayKit's code), using only
Python's own json, datetime, posixpath and re, so that the TypeScript implementation can be checked
against the real Python behaviour it imitates (float formatting, str.strip, fromisoformat, ...).

Input: JSON Lines on stdin, each line {"value": <json>, "strip": <bool>}.
Output: one line per input line, in order: the canonical JSON text, or {"error": "<ExceptionType>"}
when canonicalization raises (NaN/Infinity, a timestamp that overflows when moved to UTC, ...).
"""

import json
import math
import posixpath
import re
import sys
from datetime import datetime, timezone

VOLATILE_KEYS = frozenset(
    {
        "duration_ms",
        "latency_ms",
        "wall_time_ms",
        "request_id",
        "trace_id",
        "span_id",
        "captured_at",
        "captured_ns",
        "thread_id",
        "pid",
    }
)
UNORDERED_LIST_KEYS = frozenset({"tags", "labels", "capabilities"})
PATH_KEYS = frozenset(
    {"path", "file", "filepath", "file_path", "cwd", "dir", "directory", "working_directory"}
)
TIMESTAMP_KEYS = frozenset(
    {"timestamp", "created_at", "updated_at", "started_at", "ended_at", "captured_at"}
)
DRIVE = re.compile(r"^(?P<drive>[A-Za-z]):[\\/](?P<rest>.*)$")
REPEATED_SLASHES = re.compile(r"/{2,}")


def dumps(value):
    return json.dumps(value, ensure_ascii=True, separators=(",", ":"), sort_keys=True)


def is_path_key(lower):
    return lower in PATH_KEYS or lower.endswith("_path") or lower.endswith("_dir")


def normalize_path(text):
    candidate = text.replace("\\", "/")
    match = DRIVE.match(candidate)
    if match is not None:
        candidate = "/" + match.group("drive").lower() + "/" + match.group("rest")
    candidate = REPEATED_SLASHES.sub("/", candidate)
    result = posixpath.normpath(candidate)
    if candidate.endswith("/") and result != "/":
        result += "/"
    return result


def normalize_timestamp(text):
    raw = text.strip()
    if raw == "":
        return raw
    target = raw[:-1] + "+00:00" if raw.endswith("Z") else raw
    try:
        parsed = datetime.fromisoformat(target)
    except ValueError:
        return raw
    if parsed.tzinfo is None or parsed.utcoffset() is None:
        return raw
    utc = parsed.astimezone(timezone.utc)  # may raise OverflowError near years 1 and 9999
    return utc.isoformat(timespec="microseconds").replace("+00:00", "Z")


def normalize_string(text, key):
    text = text.replace("\r\n", "\n").replace("\r", "\n")
    if key is None:
        return text
    lower = key.lower()
    if is_path_key(lower):
        return normalize_path(text)
    if lower in TIMESTAMP_KEYS:
        return normalize_timestamp(text)
    return text


def canon(value, key, strip):
    if isinstance(value, dict):
        out = {}
        for name in sorted(value):
            if strip and name.lower() in VOLATILE_KEYS:
                continue
            out[name] = canon(value[name], name, strip)
        return out
    if isinstance(value, list):
        items = [canon(item, "[]", strip) for item in value]
        if key is not None and key.lower() in UNORDERED_LIST_KEYS:
            items = sorted(items, key=dumps)
        return items
    if isinstance(value, str):
        return normalize_string(value, key)
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return value
    if isinstance(value, float):
        if math.isnan(value) or math.isinf(value):
            raise ValueError("NaN and Infinity are not canonical")
        return float(f"{value:.12g}")
    raise TypeError(f"unexpected {type(value).__name__}")


def main():
    out = sys.stdout
    for raw_line in sys.stdin.buffer.read().split(b"\n"):
        if raw_line.strip() == b"":
            continue
        try:
            case = json.loads(raw_line.decode("utf-8"), parse_float=float)
            result = dumps(canon(case["value"], None, bool(case["strip"])))
        except Exception as error:  # noqa: BLE001 - the type name is the oracle's answer
            result = json.dumps({"error": type(error).__name__})
        out.write(result)
        out.write("\n")
    out.flush()


if __name__ == "__main__":
    main()
