CREATE TABLE "popagent_agent_workspaces" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"path" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_agent_workspaces_name_unique" UNIQUE("name")
);
--> statement-breakpoint
CREATE TABLE "popagent_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"title" text NOT NULL,
	"title_locked" boolean DEFAULT false NOT NULL,
	"messages" jsonb DEFAULT '[]'::jsonb NOT NULL,
	"revision" integer DEFAULT 0 NOT NULL,
	"archived_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_sessions_revision_nonnegative" CHECK ("popagent_sessions"."revision" >= 0)
);
--> statement-breakpoint
CREATE TABLE "popagent_data_migrations" (
	"name" text PRIMARY KEY NOT NULL,
	"applied_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
CREATE TABLE "popagent_agent_runtime_settings" (
	"singleton" boolean PRIMARY KEY DEFAULT true NOT NULL,
	"model_source" text NOT NULL,
	"configured_model" text NOT NULL,
	"local_model" text NOT NULL,
	"free_coding_model" text NOT NULL,
	"supervisor_max_steps" integer NOT NULL,
	"specialist_max_steps" integer NOT NULL,
	"tool_call_concurrency" integer NOT NULL,
	"processor_retries" integer NOT NULL,
	"final_response_feedback" text NOT NULL,
	"delegation_context_max_messages" integer NOT NULL,
	"delegation_context_max_chars" integer NOT NULL,
	"delegation_result_max_chars" integer NOT NULL,
	"delegation_failure_text" text NOT NULL,
	"delegation_truncation_text" text NOT NULL,
	"task_concurrency" integer NOT NULL,
	"task_poll_interval_ms" integer NOT NULL,
	"task_timeout_ms" integer NOT NULL,
	"task_abort_ack_ms" integer NOT NULL,
	"task_stale_after_ms" integer NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_agent_runtime_settings_singleton" CHECK ("popagent_agent_runtime_settings"."singleton"),
	CONSTRAINT "popagent_agent_runtime_settings_model_source" CHECK ("popagent_agent_runtime_settings"."model_source" in ('configured', 'local', 'free-coding-auto'))
);
--> statement-breakpoint
ALTER TABLE "popagent_sessions" ADD CONSTRAINT "popagent_sessions_workspace_id_popagent_agent_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."popagent_agent_workspaces"("id") ON DELETE no action ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "popagent_sessions_list_idx" ON "popagent_sessions" USING btree ("workspace_id","updated_at");--> statement-breakpoint
CREATE INDEX "popagent_sessions_updated_idx" ON "popagent_sessions" USING btree ("updated_at");