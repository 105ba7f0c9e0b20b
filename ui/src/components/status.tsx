import { Show, type JSX } from 'solid-js'

/** A request's error in words (the server's own message), or nothing. */
export function ErrorNote(props: { error: unknown }) {
  return (
    <Show when={props.error}>
      <p class="error" role="alert">
        {props.error instanceof Error ? props.error.message : String(props.error)}
      </p>
    </Show>
  )
}

/** A notice that is not an error (a reload after a conflict, a saved change). */
export function Notice(props: { children: JSX.Element }) {
  return (
    <p class="notice" role="status">
      {props.children}
    </p>
  )
}
