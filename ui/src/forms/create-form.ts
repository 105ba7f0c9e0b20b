import { createSignal } from 'solid-js'
import { createStore } from 'solid-js/store'

/**
 * One form's state: the values being edited (a store, read where used: `form.values.name`), the
 * baseline they are compared with (what the server holds), and what differs between the two.
 * Saves send `changed()` only, so a form never needs a signal per field or a hand-written diff.
 * No JSX and no DOM: Node imports this file in test/ui-create-form.test.ts.
 *
 * @example
 * const form = createForm({ name: agent.displayName, tools: agent.tools })
 * <input value={form.values.name} onInput={(e) => form.set('name', e.currentTarget.value)} />
 * await save(form.changed()) // { name } when only the name was edited
 */
export type Form<T extends object> = {
  readonly values: T
  set<K extends keyof T>(key: K, value: T[K]): void
  /** The fields whose value differs from the baseline, with their edited values. */
  changed(): Partial<T>
  /** The names of the changed fields, in the order of the initial values. */
  changedKeys(): (keyof T)[]
  /** A new baseline (the saved record), and the values set to it. */
  reset(baseline: T): void
}

export function createForm<T extends object>(initial: T): Form<T> {
  const [baseline, setBaseline] = createSignal<T>(copy(initial))
  const [values, setValues] = createStore<T>(copy(initial))
  const setValue = setValues as unknown as (key: keyof T, value: unknown) => void
  // The baseline names the fields: a form may start empty and take its first record by reset().
  const keys = () => Object.keys(baseline()) as (keyof T)[]
  const changedKeys = () => keys().filter((k) => !sameValue(values[k], baseline()[k]))
  return {
    values,
    set: (key, value) => setValue(key, copyValue(value)),
    changed: () =>
      Object.fromEntries(changedKeys().map((k) => [k, copyValue(values[k])])) as Partial<T>,
    changedKeys,
    reset(next) {
      setBaseline(() => copy(next))
      for (const k of Object.keys(next) as (keyof T)[]) setValue(k, copyValue(next[k]))
    },
  }
}

/** Values are primitives or arrays of them (a tool list): an array compares by its items. */
function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((item, i) => Object.is(item, b[i]))
  }
  return Object.is(a, b)
}

// Arrays are copied in and out, so editing the form never changes the record it started from.
const copyValue = <V>(value: V): V => (Array.isArray(value) ? ([...value] as V) : value)
const copy = <T extends object>(record: T): T =>
  Object.fromEntries(Object.entries(record).map(([k, v]) => [k, copyValue(v)])) as T
