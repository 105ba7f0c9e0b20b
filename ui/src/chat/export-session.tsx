import { createSignal, Show } from 'solid-js'
import { api, ApiError } from '../api.ts'
import { describeError } from '../forms/submission.ts'

type Format = 'md' | 'json'

/**
 * Downloads the session export (B4). Fetched with the API key like every call (a plain link
 * would go without it), then handed to the browser as a file named by the server.
 */
export function ExportSession(props: { sessionId: string }) {
  const [error, setError] = createSignal<string>()
  const download = async (format: Format) => {
    setError(undefined)
    try {
      const res = await api.sessions[':id'].export.$get({
        param: { id: props.sessionId },
        query: { format },
      })
      if (!res.ok) throw new ApiError(res.status, 'EXPORT_FAILED', `export failed (${res.status})`)
      const name = /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1]
      const url = URL.createObjectURL(await res.blob())
      const link = Object.assign(document.createElement('a'), {
        href: url,
        download: name ?? `session.${format}`,
      })
      // Chromium starts a download only for a link that is in the document.
      document.body.append(link)
      link.click()
      link.remove()
      setTimeout(() => URL.revokeObjectURL(url), 10_000)
    } catch (err) {
      setError(describeError(err))
    }
  }
  return (
    <>
      <button type="button" class="secondary" onClick={() => download('md')}>
        Export Markdown
      </button>
      <button type="button" class="secondary" onClick={() => download('json')}>
        Export JSON
      </button>
      <Show when={error()}>{(e) => <span class="error">{e()}</span>}</Show>
    </>
  )
}
