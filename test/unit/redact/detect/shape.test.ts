/**
 * The shape layer's known non-secrets: ids a cloud generates for resources, which read as
 * generated runs but name things (beside the credentials that must still be caught).
 */
import { describe, expect, it } from "vitest";
import { Scrubber } from "#shared/redact/scrub.js";
import { expectKept } from "./helpers.js";

const scrub = (text: string): string => new Scrubber().scrub(text, "$.error.message");

describe("ids a cloud generates", () => {
  it("are no generated secrets: CDK logical ids, physical names, resource ids, IAM unique ids, user pools", () => {
    expectKept(
      scrub,
      [
        "MyGlobalTable5DC12DB4",
        "ClusterConfigCommand43AAE40F",
        "fnPostAuthFnCognitoA630A2B1",
        "MyStack-fn5FF616E3-G632ITHSP5HK",
        "ami-04681a1dbd79675a5",
        "subnet-0bb1c79de30f2a1c4",
        "AROAYBRETNYCYV6ZF2R93",
        "us-east-1_oiuR12Abd",
      ].map((id) => `resource ${id} created`),
    );
  });

  it("leave an access key id and a token that ends in hex to the rules that catch them", () => {
    expect(scrub("id AKIAYBRETNYCYV6ZF2R9 here")).toBe("id [REDACTED:aws-access-key-id] here");
    expect(scrub("got Xk3vT9xLm2Pz8Rw4Yb7Nq5DC12DB4 back")).toContain("[REDACTED:");
  });
});
