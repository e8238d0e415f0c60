/**
 * Objects that name their value by a field (`{"name": "DB_PASSWORD", "value": "x"}` in a container's
 * environment, `{"Key": …, "Value": …}` AWS tags, `ParameterKey`/`ParameterValue` stack
 * parameters): the value is scrubbed as if it stood under the name it is given, in the free
 * content Layer C keeps (a failed ToolResult's `error`); the same shapes under other names keep
 * their values.
 */
import { describe, expect, it } from "vitest";
import type { JsonObject } from "#shared/canonical/index.js";
import { copyOfError } from "./helpers.js";

/** The Layer C copy of the `details` of a failed ToolResult's `error` (kept free text, scrubbed). */
const copyOfDetails = (details: JsonObject): JsonObject => copyOfError({ details }).details as JsonObject;

describe("a value named by a sibling field", () => {
  it("is redacted when the name is a credential's, in each spelling of the pair", () => {
    const copy = JSON.stringify(
      copyOfDetails({
        env: [
          { name: "DB_PASSWORD", value: "Winter2024!" },
          { name: "LOG_LEVEL", value: "debug" },
        ],
        tags: [{ Key: "api_token", Value: "hunter2hunter2" }],
        parameters: [{ ParameterKey: "AdminSecret", ParameterValue: "correct horse" }],
      }),
    );
    for (const secret of ["Winter2024!", "hunter2hunter2", "correct horse"])
      expect(copy).not.toContain(secret);
    expect(copy).toContain('"value":"debug"');
    expect(copy).toContain('"name":"DB_PASSWORD"');
  });

  it("is a cookie's, whatever the cookie's name, in a list of cookies (a browser's saved state, a HAR file)", () => {
    const copy = JSON.stringify(
      copyOfDetails({
        cookies: [
          { name: "sid", value: "s%3Ak8s2jd8ek2", domain: "app.example.com" },
          { name: "theme", value: "dark", domain: "app.example.com" },
        ],
      }),
    );
    expect(copy).not.toContain("k8s2jd8ek2");
    expect(copy).not.toContain("dark");
    expect(copy).toContain('"domain":"app.example.com"');
  });

  it("is kept when the name is not a credential's or there is no name field", () => {
    const details = {
      env: [
        { name: "max_tokens", value: "4096" },
        { name: "REGION", value: "eu-west-1" },
      ],
      option: { label: "DB_PASSWORD", value: "shown-as-label" },
    };
    expect(copyOfDetails(details)).toEqual(details);
  });
});
