import type { LookupAddress, LookupOptions } from 'node:dns'
import { lookup as systemLookup } from 'node:dns/promises'
import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'
import { request as httpsRequest } from 'node:https'
import { isIP } from 'node:net'
import { classifyAddress, isPrivateNetwork } from '../../runtime/net/address-class.ts'

/**
 * The one way out for a URL the owner or a page can name (HTTP hooks today): only public
 * addresses are called, loopback too when the owner allowed it, a private network (RFC 1918,
 * unique local) only where a caller passes the owner's `allowPrivate` (a webhook channel's
 * callback), and never a link-local (cloud metadata), multicast or reserved one
 * (runtime/net/address-class.ts).
 *
 * Checked where it cannot be dodged: at connect time, on the address the socket is given. A name
 * is resolved once by the `lookup` below, every answer judged, and the socket connects to the
 * judged answer, so a DNS server that answers a public address to one query and 127.0.0.1 to
 * the next (rebinding) has no second query to answer. An address literal skips lookup in
 * net.connect, so it is judged before the request is made. No pooled socket is reused: one
 * checked under another caller's policy could lead somewhere this caller may not go.
 */
export type OutboundPolicy = {
  /** The owner's consent to call loopback; never extends to private or link-local addresses. */
  allowLoopback: boolean
  /**
   * The owner's consent to call a private network (RFC 1918, IPv6 unique local): a webhook
   * callback on the owner's LAN. Never extends to link-local (cloud metadata), carrier-grade NAT,
   * multicast or reserved addresses (runtime/net/address-class.ts `isPrivateNetwork`).
   */
  allowPrivate?: boolean
}

/** Resolves a name to all its addresses; a test injects one to play the DNS server. */
export type Resolver = (hostname: string) => Promise<readonly LookupAddress[]>

export class OutboundRefused extends Error {
  override name = 'OutboundRefused'
}

const systemResolver: Resolver = (hostname) => systemLookup(hostname, { all: true })

/** Throws OutboundRefused unless `address` (what `host` resolved to) may be called. */
export function checkOutboundAddress(host: string, address: string, policy: OutboundPolicy): void {
  const place = classifyAddress(address)
  if (place?.kind === 'public') return
  if (place?.kind === 'loopback' && policy.allowLoopback) return
  if (place?.kind === 'forbidden' && policy.allowPrivate && isPrivateNetwork(address)) return
  const what = !place
    ? 'not an IP address'
    : place.kind === 'loopback'
      ? 'a loopback address, which was not allowed'
      : place.what
  const subject = host === address ? `${address} is` : `${host} resolves to ${address},`
  throw new OutboundRefused(`${subject} ${what}: only public addresses are called`)
}

type LookupCallback = (
  error: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void

/** A `lookup` for net/http/https that hands the socket only addresses it has judged. */
export function guardedLookup(policy: OutboundPolicy, resolve: Resolver = systemResolver) {
  return (hostname: string, options: LookupOptions, callback: LookupCallback): void => {
    judged(hostname, options, policy, resolve).then(
      (answers) =>
        options.all
          ? callback(null, answers)
          : callback(null, answers[0]!.address, answers[0]!.family),
      (error: NodeJS.ErrnoException) => callback(error, ''),
    )
  }
}

async function judged(
  hostname: string,
  options: LookupOptions,
  policy: OutboundPolicy,
  resolve: Resolver,
): Promise<LookupAddress[]> {
  const answers = await resolve(hostname)
  // Every answer is judged, not just the one used: a name that also points somewhere forbidden
  // is refused whole, whichever address the connection would have tried first.
  for (const answer of answers) checkOutboundAddress(hostname, answer.address, policy)
  const family = options.family === 'IPv4' ? 4 : options.family === 'IPv6' ? 6 : options.family
  const fitting = answers.filter((a) => !family || a.family === family)
  if (fitting.length === 0) throw new OutboundRefused(`${hostname} has no usable address`)
  return fitting
}

export type OutboundInit = {
  method: string
  headers: OutgoingHttpHeaders
  body: string
  signal: AbortSignal
}

/**
 * Sends one request to `url` under `policy` and resolves with the response head, its body
 * unread. No redirect is followed (node:http never does). Rejects with OutboundRefused when
 * the address is not allowed, before any connection is made.
 */
export async function outboundRequest(
  url: URL,
  init: OutboundInit,
  policy: OutboundPolicy,
  resolve?: Resolver,
): Promise<IncomingMessage> {
  const literal = url.hostname.replace(/^\[(.*)\]$/, '$1')
  if (isIP(literal)) checkOutboundAddress(literal, literal, policy)
  const request =
    url.protocol === 'https:' ? httpsRequest : url.protocol === 'http:' ? httpRequest : undefined
  if (!request) throw new OutboundRefused(`${url.protocol} is not http or https`)
  return new Promise((done, fail) => {
    const req = request(
      url,
      {
        method: init.method,
        headers: init.headers,
        signal: init.signal,
        lookup: guardedLookup(policy, resolve),
        agent: false,
      },
      done,
    )
    req.on('error', fail)
    req.end(init.body)
  })
}
