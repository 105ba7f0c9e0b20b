import { createServer } from 'node:http'
import { listenOnLoopback } from './loopback-server.ts'

/**
 * A fake SearXNG on loopback speaking its JSON API (`GET /search?q=…&format=json`). Results are
 * generated from the query; `status` makes every answer fail with that HTTP status.
 */
export async function startFakeSearxng(options: { results?: number } = {}) {
  const queries: string[] = []
  let status: number | undefined
  const server = createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname !== '/search' || url.searchParams.get('format') !== 'json') {
      res.writeHead(404).end()
      return
    }
    const q = url.searchParams.get('q') ?? ''
    queries.push(q)
    if (status) {
      res.writeHead(status).end()
      return
    }
    const results = Array.from({ length: options.results ?? 3 }, (_, i) => ({
      title: `Result ${i} for ${q}`,
      url: i === 1 ? 'javascript:alert(1)' : `https://example.test/${i}`,
      content: `snippet ${i} `.repeat(100),
      engine: 'fake',
    }))
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(JSON.stringify({ query: q, results }))
  })
  const port = await listenOnLoopback(server)
  return {
    url: `http://127.0.0.1:${port}`,
    queries,
    fail: (next: number | undefined) => void (status = next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
