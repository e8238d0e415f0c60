import { z } from "zod";
import {
  isJsonObject,
  isSha256Tag,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  memberPath,
  SHA256_TAG,
} from "../canonical/index.js";
import type { FieldSet, Findings } from "./types.js";

/**
 * zod building blocks for values read by `readJson`, where numbers are `JsonNumber`s (their
 * source text kept). Each yields a plain number after validation.
 */
export const zNumber = (): z.ZodType<number, JsonNumber> =>
  z.instanceof(JsonNumber, { message: "expected a number" }).transform((n, ctx) => {
    const v = Number(n.text);
    if (!Number.isFinite(v)) {
      ctx.addIssue({ code: "custom", message: `expected a finite number, found ${n.text}` });
      return z.NEVER;
    }
    return v;
  });

/** A JSON number that is an integer (any spelling whose value is integral). */
export const zInteger = () => zNumber().pipe(z.number().int("expected an integer"));

/** A non-negative integer. */
export const zCount = () =>
  zNumber().pipe(z.number().int("expected an integer").min(0, "expected 0 or more"));

/** A number within [min, max]. */
export const zRange = (min: number, max: number) =>
  zNumber().pipe(
    z
      .number()
      .min(min, `expected a number from ${min} to ${max}`)
      .max(max, `expected a number from ${min} to ${max}`),
  );

/** `sha256:` and 64 lowercase hex digits. */
export const zHash = () =>
  z.string().regex(SHA256_TAG, "expected sha256: followed by 64 lowercase hex digits");

const TIMESTAMP = /^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;

/** For a string matching TIMESTAMP: whether it names a real date and time (not 2026-13-45). */
const isRealDate = (s: string): boolean => !Number.isNaN(Date.parse(s.replace(" ", "T")));

/** An ISO-8601 / RFC 3339 date-time with a timezone (`Z` or an offset). */
export const zTimestamp = () =>
  z
    .string()
    .regex(TIMESTAMP, {
      message: "expected an ISO-8601 timestamp such as 2026-02-15T00:00:00Z",
      abort: true,
    })
    .refine(isRealDate, "expected a real calendar date and time");

/**
 * A zod schema with a cheap stand-in: `accepts` is a hand-written predicate that holds only for
 * values `schema` accepts; it may reject more. Callers test `accepts` first and parse with `schema`
 * only when it fails, so a valid value costs a few property reads instead of a zod parse (which
 * was most of the per-line cost of reading a REPLAY.jsonl), while every finding still comes from
 * zod. Each builder below keeps the two side by side; anything a predicate is unsure of, it rejects.
 */
export interface Quick<S extends z.ZodType = z.ZodType> {
  readonly schema: S;
  readonly accepts: (value: JsonValue | undefined) => boolean;
}

/** Pairs `schema` with `accepts`, which must never hold for a value `schema` rejects. */
export function quick<S extends z.ZodType>(schema: S, accepts: Quick["accepts"]): Quick<S> {
  return { schema, accepts };
}

/** zNumber: a JSON number whose value is finite. */
export const qNumber = () => quick(zNumber(), (v) => numberOf(v) !== null);

/** zInteger: zod's `.int()` takes safe integers only. */
export const qInteger = () => quick(zInteger(), (v) => Number.isSafeInteger(numberOf(v)));

/** zCount: a safe integer from 0. */
export const qCount = () =>
  quick(zCount(), (v) => {
    const n = numberOf(v);
    return n !== null && Number.isSafeInteger(n) && n >= 0;
  });

/** zRange: a finite number from `min` to `max`, both included. */
export const qRange = (min: number, max: number) =>
  quick(zRange(min, max), (v) => {
    const n = numberOf(v);
    return n !== null && n >= min && n <= max;
  });

/** zHash: the same pattern. */
export const qHash = () => quick(zHash(), (v) => typeof v === "string" && isSha256Tag(v));

/**
 * The ECMA-262 Date Time String Format (`2026-02-15T09:00:08.000Z`, `...+01:00`) with every field in
 * its bounds: a subset of TIMESTAMP for which Date.parse must return a time value, so isRealDate
 * holds without calling it (Date.parse costs more than the rest of a line's checks together).
 */
