import { onMount, type JSX } from 'solid-js'

/**
 * An in-page confirmation (never `window.confirm`): the question and two buttons. Focus lands on
 * Cancel, and Escape cancels without reaching the page's own Escape (stop a turn).
 */
export function Confirm(props: {
  message: JSX.Element
  confirmLabel: string
  onConfirm: () => void
  onCancel: () => void
}) {
  let cancel: HTMLButtonElement | undefined
  onMount(() => cancel?.focus())
  return (
    <div
      class="confirm"
      role="alertdialog"
      aria-label={props.confirmLabel}
      on:keydown={(e) => {
        if (e.key !== 'Escape') return
        e.preventDefault()
        props.onCancel()
      }}
    >
      <p>{props.message}</p>
      <div class="row">
        <button type="button" class="danger" onClick={() => props.onConfirm()}>
          {props.confirmLabel}
        </button>
        <button type="button" class="secondary" ref={cancel} onClick={() => props.onCancel()}>
          Cancel
        </button>
      </div>
    </div>
  )
}
