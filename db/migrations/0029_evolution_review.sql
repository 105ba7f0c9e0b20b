-- Evolution's review queue (issue 39): per agent (and a global default), learned changes are
-- either applied by the worker or held as proposals the owner approves or rejects. A held
-- proposal keeps its evidence, strategy and the before/after it would write; approval applies it
-- through the same transaction as the worker's (policy re-read, gates, daily limit) and only
-- while the target still holds what it held when the proposal was made.
ALTER TABLE "popagent_evolution_policies" ADD COLUMN "review" boolean;--> statement-breakpoint
ALTER TABLE "popagent_evolution_policies" ALTER COLUMN "enabled" SET DEFAULT true;--> statement-breakpoint
CREATE TABLE "popagent_evolution_defaults" (
	"id" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"review" boolean DEFAULT false NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_evolution_defaults_singleton" CHECK ("popagent_evolution_defaults"."id")
);--> statement-breakpoint
INSERT INTO "popagent_evolution_defaults" ("id") VALUES (true) ON CONFLICT DO NOTHING;--> statement-breakpoint
CREATE TABLE "popagent_evolution_proposals" (
	"id" text PRIMARY KEY NOT NULL,
	"agent_id" text NOT NULL REFERENCES "popagent_agents"("id") ON DELETE CASCADE,
	"target_kind" text NOT NULL,
	"target_key" text NOT NULL,
	"strategy" text NOT NULL,
	"before" jsonb,
	"after" jsonb,
	"before_sha256" text NOT NULL,
	"decision_key" text NOT NULL,
	"signal_ids" text[] NOT NULL,
	"trace_ids" text[] NOT NULL,
	"session_id" text,
	"evidence" text NOT NULL,
	"rationale" text NOT NULL,
	"status" text DEFAULT 'pending' NOT NULL,
	"revision_id" text,
	"decided_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_evolution_proposals_kind" CHECK ("popagent_evolution_proposals"."target_kind" in ('overlay', 'fact', 'skill')),
	CONSTRAINT "popagent_evolution_proposals_status" CHECK ("popagent_evolution_proposals"."status" in ('pending', 'approved', 'rejected'))
);--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_evolution_proposals_decision" ON "popagent_evolution_proposals" USING btree ("decision_key");--> statement-breakpoint
CREATE INDEX "popagent_evolution_proposals_status_idx" ON "popagent_evolution_proposals" USING btree ("status", "created_at");
