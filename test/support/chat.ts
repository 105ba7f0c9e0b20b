import { json } from './app.ts'
import type { RecordedRequest } from './scripted-gateway.ts'
import type { TestStack } from './stack.ts'
import { okJson, typedClient } from './typed-client.ts'

/** Gives each agent its `ROLE:<id>` marker as instructions (what `roleOf` reads), through the API. */
export async function markRoles(stack: Pick<TestStack, 'edge'>, ids: readonly string[]) {
  const api = typedClient(stack.edge()).api
  for (const id of ids) {
    const res = await api.agents[':id'].$patch({
      param: { id },
      json: { instructions: `ROLE:${id}`, modelOverride: null },
    })
    await okJson(res, 200)
  }
}

/** One message of a recorded gateway request, as the OpenAI wire format has it. */
export type WireMessage = { role: string; content?: unknown }

/** The messages a recorded gateway request carried (none for a request without them). */
export const messagesOf = (request: RecordedRequest): WireMessage[] => request.body?.messages ?? []

/** The tool results among them: one per tool call answered so far in the turn. */
export const toolResultsOf = (request: RecordedRequest) =>
  messagesOf(request).filter((m) => m.role === 'tool')

/** The names of the tools a recorded gateway request offered the model. */
export const offeredTools = (request: RecordedRequest): string[] =>
  (request.body?.tools ?? []).map((t: { function?: { name?: string } }) => t.function?.name)

/** The text of the newest user message a gateway request carried (JSON, as the model got it). */
export function lastUserText(request: RecordedRequest): string {
  const users = messagesOf(request).filter((m) => m.role === 'user')
  return JSON.stringify(users.at(-1)?.content ?? '')
}

/** Which agent sent a gateway request: test agents' instructions carry a `ROLE:<id>` marker. */
export function roleOf(request: RecordedRequest): string {
  const system = JSON.stringify(messagesOf(request).filter((m) => m.role === 'system'))
  return /ROLE:([a-z-]+)/.exec(system)?.[1] ?? 'unknown'
}

export const userMessage = (text: string) => ({
  id: `u_${Math.random().toString(36).slice(2)}`,
  role: 'user' as const,
  parts: [{ type: 'text', text }],
})

/** `POST /api/chat` on a listening edge. */
export const postChat = (
  url: string,
  body: { sessionId: string; workspaceId?: string; model?: string; text: string },
  signal?: AbortSignal,
) =>
  fetch(`${url}/api/chat`, {
    ...json(
      {
        sessionId: body.sessionId,
        workspaceId: body.workspaceId ?? 'wsp_default',
        ...(body.model && { model: body.model }),
        message: userMessage(body.text),
      },
      { method: 'POST' },
    ),
    ...(signal && { signal }),
  })
