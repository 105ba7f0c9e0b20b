/**
 * The two halves every test double's server repeats: listen on a free loopback port, and close
 * without waiting on clients. Loopback only: these doubles must never be reachable from outside.
 */
import type { Server, Socket } from 'node:net'

/** Listens on a free port of 127.0.0.1 and resolves with it. */
export async function listenOnLoopback(server: Server): Promise<number> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const address = server.address()
  if (!address || typeof address === 'string') throw new Error('the server has no TCP address')
  return address.port
}

/**
 * Tracks the server's connections from now on and returns a close that destroys them first: a
 * client's idle keep-alive socket would otherwise hold `server.close()` open.
 */
export function closerOf(server: Server): () => Promise<void> {
  const sockets = new Set<Socket>()
  server.on('connection', (socket) => {
    sockets.add(socket)
    socket.on('close', () => sockets.delete(socket))
  })
  return () =>
    new Promise<void>((resolve) => {
      for (const socket of sockets) socket.destroy()
      server.close(() => resolve())
    })
}
