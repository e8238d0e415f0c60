/**
 * The commit scripts/build.mjs embeds in the bundle (esbuild `define`); not declared anywhere at
 * run time, so only `typeof` may test it outside the bundle.
 */
declare const REPLAY_PIPELINE_COMMIT: string | undefined;
