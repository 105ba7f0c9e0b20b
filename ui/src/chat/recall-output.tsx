import { A } from '@solidjs/router'
import { For } from 'solid-js'
import { recallSegments } from './recall-links.ts'

/** What recall used, with each source session a link that opens it. */
export function RecallOutput(props: { text: string }) {
  return (
    <pre class="act-output">
      <For each={recallSegments(props.text)}>
        {(segment) =>
          'sessionId' in segment ? (
            <A href={`/sessions/${segment.sessionId}`} title="Open the session this came from">
              {segment.sessionId}
            </A>
          ) : (
            segment.text
          )
        }
      </For>
    </pre>
  )
}
