/** AWS failures of the pipeline commands: one line naming what to check, exit 2, no stack trace. */
import { S3ServiceException } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { awsFailure } from "../../../cli/aws-errors.js";
import { ReplayPipelineError } from "../../../shared/errors.js";
import { runCli } from "../../support/cli.js";

const named = (name: string, message: string, extra: object = {}) =>
  Object.assign(new Error(message), { name }, extra);

describe("awsFailure", () => {
  it.each([
    [named("CredentialsProviderError", "Could not load credentials from any providers"), /AWS credentials/],
    [
      named("ExpiredTokenException", "The security token included in the request is expired"),
      /AWS credentials/,
    ],
    [
      new S3ServiceException({
        name: "AccessDenied",
        $fault: "client",
        $metadata: { httpStatusCode: 403 },
        message: "Access Denied",
      }),
      /may do this for this tenant/,
    ],
    [
      named("ValidationError", "Stack with id nostack does not exist", { $metadata: {} }),
      /stack name and region/,
    ],
    [named("ThrottlingException", "Rate exceeded", { $metadata: {} }), /try again/],
    [new Error("Region is missing"), /--region or AWS_REGION/],
    [
      named("Error", "connect ECONNREFUSED 127.0.0.1:1", { code: "ECONNREFUSED" }),
      /network and the endpoint/,
    ],
    [named("SomethingNew", "odd", { $metadata: { httpStatusCode: 400 } }), /AWS configuration/],
  ])("%s: one line, config kind, what to check", (error, hint) => {
    const e = awsFailure(error, "show");
    expect(e).toBeInstanceOf(ReplayPipelineError);
    expect(e?.code).toBe("cli.aws");
    expect(e?.kind).toBe("config");
    expect(e?.detail).toMatch(/^show: AWS/);
    expect(e?.detail).toMatch(hint);
    expect(e?.detail).not.toContain("\n");
  });

  it("leaves alone what is no AWS failure", () => {
    expect(awsFailure(new Error("boom"), "show")).toBeUndefined();
    expect(awsFailure(new TypeError("x is undefined"), "show")).toBeUndefined();
    expect(awsFailure("string", "show")).toBeUndefined();
  });
});

describe("a pipeline command whose AWS call fails", () => {
  it("prints one line and exits 2 (no region)", () => {
    const r = runCli(["sessions", "--tenant", "t"], {
      INGEST_BUCKET: "i",
      PUBLISHED_BUCKET: "p",
      REPORTS_BUCKET: "r",
      TABLE_NAME: "t",
      AWS_REGION: "",
      AWS_DEFAULT_REGION: "",
      AWS_PROFILE: "",
      AWS_CONFIG_FILE: "/nonexistent",
      AWS_ACCESS_KEY_ID: "x",
      AWS_SECRET_ACCESS_KEY: "y",
    });
    expect(r.code).toBe(2);
    const lines = r.stderr.split("\n").filter((l) => l.startsWith("replay-pipeline:"));
    expect(lines).toEqual([
      "replay-pipeline: error cli.aws: sessions: AWS: Region is missing; check the region (--region or AWS_REGION)",
    ]);
    expect(r.stderr).not.toMatch(/^\s+at /m);
  });
});
