/** Issue 14 items 3-5 through the binary: diagnostics, exit codes, flags, colour, CI formats, attestations. */
import { spawnSync } from "node:child_process";
import { generateKeyPairSync } from "node:crypto";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { PROJECT_ROOT } from "../../support/corpus.js";
import { parseJunit } from "../../support/junit-xml.js";
import { tempDir } from "../../support/temp.js";

const BIN = join(PROJECT_ROOT, "bin", "replay-pipeline.js");
const EX = (name: string) => join(PROJECT_ROOT, "examples", name);
const dir = tempDir("cli-output-");
const TAMPERED = EX("tampered.REPLAY.jsonl");
const FIX = EX("fix-auth.REPLAY.jsonl");

function run(args: string[], env: NodeJS.ProcessEnv = {}) {
  const { NO_COLOR: _, GITHUB_STEP_SUMMARY: __, ...rest } = process.env;
  const result = spawnSync(process.execPath, [BIN, ...args], { cwd: PROJECT_ROOT, env: { ...rest, ...env } });
  return {
    code: result.status,
    stdout: result.stdout.toString("utf8"),
    stderr: result.stderr.toString("utf8"),
  };
}

function file(name: string, content: string | Buffer): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

const UTF16 = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(readFileSync(FIX, "utf8"), "utf16le")]);
const PNG = Buffer.concat([Buffer.from("89504e470d0a1a0a0000000d49484452", "hex"), Buffer.alloc(64, 7)]);

describe("diagnostics: file:line:col: error|warning code: message", () => {
  it("a failed row is an error line at the row's line (column unknown: 0, as eslint's unix formatter)", () => {
    const out = run(["inspect", TAMPERED]);
    expect(out.code).toBe(1);
    expect(out.stdout).toMatch(
      new RegExp(
        `^${TAMPERED.replaceAll(".", "\\.")}:3:0: error check\\.params_hash: FAILED params_hash \\(line 3 ToolCall tc_001 params\\): expected sha256:[0-9a-f]{64}, got sha256:[0-9a-f]{64}$`,
        "m",
      ),
    );
  });

  it("a malformed line is located to its column; notices are notes", () => {
    const bad = file(
      "bad.REPLAY.jsonl",
      `${readFileSync(FIX, "utf8").split("\n")[0]}\n{"type": tru}\n{"event":"Mystery"}\n`,
    );
    const out = run(["inspect", bad]);
    expect(out.stdout).toMatch(new RegExp(`^${bad.replaceAll(".", "\\.")}:2:10: error json\\.syntax: `, "m"));
    const located = out.stdout.split("\n").filter((l) => /^.+:\d+:\d+: /.test(l));
    expect(located.map((l) => /^(:\d+:\d+: \w+ [a-z_.]+):/.exec(l.slice(bad.length))?.[1])).toEqual([
      ":2:10: error json.syntax",
      ":0:0: error replay.missing_session_end",
      ":3:0: note replay.unknown_event",
    ]);
  });

  it.each([
    [
      "UTF-16",
      "u16.REPLAY.jsonl",
      UTF16,
      "input.encoding",
      "the file is UTF-16 (little-endian) text with a byte order mark",
    ],
    ["PNG", "image.jsonl", PNG, "input.binary", "the file is a PNG image"],
    [
      "BOM",
      "bom.REPLAY.jsonl",
      Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), readFileSync(FIX)]),
      "json.bom",
      "the file is UTF-8 text with a byte order mark (EF BB BF)",
    ],
  ])(
    "a %s file is one error that names what it is, in inspect, canon and hash",
    (_, name, bytes, code, what) => {
      const path = file(name, bytes);
      const inspected = run(["inspect", path]);
      const errors = inspected.stdout.split("\n").filter((l) => / error /.test(l));
      expect(errors).toEqual([expect.stringContaining(`${path}:1:1: error ${code}: ${what}`)]);
      expect(inspected.code).toBe(1);
      for (const command of ["canon", "hash"]) {
        const out = run([command, path]);
        expect(out.code, command).toBe(1);
        expect(out.stderr).toBe(`${path}:1:1: error ${code}: ${out.stderr.split(`${code}: `)[1]}`);
        expect(out.stderr).toContain(what);
      }
    },
  );

  it("an over-long line names the option that raises the limit", () => {
    const inspected = run(["inspect", FIX, "--max-line-bytes", "100"]);
    expect(inspected.stdout).toMatch(
      /error jsonl\.line_too_long: line is longer than 100 bytes; skipped \(--max-line-bytes N raises the limit\)/,
    );
    const canon = run(["canon", FIX, "--max-line-bytes", "100"]);
    expect(canon.code).toBe(1);
    expect(canon.stderr).toMatch(
      /:1:0: error jsonl\.line_too_long: .*\(--max-line-bytes N raises the limit\)\n$/,
    );
  });

  it("export of a non-bundle says what it got", () => {
    const lines = run(["export", FIX]);
    expect(lines.code).toBe(1);
    expect(lines.stderr).toContain(
      "error export.not_bundle: this is a replay-dsrs JSON Lines file, not a ReplayBundle",
    );
    const rpk = run(["export", EX("summarize.rpk")]);
    expect(rpk.stderr).toContain(
      "error export.not_bundle: this is a replaykit-rpk document, not a ReplayBundle",
    );
  });

  it("-o naming a folder is an error about the output, before any work", () => {
    const folder = join(dir, "a-folder");
    mkdirSync(folder, { recursive: true });
    for (const args of [
      ["export", EX("autopilot.bundle.json"), "-o", folder],
      ["redact", FIX, "-o", folder],
      ["receipt", FIX, "-o", folder],
    ]) {
      const out = run(args);
      expect(out.code, args[0]).toBe(2);
      expect(out.stderr).toBe(
        `${folder}:0:0: error io.is_directory: -o names a folder; expected the path of a file for ${args[0]}'s output\n`,
      );
    }
  });
});

