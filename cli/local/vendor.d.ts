// The parts of s3rver's and dynalite's APIs this project uses; neither package ships types.

declare module "s3rver" {
  import type { Server } from "node:http";
  import type { AddressInfo } from "node:net";

  /** s3rver's constructor options. */
  interface S3rverOptions {
    address?: string;
    port?: number;
    silent?: boolean;
    directory: string;
    configureBuckets?: { name: string }[];
  }

  /** What s3rver emits for an object stored (`ObjectCreated:Put|Post|Copy`) or deleted. */
  export interface S3rverEvent {
    Records: {
      eventName: string;
      s3: {
        bucket: { name: string };
        /** `key` as stored (s3rver does not encode it); no `eTag` on a copy. */
        object: { key: string; size?: number; eTag?: string };
      };
    }[];
  }

  /** An S3 server keeping objects in `directory`. */
  export default class S3rver {
    /** Listens to s3rver's object events. */
    on(event: "event", listener: (event: S3rverEvent) => void): this;
    constructor(options: S3rverOptions);
    /** The listening server, once `run` resolved. */
    httpServer: Server;
    /** Listens; resolves to the bound address. */
    run(): Promise<AddressInfo>;
    /** Stops listening. */
    close(): Promise<void>;
  }
}

declare module "dynalite" {
  import type { Server } from "node:http";

  /** dynalite's options (the ones used here). */
  interface DynaliteOptions {
    /** LevelDB folder; absent: in memory. */
    path?: string;
    createTableMs?: number;
    deleteTableMs?: number;
    updateTableMs?: number;
  }

  /** A DynamoDB server, not yet listening. */
  export default function dynalite(options?: DynaliteOptions): Server;
}
