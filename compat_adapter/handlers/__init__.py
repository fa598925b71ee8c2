"""Every handler kind a vendor may write, run here: ``command`` (shell or exec form), ``http``,
``mcp_tool``, ``prompt`` and ``agent``; and the handler fields that decide whether and how one runs
(``if``, ``async``/``asyncRewake``, ``once``, ``shell``, ``statusMessage``).

:func:`compat_adapter.handlers.run.run_handler` is the one entry the dispatch loop calls; every kind
reports a :class:`~compat_adapter.runtime.process.ProcessOutcome`, so the vendors' dialects decode
all of them by the same rules. :mod:`compat_adapter.handlers.grade` says what each kind and field
loses here.
"""