describe("one exit-code table for every command", () => {
  const broken = () => file("broken.json", '{"a": 1,');
  it.each([
    [
      "malformed JSON → 1",
      () => [
        ["canon", broken()],
        ["hash", broken()],
        ["export", broken()],
        ["inspect", broken()],
      ],
      1,
    ],
    [
      "a missing file → 2",
      () =>
        ["canon", "hash", "export", "inspect", "redact", "receipt", "verify"].map((c) => [
          c,
          join(dir, "missing.json"),
        ]),
      2,
    ],
    [
      "usage → 2",
      () => [
        ["canon"],
        ["inspect", FIX, "--nope"],
        ["verify", FIX, "--format", "xml"],
        ["hash", FIX, "--profile", "x"],
      ],
      2,
    ],
  ])("%s", (_, cases, code) => {
    for (const args of cases()) expect(run(args).code, args.join(" ")).toBe(code);
  });
});

describe("flags every command takes", () => {
  it("an unknown option names the closest valid one; an unknown command too", () => {
    const option = run(["inspect", FIX, "--jsno"]);
    expect(option.code).toBe(2);
    expect(option.stderr).toBe(
      "replay-pipeline: error cli.usage: inspect: unknown option '--jsno'; did you mean '--json'? (--help lists the options)\n",
    );
    expect(run(["redact", FIX, "--prest", "paranoid"]).stderr).toContain("did you mean '--preset'?");
    expect(run(["verfy", FIX]).stderr).toContain("unknown command 'verfy'; did you mean 'verify'?");
    expect(run(["inspect", FIX, "--zzzzzzzz"]).stderr).not.toContain("did you mean");
  });

  it("--version and -V print the version and the commit built from, alone or after a command", () => {
    const version = JSON.parse(readFileSync(join(PROJECT_ROOT, "package.json"), "utf8")).version;
    // The build (global setup) ran at this checkout's HEAD; outside git it says "unknown".
    const git = spawnSync("git", ["rev-parse", "--short", "HEAD"], { cwd: PROJECT_ROOT, encoding: "utf8" });
    const commit = git.status === 0 ? git.stdout.trim() : "unknown";
    for (const args of [["--version"], ["-V"], ["inspect", "--version"], ["hash", "-V"]]) {
      const out = run(args);
      expect(out.code).toBe(0);
      expect(out.stdout).toBe(`replay-pipeline ${version} (commit ${commit})\n`);
    }
  });

  it("--quiet prints only errors: nothing for a pass, the failed row for a failure, no warnings", () => {
    expect(run(["inspect", FIX, "--quiet"])).toMatchObject({ code: 0, stdout: "" });
    const failed = run(["inspect", TAMPERED, "-q"]);
    expect(failed.code).toBe(1);
    expect(failed.stdout.trim().split("\n")).toEqual([
      expect.stringMatching(/:3:0: error check\.params_hash: /),
    ]);
    const receipt = run(["receipt", FIX, "-o", join(dir, "R.json")]);
    expect(receipt.stderr).toContain("warning: policy_bundle_id unknown");
    expect(run(["export", EX("autopilot.bundle.json"), "-o", join(dir, "x.jsonl"), "-q"]).stderr).toBe("");
  });
});

