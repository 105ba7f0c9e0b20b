import { createEffect, onCleanup } from 'solid-js'

/**
 * Calls `tick` every `ms` while `active()` holds and the page is visible; a hidden tab stops
 * polling and refreshes once when it is shown again. Everything stops when the owner unmounts.
 * A tick revalidates a query (the tasks list, one task), so every view of it refreshes together.
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
