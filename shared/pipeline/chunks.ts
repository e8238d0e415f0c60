/** Stream plumbing of the per-file job. */

/** `first` (already taken from `rest`) followed by the rest of the stream. */
export async function* prepend(
  first: IteratorResult<Uint8Array>,
  rest: AsyncIterator<Uint8Array>,
): AsyncGenerator<Uint8Array> {
  try {
    if (first.done === true) return;
    yield first.value;
    for (let next = await rest.next(); next.done !== true; next = await rest.next()) yield next.value;
  } finally {
    // A reader that stops early (a failed upload) ends the stream below too, freeing its spool.
    await rest.return?.(undefined);
  }
}
