/**
 * The message a client sees when a turn fails: specific about which dependency failed, and
 * redacted, never a stack or a raw provider payload.
 */
export function describeRunError(error: unknown, redact: (text: string) => string): string {
  const e = error as { name?: string; statusCode?: number; message?: string; cause?: unknown }
  if (e?.name === 'AbortError') return 'the turn was stopped'
  const status = e?.statusCode
  if (typeof status === 'number') {
    const detail = typeof e.message === 'string' ? `: ${e.message.slice(0, 300)}` : ''
    return redact(`the model gateway answered ${status}${detail}`)
  }
  const text = `${e?.message ?? ''} ${String((e?.cause as { code?: string })?.code ?? '')}`
  if (/ECONNREFUSED|ENOTFOUND|EHOSTUNREACH|fetch failed|Cannot connect to API/i.test(text)) {
    return 'the model gateway is not reachable; check NINEROUTER_URL and that the gateway is running'
  }
  if (/timed? ?out/i.test(text)) return 'the model gateway did not answer in time'
  const message = typeof e?.message === 'string' && e.message ? e.message.slice(0, 300) : 'unknown'
  return redact(`the turn failed: ${message}`)
}
