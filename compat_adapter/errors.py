"""One error tree. Every error carries a stable string code that callers and the CLI can rely on.

Poor portability is never an error: it is a grade. Errors are for declarations that cannot be
processed, inputs that cannot be read, and an adapter used after dispose.
"""

from __future__ import annotations

__all__ = (
    "AdapterDisposed",
    "BadArgument",
    "CompatError",
    "ConfigParseError",
    "HostSurfaceMismatch",
    "InputRefused",
    "InputTooLarge",
    "InvalidDeclaration",
    "InvalidHandler",
    "InvalidMatcher",
    "MountFailed",
    "NestingTooDeep",
    "NoSuchPath",
    "NotAFolder",
    "NotAVendorFile",
    "PresetError",
    "ProtocolError",
    "RulesSourceMissing",
    "RulesTooLarge",
    "RulesUnreadable",
    "ScriptError",
    "TrustNotConfirmed",
    "UnknownEvent",
    "UnknownHost",
    "UnknownVendor",
    "UnsafeStateDir",
    "VendorIncomplete",
    "ERROR_CODES",
)


class CompatError(Exception):
    """Root of every error this package raises on purpose."""

    code: str = "COMPAT_ERROR"
    #: What a user should do about it; the CLI prints it after the message.
    hint: str = ""

    def __init__(self, message: str, **context: object) -> None:
        super().__init__(message)
        self.message = message
        #: Structured details (vendor, event, path …) for logs and JSON output.
        self.context = context

    def __str__(self) -> str:
        return f"{self.code}: {self.message}"

    def to_json(self) -> dict[str, object]:
        return {"code": self.code, "message": self.message, "hint": self.hint,
                **{k: str(v) for k, v in self.context.items()}}


class UnknownVendor(CompatError):
    code = "UNKNOWN_VENDOR"
    hint = "use a registered vendor id or a documented alias; `compat-adapter matrix` lists every vendor"


class UnknownEvent(CompatError):
    code = "UNKNOWN_EVENT"
    hint = "spell the event exactly as the vendor does; `compat-adapter matrix --vendor V` lists them"


class InvalidMatcher(CompatError):
    code = "INVALID_MATCHER"
    hint = "a matcher is a string in the vendor's matcher syntax, or absent"


class InvalidHandler(CompatError):
    code = "INVALID_HANDLER"
    hint = "only command hooks run here: a command string or {type: 'command', command, timeout}"


class InvalidDeclaration(CompatError):
    code = "INVALID_DECLARATION"
    hint = "check the declaration's fields against INTEGRATION.md"


class AdapterDisposed(CompatError):
    code = "ADAPTER_DISPOSED"
    hint = "create a new CompatAdapter; a disposed one accepts nothing"


class RulesSourceMissing(CompatError):
    code = "RULES_SOURCE_MISSING"
    hint = "give an existing absolute path, a path relative to an absolute base_dir, or a glob that matches"


class RulesUnreadable(CompatError):
    code = "RULES_UNREADABLE"
    hint = "check the file's permissions and that it is a regular file"


class RulesTooLarge(CompatError):
    code = "RULES_TOO_LARGE"
    hint = "split the file or raise max_rule_bytes; rules are never truncated"


class InputRefused(CompatError):
    code = "INPUT_REFUSED"
    hint = ("only regular files are read: not a FIFO, device, socket or /proc, /sys, /dev file, and "
            "not through a symlink that leaves the project")


class InputTooLarge(CompatError):
    code = "INPUT_TOO_LARGE"
    hint = "the file is over the size limit for its kind; nothing of it was read"


class NestingTooDeep(CompatError):
    code = "NESTING_TOO_DEEP"
    hint = "JSON or TOML nested deeper than compat_adapter.jsonlimits.MAX_DEPTH levels is refused whole"


class HostSurfaceMismatch(CompatError):
    code = "HOST_SURFACE_MISMATCH"
    hint = "the host does not offer what this needs; run `compat-adapter surface` to see what is missing"


class MountFailed(CompatError):
    code = "MOUNT_FAILED"
    hint = "the host refused to mount a bridge or listener; earlier hooks keep running"


class ConfigParseError(CompatError):
    code = "CONFIG_PARSE_ERROR"
    hint = "fix the file at the place named; nothing from it was registered"


class PresetError(CompatError):
    code = "PRESET_ERROR"
    hint = "a preset is a module, file or object with apply(adapter)"


class ScriptError(CompatError):
    code = "SCRIPT_ERROR"
    hint = "a session script is a JSON list of steps; see INTEGRATION.md"


class ProtocolError(CompatError):
    code = "PROTOCOL_ERROR"
    hint = "send one JSON object per line with an id and a method"


class UnsafeStateDir(CompatError):
    code = "UNSAFE_STATE_DIR"
    hint = ("the state folder (trust store) must be a real directory of yours, mode 0700, with files "
            "only you can write; fix it or point $COMPAT_ADAPTER_STATE_HOME elsewhere")


class NoSuchPath(CompatError):
    code = "NO_SUCH_PATH"
    hint = "check the path: nothing exists there"


class NotAFolder(CompatError):
    code = "NOT_A_FOLDER"
    hint = "name the project folder, or name the file with --vendor"


class NotAVendorFile(CompatError):
    code = "NOT_A_VENDOR_FILE"
    hint = ("no vendor reads a file of that name where it sits (`compat-adapter grade FOLDER` finds every "
            "vendor's files); name its vendor with --vendor")


class UnknownHost(CompatError):
    code = "UNKNOWN_HOST"
    hint = "use a built-in host (embedded, dsh, dsh-0.2) or one an installed package registers"


class BadArgument(CompatError):
    code = "BAD_ARGUMENT"
    hint = "see the command's --help"


class TrustNotConfirmed(CompatError):
    code = "TRUST_NOT_CONFIRMED"
    hint = ("trust is granted by a person: run `compat-adapter trust` on a terminal and answer y, or "
            "pass --yes to trust on purpose (a script, CI)")


class VendorIncomplete(CompatError):
    code = "VENDOR_INCOMPLETE"
    hint = ("a vendor unit names every part (compat_adapter.registry.VendorUnit) and its table every fact "
            "(compat_adapter.model.VendorSpec); INTEGRATION.md \"Adding a vendor\" lists them")


def _codes() -> dict[str, type[CompatError]]:
    found: dict[str, type[CompatError]] = {CompatError.code: CompatError}
    pending = list(CompatError.__subclasses__())
    while pending:
        cls = pending.pop()
        found[cls.code] = cls
        pending.extend(cls.__subclasses__())
    return found


#: Every stable code and its class; INTEGRATION.md documents each one (a test checks that).
ERROR_CODES: dict[str, type[CompatError]] = _codes()
