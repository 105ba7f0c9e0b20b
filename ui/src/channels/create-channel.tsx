import { Show } from 'solid-js'
import type { z } from 'zod'
import type { CreateChannelInput } from '../../../runtime/contracts/channels.ts'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { createChannel } from './queries.ts'

const EMPTY = {
  kind: 'webhook' as 'webhook' | 'telegram' | 'slack',
  name: '',
  model: '',
  senders: '',
  url: '',
  mode: 'webhook' as 'webhook' | 'polling',
  allowLoopback: false,
  allowPrivateCallback: false,
  secretA: '',
  secretB: '',
}

/**
 * A new channel: its kind, name, the senders allowed to talk to it, the kind's URL and its two
 * secrets. Secrets go to the server's vault and the fields are emptied once it has them.
 */
export function CreateChannel() {
  const form = createForm({ ...EMPTY })
  const create = createSubmission({ name: 'Name', allowedSenders: 'Allowed senders' })
  const v = form.values
  const labels = () =>
    v.kind === 'webhook'
      ? ['Signing secret (inbound)', 'Outbound secret', 'Callback URL (optional)']
      : v.kind === 'telegram'
        ? ['Bot token', 'Webhook secret token', 'API base URL (optional)']
        : ['Bot token', 'Signing secret', 'API base URL (optional)']
  const input = (): z.input<typeof CreateChannelInput> => {
    const common = {
      name: v.name,
      allowedSenders: v.senders.split(/[\s,]+/).filter(Boolean),
      ...(v.model && { model: v.model }),
    }
    const url = v.url.trim()
    if (v.kind === 'webhook') {
      return {
        kind: 'webhook',
        ...common,
        settings: {
          ...(url && { callbackUrl: url }),
          allowLoopback: v.allowLoopback,
          ...(v.allowPrivateCallback && { allowPrivateCallback: true }),
        },
        secrets: { signing: [v.secretA], outbound: v.secretB },
      }
    }
    if (v.kind === 'telegram') {
      return {
        kind: 'telegram',
        ...common,
        settings: { ...(url && { apiBaseUrl: url }), mode: v.mode, allowLoopback: v.allowLoopback },
        secrets: { botToken: v.secretA, ...(v.secretB && { webhookSecret: v.secretB }) },
      }
    }
    return {
      kind: 'slack',
      ...common,
      settings: { ...(url && { apiBaseUrl: url }), allowLoopback: v.allowLoopback },
      secrets: { botToken: v.secretA, signingSecret: v.secretB },
    }
  }
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    void create.run(async () => {
      await createChannel(input())
      form.reset({ ...EMPTY })
    })
  }
  return (
    <form class="card stack" onSubmit={submit} aria-label="New channel">
      <h2>New channel</h2>
      <div class="row">
        <label>
          Kind{' '}
          <select
            value={v.kind}
            onChange={(e) => form.set('kind', e.currentTarget.value as typeof EMPTY.kind)}
          >
            <option value="webhook">Signed webhook</option>
            <option value="telegram">Telegram</option>
            <option value="slack">Slack</option>
          </select>
        </label>
        <label>
          Name{' '}
          <input value={v.name} onInput={(e) => form.set('name', e.currentTarget.value)} required />
        </label>
        <label>
          Model (optional){' '}
          <input value={v.model} onInput={(e) => form.set('model', e.currentTarget.value)} />
        </label>
      </div>
      <label>
        Allowed senders (ids, comma-separated; anyone else is refused){' '}
        <input value={v.senders} onInput={(e) => form.set('senders', e.currentTarget.value)} />
      </label>
      <div class="row">
        <label>
          {labels()[2]}{' '}
          <input value={v.url} onInput={(e) => form.set('url', e.currentTarget.value)} />
        </label>
        <Show when={v.kind === 'telegram'}>
          <label>
            Updates by{' '}
            <select
              value={v.mode}
              onChange={(e) => form.set('mode', e.currentTarget.value as typeof EMPTY.mode)}
            >
              <option value="webhook">Webhook</option>
              <option value="polling">Long polling</option>
            </select>
          </label>
        </Show>
        <label>
          <input
            type="checkbox"
            checked={v.allowLoopback}
            onChange={(e) => form.set('allowLoopback', e.currentTarget.checked)}
          />{' '}
          Allow a loopback address
        </label>
        <Show when={v.kind === 'webhook'}>
          <label>
            <input
              type="checkbox"
              checked={v.allowPrivateCallback}
              onChange={(e) => form.set('allowPrivateCallback', e.currentTarget.checked)}
            />{' '}
            Allow a private-network callback (never link-local)
          </label>
        </Show>
      </div>
      <div class="row">
        <label>
          {labels()[0]}{' '}
          <input
            type="password"
            autocomplete="off"
            value={v.secretA}
            onInput={(e) => form.set('secretA', e.currentTarget.value)}
            required
          />
        </label>
        <label>
          {labels()[1]}{' '}
          <input
            type="password"
            autocomplete="off"
            value={v.secretB}
            onInput={(e) => form.set('secretB', e.currentTarget.value)}
            required={!(v.kind === 'telegram' && v.mode === 'polling')}
          />
        </label>
      </div>
      <button type="submit" disabled={create.busy()}>
        Create channel
      </button>
      <ErrorNote error={create.error()} />
    </form>
  )
}
