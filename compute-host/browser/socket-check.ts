import { lstat } from 'node:fs/promises'
import { dirname } from 'node:path'

export type SocketCheck = { ok: true } | { ok: false; reason: string }

/**
 * Whether the browser server's socket is one only popagent's user can reach, checked before every
 * connection: a socket (not a file or a link someone swapped in), owned by our uid, mode 0600, in
 * a directory owned by us with mode 0700. Whoever can connect to it drives the owner's browser, so
 * anything looser is refused with what is wrong, never connected to "for now".
 */
export async function checkBrowserSocket(path: string): Promise<SocketCheck> {
  const uid = process.getuid?.()
  if (uid === undefined) return { ok: false, reason: 'Unix sockets need a POSIX host' }
  const directory = dirname(path)
  const dir = await lstat(directory).catch(() => undefined)
  if (!dir) return { ok: false, reason: `the socket's directory ${directory} does not exist` }
  if (!dir.isDirectory()) return { ok: false, reason: `${directory} is not a directory` }
  if (dir.uid !== uid) {
    return { ok: false, reason: `${directory} is owned by uid ${dir.uid}, not popagent's (${uid})` }
  }
  if ((dir.mode & 0o777) !== 0o700) {
    return { ok: false, reason: `${directory} has mode ${octal(dir.mode)}; it must be 0700` }
  }
  const socket = await lstat(path).catch(() => undefined)
  if (!socket) {
    return { ok: false, reason: `no browser server is listening: ${path} does not exist` }
  }
  if (!socket.isSocket()) return { ok: false, reason: `${path} is not a socket` }
  if (socket.uid !== uid) {
    return { ok: false, reason: `${path} is owned by uid ${socket.uid}, not popagent's (${uid})` }
  }
  if ((socket.mode & 0o777) !== 0o600) {
    return { ok: false, reason: `${path} has mode ${octal(socket.mode)}; it must be 0600` }
  }
  return { ok: true }
}

function octal(mode: number) {
  return `0${(mode & 0o777).toString(8).padStart(3, '0')}`
}
