-- The secrets vault (X4): values stored only as AES-256-GCM ciphertext bound to their row (the
-- key never reaches the database), and the bindings that say where each value may go. Hooks (X3):
-- their definitions (no hook file on disk ever runs) and the audit row of every hook run.
CREATE TABLE "popagent_secret_bindings" (
	"id" text PRIMARY KEY NOT NULL,
	"secret_id" text NOT NULL,
	"kind" text NOT NULL,
	"target" text NOT NULL,
	"env_name" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_secret_bindings_kind" CHECK ("popagent_secret_bindings"."kind" in ('origin', 'hook_env')),
	CONSTRAINT "popagent_secret_bindings_env_name" CHECK (("popagent_secret_bindings"."kind" = 'hook_env') = ("popagent_secret_bindings"."env_name" is not null))
);
--> statement-breakpoint
CREATE TABLE "popagent_secrets" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"version" integer NOT NULL,
	"key_id" text NOT NULL,
	"nonce" text NOT NULL,
	"ciphertext" text NOT NULL,
	"fingerprint" text NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_secrets_version_positive" CHECK ("popagent_secrets"."version" >= 1)
);
--> statement-breakpoint
CREATE TABLE "popagent_hook_runs" (
	"id" text PRIMARY KEY NOT NULL,
	"hook_id" text NOT NULL,
	"hook_name" text NOT NULL,
	"event" text NOT NULL,
	"session_id" text,
	"task_id" text,
	"run_id" text,
	"tool_name" text,
	"outcome" text NOT NULL,
	"failure" text,
	"reason" text,
	"context" text,
	"input_sha256" text NOT NULL,
	"input_preview" text NOT NULL,
	"output_preview" text,
	"started_at" timestamp with time zone DEFAULT now() NOT NULL,
	"finished_at" timestamp with time zone,
	"duration_ms" integer,
	CONSTRAINT "popagent_hook_runs_outcome" CHECK ("popagent_hook_runs"."outcome" in ('running', 'allow', 'deny', 'failed'))
);
--> statement-breakpoint
CREATE TABLE "popagent_hooks" (
	"id" text PRIMARY KEY NOT NULL,
	"name" text NOT NULL,
	"event" text NOT NULL,
	"matcher" text NOT NULL,
	"kind" text NOT NULL,
	"command" jsonb,
	"url" text,
	"allow_loopback" boolean NOT NULL,
	"timeout_ms" integer NOT NULL,
	"priority" integer NOT NULL,
	"enabled" boolean NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_hooks_kind" CHECK ("popagent_hooks"."kind" in ('command', 'http')),
	CONSTRAINT "popagent_hooks_target" CHECK (("popagent_hooks"."kind" = 'command' and "popagent_hooks"."command" is not null and "popagent_hooks"."url" is null) or ("popagent_hooks"."kind" = 'http' and "popagent_hooks"."url" is not null and "popagent_hooks"."command" is null)),
	CONSTRAINT "popagent_hooks_timeout" CHECK ("popagent_hooks"."timeout_ms" between 100 and 120000)
);
--> statement-breakpoint
ALTER TABLE "popagent_secret_bindings" ADD CONSTRAINT "popagent_secret_bindings_secret_id_popagent_secrets_id_fk" FOREIGN KEY ("secret_id") REFERENCES "public"."popagent_secrets"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_secret_bindings_target_idx" ON "popagent_secret_bindings" USING btree ("secret_id","kind","target");--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_secrets_name_idx" ON "popagent_secrets" USING btree ("name");--> statement-breakpoint
CREATE INDEX "popagent_secrets_key_idx" ON "popagent_secrets" USING btree ("key_id");--> statement-breakpoint
CREATE INDEX "popagent_hook_runs_session_idx" ON "popagent_hook_runs" USING btree ("session_id","started_at");--> statement-breakpoint
CREATE INDEX "popagent_hook_runs_task_idx" ON "popagent_hook_runs" USING btree ("task_id","started_at");--> statement-breakpoint
CREATE INDEX "popagent_hooks_event_idx" ON "popagent_hooks" USING btree ("event");