import { Match, Show, Switch } from 'solid-js'
import type { SetupProblem } from './setup-check.ts'

/**
 * Shown instead of the message box while the chat cannot work (setup-check.ts): what is wrong,
 * what to set, and a retry. A message typed into a box that can only fail on send would be lost
 * effort; this says so before.
 */
export function FirstRun(props: {
  problem: SetupProblem
  checking: boolean
  onRetry: () => void
  /** Only for a catalog that looks empty, which a one-model gateway can resemble. */
  onContinue: () => void
}) {
  return (
    <section class="first-run" aria-labelledby="first-run-title">
      <Switch>
        <Match when={props.problem.kind === 'host-down'}>
          <h2 id="first-run-title">popagent’s compute host is not answering</h2>
          <p>
            The web server is up, but the process that runs the agents is not reachable, so no reply
            can be made. Start popagent again with <code>npm start</code>, which runs both.
          </p>
          <Detail text={detailOf(props.problem)} />
        </Match>
        <Match when={props.problem.kind === 'gateway-down'}>
          <h2 id="first-run-title">The model gateway is not reachable</h2>
          <p>
            popagent sends every model call through an OpenAI-compatible gateway (9Router). The
            compute host could not read the gateway’s model list, so a message would fail.
          </p>
          <Detail text={detailOf(props.problem)} />
          <Settings />
        </Match>
        <Match when={props.problem.kind === 'no-models'}>
          <h2 id="first-run-title">No model is available</h2>
          <p>
            The model gateway answers, but it offers no models. Add a provider or a model to the
            gateway, or point popagent at a gateway that has some.
          </p>
          <Settings />
        </Match>
      </Switch>
      <div class="first-run-actions">
        <button type="button" onClick={() => props.onRetry()} disabled={props.checking}>
          {props.checking ? 'Checking…' : 'Retry'}
        </button>
        <Show when={props.problem.kind === 'no-models'}>
          <button type="button" class="secondary" onClick={() => props.onContinue()}>
            Open the chat anyway
          </button>
        </Show>
      </div>
    </section>
  )
}

const detailOf = (problem: SetupProblem) => ('detail' in problem ? problem.detail : undefined)

function Detail(props: { text: string | undefined }) {
  return (
    <Show when={props.text}>
      <p class="first-run-detail">
        Reported: <span class="mono">{props.text}</span>
      </p>
    </Show>
  )
}

function Settings() {
  return (
    <>
      <p>Set these in the environment popagent starts in, then restart it:</p>
      <dl class="first-run-env">
        <dt>
          <code>NINEROUTER_URL</code>
        </dt>
        <dd>
          The gateway’s base URL, ending in <code>/v1</code>. Unset, popagent uses{' '}
          <code>http://127.0.0.1:20128/v1</code>.
        </dd>
        <dt>
          <code>NINEROUTER_API_KEY</code>
        </dt>
        <dd>The gateway’s API key, when it asks for one.</dd>
      </dl>
    </>
  )
}
