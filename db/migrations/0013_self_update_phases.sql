-- Self-update (issue 24). Each attempt's workflow phases with their parsed output or error, the
-- evidence `GET /api/tasks/:id/workflow`, the task page and remediation read. One row per phase
-- of an attempt; a task's rows go with it.
CREATE TABLE "popagent_task_phases" (
	"task_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"phase" text NOT NULL,
	"state" text NOT NULL,
	"output" jsonb,
	"error" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	CONSTRAINT "popagent_task_phases_pk" PRIMARY KEY("task_id","attempt","phase"),
	CONSTRAINT "popagent_task_phases_phase" CHECK ("popagent_task_phases"."phase" in ('prepare', 'research', 'decide', 'implement', 'inspect-change', 'verify', 'review', 'commit')),
	CONSTRAINT "popagent_task_phases_state" CHECK ("popagent_task_phases"."state" in ('running', 'completed', 'failed', 'skipped'))
);
--> statement-breakpoint
ALTER TABLE "popagent_task_phases" ADD CONSTRAINT "popagent_task_phases_task_id_popagent_agent_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."popagent_agent_tasks"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
-- At most one self-update task is queued, running or cancelling across every host: the database
-- decides, not a process's memory. A second insert fails with 23505 (AUTONOMOUS_TASK_ACTIVE); a
-- retry stays `queued` and keeps the slot; a remediation is inserted after its parent failed.
CREATE UNIQUE INDEX "popagent_agent_tasks_one_autonomous" ON "popagent_agent_tasks" USING btree ((true)) WHERE "popagent_agent_tasks"."source" = 'self-update' and "popagent_agent_tasks"."state" in ('queued', 'running', 'cancelling');
--> statement-breakpoint
-- One system self-update schedule per workspace, which reconcile inserts with ON CONFLICT DO NOTHING.
CREATE UNIQUE INDEX "popagent_agent_schedules_one_self_update" ON "popagent_agent_schedules" USING btree ("workspace_id") WHERE "popagent_agent_schedules"."source" = 'self-update';
