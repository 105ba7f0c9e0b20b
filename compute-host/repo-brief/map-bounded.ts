/**
 * `work` over every item with at most `limit` in flight, results in the items' order. The brief
 * reads and parses hundreds of files, each read a chain of a dozen file-system calls through
 * libuv's pool of four threads: awaited one file after another, the pool sat mostly idle and the
 * round trips, not the parsing, were most of a brief's time.
 *
 * The first error stops new work (what is in flight finishes) and is thrown.
 */
export async function mapBounded<T, R>(
  items: readonly T[],
  limit: number,
  work: (item: T) => Promise<R>,
): Promise<R[]> {
  const results = new Array<R>(items.length)
  let next = 0
  let failed = false
  const worker = async () => {
    while (!failed && next < items.length) {
      const at = next++
      try {
        results[at] = await work(items[at]!)
      } catch (error) {
        failed = true
        throw error
      }
    }
  }
  await Promise.all(Array.from({ length: Math.min(Math.max(1, limit), items.length) }, worker))
  return results
}
