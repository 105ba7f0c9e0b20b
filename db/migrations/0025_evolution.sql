-- Agent evolution (issue 39): what went wrong (signals), what was learned (overlays, kept apart
-- from the owner's instructions), every change as an append-only revision, and a per-agent
-- switch under the global one. `when` in the journal is hand-set after the migrations before it.
CREATE TABLE "popagent_evolution_signals" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"kind" text NOT NULL,
	"failure_class" text NOT NULL,
	"fingerprint" text NOT NULL,
	"trace_id" text NOT NULL,
	"trace_ids" text[] NOT NULL,
	"session_id" text,
	"evidence" text NOT NULL,
	"occurrences" integer DEFAULT 1 NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"claimed_by" text,
	"lease_expires_at" timestamp with time zone,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error" text,
	"outcome" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_evolution_signals_status" CHECK ("popagent_evolution_signals"."status" in ('pending', 'claimed', 'processed', 'ignored', 'dead')),
	CONSTRAINT "popagent_evolution_signals_trace" CHECK (char_length("popagent_evolution_signals"."trace_id") between 1 and 128),
	CONSTRAINT "popagent_evolution_signals_evidence" CHECK (char_length("popagent_evolution_signals"."evidence") between 1 and 1200)
);--> statement-breakpoint
-- One open signal per fingerprint: a repeat adds an occurrence and its trace to the open row.
CREATE UNIQUE INDEX "popagent_evolution_signals_open_fingerprint" ON "popagent_evolution_signals" USING btree ("fingerprint") WHERE "popagent_evolution_signals"."status" in ('pending', 'claimed');--> statement-breakpoint
CREATE INDEX "popagent_evolution_signals_due_idx" ON "popagent_evolution_signals" USING btree ("next_attempt_at") WHERE "popagent_evolution_signals"."status" = 'pending';--> statement-breakpoint
CREATE INDEX "popagent_evolution_signals_recent_idx" ON "popagent_evolution_signals" USING btree ("created_at");--> statement-breakpoint
CREATE TABLE "popagent_evolution_policies" (
	"agent_id" text PRIMARY KEY NOT NULL REFERENCES "popagent_agents"("id") ON DELETE CASCADE,
	"enabled" boolean NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);--> statement-breakpoint
CREATE TABLE "popagent_learned_overlays" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL REFERENCES "popagent_agents"("id") ON DELETE CASCADE,
	"catalog_id" text NOT NULL,
	"text" text NOT NULL,
	"state" text NOT NULL,
	"head_revision_id" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_learned_overlays_state" CHECK ("popagent_learned_overlays"."state" in ('active', 'retired')),
	CONSTRAINT "popagent_learned_overlays_text" CHECK (char_length("popagent_learned_overlays"."text") between 1 and 1000)
);--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_learned_overlays_agent_catalog" ON "popagent_learned_overlays" USING btree ("agent_id", "catalog_id");--> statement-breakpoint
CREATE TABLE "popagent_evolution_revisions" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL,
	"target_kind" text NOT NULL,
	"target_key" text NOT NULL,
	"op" text NOT NULL,
	"strategy" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"after_sha256" text NOT NULL,
	"reverts_revision_id" text,
	"decision_key" text,
	"signal_ids" text[] NOT NULL,
	"trace_ids" text[] NOT NULL,
	"evidence" text NOT NULL,
	"rationale" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_evolution_revisions_kind" CHECK ("popagent_evolution_revisions"."target_kind" in ('overlay', 'fact', 'skill')),
	CONSTRAINT "popagent_evolution_revisions_op" CHECK ("popagent_evolution_revisions"."op" in ('create', 'amend', 'retire', 'revert'))
);--> statement-breakpoint
-- At most one compensating revision per source revision; one applied decision per claimed batch.
CREATE UNIQUE INDEX "popagent_evolution_revisions_one_revert" ON "popagent_evolution_revisions" USING btree ("reverts_revision_id") WHERE "popagent_evolution_revisions"."reverts_revision_id" is not null;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_evolution_revisions_decision" ON "popagent_evolution_revisions" USING btree ("decision_key") WHERE "popagent_evolution_revisions"."decision_key" is not null;--> statement-breakpoint
CREATE INDEX "popagent_evolution_revisions_target_idx" ON "popagent_evolution_revisions" USING btree ("target_kind", "target_key", "created_at");--> statement-breakpoint
CREATE FUNCTION "popagent_evolution_revisions_append_only"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	RAISE EXCEPTION 'popagent_evolution_revisions is append-only: revert appends a compensating revision';
END $$;--> statement-breakpoint
CREATE TRIGGER "popagent_evolution_revisions_no_change" BEFORE UPDATE OR DELETE ON "popagent_evolution_revisions" FOR EACH ROW EXECUTE FUNCTION "popagent_evolution_revisions_append_only"();--> statement-breakpoint
CREATE TRIGGER "popagent_evolution_revisions_no_truncate" BEFORE TRUNCATE ON "popagent_evolution_revisions" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_evolution_revisions_append_only"();--> statement-breakpoint
-- Overlays are part of what a run reads: a change moves the host's configuration counter (0017).
CREATE TRIGGER "popagent_learned_overlays_config_version" AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON "popagent_learned_overlays" FOR EACH STATEMENT EXECUTE FUNCTION "popagent_bump_config_version"();
