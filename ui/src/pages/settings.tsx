import { createSignal, For, Match, onMount, Show, Switch, type JSX } from 'solid-js'
import { MODEL_SOURCES } from '../../../runtime/contracts/agent-enums.ts'
import type {
  AgentRuntimeSettingsPatch,
  AutonomySettingsPatch,
  BrowserSettingsPatch,
  MemorySettings,
  MemorySettingsPatch,
} from '../../../runtime/contracts/settings.ts'
import { api, ok } from '../api.ts'
import { ErrorNote, Notice } from '../components/status.tsx'
import { createLoader, createSubmission, describeError, fieldProblems } from './admin-kit.tsx'

/**
 * The four settings singletons as forms. Each form sends only the fields that changed; the server
 * validates (ranges, model ids against the catalog) and a refusal shows next to the field it names.
 */
type Field<K extends string> = { key: K; label: string; hint?: string } & (
  | { type: 'number'; step?: string }
  | { type: 'text' | 'textarea' | 'bool' | 'model' }
  | { type: 'select'; options: readonly string[] }
)
type Group<K extends string> = { legend: string; fields: Field<K>[] }
type Values = Record<string, unknown>

const AGENT_RUNTIME: Group<keyof AgentRuntimeSettingsPatch>[] = [
  {
    legend: 'Default model',
    fields: [
      {
        key: 'modelSource',
        label: 'Model source',
        type: 'select',
        options: MODEL_SOURCES,
        hint: 'Which of the three models below runs when a request names none.',
      },
      { key: 'configuredModel', label: 'Configured model', type: 'model' },
      { key: 'localModel', label: 'Local model', type: 'model' },
      { key: 'freeCodingModel', label: 'Free coding model', type: 'model' },
    ],
  },
  {
    legend: 'Step bounds',
    fields: [
      { key: 'supervisorMaxSteps', label: 'Supervisor max steps', type: 'number' },
      { key: 'specialistMaxSteps', label: 'Specialist max steps', type: 'number' },
      { key: 'toolCallConcurrency', label: 'Tool call concurrency', type: 'number' },
      { key: 'processorRetries', label: 'Processor retries', type: 'number' },
      {
        key: 'finalResponseFeedback',
        label: 'Final response feedback',
        type: 'textarea',
        hint: 'Said to an agent on its last step.',
      },
    ],
  },
  {
    legend: 'Delegation bounds',
    fields: [
      {
        key: 'delegationContextMaxMessages',
        label: 'Delegation context max messages',
        type: 'number',
      },
      { key: 'delegationContextMaxChars', label: 'Delegation context max chars', type: 'number' },
      { key: 'delegationResultMaxChars', label: 'Delegation result max chars', type: 'number' },
      { key: 'delegationFailureText', label: 'Delegation failure text', type: 'textarea' },
      { key: 'delegationTruncationText', label: 'Delegation truncation text', type: 'textarea' },
    ],
  },
  {
    legend: 'Task controls',
    fields: [
      { key: 'taskConcurrency', label: 'Task concurrency', type: 'number' },
      { key: 'taskPollIntervalMs', label: 'Task poll interval (ms)', type: 'number' },
      { key: 'taskTimeoutMs', label: 'Task timeout (ms)', type: 'number' },
      { key: 'taskAbortAckMs', label: 'Task abort acknowledgement (ms)', type: 'number' },
      { key: 'taskStaleAfterMs', label: 'Task stale after (ms)', type: 'number' },
    ],
  },
]

const RATIO_OR_TOKENS = 'A ratio in (0, 1] or a whole number of tokens ≥ 1000.'
const MEMORY: Group<keyof MemorySettingsPatch>[] = [
  {
    legend: 'Observational memory',
    fields: [
      { key: 'enabled', label: 'Memory enabled', type: 'bool' },
      {
        key: 'observationMessageTokens',
        label: 'Observe after (message tokens)',
        type: 'number',
      },
      {
        key: 'reflectionObservationTokens',
        label: 'Reflect after (observation tokens)',
        type: 'number',
      },
      {
        key: 'rawHistoryRetention',
        label: 'Raw history retention',
        type: 'number',
        step: 'any',
        hint: RATIO_OR_TOKENS,
      },
      {
        key: 'previousObserverTokens',
        label: 'Previous observer tokens',
        type: 'number',
      },
      { key: 'temporalMarkers', label: 'Temporal markers', type: 'bool' },
      {
        key: 'observeAttachments',
        label: 'Observe attachments',
        type: 'select',
        options: ['auto', 'on', 'off'] satisfies MemorySettings['observeAttachments'][],
      },
      {
        key: 'retrievalScope',
        label: 'Retrieval scope',
        type: 'select',
        options: ['off', 'thread', 'resource'] satisfies MemorySettings['retrievalScope'][],
      },
    ],
  },
  {
    legend: 'Buffering and activation',
    fields: [
      { key: 'asyncBuffering', label: 'Async buffering', type: 'bool' },
      { key: 'shareTokenBudget', label: 'Share token budget', type: 'bool' },
      {
        key: 'observationBufferTokens',
        label: 'Observation buffer',
        type: 'number',
        step: 'any',
        hint: RATIO_OR_TOKENS,
      },
      {
        key: 'reflectionBufferActivation',
        label: 'Reflection buffer activation',
        type: 'number',
        step: 'any',
        hint: 'A ratio in (0, 1].',
      },
      {
        key: 'observationBlockAfter',
        label: 'Observation block after',
        type: 'number',
        step: 'any',
        hint: 'A multiplier in [1, 100) or tokens ≥ 100.',
      },
      {
        key: 'reflectionBlockAfter',
        label: 'Reflection block after',
        type: 'number',
        step: 'any',
        hint: 'A multiplier in [1, 100) or tokens ≥ 100.',
      },
      {
        key: 'activateAfterIdle',
        label: 'Activate after idle',
        type: 'text',
        hint: 'auto, off, or a duration such as 5m.',
      },
      { key: 'activateOnProviderChange', label: 'Activate on provider change', type: 'bool' },
    ],
  },
  {
    legend: 'Instructions',
    fields: [
      { key: 'observerInstruction', label: 'Observer instruction', type: 'textarea' },
      { key: 'reflectorInstruction', label: 'Reflector instruction', type: 'textarea' },
    ],
  },
]

