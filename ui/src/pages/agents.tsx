import { A, useParams } from '@solidjs/router'
import { createEffect, createSignal, For, on, onMount, Show } from 'solid-js'
import {
  BROWSER_ACCESS_LEVELS,
  WORKSPACE_ACCESS_LEVELS,
} from '../../../runtime/contracts/agent-enums.ts'
import type {
  Agent,
  AgentSkill,
  PatchAgentInput,
  PatchSkillInput,
} from '../../../runtime/contracts/agents.ts'
import { api, ok } from '../api.ts'
import { ErrorNote, Notice } from '../components/status.tsx'
import { ConfirmAction, createLoader, createSubmission, StateBadge } from './admin-kit.tsx'

const AGENT_LABELS: Record<string, string> = {
  displayName: 'Name',
  delegationDescription: 'Delegation description',
  instructions: 'Instructions',
  workspaceAccess: 'Workspace access',
  browserAccess: 'Browser access',
  delegationEligible: 'Delegation eligible',
  tools: 'Tools',
  modelOverride: 'Model override',
}
const SKILL_LABELS: Record<string, string> = {
  name: 'Skill name',
  description: 'Skill description',
  instructions: 'Skill instructions',
  enabled: 'Enabled',
}

/** The system agents (`/agents`) and one agent's editor with its skills (`/agents/:id`). */
export default function Agents() {
  const params = useParams()
  const agents = createLoader(() => ok(api.agents.$get()))
  const models = createLoader(() => ok(api.models.$get()))
  onMount(() => void Promise.all([agents.reload(), models.reload()]))
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
                <div class="table-wrap">
                  <table class="list" aria-label="Agents">
                    <thead>
                      <tr>
                        <th>Agent</th>
                        <th class="hide-narrow">Workspace</th>
                        <th class="hide-narrow">Browser</th>
                        <th>Delegable</th>
                        <th>Tools</th>
                        <th class="hide-narrow">Model</th>
                      </tr>
                    </thead>
                    <tbody>
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
                    </tbody>
                  </table>
                </div>
              )}
            </Show>
          </>
        }
      >
        {(id) => (
          <AgentDetail
            id={id()}
            models={models.data()?.models ?? []}
            knownTools={knownTools()}
            onSaved={() => void agents.reload()}
          />
        )}
      </Show>
    </section>
  )
}

function AgentDetail(props: {
  id: string
  models: string[]
  knownTools: string[]
  onSaved: () => void
}) {
  const agent = createLoader(() => ok(api.agents[':id'].$get({ param: { id: props.id } })))
  createEffect(
    on(
      () => props.id,
      () => void agent.reload(),
    ),
  )
  const [notice, setNotice] = createSignal<string>()
  return (
    <>
      <p>
        <A href="/agents">← All agents</A>
      </p>
      <ErrorNote error={agent.error()} />
      <Show when={agent.data()} keyed>
        {(a) => (
          <>
            <div class="page-head">
              <h1>{a.displayName}</h1>
              <span class="mono muted">{a.id}</span>
            </div>
            <AgentEditor
              agent={a}
              models={props.models}
              knownTools={props.knownTools}
              notice={notice()}
              onSaving={() => setNotice(undefined)}
              onSaved={async (message) => {
                await agent.reload()
                setNotice(message)
                props.onSaved()
              }}
            />
          </>
        )}
      </Show>
      <Show when={agent.data()}>
        <Skills agentId={props.id} />
      </Show>
    </>
  )
}

