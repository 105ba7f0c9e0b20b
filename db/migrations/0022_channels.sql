-- Chat channels (X6): the channels with their non-secret settings (secrets stay in the vault and
-- are only named here), the bindings of conversations to sessions, every inbound event once
-- (the unique external id is the dedupe), and the durable outbox of answer chunks.
CREATE TABLE "popagent_channels" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"name" text NOT NULL,
	"enabled" boolean NOT NULL,
	"workspace_id" text NOT NULL,
	"model" text,
	"settings" jsonb NOT NULL,
	"allowed_senders" jsonb NOT NULL,
	"secret_ids" jsonb NOT NULL,
	"state" text NOT NULL,
	"last_error" text,
	"poll_offset" integer,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_channels_kind" CHECK ("kind" in ('webhook', 'telegram', 'slack')),
	CONSTRAINT "popagent_channels_state" CHECK ("state" in ('ok', 'error'))
);
--> statement-breakpoint
ALTER TABLE "popagent_channels" ADD CONSTRAINT "popagent_channels_workspace_id_popagent_agent_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."popagent_agent_workspaces"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE TABLE "popagent_channel_bindings" (
	"id" text PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"conversation" text NOT NULL,
	"thread" text NOT NULL,
	"session_id" text,
	"blocked_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL
);
--> statement-breakpoint
ALTER TABLE "popagent_channel_bindings" ADD CONSTRAINT "popagent_channel_bindings_channel_id_popagent_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."popagent_channels"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "popagent_channel_bindings" ADD CONSTRAINT "popagent_channel_bindings_session_id_popagent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_channel_bindings_key" ON "popagent_channel_bindings" USING btree ("channel_id","conversation","thread");
--> statement-breakpoint
CREATE TABLE "popagent_channel_events" (
	"id" text PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"external_id" text NOT NULL,
	"binding_id" text,
	"sender" text,
	"kind" text NOT NULL,
	"summary" jsonb NOT NULL,
	"state" text NOT NULL,
	"detail" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_channel_events_state" CHECK ("state" in ('received', 'refused', 'running', 'done', 'failed', 'ignored'))
);
--> statement-breakpoint
ALTER TABLE "popagent_channel_events" ADD CONSTRAINT "popagent_channel_events_channel_id_popagent_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."popagent_channels"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "popagent_channel_events" ADD CONSTRAINT "popagent_channel_events_binding_id_popagent_channel_bindings_id_fk" FOREIGN KEY ("binding_id") REFERENCES "public"."popagent_channel_bindings"("id") ON DELETE set null ON UPDATE no action;
--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_channel_events_external" ON "popagent_channel_events" USING btree ("channel_id","external_id");
--> statement-breakpoint
CREATE INDEX "popagent_channel_events_recent" ON "popagent_channel_events" USING btree ("channel_id","created_at");
--> statement-breakpoint
CREATE TABLE "popagent_channel_outbox" (
	"id" bigserial PRIMARY KEY NOT NULL,
	"channel_id" text NOT NULL,
	"binding_id" text,
	"chat_key" text NOT NULL,
	"target" jsonb NOT NULL,
	"delivery_id" text NOT NULL,
	"seq" integer NOT NULL,
	"total" integer NOT NULL,
	"body" text NOT NULL,
	"buttons" jsonb,
	"state" text NOT NULL,
	"attempts" integer DEFAULT 0 NOT NULL,
	"pace_ms" integer NOT NULL,
	"next_attempt_at" timestamp with time zone DEFAULT now() NOT NULL,
	"lease_until" timestamp with time zone,
	"last_error" text,
	"external_id" text,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"sent_at" timestamp with time zone,
	CONSTRAINT "popagent_channel_outbox_state" CHECK ("state" in ('queued', 'sending', 'sent', 'failed', 'cancelled'))
);
--> statement-breakpoint
ALTER TABLE "popagent_channel_outbox" ADD CONSTRAINT "popagent_channel_outbox_channel_id_popagent_channels_id_fk" FOREIGN KEY ("channel_id") REFERENCES "public"."popagent_channels"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
ALTER TABLE "popagent_channel_outbox" ADD CONSTRAINT "popagent_channel_outbox_binding_id_popagent_channel_bindings_id_fk" FOREIGN KEY ("binding_id") REFERENCES "public"."popagent_channel_bindings"("id") ON DELETE cascade ON UPDATE no action;
--> statement-breakpoint
CREATE INDEX "popagent_channel_outbox_open" ON "popagent_channel_outbox" USING btree ("chat_key","id") WHERE "state" in ('queued', 'sending');
--> statement-breakpoint
CREATE INDEX "popagent_channel_outbox_sent" ON "popagent_channel_outbox" USING btree ("chat_key","sent_at");
--> statement-breakpoint
CREATE INDEX "popagent_channel_outbox_delivery" ON "popagent_channel_outbox" USING btree ("delivery_id","seq");
