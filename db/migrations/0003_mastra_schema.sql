-- Mastra's memory tables live in their own schema. Mastra creates it too, but remembers per process that it did, so a second database opened in the same process would miss it.
CREATE SCHEMA IF NOT EXISTS "mastra";
