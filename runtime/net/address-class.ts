/**
 * What an IP address reaches, for the outbound-URL rule (docs/hooks-and-secrets.md): only public
 * addresses are called; loopback only with the owner's explicit consent; everything else
 * (private, link-local where cloud metadata answers, carrier-grade NAT, multicast, reserved) never.
 * Pure, so the edge can refuse a literal when a URL is stored and the compute host can check the
 * address a name resolves to when it connects (compute-host/net/outbound-guard.ts).
 *
 * IPv4 is a deny-list of the special-purpose blocks; IPv6 allows only global unicast (2000::/3)
 * less its special blocks, and judges the IPv4 address that mapped and NAT64 forms embed.
 */
export type AddressClass =
  { kind: 'public' } | { kind: 'loopback' } | { kind: 'forbidden'; what: string }

const PUBLIC: AddressClass = { kind: 'public' }
const LOOPBACK: AddressClass = { kind: 'loopback' }
const forbidden = (what: string): AddressClass => ({ kind: 'forbidden', what })

const PRIVATE = 'a private address (RFC 1918)'
const DOCUMENTATION = 'a documentation address'
const V4_BLOCKS: readonly (readonly [string, number, AddressClass])[] = [
  ['0.0.0.0', 8, forbidden('in 0.0.0.0/8 ("this network", which reaches this machine)')],
  ['10.0.0.0', 8, forbidden(PRIVATE)],
  ['100.64.0.0', 10, forbidden('a carrier-grade NAT address (100.64.0.0/10)')],
  ['127.0.0.0', 8, LOOPBACK],
  ['169.254.0.0', 16, forbidden('a link-local address, where cloud metadata services answer')],
  ['172.16.0.0', 12, forbidden(PRIVATE)],
  ['192.0.0.0', 24, forbidden('an IETF protocol address (192.0.0.0/24)')],
  ['192.0.2.0', 24, forbidden(DOCUMENTATION)],
  ['192.88.99.0', 24, forbidden('a 6to4 relay address (192.88.99.0/24)')],
  ['192.168.0.0', 16, forbidden(PRIVATE)],
  ['198.18.0.0', 15, forbidden('a benchmarking address (198.18.0.0/15)')],
  ['198.51.100.0', 24, forbidden(DOCUMENTATION)],
  ['203.0.113.0', 24, forbidden(DOCUMENTATION)],
  ['224.0.0.0', 4, forbidden('a multicast address')],
  ['240.0.0.0', 4, forbidden('a reserved or broadcast address (240.0.0.0/4)')],
]

/** A dotted-quad IPv4 address as a number; undefined for anything else (no octal, no hex). */
export function parseIpv4(text: string): number | undefined {
  const parts = text.split('.')
  if (parts.length !== 4) return undefined
  let value = 0
  for (const part of parts) {
    if (!/^(0|[1-9]\d{0,2})$/.test(part) || Number(part) > 255) return undefined
    value = value * 256 + Number(part)
  }
  return value
}

/** An IPv6 address (brackets and a zone allowed) as its eight 16-bit groups; undefined if not. */
export function parseIpv6(text: string): number[] | undefined {
  const bare = text.replace(/^\[(.*)\]$/, '$1').replace(/%[^%]*$/, '')
  if (!bare.includes(':')) return undefined
  const halves = bare.split('::')
  if (halves.length > 2) return undefined
  const groupsOf = (half: string): number[] | undefined => {
    if (half === '') return []
    const out: number[] = []
    const pieces = half.split(':')
    for (const [i, piece] of pieces.entries()) {
      // The last piece may be a dotted IPv4 address (::ffff:127.0.0.1).
      if (i === pieces.length - 1 && piece.includes('.')) {
        const v4 = parseIpv4(piece)
        if (v4 === undefined) return undefined
        out.push(Math.floor(v4 / 65536), v4 % 65536)
      } else if (/^[0-9a-f]{1,4}$/i.test(piece)) out.push(parseInt(piece, 16))
      else return undefined
    }
    return out
  }
  const head = groupsOf(halves[0]!)
  const tail = halves.length === 2 ? groupsOf(halves[1]!) : []
  if (!head || !tail) return undefined
  if (halves.length === 1) return head.length === 8 ? head : undefined
  const fill = 8 - head.length - tail.length
  if (fill < 1) return undefined
  return [...head, ...Array<number>(fill).fill(0), ...tail]
}

