import { onMount, type JSX } from 'solid-js'
import { Dynamic } from 'solid-js/web'
import './confirm.css'

/**
 * The one in-page confirmation (never `window.confirm`): the question and two buttons. Focus
 * lands on the safe choice, so an Enter pressed by habit cancels; Escape cancels too, without
 * reaching the page's own Escape (the chat's "stop the turn"). `inline` keeps it on one line, in
 * a table row or next to the button that asked.
 */
export function Confirm(props: {
  message: JSX.Element
  confirmLabel: string
  cancelLabel?: string
  /** The dialog's accessible name; the confirm button's label when absent. */
  label?: string
  busy?: boolean
  inline?: boolean
  onConfirm: () => void
  onCancel: () => void
}) {
  let cancel: HTMLButtonElement | undefined
  onMount(() => cancel?.focus())
  return (
    <Dynamic
      component={props.inline ? 'span' : 'div'}
      class="confirm"
      classList={{ inline: props.inline }}
      role="alertdialog"
      aria-label={props.label ?? props.confirmLabel}
      on:keydown={(e: KeyboardEvent) => {
        if (e.key !== 'Escape') return
        e.preventDefault()
        props.onCancel()
      }}
    >
      {props.inline ? <span>{props.message}</span> : <p>{props.message}</p>}
      <span class="row">
        <button
          type="button"
          class="danger"
          disabled={props.busy}
          onClick={() => props.onConfirm()}
        >
          {props.confirmLabel}
        </button>
        <button type="button" class="secondary" ref={cancel} onClick={() => props.onCancel()}>
          {props.cancelLabel ?? 'Cancel'}
        </button>
      </span>
    </Dynamic>
  )
}
