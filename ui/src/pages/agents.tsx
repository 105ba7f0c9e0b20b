import { A, useParams } from '@solidjs/router'
import { For, Show } from 'solid-js'
import { AgentDetail } from '../agents/agent-detail.tsx'
import { ErrorNote } from '../components/status.tsx'
import { ListTable } from '../components/list-table.tsx'
import { createData } from '../queries/data.ts'
import { getAgents } from '../queries/agents.ts'
import { McpServersSection } from './mcp-servers.tsx'
import './admin.css'

/** The system agents (`/agents`) and one agent's editor with its skills (`/agents/:id`). */
export default function Agents() {
  const params = useParams()
  const agents = createData(() => getAgents())
  // Tool names other agents hold: the suggestions when adding a tool (the catalog itself is
  // checked by the server, which names a tool it refuses).
  const knownTools = () => [...new Set(agents.data()?.agents.flatMap((a) => a.tools) ?? [])].sort()

  return (
    <section class="stack admin">
      <Show
        when={params.id}
        fallback={
          <>
            <h1>Agents</h1>
            <ErrorNote error={agents.error()} />
            <Show when={agents.data()}>
              {(list) => (
                <ListTable
                  label="Agents"
                  head={
                    <>
                      <th>Agent</th>
                      <th class="hide-narrow">Workspace</th>
                      <th class="hide-narrow">Browser</th>
                      <th>Delegable</th>
                      <th>Tools</th>
                      <th class="hide-narrow">Model</th>
                    </>
                  }
                >
                  <For each={list().agents}>
                    {(a) => (
                      <tr>
                        <td>
                          <A href={`/agents/${a.id}`}>{a.displayName}</A>
                          <div class="field-hint mono">{a.id}</div>
                        </td>
                        <td class="hide-narrow">{a.workspaceAccess}</td>
                        <td class="hide-narrow">{a.browserAccess}</td>
                        <td>{a.delegationEligible ? 'yes' : 'no'}</td>
                        <td>{a.tools.length}</td>
                        <td class="hide-narrow">{a.modelOverride ?? 'default'}</td>
                      </tr>
                    )}
                  </For>
                </ListTable>
              )}
            </Show>
            <McpServersSection />
          </>
        }
      >
        {(id) => <AgentDetail id={id()} knownTools={knownTools()} />}
      </Show>
    </section>
  )
}
