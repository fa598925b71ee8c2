"""A row derived from another vendor's row takes that row's routing and never its losses."""

from __future__ import annotations

import pytest

from compat_adapter.vendor import degrade, derive_row
from vendors.claude.table import CLAUDE

_OWN = degrade("timing-differs", "A loss worded for the deriving vendor.")


def test_a_derived_row_takes_the_base_routing_and_only_its_own_losses() -> None:
    base = CLAUDE.row("PreToolUse")
    assert base is not None and base.degradations and base.official is not None
    row = derive_row(CLAUDE, "PreToolUse", degradations=(_OWN,))
    routing = {name for name in type(base).model_fields} - {"degradations", "role_losses", "official"}
    assert {name: getattr(row, name) for name in routing} == {name: getattr(base, name) for name in routing}
    assert row.degradations == (_OWN,) and row.role_losses == () and row.official is None


def test_a_stated_field_and_the_official_alternative_are_the_vendors_own() -> None:
    row = derive_row(CLAUDE, "UserPromptSubmit", timeout_s=None, official={"timeout_s": None, "degradations": (_OWN,)})
    assert row.timeout_s is None and row.official is not None
    assert row.official.timeout_s is None and row.official.degradations == (_OWN,)
    assert row.official.bridge_event == CLAUDE.row("UserPromptSubmit").official.bridge_event  # type: ignore[union-attr]


def test_a_renamed_event_keeps_the_base_routing() -> None:
    watched = degrade("observe-only", "Found after the list is written.")
    row = derive_row(CLAUDE, "TaskCreated", event="TodoCreated", degradations=(watched,))
    assert (row.event, row.point, row.fires_on) == ("TodoCreated", "todo/write", "created")


def test_a_derived_row_is_validated_as_any_row() -> None:
    """A native-seam base row needs its observe-only loss from the deriving vendor too."""
    with pytest.raises(ValueError, match="native-seam row only watches"):
        derive_row(CLAUDE, "TaskCreated", degradations=(_OWN,))


def test_a_row_the_base_lacks_or_an_alternative_it_lacks_is_refused() -> None:
    with pytest.raises(ValueError, match="has no NoSuchEvent row"):
        derive_row(CLAUDE, "NoSuchEvent")
    assert CLAUDE.row("PreCompact").official is None  # type: ignore[union-attr]
    with pytest.raises(ValueError, match="no official alternative"):
        derive_row(CLAUDE, "PreCompact", official={})

