import { Show } from 'solid-js'
import { createData } from '../queries/data.ts'
import { getModels } from '../queries/models.ts'
import { AGENT_RUNTIME, AUTONOMY, BROWSER, MEMORY } from '../settings/fields.ts'
import { SettingsForm } from '../settings/settings-form.tsx'
import './admin.css'

/** The four settings singletons, each a form driven by its field table (settings/fields.ts). */
export default function Settings() {
  const models = createData(() => getModels())
  const modelList = () => models.data()?.models ?? []
  return (
    <section class="stack admin">
      <h1>Settings</h1>
      <p class="muted">Changes apply from the next run.</p>
      <Show when={models.data()?.warning}>{(w) => <p class="field-hint">{w()}</p>}</Show>
      <SettingsForm
        name="agent-runtime"
        title="Agent runtime"
        groups={AGENT_RUNTIME}
        models={modelList()}
        summary={(v) => (
          <p>
            Effective default model: <strong class="mono">{String(v.effectiveDefaultModel)}</strong>
          </p>
        )}
      />
      <SettingsForm name="memory" title="Memory" groups={MEMORY} models={modelList()} />
      <SettingsForm name="autonomy" title="Autonomy" groups={AUTONOMY} models={modelList()} />
      <SettingsForm name="browser" title="Browser" groups={BROWSER} models={modelList()} />
    </section>
  )
}
