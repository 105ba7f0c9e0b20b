-- AkurAI Build maintenance (issue 40): `build-maintenance` tasks share the autonomous lease with
-- self-update (one such task queued, running or cancelling across all hosts), record their
-- evidence in rows of their own, and the self-update workflow gains a `deploy` phase that is
-- written only while deployment is on in the autonomy settings.
DROP INDEX IF EXISTS "popagent_agent_tasks_one_autonomous";--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_agent_tasks_one_autonomous" ON "popagent_agent_tasks" USING btree ((true)) WHERE "popagent_agent_tasks"."source" in ('self-update', 'build-maintenance') and "popagent_agent_tasks"."state" in ('queued', 'running', 'cancelling');--> statement-breakpoint
ALTER TABLE "popagent_task_phases" DROP CONSTRAINT "popagent_task_phases_phase";--> statement-breakpoint
ALTER TABLE "popagent_task_phases" ADD CONSTRAINT "popagent_task_phases_phase" CHECK ("popagent_task_phases"."phase" in ('prepare', 'research', 'decide', 'implement', 'inspect-change', 'verify', 'review', 'commit', 'deploy'));--> statement-breakpoint
CREATE TABLE "popagent_task_build_evidence" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "popagent_task_build_evidence_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"task_id" text NOT NULL REFERENCES "popagent_agent_tasks"("id") ON DELETE CASCADE,
	"attempt" integer NOT NULL,
	"kind" text NOT NULL,
	"reference" text NOT NULL,
	"operation" text,
	"detail" jsonb,
	"recorded_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_task_build_evidence_kind" CHECK ("popagent_task_build_evidence"."kind" in ('checkout', 'delegation', 'branch', 'ci-run', 'issue', 'comment', 'commit'))
);--> statement-breakpoint
CREATE INDEX "popagent_task_build_evidence_task_idx" ON "popagent_task_build_evidence" USING btree ("task_id","id");
