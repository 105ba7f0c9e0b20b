import { query, revalidate } from '@solidjs/router'
import { For, Show } from 'solid-js'
import type { z } from 'zod'
import type {
  CreateMcpServerInput,
  McpServer,
  McpServerState,
  PatchMcpServerInput,
} from '../../../runtime/contracts/mcp-servers.ts'
import { api, ok } from '../api.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { Empty, ListTable } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import { getAgents } from '../queries/agents.ts'
import { getSecrets } from '../queries/secrets.ts'
import './admin.css'

export const getServers = query(() => ok(api['mcp-servers'].$get()), 'mcp-servers')
export const getStates = query(() => ok(api['mcp-servers'].states.$get()), 'mcp-server-states')
const changed = () => revalidate([getServers.key, getStates.key])

async function createServer(json: z.input<typeof CreateMcpServerInput>) {
  await ok(api['mcp-servers'].$post({ json }))
  await changed()
}
export async function patchServer(id: string, json: PatchMcpServerInput) {
  await ok(api['mcp-servers'][':id'].$patch({ param: { id }, json }))
  await changed()
}
async function deleteServer(id: string) {
  await ok(api['mcp-servers'][':id'].$delete({ param: { id } }))
  await changed()
}

/**
 * The owner's MCP servers (docs/mcp-servers.md), a section of the Agents page (the servers are
 * where agents get tools; a page of its own would have cost the entry chunk its last bytes):
 * each with where it runs, the agents given its tools, its state on the host (connected, tools,
 * last error), enable and delete; a form for a new one. Credentials are vault secrets chosen by
 * name; their values never come here.
 */
export function McpServersSection() {
  const servers = createData(() => getServers())
  const states = createData(() => getStates())
  const stateOf = (id: string) => states.data()?.servers.find((s) => s.id === id)
  return (
    <section class="stack" aria-label="MCP servers">
      <h2>MCP servers</h2>
      <ErrorNote error={servers.error() ?? states.error()} />
      <Show
        when={(servers.data()?.servers.length ?? 0) > 0}
        fallback={<Empty>No MCP servers yet.</Empty>}
      >
        <ListTable
          label="MCP servers"
          head={
            <>
              <th>Server</th>
              <th class="hide-narrow">Runs</th>
              <th>Agents</th>
              <th>State</th>
              <th>Enabled</th>
              <th>Actions</th>
            </>
          }
        >
          <For each={servers.data()?.servers}>
            {(s) => <ServerRow server={s} state={stateOf(s.id)} />}
          </For>
        </ListTable>
      </Show>
      <NewServer />
    </section>
  )
}

function ServerRow(props: { server: McpServer; state: McpServerState | undefined }) {
  const action = createSubmission()
  const s = () => props.server
  const where = () => {
    const server = s()
    if (server.transport === 'http') return server.url ?? ''
    const place = server.runOnHost
      ? 'on the host'
      : `sandbox, network ${server.allowNetwork ? 'on' : 'off'}`
    return `${(server.argv ?? []).join(' ')} (${place})`
  }
  return (
    <tr>
      <td>
        {s().displayName} <span class="mono">{s().id}</span>
      </td>
      <td class="mono hide-narrow">{where()}</td>
      <td>{s().agentIds.join(', ') || 'none'}</td>
      <td>
        <span>{props.state?.status ?? '…'}</span>
        <Show when={props.state?.toolCount !== null && props.state?.toolCount !== undefined}>
          {' '}
          · {props.state?.toolCount} tools
        </Show>
        <Show when={props.state?.lastError}>
          {(e) => (
            <div class="muted">
              {e().code}: {e().message}
            </div>
          )}
        </Show>
      </td>
      <td>
        <input
          type="checkbox"
          aria-label={`Enable ${s().displayName}`}
          checked={s().enabled}
          onChange={(e) => {
            const enabled = e.currentTarget.checked
            void action.run(() => patchServer(s().id, { enabled }))
          }}
        />
      </td>
      <td>
        <ConfirmAction
          label="Delete"
          name={`Delete ${s().displayName}`}
          question={`Delete the MCP server ${s().displayName}? Its agents lose its tools.`}
          confirmLabel="Delete server"
          onConfirm={() => deleteServer(s().id)}
        />
        <ErrorNote error={action.error()} />
      </td>
    </tr>
  )
}

const EMPTY = {
  id: '',
  displayName: '',
  transport: 'http' as 'http' | 'stdio',
  url: '',
  allowLoopback: false,
  bearerSecretId: '',
  argv: '',
  secretEnv: '',
  readOnlyPaths: '',
  allowNetwork: false,
  runOnHost: false,
  agentIds: [] as string[],
}

const lines = (text: string) =>
  text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean)

