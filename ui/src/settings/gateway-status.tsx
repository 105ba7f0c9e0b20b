import { createSignal, Match, Show, Switch } from 'solid-js'
import { createData } from '../queries/data.ts'
import { getHealth, refreshHealth } from '../queries/health.ts'
import { getModels, refreshModels } from '../queries/models.ts'

/**
 * The model gateway as the host sees it: connected (with its latency and how many models it
 * offers), unreachable (with the reason), or not configured. Its address and key are environment
 * settings, not stored ones, so this says where they are set instead of offering a field that
 * could not take effect.
 */
export function GatewayStatus() {
  const health = createData(() => getHealth())
  const models = createData(() => getModels())
  const [checking, setChecking] = createSignal(false)
  const gateway = () => health.data()?.gateway
  const recheck = async () => {
    setChecking(true)
    await Promise.allSettled([refreshHealth(), refreshModels()])
    setChecking(false)
  }
  return (
    <section class="card stack" id="settings-gateway" aria-labelledby="gateway-title">
      <h2 id="gateway-title">Model gateway</h2>
      <p class="gateway-state" role="status">
        <Switch fallback={<span class="muted">Checking…</span>}>
          <Match when={health.data() && !health.data()!.computeHost.reachable}>
            <span class="badge state-failed">host not answering</span> The compute host, which talks
            to the gateway, is not reachable.
          </Match>
          <Match when={gateway() === null}>
            <span class="muted">The host has not reported the gateway yet.</span>
          </Match>
          <Match when={gateway() && !gateway()!.configured}>
            <span class="badge state-failed">not configured</span>
          </Match>
          <Match when={gateway() && !gateway()!.reachable && gateway()}>
            {(g) => (
              <>
                <span class="badge state-failed">unreachable</span>{' '}
                <span class="mono">{g().error ?? 'no answer'}</span>
              </>
            )}
          </Match>
          <Match when={gateway()?.reachable && gateway()}>
            {(g) => (
              <>
                <span class="badge state-completed">connected</span>
                <Show when={g().latencyMs !== undefined}>
                  {' '}
                  <span class="muted">{Math.round(g().latencyMs!)} ms</span>
                </Show>
                <Show when={models.data()}>
                  {(m) => (
                    <span class="muted">
                      {' '}
                      · {m().models.length} model{m().models.length === 1 ? '' : 's'} · default{' '}
                      <span class="mono">{m().defaultModel}</span>
                    </span>
                  )}
                </Show>
              </>
            )}
          </Match>
        </Switch>
      </p>
      <Show when={models.data()?.warning}>{(w) => <p class="field-hint">{w()}</p>}</Show>
      <p class="muted">
        Set in the environment popagent starts in, then restart it: <code>NINEROUTER_URL</code> (the
        gateway’s base URL, ending in <code>/v1</code>) and <code>NINEROUTER_API_KEY</code>.
      </p>
      <div class="actions">
        <button
          type="button"
          class="secondary"
          disabled={checking()}
          onClick={() => void recheck()}
        >
          {checking() ? 'Checking…' : 'Check again'}
        </button>
      </div>
    </section>
  )
}
