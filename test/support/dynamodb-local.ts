/**
 * DynamoDB Local, AWS's own emulator (the jar shipped in the npm package
 * amplify-dynamodb-simulator), run in memory on a free loopback port for the integration suite.
 * It needs Java 17 on PATH; without it the suite fails, it is never skipped.
 */
import { type ChildProcess, execFileSync, spawn } from "node:child_process";
import { createRequire } from "node:module";
import { connect, createServer } from "node:net";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";

/** A running DynamoDB Local. */
export interface DynamoDbLocal {
  endpoint: string;
  close(): Promise<void>;
}

/** Starts DynamoDB Local with `-inMemory`; rejects with the reason if Java or the jar is missing. */
export async function startDynamoDbLocal(): Promise<DynamoDbLocal> {
  try {
    execFileSync("java", ["-version"], { stdio: "ignore" });
  } catch {
    throw new Error("DynamoDB Local needs java on PATH (Debian: apt-get install -y openjdk-17-jre-headless)");
  }
  const emulator = join(
    dirname(createRequire(import.meta.url).resolve("amplify-dynamodb-simulator/package.json")),
    "emulator",
  );
  const port = await freePort();
  const child = spawn(
    "java",
    [
      `-Djava.library.path=${join(emulator, "DynamoDBLocal_lib")}`,
      // Java's temp files where the run's temp folder is (Java reads java.io.tmpdir, not TMPDIR), and
      // no /tmp/hsperfdata_<user>/<pid> file, which a killed JVM leaves behind.
      `-Djava.io.tmpdir=${tmpdir()}`,
      "-XX:-UsePerfData",
      "-jar",
      join(emulator, "DynamoDBLocal.jar"),
      "-inMemory",
      "-disableTelemetry",
      "-port",
      String(port),
    ],
    { cwd: emulator, stdio: ["ignore", "ignore", "pipe"] },
  );
  let stderr = "";
  child.stderr?.on("data", (chunk: Buffer) => {
    stderr += chunk.toString("utf8");
  });
  // A test process that dies must not leave the JVM behind.
  const reap = () => child.kill("SIGKILL");
  process.once("exit", reap);
  try {
    await waitForPort(port, child, 30_000);
  } catch (error) {
    child.kill("SIGKILL");
    throw new Error(`DynamoDB Local did not start: ${(error as Error).message}\n${stderr}`);
  }
  return {
    endpoint: `http://127.0.0.1:${port}`,
    async close() {
      process.off("exit", reap);
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once("exit", resolve));
      child.kill("SIGTERM");
      await exited;
    },
  };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once("error", reject);
    server.listen(0, "127.0.0.1", () => {
      const address = server.address();
      server.close(() =>
        typeof address === "object" && address ? resolve(address.port) : reject(new Error("no port")),
      );
    });
  });
}

async function waitForPort(port: number, child: ChildProcess, ms: number): Promise<void> {
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`java exited with ${child.exitCode}`);
    const open = await new Promise<boolean>((resolve) => {
      const socket = connect(port, "127.0.0.1");
      socket.once("connect", () => {
        socket.destroy();
        resolve(true);
      });
      socket.once("error", () => resolve(false));
    });
    if (open) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`port ${port} did not open within ${ms} ms`);
}
