import { createSignal, For, Show } from 'solid-js'
import type {
  EvolutionDryRun,
  EvolutionPass,
  EvolutionProposal,
  EvolutionRevision,
  EvolutionSignal,
} from '../../../runtime/contracts/evolution.ts'
import { DeliverToField } from '../channels/deliver-to.tsx'
import { ConfirmAction } from '../components/confirm-action.tsx'
import { when } from '../components/dates.ts'
import { ErrorNote } from '../components/status.tsx'
import { createSubmission } from '../forms/submission.ts'
import {
  approveProposal,
  getEvolutionPolicies,
  getProposals,
  getRevisions,
  getSignals,
  ignoreSignal,
  previewEvolution,
  rejectProposal,
  retrySignal,
  revertRevision,
  runEvolutionNow,
  setAgentEvolution,
  setAgentReview,
  setGlobal,
  setReviewBinding,
  setReviewByDefault,
} from '../queries/autonomy.ts'
import { createData } from '../queries/data.ts'
import { describe, DiffCell, ListCard, TargetCell, TraceLinks } from './autonomy-list.tsx'
import { SelfUpdatePanel } from './autonomy-self-update.tsx'
import './admin.css'
import './autonomy.css'

/**
 * Autonomy: what the agents learn on their own and how to take it back. The switches (global and
 * per agent; off wins; applied automatically or held for review), the review queue (held
 * proposals with their diff, Approve and Reject), the evidence the worker reads (signals, with
 * their traces), every change it made (revisions, each with its before and after and a Revert),
 * and a worker pass now; and, read only, self-update's schedules and newest runs.
 */
export default function Autonomy() {
  return (
    <section class="stack admin autonomy">
      <h1>Autonomy</h1>
      <Policies />
      <SelfUpdatePanel />
      <ReviewQueue />
      <Signals />
      <Revisions />
    </section>
  )
}

