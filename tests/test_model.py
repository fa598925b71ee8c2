"""The grading invariants, enforced by the one constructor, and the error tree's stable codes."""

from __future__ import annotations

import pytest
from pydantic import ValidationError

from compat_adapter.errors import ERROR_CODES, CompatError
from compat_adapter.model import (
    Capability,
    DegradationCode,
    Route,
    capability_result,
    degrade,
)

LOSS = degrade("observe-only", "The hook can only watch.")


def test_adapted_needs_a_degradation() -> None:
    with pytest.raises(ValueError, match="at least one degradation"):
        capability_result(id="x", vendor="claude", event="Stop", capability="ADAPTED",
                          route="native-translate")
    ok = capability_result(id="x", vendor="claude", event="Stop", capability="ADAPTED",
                           route="native-translate", degradations=[LOSS])
    assert ok.degradations == (LOSS,)
    assert isinstance(ok.degradations, tuple)


def test_unsupported_needs_a_reason_and_is_never_routed() -> None:
    with pytest.raises(ValueError, match="needs a reason"):
        capability_result(id="x", vendor="claude", event="Stop", capability="UNSUPPORTED",
                          route="unsupported")
    with pytest.raises(ValueError, match="never routed"):
        capability_result(id="x", vendor="claude", event="Stop", capability="UNSUPPORTED",
                          route="native-translate", reason="no seam")
    r = capability_result(id="x", vendor="claude", event="Stop", capability="UNSUPPORTED",
                          route="unsupported", reason="no seam")
    assert not r.mounted


def test_direct_has_no_degradation() -> None:
    with pytest.raises(ValueError, match="DIRECT carries no degradation"):
        capability_result(id="x", vendor="claude", event="Stop", capability="DIRECT",
                          route="native-translate", degradations=[LOSS])
    assert capability_result(id="x", vendor="claude", event="Stop", capability="DIRECT",
                             route="native-translate").capability is Capability.DIRECT


def test_carry_is_for_rules_on_agent_created() -> None:
    with pytest.raises(ValueError, match="agent/created"):
        capability_result(id="r", vendor="codex", event="rules", capability="CARRY", route="carry",
                          seams=["tools/pre-execute"])
    with pytest.raises(ValueError, match="carry route is only for CARRY"):
        capability_result(id="r", vendor="codex", event="rules", capability="ADAPTED", route="carry",
                          degradations=[LOSS])
    r = capability_result(id="r", vendor="codex", event="rules", capability="CARRY", route="carry",
                          seams=["agent/created"])
    assert r.route is Route.CARRY and r.seams == ("agent/created",)


def test_results_are_frozen() -> None:
    r = capability_result(id="x", vendor="claude", event="Stop", capability="ADAPTED",
                          route="native-translate", degradations=[LOSS])
    with pytest.raises(ValidationError):
        r.capability = Capability.DIRECT  # type: ignore[misc]
    assert hash(r) == hash(capability_result(**r.model_dump()))


def test_degradation_codes_are_a_closed_vocabulary() -> None:
    with pytest.raises(ValueError):
        degrade("sort-of-works", "nope")
    assert DegradationCode("approximate") is DegradationCode.APPROXIMATE


def test_error_codes_are_stable_and_unique() -> None:
    wanted = {"UNKNOWN_VENDOR", "UNKNOWN_EVENT", "INVALID_MATCHER", "INVALID_HANDLER",
              "INVALID_DECLARATION", "ADAPTER_DISPOSED", "RULES_SOURCE_MISSING", "RULES_TOO_LARGE",
              "HOST_SURFACE_MISMATCH"}
    assert wanted <= set(ERROR_CODES)
    for code, cls in ERROR_CODES.items():
        assert issubclass(cls, CompatError)
        err = cls("something went wrong", path="/x")
        assert str(err) == f"{code}: something went wrong"
        assert err.to_json()["code"] == code
