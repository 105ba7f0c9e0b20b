import { createTool } from '@mastra/core/tools'
import { z } from 'zod'
import { keptJsonSchema } from './kept-json-schema.ts'

const TIMEOUT_MS = 10_000
const MAX_RESULTS = 10
const SNIPPET_CHARS = 500
const MAX_BODY_BYTES = 2 * 1024 * 1024

export type WebSearchResult = { title: string; url: string; snippet: string; engine?: string }

/**
 * Web search through the owner's self-hosted SearXNG (its JSON API), credential-free. Results are
 * bounded in count and size. An unreachable or misconfigured SearXNG is a clear tool error that
 * names the URL and the fix; there is no fallback to a hosted search service.
 */
export function searchSearxng(options: { baseUrl: string; fetch?: typeof fetch }) {
  const doFetch = options.fetch ?? fetch
  const base = options.baseUrl.replace(/\/+$/, '')

  return async function search(
    query: string,
    limit = MAX_RESULTS,
    signal?: AbortSignal,
  ): Promise<WebSearchResult[]> {
    const url = `${base}/search?${new URLSearchParams({ q: query, format: 'json' })}`
    const signals = [AbortSignal.timeout(TIMEOUT_MS), ...(signal ? [signal] : [])]
    let response: Response
    try {
      response = await doFetch(url, {
        headers: { accept: 'application/json' },
        signal: AbortSignal.any(signals),
      })
    } catch (error) {
      if (signal?.aborted) throw error
      const timedOut = error instanceof Error && error.name === 'TimeoutError'
      throw new Error(
        timedOut
          ? `SearXNG at ${base} did not answer within ${TIMEOUT_MS / 1000} s`
          : `SearXNG is not reachable at ${base}; start it or set SEARXNG_URL`,
      )
    }
    if (!response.ok) {
      await response.body?.cancel()
      throw new Error(
        response.status === 403
          ? `SearXNG at ${base} refused the JSON format (403); enable "json" under search.formats in its settings.yml`
          : `SearXNG at ${base} answered ${response.status}`,
      )
    }
    const text = await response.text()
    if (text.length > MAX_BODY_BYTES) throw new Error('SearXNG sent an oversized answer')
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      throw new Error(`SearXNG at ${base} did not answer JSON`)
    }
    const results = (body as { results?: unknown })?.results
    if (!Array.isArray(results)) throw new Error(`SearXNG at ${base} sent no result list`)
    return results
      .filter((r): r is Record<string, unknown> => !!r && typeof r === 'object')
      .filter((r) => typeof r.url === 'string' && /^https?:\/\//.test(r.url))
      .slice(0, Math.min(limit, MAX_RESULTS))
      .map((r) => ({
        title: String(r.title ?? '').slice(0, 300),
        url: String(r.url).slice(0, 2_000),
        snippet: String(r.content ?? '').slice(0, SNIPPET_CHARS),
        ...(typeof r.engine === 'string' && { engine: r.engine }),
      }))
  }
}

/** The agents' `web-search` tool. */
export function createWebSearchTool(options: { baseUrl: string; fetch?: typeof fetch }) {
  const search = searchSearxng(options)
  return createTool({
    id: 'web-search',
    description:
      'Search the web through the self-hosted SearXNG instance. Returns up to 10 results with title, URL and a short snippet.',
    inputSchema: keptJsonSchema(
      z.object({
        query: z.string().trim().min(1).max(500).describe('What to search for'),
        maxResults: z.number().int().min(1).max(MAX_RESULTS).optional(),
      }),
    ),
    execute: async ({ query, maxResults }, context) => ({
      results: await search(query, maxResults, context?.abortSignal),
    }),
  })
}
