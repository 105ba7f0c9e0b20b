/**
 * Which `Host` names the edge answers for. A web page can point its own name at 127.0.0.1 (DNS
 * rebinding) and then reach a loopback server as "same origin"; the one thing it cannot change is
 * the Host header, which still carries the attacker's name. So the edge answers only names it
 * knows: the loopback names, plus the public names the operator lists in POPAGENT_ALLOWED_HOSTS.
 */

/** A name the edge answers for; with a port, only that port matches. */
export type HostPattern = { name: string; port?: string }

/** What a request's Host must match: the listed names, or any name (Workers without a list). */
export type HostAllowlist = readonly HostPattern[] | 'any'

export const LOOPBACK_HOSTS: readonly HostPattern[] = [
  { name: 'localhost' },
  { name: '127.0.0.1' },
  { name: '[::1]' },
]

// A DNS name or IPv4 address, or a bracketed IPv6 address, then an optional port. Anything else
// (user info, paths, a second colon) is not a Host value a browser sends.
const HOST = /^(\[[0-9a-f:.]+\]|[a-z0-9_-]+(?:\.[a-z0-9_-]+)*)(?::(\d{1,5}))?$/

/** A Host header or URL host as a lower-case name and port; undefined when it is malformed. */
export function splitHost(value: string): HostPattern | undefined {
  const match = HOST.exec(value.trim().toLowerCase())
  if (!match) return undefined
  return match[2] === undefined ? { name: match[1]! } : { name: match[1]!, port: match[2] }
}

/** Whether a Host value names this server. Exact names: `127.0.0.1.evil.test` is not loopback. */
export function hostAllowed(value: string, allowlist: HostAllowlist): boolean {
  if (allowlist === 'any') return true
  const host = splitHost(value)
  if (!host) return false
  return allowlist.some(
    (p) => p.name === host.name && (p.port === undefined || p.port === host.port),
  )
}

/**
 * Parses POPAGENT_ALLOWED_HOSTS (comma-separated `name` or `name:port`), or lists the entries it
 * cannot read, so a typo such as a scheme or a path fails at start rather than refusing everyone.
 */
export function parseAllowedHosts(
  value: string,
): { hosts: HostPattern[]; bad?: never } | { hosts?: never; bad: string[] } {
  const entries = value
    .split(',')
    .map((e) => e.trim())
    .filter(Boolean)
  const hosts: HostPattern[] = []
  const bad: string[] = []
  for (const entry of entries) {
    const host = splitHost(entry)
    if (host) hosts.push(host)
    else bad.push(entry)
  }
  return bad.length > 0 ? { bad } : { hosts }
}

/** Whether a bind address only accepts connections from this machine. */
export function isLoopbackAddress(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[(.*)\]$/, '$1')
  return (
    a === 'localhost' ||
    a === '::1' ||
    /^127(?:\.\d{1,3}){3}$/.test(a) ||
    /^::ffff:127(?:\.\d{1,3}){3}$/.test(a)
  )
}
