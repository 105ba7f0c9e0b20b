import { query } from '@solidjs/router'
import { createResource, For } from 'solid-js'
import { api, ok } from '../api.ts'

/**
 * Where a task's or a schedule's result is posted when it ends (`deliverTo`): a conversation one
 * of the owner's channels is bound to, or none. The choices are every channel's bindings the
 * recipient has not blocked (the host refuses a blocked one anyway). Used by the task and schedule
 * forms, which live in page chunks; nothing here is in the entry chunk.
 */
export type DeliveryTarget = { id: string; label: string }

export const getDeliveryTargets = query(async (): Promise<DeliveryTarget[]> => {
  const { channels } = await ok(api.channels.$get())
  const lists = await Promise.all(
    channels.map(async (channel) => {
      const { bindings } = await ok(
        api.channels[':id'].bindings.$get({ param: { id: channel.id } }),
      )
      return bindings
        .filter((b) => !b.blockedAt)
        .map((b) => ({
          id: b.id,
          label: `${channel.name} · ${b.conversation}${b.thread ? ` / ${b.thread}` : ''}`,
        }))
    }),
  )
  return lists.flat()
}, 'delivery-targets')

export function DeliverToField(props: {
  value: string
  onChange: (bindingId: string) => void
  disabled?: boolean
  /** The Autonomy page's review conversation uses the same choices under its own words. */
  label?: string
  hint?: string
}) {
  // A failed read leaves only "None": delivery is optional, the form still works.
  const [targets] = createResource(() => getDeliveryTargets().catch(() => []))
  // A stored binding the list no longer shows (blocked since) stays visible as chosen.
  const options = () => {
    const list = targets() ?? []
    return props.value && !list.some((t) => t.id === props.value)
      ? [...list, { id: props.value, label: props.value }]
      : list
  }
  return (
    <label>
      {props.label ?? 'Deliver result to'}
      <select
        value={props.value}
        onChange={(e) => props.onChange(e.currentTarget.value)}
        disabled={props.disabled}
      >
        <option value="">None</option>
        <For each={options()}>{(t) => <option value={t.id}>{t.label}</option>}</For>
      </select>
      <span class="field-hint">
        {props.hint ?? 'a channel conversation (Channels page) that gets the result'}
      </span>
    </label>
  )
}
