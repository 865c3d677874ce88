"""Reviewing whole configurations: scenario files, before/after diffs, reports, sessions.

A layer above the engine and the tool-call probe: each module here asks the engine many
questions about one or two configurations and gathers the answers for a reviewer.
Importing this package imports none of its modules.
"""
