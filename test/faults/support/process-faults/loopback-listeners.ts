/**
 * Counting listeners on loopback only: TCP on 127.0.0.1 (and ::1 where the machine has IPv6),
 * UDP on the same addresses, and a unix socket in a temporary directory. Every accepted
 * connection and every datagram is counted, so a probe that reached one cannot go unnoticed.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram'
import { mkdtemp, rm } from 'node:fs/promises'
import { createServer, type Server, type Socket } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export type Listeners = {
  tcp4: number
  tcp6?: number
  udp4: number
  udp6?: number
  unixPath: string
  /** Connections and datagrams received, by listener. */
  received: Record<string, number>
  total(): number
  reset(): void
  close(): Promise<void>
}

export async function startLoopbackListeners(): Promise<Listeners> {
  const received: Record<string, number> = {}
  const count = (name: string) => () => void (received[name] = (received[name] ?? 0) + 1)
  const servers: Server[] = []
  const sockets: UdpSocket[] = []
  const connections = new Set<Socket>()

  const tcp = async (name: string, host: string, path?: string) => {
    const server = createServer((socket) => {
      count(name)()
      connections.add(socket)
      socket.on('close', () => connections.delete(socket))
      // Answer like a tiny HTTP server, so curl and wget finish instead of waiting.
      socket.on('error', () => {})
      socket.end('HTTP/1.0 200 OK\r\ncontent-length: 8\r\n\r\nREACHED\n')
    })
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      if (path) server.listen(path, resolve)
      else server.listen(0, host, resolve)
    })
    servers.push(server)
    return (server.address() as { port: number }).port
  }
  const udp = async (name: string, type: 'udp4' | 'udp6', host: string) => {
    const socket = createSocket(type)
    socket.on('message', count(name))
    await new Promise<void>((resolve, reject) => {
      socket.once('error', reject)
      socket.bind(0, host, resolve)
    })
    sockets.push(socket)
    return socket.address().port
  }
  const optional = <T>(attempt: Promise<T>) => attempt.catch(() => undefined)

  const dir = await mkdtemp(join(tmpdir(), 'popagent-fault-unix-'))
  const unixPath = join(dir, 'probe.sock')
  const listeners: Listeners = {
    tcp4: await tcp('tcp4', '127.0.0.1'),
    udp4: await udp('udp4', 'udp4', '127.0.0.1'),
    unixPath,
    received,
    total: () => Object.values(received).reduce((a, b) => a + b, 0),
    reset: () => {
      for (const key of Object.keys(received)) delete received[key]
    },
    async close() {
      for (const socket of sockets) socket.close()
      for (const connection of connections) connection.destroy()
      // Not awaited: after the probes a server's close callback was seen never to fire, with
      // nothing left open to wait for, which would hang the test.
      for (const server of servers) server.close()
      await rm(dir, { recursive: true, force: true })
    },
  }
  await tcp('unix', '', unixPath)
  // IPv6 loopback is optional: a machine without it simply has fewer probes.
  const tcp6 = await optional(tcp('tcp6', '::1'))
  const udp6 = await optional(udp('udp6', 'udp6', '::1'))
  if (tcp6) listeners.tcp6 = tcp6
  if (udp6) listeners.udp6 = udp6
  return listeners
}
