import type { AgentSkill } from '../../../runtime/contracts/agents.ts'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import type { SkillFields } from '../queries/agents.ts'

const LABELS = {
  name: 'Skill name',
  description: 'Skill description',
  instructions: 'Skill instructions',
  enabled: 'Enabled',
}

/**
 * A skill's fields. `onSave` gets all of them (a new skill needs each) and those changed from
 * `skill` (an edit sends only these). The form starts from the skill as it was when opened.
 */
export function SkillForm(props: {
  title: string
  skill?: AgentSkill
  onSave: (values: SkillFields, changed: Partial<SkillFields>) => Promise<void>
  onCancel: () => void
}) {
  const form = createForm({
    name: props.skill?.name ?? '',
    description: props.skill?.description ?? '',
    instructions: props.skill?.instructions ?? '',
    enabled: props.skill?.enabled ?? true,
  })
  const { busy, error, run } = createSubmission(LABELS)
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    return run(() => props.onSave({ ...form.values }, form.changed()))
  }
  return (
    <form class="stack" aria-label={props.title} onSubmit={submit}>
      <div class="grid-form">
        <label>
          Skill name
          <input
            class="mono"
            value={form.values.name}
            onInput={(e) => form.set('name', e.currentTarget.value)}
            placeholder="lowercase-words"
            required
          />
        </label>
        <label class="check">
          <input
            type="checkbox"
            checked={form.values.enabled}
            onChange={(e) => form.set('enabled', e.currentTarget.checked)}
          />
          Enabled
        </label>
        <label class="wide">
          Skill description
          <textarea
            rows={2}
            value={form.values.description}
            onInput={(e) => form.set('description', e.currentTarget.value)}
            required
          />
        </label>
        <label class="wide">
          Skill instructions
          <textarea
            class="tall"
            value={form.values.instructions}
            onInput={(e) => form.set('instructions', e.currentTarget.value)}
            required
          />
        </label>
      </div>
      <div class="actions">
        <button type="submit" disabled={busy()}>
          Save skill
        </button>
        <button type="button" class="secondary" onClick={() => props.onCancel()}>
          Cancel
        </button>
      </div>
      <ErrorNote error={error()} />
    </form>
  )
}
