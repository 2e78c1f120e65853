"""The L3 Resident: its compiler, its stored snapshot and the page index block."""
