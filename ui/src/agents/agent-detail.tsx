import { A } from '@solidjs/router'
import { Show } from 'solid-js'
import { ErrorNote } from '../components/status.tsx'
import { getAgent, getAgentTools } from '../queries/agents.ts'
import { createData } from '../queries/data.ts'
import { getModels } from '../queries/models.ts'
import { AgentEditor } from './agent-editor.tsx'
import { Skills } from './skills.tsx'
import { AgentMcpServers } from './agent-mcp-servers.tsx'

/** One agent: its settings form and its skills. A save refreshes it here and in the list. */
export function AgentDetail(props: { id: string; knownTools: string[] }) {
  const agent = createData(() => getAgent(props.id))
  const models = createData(() => getModels())
  const tools = createData(() => getAgentTools(props.id))
  // A previous agent's answer is not this one's (the list links from one agent to another).
  const current = () => {
    const a = agent.data()
    return a?.id === props.id ? a : undefined
  }
  return (
    <>
      <p>
        <A href="/agents">← All agents</A>
      </p>
      <ErrorNote error={agent.error()} />
      <Show when={current()}>
        {(a) => (
          <>
            <div class="page-head">
              <h1>{a().displayName}</h1>
              <span class="mono muted">{a().id}</span>
            </div>
            <AgentEditor
              agent={a()}
              models={models.data()?.models ?? []}
              knownTools={props.knownTools}
              toolStatuses={tools.data()?.tools}
              toolStatusError={tools.error()}
            />
            <Skills agentId={a().id} />
            <AgentMcpServers agentId={a().id} />
          </>
        )}
      </Show>
    </>
  )
}
