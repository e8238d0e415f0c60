/**
 * Number text as each producer prints it. All three start from the shortest round-trip decimal
 * digits of a double (what ECMAScript, ryu and Python's repr share) and differ only in layout.
 */

/** Shortest round-trip digits of a finite, non-zero |v|: value = 0.<digits> × 10^point. */
interface Decimal {
  digits: string;
  point: number;
}

function shortestDecimal(abs: number): Decimal {
  const s = String(abs);
  const e = s.indexOf("e");
  if (e !== -1) {
    const mantissa = s.slice(0, e);
    const dot = mantissa.indexOf(".");
    const digits = dot === -1 ? mantissa : mantissa.slice(0, dot) + mantissa.slice(dot + 1);
    return { digits, point: Number(s.slice(e + 1)) + 1 };
  }
  const dot = s.indexOf(".");
  if (dot === -1) {
    let end = s.length;
    while (end > 1 && s.charCodeAt(end - 1) === 48) end--;
    return { digits: s.slice(0, end), point: s.length };
  }
  if (dot === 1 && s.charCodeAt(0) === 48) {
    let k = 2;
    while (s.charCodeAt(k) === 48) k++;
    return { digits: s.slice(k), point: 2 - k };
  }
  return { digits: s.slice(0, dot) + s.slice(dot + 1), point: dot };
}

/** RFC 8785 / ECMAScript `Number.prototype.toString`; `-0` prints `0`. */
export function formatEs6(v: number): string {
  return v === 0 ? "0" : String(v);
}

/**
 * serde_json's float text (ryu layout): `1.0`, `0.001`, `1e16`, `1.5e-7`, `-0.0`.
 * Fixed notation for 1e-5 <= |v| < 1e16, scientific otherwise, exponent without `+`.
 */
export function formatRyu(v: number): string {
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const sign = v < 0 ? "-" : "";
  const { digits, point } = shortestDecimal(Math.abs(v));
  const len = digits.length;
  if (point >= len && point <= 16) return `${sign}${digits}${"0".repeat(point - len)}.0`;
  if (point > 0 && point <= 16) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  if (point > -5 && point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
  const mantissa = len === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${sign}${mantissa}e${point - 1}`;
}

/**
 * Python's `repr(float)`: `1.0`, `0.0001`, `1e-05`, `1e+16`, `-0.0`. Fixed notation for
 * 1e-4 <= |v| < 1e16, scientific otherwise with a signed exponent of at least two digits.
 */
export function formatPythonFloat(v: number): string {
  if (v === 0) return Object.is(v, -0) ? "-0.0" : "0.0";
  const sign = v < 0 ? "-" : "";
  const { digits, point } = shortestDecimal(Math.abs(v));
  const len = digits.length;
  if (point > -4 && point <= 16) {
    if (point <= 0) return `${sign}0.${"0".repeat(-point)}${digits}`;
    if (point >= len) return `${sign}${digits}${"0".repeat(point - len)}.0`;
    return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`;
  }
  const exp = point - 1;
  const mantissa = len === 1 ? digits : `${digits[0]}.${digits.slice(1)}`;
  return `${sign}${mantissa}e${exp < 0 ? "-" : "+"}${String(Math.abs(exp)).padStart(2, "0")}`;
}

/**
 * Python's `float(f"{v:.12g}")`: v rounded to 12 significant digits, ties to even on the exact
 * binary value (ECMAScript's toPrecision breaks ties upward, so exact ties are found and fixed).
 */
export function roundTo12Significant(v: number): number {
  if (v === 0 || !Number.isFinite(v)) return v;
  const up = v.toPrecision(12);
  const thirteen = Math.abs(v).toPrecision(13);
  const e = thirteen.indexOf("e");
  const mantissa = e === -1 ? thirteen : thirteen.slice(0, e);
  if (mantissa.charCodeAt(mantissa.length - 1) !== 53 /* '5' */ || !isExactly(Math.abs(v), thirteen))
    return Number(up);
  // An exact tie: keep the 12-digit truncation when its last digit is even.
  const digits = mantissa.replace(".", "").replace(/^0+/, "");
  const last12 = digits.charCodeAt(11) - 48;
  if (last12 % 2 !== 0) return Number(up);
  const truncated = `${mantissa.slice(0, -1)}0${e === -1 ? "" : thirteen.slice(e)}`;
  return v < 0 ? -Number(truncated) : Number(truncated);
}

/** True when the decimal text `dec` equals the double `v` exactly (BigInt arithmetic). */
function isExactly(v: number, dec: string): boolean {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(dec);
  if (m === null) return false;
  const frac = m[2] ?? "";
  const num = BigInt((m[1] ?? "") + frac);
  const exp10 = Number(m[3] ?? "0") - frac.length;
  const view = new DataView(new ArrayBuffer(8));
  view.setFloat64(0, v);
  const hi = view.getUint32(0);
  const lo = view.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  let mant = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  const exp2 = biased === 0 ? -1074 : biased - 1075;
  if (biased !== 0) mant |= 1n << 52n;
  // Compare num × 10^exp10 with mant × 2^exp2 as integers.
  let left = num;
  let right = mant;
  if (exp10 >= 0) left *= 10n ** BigInt(exp10);
  else right *= 10n ** BigInt(-exp10);
  if (exp2 >= 0) right <<= BigInt(exp2);
  else left <<= BigInt(-exp2);
  return left === right;
}

const U64_MAX = "18446744073709551615";
const I64_MIN_ABS = "9223372036854775808";

/**
 * True when serde_json keeps an integer as written: `digits` (no sign, no leading zeros) fits
 * u64, or with `negative` fits i64. Larger integers become f64. `-0` is not asked about here.
 */
export function fitsSerdeInteger(digits: string, negative: boolean): boolean {
  const max = negative ? I64_MIN_ABS : U64_MAX;
  return digits.length < max.length || (digits.length === max.length && digits <= max);
}

/** Orders strings by Unicode code point (UTF-8 byte order), as Rust's BTreeMap and Python do. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let k = 0; k < n; k++) {
    const x = a.codePointAt(k) as number;
    const y = b.codePointAt(k) as number;
    if (x !== y) return x - y;
    if (x > 0xffff) k++;
  }
  return a.length - b.length;
}
