import { lookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import {
  checkOutboundAddress,
  OutboundRefused,
  type OutboundPolicy,
} from '../net/outbound-guard.ts'

/**
 * Where an agent may send the browser: a URL the model names passes the host's one outbound rule
 * (compute-host/net/outbound-guard.ts: public addresses, loopback only with the owner's consent,
 * never private, link-local or cloud metadata), judged on every address its name resolves to.
 *
 * What it cannot cover, said plainly: the browser resolves the name again itself, and a page can
 * redirect or link onward; the browser is the owner's and "not a security boundary". This check
 * stops a model from pointing the browser at an internal address by name or number.
 */
export async function navigationRefusal(
  url: string,
  policy: OutboundPolicy,
): Promise<string | undefined> {
  const host = new URL(url).hostname.replace(/^\[(.*)\]$/, '$1')
  try {
    if (isIP(host)) {
      checkOutboundAddress(host, host, policy)
      return undefined
    }
    const answers = await lookup(host, { all: true })
    for (const answer of answers) checkOutboundAddress(host, answer.address, policy)
    return undefined
  } catch (error) {
    if (error instanceof OutboundRefused) return error.message
    return `${host} does not resolve: ${(error as Error).message}`
  }
}
