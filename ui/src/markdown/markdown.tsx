import { createEffect, onCleanup } from 'solid-js'
import './markdown.css'
import { createMarkdownView } from './view.ts'

/**
 * A model's reply as Markdown, rendered safely (render-tokens.ts) and incrementally while it
 * streams (view.ts). The element is Solid's; its contents are the view's alone.
 */
export function Markdown(props: { text: string; streaming?: boolean | undefined; class?: string }) {
  const root = (
    <div class={props.class ? `markdown ${props.class}` : 'markdown'} />
  ) as HTMLDivElement
  const view = createMarkdownView(root)
  createEffect(() => view.update(props.text, !props.streaming))
  onCleanup(view.dispose)
  return root
}
