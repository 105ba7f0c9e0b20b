-- Long-term memories and cross-session recall (X1, X2): memories with provenance and keyed facts
-- that supersede without overwriting, the recall items full-text search ranks, the memory settings
-- recall reads, a trigger that keeps agents and automatic processes off the owner's memories, and
-- the vector table, created only where pgvector is available.
CREATE TABLE "popagent_memories" (
	"id" text PRIMARY KEY NOT NULL,
	"owner" text NOT NULL,
	"agent_id" text,
	"key" text,
	"content" text NOT NULL,
	"session_id" text,
	"turn_id" text,
	"task_id" text,
	"superseded_by" text,
	"superseded_at" timestamp with time zone,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_memories_owner" CHECK ("popagent_memories"."owner" in ('user', 'agent', 'evolution')),
	CONSTRAINT "popagent_memories_content_length" CHECK (char_length("popagent_memories"."content") between 1 and 2000),
	CONSTRAINT "popagent_memories_key_shape" CHECK (case "popagent_memories"."owner"
        when 'user' then "popagent_memories"."key" is null and "popagent_memories"."agent_id" is null
        when 'agent' then "popagent_memories"."agent_id" is not null and "popagent_memories"."key" ~ '^[a-z0-9][a-z0-9._-]{0,127}$'
        else "popagent_memories"."key" ~ '^evolution\.[a-z0-9-]{1,64}\.[a-z0-9][a-z0-9._-]{0,127}$' and split_part("popagent_memories"."key", '.', 2) = "popagent_memories"."agent_id"
      end)
);
--> statement-breakpoint
CREATE TABLE "popagent_recall_items" (
	"id" text PRIMARY KEY NOT NULL,
	"kind" text NOT NULL,
	"session_id" text,
	"memory_id" text,
	"turn_id" text,
	"content" text NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('simple', content)) STORED,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_recall_items_kind" CHECK ("popagent_recall_items"."kind" in ('user_memory', 'agent_fact', 'message_span'))
);
--> statement-breakpoint
ALTER TABLE "popagent_memory_settings" ADD COLUMN "recall_enabled" boolean DEFAULT true NOT NULL;--> statement-breakpoint
ALTER TABLE "popagent_memory_settings" ADD COLUMN "recall_budget_tokens" integer DEFAULT 1500 NOT NULL;--> statement-breakpoint
ALTER TABLE "popagent_memory_settings" ADD COLUMN "embedding_model" text;--> statement-breakpoint
ALTER TABLE "popagent_memory_settings" ADD COLUMN "fact_retention_days" integer;--> statement-breakpoint
ALTER TABLE "popagent_memories" ADD CONSTRAINT "popagent_memories_session_id_popagent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE set null ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_recall_items" ADD CONSTRAINT "popagent_recall_items_session_id_popagent_sessions_id_fk" FOREIGN KEY ("session_id") REFERENCES "public"."popagent_sessions"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_recall_items" ADD CONSTRAINT "popagent_recall_items_memory_id_popagent_memories_id_fk" FOREIGN KEY ("memory_id") REFERENCES "public"."popagent_memories"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_memories_live_key_idx" ON "popagent_memories" USING btree ("owner","agent_id","key") WHERE "popagent_memories"."superseded_at" is null and "popagent_memories"."key" is not null;--> statement-breakpoint
CREATE INDEX "popagent_memories_list_idx" ON "popagent_memories" USING btree ("owner","created_at");--> statement-breakpoint
CREATE INDEX "popagent_memories_session_idx" ON "popagent_memories" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "popagent_recall_items_tsv_idx" ON "popagent_recall_items" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "popagent_recall_items_session_idx" ON "popagent_recall_items" USING btree ("session_id");--> statement-breakpoint
CREATE INDEX "popagent_recall_items_memory_idx" ON "popagent_recall_items" USING btree ("memory_id");--> statement-breakpoint
-- Defence in depth for the rule runtime/memories/ enforces: a writer that says it is an agent or
-- an automatic process (`set_config('popagent.actor', …, true)`) can never change or delete a
-- memory the owner wrote, whatever code path it took.
CREATE FUNCTION "popagent_memories_protect_user"() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
	IF OLD.owner = 'user' AND coalesce(current_setting('popagent.actor', true), '') IN ('agent', 'evolution', 'retention') THEN
		RAISE EXCEPTION 'a memory the user wrote cannot be changed by %', current_setting('popagent.actor', true)
			USING ERRCODE = 'P0001', HINT = 'popagent_user_memory';
	END IF;
	IF TG_OP = 'DELETE' THEN RETURN OLD; END IF;
	RETURN NEW;
END $$;
--> statement-breakpoint
CREATE TRIGGER "popagent_memories_protect_user" BEFORE UPDATE OR DELETE ON "popagent_memories"
	FOR EACH ROW EXECUTE FUNCTION "popagent_memories_protect_user"();
--> statement-breakpoint
-- The vector leg of recall. Optional: a server without pgvector gets full-text recall only. The
-- column has no fixed dimension so a model change is a re-embed, not a migration; rows of each
-- model are compared only with that model's query vectors.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
		CREATE EXTENSION IF NOT EXISTS vector;
		CREATE TABLE "popagent_recall_vectors" (
			"item_id" text NOT NULL REFERENCES "popagent_recall_items"("id") ON DELETE CASCADE,
			"model" text NOT NULL,
			"embedding" vector NOT NULL,
			PRIMARY KEY ("item_id", "model")
		);
		CREATE INDEX "popagent_recall_vectors_model_idx" ON "popagent_recall_vectors" ("model");
	END IF;
END $$;
