/**
 * The local stand-ins for S3 (s3rver) and DynamoDB (dynalite), started in this process on
 * loopback: what `npm start` and the integration tests run the real SDK clients against. Both
 * packages are imported when a server starts, not with this module: the commands that only read a
 * running stack's endpoints (push --local, report --local) import it too, and need neither.
 */
import { createCipheriv, randomUUID } from "node:crypto";
import { createReadStream, createWriteStream } from "node:fs";
import { mkdir, mkdtemp, readdir, rm } from "node:fs/promises";
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from "node:http";
import { type AddressInfo, createServer, type Server as NetServer } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Readable } from "node:stream";
import { pipeline } from "node:stream/promises";
import type { S3rverEvent } from "s3rver";
import { LocalStackError } from "../errors.js";
import { AwsChunkedDecoder, chunkedPlan, isAwsChunked, type S3Problem } from "./aws-chunked.js";
import { setAsideTorn, type TornObject } from "./torn-objects.js";

/** The only credentials s3rver accepts. */
export const S3RVER_CREDENTIALS = { accessKeyId: "S3RVER", secretAccessKey: "S3RVER" };

/** Where and how a local server runs. */
export interface LocalServerOptions {
  /** Address to listen on (default 127.0.0.1). */
  host?: string;
  /** Port; 0 (the default) picks a free one. */
  port?: number;
  /**
   * Folder the server keeps its data in; absent or null: dynalite keeps it in memory, s3rver (which
   * has no memory store) in a new temporary folder removed on close.
   */
  dataDir?: string | null;
}

/** A running local server. */
export interface LocalServer {
  /** `http://<host>:<port>`, for the SDK client's `endpoint`. */
  endpoint: string;
  /** Stops the server (dropping open connections) and removes a temporary data folder. */
  close(): Promise<void>;
}

/** A running s3rver. */
interface LocalS3Server extends LocalServer {
  /** Objects found torn in the data folder at start (a crash mid-upload), set aside in `torn/`. */
  torn: TornObject[];
}

/**
 * Starts s3rver with `buckets` made. It lists truncated results with a DES-encrypted continuation
 * token, which OpenSSL 3 offers only with Node's `--openssl-legacy-provider`: refuse to start
 * without it rather than fail on the first long listing.
 */
export async function startS3rver(
  options: LocalServerOptions & {
    buckets?: string[];
    /** Called with s3rver's event for each object stored, copied or deleted (its own shape, keys not encoded). */
    onEvent?: (event: S3rverEvent) => void;
  } = {},
): Promise<LocalS3Server> {
  assertLegacyProvider();
  const host = options.host ?? "127.0.0.1";
  // s3rver leaves a listen error unhandled (the process dies): find a taken port first.
  if (options.port) await listen(createServer(), host, options.port, "S3", "--s3-port").then(closeProbe);
  if (!options.dataDir) await sweepTemporaries();
  const temporary = options.dataDir ? null : await mkdtemp(join(tmpdir(), `s3rver-${process.pid}-`));
  const base = options.dataDir ?? (temporary as string);
  const directory = join(base, "s3");
  await mkdir(directory, { recursive: true });
  // Uploads being decoded (a crash leaves ones never acknowledged): beside s3rver's folder, whose
  // every subfolder is a bucket to it.
  const spool = join(base, "spool");
  await rm(spool, { recursive: true, force: true });
  await mkdir(spool, { recursive: true });
  // s3rver fails every listing on a torn object: set them aside before it serves.
  const torn = await setAsideTorn(directory, join(base, "torn"));
  const { default: S3rver } = await loadServer("s3rver", () => import("s3rver"));
  const server = new S3rver({
    address: host,
    port: options.port ?? 0,
    silent: true,
    directory,
    configureBuckets: (options.buckets ?? []).map((name) => ({ name })),
  });
  if (options.onEvent) server.on("event", options.onEvent);
  const address = await server.run();
  installFront(server.httpServer, spool);
  return {
    endpoint: `http://${host}:${address.port}`,
    torn,
    async close() {
      server.httpServer.closeAllConnections();
      await server.close();
      if (temporary) await rm(temporary, { recursive: true, force: true });
    },
  };
}

/** A temporary s3rver folder, named by the process that made it. */
const TEMPORARY = /^s3rver-(\d+)-/;

/**
 * Removes the temporary folders of stacks whose process is gone (a `--memory` stack killed
 * before it could remove its own): each is named by its process, and a live one is left alone.
 */