const AUTONOMY: Group<keyof AutonomySettingsPatch>[] = [
  {
    legend: 'What the agents may do on their own',
    fields: [
      { key: 'evolutionEnabled', label: 'Agent evolution', type: 'bool' },
      { key: 'skillCreationEnabled', label: 'Skill creation', type: 'bool' },
      { key: 'automaticFactRetention', label: 'Automatic fact retention', type: 'bool' },
      { key: 'selfUpdateEnabled', label: 'Self-update', type: 'bool' },
      { key: 'deploymentEnabled', label: 'Deployment', type: 'bool' },
    ],
  },
]

const BROWSER: Group<keyof BrowserSettingsPatch>[] = [
  {
    legend: 'Browser automation for agents with browser access',
    fields: [{ key: 'enabled', label: 'Browser enabled', type: 'bool' }],
  },
]

export default function Settings() {
  const models = createLoader(() => ok(api.models.$get()))
  onMount(() => void models.reload())
  const modelList = () => models.data()?.models ?? []
  return (
    <section class="stack admin">
      <h1>Settings</h1>
      <p class="muted">Changes apply from the next run.</p>
      <Show when={models.data()?.warning}>{(w) => <p class="field-hint">{w()}</p>}</Show>
      <SettingsForm
        title="Agent runtime"
        groups={AGENT_RUNTIME}
        models={modelList()}
        load={() => ok(api.settings['agent-runtime'].$get())}
        save={(patch) =>
          ok(api.settings['agent-runtime'].$patch({ json: patch as AgentRuntimeSettingsPatch }))
        }
        summary={(v) => (
          <p>
            Effective default model: <strong class="mono">{String(v.effectiveDefaultModel)}</strong>
          </p>
        )}
      />
      <SettingsForm
        title="Memory"
        groups={MEMORY}
        models={modelList()}
        load={() => ok(api.settings.memory.$get())}
        save={(patch) => ok(api.settings.memory.$patch({ json: patch as MemorySettingsPatch }))}
      />
      <SettingsForm
        title="Autonomy"
        groups={AUTONOMY}
        models={modelList()}
        load={() => ok(api.settings.autonomy.$get())}
        save={(patch) => ok(api.settings.autonomy.$patch({ json: patch as AutonomySettingsPatch }))}
      />
      <SettingsForm
        title="Browser"
        groups={BROWSER}
        models={modelList()}
        load={() => ok(api.settings.browser.$get())}
        save={(patch) => ok(api.settings.browser.$patch({ json: patch as BrowserSettingsPatch }))}
      />
    </section>
  )
}

// Inputs hold strings; a number field is sent as a number when it reads as one, and as typed
// otherwise, so the server names the field it refuses.
const toInput = (value: unknown) => (typeof value === 'boolean' ? value : String(value ?? ''))
function toWire(field: Field<string>, value: string | boolean): unknown {
  if (field.type !== 'number' || typeof value !== 'string') return value
  const n = Number(value)
  return value.trim() !== '' && Number.isFinite(n) ? n : value
}

