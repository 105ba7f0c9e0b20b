import { For, Show } from 'solid-js'
import { HOOK_EVENTS } from '../../../runtime/contracts/hook-enums.ts'
import { ErrorNote } from '../components/status.tsx'
import { createForm } from '../forms/create-form.ts'
import { createSubmission } from '../forms/submission.ts'
import { createHook } from '../queries/hooks.ts'

const EMPTY = {
  name: '',
  event: 'PreToolUse' as (typeof HOOK_EVENTS)[number],
  matcher: '*',
  kind: 'command' as 'command' | 'http',
  command: '',
  url: '',
  allowLoopback: false,
  timeoutMs: 10_000,
  priority: 100,
}

/**
 * A new hook: a command (one argument per line, run without a shell in the sandbox) or an HTTPS
 * URL (loopback only when ticked), the event, which tools it applies to, its timeout and its
 * place in the merge order.
 */
export function CreateHook() {
  const form = createForm({ ...EMPTY })
  const submission = createSubmission({ name: 'Name', matcher: 'Tools', url: 'URL' })
  const submit = (e: SubmitEvent) => {
    e.preventDefault()
    const v = form.values
    const common = {
      name: v.name,
      event: v.event,
      matcher: v.matcher,
      timeoutMs: v.timeoutMs,
      priority: v.priority,
    }
    void submission.run(async () => {
      await createHook(
        v.kind === 'command'
          ? { ...common, kind: 'command', command: v.command.split('\n').filter(Boolean) }
          : { ...common, kind: 'http', url: v.url, allowLoopback: v.allowLoopback },
      )
      form.reset({ ...EMPTY })
    })
  }
  const number = (key: 'timeoutMs' | 'priority') => (e: { currentTarget: HTMLInputElement }) =>
    form.set(key, Number(e.currentTarget.value))
  return (
    <form class="card stack" onSubmit={submit} aria-label="New hook">
      <h2>New hook</h2>
      <div class="row">
        <label>
          Name{' '}
          <input
            value={form.values.name}
            onInput={(e) => form.set('name', e.currentTarget.value)}
            required
          />
        </label>
        <label>
          Event{' '}
          <select
            value={form.values.event}
            onChange={(e) => form.set('event', e.currentTarget.value as typeof EMPTY.event)}
          >
            <For each={HOOK_EVENTS}>{(event) => <option value={event}>{event}</option>}</For>
          </select>
        </label>
        <label>
          Tools{' '}
          <input
            value={form.values.matcher}
            onInput={(e) => form.set('matcher', e.currentTarget.value)}
          />
        </label>
        <label>
          Kind{' '}
          <select
            value={form.values.kind}
            onChange={(e) => form.set('kind', e.currentTarget.value as 'command' | 'http')}
          >
            <option value="command">command</option>
            <option value="http">http</option>
          </select>
        </label>
      </div>
      <Show
        when={form.values.kind === 'command'}
        fallback={
          <div class="row">
            <label>
              URL{' '}
              <input
                value={form.values.url}
                onInput={(e) => form.set('url', e.currentTarget.value)}
                required
              />
            </label>
            <label>
              <input
                type="checkbox"
                checked={form.values.allowLoopback}
                onChange={(e) => form.set('allowLoopback', e.currentTarget.checked)}
              />{' '}
              Allow loopback
            </label>
          </div>
        }
      >
        <label>
          Command, one argument per line
          <textarea
            rows={3}
            value={form.values.command}
            onInput={(e) => form.set('command', e.currentTarget.value)}
            required
          />
        </label>
      </Show>
      <div class="row">
        <label>
          Timeout (ms){' '}
          <input type="number" value={form.values.timeoutMs} onInput={number('timeoutMs')} />
        </label>
        <label>
          Priority <input type="number" value={form.values.priority} onInput={number('priority')} />
        </label>
        <button type="submit" disabled={submission.busy()}>
          Add hook
        </button>
      </div>
      <ErrorNote error={submission.error()} />
    </form>
  )
}
