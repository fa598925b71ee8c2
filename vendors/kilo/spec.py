"""Kilo's table, derived from OpenCode's: Kilo is a fork of OpenCode whose plugins are OpenCode's
(the same ``Hooks`` interface, ``tool.execute.before``/``after``, a throw to deny), so its event rows,
tools and refusals are OpenCode's rows as they are; what differs is Kilo's own files and release.

Measured on ``kilo run`` 7.7.9 (the vendor lane's pin, ``vendors/kilo/lane.pin``): it reads
``kilo.json``/``kilo.jsonc`` and, as legacy names, ``opencode.json``/``opencode.jsonc``; its config
folders are ``.kilo`` and ``.kilocode`` (``.opencode`` is not loaded); the plugin files are
``{plugin,plugins}/*.{ts,js}`` inside them; the plugin API package is ``@kilocode/plugin``, which Kilo
npm-installs into every config folder at start.
"""

from __future__ import annotations

from compat_adapter.vendor import RulesSpec, VendorSpec
from vendors.opencode.table import OPENCODE

__all__ = ("KILO",)

RULES = RulesSpec(
    formats=("markdown",),
    default_sources=("AGENTS.md", "kilo.json instructions"),
    note=OPENCODE.rules.note if OPENCODE.rules is not None else "",
)

KILO = OPENCODE.model_copy(update={
    "id": "kilo",
    "rules": RULES,
    # Its event rows are OpenCode's, measured on OpenCode's CLI: no lane case runs them on Kilo's (what
    # the lane measured on kilo run is its plugins and its permission rules, graded as measured).
    "events": tuple(row.model_copy(update={"confidence": "derived"}) for row in OPENCODE.events),
    "plugin_runtime": (
        "Kilo's own runtime is not embedded in the host: its plugins are OpenCode plugins and run as "
        "written in the plugin host's Bun sidecar (CompatAdapter.register_plugins, or an import of the "
        "trusted project; set-up: scripts/plugin_lane.sh), which loads the .ts and .js files of Kilo's "
        "plugin folders (.kilo/ and .kilocode/, plugin/ and plugins/) and the npm plugins kilo.json "
        "lists, graded on OpenCode's plugin rows; Kilo's event rows take command re-writes of its hooks."
    ),
    "measured_on": "7.7.9",  # the vendor lane's pin (vendors/kilo/lane.pin)
    # Measured (lane, kilo run 7.7.9): no session-title request, so the transform runs once a request.
    "plugin_title_request": False,
})
VendorSpec.model_validate(KILO.model_dump())  # the copy is checked as a table of its own
