-- Browser sessions (issue 37): one per chat session or task on the owner's browser MCP server,
-- with who controls it (the agent, or the owner during a takeover) and why it closed. And the
-- owner's browser opt-ins (script evaluation, credential readers, an upload folder), off by
-- default.
CREATE TABLE "popagent_browser_sessions" (
	"id" text PRIMARY KEY NOT NULL,
	"chat_session_id" text,
	"task_id" text,
	"mcp_session_id" text,
	"controller" text DEFAULT 'agent' NOT NULL,
	"call_count" integer DEFAULT 0 NOT NULL,
	"last_operation" text,
	"opened_at" timestamp with time zone DEFAULT now() NOT NULL,
	"last_call_at" timestamp with time zone,
	"closed_at" timestamp with time zone,
	"close_reason" text,
	CONSTRAINT "popagent_browser_sessions_owner" CHECK (("popagent_browser_sessions"."chat_session_id" is null) <> ("popagent_browser_sessions"."task_id" is null)),
	CONSTRAINT "popagent_browser_sessions_controller" CHECK ("popagent_browser_sessions"."controller" in ('agent', 'human'))
);
--> statement-breakpoint
ALTER TABLE "popagent_browser_sessions" ADD CONSTRAINT "popagent_browser_sessions_chat_session_id_popagent_sessions_id_fk" FOREIGN KEY ("chat_session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_browser_sessions" ADD CONSTRAINT "popagent_browser_sessions_task_id_popagent_agent_tasks_id_fk" FOREIGN KEY ("task_id") REFERENCES "public"."popagent_agent_tasks"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_browser_sessions_open_chat" ON "popagent_browser_sessions" USING btree ("chat_session_id") WHERE "popagent_browser_sessions"."closed_at" is null;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_browser_sessions_open_task" ON "popagent_browser_sessions" USING btree ("task_id") WHERE "popagent_browser_sessions"."closed_at" is null;--> statement-breakpoint
CREATE INDEX "popagent_browser_sessions_opened_idx" ON "popagent_browser_sessions" USING btree ("opened_at");--> statement-breakpoint
ALTER TABLE "popagent_browser_settings" ADD COLUMN "allow_script_evaluation" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "popagent_browser_settings" ADD COLUMN "allow_credential_readers" boolean DEFAULT false NOT NULL;--> statement-breakpoint
ALTER TABLE "popagent_browser_settings" ADD COLUMN "upload_folder" text DEFAULT '' NOT NULL;
