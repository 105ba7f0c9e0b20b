import { onCleanup, onMount } from 'solid-js'

/**
 * The chat's keyboard: Escape stops a streaming turn (or closes the phone drawer);
 * Alt+ArrowUp/ArrowDown opens the previous/next session of the listed ones.
 */
export function chatKeys(keys: {
  streaming: () => boolean
  stop: () => void
  drawerOpen: () => boolean
  closeDrawer: () => void
  listed: () => { id: string }[]
  currentId: () => string | undefined
  open: (id: string) => void
}) {
  onMount(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented) return
      if (e.key === 'Escape') {
        if (keys.streaming()) {
          e.preventDefault()
          keys.stop()
        } else if (keys.drawerOpen()) keys.closeDrawer()
        return
      }
      if (!e.altKey || (e.key !== 'ArrowUp' && e.key !== 'ArrowDown')) return
      const list = keys.listed()
      if (list.length === 0) return
      e.preventDefault()
      const at = list.findIndex((s) => s.id === keys.currentId())
      const step = e.key === 'ArrowUp' ? -1 : 1
      const next = at === -1 ? 0 : Math.min(list.length - 1, Math.max(0, at + step))
      if (list[next]!.id !== keys.currentId()) keys.open(list[next]!.id)
    }
    document.addEventListener('keydown', onKey)
    onCleanup(() => document.removeEventListener('keydown', onKey))
  })
}