describe("colour: only on a terminal, never with NO_COLOR", () => {
  // `script` gives the binary a pseudo-terminal, as a person's shell would.
  const inTerminal = (env: string) =>
    spawnSync("script", ["-q", "-c", `${env} ${process.execPath} ${BIN} inspect ${TAMPERED}`, "/dev/null"], {
      cwd: PROJECT_ROOT,
      env: { PATH: process.env.PATH, TERM: "xterm-256color" },
    }).stdout.toString("utf8");
  const ESC = "\u001b[";

  it("colours verdicts and severities on a terminal", () => {
    const out = inTerminal("");
    expect(out).toContain(`${ESC}31mFAILED${ESC}39m`);
    expect(out).toContain(`${ESC}31merror${ESC}39m`);
  });

  it("no colour with NO_COLOR, nor into a pipe", () => {
    expect(inTerminal("NO_COLOR=1")).not.toContain(ESC);
    expect(run(["inspect", TAMPERED], { FORCE_COLOR: "1" }).stdout).not.toContain(ESC);
  });
});

describe("--format github", () => {
  it("annotates each failed row and error, escaped per the runner's rules, and appends a job summary", () => {
    const named = file("odd,name: 100%.REPLAY.jsonl", readFileSync(TAMPERED));
    const summary = file("summary.md", "earlier step\n");
    const out = run(["inspect", named, "--format", "github"], { GITHUB_STEP_SUMMARY: summary });
    expect(out.code).toBe(1);
    const escaped = named.replaceAll("%", "%25").replaceAll(":", "%3A").replaceAll(",", "%2C");
    expect(out.stdout).toMatch(
      new RegExp(
        `^::error file=${escaped.replaceAll(".", "\\.")},line=3,title=check\\.params_hash::FAILED params_hash \\(line 3 ToolCall tc_001 params\\): expected sha256`,
        "m",
      ),
    );
    const md = readFileSync(summary, "utf8");
    expect(md.startsWith("earlier step\n### replay-pipeline inspect\n")).toBe(true);
    expect(md).toContain("| file | verdict | passed | failed | unverifiable | errors |");
    expect(md).toContain(`| \`${named}\` | ❌ failed | 3 | 1 | 0 | 0 |`);
  });

  it("a message with a newline or % stays one command; an error with a column gets col=", () => {
    const bad = file("gh.REPLAY.jsonl", `${readFileSync(FIX, "utf8").split("\n")[0]}\n{"type": tru}\n`);
    const out = run(["inspect", bad, "--format", "github"]);
    expect(out.stdout).toMatch(/^::error file=[^\n]*,line=2,col=10,title=json\.syntax::/m);
    for (const line of out.stdout
      .trim()
      .split("\n")
      .filter((l) => l.startsWith("::")))
      expect(line).toMatch(/^::(error|warning|notice) [^\n]*::[^\r\n]*$/);
  });

  it("a read error is an annotation too", () => {
    const out = run(["inspect", join(dir, "gone.jsonl"), "--format", "github"]);
    expect(out.code).toBe(2);
    expect(out.stdout).toBe(
      `::error file=${join(dir, "gone.jsonl").replaceAll(":", "%3A")},title=io.not_found::no such file\n`,
    );
  });
});

describe("--format junit", () => {
  it("one test case per check row: failed → failure, unverifiable → skipped; counts match", () => {
    const out = run(["inspect", TAMPERED, "--format", "junit"]);
    expect(out.code).toBe(1);
    const [suite] = parseJunit(out.stdout).suites;
    expect(suite).toMatchObject({ tests: 5, failures: 1, skipped: 0 });
    expect(suite?.cases.filter((c) => c.child === "failure").map((c) => c.name)).toEqual([
      "params_hash line 3 ToolCall tc_001 params",
    ]);
    const verify = parseJunit(run(["verify", FIX, "--format", "junit"]).stdout).suites[0];
    expect(verify?.cases.find((c) => c.name.startsWith("receipt"))).toMatchObject({ child: "skipped" });
    expect(verify?.skipped).toBe(1);
  });

  it("escapes what XML cannot hold raw: markup characters and control characters in the input", () => {
    const nasty = file(
      'x<&>".REPLAY.jsonl',
      `${readFileSync(FIX, "utf8").split("\n")[0]}\n{"type":"<&'\\"\u0001>"\n`,
    );
    const out = run(["inspect", nasty, "--format", "junit"]);
    const [suite] = parseJunit(out.stdout).suites;
    expect(suite?.name).toBe(`inspect ${nasty}`);
    expect(suite?.cases.find((c) => c.name === "structure")?.child).toBe("failure");
  });

  it("a read error is a JUnit report with an error", () => {
    const out = run(["inspect", join(dir, "gone.jsonl"), "--format", "junit"]);
    expect(out.code).toBe(2);
    expect(out.stdout).toContain('<error message="no such file" type="io.not_found"/>');
    expect(parseJunit(out.stdout).suites).toHaveLength(1);
  });
});

