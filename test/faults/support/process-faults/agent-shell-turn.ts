/**
 * Runs shell probes through a real chat turn: the orchestrator delegates to the implementer,
 * whose one scripted `shell` call runs every probe in its sandbox; the answer is read back from
 * the tool result the implementer's next model request carries. In-process host, real edge,
 * scripted gateway (as test/workspace-tools.e2e.test.ts does it).
 */
import assert from 'node:assert/strict'
import { mkdir } from 'node:fs/promises'
import { join } from 'node:path'
import { createSession } from '../../../support/api-fixtures.ts'
import { postChat, roleOf, toolResultsOf } from '../../../support/chat.ts'
import { startFileToolStack } from '../file-tool-turn.ts'
import { readUiStream } from '../../../support/ui-stream.ts'
import type { Probe } from './network-probes.ts'

/** Each probe's output, by name, as the implementer's shell tool returned it. */
export async function probeThroughAgentTurn(
  root: string,
  probes: Probe[],
): Promise<Record<string, string>> {
  // A repository: the shell is offered only where .git exists to be kept read-only.
  await mkdir(join(root, 'proj', '.git'), { recursive: true })
  const { stack, url, workspaceId } = await startFileToolStack(root, 60_000)
  try {
    const sessionId = await createSession(stack.edge(), workspaceId)
    // One line per probe, `@@name=output`, so the single tool result can be split again.
    const command = probes
      .map((p) => `echo "@@${p.name}=$( { ${p.script} ; } 2>&1 | tr '\\n' ' ')"`)
      .join('; ')
    let toolResult: string | undefined
    stack.gateway.respondWith((r) => {
      const done = toolResultsOf(r)
      if (roleOf(r) === 'orchistrator') {
        return done.length === 0
          ? { toolCalls: [{ name: 'agent-implementer', arguments: { prompt: 'probe' } }] }
          : { text: 'probed' }
      }
      if (roleOf(r) !== 'implementer') return { text: 'n/a' }
      if (done.length === 0) {
        return { toolCalls: [{ name: 'shell', arguments: { command, timeout: 60 } }] }
      }
      const content = done[0]!.content
      toolResult = typeof content === 'string' ? content : JSON.stringify(content)
      return { text: 'done' }
    })
    await readUiStream(
      await postChat(url, { sessionId, workspaceId, model: 'remote/a', text: 'Probe the network' }),
    )
    assert.ok(toolResult, 'the implementer never returned a shell result')
    const outputs: Record<string, string> = {}
    // The result may be the raw output or JSON around it (newlines then escaped as `\n`).
    for (const segment of toolResult.split('@@').slice(1)) {
      const [, name, rest] = /^([a-z0-9-]+)=([\s\S]*)$/.exec(segment) ?? []
      if (name) outputs[name] = rest!.split(/\\n|\n|"/)[0]!.trim()
    }
    return outputs
  } finally {
    await stack.stop()
  }
}