function Policies() {
  const policies = createData(() => getEvolutionPolicies())
  const action = createSubmission()
  const [pass, setPass] = createSignal<EvolutionPass>()
  const [preview, setPreview] = createSignal<EvolutionDryRun>()
  const toggle = (label: string, checked: boolean, change: (on: boolean) => Promise<unknown>) => (
    <label class="check">
      <input
        type="checkbox"
        checked={checked}
        disabled={action.busy()}
        onChange={(e) => {
          const on = e.currentTarget.checked
          void action.run(() => change(on))
        }}
      />
      {label}
    </label>
  )
  return (
    <div class="card stack" aria-label="Evolution policy">
      <h2>Evolution</h2>
      <ErrorNote error={policies.error()} />
      <Show when={policies.data()}>
        {(p) => (
          <>
            <div class="row wrap">
              {toggle('Agent evolution', p().evolutionEnabled, (on) =>
                setGlobal({ evolutionEnabled: on }),
              )}
              {toggle('Skill creation', p().skillCreationEnabled, (on) =>
                setGlobal({ skillCreationEnabled: on }),
              )}
              {toggle('Automatic fact retention', p().automaticFactRetention, (on) =>
                setGlobal({ automaticFactRetention: on }),
              )}
            </div>
            <p class="muted">
              Per agent (off wins over the global switch; learned guidance is composed after the
              agent's own instructions and never changes them):
            </p>
            <div class="row wrap">
              <For each={p().agents}>
                {(a) => toggle(`${a.name}`, a.enabled, (on) => setAgentEvolution(a.agentId, on))}
              </For>
            </div>
            <p class="muted">
              Review: a learned change either applies at once (it can still be reverted) or waits in
              the review queue below until you approve it.
            </p>
            <div class="row wrap">
              {toggle('Hold learned changes for review', p().reviewByDefault, (on) =>
                setReviewByDefault(on),
              )}
              <DeliverToField
                label="Ask in a chat"
                hint="held changes are also asked there, with Approve and Reject buttons"
                value={p().reviewBindingId ?? ''}
                disabled={action.busy()}
                onChange={(id) => void action.run(() => setReviewBinding(id || null))}
              />
              <For each={p().agents}>
                {(a) => (
                  <span>
                    {a.name}{' '}
                    <select
                      aria-label={`Review for ${a.name}`}
                      disabled={action.busy()}
                      value={a.review === null ? 'default' : a.review ? 'review' : 'automatic'}
                      onChange={(e) => {
                        const v = e.currentTarget.value
                        void action.run(() =>
                          setAgentReview(a.agentId, v === 'default' ? null : v === 'review'),
                        )
                      }}
                    >
                      <option value="default">
                        as default ({p().reviewByDefault ? 'review' : 'automatic'})
                      </option>
                      <option value="automatic">automatic</option>
                      <option value="review">review</option>
                    </select>
                  </span>
                )}
              </For>
            </div>
          </>
        )}
      </Show>
      <div class="row">
        <button
          type="button"
          disabled={action.busy()}
          onClick={() => void action.run(async () => setPass(await runEvolutionNow()))}
        >
          Run the worker now
        </button>
        <button
          type="button"
          class="secondary"
          disabled={action.busy()}
          onClick={() => void action.run(async () => setPreview(await previewEvolution()))}
        >
          Dry run
        </button>
        <Show when={pass()}>
          {(r) => (
            <span role="status">
              Claimed {r().claimed}, processed {r().processed}, ignored {r().ignored}, failed{' '}
              {r().failed}; {r().revisions.length} change(s), {r().held.length} held for review,{' '}
              {r().reverted.length} taken back.
            </span>
          )}
        </Show>
      </div>
      <Show when={preview()}>
        {(d) => (
          <div role="region" aria-label="Dry run">
            <Show when={d().proposals.length > 0} fallback={<p>Nothing is pending.</p>}>
              <ul>
                <For each={d().proposals}>
                  {(p) => (
                    <li>
                      {p.agentId}: {p.decision} ({p.strategy})
                      <Show when={p.targetKey}>{(k) => <span class="mono"> {k()}</span>}</Show>
                      <Show when={p.after}>
                        {(a) => <ins class="preview">{describe(a())}</ins>}
                      </Show>
                      <Show when={p.reason}>{(r) => <div class="muted">{r()}</div>}</Show>
                    </li>
                  )}
                </For>
              </ul>
            </Show>
          </div>
        )}
      </Show>
      <ErrorNote error={action.error()} />
    </div>
  )
}

function ReviewQueue() {
  const proposals = createData(() => getProposals())
  return (
    <ListCard
      title="Review queue"
      note="Learned changes held for an agent under review. Approve applies one now, if its target still holds what it held when the change was proposed; Reject discards it."
      label="Proposals"
      error={proposals.error()}
      items={proposals.data()?.proposals}
      empty="Nothing is waiting for review."
      columns={['When', 'Target', 'Change', 'Before → after', 'Evidence', 'Actions']}
      row={(p) => <ProposalRow proposal={p} />}
    />
  )
}

function ProposalRow(props: { proposal: EvolutionProposal }) {
  const action = createSubmission()
  const p = () => props.proposal
  return (
    <tr>
      <td class="hide-narrow">{when(p().createdAt)}</td>
      <TargetCell kind={p().targetKind} targetKey={p().targetKey} />
      <td>
        {p().strategy}
        <div class="muted">{p().rationale}</div>
      </td>
      <DiffCell id={p().id} before={p().before} after={p().after} />
      <td>
        <pre class="evidence">{p().evidence}</pre>
        <TraceLinks traceIds={p().traceIds} />
      </td>
      <td>
        <button
          type="button"
          aria-label={`Approve ${p().id}`}
          disabled={action.busy()}
          onClick={() => void action.run(() => approveProposal(p().id))}
        >
          Approve
        </button>
        <button
          type="button"
          class="secondary"
          aria-label={`Reject ${p().id}`}
          disabled={action.busy()}
          onClick={() => void action.run(() => rejectProposal(p().id))}
        >
          Reject
        </button>
        <ErrorNote error={action.error()} />
      </td>
    </tr>
  )
}

function Signals() {
  const signals = createData(() => getSignals())
  return (
    <ListCard
      title="Signals"
      label="Signals"
      error={signals.error()}
      items={signals.data()?.signals}
      empty="No signals yet: failed tasks, stops and thumbs-down show here."
      columns={['When', 'Agent', 'Kind', 'Seen', 'Status', 'Evidence', 'Actions']}
      row={(s) => <SignalRow signal={s} />}
    />
  )
}

function SignalRow(props: { signal: EvolutionSignal }) {
  const action = createSubmission()
  const s = () => props.signal
  return (
    <tr>
      <td class="hide-narrow">{when(s().createdAt)}</td>
      <td>{s().agentId}</td>
      <td>
        {s().kind}
        <div class="muted">{s().failureClass}</div>
      </td>
      <td>
        {s().occurrences}× <TraceLinks traceIds={s().traceIds} />
      </td>
      <td>
        {s().status}
        <Show when={s().outcome ?? s().lastError}>{(o) => <div class="muted">{o()}</div>}</Show>
      </td>
      <td>
        <pre class="evidence">{s().evidence}</pre>
      </td>
      <td>
        <Show when={s().status === 'pending' || s().status === 'dead'}>
          <button
            type="button"
            class="secondary"
            aria-label={`Ignore signal ${s().id}`}
            disabled={action.busy()}
            onClick={() => void action.run(() => ignoreSignal(s().id))}
          >
            Ignore
          </button>
        </Show>
        <Show when={s().status === 'dead'}>
          <button
            type="button"
            aria-label={`Retry signal ${s().id}`}
            disabled={action.busy()}
            onClick={() => void action.run(() => retrySignal(s().id))}
          >
            Retry
          </button>
        </Show>
        <ErrorNote error={action.error()} />
      </td>
    </tr>
  )
}

function Revisions() {
  const revisions = createData(() => getRevisions())
  return (
    <ListCard
      title="Revisions"
      note="Every learned change, newest first. Revert appends a compensating revision; it applies only while the target still holds what the revision wrote. A change after which the agent failed more often is reverted by evolution itself, saying why."
      label="Revisions"
      error={revisions.error()}
      items={revisions.data()?.revisions}
      empty="No learned changes yet."
      columns={['When', 'Target', 'Change', 'Before → after', 'Evidence', 'Actions']}
      row={(r) => <RevisionRow revision={r} />}
    />
  )
}

function RevisionRow(props: { revision: EvolutionRevision }) {
  const r = () => props.revision
  return (
    <tr>
      <td class="hide-narrow">{when(r().createdAt)}</td>
      <TargetCell kind={r().targetKind} targetKey={r().targetKey} />
      <td>
        {r().op} ({r().strategy})
        <Show when={r().revertsRevisionId}>{(id) => <div class="muted">reverts {id()}</div>}</Show>
        <Show when={r().revertedBy}>{(id) => <div class="muted">reverted by {id()}</div>}</Show>
        <Show when={r().measured}>
          {(m) => (
            <div class="muted" aria-label={`Outcome of ${r().id}`}>
              {m().classes.join(', ')}: {m().failuresBefore} of {m().runsBefore} runs failed before,{' '}
              {m().failuresAfter} of {m().runsAfter} after
              {m().runsAfter < m().window ? ` (measured at ${m().window})` : ''}
            </div>
          )}
        </Show>
      </td>
      <DiffCell id={r().id} before={r().before} after={r().after} />
      <td>
        <div class="muted">{r().rationale}</div>
        <TraceLinks traceIds={r().traceIds} />
      </td>
      <td>
        <Show when={!r().revertedBy}>
          <ConfirmAction
            label="Revert"
            name={`Revert ${r().id}`}
            question="Put back what was there before this change?"
            confirmLabel="Revert"
            onConfirm={() => revertRevision(r().id)}
          />
        </Show>
      </td>
    </tr>
  )
}
