import { describe, expect, it } from "vitest";
import { asAdapterError, isTransientAwsError } from "../../functions/adapters/errors.js";
import { TransientError } from "../../shared/errors.js";
import { connectionReset, serviceError } from "../support/aws-fakes.js";

describe("isTransientAwsError", () => {
  it.each([
    ["ThrottlingException", 400],
    ["ProvisionedThroughputExceededException", 400],
    ["SlowDown", 503],
    ["InternalError", 500],
    ["SomethingNew", 502],
  ])("calls %s (%i) transient", (name, status) => {
    expect(isTransientAwsError(serviceError(name, status))).toBe(true);
  });

  it.each([
    ["AccessDenied", 403],
    ["NoSuchKey", 404],
    ["ValidationException", 400],
    ["ConditionalCheckFailedException", 400],
  ])("calls %s (%i) not transient", (name, status) => {
    expect(isTransientAwsError(serviceError(name, status))).toBe(false);
  });

  it("calls dropped connections and timeouts transient, plain errors and non-errors not", () => {
    expect(isTransientAwsError(connectionReset())).toBe(true);
    expect(isTransientAwsError(Object.assign(new Error("t"), { code: "ETIMEDOUT" }))).toBe(true);
    expect(isTransientAwsError(Object.assign(new Error("t"), { name: "TimeoutError" }))).toBe(true);
    expect(isTransientAwsError(new Error("bug"))).toBe(false);
    expect(isTransientAwsError("ECONNRESET")).toBe(false);
  });
});

describe("asAdapterError", () => {
  it("wraps a transient fault once, keeping it as the cause, and passes others through", () => {
    const slow = serviceError("SlowDown", 503);
    const wrapped = asAdapterError(slow, "GetObject k");
    expect(wrapped).toBeInstanceOf(TransientError);
    expect((wrapped as TransientError).cause).toBe(slow);
    expect((wrapped as TransientError).message).toBe("GetObject k: SlowDown: SlowDown (fake)");
    expect(asAdapterError(wrapped, "again")).toBe(wrapped);
    const denied = serviceError("AccessDenied", 403);
    expect(asAdapterError(denied, "x")).toBe(denied);
  });
});
