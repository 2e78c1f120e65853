"""Session-log ingest: streaming readers for harness, L0 and chat logs, and the pipeline into the warehouse."""
