import { request as httpRequest, type IncomingMessage, type OutgoingHttpHeaders } from 'node:http'
import { Readable } from 'node:stream'
import type { FetchLike } from '@modelcontextprotocol/sdk/shared/transport.js'

/** One HTTP exchange by node:http: the request sent, the response head back, its body unread. */
export type NodeHttpSend = (
  url: URL,
  init: { method: string; headers: OutgoingHttpHeaders; body: string; signal: AbortSignal },
) => Promise<IncomingMessage>

/**
 * A `fetch` made of a node:http sender, for the transports that cannot use the global fetch:
 * the SSRF guard's `outboundRequest` (it judges the address the socket connects to) and a Unix
 * socket (unixSocketFetch below). Streams the body, so SSE works; follows no redirect.
 */
export function fetchOverNodeHttp(send: NodeHttpSend): FetchLike {
  return async (input, init) => {
    const url = new URL(String(input))
    const headers: OutgoingHttpHeaders = {}
    new Headers(init?.headers).forEach((value, name) => {
      headers[name] = value
    })
    const body = init?.body
    if (body !== undefined && body !== null && typeof body !== 'string') {
      throw new TypeError('only string request bodies are sent (MCP sends JSON text)')
    }
    const signal = init?.signal ?? new AbortController().signal
    const response = await send(url, {
      method: init?.method ?? 'GET',
      headers,
      body: body ?? '',
      signal,
    })
    const status = response.statusCode ?? 502
    const responseHeaders = new Headers()
    for (const [name, value] of Object.entries(response.headers)) {
      if (value === undefined) continue
      for (const one of Array.isArray(value) ? value : [value]) responseHeaders.append(name, one)
    }
    const bodyless = status === 204 || status === 205 || status === 304 || init?.method === 'HEAD'
    if (bodyless) response.resume()
    return new Response(
      bodyless ? null : (Readable.toWeb(response) as ReadableStream<Uint8Array>),
      { status, statusText: response.statusMessage ?? '', headers: responseHeaders },
    )
  }
}

/**
 * A `fetch` to an HTTP server listening on a Unix socket (a desktop browser's MCP server): the
 * URL's host is only the Host header; every request goes to `socketPath`. Whoever passes the
 * path checks it first (owner, mode, directory); this only connects. No socket is pooled: a
 * pooled one outlives a restarted server and fails the next request.
 */
export function unixSocketFetch(socketPath: string): FetchLike {
  return fetchOverNodeHttp(
    (url, init) =>
      new Promise((done, fail) => {
        const request = httpRequest(
          {
            socketPath,
            path: `${url.pathname}${url.search}`,
            method: init.method,
            headers: { host: url.host, ...init.headers },
            signal: init.signal,
            // A fresh connection per request: a pooled one may be a dead server's.
            agent: false,
          },
          done,
        )
        request.on('error', fail)
        request.end(init.body)
      }),
  )
}