async function sweepTemporaries(): Promise<void> {
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  for (const name of names) {
    const pid = Number(TEMPORARY.exec(name)?.[1]);
    if (!Number.isInteger(pid) || pid === process.pid || processRuns(pid)) continue;
    await rm(join(tmpdir(), name), { recursive: true, force: true }).catch(() => undefined);
  }
}

/** Does process `pid` run (signal 0 tests without sending; EPERM: it runs, someone else's)? */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === "EPERM";
  }
}

/** Longest key segment s3rver can store: it keeps each segment as a file or folder name. */
const MAX_SEGMENT_BYTES = 255;

/**
 * What the local S3 front refuses that S3 would store: a key segment `.` or `..` (s3rver maps keys
 * to paths, so `ingest/x/../../published/k` would write another bucket's object and `../../..`
 * outside its folder), and a segment over 255 bytes (s3rver fails on it, and the stack with it).
 * Undefined for a path it may serve.
 */
function localKeyProblem(rawPath: string): S3Problem | undefined {
  const path = rawPath.split("?")[0] ?? "";
  for (const raw of path.split("/").slice(2)) {
    let segment: string;
    try {
      segment = decodeURIComponent(raw);
    } catch {
      return { code: "InvalidURI", message: "The key is not valid percent-encoding." };
    }
    if (segment === "." || segment === "..")
      return {
        code: "InvalidArgument",
        message: `The local S3 refuses a key segment '${segment}': it stores keys as paths, where it would leave the bucket.`,
      };
    if (Buffer.byteLength(segment, "utf8") > MAX_SEGMENT_BYTES)
      return {
        code: "KeyTooLongError",
        message: `The local S3 refuses a key segment over ${MAX_SEGMENT_BYTES} bytes: it stores each segment as a file name.`,
      };
  }
  return undefined;
}

/** Puts `localKeyProblem` in front of s3rver's requests, and decodes `aws-chunked` bodies for it. */
function installFront(http: Server, spool: string): void {
  const handlers = http.listeners("request") as ((req: IncomingMessage, res: ServerResponse) => void)[];
  const serve = (req: IncomingMessage, res: ServerResponse) => {
    for (const handler of handlers) handler.call(http, req, res);
  };
  http.removeAllListeners("request");
  http.on("request", (req: IncomingMessage, res: ServerResponse) => {
    const problem = localKeyProblem(req.url ?? "/");
    if (problem !== undefined) return refuse(res, problem);
    if (!isAwsChunked(req.headers)) return serve(req, res);
    serveChunked(req, res, serve, spool).catch((error: unknown) =>
      refuse(res, { code: "InternalError", message: `The local S3 front failed: ${String(error)}` }, 500),
    );
  });
}

/**
 * Serves an `aws-chunked` request: its body decoded into a spool file and checked (framing,
 * decoded length, checksums) before s3rver sees any of it, since s3rver writes over the object
 * as it reads (a body refused half-way would leave the old version torn); then handed to s3rver as
 * a plain request of the decoded bytes. Memory stays bounded whatever the body's size.
 */
async function serveChunked(
  req: IncomingMessage,
  res: ServerResponse,
  serve: (req: IncomingMessage, res: ServerResponse) => void,
  spool: string,
): Promise<void> {
  const planned = chunkedPlan(req.headers);
  if ("problem" in planned) return refuse(res, planned.problem);
  const decoder = new AwsChunkedDecoder(planned.plan);
  const path = join(spool, randomUUID());
  req.once("error", (error) => decoder.destroy(error));
  // A client gone mid-body: nothing to store, the spool file goes.
  req.once("close", () => {
    if (!req.readableEnded) decoder.destroy(new Error("the client closed the connection mid-body"));
  });
  req.pipe(decoder);
  try {
    await pipeline(decoder, createWriteStream(path));
  } catch (error) {
    await rm(path, { force: true });
    if (decoder.problem === undefined) throw error;
    // Read the rest of the body, so the client (still sending) gets the answer.
    req.unpipe(decoder);
    if (!req.readableEnded && !req.destroyed)
      await new Promise((resolve) => req.resume().once("end", resolve).once("close", resolve));
    return refuse(res, decoder.problem);
  }
  res.once("close", () => void rm(path, { force: true }).catch(() => undefined));
  serve(decodedRequest(req, createReadStream(path), decoder.decodedLength), res);
}

/**
 * The request s3rver is handed for a decoded `aws-chunked` one: the decoded bytes with their
 * length, `aws-chunked` gone from the content encoding (S3 does not keep it either), and no
 * streaming payload hash or trailer.
 */
