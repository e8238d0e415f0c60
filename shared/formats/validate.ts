import { z } from "zod";
import {
  isJsonObject,
  JsonNumber,
  type JsonObject,
  type JsonValue,
  memberPath,
  SHA256_TAG,
} from "../canonical/index.js";
import type { Findings } from "./types.js";

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

/** An ISO-8601 / RFC 3339 date-time with a timezone (`Z` or an offset). */
export const zTimestamp = () =>
  z
    .string()
    .regex(/^\d{4}-\d{2}-\d{2}[Tt ]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/, {
      message: "expected an ISO-8601 timestamp such as 2026-02-15T00:00:00Z",
      abort: true,
    })
    .refine((s) => !Number.isNaN(Date.parse(s.replace(" ", "T"))), "expected a real calendar date and time");

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
export function jsonPath(segments: readonly PropertyKey[], base = "$"): string {
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

/** The object's keys not in `known`, for "unknown field" notices. */
export function unknownKeys(value: JsonObject, known: ReadonlySet<string>): string[] {
  return Object.keys(value).filter((k) => !known.has(k));
}
