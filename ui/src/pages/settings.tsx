import { For } from 'solid-js'
import { createData } from '../queries/data.ts'
import { getModels } from '../queries/models.ts'
import { AGENT_RUNTIME, AUTONOMY, BROWSER, MEMORY } from '../settings/fields.ts'
import { GatewayStatus } from '../settings/gateway-status.tsx'
import { SettingsForm } from '../settings/settings-form.tsx'
import './admin.css'

// The page's sections, in order; the index at the top moves to one (the router owns the hash,
// so these are buttons that scroll, not #fragment links).
const SECTIONS = [
  ['settings-gateway', 'Model gateway'],
  ['settings-agent-runtime', 'Agent runtime'],
  ['settings-memory', 'Memory'],
  ['settings-autonomy', 'Autonomy'],
  ['settings-browser', 'Browser'],
] as const

/**
 * Settings in sections: the model gateway's connection first, then the four settings singletons,
 * each a form driven by its field table (settings/fields.ts).
 */
export default function Settings() {
  const models = createData(() => getModels())
  const modelList = () => models.data()?.models ?? []
  return (
    <section class="stack admin settings-page">
      <h1>Settings</h1>
      <nav class="section-index" aria-label="Settings sections">
        <For each={SECTIONS}>
          {([id, label]) => (
            <button
              type="button"
              class="secondary"
              onClick={() => document.getElementById(id)?.scrollIntoView({ block: 'start' })}
            >
              {label}
            </button>
          )}
        </For>
      </nav>
      <GatewayStatus />
      <p class="muted">Changes below apply from the next run.</p>
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
