import { A } from '@solidjs/router'
import { For, Show } from 'solid-js'
import { createData } from '../queries/data.ts'
import { getAgents } from '../queries/agents.ts'

const EXAMPLES = [
  'Give me a tour of this repository: what it does, how it is laid out, how to run its tests.',
  'Find where errors are handled and list the places that swallow them.',
  'Run the tests and explain the first failure.',
  'What changed recently, and what should I review first?',
]

/**
 * A new chat's first screen: the repositories the agents can work in, what the agents do, and a
 * few prompts that fill the message box (they do not send: the owner reads them first).
 */
export function EmptyChat(props: {
  workspaces: readonly { id: string; name: string; path: string }[]
  repository: string | undefined
  onPrompt: (text: string) => void
}) {
  const agents = createData(() => getAgents())
  const specialists = () => (agents.data()?.agents ?? []).filter((a) => a.delegationEligible)
  return (
    <section class="empty-chat-panel" aria-label="Start a chat">
      <h2>What should the agents work on?</h2>
      <div class="empty-columns">
        <div>
          <h3>Repositories</h3>
          <Show
            when={props.workspaces.length > 0}
            fallback={
              <p class="muted">
                None registered yet. <A href="/workspaces">Register a repository</A> so the agents
                can read and change its files.
              </p>
            }
          >
            <ul class="plain-list">
              <For each={props.workspaces}>
                {(w) => (
                  <li classList={{ chosen: w.id === props.repository }}>
                    <strong>{w.name}</strong> <span class="muted mono">{w.path}</span>
                  </li>
                )}
              </For>
            </ul>
            <p class="muted">Pick one beside the message box; the chat stays in it.</p>
          </Show>
        </div>
        <div>
          <h3>What the agents do</h3>
          <p class="muted">
            A supervisor reads your message, gathers context (memory, a brief of the repository) and
            hands parts of the work to specialists. Each step shows as a line you can open; files a
            turn changes can be undone.
          </p>
          <Show when={specialists().length > 0}>
            {/* Names only, each with its description on hover: the first screen stays short. */}
            <p class="specialists">
              Specialists:{' '}
              <For each={specialists()}>
                {(a, i) => (
                  <>
                    {i() > 0 && ', '}
                    <strong title={a.delegationDescription}>{a.displayName}</strong>
                  </>
                )}
              </For>
            </p>
          </Show>
        </div>
      </div>
      <h3>Try</h3>
      <div class="example-prompts">
        <For each={EXAMPLES}>
          {(text) => (
            <button
              type="button"
              class="secondary example-prompt"
              onClick={() => props.onPrompt(text)}
            >
              {text}
            </button>
          )}
        </For>
      </div>
    </section>
  )
}
