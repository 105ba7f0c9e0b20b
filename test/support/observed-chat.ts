import { after, before } from 'node:test'
import type { RunEvent } from '../../compute-host/runs/run-events.ts'
import { AssistantMetadata } from '../../runtime/contracts/chat.ts'
import { markRoles, postChat } from './chat.ts'
import { startTestStack, type TestStack } from './stack.ts'
import { okJson, typedClient } from './typed-client.ts'
import { readUiStream } from './ui-stream.ts'

/**
 * A listening test stack for one test file whose run events are collected, with the supervisor
 * and the researcher marked by role, and a chat turn as a client sees it. Registers its own
 * `before`/`after`; read `stack`, `url` and `events` inside tests.
 */
export function observedChatStack(roles: readonly string[] = ['orchistrator', 'researcher']) {
  let stack: TestStack | undefined
  let url = ''
  const events: RunEvent[] = []
  before(async () => {
    stack = await startTestStack({ models: [{ id: 'remote/a' }] })
    url = await stack.listen()
    await markRoles(stack, roles)
    stack.host.resources.observers.addRunObserver((event) => void events.push(event))
  })
  after(() => stack?.stop())
  const started = () => {
    if (!stack) throw new Error('the stack is used before its before() hook ran')
    return stack
  }
  return {
    get stack() {
      return started()
    },
    /** Every run event since the last `clearEvents()`. */
    events,
    clearEvents: () => void events.splice(0),
    /** One turn in a new session: its streamed text, last metadata and the session id. */
    async turn(text = 'go') {
      const api = typedClient(started().edge()).api
      const sessionId = (await okJson(await api.sessions.$post({ json: {} }))).id
      const chunks = await readUiStream(await postChat(url, { sessionId, model: 'remote/a', text }))
      const metadata = AssistantMetadata.parse(
        chunks.filter((c) => c.type === 'message-metadata').at(-1)?.messageMetadata,
      )
      const answer = chunks
        .filter((c) => c.type === 'text-delta')
        .map((c) => c.delta)
        .join('')
      return { sessionId, chunks, metadata, answer }
    },
  }
}
