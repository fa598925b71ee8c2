"""Losses true of the same host point whatever the vendor: written once, listed by each row they hit.

Data only. Claude Code and CodeBuddy (and, for one prompt fact, Codex) land several events on the
same host point with the same consequence; the sentence lives here instead of in each table.
"""

from compat_adapter.vendor import degrade

__all__ = (
    "APPROVAL_ONCE",
    "COMPACTION_ALWAYS_AUTO",
    "CHANGE_KIND_MISSING",
    "COMPACTION_STARTED",
    "COMPLETION_FROM_SNAPSHOTS",
    "DEBOUNCED_CHANGES",
    "DROPPED_TASKS_NEVER_FIRE",
    "EVERY_INBOX_STEP",
    "HTTP_POLICIES_NOT_READ",
    "INSTRUCTIONS_AT_CREATION",
    "NOTIFICATION_IDLE_ONLY",
    "NO_AGENT_TYPE",
    "ONLY_APPROVAL_REJECTIONS",
    "POLLED_WORKTREES",
    "REWRITE_IN_HISTORY",
    "REWRITE_NESTED",
    "REWRITE_POST_PAYLOAD",
    "SETTINGS_COMMITTED",
    "TASKS_FROM_SNAPSHOTS",
    "WORKTREES_GIT_ONLY",
)

# tools/pre-execute + tools/execute: an input rewrite (compat_adapter/routing/rewrite.py)
REWRITE_NESTED = degrade(
    "decision-narrowed",
    "A new input runs as a nested call through the host's tool pipeline (the way a composite tool "
    "dispatches), so the host's own policy judges it again and may refuse it; where the vendor "
    "replaces the whole input, a field the new input leaves out keeps the model's value here; "
    "post-tool hooks read the model's original arguments.",
)
REWRITE_POST_PAYLOAD = degrade(
    "payload-field-missing",
    "After an input rewrite, post-tool hooks read the model's original arguments, not the new ones.",
)
REWRITE_IN_HISTORY = degrade(
    "message-provenance",
    "The model's history keeps the call it made (with the new input's output), where the vendor shows "
    "the rewritten arguments in the call.",
)

# agent/pre-step: the prompt point
EVERY_INBOX_STEP = degrade(
    "timing-differs",
    "It runs on every step that claims new inbox messages, so a steered continuation can trigger it as "
    "well as a typed prompt.",
)

# compaction/start
COMPACTION_STARTED = degrade(
    "timing-differs",
    "The hook runs on the durable compaction/start record, once compaction has already begun.",
)

# agent/instructions-loaded
INSTRUCTIONS_AT_CREATION = degrade(
    "timing-differs",
    "It fires once per instruction file found when the session is created, all at that moment, rather "
    "than as each file is loaded.",
)

# approval/decided
ONLY_APPROVAL_REJECTIONS = degrade(
    "scope-differs",
    "Only approvals the host's approval service rejects fire it; a deny from a hook or a guard never "
    "passes through approval.",
)

# todo/write: tasks are read from todo-list snapshots
TASKS_FROM_SNAPSHOTS = degrade(
    "observe-only",
    "New tasks are found by comparing whole todo-list snapshots after they are written, so a block cannot "
    "roll one back.",
)
COMPLETION_FROM_SNAPSHOTS = degrade(
    "observe-only",
    "Completion is read from a snapshot in which an item became completed, so a block cannot undo it.",
)
DROPPED_TASKS_NEVER_FIRE = degrade(
    "scope-differs",
    "A task dropped from the list without being completed never fires it.",
)

# settings/document-updated
SETTINGS_COMMITTED = degrade(
    "observe-only",
    "The new settings revision is already committed, so a block cannot refuse it.",
)

# fs/watch
DEBOUNCED_CHANGES = degrade(
    "timing-differs",
    "Changes are coalesced with a 250 ms debounce, so a burst of edits reports as one change.",
)
CHANGE_KIND_MISSING = degrade(
    "payload-field-missing",
    "The watcher reports changed paths without saying whether a file was added, changed or removed.",
)

# git/worktrees
POLLED_WORKTREES = degrade(
    "polled",
    "Worktrees are found by polling git worktree list --porcelain, so the hook fires up to one poll "
    "interval late and a worktree made and removed between two polls is never seen.",
)
WORKTREES_GIT_ONLY = degrade(
    "scope-differs",
    "Only a session inside a git repository is polled, and any worktree change counts, including ones "
    "made outside the agent.",
)

# subagent/start and subagent/end: the host names no agent type
NO_AGENT_TYPE = degrade(
    "matcher-narrowed",
    "The host carries no agent type, so agent_type is \"default\" and a matcher naming another type "
    "never fires.",
)

# approval/request: what an approval answer can become
APPROVAL_ONCE = degrade(
    "decision-narrowed",
    "allow becomes allowed-once and deny becomes rejected; the host has no lasting grant, so "
    "updatedPermissions has no effect.",
)

# agent/status as a notification: an agent turning idle is the one kind the host reports
NOTIFICATION_IDLE_ONLY = degrade(
    "matcher-narrowed",
    "Only idle_prompt is ever reported, so a matcher naming another notification type "
    "(permission_prompt, auth_success …) selects nothing.",
)

# compaction/end
COMPACTION_ALWAYS_AUTO = degrade(
    "matcher-narrowed",
    "The host does not tell a manual compaction from an automatic one at this point, so trigger is "
    "always \"auto\" and a \"manual\" matcher never fires.",
)

# an http handler (Claude Code and CodeBuddy read settings-level policies for them)
HTTP_POLICIES_NOT_READ = degrade(
    "scope-differs",
    "Claude's settings-level allowedHttpHookUrls and httpHookAllowedEnvVars policies are not read: the URL "
    "and header variables are used as the handler gives them.",
)