const ES_DATE_TIME =
  /^\d{4}-(?:0[1-9]|1[0-2])-(?:0[1-9]|[12]\d|3[01])T(?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d(?:\.\d{3})?(?:Z|[+-](?:[01]\d|2[0-3]):[0-5]\d)$/;

/** zTimestamp: the common form by ES_DATE_TIME alone, any other by zod's own two tests. */
export const qTimestamp = () =>
  quick(
    zTimestamp(),
    (v) => typeof v === "string" && (ES_DATE_TIME.test(v) || (TIMESTAMP.test(v) && isRealDate(v))),
  );

/** `z.null()`. */
export const qNull = () => quick(z.null(), (v) => v === null);

/** Any value (zod still requires the member to be present unless it is optional). */
export const qUnknown = () => quick(z.unknown(), (v) => v !== undefined);

/** `.optional()`: a missing object member is `undefined` here, as it is to zod. */
export const qOptional = <S extends z.ZodType>(inner: Quick<S>) =>
  quick(inner.schema.optional(), (v) => v === undefined || inner.accepts(v));

/** `.nullable()`. */
export const qNullable = <S extends z.ZodType>(inner: Quick<S>) =>
  quick(inner.schema.nullable(), (v) => v === null || inner.accepts(v));

/** `z.union([a, b])`: valid when either option is. */
export const qUnion = <A extends z.ZodType, B extends z.ZodType>(a: Quick<A>, b: Quick<B>) =>
  quick(z.union([a.schema, b.schema]), (v) => a.accepts(v) || b.accepts(v));

/** `z.array(item, params)`. */
export const qArray = <S extends z.ZodType>(item: Quick<S>, params?: Parameters<typeof z.array>[1]) =>
  quick(z.array(item.schema, params), (v) => Array.isArray(v) && v.every(item.accepts));

/**
 * `z.looseObject(shape)`: other members pass. A member the shape requires but the value lacks is
 * `undefined`, which only `qOptional` (and never `qUnknown`) accepts, as zod requires.
 */
export function qLooseObject(shape: Readonly<Record<string, Quick>>): Quick<z.ZodObject> {
  const members = Object.entries(shape).map(([key, q]) => ({ key, accepts: q.accepts }));
  const schema = z.looseObject(Object.fromEntries(Object.entries(shape).map(([key, q]) => [key, q.schema])));
  return quick(schema, (value) => {
    if (!isJsonObject(value)) return false;
    for (const m of members) if (!m.accepts(value[m.key])) return false;
    return true;
  });
}

/** What a value is, in words, for "found …" in messages. */
export function describe(value: unknown): string {
  if (value === undefined) return "nothing (missing)";
  if (value === null) return "null";
  if (value instanceof JsonNumber) return `number ${value.text}`;
  if (Array.isArray(value)) return "an array";
  if (typeof value === "object") return "an object";
  if (typeof value === "string")
    return `string ${JSON.stringify(value.length > 60 ? `${value.slice(0, 57)}...` : value)}`;
  return `${typeof value} ${String(value)}`;
}

/** JSON path of zod issue path segments under `base` (`$` by default). */
function jsonPath(segments: readonly PropertyKey[], base = "$"): string {
  let out = base;
  for (const s of segments) out += typeof s === "number" ? `[${s}]` : memberPath(String(s));
  return out;
}

function valueAt(root: unknown, segments: readonly PropertyKey[]): unknown {
  let v: unknown = root;
  for (const s of segments) {
    if (v === null || typeof v !== "object") return undefined;
    v = (v as Record<PropertyKey, unknown>)[s];
  }
  return v;
}

/**
 * Validates `value` with `schema`; each zod issue becomes an error finding at `line` with the JSON
 * path, what was expected and what was found. Returns the parsed value, or undefined on errors.
 */
export function validate<T>(
  schema: z.ZodType<T, unknown>,
  value: JsonValue,
  findings: Findings,
  where: { line: number | null; code: string; base?: string },
): T | undefined {
  const result = schema.safeParse(value);
  if (result.success) return result.data;
  for (const issue of result.error.issues) {
    const found = valueAt(value, issue.path);
    findings.error({
      line: where.line,
      column: null,
      path: jsonPath(issue.path, where.base),
      code: found === undefined ? `${where.code}.missing_field` : `${where.code}.invalid_field`,
      message: `${jsonPath(issue.path, where.base)}: ${issue.message}${found === undefined ? "" : `, found ${describe(found)}`}`,
      expected: issue.message.replace(/^Invalid input: /, ""),
      found: describe(found),
    });
  }
  return undefined;
}

/** The member `key` of an object value, or undefined. */
export function member(value: JsonValue | undefined, key: string): JsonValue | undefined {
  return isJsonObject(value) && Object.hasOwn(value, key) ? value[key] : undefined;
}

/** A string member, or null. */
export function stringMember(value: JsonValue | undefined, key: string): string | null {
  const v = member(value, key);
  return typeof v === "string" ? v : null;
}

/** A JSON number as a finite number, or null for anything else. */
export function numberOf(value: JsonValue | undefined): number | null {
  if (!(value instanceof JsonNumber)) return null;
  const n = Number(value.text);
  return Number.isFinite(n) ? n : null;
}

/** A numeric member as a number, or null. */
export function numberMember(value: JsonValue | undefined, key: string): number | null {
  return numberOf(member(value, key));
}

/** The members of an object schema, and those it requires (not optional). */
export function fieldsOf(schema: z.ZodObject): FieldSet {
  const names = Object.keys(schema.shape);
  return {
    known: new Set(names),
    required: new Set(names.filter((name) => schema.shape[name]?._zod.optin !== "optional")),
  };
}

/** The object's keys not in `known`, for "unknown field" notices. */
export function unknownKeys(value: JsonObject, known: ReadonlySet<string>): string[] {
  return Object.keys(value).filter((k) => !known.has(k));
}
