import { AppError } from '../../runtime/errors.ts'

export const FileOperationTimedOut = AppError.define(
  'FILE_OPERATION_TIMED_OUT',
  504,
  'a file operation did not finish in time',
)

/** How long one file-tool operation (a read, a write, one directory listing) may take. */
export const FILE_OPERATION_LIMIT_MS = 30_000

/**
 * Races one file operation against a timer and answers a clear error when the timer wins, so an
 * agent's tool call always ends (issue 14, hole 7).
 *
 * This is the backstop, not the fix: an operation that is stuck in the kernel stays stuck, and
 * holds its libuv pool thread, after the race is lost. That is why pinned-io.ts opens everything
 * O_NONBLOCK and refuses what is not a regular file; the bound covers what that cannot, such as
 * a hung network filesystem under the repository. The timer is cleared when the operation
 * settles, and never keeps the process alive on its own.
 */
export async function withTimeBound<T>(
  what: string,
  path: unknown,
  limitMs: number,
  operation: () => Promise<T>,
): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const timedOut = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      reject(
        new FileOperationTimedOut(
          { operation: what, path, limitMs },
          {
            message: `the file operation ${what} on ${JSON.stringify(path)} did not finish within ${limitMs} ms; it was abandoned`,
          },
        ),
      )
    }, limitMs)
    timer.unref()
  })
  try {
    return await Promise.race([operation(), timedOut])
  } finally {
    clearTimeout(timer)
  }
}
