import type { JSX } from 'solid-js'

/**
 * The admin pages' list: a labelled table that scrolls sideways inside its own box on a narrow
 * screen (columns marked `hide-narrow` drop out first, admin.css).
 */
export function ListTable(props: { label: string; head: JSX.Element; children: JSX.Element }) {
  return (
    <div class="table-wrap">
      <table class="list" aria-label={props.label}>
        <thead>
          <tr>{props.head}</tr>
        </thead>
        <tbody>{props.children}</tbody>
      </table>
    </div>
  )
}

/** What a list says when it has nothing to show. */
export function Empty(props: { children: JSX.Element }) {
  return <p class="muted">{props.children}</p>
}
