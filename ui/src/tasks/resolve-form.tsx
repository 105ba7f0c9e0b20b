import { createSignal } from 'solid-js'

/** The owner's evidence that a task which needs a person's word is done. */
export function ResolveForm(props: { onResolve: (evidence: string) => Promise<void> }) {
  const [evidence, setEvidence] = createSignal('')
  return (
    <form
      class="stack"
      onSubmit={async (e) => {
        e.preventDefault()
        await props.onResolve(evidence())
      }}
    >
      <label>
        Evidence that the work is done
        <textarea
          rows={3}
          maxLength={4000}
          required
          value={evidence()}
          onInput={(e) => setEvidence(e.currentTarget.value)}
          placeholder="What fixed it, and where to see it (a commit, a test run, …)"
        />
      </label>
      <div class="actions">
        <button type="submit">Resolve as completed</button>
      </div>
    </form>
  )
}
