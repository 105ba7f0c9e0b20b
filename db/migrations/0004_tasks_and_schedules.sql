CREATE TABLE "popagent_agent_schedule_fires" (
	"schedule_id" text NOT NULL,
	"occurrence_at" timestamp with time zone NOT NULL,
	"task_id" text NOT NULL,
	"fired_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "popagent_agent_schedules" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"workspace_id" text NOT NULL,
	"name" text NOT NULL,
	"cron" text NOT NULL,
	"prompt" text NOT NULL,
	"model" text,
	"enabled" boolean DEFAULT true NOT NULL,
	"max_attempts" integer DEFAULT 3 NOT NULL,
	"next_run_at" timestamp with time zone,
	"last_fired_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_agent_schedules_source" CHECK ("popagent_agent_schedules"."source" in ('user', 'self-update', 'build-maintenance')),
	CONSTRAINT "popagent_agent_schedules_max_attempts" CHECK ("popagent_agent_schedules"."max_attempts" between 1 and 100)
);
--> statement-breakpoint
CREATE TABLE "popagent_agent_task_activity" (
	"id" bigint PRIMARY KEY GENERATED ALWAYS AS IDENTITY (sequence name "popagent_agent_task_activity_id_seq" INCREMENT BY 1 MINVALUE 1 MAXVALUE 9223372036854775807 START WITH 1 CACHE 1),
	"task_id" text NOT NULL,
	"attempt" integer NOT NULL,
	"record" jsonb NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "popagent_agent_tasks" (
	"id" text PRIMARY KEY NOT NULL,
	"source" text NOT NULL,
	"kind" text DEFAULT 'agent' NOT NULL,
	"workspace_id" text NOT NULL,
	"session_id" text,
	"schedule_id" text,
	"occurrence_at" timestamp with time zone,
	"parent_task_id" text,
	"title" text NOT NULL,
	"prompt" text NOT NULL,
	"model" text,
	"state" text DEFAULT 'queued' NOT NULL,
	"attempt_count" integer DEFAULT 0 NOT NULL,
	"max_attempts" integer DEFAULT 3 NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_error_class" text,
	"last_error" text,
	"dead_lettered_at" timestamp with time zone,
	"result" text,
	"resolution_evidence" text,
	"resolved_at" timestamp with time zone,
	"claimed_by" text,
	"claimed_at" timestamp with time zone,
	"heartbeat_at" timestamp with time zone,
	"finished_at" timestamp with time zone,
	"turn_id" text,
	"trace_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_agent_tasks_source" CHECK ("popagent_agent_tasks"."source" in ('user', 'self-update', 'build-maintenance')),
	CONSTRAINT "popagent_agent_tasks_state" CHECK ("popagent_agent_tasks"."state" in ('queued', 'running', 'cancelling', 'completed', 'failed', 'cancelled', 'dead-letter')),
	CONSTRAINT "popagent_agent_tasks_kind" CHECK ("popagent_agent_tasks"."kind" in ('agent', 'remediation')),
	CONSTRAINT "popagent_agent_tasks_attempts" CHECK ("popagent_agent_tasks"."attempt_count" >= 0),
	CONSTRAINT "popagent_agent_tasks_max_attempts" CHECK ("popagent_agent_tasks"."max_attempts" between 1 and 100)
);
--> statement-breakpoint
ALTER TABLE "popagent_agent_schedule_fires" ADD CONSTRAINT "popagent_agent_schedule_fires_schedule_id_popagent_agent_schedules_id_fk" FOREIGN KEY ("schedule_id") REFERENCES "public"."popagent_agent_schedules"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_agent_schedules" ADD CONSTRAINT "popagent_agent_schedules_workspace_id_popagent_agent_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."popagent_agent_workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_agent_task_activity" ADD CONSTRAINT "popagent_agent_task_activity_task_id_popagent_agent_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."popagent_agent_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_agent_tasks" ADD CONSTRAINT "popagent_agent_tasks_workspace_id_popagent_agent_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."popagent_agent_workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_agent_tasks" ADD CONSTRAINT "popagent_agent_tasks_session_id_popagent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_agent_schedule_fires_pk" ON "popagent_agent_schedule_fires" USING btree ("schedule_id","occurrence_at");--> statement-breakpoint
CREATE INDEX "popagent_agent_schedules_due_idx" ON "popagent_agent_schedules" USING btree ("next_run_at") WHERE "popagent_agent_schedules"."enabled";--> statement-breakpoint
CREATE INDEX "popagent_agent_task_activity_task_idx" ON "popagent_agent_task_activity" USING btree ("task_id","id");--> statement-breakpoint
CREATE INDEX "popagent_agent_tasks_due_idx" ON "popagent_agent_tasks" USING btree ("next_attempt_at","created_at") WHERE "popagent_agent_tasks"."state" = 'queued';--> statement-breakpoint
CREATE INDEX "popagent_agent_tasks_active_idx" ON "popagent_agent_tasks" USING btree ("heartbeat_at") WHERE "popagent_agent_tasks"."state" in ('running', 'cancelling');--> statement-breakpoint
CREATE INDEX "popagent_agent_tasks_list_idx" ON "popagent_agent_tasks" USING btree ("created_at");--> statement-breakpoint
CREATE INDEX "popagent_agent_tasks_workspace_idx" ON "popagent_agent_tasks" USING btree ("workspace_id","created_at");--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_agent_tasks_remediation_parent_idx" ON "popagent_agent_tasks" USING btree ("parent_task_id") WHERE "popagent_agent_tasks"."kind" = 'remediation';