import { ACTIVITY_PART, type AgentActivity } from '../../runtime/contracts/chat.ts'
import type { Memory } from '../../runtime/contracts/memories.ts'
import type { Session, UiMessage } from '../../runtime/contracts/sessions.ts'
import { fenced } from './fence.ts'

type Part = { type: string; text?: unknown; data?: unknown }

/**
 * The session as readable Markdown: its metadata, then one section per message (text as written,
 * the assistant's activity and usage under it), then the memories learnt in it. Anything that is
 * not prose goes in a fence that nothing inside can close.
 */
export function sessionMarkdown(session: Session, memories: Memory[], exportedAt: Date): string {
  const lines = [
    `# ${session.title}`,
    '',
    `- Session: ${session.id} (workspace ${session.workspaceId})`,
    `- Created ${session.createdAt}, updated ${session.updatedAt}, revision ${session.revision}${session.archivedAt ? `, archived ${session.archivedAt}` : ''}`,
    `- Exported ${exportedAt.toISOString()} by popagent; secrets known to the host are redacted`,
  ]
  session.messages.forEach((message, at) => lines.push('', ...messageSection(message, at + 1)))
  if (memories.length) {
    lines.push('', '## Memories from this session', '')
    for (const m of memories)
      lines.push(`- ${m.owner}${m.key ? ` \`${m.key}\`` : ''}: ${m.content}`)
  }
  return `${lines.join('\n')}\n`
}

function messageSection(message: UiMessage, n: number): string[] {
  const meta = (message.metadata ?? {}) as Record<string, unknown>
  const heading = [
    `## ${n}. ${message.role === 'user' ? 'User' : message.role === 'assistant' ? 'Assistant' : 'System'}`,
    ...(typeof meta.turnId === 'string' ? [`turn ${meta.turnId}`] : []),
    ...(typeof meta.model === 'string' ? [`model ${meta.model}`] : []),
  ].join(' · ')
  const out = [heading, '']
  const parts = message.parts as Part[]
  const activity: AgentActivity[] = []
  for (const part of parts) {
    if (part.type === 'text' && typeof part.text === 'string') out.push(part.text, '')
    else if (part.type === ACTIVITY_PART) activity.push(part.data as AgentActivity)
    // Step markers and Mastra's memory status say nothing to a reader; the JSON keeps them.
    else if (part.type !== 'step-start' && !part.type.startsWith('data-om-'))
      out.push(fenced(JSON.stringify(part, null, 2), 'json'), '')
  }
  if (activity.length) {
    out.push('### Activity', '')
    for (const a of activity) {
      const what = a.kind === 'delegation' ? `delegation to ${a.agentName}` : `${a.kind} ${a.tool}`
      const took = a.durationMs !== undefined ? `, ${a.durationMs} ms` : ''
      out.push(`- **${what}** (${a.agentName}, ${a.status}${took})`)
      for (const [label, text] of [
        ['input', a.input],
        ['output', a.output],
        ['error', a.error],
      ] as const) {
        if (text) out.push(`  ${label}:`, indent(fenced(text)))
      }
    }
    out.push('')
  }
  if (meta.usage && typeof meta.usage === 'object') {
    const usage = Object.entries(
      meta.usage as Record<string, { inputTokens: number; outputTokens: number }>,
    )
      .map(([model, u]) => `${model} ${u.inputTokens} in / ${u.outputTokens} out`)
      .join('; ')
    if (usage) out.push(`Usage: ${usage}`, '')
  }
  if (typeof meta.error === 'string') out.push(`Error: ${meta.error}`, '')
  return out
}

const indent = (text: string) =>
  text
    .split('\n')
    .map((l) => `  ${l}`)
    .join('\n')
