import type { BuildHealth } from '../../runtime/contracts/health.ts'
import type { BuildClient } from './client.ts'

/**
 * Build's part of health, within the edge's probe time (3 s for the whole host answer): the
 * server is asked to answer now (an MCP `ping`, connecting if need be; the tool list alone is
 * cached per connection and would say "reachable" of a server that has gone), then its
 * operations are listed. Disabled without a key, no request made. Only the URL's origin and the
 * connection's own error message are shown, never the key.
 */
export async function buildHealth(client: BuildClient, timeoutMs = 1_500): Promise<BuildHealth> {
  const before = client.status()
  if (!before.enabled || !client.connection) {
    return { state: 'disabled', reason: client.disabledReason ?? 'disabled' }
  }
  const url = before.url
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    await client.connection.ping({ signal, timeoutMs })
    const tools = await client.operations(signal)
    return { state: 'reachable', url, operations: tools.length }
  } catch (error) {
    const reason = signal.aborted
      ? `no answer within ${timeoutMs} ms`
      : error instanceof Error
        ? error.message
        : String(error)
    return { state: 'unreachable', url, reason }
  }
}
