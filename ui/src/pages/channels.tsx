import { createSignal, For, Show } from 'solid-js'
import type { ChannelView } from '../../../runtime/contracts/channels.ts'
import { CreateChannel } from '../channels/create-channel.tsx'
import { PendingApprovals } from '../channels/pending-approvals.tsx'
import {
  deleteChannel,
  getChannelHistory,
  getChannels,
  updateChannel,
} from '../channels/queries.ts'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { Empty, ListTable } from '../components/list-table.tsx'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import { createData } from '../queries/data.ts'
import './admin.css'

/**
 * Channels: the signed webhook, Telegram and Slack channels that reach popagent, each with its
 * state (working, or its last error), the path its service posts to, its allowed senders and its
 * recent events and outbox chunks. Secrets are never shown, only how many each role holds.
 */
export default function Channels() {
  const channels = createData(() => getChannels())
  const [open, setOpen] = createSignal<string>()
  return (
    <section class="stack">
      <h1>Channels</h1>
      <p class="muted">
        Messages from the allowed senders run as chat turns; answers are queued and sent in order. A
        service posts to the inbound path with its signature; no API key is involved there.
      </p>
      <ErrorNote error={channels.error()} />
      <PendingApprovals />
      <Show
        when={(channels.data()?.channels.length ?? 0) > 0}
        fallback={<Empty>No channels yet.</Empty>}
      >
        <ListTable
          label="Channels"
          head={
            <>
              <th>Name</th>
              <th>Kind</th>
              <th>State</th>
              <th class="hide-narrow">Inbound path</th>
              <th>Senders</th>
              <th>Enabled</th>
              <th>Streaming</th>
              <th>Actions</th>
            </>
          }
        >
          <For each={channels.data()?.channels}>
            {(c) => (
              <ChannelRow
                channel={c}
                open={open() === c.id}
                onOpen={(on) => setOpen(on ? c.id : undefined)}
              />
            )}
          </For>
        </ListTable>
      </Show>
      <Show when={open()}>{(id) => <History id={id()} />}</Show>
      <CreateChannel />
    </section>
  )
}

function ChannelRow(props: { channel: ChannelView; open: boolean; onOpen: (on: boolean) => void }) {
  const action = createSubmission()
  const c = () => props.channel
  return (
    <tr>
      <td>{c().name}</td>
      <td>{c().kind}</td>
      <td>
        <Show when={c().state === 'error'} fallback="working">
          <span role="alert">error: {c().lastError}</span>
        </Show>
      </td>
      <td class="mono hide-narrow">{c().inboundPath}</td>
      <td>{c().allowedSenders.join(', ') || 'nobody'}</td>
      <td>
        <input
          type="checkbox"
          aria-label={`Enable ${c().name}`}
          checked={c().enabled}
          onChange={(e) => {
            const enabled = e.currentTarget.checked
            void action.run(() => updateChannel(c().id, { enabled }))
          }}
        />
      </td>
      <td>
        <StreamAnswers channel={c()} run={action.run} />
      </td>
      <td>
        <button type="button" onClick={() => props.onOpen(!props.open)}>
          {props.open ? 'Hide history' : 'History'}
        </button>
        <ConfirmAction
          label="Delete"
          name={`Delete ${c().name}`}
          question={`Delete the channel ${c().name}? Its secrets leave the vault; its sessions stay.`}
          confirmLabel="Delete channel"
          onConfirm={() => deleteChannel(c().id)}
        />
        <ErrorNote error={action.error()} />
      </td>
    </tr>
  )
}

/**
 * `streamAnswers`: Telegram and Slack edit an answer's message as it is written. Telegram's is on
 * unless turned off; Slack's off unless turned on (chat.update's limit is the workspace's). A
 * signed webhook never streams.
 */
function StreamAnswers(props: {
  channel: ChannelView
  run: (work: () => Promise<unknown>) => Promise<unknown>
}) {
  const c = () => props.channel
  const on = () => {
    const stored = c().settings.streamAnswers
    return typeof stored === 'boolean' ? stored : c().kind === 'telegram'
  }
  return (
    <Show when={c().kind !== 'webhook'} fallback={<span class="muted">never</span>}>
      <label class="check">
        <input
          type="checkbox"
          aria-label={`Stream answers on ${c().name}`}
          checked={on()}
          onChange={(e) => {
            const streamAnswers = e.currentTarget.checked
            void props.run(() => updateChannel(c().id, { settings: { streamAnswers } }))
          }}
        />
        Stream answers (edit the message as it is written)
      </label>
      <span class="field-hint">
        {c().kind === 'slack'
          ? "shares its workspace's update limit (about 50 a minute)"
          : 'off: the answer is sent whole when the turn ends'}
      </span>
    </Show>
  )
}

function History(props: { id: string }) {
  const history = createData(() => getChannelHistory(props.id))
  return (
    <div class="card stack" aria-label="Channel history">
      <h2>Recent events</h2>
      <ErrorNote error={history.error()} />
      <Show
        when={(history.data()?.events.length ?? 0) > 0}
        fallback={<Empty>No events yet.</Empty>}
      >
        <ListTable
          label="Events"
          head={
            <>
              <th>When</th>
              <th>Kind</th>
              <th>Sender</th>
              <th>State</th>
              <th>Detail</th>
            </>
          }
        >
          <For each={history.data()?.events}>
            {(e) => (
              <tr>
                <td>{new Date(e.createdAt).toLocaleString()}</td>
                <td>{e.kind}</td>
                <td class="mono">{e.sender ?? ''}</td>
                <td>{e.state}</td>
                <td>{e.detail ?? ''}</td>
              </tr>
            )}
          </For>
        </ListTable>
      </Show>
      <h2>Outbox</h2>
      <Show
        when={(history.data()?.chunks.length ?? 0) > 0}
        fallback={<Empty>Nothing sent yet.</Empty>}
      >
        <ListTable
          label="Outbox"
          head={
            <>
              <th>Delivery</th>
              <th>Chunk</th>
              <th>State</th>
              <th>Attempts</th>
              <th>Last error</th>
            </>
          }
        >
          <For each={history.data()?.chunks}>
            {(r) => (
              <tr>
                <td class="mono">{r.deliveryId}</td>
                <td>
                  {r.seq} of {r.total} ({r.chars} chars)
                </td>
                <td>{r.state}</td>
                <td>{r.attempts}</td>
                <td>{r.lastError ?? ''}</td>
              </tr>
            )}
          </For>
        </ListTable>
      </Show>
    </div>
  )
}
