import { query, revalidate } from '@solidjs/router'
import { For, Show } from 'solid-js'
import type { z } from 'zod'
import type { McpAgentToolServer } from '../../../runtime/contracts/mcp-servers.ts'
import { api, ok } from '../api.ts'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { getServers, patchServer } from '../pages/mcp-servers.tsx'

type Server = z.infer<typeof McpAgentToolServer>

/** Each server's tools as this agent gets them on this host (the host asks each server). */
const getMcpTools = query(
  (id: string) => ok(api.agents[':id']['mcp-tools'].$get({ param: { id } })),
  'agent-mcp-tools',
)

/**
 * The agent editor's MCP servers: a switch per server for whether this agent gets its tools (the
 * server's `agentIds`, the owner's alone), and under a server it has, a box per tool the server
 * lists now, with the reason a tool cannot run here. Unticking a tool stores the choice as the
 * ticked ones; ticking them all again stores none, so tools the server adds later come too.
 */
export function AgentMcpServers(props: { agentId: string }) {
  const servers = createData(() => getServers())
  const tools = createData(() => getMcpTools(props.agentId))
  const action = createSubmission()
  const save = (id: string, json: Parameters<typeof patchServer>[1]) =>
    void action.run(async () => {
      await patchServer(id, json)
      await revalidate(getMcpTools.keyFor(props.agentId))
    })
  const toggleServer = (server: Server, on: boolean) => {
    const row = servers.data()?.servers.find((s) => s.id === server.id)
    if (!row) return
    const others = row.agentIds.filter((a) => a !== props.agentId)
    save(server.id, { agentIds: on ? [...others, props.agentId] : others })
  }
  const toggleTool = (server: Server, name: string, on: boolean) => {
    const row = servers.data()?.servers.find((s) => s.id === server.id)
    if (!row) return
    const listed = server.tools.map((t) => t.name)
    const before = server.chosen ?? listed
    const after = on ? [...new Set([...before, name])] : before.filter((t) => t !== name)
    const all = listed.every((t) => after.includes(t))
    const agentTools = { ...row.agentTools }
    if (all) delete agentTools[props.agentId]
    else agentTools[props.agentId] = after
    save(server.id, { agentTools })
  }
  return (
    <section class="card stack" aria-label="MCP servers of this agent">
      <h2>MCP servers</h2>
      <Show
        when={(tools.data()?.servers.length ?? 0) > 0}
        fallback={
          <p class="muted">
            {tools.data() ? 'No MCP servers yet: add one on the Agents page.' : 'Asking the host…'}
          </p>
        }
      >
        <For each={tools.data()?.servers}>
          {(server) => (
            <fieldset aria-label={`Tools of ${server.displayName}`}>
              <label>
                <input
                  type="checkbox"
                  checked={server.given}
                  disabled={action.busy()}
                  onChange={(e) => toggleServer(server, e.currentTarget.checked)}
                />{' '}
                {server.displayName} <span class="mono">{server.id}__*</span>{' '}
                <span class="muted">{server.reason ?? `${server.tools.length} tools`}</span>
              </label>
              <Show when={server.given}>
                <ul>
                  <For each={server.tools}>
                    {(tool) => (
                      <li>
                        <label title={tool.description}>
                          <input
                            type="checkbox"
                            checked={tool.chosen}
                            disabled={action.busy()}
                            onChange={(e) => toggleTool(server, tool.name, e.currentTarget.checked)}
                          />{' '}
                          <span class="mono">{tool.toolName}</span>{' '}
                          <span class="muted">{tool.available ? 'runs here' : tool.reason}</span>
                        </label>
                      </li>
                    )}
                  </For>
                </ul>
              </Show>
            </fieldset>
          )}
        </For>
      </Show>
      <ErrorNote error={tools.error() ?? servers.error() ?? action.error()} />
    </section>
  )
}
