import { onCleanup, onMount } from 'solid-js'

/**
 * Follows the reply as it streams, unless the reader scrolled up. The conversation's size is
 * observed rather than each chunk: the observer runs once per frame, after layout, so following
 * costs no extra layout however fast the reply streams.
 */
export function followScroll(conversation: () => HTMLElement | undefined) {
  let follow = true
  onMount(() => {
    const onScroll = () => {
      follow = window.innerHeight + window.scrollY >= document.documentElement.scrollHeight - 80
    }
    window.addEventListener('scroll', onScroll, { passive: true })
    const grows = new ResizeObserver(() => {
      if (follow) window.scrollTo({ top: document.documentElement.scrollHeight })
    })
    const el = conversation()
    if (el) grows.observe(el)
    onCleanup(() => {
      window.removeEventListener('scroll', onScroll)
      grows.disconnect()
    })
  })
}
