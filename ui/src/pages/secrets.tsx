import { createSignal, For, Show } from 'solid-js'
import type { SecretView } from '../../../runtime/contracts/secrets.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { Empty, ListTable } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import {
  bindSecret,
  createSecret,
  deleteSecret,
  getSecrets,
  rotateSecret,
} from '../queries/secrets.ts'
import './admin.css'

/**
 * The secrets vault: values go in and are never shown again. The list has each secret's name,
 * version, key id, fingerprint and the HTTPS origins it is bound to; a value typed here is sent
 * once and the field is emptied as soon as the server has it.
 */
export default function Secrets() {
  const secrets = createData(() => getSecrets())
  const form = createForm({ name: '', value: '' })
  const create = createSubmission({ name: 'Name', value: 'Value' })
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    void create.run(async () => {
      await createSecret({ ...form.values })
      form.reset({ name: '', value: '' })
    })
  }
  return (
    <section class="stack">
      <h1>Secrets</h1>
      <p class="muted">Values are encrypted on the server and never shown after they are saved.</p>
      <ErrorNote error={secrets.error()} />
      <Show
        when={(secrets.data()?.secrets.length ?? 0) > 0}
        fallback={<Empty>No secrets yet.</Empty>}
      >
        <ListTable
          label="Secrets"
          head={
            <>
              <th>Name</th>
              <th>Version</th>
              <th class="hide-narrow">Key</th>
              <th>Fingerprint</th>
              <th>Origins</th>
              <th>Actions</th>
            </>
          }
        >
          <For each={secrets.data()?.secrets}>{(s) => <SecretRow secret={s} />}</For>
        </ListTable>
      </Show>
      <form class="card row" onSubmit={submit} aria-label="New secret">
        <label>
          Name{' '}
          <input
            value={form.values.name}
            onInput={(e) => form.set('name', e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Value{' '}
          <input
            type="password"
            autocomplete="off"
            value={form.values.value}
            onInput={(e) => form.set('value', e.currentTarget.value)}
            required
          />
        </label>
        <button type="submit" disabled={create.busy()}>
          Save secret
        </button>
        <ErrorNote error={create.error()} />
      </form>
    </section>
  )
}

function SecretRow(props: { secret: SecretView }) {
  const [value, setValue] = createSignal('')
  const [origins, setOrigins] = createSignal(props.secret.origins.join(', '))
  const rotate = createSubmission()
  const bind = createSubmission()
  const name = () => props.secret.name
  return (
    <tr>
      <td class="mono">{name()}</td>
      <td>{props.secret.version}</td>
      <td class="mono hide-narrow">{props.secret.keyId}</td>
      <td class="mono">{props.secret.fingerprint}</td>
      <td>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault()
            const list = origins()
              .split(/[\s,]+/)
              .filter(Boolean)
            void bind.run(() => bindSecret(props.secret.id, { origins: list }))
          }}
        >
          <input
            aria-label={`Origins of ${name()}`}
            placeholder="https://api.example.com"
            value={origins()}
            onInput={(e) => setOrigins(e.currentTarget.value)}
          />
          <button type="submit" aria-label={`Bind ${name()}`}>
            Bind
          </button>
        </form>
        <ErrorNote error={bind.error()} />
      </td>
      <td>
        <form
          class="row"
          onSubmit={(e) => {
            e.preventDefault()
            void rotate.run(async () => {
              await rotateSecret(props.secret.id, value())
              setValue('')
            })
          }}
        >
          <input
            type="password"
            autocomplete="off"
            aria-label={`New value of ${name()}`}
            value={value()}
            onInput={(e) => setValue(e.currentTarget.value)}
            required
          />
          <button type="submit" aria-label={`Rotate ${name()}`}>
            Rotate
          </button>
        </form>
        <ErrorNote error={rotate.error()} />
        <ConfirmAction
          label="Delete"
          name={`Delete ${name()}`}
          question={`Delete ${name()}? Anything bound to it stops getting it.`}
          confirmLabel="Delete secret"
          onConfirm={() => deleteSecret(props.secret.id)}
        />
      </td>
    </tr>
  )
}
