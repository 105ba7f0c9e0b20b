import { join } from 'node:path'

/** Where `popagent browser-server` listens unless told otherwise: inside the data directory. */
export function defaultBrowserSocket(dataDir: string) {
  return join(dataDir, 'browser', 'mcp.sock')
}
