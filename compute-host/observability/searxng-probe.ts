const TIMEOUT_MS = 2_000

/**
 * Whether the SearXNG the web-search tool uses answers, for the health page. Reported only: web
 * search being away turns that one tool's calls into errors, never a failed readiness.
 */
export async function probeSearxng(baseUrl: string): Promise<{ ok: boolean; error?: string }> {
  try {
    const res = await fetch(new URL('/healthz', baseUrl), {
      signal: AbortSignal.timeout(TIMEOUT_MS),
      redirect: 'manual',
    })
    return res.ok ? { ok: true } : { ok: false, error: `HTTP ${res.status}` }
  } catch (error) {
    return { ok: false, error: error instanceof Error ? error.message : 'unreachable' }
  }
}
