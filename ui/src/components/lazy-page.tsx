import { createSignal, Show, type Component } from 'solid-js'

type PageModule<P extends Record<string, unknown>> = { default: Component<P> }

/**
 * A page whose code loads on its first visit, showing "Loading…" meanwhile and a way out when the
 * code cannot load (a new build replaced the file), where Solid's lazy() showed an empty page.
 *
 * Not lazy() under a <Suspense>: the pages read their data through createAsync, and a boundary
 * around them would suspend on that too. A query loaded outside a transition (the repository
 * brief's question, a poll) would swap the whole page, focus and input included, for the fallback.
 */
export function lazyPage<P extends Record<string, unknown>>(load: () => Promise<PageModule<P>>) {
  let loaded: Component<P> | undefined
  let loading: Promise<Component<P> | undefined> | undefined
  // Also what the router calls when a link to the page is hovered (the `preload` of lazy()).
  const preload = () =>
    (loading ??= load().then(
      (m) => (loaded = m.default),
      () => (loading = undefined),
    ))
  const Page = (props: P) => {
    const [page, setPage] = createSignal(loaded)
    const [failed, setFailed] = createSignal(false)
    if (!loaded) void preload().then((c) => (c ? setPage(() => c) : setFailed(true)))
    return (
      <Show
        when={page()}
        fallback={
          <Show
            when={failed()}
            fallback={
              <p class="muted" role="status">
                Loading…
              </p>
            }
          >
            <p role="alert">
              This page could not be loaded.{' '}
              <button type="button" onClick={() => location.reload()}>
                Reload
              </button>
            </p>
          </Show>
        }
      >
        {(c) => c()(props)}
      </Show>
    )
  }
  return Object.assign(Page, { preload })
}
