/**
 * ReplayKit's value normalizations (replaypack `core/canonical.py`), reproduced rule for rule so
 * hashes match the producer's: path strings to POSIX form, timezone-aware timestamps to UTC, the
 * key lists that decide which rule applies.
 */
import { CanonicalizationError } from "../errors.js";

/** Keys whose lists ReplayKit sorts (compared lower-cased). */
export const UNORDERED_LIST_KEYS: ReadonlySet<string> = new Set(["tags", "labels", "capabilities"]);

/** Keys ReplayKit drops before hashing a step, at any depth (compared lower-cased). */
export const VOLATILE_KEYS: ReadonlySet<string> = new Set([
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
]);

const PATH_KEYS: ReadonlySet<string> = new Set([
  "path",
  "file",
  "filepath",
  "file_path",
  "cwd",
  "dir",
  "directory",
  "working_directory",
]);

const TIMESTAMP_KEYS: ReadonlySet<string> = new Set([
  "timestamp",
  "created_at",
  "updated_at",
  "started_at",
  "ended_at",
  "captured_at",
]);

/** True when strings under `lowerKey` are paths to ReplayKit. */
export function isPathKey(lowerKey: string): boolean {
  return PATH_KEYS.has(lowerKey) || lowerKey.endsWith("_path") || lowerKey.endsWith("_dir");
}

/** True when strings under `lowerKey` are timestamps to ReplayKit. */
export function isTimestampKey(lowerKey: string): boolean {
  return TIMESTAMP_KEYS.has(lowerKey);
}

// Python's `re.match(r"^([A-Za-z]):[\\/](.*)$")` after backslashes became slashes: `.` stops at
// a newline and `$` also matches before one final newline, which the match then drops.
const WINDOWS_DRIVE = /^([A-Za-z]):\/([^\n]*)\n?$/;

/** ReplayKit `_normalize_path`: backslashes to slashes, `C:` to `/c`, then `posixpath.normpath`. */
export function normalizePath(value: string): string {
  let candidate = value.replaceAll("\\", "/");
  const drive = WINDOWS_DRIVE.exec(candidate);
  if (drive !== null) candidate = `/${(drive[1] as string).toLowerCase()}/${drive[2] as string}`;
  candidate = candidate.replace(/\/{2,}/g, "/");
  const normalized = posixNormpath(candidate);
  return candidate.endsWith("/") && normalized !== "/" ? `${normalized}/` : normalized;
}

/** Python `posixpath.normpath` (input already has no repeated slashes). */
function posixNormpath(path: string): string {
  if (path === "") return ".";
  const rooted = path.startsWith("/");
  const out: string[] = [];
  for (const comp of path.split("/")) {
    if (comp === "" || comp === ".") continue;
    if (comp !== ".." || (!rooted && out.length === 0) || (out.length > 0 && out[out.length - 1] === "..")) {
      out.push(comp);
    } else if (out.length > 0) {
      out.pop();
    }
  }
  const joined = (rooted ? "/" : "") + out.join("/");
  return joined === "" ? "." : joined;
}

// Python's str.strip() whitespace (str.isspace), which differs from ECMAScript's \s.
const PY_SPACE =
  "\\t\\n\\x0b\\x0c\\r\\x1c-\\x20\\x85\\xa0\\u1680\\u2000-\\u200a\\u2028\\u2029\\u202f\\u205f\\u3000";
const PY_STRIP = new RegExp(`^[${PY_SPACE}]+|[${PY_SPACE}]+$`, "g");

/**
 * ReplayKit `_normalize_timestamp`: strip, parse with Python 3.12 `datetime.fromisoformat`
 * (after `Z` → `+00:00`); a timezone-aware value becomes UTC `YYYY-MM-DDTHH:MM:SS.ffffffZ`,
 * anything else is returned stripped and otherwise unchanged. A UTC time outside years 1-9999
 * (where Python raises OverflowError: the producer cannot hash it) throws `CanonicalizationError`
 * `canonical.timestamp_range`.
 */
