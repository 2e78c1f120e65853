"""Stores that own their SQL: one small module per record family, typed functions over a Warehouse."""
