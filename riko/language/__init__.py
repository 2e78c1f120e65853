"""The language floor: word classes and statement wording shared by Dream and review.

Nothing here knows about scopes, stores or pages: :mod:`riko.language.lexicon` holds every
word class as data (English and Chinese), :mod:`riko.language.statement` turns a speaker's
clause into a statement that reads alone. Dream and review build their patterns from these;
this package imports nothing from riko above it.
"""