export function normalizeTimestamp(value: string): string {
  const raw = value.replace(PY_STRIP, "");
  if (raw === "") return raw;
  const target = raw.endsWith("Z") ? `${raw.slice(0, -1)}+00:00` : raw;
  const parsed = parseIsoDatetime(target);
  if (parsed === undefined || parsed.offsetMicros === undefined) return raw;
  // Days and microseconds of the day kept apart: one count of microseconds since 1970 would pass
  // 2^53 for dates centuries away and lose the last digits.
  let days = daysFromCivil(parsed.year, parsed.month, parsed.day);
  let rest =
    ((parsed.hour * 60 + parsed.minute) * 60 + parsed.second) * 1_000_000 +
    parsed.microsecond -
    parsed.offsetMicros;
  const carry = Math.floor(rest / 86_400_000_000);
  days += carry;
  rest -= carry * 86_400_000_000;
  const { year, month, day } = civilFromDays(days);
  if (year < 1 || year > 9999) {
    throw new CanonicalizationError(
      "canonical.timestamp_range",
      `timestamp ${JSON.stringify(value)} converted to UTC falls outside years 1-9999`,
    );
  }
  const hour = Math.floor(rest / 3_600_000_000);
  rest -= hour * 3_600_000_000;
  const minute = Math.floor(rest / 60_000_000);
  rest -= minute * 60_000_000;
  const second = Math.floor(rest / 1_000_000);
  const micro = rest - second * 1_000_000;
  return `${pad(year, 4)}-${pad(month, 2)}-${pad(day, 2)}T${pad(hour, 2)}:${pad(minute, 2)}:${pad(second, 2)}.${pad(micro, 6)}Z`;
}

function pad(n: number, width: number): string {
  return String(n).padStart(width, "0");
}

interface IsoDatetime {
  year: number;
  month: number;
  day: number;
  hour: number;
  minute: number;
  second: number;
  microsecond: number;
  /** UTC offset in microseconds; undefined for a naive value. */
  offsetMicros: number | undefined;
}

const isDigit = (s: string, i: number): boolean => {
  const c = s.charCodeAt(i);
  return c >= 48 && c <= 57;
};

function digits(s: string, at: number, count: number): number | undefined {
  let v = 0;
  for (let k = 0; k < count; k++) {
    if (!isDigit(s, at + k)) return undefined;
    v = v * 10 + s.charCodeAt(at + k) - 48;
  }
  return v;
}

/** CPython 3.12 `_find_isoformat_datetime_separator`. */
function separatorIndex(s: string): number {
  const len = s.length;
  if (len === 7) return 7;
  if (s[4] === "-") {
    if (s[5] !== "W") return 10;
    if (len < 8) return -1;
    if (len > 8 && s[8] === "-") {
      if (len === 9) return -1;
      return len > 10 && isDigit(s, 10) ? 8 : 10;
    }
    return 8;
  }
  if (s[4] === "W") {
    let idx = 7;
    while (idx < len && isDigit(s, idx)) idx++;
    if (idx < 9) return idx;
    return idx % 2 === 0 ? 7 : 8;
  }
  return 8;
}

/** CPython 3.12 `datetime.fromisoformat`, returning undefined where it raises ValueError. */
function parseIsoDatetime(s: string): IsoDatetime | undefined {
  // The C parser works on ASCII only; a non-ASCII separator is the one exception, read as 'T'.
  if (s.length < 7) return undefined;
  const sep = separatorIndex(s);
  if (sep < 0) return undefined;
  // CPython reads any single non-ASCII character (an emoji too) as the separator.
  let text = s;
  if (sep < s.length && s.charCodeAt(sep) > 0x7f) {
    const width = (s.codePointAt(sep) ?? 0) > 0xffff ? 2 : 1;
    text = `${s.slice(0, sep)}T${s.slice(sep + width)}`;
  }
  for (let k = 0; k < text.length; k++) if (text.charCodeAt(k) > 0x7f) return undefined;
  const date = parseIsoDate(text.slice(0, sep));
  if (date === undefined) return undefined;
  const result: IsoDatetime = {
    ...date,
    hour: 0,
    minute: 0,
    second: 0,
    microsecond: 0,
    offsetMicros: undefined,
  };
  if (text.length > sep) {
    const time = parseIsoTime(text.slice(sep + 1));
    if (time === undefined) return undefined;
    Object.assign(result, time);
  }
  const { month, day, hour, minute, second } = result;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(result.year, month)) return undefined;
  if (hour > 23 || minute > 59 || second > 59 || result.year < 1) return undefined;
  return result;
}

function parseIsoDate(s: string): { year: number; month: number; day: number } | undefined {
  const year = digits(s, 0, 4);
  if (year === undefined) return undefined;
  let p = 4;
  const extended = s[p] === "-";
  if (extended) p++;
  if (s[p] === "W") {
    p++;
    const week = digits(s, p, 2);
    if (week === undefined) return undefined;
    p += 2;
    let weekday = 1;
    if (p < s.length) {
      if (extended && s[p++] !== "-") return undefined;
      const d = digits(s, p, 1);
      if (d === undefined) return undefined;
      weekday = d;
    }
    return fromIsoCalendar(year, week, weekday);
  }
  const month = digits(s, p, 2);
  if (month === undefined) return undefined;
  p += 2;
  if (extended && s[p++] !== "-") return undefined;
  const day = digits(s, p, 2);
  if (day === undefined) return undefined;
  return { year, month, day };
}

