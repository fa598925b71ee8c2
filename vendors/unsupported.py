"""Hook-capable agents with no vendor unit here, and where their hook files sit in a project. Data only.

``compat-adapter grade`` names each such file it finds as "not a supported vendor" instead of
skipping it in silence. Paths are the vendors' documented project paths
(``reference/turn3/vendors-beyond-five.md``); user-level and system files are never searched, so a
vendor whose hooks live only there (Goose's plugin folders, Kimi Code's ``~/.kimi-code``) has no
entry. When a vendor gets a unit, its entry here goes: the registry refuses a vendor that is both.

``files`` hold hooks whatever their content; ``settings`` are shared settings files, named only
when they carry a top-level ``hooks`` key.
"""

from compat_adapter.vendor import UnsupportedVendor

__all__ = ("UNSUPPORTED",)

# Built without validation, as the table surface is (vendors/surface.py says why): the values are
# already the model's types, and tests/test_vendor_units.py validates every entry.
UNSUPPORTED = (
    # Agents found in public projects that have no unit yet.
    UnsupportedVendor.model_construct(id="windsurf", name="Windsurf (Cascade)", files=(".windsurf/hooks.json",),
                                      settings=()),
    UnsupportedVendor.model_construct(id="kiro", name="Kiro", files=(".kiro/hooks/*",), settings=()),
    UnsupportedVendor.model_construct(id="cline", name="Cline", files=(".clinerules/hooks/*",), settings=()),
    UnsupportedVendor.model_construct(id="factory", name="Factory Droid",
                                      files=(".factory/hooks.json", ".factory/hooks/hooks.json"),
                                      settings=(".factory/settings.json", ".factory/settings.local.json")),
    UnsupportedVendor.model_construct(id="continue", name="Continue (cn)", files=(),
                                      settings=(".continue/settings.json", ".continue/settings.local.json")),
    UnsupportedVendor.model_construct(id="augment", name="Augment (Auggie)", files=(),
                                      settings=(".augment/settings.json", ".augment/settings.local.json")),
    UnsupportedVendor.model_construct(id="amp", name="Amp", files=(".amp/plugins/*",), settings=(".amp/settings.json",)),
    UnsupportedVendor.model_construct(id="crush", name="Crush", files=(), settings=("crush.json", ".crush.json")),
    UnsupportedVendor.model_construct(id="iflow", name="iFlow CLI", files=(), settings=(".iflow/settings.json",)),
)
