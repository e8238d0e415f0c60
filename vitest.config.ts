import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    include: ["test/**/*.test.ts"],
    globalSetup: ["test/global-setup.ts"],
    pool: "forks",
    // s3rver (integration tests, in the test process) encrypts listing tokens with DES, which
    // OpenSSL 3 offers only through Node's legacy provider.
    execArgv: ["--openssl-legacy-provider"],
    testTimeout: 60_000,
    // The JSON report lets .ci/run print a plain "N passed, N failed" closing line.
    reporters: ["default", ["json", { outputFile: ".local/vitest-report.json" }]],
  },
});
