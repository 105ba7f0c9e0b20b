/**
 * A DNS server on loopback that answers every query "no such name" (NXDOMAIN), and a `lookup`
 * for node:net/node:http that asks only it. Tests get a real resolver failure (ENOTFOUND from
 * c-ares) without a single query leaving the machine, as the system resolver's would.
 */
import { createSocket } from 'node:dgram'
import { Resolver } from 'node:dns'
import type { LookupFunction } from 'node:net'

export async function startNxdomainDns(): Promise<{ lookup: LookupFunction; close(): void }> {
  const socket = createSocket('udp4')
  socket.on('message', (query, from) => {
    if (query.length < 12) return
    // The question ends after its name's zero label, then type and class (4 bytes).
    let end = 12
    while (end < query.length && query[end] !== 0) end += query[end]! + 1
    end += 5
    const answer = Buffer.concat([
      query.subarray(0, 2), // the query's id
      Buffer.from([0x81, 0x83, 0, 1, 0, 0, 0, 0, 0, 0]), // response, NXDOMAIN, one question
      query.subarray(12, end),
    ])
    socket.send(answer, from.port, from.address)
  })
  await new Promise<void>((resolve) => socket.bind(0, '127.0.0.1', resolve))
  const resolver = new Resolver({ timeout: 1_000, tries: 1 })
  resolver.setServers([`127.0.0.1:${socket.address().port}`])
  const lookup: LookupFunction = (hostname, _options, callback) =>
    resolver.resolve4(hostname, (error, addresses) =>
      error ? callback(error, '', 4) : callback(null, addresses[0]!, 4),
    )
  return { lookup, close: () => socket.close() }
}
