"""The ``riko`` command line: one module per command family, :mod:`riko.cli.main` parses and dispatches."""
