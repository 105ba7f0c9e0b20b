/**
 * The two servers of the stream-proxy benchmark, each run as its own process (as the edge and
 * the compute host are deployed) so the proxy's work does not share a thread with the client's:
 *   node bench/stream-proxy-servers.ts host <events>      a loopback "host" writing SSE events
 *   node bench/stream-proxy-servers.ts edge <host-url>    the real Node edge in front of it
 * Each prints its URL on the first line of stdout and runs until killed.
 */
import { createServer } from 'node:http'
import { listenOnLoopback } from '../test/support/loopback-server.ts'
import type { Db } from '../db/index.ts'
import { parseEdgeConfig } from '../handlers/config.ts'
import { startNodeEdge } from '../handlers/entry.node.ts'

export const BENCH_TOKEN = 'bench-host-token-0123456789'
const EVENT = `data: ${JSON.stringify({ type: 'text-delta', id: 't1', delta: 'lorem ipsum ' })}\n\n`

async function host(events: number) {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', async () => {
      res.writeHead(200, {
        'content-type': 'text/event-stream',
        'x-vercel-ai-ui-message-stream': 'v1',
      })
      // One write per event, as the real host writes each stream part.
      for (let i = 0; i < events; i++) {
        if (!res.write(EVENT)) await new Promise((r) => res.once('drain', r))
      }
      res.end('data: [DONE]\n\n')
    })
  })
  console.log(`http://127.0.0.1:${await listenOnLoopback(server)}`)
}

async function edge(hostUrl: string) {
  const started = await startNodeEdge({
    config: parseEdgeConfig({ POPAGENT_HOST_URL: hostUrl, POPAGENT_HOST_TOKEN: BENCH_TOKEN }),
    // The chat route never touches the database: it validates and forwards.
    db: {} as Db,
    observabilityDb: {} as Db,
    port: 0,
  })
  console.log(started.url)
}

if (import.meta.main) {
  // Exit normally on SIGTERM so `--cpu-prof` can write its profile.
  process.on('SIGTERM', () => process.exit(0))
  const [role, arg] = process.argv.slice(2)
  if (role === 'host') await host(Number(arg))
  else if (role === 'edge') await edge(arg!)
  else throw new Error('usage: stream-proxy-servers.ts host <events> | edge <host-url>')
}
