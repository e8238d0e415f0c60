import { describe, expect, it } from "vitest";
import { formatEs6, formatPythonFloat, formatRyu, roundTo12Significant } from "#shared/canonical/numbers.js";

describe("formatRyu (serde_json floats)", () => {
  it.each([
    [1, "1.0"],
    [0, "0.0"],
    [-0, "-0.0"],
    [0.5, "0.5"],
    [100, "100.0"],
    [1e15, "1000000000000000.0"],
    [1e16, "1e16"],
    [1.5e16, "1.5e16"],
    [123456789012345680000, "1.2345678901234568e20"],
    [0.0001, "0.0001"],
    [0.00001, "0.00001"],
    [0.000001, "1e-6"],
    [1.5e-7, "1.5e-7"],
    [-2.5, "-2.5"],
    [5e-324, "5e-324"],
    [1.7976931348623157e308, "1.7976931348623157e308"],
    [0.1 + 0.2, "0.30000000000000004"],
  ])("%s → %s", (value, text) => {
    expect(formatRyu(value)).toBe(text);
  });
});

describe("formatPythonFloat (repr)", () => {
  it.each([
    [1, "1.0"],
    [0, "0.0"],
    [-0, "-0.0"],
    [1e16, "1e+16"],
    [1e15, "1000000000000000.0"],
    [1.5e16, "1.5e+16"],
    [0.0001, "0.0001"],
    [0.00001, "1e-05"],
    [1.5e-7, "1.5e-07"],
    [1e22, "1e+22"],
    [1e100, "1e+100"],
    [5e-324, "5e-324"],
    [123456789012345680000, "1.2345678901234568e+20"],
    [-3.25, "-3.25"],
  ])("%s → %s", (value, text) => {
    expect(formatPythonFloat(value)).toBe(text);
  });
});

describe("formatEs6 (RFC 8785 numbers)", () => {
  it.each([
    [-0, "0"],
    [1, "1"],
    [1e21, "1e+21"],
    [1e20, "100000000000000000000"],
    [1e-7, "1e-7"],
    [0.000001, "0.000001"],
    [2 ** 60, "1152921504606847000"], // a double: shortest digits, zero-filled
  ])("%s → %s", (value, text) => {
    expect(formatEs6(value)).toBe(text);
  });
});

describe("roundTo12Significant (Python float(f'{v:.12g}'))", () => {
  it.each([
    [1234567890125, 1234567890120], // exact tie, even digit kept: round half to even
    [1234567890135, 1234567890140], // exact tie, odd digit rounds up
    [-1234567890125, -1234567890120],
    [0.1 + 0.2, 0.3],
    [1 / 3, 0.333333333333],
    [123456789012345680, 123456789012000000],
    [5e-324, 5e-324],
    [1.7976931348623157e308, 1.79769313486e308],
    [0, 0],
    [2.675, 2.675],
  ])("%s → %s", (value, rounded) => {
    expect(roundTo12Significant(value)).toBe(rounded);
  });

  it("keeps -0", () => {
    expect(Object.is(roundTo12Significant(-0), -0)).toBe(true);
  });
});
