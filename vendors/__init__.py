"""The vendor tables and the host surface they were written against. Data only.

``vendors.tables.VENDORS`` holds the five tables (``vendors/claude.py`` …); ``vendors.surface`` the
surface. This file imports neither, so that reading the surface does not build every table row.
A test over the syntax tree keeps every module here free of `def`, `class`, I/O and host imports.
"""
