import { A, useLocation } from '@solidjs/router'
import { createEffect, createSignal, on, onCleanup } from 'solid-js'

const NAV = [
  ['/', 'Chat'],
  ['/tasks', 'Tasks'],
  ['/schedules', 'Schedules'],
  ['/agents', 'Agents'],
  ['/settings', 'Settings'],
  ['/workspaces', 'Workspaces'],
  ['/docs', 'Docs'],
  ['/memories', 'Memories'],
  ['/hooks', 'Hooks'],
  ['/channels', 'Channels'],
  ['/secrets', 'Secrets'],
  ['/observability', 'Observability'],
  ['/autonomy', 'Autonomy'],
  ['/browser', 'Browser'],
] as const

/**
 * The top bar. On a wide screen every link shows; on a phone they sit behind the Menu button (the
 * eleven links wrapped to three rows there and took the conversation's height). The open menu
 * closes on navigation, on Escape and on a tap outside it.
 */
export function NavMenu() {
  const [open, setOpen] = createSignal(false)
  const location = useLocation()
  let bar!: HTMLElement
  let button!: HTMLButtonElement
  createEffect(
    on(
      () => location.pathname,
      () => setOpen(false),
      { defer: true },
    ),
  )
  const onKey = (e: KeyboardEvent) => {
    if (e.key !== 'Escape' || !open()) return
    setOpen(false)
    button.focus()
  }
  const onPointer = (e: PointerEvent) => {
    if (open() && !bar.contains(e.target as Node)) setOpen(false)
  }
  document.addEventListener('keydown', onKey)
  document.addEventListener('pointerdown', onPointer)
  onCleanup(() => {
    document.removeEventListener('keydown', onKey)
    document.removeEventListener('pointerdown', onPointer)
  })
  return (
    <header class="topbar" ref={bar}>
      <span class="brand">popagent</span>
      <button
        ref={button}
        type="button"
        class="secondary menu-button"
        aria-expanded={open()}
        aria-controls="main-nav"
        onClick={() => setOpen(!open())}
      >
        Menu
      </button>
      <nav
        id="main-nav"
        class="topnav"
        classList={{ open: open() }}
        aria-label="Main"
        // The link to the page already shown changes no address: it closes the menu too.
        onClick={(e) => (e.target as Element).closest('a') && setOpen(false)}
      >
        {NAV.map(([href, label]) => (
          <A href={href} end={href === '/'} activeClass="active">
            {label}
          </A>
        ))}
      </nav>
    </header>
  )
}
