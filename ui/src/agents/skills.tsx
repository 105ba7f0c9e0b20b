import { createSignal, For, Show } from 'solid-js'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { StateBadge } from '../components/state-badge.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createSkill, deleteSkill, getSkills, patchSkill } from '../queries/agents.ts'
import { createData } from '../queries/data.ts'
import { SkillForm } from './skill-form.tsx'

/** An agent's Agent Skills: list, create, edit and delete (with a confirmation). */
export function Skills(props: { agentId: string }) {
  const skills = createData(() => getSkills(props.agentId))
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
          onSave={async (values) => {
            await createSkill(props.agentId, values)
            setCreating(false)
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
                    onConfirm={() => deleteSkill(props.agentId, skill.id)}
                  />
                </div>
              }
            >
              <SkillForm
                title={`Edit skill ${skill.name}`}
                skill={skill}
                onCancel={() => setEditing(undefined)}
                onSave={async (_, changed) => {
                  if (Object.keys(changed).length > 0) {
                    await patchSkill(props.agentId, skill.id, changed)
                  }
                  setEditing(undefined)
                }}
              />
            </Show>
          </div>
        )}
      </For>
    </div>
  )
}