/** Edits one agent; a save sends only the fields that changed, and shows the server's refusal. */
function AgentEditor(props: {
  agent: Agent
  models: string[]
  knownTools: string[]
  notice: string | undefined
  onSaving: () => void
  onSaved: (message: string) => Promise<void>
}) {
  const a = props.agent
  const [displayName, setDisplayName] = createSignal(a.displayName)
  const [description, setDescription] = createSignal(a.delegationDescription)
  const [instructions, setInstructions] = createSignal(a.instructions)
  const [workspaceAccess, setWorkspaceAccess] = createSignal(a.workspaceAccess)
  const [browserAccess, setBrowserAccess] = createSignal(a.browserAccess)
  const [eligible, setEligible] = createSignal(a.delegationEligible)
  const [offered, setOffered] = createSignal<string[]>([...a.tools])
  const [tools, setTools] = createSignal<string[]>([...a.tools])
  const [newTool, setNewTool] = createSignal('')
  const [modelOverride, setModelOverride] = createSignal(a.modelOverride ?? '')
  const { busy, error, setError, run } = createSubmission(AGENT_LABELS)
  const [quiet, setQuiet] = createSignal<string>()
  const modelChoices = () =>
    a.modelOverride && !props.models.includes(a.modelOverride)
      ? [a.modelOverride, ...props.models]
      : props.models

  const toggleTool = (tool: string, on: boolean) =>
    setTools((current) =>
      on
        ? offered().filter((t) => t === tool || current.includes(t))
        : current.filter((t) => t !== tool),
    )
  const addTool = () => {
    const tool = newTool().trim()
    if (!tool) return
    if (!offered().includes(tool)) setOffered([...offered(), tool])
    toggleTool(tool, true)
    setNewTool('')
  }

  const changes = (): PatchAgentInput => {
    const patch: Record<string, unknown> = {}
    if (displayName() !== a.displayName) patch.displayName = displayName()
    if (description() !== a.delegationDescription) patch.delegationDescription = description()
    if (instructions() !== a.instructions) patch.instructions = instructions()
    if (workspaceAccess() !== a.workspaceAccess) patch.workspaceAccess = workspaceAccess()
    if (browserAccess() !== a.browserAccess) patch.browserAccess = browserAccess()
    if (eligible() !== a.delegationEligible) patch.delegationEligible = eligible()
    if (tools().join('\n') !== a.tools.join('\n')) patch.tools = tools()
    if ((modelOverride() || null) !== a.modelOverride) patch.modelOverride = modelOverride() || null
    return patch as PatchAgentInput
  }

  const save = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    setQuiet(undefined)
    props.onSaving()
    const patch = changes()
    if (Object.keys(patch).length === 0) return setQuiet('Nothing changed.')
    await run(async () => {
      await ok(api.agents[':id'].$patch({ param: { id: a.id }, json: patch }))
      await props.onSaved(
        `Saved ${Object.keys(patch)
          .map((k) => AGENT_LABELS[k] ?? k)
          .join(', ')}.`,
      )
    })
  }

  return (
    <form class="card stack" aria-label="Edit agent" onSubmit={save}>
      <h2>Settings</h2>
      <div class="grid-form">
        <label>
          Name
          <input value={displayName()} onInput={(e) => setDisplayName(e.currentTarget.value)} />
        </label>
        <label>
          Model override
          <select value={modelOverride()} onChange={(e) => setModelOverride(e.currentTarget.value)}>
            <option value="">none (the default model)</option>
            <For each={modelChoices()}>{(m) => <option value={m}>{m}</option>}</For>
          </select>
        </label>
        <label>
          Workspace access
          <select
            value={workspaceAccess()}
            onChange={(e) => setWorkspaceAccess(e.currentTarget.value as Agent['workspaceAccess'])}
          >
            <For each={WORKSPACE_ACCESS_LEVELS}>{(v) => <option value={v}>{v}</option>}</For>
          </select>
        </label>
        <label>
          Browser access
          <select
            value={browserAccess()}
            onChange={(e) => setBrowserAccess(e.currentTarget.value as Agent['browserAccess'])}
          >
            <For each={BROWSER_ACCESS_LEVELS}>{(v) => <option value={v}>{v}</option>}</For>
          </select>
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={eligible()}
            onChange={(e) => setEligible(e.currentTarget.checked)}
          />
          Delegation eligible (the orchestrator may hand work to it)
        </label>
        <label class="wide">
          Delegation description
          <textarea
            rows={3}
            value={description()}
            onInput={(e) => setDescription(e.currentTarget.value)}
          />
        </label>
        <label class="wide">
          Instructions
          <textarea
            class="tall"
            value={instructions()}
            onInput={(e) => setInstructions(e.currentTarget.value)}
          />
        </label>
        <fieldset class="wide">
          <legend>Tools</legend>
          <div class="chips">
            <For each={offered()}>
              {(tool) => (
                <label class="check">
                  <input
                    type="checkbox"
                    checked={tools().includes(tool)}
                    onChange={(e) => toggleTool(tool, e.currentTarget.checked)}
                  />
                  <span class="mono">{tool}</span>
                </label>
              )}
            </For>
            <Show when={offered().length === 0}>
              <span class="muted">No tools.</span>
            </Show>
          </div>
          <div class="row spaced-top">
            <label>
              Add a tool
              <input
                class="mono"
                list="known-tools"
                value={newTool()}
                onInput={(e) => setNewTool(e.currentTarget.value)}
                onKeyDown={(e) => {
                  if (e.key === 'Enter') {
                    e.preventDefault()
                    addTool()
                  }
                }}
              />
            </label>
            <datalist id="known-tools">
              <For each={props.knownTools.filter((t) => !offered().includes(t))}>
                {(t) => <option value={t} />}
              </For>
            </datalist>
            <button type="button" class="secondary" onClick={addTool}>
              Add tool
            </button>
          </div>
          <p class="field-hint">The server checks each tool against the agent's role and access.</p>
        </fieldset>
      </div>
      <div class="actions">
        <button type="submit" disabled={busy()}>
          Save agent
        </button>
      </div>
      <Show when={props.notice ?? quiet()}>{(n) => <Notice>{n()}</Notice>}</Show>
      <ErrorNote error={error()} />
    </form>
  )
}

