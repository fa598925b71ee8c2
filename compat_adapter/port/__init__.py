"""``port``: a team's hooks written into another agent's own files, run there through that agent's
host face (:mod:`compat_adapter.hostface`) by the shim (:mod:`compat_adapter.port.shim`).

:mod:`~compat_adapter.port.plan` reads the project and grades every hook against the target,
:mod:`~compat_adapter.port.files` writes, checks and removes the target's files.
"""
