/**
 * Polling for tests that wait on something another process, timer or connection brings about:
 * one rule for how often to look and how a timeout reads, instead of a copy per file.
 */

const POLL_MS = 20

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/**
 * Resolves with the first value `probe` gives other than `undefined`, looking every 20 ms;
 * throws after `ms` naming `what` it waited for. The probe runs at least once.
 *
 * @example
 * const link = await waitFor(() => output().match(/sign in: (\S+)/)?.[1], 10_000, 'the link')
 */
export async function waitFor<T>(
  probe: () => T | undefined | Promise<T | undefined>,
  ms = 10_000,
  what = 'the condition',
): Promise<T> {
  const deadline = Date.now() + ms
  for (;;) {
    const value = await probe()
    if (value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`)
    await sleep(POLL_MS)
  }
}

/** Waits until `check` holds (see `waitFor`). */
export async function until(
  check: () => boolean | Promise<boolean>,
  ms = 10_000,
  what = 'the condition',
): Promise<void> {
  await waitFor(async () => ((await check()) ? true : undefined), ms, what)
}