function classifyIpv4(value: number): AddressClass {
  for (const [base, bits, result] of V4_BLOCKS) {
    const start = parseIpv4(base)!
    if (value >= start && value < start + 2 ** (32 - bits)) return result
  }
  return PUBLIC
}

function classifyIpv6(g: number[]): AddressClass {
  const zeroUpTo = (n: number) => g.slice(0, n).every((x) => x === 0)
  const embedded = g[6]! * 65536 + g[7]!
  if (zeroUpTo(8)) return forbidden('the unspecified address (::), which reaches this machine')
  if (zeroUpTo(7) && g[7] === 1) return LOOPBACK
  // ::ffff:a.b.c.d is the IPv4 address itself, loopback included.
  if (zeroUpTo(5) && g[5] === 0xffff) return classifyIpv4(embedded)
  if (zeroUpTo(6)) return forbidden('an IPv4-compatible IPv6 address (::/96, deprecated)')
  if (g[0] === 0x64 && g[1] === 0xff9b) {
    // NAT64 (64:ff9b::/96) reaches the IPv4 address it embeds, through a translator: the embedded
    // address must be public; loopback there is the translator's own, never the owner's server.
    if (g.slice(2, 6).every((x) => x === 0)) {
      const inner = classifyIpv4(embedded)
      return inner.kind === 'public'
        ? PUBLIC
        : forbidden('a NAT64 address embedding a non-public IPv4 address')
    }
    return forbidden('a local-use NAT64 address (64:ff9b:1::/48)')
  }
  const top = g[0]!
  if (top >= 0xfe80 && top <= 0xfebf) return forbidden('a link-local IPv6 address (fe80::/10)')
  if (top >= 0xfec0 && top <= 0xfeff) return forbidden('a site-local IPv6 address (fec0::/10)')
  if (top >= 0xfc00 && top <= 0xfdff) return forbidden('a unique local IPv6 address (fc00::/7)')
  if (top >= 0xff00) return forbidden('a multicast address')
  if (top < 0x2000 || top > 0x3fff) return forbidden('a reserved IPv6 address (outside 2000::/3)')
  if (top === 0x2001 && g[1]! < 0x0200)
    return forbidden('an IETF protocol IPv6 address (2001::/23, Teredo included)')
  if (top === 0x2001 && g[1] === 0x0db8) return forbidden(DOCUMENTATION)
  if (top === 0x2002) return forbidden('a 6to4 address (2002::/16)')
  if (top === 0x3fff && g[1]! < 0x1000) return forbidden(DOCUMENTATION)
  return PUBLIC
}

/** The class of an IP address literal (IPv6 with or without brackets); undefined for a name. */
export function classifyAddress(address: string): AddressClass | undefined {
  const v4 = parseIpv4(address)
  if (v4 !== undefined) return classifyIpv4(v4)
  const v6 = parseIpv6(address)
  return v6 && classifyIpv6(v6)
}

/**
 * The class of a URL's host as the WHATWG parser leaves it (IPv4 in any notation is already
 * dotted decimal, IPv6 compressed in brackets). `localhost` and `*.localhost` are loopback by
 * definition (RFC 6761); any other name is undefined: only resolving it can tell.
 */
export function classifyUrlHost(hostname: string): AddressClass | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '')
  if (name === 'localhost' || name.endsWith('.localhost')) return LOOPBACK
  return classifyAddress(name)
}

/**
 * Whether an address is on a private network the owner may opt into calling (a webhook callback
 * on the office LAN): RFC 1918 IPv4 (10/8, 172.16/12, 192.168/16), IPv6 unique local (fc00::/7),
 * and those IPv4 blocks written as ::ffff:a.b.c.d. Nothing else: link-local (169.254/16 and
 * fe80::/10, where cloud metadata answers), carrier-grade NAT, "this network", multicast and the
 * reserved blocks stay refused whatever the owner says.
 */
export function isPrivateNetwork(address: string): boolean {
  const inV4 = (value: number) =>
    [
      ['10.0.0.0', 8],
      ['172.16.0.0', 12],
      ['192.168.0.0', 16],
    ].some(([base, bits]) => {
      const start = parseIpv4(base as string)!
      return value >= start && value < start + 2 ** (32 - (bits as number))
    })
  const v4 = parseIpv4(address)
  if (v4 !== undefined) return inV4(v4)
  const g = parseIpv6(address)
  if (!g) return false
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) return inV4(g[6]! * 65536 + g[7]!)
  return g[0]! >= 0xfc00 && g[0]! <= 0xfdff
}