function decodedRequest(req: IncomingMessage, body: Readable, length: number): IncomingMessage {
  const headers: IncomingHttpHeaders = { ...req.headers };
  const encoding = String(headers["content-encoding"] ?? "")
    .split(",")
    .map((name) => name.trim())
    .filter((name) => name !== "" && name.toLowerCase() !== "aws-chunked");
  if (encoding.length > 0) headers["content-encoding"] = encoding.join(",");
  else delete headers["content-encoding"];
  for (const name of ["transfer-encoding", "x-amz-decoded-content-length", "x-amz-trailer"])
    delete headers[name];
  headers["content-length"] = String(length);
  headers["x-amz-content-sha256"] = "UNSIGNED-PAYLOAD";
  const { method, url, httpVersion, httpVersionMajor, httpVersionMinor, socket } = req;
  // What s3rver (Koa) reads of a request, over a stream of the decoded body.
  return Object.assign(body, {
    method,
    url,
    headers,
    rawHeaders: [],
    trailers: {},
    rawTrailers: [],
    httpVersion,
    httpVersionMajor,
    httpVersionMinor,
    socket,
    connection: socket,
    complete: true,
    aborted: false,
  }) as unknown as IncomingMessage;
}

/** Answers `problem` as S3 answers an error. */
function refuse(res: ServerResponse, problem: S3Problem, status = 400): void {
  if (res.headersSent) return void res.destroy();
  // A body not read is dropped with the connection.
  res.writeHead(status, { "content-type": "application/xml", connection: "close" });
  res.end(
    `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${problem.code}</Code><Message>${escapeXml(problem.message)}</Message></Error>\n`,
  );
}

function escapeXml(text: string): string {
  return text.replace(/[<>&]/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** Starts dynalite; tables are created at once (no CREATING state to wait out). */
export async function startDynalite(options: LocalServerOptions = {}): Promise<LocalServer> {
  const host = options.host ?? "127.0.0.1";
  let path: string | undefined;
  if (options.dataDir) {
    path = join(options.dataDir, "dynamodb");
    await mkdir(path, { recursive: true });
  }
  const { default: dynalite } = await loadServer("dynalite", () => import("dynalite"));
  const server = dynalite({ path, createTableMs: 0, deleteTableMs: 0, updateTableMs: 0 });
  const { port } = await listen(server, host, options.port ?? 0, "DynamoDB", "--dynamo-port");
  return {
    endpoint: `http://${host}:${port}`,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve, reject) =>
        server.close((error) => (error ? reject(error) : resolve())),
      );
    },
  };
}

/** Listens; a port that cannot be had is a `LocalStackError` naming it and the option that sets it. */
function listen<T extends Server | NetServer>(
  server: T,
  host: string,
  port: number,
  what: string,
  option: string,
): Promise<{ server: T; port: number }> {
  return new Promise((resolve, reject) => {
    const failed = (error: NodeJS.ErrnoException) => {
      const why = error.code === "EADDRINUSE" ? "the port is in use" : error.message;
      reject(
        new LocalStackError(
          `the ${what} server cannot listen on ${host}:${port}: ${why} (${error.code ?? "error"}); choose another port with ${option} (0 picks a free one)`,
          error,
        ),
      );
    };
    server.once("error", failed);
    server.listen(port, host, () => {
      server.off("error", failed);
      resolve({ server, port: (server.address() as AddressInfo).port });
    });
  });
}

function closeProbe({ server }: { server: NetServer }): Promise<void> {
  return new Promise((resolve) => server.close(() => resolve()));
}

/**
 * Imports a local server's package: a dependency of the installed CLI, so missing only from an
 * install that left it out (`npm install --omit`, a pruned bundle): say which, and how to get it.
 */
async function loadServer<T>(name: string, load: () => Promise<T>): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== "ERR_MODULE_NOT_FOUND") throw error;
    throw new LocalStackError(
      `the local stack needs the package '${name}', which is not installed: npm install ${name}`,
      error,
    );
  }
}

/** Does this process offer DES (OpenSSL 3's legacy provider), which s3rver's listings need? */
export function hasLegacyProvider(): boolean {
  try {
    createCipheriv("des", Buffer.alloc(8), Buffer.alloc(8));
    return true;
  } catch {
    return false;
  }
}

function assertLegacyProvider(): void {
  if (!hasLegacyProvider())
    throw new LocalStackError(
      "s3rver needs Node's legacy OpenSSL provider: run with NODE_OPTIONS=--openssl-legacy-provider (npm start sets it)",
    );
}
