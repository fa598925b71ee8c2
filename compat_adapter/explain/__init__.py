"""``compat-adapter explain``: replay one event against a hook config and see the vendor's verdict
beside the host's (issue 18)."""

from compat_adapter.explain.core import Question, explain
from compat_adapter.explain.report import ExplainReport

__all__ = ("ExplainReport", "Question", "explain")