/** An agent's Agent Skills: list, create, edit and delete (with a confirmation). */
function Skills(props: { agentId: string }) {
  const skills = createLoader(() =>
    ok(api.agents[':id'].skills.$get({ param: { id: props.agentId } })),
  )
  createEffect(
    on(
      () => props.agentId,
      () => void skills.reload(),
    ),
  )
  const [editing, setEditing] = createSignal<string>()
  const [creating, setCreating] = createSignal(false)
  return (
    <div class="card stack" aria-label="Skills">
      <div class="page-head">
        <h2>Skills</h2>
        <Show when={!creating()}>
          <button type="button" class="secondary" onClick={() => setCreating(true)}>
            New skill
          </button>
        </Show>
      </div>
      <Show when={creating()}>
        <SkillForm
          title="New skill"
          onCancel={() => setCreating(false)}
          onSave={async (input) => {
            await ok(
              api.agents[':id'].skills.$post({
                param: { id: props.agentId },
                json: {
                  name: input.name ?? '',
                  description: input.description ?? '',
                  instructions: input.instructions ?? '',
                  enabled: input.enabled ?? true,
                },
              }),
            )
            setCreating(false)
            await skills.reload()
          }}
        />
      </Show>
      <ErrorNote error={skills.error()} />
      <Show when={skills.data()?.skills.length === 0}>
        <p class="muted">No skills.</p>
      </Show>
      <For each={skills.data()?.skills}>
        {(skill) => (
          <div class="skill stack" data-skill={skill.name}>
            <div class="record-head">
              <strong class="mono">{skill.name}</strong>
              <StateBadge state={skill.enabled ? 'on' : 'off'}>
                {skill.enabled ? 'enabled' : 'disabled'}
              </StateBadge>
              <Show when={skill.evolutionManaged}>
                <span class="badge">evolution-managed</span>
              </Show>
            </div>
            <p class="flush">{skill.description}</p>
            <Show
              when={editing() === skill.id}
              fallback={
                <div class="actions">
                  <button
                    type="button"
                    class="secondary"
                    aria-label={`Edit ${skill.name}`}
                    onClick={() => setEditing(skill.id)}
                  >
                    Edit
                  </button>
                  <ConfirmAction
                    label="Delete"
                    name={`Delete ${skill.name}`}
                    question={`Delete the skill “${skill.name}”?`}
                    confirmLabel="Yes, delete"
                    onConfirm={async () => {
                      await ok(
                        api.agents[':id'].skills[':skillId'].$delete({
                          param: { id: props.agentId, skillId: skill.id },
                        }),
                      )
                      await skills.reload()
                    }}
                  />
                </div>
              }
            >
              <SkillForm
                title={`Edit skill ${skill.name}`}
                skill={skill}
                onCancel={() => setEditing(undefined)}
                onSave={async (patch) => {
                  if (Object.keys(patch).length > 0) {
                    await ok(
                      api.agents[':id'].skills[':skillId'].$patch({
                        param: { id: props.agentId, skillId: skill.id },
                        json: patch,
                      }),
                    )
                  }
                  setEditing(undefined)
                  await skills.reload()
                }}
              />
            </Show>
          </div>
        )}
      </For>
    </div>
  )
}

/** A skill's fields; `onSave` gets only what changed from `skill` (everything for a new one). */
function SkillForm(props: {
  title: string
  skill?: AgentSkill
  onSave: (patch: PatchSkillInput) => Promise<void>
  onCancel: () => void
}) {
  const s = props.skill
  const [name, setName] = createSignal(s?.name ?? '')
  const [description, setDescription] = createSignal(s?.description ?? '')
  const [instructions, setInstructions] = createSignal(s?.instructions ?? '')
  const [enabled, setEnabled] = createSignal(s?.enabled ?? true)
  const { busy, error, run } = createSubmission(SKILL_LABELS)
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    const patch: Record<string, unknown> = {}
    if (name() !== s?.name) patch.name = name()
    if (description() !== s?.description) patch.description = description()
    if (instructions() !== s?.instructions) patch.instructions = instructions()
    if (enabled() !== s?.enabled) patch.enabled = enabled()
    return run(() => props.onSave(patch as PatchSkillInput))
  }
  return (
    <form class="stack" aria-label={props.title} onSubmit={submit}>
      <div class="grid-form">
        <label>
          Skill name
          <input
            class="mono"
            value={name()}
            onInput={(e) => setName(e.currentTarget.value)}
            placeholder="lowercase-words"
            required
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={enabled()}
            onChange={(e) => setEnabled(e.currentTarget.checked)}
          />
          Enabled
        </label>
        <label class="wide">
          Skill description
          <textarea
            rows={2}
            value={description()}
            onInput={(e) => setDescription(e.currentTarget.value)}
            required
          />
        </label>
        <label class="wide">
          Skill instructions
          <textarea
            class="tall"
            value={instructions()}
            onInput={(e) => setInstructions(e.currentTarget.value)}
            required
          />
        </label>
      </div>
      <div class="actions">
        <button type="submit" disabled={busy()}>
          Save skill
        </button>
        <button type="button" class="secondary" onClick={props.onCancel}>
          Cancel
        </button>
      </div>
      <ErrorNote error={error()} />
    </form>
  )
}
