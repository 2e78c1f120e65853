"""Review: the candidate state machine, the authority rules, corrections, conflicts and governance links."""
