-- Project documentation (W7): each workspace's Markdown documents, the chunks search ranks
-- (full text in English, headings included), and the vector leg, created only where pgvector is
-- available so a server without it still gets full-text search.
CREATE TABLE "popagent_doc_chunks" (
	"id" text PRIMARY KEY NOT NULL,
	"doc_id" text NOT NULL,
	"workspace_id" text NOT NULL,
	"ordinal" integer NOT NULL,
	"heading_path" text NOT NULL,
	"content" text NOT NULL,
	"tsv" "tsvector" GENERATED ALWAYS AS (to_tsvector('english', heading_path || ' ' || content)) STORED
);
--> statement-breakpoint
CREATE TABLE "popagent_docs" (
	"id" text PRIMARY KEY NOT NULL,
	"workspace_id" text NOT NULL,
	"slug" text NOT NULL,
	"title" text NOT NULL,
	"body" text NOT NULL,
	"source" text NOT NULL,
	"source_path" text,
	"content_sha256" text NOT NULL,
	"index_state" text DEFAULT 'pending' NOT NULL,
	"index_error" text,
	"indexed_sha256" text,
	"chunk_count" integer DEFAULT 0 NOT NULL,
	"created_at" timestamp with time zone DEFAULT now() NOT NULL,
	"updated_at" timestamp with time zone DEFAULT now() NOT NULL,
	CONSTRAINT "popagent_docs_source" CHECK ("popagent_docs"."source" in ('written', 'imported')),
	CONSTRAINT "popagent_docs_index_state" CHECK ("popagent_docs"."index_state" in ('pending', 'indexing', 'indexed', 'failed')),
	CONSTRAINT "popagent_docs_slug_shape" CHECK ("popagent_docs"."slug" ~ '^[a-z0-9][a-z0-9._-]*(/[a-z0-9][a-z0-9._-]*)*$'),
	CONSTRAINT "popagent_docs_body_length" CHECK (char_length("popagent_docs"."body") <= 200000)
);
--> statement-breakpoint
ALTER TABLE "popagent_doc_chunks" ADD CONSTRAINT "popagent_doc_chunks_doc_id_popagent_docs_id_fk" FOREIGN KEY ("doc_id") REFERENCES "public"."popagent_docs"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
ALTER TABLE "popagent_docs" ADD CONSTRAINT "popagent_docs_workspace_id_popagent_agent_workspaces_id_fk" FOREIGN KEY ("workspace_id") REFERENCES "public"."popagent_agent_workspaces"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
CREATE INDEX "popagent_doc_chunks_tsv_idx" ON "popagent_doc_chunks" USING gin ("tsv");--> statement-breakpoint
CREATE INDEX "popagent_doc_chunks_workspace_idx" ON "popagent_doc_chunks" USING btree ("workspace_id");--> statement-breakpoint
CREATE INDEX "popagent_doc_chunks_doc_idx" ON "popagent_doc_chunks" USING btree ("doc_id","ordinal");--> statement-breakpoint
CREATE UNIQUE INDEX "popagent_docs_workspace_slug_idx" ON "popagent_docs" USING btree ("workspace_id","slug");--> statement-breakpoint
CREATE INDEX "popagent_docs_index_state_idx" ON "popagent_docs" USING btree ("index_state");
--> statement-breakpoint
-- One vector per chunk and embedding model. No fixed dimension: a model change is a re-embed, not
-- a migration, and a chunk is only ever compared with query vectors of its own model.
DO $$
BEGIN
	IF EXISTS (SELECT 1 FROM pg_available_extensions WHERE name = 'vector') THEN
		CREATE EXTENSION IF NOT EXISTS vector;
		CREATE TABLE "popagent_doc_vectors" (
			"chunk_id" text NOT NULL REFERENCES "popagent_doc_chunks"("id") ON DELETE CASCADE,
			"model" text NOT NULL,
			"embedding" vector NOT NULL,
			PRIMARY KEY ("chunk_id", "model")
		);
	END IF;
END $$;
