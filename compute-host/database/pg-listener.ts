import pg from 'pg'

const MAX_BACKOFF_MS = 2_000

/**
 * LISTEN on a dedicated node-postgres connection that comes back by itself. node-postgres does
 * not reconnect a lost client, so this does: with a capped backoff, re-issuing LISTEN, and then
 * calling `onConnect` (notifications sent while the connection was down are gone, so the caller
 * looks for work it may have missed).
 */
export async function createPgListener(
  url: string,
  channel: string,
  onNotify: (payload: string) => void,
  onConnect?: () => void,
  onError?: (error: Error) => void,
): Promise<() => Promise<void>> {
  let client: pg.Client | undefined
  let stopped = false
  let retry: ReturnType<typeof setTimeout> | undefined
  const quoted = `"${channel.replace(/"/g, '""')}"`

  async function connect(): Promise<void> {
    const next = new pg.Client({ connectionString: url })
    next.on('notification', (message) => {
      if (message.channel === channel) onNotify(message.payload ?? '')
    })
    next.on('error', (error) => {
      onError?.(error)
      lost(next)
    })
    next.on('end', () => lost(next))
    await next.connect()
    await next.query(`listen ${quoted}`)
    if (stopped) {
      await next.end().catch(() => undefined)
      return
    }
    client = next
    onConnect?.()
  }

  function lost(which: pg.Client) {
    if (stopped || client !== which) return
    client = undefined
    reconnect(100)
  }

  function reconnect(delay: number) {
    if (stopped) return
    retry = setTimeout(() => {
      connect().catch((error: Error) => {
        onError?.(error)
        reconnect(Math.min(delay * 2, MAX_BACKOFF_MS))
      })
    }, delay)
    retry.unref?.()
  }

  await connect()
  return async () => {
    stopped = true
    clearTimeout(retry)
    await client?.end().catch(() => undefined)
  }
}
