import { onCleanup, onMount } from 'solid-js'

/**
 * Follows the reply as it streams, unless the reader scrolled up. The conversation scrolls inside
 * its own pane (the navigation and the message box stay in view), so it is the pane's scroll that
 * is read and moved. Its content's size is observed rather than each chunk: the observer runs
 * once per frame, after layout, so following costs no extra layout however fast the reply streams.
 */
export function followScroll(pane: () => HTMLElement | undefined) {
  let follow = true
  onMount(() => {
    const el = pane()
    const content = el?.firstElementChild
    if (!el || !content) return
    const onScroll = () => {
      follow = el.scrollTop + el.clientHeight >= el.scrollHeight - 80
    }
    el.addEventListener('scroll', onScroll, { passive: true })
    const grows = new ResizeObserver(() => {
      if (follow) el.scrollTop = el.scrollHeight
    })
    grows.observe(content)
    onCleanup(() => {
      el.removeEventListener('scroll', onScroll)
      grows.disconnect()
    })
  })
}
