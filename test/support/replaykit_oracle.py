#!/usr/bin/env python3
"""Independent oracle for the `replaykit` canonical profile.

Written from the rules in ../shared/specs/HASHING-NOTES.md (not from ReplayKit's code), using only
Python's own json, datetime, posixpath and re, so that the TypeScript implementation can be checked
against the real Python behaviour it imitates (float formatting, str.strip, fromisoformat, ...).

Input: JSON Lines on stdin, each line {"value": <json>, "strip": <bool>}.
Output: one line per input line, in order: the canonical JSON text, or {"error": "<ExceptionType>"}
when canonicalization raises (NaN/Infinity, a timestamp that overflows when moved to UTC, ...).

With `--artifacts SCHEMA`: each stdin line is one whole 1.x `.rpk` artifact. Each answer line is
{"schema_errors": [...], "step_hashes": [...], "checksum": "sha256:..."}: the artifact checked
against the published JSON Schema file SCHEMA with the `jsonschema` package's Draft 2020-12
validator (the validator ReplayKit itself uses), and its step hashes and checksum recomputed from
the rules above: a step hash is the sha256 of the canonical {type, input, output, metadata} with
volatile keys stripped, the checksum the sha256 of the canonical {version, metadata, payload}.
"""

import hashlib
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


def sha256_of(value, strip):
    return "sha256:" + hashlib.sha256(dumps(canon(value, None, strip)).encode("utf-8")).hexdigest()


def check_artifacts(schema_path):
    from jsonschema import Draft202012Validator  # only this mode needs the package

    with open(schema_path, encoding="utf-8") as schema_file:
        validator = Draft202012Validator(json.load(schema_file))
    out = sys.stdout
    for raw_line in sys.stdin.buffer.read().split(b"\n"):
        if raw_line.strip() == b"":
            continue
        doc = json.loads(raw_line.decode("utf-8"))
        errors = sorted(
            "/".join(str(p) for p in error.absolute_path) + ": " + error.message
            for error in validator.iter_errors(doc)
        )
        steps = doc.get("payload", {}).get("run", {}).get("steps", [])
        step_hashes = [
            sha256_of(
                {
                    "type": step.get("type"),
                    "input": step.get("input"),
                    "output": step.get("output"),
                    "metadata": step.get("metadata", {}),
                },
                True,
            )
            for step in steps
        ]
        checksum = sha256_of(
            {"version": doc.get("version"), "metadata": doc.get("metadata"), "payload": doc.get("payload")},
            False,
        )
        answer = {"schema_errors": errors, "step_hashes": step_hashes, "checksum": checksum}
        out.write(json.dumps(answer))
        out.write("\n")
    out.flush()


def main():
    if len(sys.argv) == 3 and sys.argv[1] == "--artifacts":
        check_artifacts(sys.argv[2])
        return
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