function NewServer() {
  const form = createForm({ ...EMPTY })
  const submission = createSubmission({
    id: 'Id',
    displayName: 'Name',
    url: 'URL',
    argv: 'Command',
  })
  const agents = createData(() => getAgents())
  const secrets = createData(() => getSecrets())
  const toggleAgent = (id: string, on: boolean) => {
    const others = form.values.agentIds.filter((a) => a !== id)
    form.set('agentIds', on ? [...others, id] : others)
  }
  // `NAME=secret name` per line: the variable gets that vault secret (its id is what is sent).
  const secretEnvOf = (text: string) =>
    lines(text).map((line) => {
      const [name = '', secretName = ''] = line.split('=', 2).map((p) => p.trim())
      const secret = secrets.data()?.secrets.find((s) => s.name === secretName)
      if (!secret) throw new Error(`no vault secret named "${secretName}" (for ${name})`)
      return { name, secretId: secret.id }
    })
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    const v = form.values
    const common = { id: v.id, displayName: v.displayName, agentIds: [...v.agentIds] }
    void submission.run(async () => {
      await createServer(
        v.transport === 'http'
          ? {
              ...common,
              transport: 'http',
              url: v.url,
              allowLoopback: v.allowLoopback,
              credentials: v.bearerSecretId
                ? [{ header: 'Authorization', secretId: v.bearerSecretId, scheme: 'bearer' }]
                : [],
            }
          : {
              ...common,
              transport: 'stdio',
              argv: lines(v.argv),
              secretEnv: secretEnvOf(v.secretEnv),
              readOnlyPaths: lines(v.readOnlyPaths),
              allowNetwork: v.allowNetwork,
              runOnHost: v.runOnHost,
            },
      )
      form.reset({ ...EMPTY })
    })
  }
  const text = (key: 'id' | 'displayName' | 'url' | 'argv' | 'secretEnv' | 'readOnlyPaths') => ({
    value: form.values[key],
    onInput: (e: { currentTarget: { value: string } }) => form.set(key, e.currentTarget.value),
  })
  const flag = (key: 'allowLoopback' | 'allowNetwork' | 'runOnHost') => ({
    checked: form.values[key],
    onChange: (e: { currentTarget: HTMLInputElement }) => form.set(key, e.currentTarget.checked),
  })
  return (
    <form class="card stack" onSubmit={submit} aria-label="New MCP server">
      <h3>New MCP server</h3>
      <div class="row">
        <label>
          Id <input {...text('id')} required pattern="[a-z][a-z0-9-]{0,23}" />
        </label>
        <label>
          Name <input {...text('displayName')} required />
        </label>
        <label>
          Transport{' '}
          <select
            value={form.values.transport}
            onChange={(e) => form.set('transport', e.currentTarget.value as 'http' | 'stdio')}
          >
            <option value="http">Streamable HTTP</option>
            <option value="stdio">stdio (a program)</option>
          </select>
        </label>
      </div>
      <Show
        when={form.values.transport === 'http'}
        fallback={
          <>
            <label>
              Command, one argument per line
              <textarea rows={3} {...text('argv')} required />
            </label>
            <label>
              Variables from the vault, one per line as NAME=secret name (the value is given to the
              program when it starts and never shown)
              <textarea rows={2} {...text('secretEnv')} />
            </label>
            <label>
              Directories it may read (the sandbox's read-only paths), one per line
              <textarea rows={2} {...text('readOnlyPaths')} />
            </label>
            <div class="row">
              <label>
                <input type="checkbox" {...flag('allowNetwork')} disabled={form.values.runOnHost} />{' '}
                Network in the sandbox (the host's network, loopback included: it can reach what
                listens on this machine)
              </label>
              <label>
                <input type="checkbox" {...flag('runOnHost')} /> Run on the host, outside the
                sandbox (only for a program you trust as your own)
              </label>
            </div>
          </>
        }
      >
        <div class="row">
          <label>
            URL <input {...text('url')} required placeholder="https://…" />
          </label>
          <label>
            <input type="checkbox" {...flag('allowLoopback')} /> Allow loopback
          </label>
          <label>
            Bearer (vault secret){' '}
            <select
              value={form.values.bearerSecretId}
              onChange={(e) => form.set('bearerSecretId', e.currentTarget.value)}
            >
              <option value="">none</option>
              <For each={secrets.data()?.secrets}>
                {(secret) => <option value={secret.id}>{secret.name}</option>}
              </For>
            </select>
          </label>
        </div>
      </Show>
      <fieldset class="row">
        <legend>Agents given its tools</legend>
        <For each={agents.data()?.agents}>
          {(agent) => (
            <label>
              <input
                type="checkbox"
                checked={form.values.agentIds.includes(agent.id)}
                onChange={(e) => toggleAgent(agent.id, e.currentTarget.checked)}
              />{' '}
              {agent.displayName}
            </label>
          )}
        </For>
      </fieldset>
      <div class="row">
        <button type="submit" disabled={submission.busy()}>
          Add server
        </button>
      </div>
      <ErrorNote error={submission.error()} />
    </form>
  )
}
