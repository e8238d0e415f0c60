/**
 * A JSON number kept as its source text, so that `1.0` and `1`, or an integer above 2^53, survive
 * reading: each canonical profile decides from the text what the producer would have printed.
 */
export class JsonNumber {
  /** The number exactly as written in the source (JSON grammar, already validated). */
  readonly text: string;

  constructor(text: string) {
    this.text = text;
  }

  /** True when the source has neither fraction nor exponent (`12`, `-0`). */
  get isIntegerText(): boolean {
    return !/[.eE]/.test(this.text);
  }

  /** The nearest IEEE-754 double (may be ±Infinity when the text overflows). */
  valueOf(): number {
    return Number(this.text);
  }

  toJSON(): number {
    return Number(this.text);
  }

  toString(): string {
    return this.text;
  }
}

/** A JSON object as read: own enumerable properties, no duplicate keys. */
export interface JsonObject {
  [key: string]: JsonValue;
}

/** A JSON value as read losslessly: numbers keep their text. */
export type JsonValue = null | boolean | string | JsonNumber | JsonValue[] | JsonObject;

/** True for a JSON object (not an array, not null, not a number). */
export function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return (
    typeof value === "object" && value !== null && !Array.isArray(value) && !(value instanceof JsonNumber)
  );
}

/** Sets `obj[key] = value` as an own data property, even for the key `__proto__`. */
export function setMember(obj: JsonObject, key: string, value: JsonValue): void {
  if (key === "__proto__") {
    Object.defineProperty(obj, key, { value, enumerable: true, writable: true, configurable: true });
  } else {
    obj[key] = value;
  }
}
