"""Sensitivity as a usage permission: the rules for pages and their application to raw evidence."""