/** `date.fromisocalendar`: week 1 holds the year's first Thursday. */
function fromIsoCalendar(
  year: number,
  week: number,
  weekday: number,
): { year: number; month: number; day: number } | undefined {
  if (year < 1 || weekday < 1 || weekday > 7 || week < 1) return undefined;
  const jan4 = daysFromCivil(year, 1, 4);
  const week1Monday = jan4 - isoWeekdayIndex(jan4);
  const nextWeek1Monday = daysFromCivil(year + 1, 1, 4) - isoWeekdayIndex(daysFromCivil(year + 1, 1, 4));
  if (week > (nextWeek1Monday - week1Monday) / 7) return undefined;
  const date = civilFromDays(week1Monday + (week - 1) * 7 + (weekday - 1));
  return date.year < 1 || date.year > 9999 ? undefined : date;
}

/** 0 for Monday … 6 for Sunday; day 0 (1970-01-01) was a Thursday. */
function isoWeekdayIndex(days: number): number {
  return (((days + 3) % 7) + 7) % 7;
}

/** CPython `parse_isoformat_time` and `parse_hh_mm_ss_ff`, for the part after the separator. */
function parseIsoTime(
  s: string,
): Pick<IsoDatetime, "hour" | "minute" | "second" | "microsecond" | "offsetMicros"> | undefined {
  let tzPos = 0;
  while (tzPos < s.length && s[tzPos] !== "Z" && s[tzPos] !== "+" && s[tzPos] !== "-") tzPos++;
  const clock = parseHhMmSsFf(s, 0, tzPos);
  if (clock === undefined) return undefined;
  if (tzPos >= s.length) return clock.trailing ? undefined : { ...clock.value, offsetMicros: undefined };
  if (s[tzPos] === "Z") return tzPos + 1 === s.length ? { ...clock.value, offsetMicros: 0 } : undefined;
  const sign = s[tzPos] === "-" ? -1 : 1;
  const tz = parseHhMmSsFf(s, tzPos + 1, s.length);
  if (tz === undefined || tz.trailing) return undefined;
  const { hour, minute, second, microsecond } = tz.value;
  const offsetSeconds = (hour * 60 + minute) * 60 + second;
  // CPython returns plain UTC for an offset of zero seconds, dropping any microseconds in it.
  const offset = offsetSeconds === 0 ? 0 : offsetSeconds * 1_000_000 + microsecond;
  // datetime.timezone accepts offsets strictly within one day.
  if (offset >= 86_400_000_000) return undefined;
  return { ...clock.value, offsetMicros: sign * offset };
}

function parseHhMmSsFf(
  s: string,
  start: number,
  end: number,
):
  | { value: { hour: number; minute: number; second: number; microsecond: number }; trailing: boolean }
  | undefined {
  const vals = [0, 0, 0];
  let p = start;
  let hasSeparator = true;
  let fraction = false;
  for (let i = 0; i < 3; i++) {
    const v = digits(s, p, 2);
    if (v === undefined || p + 2 > end) return undefined;
    vals[i] = v;
    p += 2;
    const c = s[p];
    p++;
    if (i === 0) hasSeparator = c === ":";
    if (p >= end) {
      return {
        value: { hour: vals[0] ?? 0, minute: vals[1] ?? 0, second: vals[2] ?? 0, microsecond: 0 },
        trailing: c !== undefined,
      };
    }
    if (hasSeparator && c === ":") continue;
    if (c === "." || c === ",") {
      fraction = true;
      break;
    }
    if (!hasSeparator) p--;
    else return undefined;
  }
  let microsecond = 0;
  if (fraction) {
    const take = Math.min(end - p, 6);
    if (take <= 0) return undefined;
    const f = digits(s, p, take);
    if (f === undefined) return undefined;
    microsecond = f * 10 ** (6 - take);
    p += take;
    while (p < end && isDigit(s, p)) p++;
  }
  return {
    value: { hour: vals[0] ?? 0, minute: vals[1] ?? 0, second: vals[2] ?? 0, microsecond },
    trailing: p < s.length,
  };
}

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
}

function daysInMonth(y: number, m: number): number {
  return m === 2 ? (isLeap(y) ? 29 : 28) : ([31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1] ?? 0);
}

/** Days since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's algorithm). */
function daysFromCivil(y0: number, m: number, d: number): number {
  const y = m <= 2 ? y0 - 1 : y0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function civilFromDays(z0: number): { year: number; month: number; day: number } {
  const z = z0 + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  );
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}