describe("--attest and verify-attestation", () => {
  const hmac = file("hmac.key", "a shared secret for attestations");
  const { privateKey, publicKey } = generateKeyPairSync("ed25519");
  const edPrivate = file("ed.pem", privateKey.export({ type: "pkcs8", format: "pem" }) as string);
  const edPublic = file("ed.pub.pem", publicKey.export({ type: "spki", format: "pem" }) as string);

  it("inspect --attest writes an unsigned VSA about the replay; verify-attestation checks it against the replay", () => {
    const path = join(dir, "inspect.intoto.json");
    expect(run(["inspect", FIX, "--attest", path, "-q"]).code).toBe(0);
    const statement = JSON.parse(readFileSync(path, "utf8"));
    expect(statement).toMatchObject({
      _type: "https://in-toto.io/Statement/v1",
      predicateType: "https://slsa.dev/verification_summary/v1",
      predicate: { verificationResult: "PASSED", resourceUri: `file://${FIX}` },
    });
    const checked = run(["verify-attestation", path, "--replay", FIX]);
    expect(checked.code).toBe(0);
    expect(checked.stdout).toContain("unsigned;");
    expect(checked.stdout).toContain("(matches the replay): PASSED (passed)");
    const other = run(["verify-attestation", path, "--replay", TAMPERED]);
    expect(other.code).toBe(1);
    expect(other.stderr).toContain("error attest.subject_mismatch:");
  });

  it("a failed replay attests FAILED, and verify-attestation exits 1 for it", () => {
    const path = join(dir, "failed.intoto.json");
    expect(run(["inspect", TAMPERED, "--attest", path, "-q"]).code).toBe(1);
    expect(JSON.parse(readFileSync(path, "utf8")).predicate.verifiedLevels).toEqual(["FAILED"]);
    expect(run(["verify-attestation", path]).code).toBe(1);
  });

  it.each([
    ["HMAC-SHA256", hmac, hmac, "hmac-sha256:"],
    ["Ed25519", edPrivate, edPublic, "ed25519:"],
  ])(
    "verify --attest --sign-key (%s): a DSSE envelope with the receipt as input; tampering is caught",
    (_, signKey, checkKey, prefix) => {
      const path = join(dir, `verify-${prefix}intoto.json`);
      expect(
        run([
          "verify",
          FIX,
          "--receipt",
          EX("fix-auth.RECEIPT.json"),
          "--attest",
          path,
          "--sign-key",
          signKey,
          "-q",
        ]).code,
      ).toBe(0);
      const envelope = JSON.parse(readFileSync(path, "utf8"));
      expect(envelope.payloadType).toBe("application/vnd.in-toto+json");
      expect(envelope.signatures[0].keyid.startsWith(prefix)).toBe(true);
      const statement = JSON.parse(Buffer.from(envelope.payload, "base64").toString());
      expect(statement.predicate.inputAttestations[0].uri).toBe(`file://${EX("fix-auth.RECEIPT.json")}`);
      expect(run(["verify-attestation", path, "--key", checkKey, "--replay", FIX]).code).toBe(0);
      expect(run(["verify-attestation", path]).stderr).toContain("is signed (a DSSE envelope); give --key");

      statement.predicate.verificationResult = "PASSED";
      statement.subject[0].digest.sha256 = "0".repeat(64);
      const forged = file(
        "forged.json",
        JSON.stringify({ ...envelope, payload: Buffer.from(JSON.stringify(statement)).toString("base64") }),
      );
      const out = run(["verify-attestation", forged, "--key", checkKey]);
      expect(out.code).toBe(1);
      expect(out.stderr).toContain("error attest.bad_signature:");
    },
  );

  it("--sign-key without --attest is a usage error", () => {
    expect(run(["inspect", FIX, "--sign-key", hmac]).code).toBe(2);
  });
});