function SettingsForm<K extends string>(props: {
  title: string
  groups: Group<K>[]
  models: string[]
  load: () => Promise<object>
  save: (patch: Values) => Promise<object>
  summary?: (values: Values) => JSX.Element
}) {
  const fields = props.groups.flatMap((g) => g.fields)
  const labels = Object.fromEntries(fields.map((f) => [f.key, f.label]))
  const [saved, setSaved] = createSignal<Values>()
  const [draft, setDraft] = createSignal<Record<string, string | boolean>>({})
  const [loadError, setLoadError] = createSignal<unknown>()
  const { busy, error, setError, run } = createSubmission()
  const [notice, setNotice] = createSignal<string>()
  const accept = (values: Values) => {
    setSaved(values)
    setDraft(Object.fromEntries(fields.map((f) => [f.key, toInput(values[f.key])])))
  }
  onMount(async () => {
    try {
      accept((await props.load()) as Values)
    } catch (err) {
      setLoadError(err)
    }
  })
  const changed = () => {
    const base = saved()
    if (!base) return []
    return fields.filter((f) => draft()[f.key] !== toInput(base[f.key]))
  }
  const set = (key: string, value: string | boolean) => {
    setDraft({ ...draft(), [key]: value })
    setNotice(undefined)
  }
  const submit = async (e: SubmitEvent) => {
    e.preventDefault()
    setError(undefined)
    setNotice(undefined)
    const fieldsChanged = changed()
    if (fieldsChanged.length === 0) return setNotice('Nothing changed.')
    await run(async () => {
      const patch = Object.fromEntries(
        fieldsChanged.map((f) => [f.key, toWire(f, draft()[f.key]!)]),
      )
      accept((await props.save(patch)) as Values)
      setNotice(`Saved: ${fieldsChanged.map((f) => f.label).join(', ')}.`)
    })
  }
  const problems = () => fieldProblems(error())

  return (
    <form class="card stack" aria-label={`${props.title} settings`} onSubmit={submit}>
      <h2>{props.title}</h2>
      <ErrorNote error={loadError()} />
      <Show when={saved()}>
        {(values) => (
          <>
            {props.summary?.(values())}
            <For each={props.groups}>
              {(group) => (
                <fieldset>
                  <legend>{group.legend}</legend>
                  <div class="grid-form">
                    <For each={group.fields}>
                      {(field) => (
                        <SettingInput
                          field={field}
                          value={draft()[field.key] ?? ''}
                          models={props.models}
                          problems={problems()[field.key]}
                          onChange={(v) => set(field.key, v)}
                        />
                      )}
                    </For>
                  </div>
                </fieldset>
              )}
            </For>
            <div class="actions">
              <button type="submit" disabled={busy()}>
                Save {props.title.toLowerCase()}
              </button>
              <Show when={changed().length > 0}>
                <span class="field-hint">
                  {changed().length} unsaved change{changed().length === 1 ? '' : 's'}
                </span>
              </Show>
            </div>
            <Show when={notice()}>{(n) => <Notice>{n()}</Notice>}</Show>
            <Show when={error()}>
              <ErrorNote error={`Not saved. ${describeError(error(), labels)}`} />
            </Show>
          </>
        )}
      </Show>
    </form>
  )
}

function SettingInput(props: {
  field: Field<string>
  value: string | boolean
  models: string[]
  problems: string[] | undefined
  onChange: (value: string | boolean) => void
}) {
  const f = props.field
  const text = () => (typeof props.value === 'string' ? props.value : '')
  const invalid = () => (props.problems ? 'true' : undefined)
  const problem = (
    <>
      <Show when={f.hint}>
        <span class="field-hint">{f.hint}</span>
      </Show>
      <Show when={props.problems}>{(p) => <span class="field-error">{p().join(', ')}</span>}</Show>
    </>
  )
  return (
    <Switch>
      <Match when={f.type === 'bool'}>
        <div>
          <label class="check">
            <input
              type="checkbox"
              checked={props.value === true}
              aria-invalid={invalid()}
              onChange={(e) => props.onChange(e.currentTarget.checked)}
            />
            {f.label}
          </label>
          {problem}
        </div>
      </Match>
      <Match when={f.type === 'textarea'}>
        <label class="wide">
          {f.label}
          <textarea
            rows={3}
            value={text()}
            aria-invalid={invalid()}
            onInput={(e) => props.onChange(e.currentTarget.value)}
          />
          {problem}
        </label>
      </Match>
      <Match when={f.type === 'select' || f.type === 'model'}>
        <label>
          {f.label}
          <select
            value={text()}
            aria-invalid={invalid()}
            onChange={(e) => props.onChange(e.currentTarget.value)}
          >
            <For each={optionsOf(f, props.models, text())}>
              {(o) => <option value={o}>{o}</option>}
            </For>
          </select>
          {problem}
        </label>
      </Match>
      <Match when={true}>
        <label>
          {f.label}
          <input
            type={f.type === 'number' ? 'number' : 'text'}
            step={f.type === 'number' ? (f.step ?? '1') : undefined}
            value={text()}
            aria-invalid={invalid()}
            onInput={(e) => props.onChange(e.currentTarget.value)}
          />
          {problem}
        </label>
      </Match>
    </Switch>
  )
}

/** A select's options; a model picker always lists the stored model, even one the catalog lacks. */
function optionsOf(field: Field<string>, models: string[], current: string): readonly string[] {
  if (field.type === 'select') return field.options
  return current && !models.includes(current) ? [current, ...models] : models
}
