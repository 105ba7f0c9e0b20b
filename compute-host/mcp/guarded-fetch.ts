import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'
import { outboundRequest, type OutboundPolicy, type Resolver } from '../net/outbound-guard.ts'
import { fetchOverNodeHttp } from './node-http-fetch.ts'

/**
 * The `fetch` for an MCP server the owner named by URL: every request goes through the one SSRF
 * guard (compute-host/net/outbound-guard.ts), which judges the address the socket connects to,
 * follows no redirect and pools no socket (so a restarted server is never met on a dead one).
 */
export function guardedFetch(policy: OutboundPolicy, resolve?: Resolver): FetchLike {
  return fetchOverNodeHttp((url, init) => outboundRequest(url, init, policy, resolve))
}
