/**
 * Requests over a real socket with nothing normalised on the way: node:http sends the path as
 * given (`..`, `%00`, 10 kB segments), any header or content type, and bodies as bytes, a
 * stream or chunked. fetch would resolve dot segments and refuse some of these.
 */
import { request as httpRequest } from 'node:http'

export type RawRequest = {
  method: string
  /** The request target exactly as it goes on the wire, e.g. `/api/sessions/..%00`. */
  path: string
  headers?: Record<string, string | string[]>
  body?: string | Buffer
  /** Send the body chunked, without a Content-Length. */
  chunked?: boolean
}

export type RawResponse = {
  status: number
  headers: Record<string, string | string[] | undefined>
  body: Buffer
  text: string
}

export function send(base: string, req: RawRequest, timeoutMs = 30_000): Promise<RawResponse> {
  const url = new URL(base)
  const body = req.body === undefined ? undefined : Buffer.from(req.body)
  const headers: Record<string, string | string[]> = { ...req.headers }
  if (body && !req.chunked) headers['content-length'] = String(body.length)
  if (body && req.chunked) headers['transfer-encoding'] = 'chunked'
  return new Promise((resolve, reject) => {
    const r = httpRequest(
      {
        host: url.hostname,
        port: url.port,
        method: req.method,
        path: req.path,
        headers,
        // No keep-alive pool: one connection per request, so a broken one cannot poison the next.
        agent: false,
        timeout: timeoutMs,
      },
      (res) => {
        const chunks: Buffer[] = []
        res.on('data', (c: Buffer) => chunks.push(c))
        res.on('error', reject)
        res.on('end', () => {
          const buf = Buffer.concat(chunks)
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            body: buf,
            text: buf.toString('utf8'),
          })
        })
      },
    )
    r.on('timeout', () => r.destroy(new Error(`no answer within ${timeoutMs} ms`)))
    r.on('error', reject)
    if (body && req.chunked) {
      // Several chunks, so a limit has to be enforced while the body streams.
      const size = 64 * 1024
      for (let i = 0; i < body.length; i += size) r.write(body.subarray(i, i + size))
      r.end()
    } else r.end(body)
  })
}

/** Runs `fn` over `items` with at most `limit` in flight. */
export async function inParallel<T>(items: T[], limit: number, fn: (item: T) => Promise<void>) {
  let next = 0
  const worker = async () => {
    while (next < items.length) await fn(items[next++]!)
  }
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker))
}
