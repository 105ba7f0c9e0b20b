import type { Hook } from '../../../runtime/contracts/hooks.ts'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { patchHook } from '../queries/hooks.ts'

/** Edits a hook's name, tools, timeout and priority in place; only the changed fields are sent. */
export function EditHook(props: { hook: Hook; onDone: () => void }) {
  const { name, matcher, timeoutMs, priority } = props.hook
  const form = createForm({ name, matcher, timeoutMs, priority })
  const save = createSubmission({ name: 'Name', matcher: 'Tools', timeoutMs: 'Timeout' })
  const num = (key: 'timeoutMs' | 'priority') => (e: { currentTarget: HTMLInputElement }) =>
    form.set(key, Number(e.currentTarget.value))
  return (
    <form
      class="row"
      aria-label={`Edit ${name}`}
      onSubmit={(e) => {
        e.preventDefault()
        void save.run(async () => {
          await patchHook(props.hook.id, form.changed())
          props.onDone()
        })
      }}
    >
      <input
        aria-label="Hook name"
        value={form.values.name}
        onInput={(e) => form.set('name', e.currentTarget.value)}
      />
      <input
        aria-label="Hook tools"
        value={form.values.matcher}
        onInput={(e) => form.set('matcher', e.currentTarget.value)}
      />
      <input
        aria-label="Hook timeout"
        type="number"
        value={form.values.timeoutMs}
        onInput={num('timeoutMs')}
      />
      <input
        aria-label="Hook priority"
        type="number"
        value={form.values.priority}
        onInput={num('priority')}
      />
      <button type="submit">Save</button>
      <ErrorNote error={save.error()} />
    </form>
  )
}
