/**
 * The fetch the gateway provider uses. A gateway that refuses a key often repeats it in the error
 * ("Incorrect API key provided: sk-…"); that text becomes the error Mastra stores with the turn and
 * the UI shows. Error bodies are therefore read and cleaned of every secret the host's redactor
 * knows (in every encoding) before the provider sees them. Successful responses stream through untouched.
 */
export function redactingFetch(
  redact: (text: string) => string,
  base: typeof fetch = fetch,
): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init)
    if (response.ok) return response
    const body = redact(await response.text())
    const headers = new Headers(response.headers)
    headers.delete('content-length')
    return new Response(body, { status: response.status, statusText: response.statusText, headers })
  }
}
