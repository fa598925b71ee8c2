"""Print the bundle folder: ``dsh plugin --profile sdk add "file:$(python -m compat_adapter.host.dsh.bundle)"``."""

from compat_adapter.host.dsh.bundle import BUNDLE_DIR

print(BUNDLE_DIR)
