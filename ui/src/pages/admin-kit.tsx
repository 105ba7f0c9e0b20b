import { createEffect, createSignal, onCleanup, Show, type JSX } from 'solid-js'
import type { TaskState } from '../../../runtime/contracts/tasks.ts'
import { LIVE_TASK_STATES } from '../../../runtime/contracts/task-enums.ts'
import { ApiError } from '../api.ts'
import './admin.css'

/**
 * Small pieces the admin pages (tasks, schedules, agents, settings) share: a loader that keeps its
 * last good value while it refreshes, polling that stops when the page is hidden or unmounted, an
 * in-page confirmation, and the server's field errors in words.
 */
/** Task states that still change on their own: pages poll while a task is in one. */
export const LIVE_STATES: readonly TaskState[] = LIVE_TASK_STATES

export type Loader<T> = {
  data: () => T | undefined
  error: () => unknown
  reload: () => Promise<void>
}

/**
 * Loads with `fetcher` on `reload()`. Unlike a resource, reading `data()` never throws: an error
 * sits in `error()` next to the last good value, and an older answer never overwrites a newer one.
 */
export function createLoader<T>(fetcher: () => Promise<T>): Loader<T> {
  const [data, setData] = createSignal<T>()
  const [error, setError] = createSignal<unknown>()
  let latest = 0
  const reload = async () => {
    const mine = ++latest
    try {
      const value = await fetcher()
      if (mine !== latest) return
      setData(() => value)
      setError(undefined)
    } catch (err) {
      if (mine === latest) setError(err)
    }
  }
  return { data, error, reload }
}

/**
 * Calls `tick` every `ms` while `active()` holds and the page is visible; a hidden tab stops
 * polling and refreshes once when it is shown again. Everything stops when the owner unmounts.
 */
export function createPolling(tick: () => Promise<void>, active: () => boolean, ms = 1_000) {
  let timer: ReturnType<typeof setTimeout> | undefined
  let disposed = false
  const schedule = () => {
    clearTimeout(timer)
    timer = undefined
    if (disposed || document.hidden || !active()) return
    timer = setTimeout(async () => {
      timer = undefined
      await tick()
      schedule()
    }, ms)
  }
  createEffect(() => {
    active()
    schedule()
  })
  const onVisibility = () => {
    if (document.hidden) schedule()
    else void tick().then(schedule)
  }
  document.addEventListener('visibilitychange', onVisibility)
  onCleanup(() => {
    disposed = true
    clearTimeout(timer)
    document.removeEventListener('visibilitychange', onVisibility)
  })
}

/** The per-field problems of a 400 VALIDATION_FAILED (`{ fields: { name: [problem] } }`). */
export function fieldProblems(error: unknown): Record<string, string[]> {
  if (!(error instanceof ApiError)) return {}
  const fields = (error.data as { fields?: unknown } | undefined)?.fields
  return fields && typeof fields === 'object' ? (fields as Record<string, string[]>) : {}
}

/** An error in words: the server's message, and each refused field by its label. */
export function describeError(error: unknown, labels: Record<string, string> = {}): string {
  const message = error instanceof Error ? error.message : String(error)
  const fields = Object.entries(fieldProblems(error))
  if (fields.length === 0) return message
  const named = fields.map(
    ([field, problems]) => `${labels[field] ?? field}: ${problems.join(', ')}`,
  )
  return `${message}: ${named.join('; ')}`
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' })

/** A timestamp in the browser's locale and timezone, or a dash. */
export function when(iso: string | null | undefined): string {
  return iso ? dateTime.format(new Date(iso)) : '—'
}

/** A timestamp in a named timezone (a schedule's occurrences are read in the server's). */
export function inZone(iso: string, timeZone: string, style: 'full' | 'medium' = 'full'): string {
  try {
    return new Intl.DateTimeFormat(undefined, {
      dateStyle: style,
      timeStyle: 'short',
      timeZone,
    }).format(new Date(iso))
  } catch {
    return iso
  }
}

/**
 * A form's (or an action's) submission state: `run` clears the last error, marks it busy while
 * the work runs, and keeps what went wrong — in words with field labels when `labels` is given,
 * the error itself otherwise.
 */
export function createSubmission(labels?: Record<string, string>) {
  const [busy, setBusy] = createSignal(false)
  const [error, setError] = createSignal<unknown>()
  return {
    busy,
    error,
    setError,
    async run(work: () => Promise<unknown>) {
      setBusy(true)
      setError(undefined)
      try {
        await work()
      } catch (err) {
        setError(labels ? describeError(err, labels) : err)
      } finally {
        setBusy(false)
      }
    },
  }
}

/**
 * A destructive action behind an in-page confirmation: the first click asks, "Yes" runs it, and
 * the server's message shows if it fails.
 */
export function ConfirmAction(props: {
  label: string
  /** The accessible name when the visible label alone is ambiguous ("Delete" in a list). */
  name?: string
  question: string
  confirmLabel: string
  onConfirm: () => Promise<unknown>
}) {
  const [asking, setAsking] = createSignal(false)
  const { busy, error, run } = createSubmission()
  const confirm = () =>
    run(async () => {
      await props.onConfirm()
      setAsking(false)
    })
  return (
    <span class="ask-first">
      <Show
        when={asking()}
        fallback={
          <button
            type="button"
            class="danger"
            aria-label={props.name}
            onClick={() => setAsking(true)}
          >
            {props.label}
          </button>
        }
      >
        <span class="ask-first-q" role="group" aria-label={props.question}>
          <span>{props.question}</span>
          <button
            type="button"
            class="danger"
            disabled={busy()}
            onClick={confirm}
            // Keyboard users land on the question's answer, not on the document.
            ref={(el) => queueMicrotask(() => el.focus())}
          >
            {props.confirmLabel}
          </button>
          <button type="button" class="secondary" onClick={() => setAsking(false)}>
            Keep it
          </button>
        </span>
      </Show>
      <Show when={error()}>
        <span class="error" role="alert">
          {describeError(error())}
        </span>
      </Show>
    </span>
  )
}

/** A coloured state pill (task states, enabled/disabled, access levels). */
export function StateBadge(props: { state: string; children?: JSX.Element }) {
  return <span class={`badge state-${props.state}`}>{props.children ?? props.state}</span>
}
